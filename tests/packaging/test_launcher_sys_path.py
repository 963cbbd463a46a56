"""No workspace code on the server's path, on any supported Python: the VS Code extension's
launcher (vscode-extension/bundled/tool/surface_lint_server.py) takes the working directory (the
workspace folder), relative entries and its own folder off sys.path itself, before it imports
anything. PYTHONSAFEPATH does that only from Python 3.11; 3.10 ignores it.

Each test runs the launcher with a real interpreter: this environment's, and Python 3.10 and
3.13 where they are installed (on PATH as python3.10 / python3.13, or under pyenv); a missing one
is skipped. The workspace holds a `surface_lint/` (and a `pygls/`) that say so if they are run.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
LAUNCHER = ROOT / "vscode-extension" / "bundled" / "tool" / "surface_lint_server.py"
SHADOW = 'import sys\nsys.stdout.write("WORKSPACE CODE RAN\\n")\nsys.exit(9)\n'


def interpreter(version: str) -> str | None:
    """That Python's executable: pyenv's build, else one on PATH (not a pyenv shim, which needs
    pyenv's own environment to pick a version)."""
    pyenv = Path(os.environ.get("PYENV_ROOT", Path.home() / ".pyenv")) / "versions"
    for candidate in sorted(pyenv.glob(f"{version}.*/bin/python{version}")) if pyenv.is_dir() else []:
        return str(candidate)
    found = shutil.which(f"python{version}")
    return found if found is not None and "shims" not in Path(found).parts else None


PYTHONS = [pytest.param(sys.executable, id="this-python"),
           *(pytest.param(interpreter(v), id=f"python{v}") for v in ("3.10", "3.13"))]


def _python(python: str | None) -> str:
    if python is None:
        pytest.skip("that Python is not installed here (CI's Debian has only its python3)")
    return python


def _package(root: Path, name: str, init: str = "", main: str | None = None) -> None:
    folder = root / name
    folder.mkdir(parents=True)
    (folder / "__init__.py").write_text(init, encoding="utf-8")
    if main is not None:
        (folder / "__main__.py").write_text(main, encoding="utf-8")


@pytest.fixture
def places(tmp_path: Path) -> tuple[Path, Path]:
    """A workspace with shadowing packages, and an environment with a stand-in surface-lint
    (what `pip install surface-lint` would have put in that Python), pygls and lsprotocol."""
    ws = tmp_path / "ws"
    for name in ("surface_lint", "pygls", "lsprotocol"):
        _package(ws, name, SHADOW, SHADOW)
    env = tmp_path / "env"
    _package(env, "surface_lint", "", 'def main(argv):\n    print("environment surface_lint", argv)\n    return 0\n')
    _package(env, "pygls")
    _package(env, "lsprotocol")
    return ws, env


def _run(python: str, launcher: Path, cwd: Path, pythonpath: str, *args: str) -> subprocess.CompletedProcess[str]:
    env = {"PATH": os.environ.get("PATH", ""), "PYTHONPATH": pythonpath}  # no PYTHONSAFEPATH
    return subprocess.run([python, str(launcher), *args], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=120, check=False)


@pytest.mark.parametrize("python", PYTHONS)
def test_from_environment_runs_the_environments_server_not_the_workspaces(
        python: str | None, places: tuple[Path, Path]) -> None:
    python = _python(python)
    ws, env = places
    # "." and an empty entry would put the workspace (the cwd) on the path.
    done = _run(python, LAUNCHER, ws, f".{os.pathsep}{os.pathsep}{env}", "--from-environment")
    version = subprocess.run([python, "-c", "import sys; print('%d.%d.%d' % sys.version_info[:3], sys.executable)"],
                             capture_output=True, text=True, check=True).stdout.split()
    report_line = "surface-lint launcher: " + json.dumps(
        {"ok": True, "python": version[1], "version": version[0], "server": str(env / "surface_lint")})
    assert (done.returncode, done.stdout, done.stderr) == (0, "environment surface_lint ['server']\n", report_line + "\n")
    check = _run(python, LAUNCHER, ws, f".{os.pathsep}{env}", "--from-environment", "--check")
    assert check.returncode == 0, check.stderr
    report = json.loads(check.stdout)
    assert (report["ok"], report["server"]) == (True, str(env / "surface_lint"))


@pytest.mark.parametrize("python", PYTHONS)
def test_the_launchers_own_folder_is_off_the_path(python: str | None, places: tuple[Path, Path],
                                                  tmp_path: Path) -> None:
    python = _python(python)
    ws, env = places
    tool = tmp_path / "tool"
    _package(tool, "surface_lint", SHADOW, SHADOW)
    shutil.copy(LAUNCHER, tool / LAUNCHER.name)
    done = _run(python, tool / LAUNCHER.name, ws, str(env), "--from-environment")
    assert (done.returncode, done.stdout) == (0, "environment surface_lint ['server']\n")


@pytest.mark.parametrize("python", PYTHONS)
def test_from_environment_says_what_the_python_lacks(python: str | None, places: tuple[Path, Path]) -> None:
    python = _python(python)
    ws, _ = places
    # -S: no site-packages, so nothing is installed; the workspace's packages do not count.
    check = subprocess.run([python, "-S", str(LAUNCHER), "--from-environment", "--check"], cwd=ws,
                           env={"PATH": os.environ.get("PATH", ""), "PYTHONPATH": "."}, capture_output=True,
                           text=True, timeout=120, check=False)
    assert check.returncode == 1
    assert json.loads(check.stdout)["problem"] == f"{python} does not have surface_lint, pygls, lsprotocol installed"


def test_python_3_10_would_run_the_workspaces_package_with_dash_m(places: tuple[Path, Path]) -> None:
    """Why the launcher does it itself: `python3.10 -m surface_lint` in the workspace runs the
    workspace's package, PYTHONSAFEPATH=1 or not (the repro of the issue)."""
    python = _python(interpreter("3.10"))
    ws, env = places
    done = subprocess.run([python, "-m", "surface_lint", "server"], cwd=ws, capture_output=True, text=True,
                          env={"PATH": os.environ.get("PATH", ""), "PYTHONPATH": str(env), "PYTHONSAFEPATH": "1"},
                          timeout=120, check=False)
    assert (done.returncode, done.stdout) == (9, "WORKSPACE CODE RAN\n")


def test_the_real_server_is_found_past_a_shadowing_workspace(places: tuple[Path, Path]) -> None:
    ws, _ = places
    # This tree's package first on PYTHONPATH (this environment may have another surface-lint installed).
    check = _run(sys.executable, LAUNCHER, ws, f".{os.pathsep}{ROOT / 'server'}", "--from-environment", "--check")
    assert check.returncode == 0, check.stdout + check.stderr
    assert json.loads(check.stdout)["server"] == str(ROOT / "server" / "surface_lint")
