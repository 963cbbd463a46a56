"""docs/non-latin.md runs as written: each `file=` block is written out, each console block's
command is run in that folder, and its output must be exactly what the page shows."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs" / "non-latin.md"
_BLOCK = re.compile(r"^```(\w+)(?: file=(\S+))?\n(.*?)^```$", re.M | re.S)


def blocks() -> list[tuple[str, str | None, str]]:
    return [(m.group(1), m.group(2), m.group(3)) for m in _BLOCK.finditer(PAGE.read_text(encoding="utf-8"))]


def run(command: str, cwd: Path) -> tuple[str, int]:
    args = shlex.split(command.removeprefix("$ "))
    assert args[0] == "surface-lint"
    env = {**os.environ, "PYTHONPATH": str(ROOT / "server")}
    done = subprocess.run([sys.executable, "-m", "surface_lint", *args[1:]], cwd=cwd, env=env,
                          capture_output=True, text=True, encoding="utf-8", check=False)
    return done.stdout, done.returncode


def test_the_page_has_a_hebrew_a_greek_and_a_normalising_example() -> None:
    commands = [body for kind, _, body in blocks() if kind == "console"]
    assert [c.splitlines()[0] for c in commands] == [
        "$ surface-lint check hebrew.jsonl --lane-file hebrew.toml --lane hebrew_demo",
        "$ surface-lint check hebrew_default.jsonl --lane-file hebrew_default.toml --lane hebrew_default",
        "$ surface-lint check greek.jsonl --lane-file greek.toml --lane greek_demo",
        "$ surface-lint check nfc.jsonl --lane-file nfc.toml --lane nfc_demo --output-format full",
    ]


@pytest.mark.parametrize("index", [0, 1, 2, 3])
def test_each_example_gives_the_output_the_page_shows(index: int, tmp_path: Path) -> None:
    for _kind, name, body in blocks():
        if name is not None:
            (tmp_path / name).write_text(body, encoding="utf-8")
    command, *shown = [body for kind, _, body in blocks() if kind == "console"][index].splitlines()
    output, code = run(command, tmp_path)
    assert output.splitlines() == shown
    assert code == 1  # each example has findings on purpose
