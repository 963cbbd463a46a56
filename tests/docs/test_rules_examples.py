"""docs/rules.md's executed examples run as written (tests/support/doc_examples.py): removing and
renaming inherited entries under `extends`."""

from __future__ import annotations

from pathlib import Path

import pytest
from doc_examples import ROOT, commands, run_example

PAGE = ROOT / "docs" / "rules.md"


def test_the_page_runs_the_base_the_extension_and_a_typo() -> None:
    assert [c[0] for c in commands(PAGE)] == [
        "$ surface-lint check turns.jsonl --lane-file base.toml --lane base",
        "$ surface-lint check turns.jsonl --lane-file mine.toml --lane mine",
        "$ surface-lint check turns.jsonl --lane-file typo.toml --lane typo",
    ]


@pytest.mark.parametrize(("index", "exit_code"), [(0, 1), (1, 1), (2, 2)])
def test_each_example_gives_the_output_the_page_shows(index: int, exit_code: int, tmp_path: Path) -> None:
    shown, printed, code = run_example(PAGE, index, tmp_path)
    assert printed == shown
    assert code == exit_code

