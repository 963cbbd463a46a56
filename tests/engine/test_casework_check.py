"""A casework value that names its predicate (`check`, `at`, `field`; docs/lanes/README.md): a
false value is that `[[predicates]]` entry's finding (its code, severity, name, `[severity]`
key), worded by the value's `message`, on the first record of view `at` at `field`; wrong names
are load errors at their file:line:column."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from surface_lint.engine import Engine
from surface_lint.engine.config import Config
from surface_lint.rules.loader import LaneError, parse_lane

LANE = '''[lane]
name = "check_demo"
unit = "surface"

[case_schema]
id_field = "id"
[case_schema.fields.id]
type = "string"
required = true
[case_schema.fields.min_hits]
type = "integer"

[[predicates]]
name = "enough_hits"
code = "CD901"
kind = "case_value"
default_severity = "error"
summary = "The answer's hits are at least the case's min_hits."

[casework]
[casework.views.answer]
where = "record.role == 'answer'"

[[casework.values]]
name = "hits"
expr = "default(first(answer).record.hits, 0)"

[[casework.values]]
name = "passed"
expr = "hits >= default(case.min_hits, 1)"
message = "hits {hits} < min_hits {case.min_hits}"
check = "enough_hits"
at = "answer"
field = "hits"

[[metrics]]
name = "pass_rate"
value = "passed"
'''


def _run(tmp_path: Path, lane: str, records: list[dict[str, object]], severity: dict[str, str] | None = None,
         ) -> list[tuple[str, str, int, int, int, int, str, str]]:
    lane_file, cases, captures = tmp_path / "lane.toml", tmp_path / "cases.jsonl", tmp_path / "captures.jsonl"
    lane_file.write_text(lane, encoding="utf-8")
    cases.write_text(json.dumps({"id": "C1", "min_hits": 2}) + "\n", encoding="utf-8")
    captures.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    engine = Engine(Config(lane_files=[lane_file], severity=severity or {}))
    assert engine.lane_set.errors == []
    scored = engine.score("check_demo", [str(cases)], [str(captures)])
    return [(f.code, f.rule, f.location.line, f.location.column, f.location.end_line, f.location.end_column,
             f.severity.name, f.message) for o in scored.outcomes for f in o.findings]


QUESTION = {"case_id": "C1", "role": "question", "surface": "Why?"}
ANSWER = {"case_id": "C1", "role": "answer", "surface": "Because.", "hits": 1}


def test_a_false_check_is_its_predicate_s_finding_at_the_view_s_field(tmp_path: Path) -> None:
    # line 2 is the answer: `{"case_id": "C1", "role": "answer", "surface": "Because.", "hits": 1}`
    assert _run(tmp_path, LANE, [QUESTION, ANSWER]) == [
        ("CD901", "enough_hits", 2, 68, 2, 69, "ERROR", "enough_hits: hits 1 < min_hits 2")]


def test_a_true_check_has_no_finding(tmp_path: Path) -> None:
    assert _run(tmp_path, LANE, [QUESTION, {**ANSWER, "hits": 2}]) == []


def test_the_severity_key_is_the_predicate_s(tmp_path: Path) -> None:
    assert [f[6] for f in _run(tmp_path, LANE, [QUESTION, ANSWER], {"CD901": "hint"})] == ["HINT"]
    assert [f[6] for f in _run(tmp_path, LANE, [QUESTION, ANSWER], {"enough_hits": "information"})] == ["INFORMATION"]


def test_an_empty_view_puts_it_on_the_case_s_first_record(tmp_path: Path) -> None:
    # No answer: hits is 0, the finding is on the question (line 1), which has no `hits`: the whole line.
    line = json.dumps(QUESTION)
    assert _run(tmp_path, LANE, [QUESTION]) == [
        ("CD901", "enough_hits", 1, 1, 1, len(line) + 1, "ERROR", "enough_hits: hits 0 < min_hits 2")]


def test_without_field_it_sits_where_the_predicate_s_finding_would(tmp_path: Path) -> None:
    lane = LANE.replace('field = "hits"\n', "")
    # the answer's surface, a predicate finding's place: the JSON string `"Because."`, columns 48-57
    found = _run(tmp_path, lane, [QUESTION, ANSWER])
    assert [(f[0], f[2], f[3], f[5]) for f in found] == [("CD901", 2, 48, 58)]


@pytest.mark.parametrize(("old", "new", "where", "message"), [
    ('check = "enough_hits"', 'check = "enough_hit"', (32, 1),
     "value 'passed': `check` 'enough_hit' is not a predicate of this lane (its [[predicates]]: enough_hits); "
     "did you mean 'enough_hits'?"),
    ('message = "hits {hits} < min_hits {case.min_hits}"\n', "", (31, 1),
     "value 'passed': a `check` needs a `message`, the text its finding says when the value is false"),
    ('check = "enough_hits"\n', "", (32, 1),
     "value 'passed': `at` places the finding of a `check`; give `check` (a predicate of this lane) or leave `at` out"),
    ('at = "answer"', 'at = "answers"', (33, 1), "value 'passed': `at` must name one of the views (answer)"),
])
def test_a_wrong_check_is_a_load_error_at_its_key(old: str, new: str, where: tuple[int, int], message: str) -> None:
    assert old in LANE
    with pytest.raises(LaneError) as info:
        parse_lane(LANE.replace(old, new, 1), "demo.toml", "reference")
    assert (info.value.path, info.value.line, info.value.column, info.value.message) == ("demo.toml", *where, message)


def test_a_case_value_predicate_no_value_names_is_a_load_error_at_its_kind() -> None:
    text = LANE.replace('check = "enough_hits"\nat = "answer"\nfield = "hits"\n', "")
    with pytest.raises(LaneError) as info:
        parse_lane(text, "demo.toml", "reference")
    assert (info.value.line, info.value.column, info.value.message) == (
        16, 1, "predicate 'enough_hits': a `case_value` predicate is judged by the [[casework.values]] entry that "
               "names it as `check`; no value names it (write `check = \"enough_hits\"` on the value whose false "
               "result is this finding)")


def _outcome(tmp_path: Path, records: list[dict[str, object]]) -> tuple[tuple[str, ...], tuple[str, ...], dict[str, str]]:
    lane_file, cases, captures = tmp_path / "lane.toml", tmp_path / "cases.jsonl", tmp_path / "captures.jsonl"
    lane_file.write_text(LANE, encoding="utf-8")
    cases.write_text(json.dumps({"id": "C1", "min_hits": 2}) + "\n", encoding="utf-8")
    captures.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    (outcome,) = Engine(Config(lane_files=[lane_file])).score("check_demo", [str(cases)], [str(captures)]).outcomes
    return outcome.judged, outcome.failed, {k: v.message for k, v in (outcome.verdicts or {}).items()}


def test_a_case_row_judges_its_checks_and_words_a_failure_as_the_verdict(tmp_path: Path) -> None:
    # What reports show per case (JUnit, Markdown, the HTML matrix): the check is judged, passing
    # or failing, and a failure's text is the verdict's own, without the finding's "name: ".
    assert _outcome(tmp_path, [QUESTION, {**ANSWER, "hits": 2}]) == (("enough_hits",), (), {})
    assert _outcome(tmp_path, [QUESTION, ANSWER]) == (
        ("enough_hits",), ("enough_hits",), {"enough_hits": "hits 1 < min_hits 2"})
