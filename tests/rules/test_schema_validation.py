"""The declarative validator of rules files: every table, key and value, with file:line:column."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest
from engine_support import RULES, write

from surface_lint.rules.loader import LaneError, load_lane, load_lanes, parse_lane
from surface_lint.rules.schema import TomlPositions

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

# A small, valid lane; each case below changes one line of it. Line numbers are of this text.
BASE = """\
[lane]
name = "tiny"
default_thresholds = "v1"

[[predicates]]
name = "no_marker"
code = "TY1"
kind = "substring_absent"
default_severity = "warning"
[predicates.params]
markers = ["<x>"]

[[metrics]]
name = "no_marker_rate"
kind = "rate"
passing = ["no_marker"]

[thresholds.v1]
checks = [{ metric = "no_marker_rate", op = ">=", value = 1.0 }]

[details]
case_id = "case.id"
"""


def _error(text: str, profile: str = "reference") -> tuple[int, int, str]:
    with pytest.raises(LaneError) as info:
        parse_lane(text, "tiny.toml", profile)
    err = info.value
    assert str(err) == f"tiny.toml:{err.line}:{err.column}: {err.message}"
    return err.line, err.column, err.message


def test_the_base_lane_loads() -> None:
    lane = parse_lane(BASE, "tiny.toml")
    assert [p.name for p in lane.predicates] == ["no_marker"]
    assert lane.thresholds["v1"].checks[0].value == 1.0


@pytest.mark.parametrize(
    ("old", "new", "expected"),
    [
        # unknown tables and keys, with a did-you-mean
        ("[[predicates]]", "[[predicate]]", (5, 1, "unknown table `[[predicate]]` (did you mean `[[predicates]]`?)")),
        ("[details]", "[detials]", (21, 1, "unknown table `[detials]` (did you mean `[details]`?)")),
        ('default_severity = "warning"', 'default_severty = "warning"',
         (9, 1, "predicate 'no_marker': unknown key `default_severty` (did you mean `default_severity`?)")),
        ('name = "tiny"', 'name = "tiny"\ntitel = "Tiny"', (3, 1, "[lane]: unknown key `titel` (did you mean `title`?)")),
        ('kind = "rate"', 'kind = "rate"\nempyt = 0.0',
         (16, 1, "metric 'no_marker_rate': unknown key `empyt` (did you mean `empty`?)")),
        ("op = \">=\",", "op = \">=\", tolerence = 0.1,",
         (19, 51, "threshold set 'v1', check 1: unknown key `tolerence` (did you mean `tolerance`?)")),
        ('markers = ["<x>"]', 'markers = ["<x>"]\nmarkrs = ["y"]',
         (12, 1, "predicate 'no_marker' (substring_absent): unknown parameter `markrs` (did you mean `markers`?)")),
        # empty markers would loop forever; empty names mean nothing
        ('markers = ["<x>"]', 'markers = [""]', (11, 1, "predicate 'no_marker': parameter `markers` must not hold an empty string")),
        ('markers = ["<x>"]', 'markers = ["<x>", ""]',
         (11, 1, "predicate 'no_marker': parameter `markers` must not hold an empty string")),
        ('name = "no_marker"', 'name = ""', (6, 1, "[[predicates]] entry 1: `name` must not be empty")),
        # NaN and infinity
        ("value = 1.0", "value = nan", (19, 51, "threshold set 'v1', check 1: `value` must be a finite number, not nan")),
        ("value = 1.0", "value = -inf", (19, 51, "threshold set 'v1', check 1: `value` must be a finite number, not -inf")),
        ('kind = "rate"', 'kind = "rate"\nempty = inf', (16, 1, "metric 'no_marker_rate': `empty` must be a finite number, not inf")),
        # wrong types
        ("[predicates.params]\nmarkers = [\"<x>\"]", 'params = "x"',
         (10, 1, "predicate 'no_marker': `params` must be a table, not string")),
        ('passing = ["no_marker"]', "passing = 5", (16, 1, "metric 'no_marker_rate': `passing` must be list[string], not integer")),
        ('passing = ["no_marker"]', 'passing = "p"', (16, 1, "metric 'no_marker_rate': `passing` must be list[string], not string")),
        ('passing = ["no_marker"]', 'passing = ["no_marker", 3]',
         (16, 1, "metric 'no_marker_rate': `passing` must be list[string], but an item is integer")),
        ("op = \">=\",", "op = \">=\", tolerance = \"x\",",
         (19, 51, "threshold set 'v1', check 1: `tolerance` must be number, not string")),
        ("op = \">=\",", "op = \">=\", tolerance = -0.1,",
         (19, 51, "threshold set 'v1', check 1: `tolerance` must be at least 0, not -0.1")),
        ('op = ">="', 'op = "=>"', (19, 40, 'threshold set \'v1\', check 1: `op` must be ">=", "<=", ">", "<", "==" or "~=", not "=>"')),
        ("value = 1.0", 'value = "1.0"', (19, 51, "threshold set 'v1', check 1: `value` must be number, not string")),
        ('op = ">=", value = 1.0 }', 'op = ">=" }', (19, 11, "threshold set 'v1', check 1: missing key `value`")),
        ('kind = "rate"', 'kind = "ratio"',
         (15, 1, 'metric \'no_marker_rate\': `kind` must be "rate", "count", "sum", "mean", "min", "max", '
                 '"thresholds_pass", "counts", "value" or "thresholds", not "ratio"')),
        ('kind = "rate"', 'kind = "counts"',
         (15, 1, "metric 'no_marker_rate': kind 'counts' is not computed by a classic lane; write a case-driven "
                 "lane ([casework]) instead")),
        ('kind = "rate"', 'kind = "thresholds"',
         (15, 1, "metric 'no_marker_rate': kind 'thresholds' is not computed by a classic lane; write a "
                 "`[thresholds.NAME]` set (and `kind = \"thresholds_pass\"` for its pass flag) instead")),
        ('kind = "rate"', 'kind = "rate"\nper = "turns"',
         (16, 1, "metric 'no_marker_rate': `per` is for case-driven lanes ([casework]); a classic lane's "
                 "metric does not take it")),
        ('kind = "rate"', 'kind = "rate"\nrunner = "yes"', (16, 1, "metric 'no_marker_rate': `runner` must be boolean, not string")),
        ('default_severity = "warning"', 'default_severity = "warning"\nreport = 0',
         (10, 1, "predicate 'no_marker': `report` must be boolean, not integer")),
        ('default_severity = "warning"', 'default_severity = "warning"\naliases = "other"',
         (10, 1, "predicate 'no_marker': `aliases` must be list[string], not string")),
        ('name = "tiny"', 'name = "tiny"\nunit = "turn"', (3, 1, '[lane]: `unit` must be "surface", not "turn"')),
        ('name = "tiny"', "name = 3", (2, 1, "[lane]: `name` must be string, not integer")),
        ('checks = [{ metric = "no_marker_rate", op = ">=", value = 1.0 }]', "checks = 3",
         (19, 1, "threshold set 'v1': `checks` must be an array of tables, not integer")),
        ('[lane]\n', 'predicate = 3\n[lane]\n', (1, 1, "unknown key `predicate` at the top of the file (did you mean `[[predicates]]`?)")),
        # bad [details] sources
        ('case_id = "case.id"', 'case_id = "kase.id"',
         (22, 1, "[details]: `case_id` reads `kase`; a [details] expression reads `case`, `turn`, "
                 "`analysis`, `verdicts` and `signal('NAME')`")),
        ('case_id = "case.id"', 'case_id = "turn.promt"',
         (22, 1, "[details]: `case_id` reads `turn.promt`, which is not one of turn.prompt, turn.surface, "
                 "turn.grounding (did you mean `turn.prompt`?)")),
        ('case_id = "case.id"', 'case_id = "case.category|uncategorised"',
         (22, 1, "[details]: `case_id` is the removed `SOURCE|DEFAULT` form, and its default `uncategorised` is not "
                 "JSON; write an expression: \"default(case.category, 'text')\" (docs/rules.md, \"Details\")")),
        ('case_id = "case.id"', 'case_id = "case.category|\\"none\\""',
         (22, 1, "[details]: `case_id` is the removed `SOURCE|DEFAULT` form; write the expression "
                 "\"default(case.category, 'none')\" (docs/rules.md, \"Details\")")),
        ('case_id = "case.id"', 'case_id = "signal.no_marker&!@expected"',
         (22, 1, "[details]: `case_id` is the removed `signal.A&B` form; write the expression "
                 "\"signal('no_marker') and not signal('@expected')\" (docs/rules.md, \"Details\")")),
        ('case_id = "case.id"', 'case_id = "signal(case.id)"',
         (22, 1, "[details]: `case_id` calls `signal` without one quoted name: write `signal('NAME')`")),
        ('case_id = "case.id"', 'case_id = "case.id +"',
         (22, 1, "[details]: `case_id` is not an expression: expression 'case.id +' does not parse: invalid syntax")),
        ('case_id = "case.id"', "case_id = 3", (22, 1, "[details]: `case_id` must be string, not integer")),
        ('case_id = "case.id"', "case_id = \"signal('no_markr')\"",
         (22, 1, "[details] `case_id`: 'no_markr' is neither a predicate nor a case field")),
        # codes: the engine's own checks are not a predicate's
        ('code = "TY1"', 'code = "SL013"',
         (7, 1, "predicate 'no_marker': `code` SL013 is the engine's own check `regex-timeout`; "
                "a predicate needs a code of its own")),
        ('code = "TY1"', 'code = "ty1"', (7, 1, "predicate 'no_marker': `code` must look like SL101 (capital letters, then digits)")),
        # cross references
        ('metric = "no_marker_rate"', 'metric = "no_marker_rat"',
         (19, 13, "threshold set 'v1': unknown metric 'no_marker_rat' (did you mean 'no_marker_rate'?)")),
        ('default_thresholds = "v1"', 'default_thresholds = "v2"', (3, 1, "default_thresholds 'v2' names no threshold set (a [thresholds.*] table or a "
                     "`kind = \"thresholds\"` metric)")),
        ('name = "tiny"', 'name = "tiny"\nexpected_field = "expected"',
         (3, 1, "[lane] `expected_field` 'expected' is not a [case_schema] field")),
        ("[[metrics]]\nname = \"no_marker_rate\"", "[[metrics]]\nname = \"no_marker_rate\"\n[[metrics]]\nname = \"no_marker_rate\"",
         (15, 1, "metric 'no_marker_rate' is defined twice")),
    ],
)
def test_every_problem_names_its_line_and_column(old: str, new: str, expected: tuple[int, int, str]) -> None:
    assert old in BASE
    assert _error(BASE.replace(old, new, 1)) == expected


def test_a_top_level_table_of_the_wrong_type() -> None:
    no_details = BASE[: BASE.index("[details]")]
    assert _error("details = 3\n" + no_details) == (1, 1, "[details] must be a table, not integer")
    no_predicates = BASE[: BASE.index("[[predicates]]")] + BASE[BASE.index("[[metrics]]"):]
    no_predicates = no_predicates.replace('passing = ["no_marker"]', "")
    assert _error("predicates = 3\n" + no_predicates) == (1, 1, "[[predicates]] must be an array of tables, not integer")


def test_a_missing_required_parameter_and_key() -> None:
    assert _error(BASE.replace('markers = ["<x>"]\n', "")) == (
        5, 1, "predicate 'no_marker' (substring_absent): missing parameter `markers`")
    assert _error(BASE.replace('kind = "substring_absent"\n', "")) == (5, 1, "predicate 'no_marker': missing key `kind`")
    assert _error(BASE.replace('name = "no_marker"\n', "")) == (5, 1, "[[predicates]] entry 1: missing key `name`")


def test_a_profile_override_is_checked_by_the_kinds_declaration() -> None:
    text = BASE.replace('markers = ["<x>"]', 'markers = ["<x>"]\n[predicates.profiles.contract.params]\nmarkers = [""]')
    assert _error(text, "contract") == (13, 1, "predicate 'no_marker': parameter `markers` must not hold an empty string")
    typo = BASE.replace('markers = ["<x>"]', 'markers = ["<x>"]\n[predicates.profiles.contract.params]\nmarker = ["y"]')
    # an unknown key is wrong in every profile, not only in the one it overrides
    assert _error(typo, "reference") == (
        13, 1, "predicate 'no_marker' (substring_absent): unknown parameter `marker` (did you mean `markers`?)")
    profile = BASE.replace('markers = ["<x>"]', 'markers = ["<x>"]\n[predicates.profiles.contarct.params]\nmarkers = ["y"]')
    assert _error(profile) == (12, 1, "predicate 'no_marker': unknown key `contarct` (did you mean `contract`?)")


def test_declared_defaults_reach_the_kind() -> None:
    text = BASE.replace('kind = "substring_absent"', 'kind = "pattern_absent"').replace(
        'markers = ["<x>"]', "pattern = 'a+b'")
    spec = parse_lane(text, "tiny.toml").predicates[0]
    assert {k: v for k, v in spec.params.items() if k != "pattern"} == {
        "mode": "search", "strip": False, "requires": [], "unicode_form": "none"}


def _user_file(tmp_path: Path, text: str) -> Path:
    return write(tmp_path / "tiny.toml", text)


def test_a_code_another_lane_uses_is_rejected_at_its_line(tmp_path: Path) -> None:
    path = _user_file(tmp_path, BASE.replace('code = "TY1"', 'code = "SL101"'))
    lanes = load_lanes("contract", [path])
    assert "tiny" not in lanes.lanes
    assert [(e.path, e.line, e.column, e.message) for e in lanes.errors] == [
        (str(path), 7, 1,
         "predicate 'no_marker': code SL101 is already used by predicate 'no_placeholder' of lane 'deterministic_fluency'")
    ]
    assert sorted(lanes.lanes) == [
        "calibration", "classical_literature_ood", "compositionality", "conversational_thread_coherence",
        "deterministic_fluency", "discourse_paragraph", "elementary_mathematics_ood", "english_fluency_ood",
        "fabrication_control", "foundational_physics_ood", "grammatical_coverage", "inference_closure",
        "multi_sentence_response", "self_consistency_over_time", "symbolic_logic",
    ]


def test_a_file_that_replaces_a_shipped_lane_may_keep_its_codes(tmp_path: Path) -> None:
    path = write(tmp_path / "deterministic_fluency.toml", (RULES / "deterministic_fluency.toml").read_text("utf-8"))
    lanes = load_lanes("contract", [path])
    assert lanes.errors == []
    assert lanes.lanes["deterministic_fluency"].path == str(path)


def test_two_user_files_may_not_share_a_code(tmp_path: Path) -> None:
    first = write(tmp_path / "a.toml", BASE)
    second = write(tmp_path / "b.toml", BASE.replace('name = "tiny"', 'name = "other"'))
    lanes = load_lanes("contract", [first, second])
    assert "tiny" in lanes.lanes and "other" not in lanes.lanes
    assert [(e.path, e.line, e.message) for e in lanes.errors] == [
        (str(second), 7, "predicate 'no_marker': code TY1 is already used by predicate 'no_marker' of lane 'tiny'")]


def test_empty_markers_are_rejected_before_anything_runs(tmp_path: Path) -> None:
    """`markers = [""]` used to loop until memory ran out: it never reaches an evaluator now."""
    with pytest.raises(LaneError) as info:
        load_lane(_user_file(tmp_path, BASE.replace('markers = ["<x>"]', 'markers = [""]')))
    assert info.value.line == 11


# --- positions of every key -------------------------------------------------------------------


def _walk(value: Any, path: tuple[str | int, ...]) -> list[tuple[str | int, ...]]:
    out = [path] if path else []
    if isinstance(value, dict):
        for key, item in value.items():
            out.extend(_walk(item, (*path, key)))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            out.extend(_walk(item, (*path, index)))
    return out


@pytest.mark.parametrize("name", ["deterministic_fluency", "multi_sentence_response", "symbolic_logic"])
def test_every_key_of_the_shipped_rules_has_its_exact_position(name: str) -> None:
    text = (RULES / f"{name}.toml").read_text("utf-8")
    lines = text.splitlines()
    positions = TomlPositions(text)
    for path in _walk(tomllib.loads(text), ()):
        assert path in positions.where, path
        line, column = positions.where[path]
        last = path[-1]
        if isinstance(last, str):
            at = lines[line - 1][column - 1:]
            assert at.startswith((last, f'"{last}"', "[")), (path, at)


def test_positions_follow_strings_inline_tables_and_nested_arrays() -> None:
    text = (
        'a = """x = 1\n[fake]\n"""\n'
        "b = ['''q''', \"r\\\"#\", # comment\n  's']\n"
        '[[t]]\nc = { d = 1, "e f" = [1, [2, 3]] }\n'
        "[[t]]\n"
        "[t.u]\n"
        "g.h = 2\n"
    )
    where = TomlPositions(text).where
    assert tomllib.loads(text)["t"][1]["u"]["g"]["h"] == 2
    assert where[("a",)] == (1, 1)
    assert ("fake",) not in where
    assert where[("b", 2)] == (5, 3)
    assert where[("t", 0, "c", "e f", 1, 0)] == (7, 27)
    assert where[("t", 1, "u")] == (9, 1)
    assert where[("t", 1, "u", "g", "h")] == (10, 3)


def test_a_rules_file_nested_too_deeply_is_an_error_not_a_crash() -> None:
    deep = BASE + "[analysis]\ntail_patterns = " + "[" * 3000 + "]" * 3000 + "\n"
    assert _error(deep) == (1, 1, "invalid TOML: arrays or inline tables nested too deeply (more than 64 levels)")
    default = BASE.replace('case_id = "case.id"', 'case_id = "case.id|' + "[" * 3000 + "]" * 3000 + '"')
    assert _error(default)[2].startswith("[details]: `case_id` is the removed `SOURCE|DEFAULT` form, and its "
                                         "default `[[[")

