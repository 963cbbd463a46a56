"""Run `surface-lint` in this process from a chosen folder and capture what it prints."""

from __future__ import annotations

import io
import json
import os
from collections.abc import Iterator
from contextlib import contextmanager, redirect_stderr, redirect_stdout
from dataclasses import dataclass
from pathlib import Path

from surface_lint.cli.main import main

ROOT = Path(__file__).resolve().parents[2]
LANE = "deterministic_fluency"
# Two clean turns and one whose surface has no terminal punctuation (SL103, a warning).
TURNS = [
    {"case_id": "c1", "surface": "Lamp one gives light.", "grounding_source": "none"},
    {"case_id": "c2", "surface": "Lamp two gives light.", "grounding_source": "none"},
    {"case_id": "c3", "surface": "Lamp three gives light", "grounding_source": "none"},
]


@dataclass(frozen=True)
class Run:
    code: int
    out: str
    err: str


@contextmanager
def inside(folder: Path) -> Iterator[None]:
    before = Path.cwd()
    os.chdir(folder)
    try:
        yield
    finally:
        os.chdir(before)


def cli(*argv: str, cwd: Path = ROOT) -> Run:
    """`surface-lint ARGV` run from `cwd`, without colour or a progress bar."""
    out, err = io.StringIO(), io.StringIO()
    with inside(cwd), redirect_stdout(out), redirect_stderr(err):
        code = main([*argv])
    return Run(code, out.getvalue(), err.getvalue())


def write_turns(path: Path, turns: list[dict[str, str]] = TURNS) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(t) + "\n" for t in turns), "utf-8")
    return path
