"""The VS Code extension's launcher (vscode-extension/bundled/tool/surface_lint_server.py) on a
bundle laid out as scripts/bundle_python.py lays it out: bundled/libs (pure Python) and
bundled/native/cpXY (the compiled google-re2 and msgspec). The bundle is made of links to this environment's packages,
and the launcher runs with `-S` (no site-packages), so it can only import what the bundle holds."""

from __future__ import annotations

import importlib.util
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
LAUNCHER = ROOT / "vscode-extension" / "bundled" / "tool" / "surface_lint_server.py"
PURE = ("pygls", "lsprotocol", "attrs", "attr", "cattrs", "cattr", "typing_extensions")
TAG = f"cp{sys.version_info[0]}{sys.version_info[1]}"
VERSION = "{}.{}".format(*sys.version_info[:2])
FULL_VERSION = "{}.{}.{}".format(*sys.version_info[:3])


def link_package(name: str, into: Path) -> None:
    spec = importlib.util.find_spec(name)
    assert spec is not None and spec.origin is not None, name
    origin = Path(spec.origin)
    source = origin.parent if origin.name == "__init__.py" else origin
    into.mkdir(parents=True, exist_ok=True)
    (into / source.name).symlink_to(source, target_is_directory=source.is_dir())


def make_bundle(root: Path, *, native: bool = True, libs: bool = True, msgspec: bool = True) -> Path:
    bundled = root / "bundled"
    (bundled / "tool").mkdir(parents=True)
    shutil.copy(LAUNCHER, bundled / "tool" / LAUNCHER.name)
    if libs:
        (bundled / "libs").mkdir()
        (bundled / "libs" / "surface_lint").symlink_to(ROOT / "server" / "surface_lint", target_is_directory=True)
        for name in PURE:
            link_package(name, bundled / "libs")
    if native:
        link_package("re2", bundled / "native" / TAG)
    if native and msgspec:
        link_package("msgspec", bundled / "native" / TAG)
    # As scripts/bundle_python.py writes it (msgspec: optional, the server reads JSON without it).
    manifest = {
        "target": "linux-x64" if native else "universal",
        "native": {
            "google_re2": {"requirement": "google-re2>=1.1", "modules": ["re2"], "pythons": {TAG: "1.1"} if native else {},
                           "optional": False},
            "msgspec": {"requirement": "msgspec>=0.23", "modules": ["msgspec"], "pythons": {TAG: "0.23.0"} if native and msgspec else {},
                        "optional": True},
        },
    }
    (bundled / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    return bundled / "tool" / LAUNCHER.name


def run_launcher(launcher: Path, *args: str, stdin: bytes = b"") -> subprocess.CompletedProcess[bytes]:
    # -S: no site-packages; -E: no PYTHONPATH. Only the standard library and the bundle are importable.
    return subprocess.run([sys.executable, "-S", "-E", str(launcher), *args], input=stdin, capture_output=True, timeout=120, check=False)


def test_check_passes_on_a_complete_bundle(tmp_path: Path) -> None:
    launcher = make_bundle(tmp_path)
    done = run_launcher(launcher, "--check")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report == {
        "ok": True,
        "python": sys.executable,
        "version": FULL_VERSION,
        "server": str(tmp_path / "bundled" / "libs" / "surface_lint"),
    }


def test_check_names_a_bundled_package_that_is_missing(tmp_path: Path) -> None:
    launcher = make_bundle(tmp_path)
    (tmp_path / "bundled" / "libs" / "pygls").unlink()
    done = run_launcher(launcher, "--check")
    assert done.returncode == 1
    libs = tmp_path / "bundled" / "libs"
    assert json.loads(done.stdout)["problem"] == f"the bundled pygls is missing from {libs}: reinstall the extension"


def test_check_names_the_missing_compiled_package_and_the_fix(tmp_path: Path) -> None:
    launcher = make_bundle(tmp_path, native=False)
    done = run_launcher(launcher, "--check")
    assert done.returncode == 1
    assert json.loads(done.stdout) == {
        "ok": False,
        "python": sys.executable,
        "version": FULL_VERSION,
        "problem": f"the compiled package google-re2 (module re2) is not bundled for cpython Python {VERSION} on this platform "
        f"(this .vsix: target universal, built for none) and {sys.executable} does not have it (No module named 're2'): "
        f"run `{sys.executable} -m pip install 'google-re2>=1.1'`, or install the .vsix built for your platform",
    }


# The server's JSON decoder as the launcher leaves it: msgspec's (bundled/native) or json.loads alone.
DECODER_PROBE = ("import runpy, sys; launcher = runpy.run_path(sys.argv[1]); problem = launcher['_problem'](); "
                 "from surface_lint.model.jsonread import fast_decoder, loads; "
                 "print(problem, fast_decoder() is not None, loads(b'[18446744073709551616, NaN]', None))")


@pytest.mark.parametrize(("msgspec", "fast"), [(True, "True"), (False, "False")], ids=["bundled", "not-built-here"])
def test_msgspec_is_used_where_bundled_and_not_asked_for_where_not(tmp_path: Path, msgspec: bool, fast: str) -> None:
    # An optional compiled package without a build for this Python (or platform) is no problem:
    # the check passes and the server reads JSON with json.loads alone, the same values.
    launcher = make_bundle(tmp_path, msgspec=msgspec)
    done = run_launcher(launcher, "--check")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["ok"] is True
    probe = subprocess.run([sys.executable, "-S", "-E", "-c", DECODER_PROBE, str(launcher)], capture_output=True, text=True,
                           timeout=120, check=False)
    assert probe.stdout.strip() == f"None {fast} [18446744073709551616, nan]", probe.stderr


def test_without_a_bundle_it_says_so_and_the_server_does_not_start(tmp_path: Path) -> None:
    launcher = make_bundle(tmp_path, native=False, libs=False)
    done = run_launcher(launcher)
    assert done.returncode == 1
    libs = tmp_path / "bundled" / "libs"
    problem = f"this extension has no bundled server ({libs} is missing): set surfaceLint.importStrategy to fromEnvironment"
    report = {"ok": False, "python": sys.executable, "version": FULL_VERSION, "problem": problem}
    # The human line, then the report line the extension reads instead of running --check first.
    assert done.stderr.decode() == f"surface-lint: {problem}\nsurface-lint launcher: {json.dumps(report)}\n"
    assert done.stdout == b""


def frame(message: dict[str, object]) -> bytes:
    body = json.dumps(message).encode()
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


def test_the_launcher_serves_lsp_over_stdio(tmp_path: Path) -> None:
    launcher = make_bundle(tmp_path)
    stdin = (
        frame({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"processId": None, "rootUri": None, "capabilities": {}}})
        + frame({"jsonrpc": "2.0", "method": "initialized", "params": {}})
        + frame({"jsonrpc": "2.0", "id": 2, "method": "shutdown"})
        + frame({"jsonrpc": "2.0", "method": "exit"})
    )
    done = run_launcher(launcher, stdin=stdin)
    assert done.returncode == 0, done.stderr
    bodies = [json.loads(part.split(b"\r\n\r\n", 1)[1]) for part in done.stdout.split(b"Content-Length: ")[1:]]
    responses = {body["id"]: body for body in bodies if "id" in body and "method" not in body}
    assert responses[1]["result"]["serverInfo"]["name"] == "surface-lint"
    assert responses[2] == {"jsonrpc": "2.0", "id": 2, "result": None}
    # Its first stderr line is the check's report, the extension's signal that this Python serves.
    report = {"ok": True, "python": sys.executable, "version": FULL_VERSION, "server": str(tmp_path / "bundled" / "libs" / "surface_lint")}
    assert done.stderr.decode().split("\n")[0] == f"surface-lint launcher: {json.dumps(report)}"


def test_the_bundles_own_bytecode_is_read_only_by_the_python_it_was_built_for(tmp_path: Path) -> None:
    # scripts/bundle_python.py lists the cache tag it compiled the bundle for (manifest `bytecode`).
    probe = ("import runpy, sys; launcher = runpy.run_path(sys.argv[1]); "
             "used = launcher['use_shipped_bytecode']({'bytecode': sys.argv[2:]}); "
             "print(used, sys.pycache_prefix, sys.dont_write_bytecode)")
    env = {"PYTHONPYCACHEPREFIX": str(tmp_path / "cache")}
    mine = sys.implementation.cache_tag
    for tags, expected in (([mine], "True None True"), (["cpython-39"], f"False {tmp_path / 'cache'} False"),
                           ([], f"False {tmp_path / 'cache'} False")):
        done = subprocess.run([sys.executable, "-c", probe, str(LAUNCHER), *tags], env=env, capture_output=True,
                              text=True, timeout=60, check=True)
        assert done.stdout.strip() == expected
