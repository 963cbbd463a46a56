"""The README's predicate table is generated from rules/ (one source), never hand-kept."""

from __future__ import annotations

from pathlib import Path

from surface_lint.config import Config
from surface_lint.docs import render_rules_table
from surface_lint.engine import Engine

README = Path(__file__).resolve().parents[2] / "README.md"


def test_readme_rules_table_is_current() -> None:
    text = README.read_text(encoding="utf-8")
    table = text.split("<!-- rules-table:start -->\n", 1)[1].split("<!-- rules-table:end -->", 1)[0]
    assert table == render_rules_table(Engine(Config())), "run: python -m surface_lint.docs README.md"


def test_every_predicate_has_the_four_doc_sections() -> None:
    engine = Engine(Config())
    for lane in engine.lane_set.lanes.values():
        for spec in lane.predicates:
            assert spec.summary and spec.what and spec.why and spec.example_fail and spec.example_pass, spec.name
