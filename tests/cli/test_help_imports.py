"""`surface-lint --help` (and each run's own `--help`) imports no engine, lane, reporter or
regex engine: its parsers need only names (docs/performance.md, start-up)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

SERVER = Path(__file__).resolve().parents[2] / "server"
LIGHT = ["surface_lint", "surface_lint.cli", "surface_lint.cli.main", "surface_lint.cli.signals",
         "surface_lint.model", "surface_lint.model.errors", "surface_lint.model.formats", "surface_lint.rules",
         "surface_lint.rules.profiles"]


def _imported(*argv: str) -> tuple[list[str], str]:
    env = {**os.environ, "PYTHONPATH": str(SERVER)}
    run = subprocess.run([sys.executable, "-X", "importtime", "-m", "surface_lint", *argv], capture_output=True,
                         text=True, env=env, check=True)
    names = [line.rsplit("|", 1)[1].strip() for line in run.stderr.splitlines() if line.startswith("import time:")]
    return names[1:], run.stdout  # the first row is the table's header


@pytest.mark.parametrize("argv", [("--help",), ("check", "--help"), ("diff", "--help"), ("rule", "--help"),
                                  ("server", "--help")])
def test_help_imports_only_the_names_its_parsers_list(argv: tuple[str, ...]) -> None:
    names, out = _imported(*argv)
    assert sorted(n for n in names if n.startswith("surface_lint")) == LIGHT
    assert [n for n in names if n.split(".")[0] in ("re2", "lsprotocol", "pygls", "json", "tomllib", "sqlite3")] == []
    assert out.startswith("usage: surface-lint")


def test_the_lane_run_help_lists_every_output_format() -> None:
    _, out = _imported("--help")
    assert "--output-format {concise,full,github,html,json,json-lines,junit,markdown,sarif,text}" in out
