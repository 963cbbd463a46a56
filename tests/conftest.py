"""Shared test helpers: where the real corpus lives (never copied into the project).

The corpus is `../shared/corpus` beside the project, or the folder `SURFACE_LINT_CORPUS`
names. Missing, the conformance tests skip on a developer's machine and FAIL in CI (the
`CI` environment variable set, as every CI service does): a CI run that checked nothing
against the real data must not pass.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent / "support"))  # tests/support: helpers shared by every folder

DEFAULT_CORPUS = Path(__file__).resolve().parents[1].parent / "shared" / "corpus"
CORPUS = Path(os.environ.get("SURFACE_LINT_CORPUS") or DEFAULT_CORPUS)


def in_ci() -> bool:
    """Whether this is a CI run: `CI` set to anything but an empty, `0` or `false` value."""
    return os.environ.get("CI", "").strip().lower() not in ("", "0", "false", "no")


@pytest.fixture(scope="session")
def corpus() -> Path:
    if not (CORPUS / "README.md").is_file():
        where = f"real corpus not found at {CORPUS} (it lives beside the project as ../shared/corpus"
        where += ", or set SURFACE_LINT_CORPUS)"
        if in_ci():
            pytest.fail(f"{where}: conformance cannot be skipped in CI", pytrace=False)
        pytest.skip(where)
    return CORPUS


@pytest.fixture
def scans(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Opening-quote offsets of every `StringSpan.scan` call, the real scan still doing the work
    (tests that a string is scanned once however many positions are found in it)."""
    from surface_lint.model.positions import StringSpan

    calls: list[int] = []
    real = StringSpan.scan

    def counting(cls: type[StringSpan], text: str, quote: int) -> StringSpan:
        calls.append(quote)
        return real(text, quote)

    monkeypatch.setattr(StringSpan, "scan", classmethod(counting))
    return calls
