"""Rule language v2: kinds that read the case, `message` templates, `when` on predicates and
metrics, typed nested case fields. Each through a real rules file and the engine."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from engine_support import check, write

from surface_lint.config import Config
from surface_lint.engine import Engine
from surface_lint.lanes import LaneError, parse_lane
from surface_lint.predicates import Subject
from surface_lint.scoring import evaluate

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
kind = "terms"
message = "missing {missing} ({count} of {total} present)"
[predicates.params]
field = "constraints.must_contain"
quantifier = "all"

[[predicates]]
name = "no_banned"
code = "VV2"
kind = "terms"
[predicates.params]
terms = ["sorry", "as an ai"]
mode = "absent"

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
when = { field = "kind", op = "==", value = "exact" }
[predicates.params]
field = "accept_surfaces"
normalise = "fold"

[[predicates]]
name = "in_order"
code = "VV5"
kind = "ordered_words"
[predicates.params]
field = "word_order"

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
when = { field = "kind", op = "==", value = "exact" }
empty = 0.0

[[metrics]]
name = "exact_cases"
kind = "count"
when = [{ field = "kind", op = "in", value = ["exact"] }]
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


def test_surface_in_list_normalises_and_applies_only_when_its_condition_holds() -> None:
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
         (27, 1, "predicate 'has_terms': `message` uses {missng}, which kind terms does not provide (it provides: "
                 "{found}, {missing}, {count}, {total}, {fraction}, {bound}, {field}, {match})")),
        ('message = "missing {missing} ({count} of {total} present)"', 'message = "missing {"',
         (27, 1, "predicate 'has_terms': `message` is not a valid template: Single '{' encountered in format string "
                 "(write a literal brace as {{ or }})")),
        ('terms = ["sorry", "as an ai"]', 'terms = ["sorry"]\nfield = "x"',
         (36, 1, "predicate 'no_banned' (terms): give exactly one of `field` and `terms`")),
        ('max_field = "constraints.max_words"', 'max = 3\nmax_field = "constraints.max_words"',
         (44, 1, "predicate 'short' (count_between): give at most one of `max` and `max_field`")),
        ('when = { field = "kind", op = "==", value = "exact" }\n[predicates.params]',
         'when = { field = "kind", op = "~", value = "exact" }\n[predicates.params]',
         (52, 1, "predicate 'accepted': `when` has op '~'; one of ==, !=, in, not in, <, <=, >, >=, exists, missing")),
        ('when = [{ field = "kind", op = "in", value = ["exact"] }]', 'when = [{ field = "turn.id", op = "exists" }]',
         (84, 1, "metric 'exact_cases': `when` names `turn.id`; the turn fields a condition can read are "
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
