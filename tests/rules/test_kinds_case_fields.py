"""Rule language v2: kinds that read the case, `message` templates, `when` on predicates and
metrics, typed nested case fields. Each through a real rules file and the engine."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from engine_support import check, write

from surface_lint.engine import Engine
from surface_lint.engine.config import Config
from surface_lint.engine.scoring import evaluate
from surface_lint.rules.kinds.core import Subject
from surface_lint.rules.loader import LaneError, parse_lane

LANE = """\
[lane]
name = "v2"

[case_schema]
[case_schema.fields.id]
type = "string"
required = true
[case_schema.fields.kind]
type = "string"
[case_schema.fields.constraints]
type = "object"
[case_schema.fields.constraints.fields.must_contain]
type = "list[string]"
[case_schema.fields.constraints.fields.max_words]
type = "integer"
[case_schema.fields.accept_surfaces]
type = "list[string]"
[case_schema.fields.word_order]
type = "list[string]"
[case_schema.fields.allowed_sources]
type = "list[string]"

[[predicates]]
name = "has_terms"
code = "VV1"
kind = "terms_present"
message = "missing {missing} ({count} of {total} present)"
[predicates.params]
field = "constraints.must_contain"
quantifier = "all"
match = "word"
fold = "casefold"
missing = "not_judged"

[[predicates]]
name = "no_banned"
code = "VV2"
kind = "terms_present"
message = "`{match}` in the surface"
[predicates.params]
terms = ["sorry", "as an ai"]
mode = "absent"
quantifier = "any"
match = "word"
fold = "casefold"

[[predicates]]
name = "short"
code = "VV3"
kind = "count_between"
[predicates.params]
unit = "words"
max_field = "constraints.max_words"

[[predicates]]
name = "accepted"
code = "VV4"
kind = "surface_in_list"
when = "case.kind == 'exact'"
message = "the surface is none of the {total} accepted ({field})"
[predicates.params]
field = "accept_surfaces"
normalise = "fold"
missing = "not_judged"

[[predicates]]
name = "in_order"
code = "VV5"
kind = "terms_in_order"
message = "`{match}` is missing or out of order ({field})"
[predicates.params]
field = "word_order"
tokens = "words"
fold = "casefold"
missing = "not_judged"

[[predicates]]
name = "grounded_here"
code = "VV6"
kind = "grounding_in"
[predicates.params]
sources_field = "allowed_sources"

[[metrics]]
name = "has_terms_rate"
passing = ["has_terms"]

[[metrics]]
name = "exact_accepted_rate"
passing = ["accepted"]
when = "case.kind == 'exact'"
empty = 0.0

[[metrics]]
name = "exact_cases"
kind = "count"
when = "case.kind in ['exact']"
"""


def _verdicts(case: dict[str, Any], surface: str, grounding: str = "none") -> dict[str, tuple[bool, str]]:
    lane = parse_lane(LANE, "v2.toml")
    got = evaluate(lane, Subject(surface, grounding, case), None, case)
    return {name: (v.passed, v.message) for name, v in got.items() if not name.endswith(":when")}


def test_terms_all_from_a_nested_case_field_with_the_rules_own_message() -> None:
    case = {"id": "c1", "constraints": {"must_contain": ["Truth", "order"]}}
    assert _verdicts(case, "The truth is in the border.")["has_terms"] == (
        False, "missing `order` (1 of 2 present)")  # `order` inside `border` is not a token
    assert _verdicts(case, "Order and TRUTH.")["has_terms"] == (True, "")


def test_terms_absent_points_at_each_term_found() -> None:
    lane = parse_lane(LANE, "v2.toml")
    verdict = evaluate(lane, Subject("Sorry, as an AI I cannot; sorry.", "none", {}), None, {})["no_banned"]
    assert (verdict.passed, verdict.spans, verdict.span_messages) == (
        False, ((0, 5), (7, 15)), ("`sorry` in the surface", "`as an ai` in the surface"))


def test_count_between_takes_its_bound_from_the_case_and_is_not_judged_without_it() -> None:
    case = {"id": "c1", "constraints": {"max_words": 3}}
    assert _verdicts(case, "one two three four")["short"] == (False, "4 words; at most 3 allowed")
    assert _verdicts(case, "one two three")["short"] == (True, "")
    assert "short" not in _verdicts({"id": "c1"}, "one two three four")
    assert "short" not in _verdicts({"id": "c1", "constraints": {"max_words": "3"}}, "one two three four")


def test_surface_equals_normalises_and_applies_only_when_its_condition_holds() -> None:
    case = {"id": "c1", "kind": "exact", "accept_surfaces": ["Hello,   World."]}
    assert _verdicts(case, "  hello, world. ")["accepted"] == (True, "")
    assert _verdicts(case, "Hello world.")["accepted"] == (False, "the surface is none of the 1 accepted (accept_surfaces)")
    assert "accepted" not in _verdicts({**case, "kind": "open"}, "Hello world.")


def test_ordered_words_and_a_per_case_grounding_list() -> None:
    case = {"id": "c1", "word_order": ["first", "then", "last"], "allowed_sources": ["pack"]}
    got = _verdicts(case, "Last, first we wait, then.", grounding="vault")
    assert got["in_order"] == (False, "`last` is missing or out of order (word_order)")
    assert got["grounded_here"] == (False, "grounding_source `vault` is not one of pack")
    assert _verdicts(case, "First, then at last.", grounding="pack")["in_order"] == (True, "")


def test_findings_carry_the_rule_message_at_exact_positions(tmp_path: Path) -> None:
    lane_file = write(tmp_path / "v2.toml", LANE)
    cases = write(tmp_path / "cases.jsonl", [json.dumps({"id": "c1", "constraints": {"must_contain": ["order"]}})])
    turns = write(tmp_path / "turns.jsonl", [json.dumps({"case_id": "c1", "surface": "No rules here."})])
    engine = Engine(Config(lane_files=[lane_file]))
    assert engine.lane_errors == []
    result = engine.score("v2", [str(cases)], [str(turns)])
    assert [(f.code, f.message) for f in result.findings if f.code.startswith("VV")] == [
        ("VV1", "has_terms: missing `order` (0 of 1 present)")]


def test_a_metric_when_selects_its_cases(tmp_path: Path) -> None:
    lane_file = write(tmp_path / "v2.toml", LANE)
    cases = write(tmp_path / "cases.jsonl", [
        json.dumps({"id": "a", "kind": "exact", "accept_surfaces": ["Yes."]}),
        json.dumps({"id": "b", "kind": "exact", "accept_surfaces": ["No."]}),
        json.dumps({"id": "c", "kind": "open"}),
    ])
    turns = write(tmp_path / "turns.jsonl", [json.dumps({"case_id": i, "surface": "Yes."}) for i in "abc"])
    result = Engine(Config(lane_files=[lane_file])).score("v2", [str(cases)], [str(turns)])
    assert result.metrics == {"exact_accepted_rate": 0.5, "exact_cases": 2, "has_terms_rate": 0.0}


@pytest.mark.parametrize(
    ("old", "new", "expected"),
    [
        ('message = "missing {missing} ({count} of {total} present)"', 'message = "missing {missng}"',
         (27, 1, "predicate 'has_terms': `message` uses {missng}, which kind terms_present does not provide (it provides: {term}, {terms}, "
                 "{found}, {missing}, {count}, {total}, {fraction}, {bound}, {field}, {match})")),
        ('message = "missing {missing} ({count} of {total} present)"', 'message = "missing {"',
         (27, 1, "predicate 'has_terms': `message` is not a valid template: Single '{' encountered in format string "
                 "(write a literal brace as {{ or }})")),
        ('terms = ["sorry", "as an ai"]', 'terms = ["sorry"]\nfield = "x"',
         (40, 1, "predicate 'no_banned' (terms_present): give exactly one of `field` and `terms`")),
        ('max_field = "constraints.max_words"', 'max = 3\nmax_field = "constraints.max_words"',
         (51, 1, "predicate 'short' (count_between): give at most one of `max` and `max_field`")),
        ("when = \"case.kind == 'exact'\"\nmessage", "when = \"case.kind ~ 'exact'\"\nmessage",
         (59, 1, "predicate 'accepted': `when` is not an expression: expression \"case.kind ~ 'exact'\" does not parse: "
                 "invalid syntax")),
        ("when = \"case.kind in ['exact']\"", 'when = "turn.id != null"',
         (97, 1, "metric 'exact_cases': `when` reads `turn.id`; the turn fields a condition can read are "
                  "turn.grounding_source, turn.primed, turn.surface")),
        ("[case_schema.fields.kind]\ntype = \"string\"", "[case_schema.fields.kind]\ntype = \"string\"\n"
         "[case_schema.fields.kind.fields.x]",
         (10, 1, "case field 'kind': `fields` needs type \"object\" or \"list[object]\", not 'string'")),
    ],
)
def test_v2_keys_are_validated_at_their_line(old: str, new: str, expected: tuple[int, int, str]) -> None:
    assert old in LANE
    with pytest.raises(LaneError) as info:
        parse_lane(LANE.replace(old, new, 1), "v2.toml")
    assert (info.value.line, info.value.column, info.value.message) == expected


def test_an_object_field_is_typed_in_case_files(tmp_path: Path) -> None:
    lane_file = write(tmp_path / "v2.toml", LANE)
    lines = [{"id": "c1", "constraints": {"must_contain": ["x"]}}, {"id": "c2", "constraints": "x"}]
    result = check(lines, path="cases.jsonl", engine=Engine(Config(lane_files=[lane_file])), lane_name="v2",
                   kind="cases")
    assert [(f.location.line, f.code, f.message) for f in result.findings] == [
        (2, "SL003", "`constraints` must be an object, not a string")]


def test_each_finding_of_a_pattern_names_its_own_match() -> None:
    """`{match}` used to print the first match for every span."""
    surface = "a.b; c.d; e.f and g.h; i.j; k.l"
    result = check([json.dumps({"case_id": "c1", "surface": surface})], engine=Engine(Config()),
                   lane_name="deterministic_fluency")
    assert [(f.location.column, f.message) for f in result.findings if f.code == "SL105"] == [
        (31, "no_dotted_inventory: dotted-path inventory `a.b; c.d; e.f` in the surface"),
        (31 + 18, "no_dotted_inventory: dotted-path inventory `g.h; i.j; k.l` in the surface"),
    ]


METRICS_LANE = """\
[lane]
name = "v2m"
default_thresholds = "v1"
[case_schema.fields.id]
type = "string"
[case_schema.fields.category]
type = "string"
[case_schema.fields.score]
type = "number"

[[predicates]]
name = "ends"
code = "VM1"
kind = "ends_with"
[predicates.params]
endings = ["."]

[[metrics]]
name = "ends_rate"
passing = ["ends"]
by = "case.category"

[[metrics]]
name = "mean_score"
kind = "mean"
value = "case.score"
by = "case.category"

[[metrics]]
name = "max_score_when_ended"
kind = "max"
value = "case.score"
passing = ["ends"]
empty = 0.0

[[metrics]]
name = "scored"
kind = "count"
when = "case.score != null"

[thresholds.v1]
checks = [{ metric = "ends_rate.b", op = ">=", value = 1.0 }, { metric = "mean_score", op = "<=", value = 0.5 }]
"""


def test_mean_max_count_and_per_category_metrics_with_thresholds_on_them(tmp_path: Path) -> None:
    lane_file = write(tmp_path / "v2m.toml", METRICS_LANE)
    cases = write(tmp_path / "cases.jsonl", [
        json.dumps({"id": "1", "category": "a", "score": 0.25}),
        json.dumps({"id": "2", "category": "a", "score": 0.75}),
        json.dumps({"id": "3", "category": "b", "score": 1}),
        json.dumps({"id": "4", "category": "b"}),
    ])
    turns = write(tmp_path / "turns.jsonl", [
        json.dumps({"case_id": "1", "surface": "Yes."}), json.dumps({"case_id": "2", "surface": "No"}),
        json.dumps({"case_id": "3", "surface": "Maybe"}), json.dumps({"case_id": "4", "surface": "Done."}),
    ])
    result = Engine(Config(lane_files=[lane_file])).score("v2m", [str(cases)], [str(turns)])
    assert result.metrics == {
        "ends_rate": 0.5, "ends_rate.a": 0.5, "ends_rate.b": 0.5,
        "max_score_when_ended": 0.25,
        "mean_score": 0.6667, "mean_score.a": 0.5, "mean_score.b": 1,
        "scored": 3,
    }
    assert result.passed is False  # ends_rate.b 0.5 < 1.0 and mean_score 0.6667 > 0.5


def test_a_value_metric_needs_its_value() -> None:
    with pytest.raises(LaneError) as info:
        parse_lane(METRICS_LANE.replace('value = "case.score"\nby', 'by', 1), "v2m.toml")
    assert (info.value.line, info.value.message) == (
        25, "metric 'mean_score': kind 'mean' needs a `value` (`case.PATH`)")


def test_case_field_in_surface_on_a_list_field_needs_every_item() -> None:
    """It passed silently on a list field."""
    text = LANE.replace('[[predicates]]\nname = "has_terms"', '[[predicates]]\nname = "names_all"\ncode = "VV9"\n'
                        'kind = "case_field_in_surface"\n[predicates.params]\nfield = "word_order"\n\n'
                        '[[predicates]]\nname = "has_terms"', 1)
    lane = parse_lane(text, "v2.toml")
    case = {"id": "c1", "word_order": ["dog", "Cat", "bird"]}
    verdict = evaluate(lane, Subject("The cat and the dog.", "none", case), None, case)["names_all"]
    assert (verdict.passed, verdict.message) == (False, "the surface never names `bird` (word_order)")


def test_applies_if_must_name_a_case_field() -> None:
    text = LANE.replace('kind = "terms_in_order"', 'kind = "terms_in_order"\napplies_if = "expects_order"', 1)
    with pytest.raises(LaneError) as info:
        parse_lane(text, "v2.toml")
    assert (info.value.line, info.value.message) == (
        70, "predicate 'in_order': `applies_if` 'expects_order' is not a [case_schema] field")


def test_a_kind_that_takes_its_template_as_a_param_gets_the_rules_message() -> None:
    """Kinds registered elsewhere may declare `message` among their params: the rule's key reaches them."""
    from surface_lint.rules.kinds.core import Kind, failed
    from surface_lint.rules.kinds.registry import KINDS, register_kind
    from surface_lint.rules.schema import Value

    def build(params: Any) -> Any:
        return lambda ctx: failed((), str(params.get("message") or "default"), {})

    if "test_param_message" not in KINDS:
        register_kind("test_param_message", Kind(build, {"message": Value("string", None, "Its template.")},
                                                 summary="A test kind."))
    try:
        text = ('[lane]\nname = "t"\n[[predicates]]\nname = "p"\ncode = "TP1"\nkind = "test_param_message"\n'
                'message = "from the rule {x}"\n')
        lane = parse_lane(text, "t.toml")
        assert evaluate(lane, Subject("s"), None, {})["p"].message == "from the rule {x}"
    finally:
        del KINDS["test_param_message"]


NESTED = LANE.replace('[case_schema.fields.constraints.fields.max_words]\ntype = "integer"',
                      '[case_schema.fields.constraints.fields.max_words]\ntype = "integer"\nrequired = true\n'
                      '[case_schema.fields.steps]\ntype = "list[object]"\n[case_schema.fields.steps.fields.say]\n'
                      'type = "string"', 1)


def test_nested_fields_are_typed_in_case_files_at_their_own_position(tmp_path: Path) -> None:
    lane_file = write(tmp_path / "v2.toml", NESTED)
    line = '{"id": "c1", "constraints": {"must_contain": "x", "max_words": 3}, "steps": [{"say": "a"}, {"say": 7}]}'
    result = check([line, '{"id": "c2", "constraints": {}}'], path="cases.jsonl",
                   engine=Engine(Config(lane_files=[lane_file])), lane_name="v2", kind="cases")
    assert [(f.location.line, f.location.column, f.location.end_column, f.code, f.message) for f in result.findings] == [
        (1, 46, 49, "SL003", "`constraints.must_contain` must be an array of strings, not a string"),
        (1, 100, 101, "SL003", "`steps.1.say` must be a string, not a number"),
        (2, 29, 31, "SL002", "missing required field `constraints.max_words` (an integer) for lane v2"),
    ]
