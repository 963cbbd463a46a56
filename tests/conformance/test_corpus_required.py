"""The conformance tests fail, not skip, in CI when the real corpus is missing."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
TEST = "tests/conformance/test_corpus.py::test_telemetry_lines_without_surface_are_skipped"


def _run(tmp_path: Path, **env: str) -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in os.environ.items() if k != "CI"}
    clean.update(env, SURFACE_LINT_CORPUS=str(tmp_path / "no-corpus"))
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-rs", TEST],
                          cwd=ROOT, env=clean, capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("ci", ["true", "1", "yes"])
def test_a_missing_corpus_fails_in_ci(tmp_path: Path, ci: str) -> None:
    run = _run(tmp_path, CI=ci)
    assert run.returncode == 1, run.stdout
    assert (f"real corpus not found at {tmp_path / 'no-corpus'} (it lives beside the project as ../shared/corpus, "
            "or set SURFACE_LINT_CORPUS): conformance cannot be skipped in CI") in run.stdout
    assert "1 error" in run.stdout


@pytest.mark.parametrize("ci", [None, "", "false", "0"])
def test_a_missing_corpus_skips_outside_ci(tmp_path: Path, ci: str | None) -> None:
    run = _run(tmp_path, **({} if ci is None else {"CI": ci}))
    assert run.returncode == 0, run.stdout
    assert "1 skipped" in run.stdout and "real corpus not found at" in run.stdout
