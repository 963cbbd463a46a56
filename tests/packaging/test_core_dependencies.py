"""pygls and lsprotocol are core dependencies, but only `surface-lint server` may import them:
the CLI's start-up never pays for them. Each command runs in a fresh interpreter whose import
system records every attempt to import them (a try/except around an import would not hide it)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

if sys.version_info >= (3, 11):
    import tomllib
else:
    import tomli as tomllib

import pytest

ROOT = Path(__file__).resolve().parents[2]
CASES = "examples/evals/deterministic_fluency/public/v1/cases.jsonl"
TRANSCRIPT = "examples/transcripts/deterministic_fluency.jsonl"
SERVER_ONLY = ("pygls", "lsprotocol")

# Runs argv[1:] as the CLI (or `import MODULE` for argv[1] == "--import"), then prints on the last
# stdout line which server-only packages were asked for and which ended in sys.modules.
HARNESS = r"""
import json, sys
WATCHED = set(sys.argv[1].split(","))
asked = []
class Recorder:
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in WATCHED:
            asked.append(name)
        return None
sys.meta_path.insert(0, Recorder())
args = sys.argv[2:]
code = None
if args[0] == "--import":
    __import__(args[1])
else:
    from surface_lint.cli.main import main
    try:
        code = main(args)
    except SystemExit as exit:
        code = exit.code
loaded = sorted(m for m in sys.modules if m.split(".")[0] in WATCHED)
print("\n" + json.dumps({"code": code, "asked": sorted(set(asked)), "loaded": loaded}))
"""


def run_isolated(*args: str) -> dict[str, object]:
    env = {**os.environ, "PYTHONPATH": str(ROOT / "server")}
    done = subprocess.run(
        [sys.executable, "-c", HARNESS, ",".join(SERVER_ONLY), *args],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=120, check=False,
    )
    assert done.stdout.strip(), done.stderr
    result: dict[str, object] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


@pytest.mark.parametrize(
    "args",
    [
        ("--lane", "deterministic_fluency", "--cases", CASES, "--transcripts", TRANSCRIPT),
        ("check", TRANSCRIPT),
        ("check", "--output-format", "json", TRANSCRIPT),
        ("--version",),
    ],
    ids=["score", "check", "check-json", "version"],
)
def test_the_cli_never_imports_the_language_server_packages(args: tuple[str, ...]) -> None:
    result = run_isolated(*args)
    # 0 or 1: the command ran to a verdict (2 would be a usage error, checking nothing).
    assert result["code"] in (0, 1), result
    assert (result["asked"], result["loaded"]) == ([], [])


def test_the_recorder_sees_the_server_importing_them() -> None:
    # The control: the same harness does see pygls and lsprotocol when the server module loads
    # (surface_lint.lsp.main; the package itself only looks them up, to answer `initialize` first).
    result = run_isolated("--import", "surface_lint.lsp.main")
    assert {"pygls", "lsprotocol"} <= set(result["asked"])  # type: ignore[arg-type]
    assert {"pygls", "lsprotocol"} <= set(result["loaded"])  # type: ignore[arg-type]


def test_pygls_and_lsprotocol_are_core_dependencies() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    names = {dep.split(";")[0].split(">")[0].split("<")[0].split("=")[0].strip() for dep in project["dependencies"]}
    assert {"pygls", "lsprotocol", "google-re2", "msgspec"} <= names
    assert "regex" not in names  # nothing imports it since the rules moved to RE2
    assert project["optional-dependencies"]["lsp"] == []
