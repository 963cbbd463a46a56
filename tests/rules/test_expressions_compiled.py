"""The compiled expression evaluator: steps charged per evaluation and per comprehension item,
pattern results reused within a case, and a case recorded from its first evaluation judged as
when it is evaluated again to record (rules/expressions.py, engine/casework.py RECORD_FIRST)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from surface_lint.engine.casework import CaseworkEvaluator
from surface_lint.rules.expressions import Budget, EvalFailure, Expr, Limits
from surface_lint.rules.loader import builtin_rules_dir, load_lane


def spent(text: str, scope: dict[str, object]) -> tuple[object, int]:
    budget = Budget()
    value = Expr(text).evaluate(scope, None, budget)
    return value, budget.limits.steps - budget.steps


@pytest.mark.parametrize(("text", "scope", "value", "steps"), [
    ("a", {"a": 1}, 1, 1),
    ("a and b", {"a": 0, "b": 1}, 0, 3),  # the operand not evaluated is charged too
    ("b if a else c.d", {"a": True, "b": 2}, 2, 5),
    ("[x for x in xs]", {"xs": [1, 2, 3]}, [1, 2, 3], 8),  # 2 at the start, 3 items read, 1 per item
    ("[x for x in xs if x > 1]", {"xs": [1, 2, 3]}, [2, 3], 17),  # + the condition's 3 nodes per item
    ("len(xs)", {"xs": [1, 2, 3]}, 3, 6),  # 3 nodes (the call, its name, xs), 3 items the function reads
])
def test_steps_are_charged_per_evaluation_and_per_item(text: str, scope: dict[str, object], value: object,
                                                       steps: int) -> None:
    assert spent(text, scope) == (value, steps)


def test_the_step_limit_stops_a_comprehension_at_the_same_place_every_run() -> None:
    expr = Expr("sum(1 for a in xs for b in xs)")
    for _ in range(2):
        with pytest.raises(EvalFailure) as failed:
            expr.evaluate({"xs": list(range(40))}, None, Budget(Limits(steps=1000)))
        assert failed.value.message == ("expression `sum(1 for a in xs for b in xs)` ran past the evaluation "
                                        "budget: more than 1,000 evaluation steps")


def test_a_pattern_result_is_reused_within_a_case_as_a_copy() -> None:
    budget = Budget()
    expr = Expr("findall('[a-z]+', t)")
    first = expr.evaluate({"t": "ab cd"}, None, budget)
    second = expr.evaluate({"t": "ab cd"}, None, budget)
    assert (first, second, first is second) == (["ab", "cd"], ["ab", "cd"], False)
    assert list(budget.matches) == [("findall", "[a-z]+", "ab cd")]


def test_a_name_bound_by_a_comprehension_shadows_the_callers() -> None:
    assert spent("[x for x in xs] + [x]", {"x": 9, "xs": [1, 2]})[0] == [1, 2, 9]


def _dev_split(corpus: Path) -> tuple[list[dict[str, object]], dict[str, list[dict[str, object]]]]:
    folder = corpus / "lanes" / "compositionality"
    cases = [json.loads(x) for x in (folder / "cases" / "dev" / "cases.jsonl").read_text(encoding="utf-8").splitlines()]
    captures: dict[str, list[dict[str, object]]] = {}
    for line in (folder / "captures" / "dev.jsonl").read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        captures.setdefault(str(record.get("case_id")), []).append(record)
    return cases, captures


def test_recording_from_the_first_evaluation_judges_every_case_the_same(corpus: Path) -> None:
    lane = load_lane(builtin_rules_dir() / "compositionality.toml", "reference")
    assert lane.casework is not None
    cases, captures = _dev_split(corpus)
    plain_first = CaseworkEvaluator(lane.casework)
    record_first = CaseworkEvaluator(lane.casework)
    record_first._failed = record_first._judged = 1_000_000  # "most cases failed so far"
    failing = 0
    for case in cases:
        records = captures[str(case["id"])]
        plain_first._failed = plain_first._judged = 0  # never recorded first
        a_outcome, a_blames = plain_first.case_findings(case, records)
        b_outcome, b_blames = record_first.case_findings(case, records)
        assert (b_outcome.passed, b_outcome.values, b_outcome.details) == (a_outcome.passed, a_outcome.values,
                                                                           a_outcome.details)
        assert [(x.value, x.predicate, x.message, x.code) for x in b_blames] == [
            (x.value, x.predicate, x.message, x.code) for x in a_blames]
        if not a_outcome.passed:
            failing += 1
            assert a_blames  # a failing case is explained
    assert (len(cases), failing) == (3, 2)
