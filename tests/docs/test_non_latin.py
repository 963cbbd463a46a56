"""docs/non-latin.md runs as written (tests/support/doc_examples.py)."""

from __future__ import annotations

from pathlib import Path

import pytest
from doc_examples import ROOT, commands, run_example

PAGE = ROOT / "docs" / "non-latin.md"


def test_the_page_has_a_hebrew_a_greek_and_a_normalising_example() -> None:
    assert [c[0] for c in commands(PAGE)] == [
        "$ surface-lint check hebrew.jsonl --lane-file hebrew.toml --lane hebrew_demo",
        "$ surface-lint check hebrew_default.jsonl --lane-file hebrew_default.toml --lane hebrew_default",
        "$ surface-lint check greek.jsonl --lane-file greek.toml --lane greek_demo",
        "$ surface-lint check nfc.jsonl --lane-file nfc.toml --lane nfc_demo --output-format full",
    ]


@pytest.mark.parametrize("index", [0, 1, 2, 3])
def test_each_example_gives_the_output_the_page_shows(index: int, tmp_path: Path) -> None:
    shown, printed, code = run_example(PAGE, index, tmp_path)
    assert printed == shown
    assert code == 1  # each example has findings on purpose
