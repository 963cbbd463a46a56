"""`when` is one expression language (docs/rules.md, "Conditions: `when`"): on predicates, on
metrics and as the `condition` kind's parameter; the removed table form is a load error at the
key's file:line:column that gives the expression to write."""

from __future__ import annotations

import pytest

from surface_lint.engine.scoring import evaluate
from surface_lint.rules.kinds.core import Subject
from surface_lint.rules.loader import LaneError, parse_lane

HEAD = """\
[lane]
name = "cond"

[case_schema.fields.kind]
type = "string"
[case_schema.fields.score]
type = "number"

[[predicates]]
name = "no_x"
code = "CD1"
kind = "substring_absent"
"""
TAIL = """\
[predicates.params]
markers = ["x"]
"""


def lane_with(when_line: str) -> str:
    return HEAD + when_line + "\n" + TAIL


@pytest.mark.parametrize(
    ("when", "message"),
    [
        ('when = { field = "kind", op = "==", value = "refusal" }',
         "predicate 'no_x': `when` is a table `{ field, op, value }`, the removed condition form; write the "
         "expression `when = \"case.kind == 'refusal'\"` (docs/rules.md, \"Conditions: `when`\")"),
        ('when = [{ field = "kind", op = "!=", value = "open" }, { field = "score", op = ">=", value = 0.5 }]',
         "predicate 'no_x': `when` is a list of tables `{ field, op, value }`, the removed condition form; write "
         "the expression `when = \"case.kind != null and case.kind != 'open' and case.score >= 0.5\"` "
         "(docs/rules.md, \"Conditions: `when`\")"),
        ('when = { field = "score", op = "exists" }',
         "predicate 'no_x': `when` is a table `{ field, op, value }`, the removed condition form; write the "
         "expression `when = \"case.score != null\"` (docs/rules.md, \"Conditions: `when`\")"),
        ('when = { field = "turn.grounding_source", op = "in", value = ["vault", "it\'s"] }',
         "predicate 'no_x': `when` is a table `{ field, op, value }`, the removed condition form; write the "
         "expression `when = \"turn.grounding_source in ['vault', \\\"it's\\\"]\"` (docs/rules.md, \"Conditions: "
         "`when`\")"),
        ('when = { field = "kind", op = "~" }',
         "predicate 'no_x': `when` is a table, the removed condition form `{ field, op, value }`; write an "
         "expression string such as `when = \"case.kind == 'refusal'\"` (docs/rules.md, \"Conditions: `when`\")"),
        ("when = 3", "predicate 'no_x': `when` must be a string (an expression), not integer"),
        ('when = "case.kind =="',
         "predicate 'no_x': `when` is not an expression: expression 'case.kind ==' does not parse: invalid syntax"),
        ('when = "kind == 1"',
         "predicate 'no_x': `when` reads `kind`, which a condition cannot see (it reads `case.FIELD` and "
         "`turn.` + one of grounding_source, primed, surface)"),
        ('when = "turn.prompt"',
         "predicate 'no_x': `when` reads `turn.prompt`; the turn fields a condition can read are "
         "turn.grounding_source, turn.primed, turn.surface"),
        ('when = "len(case) > 1"',
         "predicate 'no_x': `when` reads `case` as a whole; name the fields it depends on (`case.FIELD`)"),
    ],
)
def test_a_bad_when_is_a_load_error_at_its_key(when: str, message: str) -> None:
    with pytest.raises(LaneError) as info:
        parse_lane(lane_with(when), "/rules/cond.toml")
    assert str(info.value) == f"/rules/cond.toml:13:1: {message}"


def test_the_removed_form_on_a_metric_names_the_metric() -> None:
    text = lane_with("") + '[[metrics]]\nname = "open_rate"\npassing = ["no_x"]\nwhen = { field = "kind", op = "missing" }\n'
    with pytest.raises(LaneError) as info:
        parse_lane(text, "cond.toml")
    assert str(info.value) == (
        "cond.toml:19:1: metric 'open_rate': `when` is a table `{ field, op, value }`, the removed condition form; "
        "write the expression `when = \"case.kind == null\"` (docs/rules.md, \"Conditions: `when`\")")


def test_the_suggested_expression_loads_and_judges_like_the_table_did() -> None:
    lane = parse_lane(lane_with("when = \"case.kind != null and case.kind != 'open' and case.score >= 0.5\""), "c.toml")
    judged = [
        sorted(evaluate(lane, Subject("x", "none", case), None, case))
        for case in ({"kind": "exact", "score": 0.5}, {"kind": "open", "score": 1}, {"score": 1}, {"kind": "exact"})
    ]
    assert judged == [["no_x"], [], [], []]
    assert lane.predicates[0].reads == ("kind", "score")


def test_a_condition_reads_the_turn_and_a_failing_expression_does_not_hold() -> None:
    lane = parse_lane(lane_with("when = \"turn.grounding_source == 'vault' and 1 / case.score > 0\""), "c.toml")
    verdicts = [
        {n: v.passed for n, v in evaluate(lane, Subject("x", grounding, case), None, case).items()}
        for grounding, case in (("vault", {"score": 2}), ("none", {"score": 2}), ("vault", {"score": 0}))
    ]
    assert verdicts == [{"no_x": False}, {}, {}]


def test_the_condition_kind_takes_the_expression() -> None:
    text = HEAD.replace('kind = "substring_absent"', 'kind = "condition"') + (
        "report = false\n[predicates.params]\nwhen = \"case.kind in ['a', 'b']\"\n")
    lane = parse_lane(text, "c.toml")
    got = [{n: (v.passed, v.message) for n, v in evaluate(lane, Subject("s", "none", c), None, c).items()}
           for c in ({"kind": "b"}, {"kind": "c"})]
    assert got == [{"no_x": (True, "")}, {"no_x": (False, "the condition does not hold")}]
