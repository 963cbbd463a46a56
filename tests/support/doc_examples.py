"""Pages whose examples run as written: each `file=` block is written out, each console block's
command is run in that folder, and its output (stdout, then stderr) must be what the page shows."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
_BLOCK = re.compile(r"^```(\w+)(?: file=(\S+))?\n(.*?)^```$", re.M | re.S)


def blocks(page: Path) -> list[tuple[str, str | None, str]]:
    """(language, file name or None, body) of every fenced block at the start of a line."""
    return [(m.group(1), m.group(2), m.group(3)) for m in _BLOCK.finditer(page.read_text(encoding="utf-8"))]


def commands(page: Path) -> list[list[str]]:
    """Each console block's lines: the `$ ` command, then the output shown."""
    return [body.splitlines() for kind, _, body in blocks(page) if kind == "console"]


def run_example(page: Path, index: int, folder: Path) -> tuple[list[str], list[str], int]:
    """Write the page's files into `folder`, run its `index`-th console command there: (the lines
    shown, the lines printed, the exit code)."""
    for _kind, name, body in blocks(page):
        if name is not None:
            (folder / name).write_text(body, encoding="utf-8")
    command, *shown = commands(page)[index]
    args = shlex.split(command.removeprefix("$ "))
    assert args[0] == "surface-lint"
    env = {**os.environ, "PYTHONPATH": str(ROOT / "server")}
    done = subprocess.run([sys.executable, "-m", "surface_lint", *args[1:]], cwd=folder, env=env,
                          capture_output=True, text=True, encoding="utf-8", check=False)
    return shown, (done.stdout + done.stderr).splitlines(), done.returncode
