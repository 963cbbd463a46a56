"""Helpers for the reporter tests: run the CLI in this process on our fixtures, from the repo root.

Paths are given relative to the repository root (as CI gives them), so every output that
names a file names it the same way on every machine.
"""

from __future__ import annotations

import io
import os
from collections.abc import Iterator, Sequence
from contextlib import contextmanager, redirect_stderr, redirect_stdout
from dataclasses import dataclass
from pathlib import Path

from surface_lint.cli.main import main

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = "tests/fixtures/reporters"
CASES = f"{FIXTURES}/fluency_cases.jsonl"
OLD = f"{FIXTURES}/fluency_old.jsonl"
NEW = f"{FIXTURES}/fluency_new.jsonl"
LANE = "deterministic_fluency"
ARTIFACTS = ROOT / "test-artifacts"


@dataclass(frozen=True)
class Run:
    code: int
    out: str
    err: str


@contextmanager
def at_root() -> Iterator[None]:
    before = Path.cwd()
    os.chdir(ROOT)
    try:
        yield
    finally:
        os.chdir(before)


def cli(*argv: str) -> Run:
    """`surface-lint ARGV` from the repository root, without colour or a progress bar."""
    out, err = io.StringIO(), io.StringIO()
    with at_root(), redirect_stdout(out), redirect_stderr(err):
        code = main([*argv])
    return Run(code, out.getvalue(), err.getvalue())


def lane_run(fmt: str, transcripts: str = NEW, *extra: str) -> Run:
    return cli("--lane", LANE, "--cases", CASES, "--transcripts", transcripts, "--output-format", fmt, *extra)


def check_run(fmt: str, paths: Sequence[str] = (NEW,), *extra: str) -> Run:
    return cli("check", *paths, "--lane", LANE, "--output-format", fmt, *extra)
