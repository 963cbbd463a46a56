"""`[details]` sources are expressions of the one language (docs/rules.md, "Details"): each form
of the removed mini-language is a load error at its key that gives the expression to write, and
an expression gives its value per case (the shipped lanes' records: tests/conformance)."""

from __future__ import annotations

from pathlib import Path

import pytest

from surface_lint.engine.details import DetailsPlan
from surface_lint.engine.scoring import evaluate
from surface_lint.rules.kinds.core import Context, Subject
from surface_lint.rules.loader import LaneError, builtin_rule_files, load_lane, parse_lane

LANE = """\
[lane]
name = "det"
expected_field = "expected"

[case_schema.fields.id]
type = "string"
[case_schema.fields.category]
type = "string"
[case_schema.fields.expected]
type = "list[string]"
predicate_list = true

[[predicates]]
name = "no_x"
code = "DT1"
kind = "substring_absent"
[predicates.params]
markers = ["x"]

[details]
"""


@pytest.mark.parametrize(
    ("source", "message"),
    [
        ('"case.category|\\"none\\""',
         "is the removed `SOURCE|DEFAULT` form; write the expression \"default(case.category, 'none')\""),
        ('"case.expected|[]"', "is the removed `SOURCE|DEFAULT` form; write the expression \"default(case.expected, [])\""),
        ('"signal.no_x&!@expected"',
         "is the removed `signal.A&B` form; write the expression \"signal('no_x') and not signal('@expected')\""),
        ('"signal.@expected"', "is the removed `signal.A&B` form; write the expression \"signal('@expected')\""),
        ("\"case.note|'it\\\"s'\"",
         "is the removed `SOURCE|DEFAULT` form, and its default `'it\"s'` is not JSON; write an expression: "
         "\"default(case.note, 'text')\""),
    ],
)
def test_a_removed_details_form_is_a_load_error_giving_the_expression(tmp_path: Path, source: str,
                                                                      message: str) -> None:
    path = tmp_path / "det.toml"
    path.write_text(LANE + "id = \"case.id\"\nfield = " + source + "\n", "utf-8")
    with pytest.raises(LaneError) as info:
        load_lane(path)
    assert str(info.value) == f"{path}:22:1: [details]: `field` {message} (docs/rules.md, \"Details\")"


def test_the_suggested_expressions_load_and_give_the_old_values() -> None:
    lane = parse_lane(LANE + "\n".join([
        'id = "case.id"',
        "category = \"default(case.category, 'none')\"",
        'expected = "default(case.expected, [])"',
        "mixed = \"signal('no_x') and not signal('@expected')\"",
        "expected_pass = \"signal('@expected')\"",
        'words = "len(words(turn.surface))"',
        "tagged = \"case.id + ':' + default(case.category, '?')\"",
        'ratio = "1 / len(default(case.expected, []))"',
        'sentences = "analysis.sentence_count"',
        'passes = "verdicts"',
    ]) + "\n", "det.toml")
    plan = DetailsPlan(lane)
    assert plan.needs_context

    def details(surface: str, case: dict[str, object] | None, case_id: str = "r1") -> dict[str, object]:
        subject = Subject(surface, "none", case)
        verdicts = evaluate(lane, subject, None, case)
        return plan.build(verdicts, subject, case, {"prompt": "p"}, Context(subject, lane.analysis), case_id)

    assert details("a x b. c", {"id": "c1", "category": "math", "expected": ["no_x"]}) == {
        "id": "c1", "category": "math", "expected": ["no_x"], "mixed": False, "expected_pass": False,
        "words": 4, "tagged": "c1:math", "ratio": 1.0, "sentences": 0, "passes": {"no_x": False}}
    # Without case fields: the record's id, the defaults, nothing expected; 1 / 0 is null.
    assert details("fine", None) == {
        "id": "r1", "category": "none", "expected": [], "mixed": False, "expected_pass": True,
        "words": 1, "tagged": "r1:?", "ratio": None, "sentences": 0, "passes": {"no_x": True}}


def test_a_details_expression_reads_only_its_scope() -> None:
    with pytest.raises(LaneError) as info:
        parse_lane(LANE + 'id = "record.id"\n', "det.toml")
    assert str(info.value) == ("det.toml:21:1: [details]: `id` reads `record`; a [details] expression reads `case`, "
                               "`turn`, `analysis`, `verdicts` and `signal('NAME')`")


def test_no_shipped_lane_uses_a_removed_form() -> None:
    for path in builtin_rule_files():
        text = path.read_text("utf-8")
        assert "signal." not in text.partition("\n[details]\n")[2], path.name
        assert "|" not in text.partition("\n[details]\n")[2].partition("\n[")[0], path.name
