"""Case-driven lanes ([casework], casework.py) and their expressions (caseexpr.py), on our
own small lane: several turns per case, per-turn expectations, two runs, subset and
per-category metrics, thresholds; load errors at their file:line:column."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from surface_lint.engine import Engine, LaneResult
from surface_lint.engine.casework import Casework, load_casework
from surface_lint.engine.config import Config
from surface_lint.rules.expressions import Expr, ExprError
from surface_lint.rules.loader import LaneError, parse_lane

LANE = '''[lane]
name = "thread_demo"

[case_schema]
id_field = "id"
[case_schema.fields.id]
type = "string"
required = true
[case_schema.fields.topic]
type = "string"

[[predicates]]
name = "names_topic"
code = "TD1"
kind = "terms_present"
summary = "s"
what = "w"
why = "y"
example_fail = "x"
example_pass = "x"
message = "does not name {term}"
[predicates.params]
field = "entry.anchor"

[casework]
turn_list = "turns"
[casework.runs]
first = "record.chain == 0"
replay = "record.chain == 1"

[casework.views.answers]
where = "record.role == 'prompt'"
surface = "rstrip(record.surface, '.')"

[[casework.turn_values]]
name = "anchored"
view = "answers"
when = "entry.anchor"
predicate = "names_topic"

[[casework.values]]
name = "answers_seen"
expr = "len(unique(t.surface for t in answers))"

[[casework.values]]
name = "same_answers"
expr = "len(unique(t.surface for t in answers)) <= 1"
message = "case {case.id}: {answers_seen} different answers"

[[casework.values]]
name = "anchors"
predicate = "names_topic"
view = "answers"
failures = true

[[casework.values]]
name = "passed"
expr = "anchors"

[[casework.metrics]]
name = "cases"
kind = "count"

[[casework.metrics]]
name = "anchor_rate"
per = "answers"
where = "t.anchored is not None"
value = "t.anchored"

[[casework.metrics]]
name = "by_topic"
value = "passed"
by = "case.topic"

[[casework.metrics]]
name = "replay_pass_rate"
value = "runs.replay.passed"

[[casework.metrics]]
name = "mean_turns"
kind = "mean"
value = "len(answers)"
digits = 2

[[casework.metrics]]
name = "healthy"
kind = "thresholds"
checks = [{ metric = "anchor_rate", op = ">=", value = 0.5 }]

[casework.details]
id = "case.id"
failures = "failures"
turns = "[{'s': t.surface, 'anchored': t.anchored} for t in answers]"
'''


def casework_of(text: str) -> Casework:
    found = load_casework(parse_lane(text, "demo.toml", "reference"))
    assert found is not None
    return found


def write_jsonl(path: Path, rows: list[Any]) -> str:
    path.write_text("".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in rows), encoding="utf-8")
    return str(path)


def rec(case_id: str, chain: int, index: int, surface: str, role: str = "prompt") -> dict[str, Any]:
    return {"case_id": case_id, "chain": chain, "turn_index": index, "role": role, "surface": surface}


CASES = [
    {"id": "c1", "topic": "light", "turns": [{"prompt": "What is light?"}, {"prompt": "Why?", "anchor": "light"}]},
    {"id": "c2", "topic": "truth", "turns": [{"prompt": "What is truth?", "anchor": "truth"}]},
    {"id": "c3", "topic": "truth", "turns": [{"prompt": "x"}]},
]


def score_lane(tmp_path: Path, cases: str, captures: str) -> LaneResult:
    """`surface-lint --lane thread_demo --lane-file demo.toml`: the engine's one scoring path."""
    lane_file = tmp_path / "thread_demo.toml"
    lane_file.write_text(LANE, encoding="utf-8")
    return Engine(Config(lane_files=[lane_file]), profile="reference").score("thread_demo", [cases], [captures])


def test_a_multi_turn_lane_scores_every_turn_with_its_own_expectations(tmp_path: Path) -> None:
    cases = write_jsonl(tmp_path / "cases.jsonl", CASES)
    captures = write_jsonl(tmp_path / "captures.jsonl", [
        rec("c1", 0, 0, "Light is bright."),
        rec("c1", 0, 1, "Because it is."),  # does not name `light`
        rec("c2", 0, 0, "Truth is real."),
        rec("c1", 1, 0, "Light is bright."),  # the replay comes back to c1 later
        rec("c1", 1, 1, "Light matters."),
        rec("c2", 1, 0, "It is."),
        rec("c9", 0, 0, "Nobody asked."),
        "{not json",
        {"chain": 0, "surface": "Whose?"},
    ])
    result = score_lane(tmp_path, cases, captures)
    assert [o.details for o in result.outcomes] == [
        {"id": "c1", "failures": ["case c1: 2 different answers", "does not name light"],
         "turns": [{"s": "Light is bright", "anchored": None}, {"s": "Because it is", "anchored": False}]},
        {"id": "c2", "failures": [], "turns": [{"s": "Truth is real", "anchored": True}]},
    ]
    assert [o.signals for o in result.outcomes] == [(False,), (True,)]
    assert result.metrics == {
        "anchor_rate": 0.5, "by_topic": {"light": 0.0, "truth": 1.0}, "cases": 2, "healthy": True,
        "mean_turns": 1.5, "replay_pass_rate": 0.5,
    }
    assert list(result.missing_transcripts) == ["c3"]
    assert list(result.unknown_cases) == ["c9"]
    assert [(Path(f.location.path).name, f.location.line, f.location.column, f.code, f.record_id, f.message)
            for f in result.findings] == [
        ("captures.jsonl", 2, 78, "TD1", "c1", "names_topic: does not name light"),
        ("captures.jsonl", 7, 13, "SL015", "c9", "case id `c9` matches no case in the given case files"),
        ("captures.jsonl", 8, 2, "SL001", None, "invalid JSON: Expecting property name enclosed in double quotes"),
        ("captures.jsonl", 9, 1, "SL015", None, "record without a string `case_id`; joined to no case"),
        # The demo lane's schema does not declare `turns`: the case index says so, as `check` does.
        ("cases.jsonl", 1, 32, "SL012", "c1", "unknown field `turns` for lane thread_demo"),
        ("cases.jsonl", 2, 32, "SL012", "c2", "unknown field `turns` for lane thread_demo"),
        ("cases.jsonl", 3, 8, "SL015", "c3", "case `c3` has no captured turn in the transcripts; left out of the metrics"),
        ("cases.jsonl", 3, 32, "SL012", "c3", "unknown field `turns` for lane thread_demo"),
    ]
    # The failing case's row names its failed check and why (the verdict's words; the finding's
    # message is prefixed with the predicate's name, the row's is not, as a classic lane's).
    assert [(o.case_id, o.failed, {n: v.message for n, v in (o.verdicts or {}).items()}) for o in result.outcomes] == [
        ("c1", ("names_topic",), {"names_topic": "does not name light"}), ("c2", (), {})]


@pytest.mark.parametrize(("old", "new", "where", "message"), [
    ('predicate = "names_topic"\nview = "answers"\nfailures', 'predicate = "names_topik"\nview = "answers"\nfailures',
     (52, 1), "value 'anchors': unknown predicate 'names_topik' (this lane's: names_topic)"),
    ('name = "anchors"\npredicate = "names_topic"\nview = "answers"',
     'name = "anchors"\npredicate = "names_topic"\nview = "answerz"', (53, 1),
     "value 'anchors': `view` must name one of the views (answers)"),
    ('checks = [{ metric = "anchor_rate"', 'checks = [{ metric = "later"', (88, 13),
     "metric 'healthy': check 1 names 'later', not an earlier metric"),
    ('expr = "len(unique(t.surface for t in answers)) <= 1"', 'expr = "len(answers) <= (lambda: 1)()"', (47, 1),
     "value 'same_answers' `expr`: expression 'len(answers) <= (lambda: 1)()': `Lambda` is not part of the language"),
    ('value = "len(answers)"', 'value = "size(answers)"', (82, 1),
     "metric 'mean_turns' `value`: expression 'size(answers)': unknown function `size` (known: "),
])
def test_casework_errors_name_their_line_and_column(old: str, new: str, where: tuple[int, int], message: str) -> None:
    assert old in LANE
    with pytest.raises(LaneError) as info:
        casework_of(LANE.replace(old, new, 1))
    assert (info.value.line, info.value.column) == where
    assert info.value.message.startswith(message)


def test_the_validator_rejects_unknown_casework_keys_at_their_line() -> None:
    with pytest.raises(LaneError) as info:
        parse_lane(LANE.replace('turn_list = "turns"', 'turn_lists = "turns"'), "demo.toml", "reference")
    assert (info.value.line, info.value.column, info.value.message) == (
        26, 1, "[casework]: unknown key `turn_lists` (did you mean `turn_list`?)")


@pytest.mark.parametrize(("text", "scope", "value"), [
    ("case.a.b.c", {"case": {"a": None}}, None),
    ("case.a[1]", {"case": {"a": [1, 2]}}, 2),
    ("case.a[5]", {"case": {"a": [1, 2]}}, None),
    ("[x * 2 for x in xs if x > 1]", {"xs": [1, 2, 3]}, [4, 6]),
    ("count(x > 1 for x in xs)", {"xs": [1, 2, 3]}, 2),
    ("default(missing, 3) + 1", {}, 4),
    ("'a' if n is None else 'b'", {"n": None}, "a"),
    ("n > 3", {"n": None}, False),
    ("x not in [None, False]", {"x": {}}, True),
    ("split('[.!?]\\\\s+|[.!?]$', 'One. Two!')", {}, ["One", "Two"]),
    ("is_subsequence(['a', 'c'], words('a b c'))", {}, True),
    ("rate([True, False, True, True])", {}, 0.75),
    ("s[:3]", {"s": "abcdef"}, "abc"),
    ("(a\n or b)", {"a": False, "b": 7}, 7),
    ("a\n or b", {"a": False, "b": 7}, 7),
])
def test_expressions(text: str, scope: dict[str, Any], value: Any) -> None:
    assert Expr(text).evaluate(scope) == value


@pytest.mark.parametrize(("text", "message"), [
    ("__import__('os')", "expression \"__import__('os')\": unknown function `__import__` (known: "),
    ("x.__class__()", "expression 'x.__class__()': unknown function `x.__class__` (known: "),
    ("a = 1", "expression 'a = 1' does not parse: invalid syntax"),
    ("f'{x}'", "expression \"f'{x}'\": `JoinedStr` is not part of the language"),
])
def test_expressions_outside_the_language_are_refused(text: str, message: str) -> None:
    with pytest.raises(ExprError) as info:
        Expr(text)
    assert str(info.value).startswith(message)


def test_the_lanes_reference_is_generated_from_the_code() -> None:
    from surface_lint.rules.casework_docs import END, START, render_reference

    readme = Path(__file__).resolve().parents[2] / "docs" / "lanes" / "README.md"
    block = readme.read_text(encoding="utf-8").split(START, 1)[1].split(END, 1)[0]
    assert block == render_reference(), "run: python -m surface_lint.rules.casework_docs docs/lanes/README.md"


def test_every_lane_function_is_documented_and_callable() -> None:
    from surface_lint.engine.casework import LANE_FUNCTION_DOCS, CaseworkEvaluator

    evaluator = CaseworkEvaluator(casework_of(LANE))
    assert sorted(evaluator.functions()) == sorted(LANE_FUNCTION_DOCS)


def test_case_driven_rules_judge_nothing_without_a_case() -> None:
    lane = parse_lane(LANE, "demo.toml", "reference")
    spec = lane.predicate("names_topic")
    assert spec is not None
    from surface_lint.rules.kinds.core import Context, Subject

    assert spec.evaluate(Context(Subject(surface="anything"), lane.analysis)).passed is True
    failing = spec.evaluate(Context(Subject(surface="anything", case={"entry": {"anchor": "light"}}), lane.analysis))
    assert (failing.passed, failing.message) == (False, "does not name light")


def test_a_headline_that_is_no_casework_metric_is_an_error_at_its_line() -> None:
    with pytest.raises(LaneError) as info:
        parse_lane(LANE.replace('name = "thread_demo"\n', 'name = "thread_demo"\nheadline = "accuracy"\n', 1),
                   "demo.toml", "reference")
    assert (info.value.line, info.value.column, info.value.message) == (
        3, 1, "headline 'accuracy' is not a metric of the lane")


def test_cases_without_an_id_or_given_twice_are_findings_not_silence(tmp_path: Path) -> None:
    cases = write_jsonl(tmp_path / "cases.jsonl", [CASES[1], {"topic": "x"}, {**CASES[1], "topic": "light"}])
    captures = write_jsonl(tmp_path / "captures.jsonl", [rec("c2", 0, 0, "Truth is real."), rec("c2", 1, 0, "Truth.")])
    result = score_lane(tmp_path, cases, captures)
    assert [o.case_id for o in result.outcomes] == ["c2"]
    assert result.metrics["by_topic"] == {"truth": 1.0}
    assert [(f.location.line, f.location.column, f.code, f.message) for f in result.findings] == [
        (1, 32, "SL012", "unknown field `turns` for lane thread_demo"),
        (2, 1, "SL002", "missing required field `id` (a string) for lane thread_demo"),
        (3, 8, "SL005", "duplicate case id `c2` (first at this file:1)"),
        (3, 32, "SL012", "unknown field `turns` for lane thread_demo"),
    ]


def test_check_judges_a_turn_only_where_the_lane_does() -> None:
    casework = casework_of(LANE)
    case = CASES[0]
    assert casework.judged_on == {"names_topic": ("answers",)}
    assert casework.judges("names_topic", rec("c1", 0, 1, "x"), case) is True
    assert casework.judges("names_topic", rec("c1", 0, 1, "x", role="priming"), case) is False
    assert casework.judges("names_topic", rec("c1", 0, 1, "x", role="priming"), None) is True
    assert casework.subject_case(rec("c1", 0, 1, "x"), case) == {
        **case, "entry": {"prompt": "Why?", "anchor": "light"}, "record": rec("c1", 0, 1, "x")}
