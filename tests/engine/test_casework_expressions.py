"""Total, bounded evaluation of a case-driven lane's expressions (issue 15, item 4): every crash
of the issue's list is a finding with its exact message and position, or a load error with the
lane file's file:line:column, through the public path (`surface-lint --lane X --lane-file ...
--output-format json`) on small files written here."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from surface_lint.cli.main import main
from surface_lint.engine.casework import category_key, category_order, template_problem

# Line numbers below count from this text: `expr` of value `n` is on line 22, the value
# `message` on 23, the detail `d` on 46, the `by` of `by_group` on 39, the check's message on 44.
LANE = '''[lane]
name = "tiny"

[case_schema]
id_field = "id"
[case_schema.fields.id]
type = "string"
required = true
[case_schema.fields.min_sentences]
type = "integer"
[case_schema.fields.premises]
type = "list[string]"
[case_schema.fields.group]
type = "string"

[casework.views.answers]
where = "record.role == 'prompt'"
surface = "default(record.articulation_surface, record.surface)"

[[casework.values]]
name = "n"
expr = {N}
message = {MESSAGE}

[[casework.values]]
name = "passed"
expr = "n is not None and n >= 0"

[[casework.metrics]]
name = "accuracy"
kind = "rate"
value = "passed"

[[casework.metrics]]
name = "by_group"
kind = "count"
value = "passed"
by = "case.group"

[[casework.metrics]]
name = "gate"
kind = "thresholds"
checks = [{{ metric = "accuracy", op = ">=", value = 1.0, message = {CHECK} }}]

[casework.details]
d = {D}
'''

CASE = '{"id": "c1", "min_sentences": 2, "premises": ["p"], "group": "x"}'
TURN = '{"case_id": "c1", "role": "prompt", "surface": "A. B."}'


def lane(n: str = "len(answers)", message: str = "n is {n}", check: str = "{metric} {actual} < {bound}",
         detail: str = "n") -> str:
    return LANE.format(N=json.dumps(n), MESSAGE=json.dumps(message), CHECK=json.dumps(check), D=json.dumps(detail))


def run(tmp_path: Path, capsys: pytest.CaptureFixture[str], lane_text: str, cases: list[str] | None = None,
        turns: list[str] | None = None) -> tuple[int, Any, str]:
    """Exit code, the JSON report (None when nothing was written) and stderr, paths relative to tmp_path."""
    (tmp_path / "lane.toml").write_text(lane_text, encoding="utf-8")
    (tmp_path / "c.jsonl").write_text("\n".join(cases or [CASE]) + "\n", encoding="utf-8")
    (tmp_path / "t.jsonl").write_text("\n".join(turns or [TURN]) + "\n", encoding="utf-8")
    code = main(["--lane", "tiny", "--lane-file", str(tmp_path / "lane.toml"), "--cases", str(tmp_path / "c.jsonl"),
                 "--transcripts", str(tmp_path / "t.jsonl"), "--output-format", "json"])
    out, err = capsys.readouterr()
    prefix = f"{tmp_path}/"
    return code, json.loads(out.replace(prefix, "")) if out else None, err.replace(prefix, "")


def findings(report: Any) -> list[tuple[str, str, int, int, str]]:
    return [(f["path"], f["code"], f["line"], f["column"], f["message"]) for f in report["findings"]]


def test_the_lane_scores_cleanly(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, report, err = run(tmp_path, capsys, lane())
    assert (code, err) == (0, "")
    assert findings(report) == []
    assert report["metrics"] == {"accuracy": 1.0, "by_group": {"x": 1}, "gate": True}
    assert report["cases"] == [{"d": 1}]


# --- run-time errors: SL019, the case fails, its values from there on are null -------------------

@pytest.mark.parametrize(("expr", "error"), [
    ("1/0", "division by zero"),
    ("min([])", "min() arg is an empty sequence"),
    ("len(5)", "object of type 'int' has no len()"),
    ("int('9' * 5000)", "Exceeds the limit (4300 digits) for integer string conversion: value has 5000 digits"),
    ("sorted([None, 'x'])", "'<' not supported between instances of 'str' and 'NoneType'"),
    ("search(case.id + '(?<=a)', 'ab')",
     "uses a lookahead `(?=...)` or lookbehind `(?<=...)` at character 3, which has no exact linear-time form: "
     "match the text itself (the match then includes it), or test it in a second predicate"),
])
def test_a_run_time_error_is_an_sl019_finding_for_the_case(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], expr: str, error: str) -> None:
    code, report, err = run(tmp_path, capsys, lane(expr))
    assert (code, err) == (1, "")  # the failed case fails the `gate` threshold
    assert findings(report) == [
        ("t.jsonl", "SL019", 1, 13, f"expression `{expr}` (lane.toml:22:1) failed: {error}")]
    assert report["failed_predicates"] == {"c1": ["expression-failed"]}
    assert report["metrics"] == {"accuracy": 0.0, "by_group": {"x": 0}, "gate": False}
    assert report["cases"] == [{"d": None}]


# --- the budget: SL020, counted, never timed -----------------------------------------------------

@pytest.mark.parametrize(("expr", "reason"), [
    ("len('a' * 100000000000)", "a string of 100,000,000,000 characters (at most 1,000,000)"),
    ("len('%999999999s' % 'a')", "a string of 999,999,999 characters (at most 1,000,000)"),
    ("len([1 for a in [0] * 1000 for b in [0] * 1000])", "a list of 100,001 items (at most 100,000)"),
    ("sum(1 for a in [0] * 1000 for b in [0] * 1000)", "more than 1,000,000 evaluation steps"),
    ("len(sum([[0] * 100 for a in [0] * 999], []))",
     "more than 10,000,000 characters and list items built for one case"),
])
def test_past_the_budget_is_an_sl020_finding_for_the_case(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], expr: str, reason: str) -> None:
    code, report, err = run(tmp_path, capsys, lane(expr))
    assert (code, err) == (1, "")
    assert findings(report) == [
        ("t.jsonl", "SL020", 1, 13, f"expression `{expr}` (lane.toml:22:1) ran past the evaluation budget: {reason}")]
    assert report["cases"] == [{"d": None}]


def test_an_integer_within_4300_digits_is_computed(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    expr = "len(str(" + " * ".join(["99999999999999999999"] * 8) + "))"
    code, report, _ = run(tmp_path, capsys, lane(expr))
    assert (code, findings(report), report["cases"]) == (0, [], [{"d": 160}])


def test_an_integer_past_4300_digits_is_refused_before_it_is_built(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    expr = "len(str(int('9' * 4000) * int('9' * 4000)))"
    code, report, _ = run(tmp_path, capsys, lane(expr))
    assert (code, findings(report)) == (1, [
        ("t.jsonl", "SL020", 1, 13,
         f"expression `{expr}` (lane.toml:22:1) ran past the evaluation budget: an integer of more than 4,300 digits")])


# --- at load: nesting, literals, templates -------------------------------------------------------

@pytest.mark.parametrize(("expr", "message"), [
    ("not " * 5000 + "n", "expression 'not not not not not not not not not not not not not not not not not not not "
                          "not…' nests more than 100 levels deep"),
    ("+".join(["1"] * 100_000), "expression '1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+"
                               "1+1+1+1…' nests more than 100 levels deep"),
    ("-" * 100 + "1", "expression '" + "-" * 79 + "…' nests more than 100 levels deep"),  # 101 nodes deep
    ("search('(?<=a)b', t.surface)",
     "expression \"search('(?<=a)b', t.surface)\": the pattern '(?<=a)b' of `search` uses a lookahead `(?=...)` "
     "or lookbehind `(?<=...)` at character 1, which has no exact linear-time form: match the text itself (the "
     "match then includes it), or test it in a second predicate"),
    ("b'x'", "expression \"b'x'\": a bytes literal is not part of the language (numbers, strings, true, false and "
             "null are)"),
    ("1j", "expression '1j': a complex literal is not part of the language (numbers, strings, true, false and null "
           "are)"),
])
def test_an_expression_that_cannot_be_evaluated_safely_is_refused_at_load(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], expr: str, message: str) -> None:
    code, report, err = run(tmp_path, capsys, lane(expr))
    assert (code, report) == (2, None)
    assert err == f"surface-lint: config error: lane.toml:22:1: value 'n' `expr`: {message}\n"


def test_an_expression_100_levels_deep_loads(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Parentheses add no level; 99 `not` and their operand are 100 nodes deep."""
    code, report, _ = run(tmp_path, capsys, lane("(((" + "not " * 99 + "n)))"))  # `n` itself: not yet, null
    assert (code, report["cases"]) == (0, [{"d": True}])


@pytest.mark.parametrize(("where", "text", "at", "message"), [
    ("check", "{foo} too low", "43:58", "metric 'gate': check 1 `message`: unknown placeholder `{foo}` "
                                   "(it may use: {metric}, {actual}, {bound})"),
    ("check", "{", "43:58", "metric 'gate': check 1 `message`: Single '{' encountered in format string "
                       "(write `{{` and `}}` for a literal brace)"),
    ("check", "}", "43:58", "metric 'gate': check 1 `message`: Single '}' encountered in format string "
                       "(write `{{` and `}}` for a literal brace)"),
    ("check", "{} low", "43:58", "metric 'gate': check 1 `message`: unknown placeholder `{}` "
                            "(it may use: {metric}, {actual}, {bound})"),
    ("check", "{actual.real}", "43:58", "metric 'gate': check 1 `message`: unknown placeholder `{actual.real}` "
                                   "(it may use: {metric}, {actual}, {bound})"),
    ("check", "{actual:d}", "43:58", "metric 'gate': check 1 `message`: cannot be formatted with a number: "
                                "Unknown format code 'd' for object of type 'float'"),
    ("value", "{foo} too low", "23:1", "value 'n' `message`: unknown placeholder `{foo}` (it may read: {case}, "
                                   "{failures}, {runs}, {run}, {metrics}, {t}, {answers}, {n}, {passed}, and their fields)"),
    ("value", "n is {n", "23:1", "value 'n' `message`: `{` at character 6 is never closed (placeholders are `{name}`)"),
    ("value", "n is {}", "23:1", "value 'n' `message`: an empty placeholder `{}` at character 6"),
])
def test_a_message_template_is_checked_against_its_placeholders_at_load(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], where: str, text: str, at: str, message: str) -> None:
    code, report, err = run(tmp_path, capsys, lane(check=text) if where == "check" else lane(message=text))
    assert (code, report) == (2, None)
    assert err == f"surface-lint: config error: lane.toml:{at}: {message}\n"


def test_a_checked_template_with_a_format_renders_a_null_plainly() -> None:
    from surface_lint.engine.casework import format_message

    assert template_problem("{metric} {actual:.2f} < {bound}", ("metric", "actual", "bound"), False) is None
    assert format_message("{metric} {actual:.2f} < {bound}", metric="m", actual=None, bound=0.5) == "m None < 0.5"
    assert format_message("{metric} {actual:.2f} < {bound}", metric="m", actual=0.25, bound=0.5) == "m 0.25 < 0.5"


# --- details: JSON values, else SL021 and null ---------------------------------------------------

@pytest.mark.parametrize(("expr", "problem"), [
    ("{1: 'a', 'b': 2}", "an object key must be a string, not 1"),
    ("{'k': [float('nan')]}", "the number nan is not a JSON number"),
    ("float('inf')", "the number inf is not a JSON number"),
    ("{null: 1}", "an object key must be a string, not null"),
])
def test_a_detail_that_is_not_json_is_null_with_an_sl021_finding(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], expr: str, problem: str) -> None:
    code, report, err = run(tmp_path, capsys, lane(detail=expr))
    assert (code, err) == (0, "")  # the verdict stands
    assert findings(report) == [
        ("t.jsonl", "SL021", 1, 13,
         f"detail `d` (expression `{expr}`, lane.toml:46:1) is not a JSON value: {problem}; written as null")]
    assert report["cases"] == [{"d": None}]
    assert report["metrics"]["accuracy"] == 1.0


# --- wrong-typed and missing fields: SL003, read as null -----------------------------------------

@pytest.mark.parametrize(("field", "column"), [("surface", 48), ("articulation_surface", 61), ("walk_surface", 53)])
def test_a_capture_text_field_that_is_not_a_string_is_sl003_and_null(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], field: str, column: int) -> None:
    text = LANE.replace('surface = "default(record.articulation_surface, record.surface)"',
                        'surface = "default(record.articulation_surface, default(record.walk_surface, record.surface))"')
    turn = f'{{"case_id": "c1", "role": "prompt", "{field}": 5}}'
    lane_text = text.format(N=json.dumps("len(answers[0].surface)"), MESSAGE='"n is {n}"', CHECK='"{metric}"', D='"n"')
    code, report, err = run(tmp_path, capsys, lane_text, turns=[turn])
    assert (code, err) == (0, "")
    assert findings(report) == [("t.jsonl", "SL003", 1, column, f"`{field}` must be a string or null, not a number")]
    assert report["cases"] == [{"d": 0}]  # the view read the field as null: its text is ""


@pytest.mark.parametrize(("case", "column", "message"), [
    ('{"id": "c1", "premises": 5}', 26, "`premises` must be an array of strings, not a number"),
    ('{"id": "c1", "min_sentences": []}', 31, "`min_sentences` must be an integer, not an array"),
])
def test_a_wrong_typed_case_field_is_sl003_and_reaches_expressions_as_null(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], case: str, column: int, message: str) -> None:
    expr = "[case.premises, case.min_sentences]"
    code, report, err = run(tmp_path, capsys, lane(expr, detail="n"), cases=[case])
    assert (code, err) == (1, "")  # `n >= 0` compares a list with 0: false, the gate fails
    assert findings(report) == [("c.jsonl", "SL003", 1, column, message),
                                ("t.jsonl", "SL018", 1, 13, "`passed` is false: n is not None and n >= 0")]
    assert report["cases"] == [{"d": [None, None]}]


def test_a_case_missing_the_by_field_is_counted_under_null_last(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cases = ['{"id": "c1", "group": "x"}', '{"id": "c2"}', '{"id": "c3", "group": "a"}']
    turns = [TURN, TURN.replace("c1", "c2"), TURN.replace("c1", "c3")]
    code, report, err = run(tmp_path, capsys, lane(), cases=cases, turns=turns)
    assert (code, err, findings(report)) == (0, "", [])
    assert report["metrics"]["by_group"] == {"a": 1, "null": 1, "x": 1}


def test_a_category_that_is_a_list_is_null_with_an_sl019_finding(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = lane().replace('by = "case.group"', 'by = "case.premises"')
    _, report, _ = run(tmp_path, capsys, text)
    assert findings(report) == [
        ("c.jsonl", "SL019", 1, 8, "expression `case.premises` (lane.toml:38:1) failed: a category must be text, "
                                   "a number, true, false or null, not list")]
    assert report["metrics"]["by_group"] == {"null": 1}


def test_categories_are_ordered_by_type_then_value_with_null_last() -> None:
    keys = ["b", None, 2, True, "a", 1.5, False]
    assert sorted(keys, key=category_order) == [False, True, 1.5, 2, "a", "b", None]
    assert [category_key(k) for k in sorted(keys, key=category_order)] == ["false", "true", "1.5", "2", "a", "b", "null"]


def test_a_metric_expression_that_fails_leaves_the_item_out_with_its_finding(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = lane().replace('kind = "rate"\nvalue = "passed"', 'kind = "mean"\nvalue = "1 / (n - 2)"')
    cases = [CASE, CASE.replace("c1", "c2")]
    turns = [TURN, TURN.replace("c1", "c2"), TURN.replace("c1", "c2")]
    _, report, _ = run(tmp_path, capsys, text, cases=cases, turns=turns)
    assert findings(report) == [
        ("c.jsonl", "SL019", 2, 8, "expression `1 / (n - 2)` (lane.toml:32:1) failed: division by zero")]
    assert report["metrics"]["accuracy"] == -1.0  # c1 alone: 1 / (1 - 2)


def test_check_cases_gives_the_failure_at_the_case_first_turn(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run(tmp_path, capsys, lane("1/0"))
    code = main(["check", "--lane", "tiny", "--lane-file", str(tmp_path / "lane.toml"), "--cases",
                 str(tmp_path / "c.jsonl"), "--kind", "turns", str(tmp_path / "t.jsonl")])
    out = capsys.readouterr().out.replace(f"{tmp_path}/", "")
    assert code == 1
    assert out.splitlines()[0] == ("t.jsonl:1:13: SL019 [error] expression `1/0` (lane.toml:22:1) failed: "
                                   "division by zero")


def test_the_limits_are_the_ones_the_lane_reference_states() -> None:
    from surface_lint.rules.expressions import LIMITS, Limits

    assert Limits(steps=1_000_000, cells=10_000_000, string=1_000_000, items=100_000, digits=4_300, depth=100) == LIMITS
    text = (Path(__file__).resolve().parents[2] / "docs" / "lanes" / "README.md").read_text(encoding="utf-8")
    limits = text.split("## Limits", 1)[1].split("\n## ", 1)[0]
    for row in ("| evaluation steps (expression nodes, plus one per item a function or comprehension reads) | 1,000,000 |",
                "| characters and list items built, all strings and lists together | 10,000,000 |",
                "| characters of one string an expression builds | 1,000,000 |",
                "| items of one list (or dict) an expression builds | 100,000 |",
                "| decimal digits of one integer | 4,300 |",
                "| nesting of one expression (at load) | 100 |"):
        assert row in limits, row


@pytest.mark.parametrize(("fmt", "shown"), [
    ("junit", '      <failure message="failed: expression-failed (SL019)" type="error">expression-failed (SL019, error): '
              "expression `1/0` (lane.toml:22:1) failed: division by zero at t.jsonl:1:13</failure>"),
    ("markdown", "| `c1` |  | `expression-failed` (SL019, error): expression \\`1/0\\` (lane.toml:22:1) failed: "
                 "division by zero |"),
])
def test_a_case_not_judged_is_a_failing_case_in_the_reports(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                             fmt: str, shown: str) -> None:
    """SL019 is one of the checks a case fails on (checks.CASE_LEVEL): JUnit gave an internal
    error on such a case, Markdown left it out of its failing cases."""
    (tmp_path / "lane.toml").write_text(lane("1/0"), encoding="utf-8")
    (tmp_path / "c.jsonl").write_text(CASE + "\n", encoding="utf-8")
    (tmp_path / "t.jsonl").write_text(TURN + "\n", encoding="utf-8")
    code = main(["--lane", "tiny", "--lane-file", str(tmp_path / "lane.toml"), "--cases", str(tmp_path / "c.jsonl"),
                 "--transcripts", str(tmp_path / "t.jsonl"), "--output-format", fmt])
    out, err = capsys.readouterr()
    assert (code, err) == (1, "")
    shown_path = f"{tmp_path}/".replace("_", "\\_") if fmt == "markdown" else f"{tmp_path}/"  # Markdown escapes `_`
    assert shown in out.replace(shown_path, "").splitlines()
