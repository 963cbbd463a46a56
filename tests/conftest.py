"""Shared test helpers: where the real corpus lives (never copied into the project)."""

from __future__ import annotations

from pathlib import Path

import pytest

CORPUS = Path(__file__).resolve().parents[1].parent / "shared" / "corpus"


@pytest.fixture(scope="session")
def corpus() -> Path:
    if not (CORPUS / "README.md").is_file():
        pytest.skip(f"real corpus not found at {CORPUS} (it lives beside the project as ../shared/corpus)")
    return CORPUS
