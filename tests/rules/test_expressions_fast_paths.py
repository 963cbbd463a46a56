"""The compiled shapes of stop 27 (rules/expressions.py): a field path read in one closure, a
comparison with a literal (`record.role == 'probe'`, `x not in [None, False]`), `and`/`or` of two
or three operands, a comprehension of one `for`, and `Expr.bind` (a view's `where` on each record):
each gives the value, the failure and the step and cell charges the general code gives. Expected
values are written out: the steps are the expression's nodes (docs/lanes/README.md, "Limits"),
and a wrong-typed field reads as what it is, never a crash."""

from __future__ import annotations

from typing import Any

import pytest

from surface_lint.engine.casework import CaseworkEvaluator
from surface_lint.rules.expressions import Budget, EvalFailure, Expr, Limits
from surface_lint.rules.loader import builtin_rules_dir, load_lane


def spent(text: str, scope: dict[str, Any], limits: Limits | None = None) -> tuple[Any, int, int]:
    """The value, the steps and the cells one evaluation charged."""
    budget = Budget(limits) if limits is not None else Budget()
    value = Expr(text).evaluate(scope, None, budget)
    return value, budget.limits.steps - budget.steps, budget.limits.cells - budget.cells


ROLE = "record.role == 'probe'"  # 4 nodes: the comparison, the field, the name, the constant


@pytest.mark.parametrize(("scope", "value"), [
    ({"record": {"role": "probe"}}, True),
    ({"record": {"role": "premise"}}, False),
    ({"record": {"role": 5}}, False),  # a wrong type: not equal, no failure
    ({"record": {"role": ["probe"]}}, False),
    ({"record": {"role": None}}, False),
    ({"record": {}}, False),  # no such field: null
    ({"record": None}, False),  # null-safe
    ({"record": ["probe"]}, False),  # a list has no fields
    ({"record": "probe"}, False),
    ({}, False),  # no such name: null
])
def test_a_field_compared_with_a_constant(scope: dict[str, Any], value: bool) -> None:
    assert spent(ROLE, scope) == (value, 4, 0)


@pytest.mark.parametrize(("text", "scope", "value"), [
    ("record.chain == 0", {"record": {"chain": False}}, True),  # JSON false equals 0, as Python has it
    ("record.chain == 0", {"record": {"chain": 0.0}}, True),
    ("record.chain == 0", {"record": {"chain": "0"}}, False),
    ("record.chain != 0", {"record": {"chain": "0"}}, True),
    ("record.chain == None", {"record": {}}, True),
    ("record.replay_run != True", {"record": {"replay_run": 1}}, False),  # 1 equals true
    ("record.n > 1", {"record": {"n": "a"}}, False),  # values that do not order: false, not a failure
    ("record.n > 1", {"record": {"n": None}}, False),
    ("record.n >= 1", {"record": {"n": 1}}, True),
    ("'a' in record.s", {"record": {"s": "cat"}}, True),
    ("'a' in record.s", {"record": {"s": 7}}, False),  # `in` a number: false
    ("record.s is None", {"record": {"s": None}}, True),
])
def test_a_comparison_with_a_literal_on_the_right(text: str, scope: dict[str, Any], value: bool) -> None:
    assert spent(text, scope) == (value, 4, 0)


@pytest.mark.parametrize(("x", "value"), [
    (None, False), (False, False), (0, False),  # 0 equals false: in the list
    (True, True), ({"subject": "s"}, True), ([], True), ("", True),
])
def test_not_in_a_list_of_constants_charges_the_list_it_builds(x: Any, value: bool) -> None:
    # 5 nodes (the comparison, the name, the list, its two constants); the list's 2 items are cells
    assert spent("x not in [None, False]", {"x": x}) == (value, 5, 2)


def test_in_a_literal_list_past_the_cell_budget_fails_as_the_list_would() -> None:
    expr = Expr("x in [1, 2, 3]")
    budget = Budget(Limits(cells=5))
    assert expr.evaluate({"x": 2}, None, budget) is True
    with pytest.raises(EvalFailure) as failed:
        expr.evaluate({"x": 2}, None, budget)
    assert (failed.value.budget, failed.value.message) == (
        True, "expression `x in [1, 2, 3]` ran past the evaluation budget: "
              "more than 5 characters and list items built for one case")


def test_a_literal_list_of_more_items_than_a_list_may_hold_is_refused() -> None:
    with pytest.raises(EvalFailure) as failed:
        Expr("x in [1, 2, 3]").evaluate({"x": 2}, None, Budget(Limits(items=2)))
    assert failed.value.message == ("expression `x in [1, 2, 3]` ran past the evaluation budget: "
                                    "a list of 3 items (at most 2)")


@pytest.mark.parametrize(("text", "scope", "value"), [
    ("a.b.c", {"a": {"b": {"c": 3}}}, 3),
    ("a.b.c", {"a": {"b": [1]}}, None),
    ("a.b.c", {"a": {"b": "text"}}, None),
    ("a.b.c", {"a": None}, None),
    ("a.b.c", {}, None),
])
def test_a_field_path_reads_null_past_anything_without_fields(text: str, scope: dict[str, Any], value: Any) -> None:
    # a bare path: 3 nodes (two fields and the name)
    assert spent(text, scope) == (value, 3, 0)


@pytest.mark.parametrize(("text", "scope", "value", "steps"), [
    ("a and b", {"a": 1, "b": 0}, 0, 3),
    ("a and b", {"a": "", "b": 1}, "", 3),  # the operand that stopped it, as it is
    ("a or b", {"a": 0, "b": ""}, "", 3),
    ("a or b", {"a": [1], "b": 2}, [1], 3),
    ("a and b and c", {"a": 1, "b": 0, "c": 2}, 0, 4),
    ("a and b and c", {"a": 1, "b": 2, "c": "x"}, "x", 4),
    ("a or b or c", {"a": 0, "b": None, "c": False}, False, 4),
    ("a and b and c and d", {"a": 1, "b": 2, "c": 3, "d": 4}, 4, 5),  # four: the loop
])
def test_and_or_give_the_operand_that_decides(text: str, scope: dict[str, Any], value: Any, steps: int) -> None:
    assert spent(text, scope) == (value, steps, 0)


PROPOSALS = "count(t.record.p not in [None, False] for t in ts)"


@pytest.mark.parametrize(("ts", "value", "steps", "cells"), [
    # 4 at the start (the call, its name, the generator, its source), 1 per item of the source,
    # 7 per item (the element's nodes), 2 cells per item (the literal list)
    ([{"record": {"p": {"s": 1}}}, {"record": {"p": False}}, {"record": {"p": None}}], 1, 28, 6),
    ([{"record": {"p": 0}}, {"record": {}}, {"record": "x"}], 0, 28, 6),  # wrong types read as null or equal false
    ([], 0, 4, 0),
    (None, 0, 4, 0),  # null iterates as nothing
    ({"a": {"record": {"p": 1}}}, 0, 12, 2),  # a mapping's keys: a string has no fields
])
def test_a_comprehension_of_one_for(ts: Any, value: int, steps: int, cells: int) -> None:
    assert spent(PROPOSALS, {"ts": ts}) == (value, steps, cells)


def test_a_comprehension_over_a_number_fails_as_the_general_loop_does() -> None:
    with pytest.raises(EvalFailure) as failed:
        Expr(PROPOSALS).evaluate({"ts": 5}, None, Budget())
    assert (failed.value.budget, failed.value.message) == (
        False, f"expression `{PROPOSALS}` failed: 'int' object is not iterable")


def test_a_comprehension_s_variable_shadows_the_caller_s_name() -> None:
    assert spent("[x.a for x in xs] + [x]", {"x": 9, "xs": [{"a": 1}, {"a": 2}]})[0] == [1, 2, 9]


WHERE = ("record.role == 'premise' and (record.chain == 0 or (record.chain == None and record.run != 'replay'"
         " and record.replay_run != True))")  # symbolic_logic's `premises` view: 23 nodes


@pytest.mark.parametrize(("record", "value"), [
    ({"role": "premise", "chain": 0}, True),
    ({"role": "premise", "chain": 1}, False),
    ({"role": "premise"}, True),  # no chain, no replay mark: the main run
    ({"role": "premise", "run": "replay"}, False),
    ({"role": "premise", "chain": "0"}, False),  # a wrong-typed chain: in no run
    ({"role": "probe", "chain": 0}, False),  # the leading test is false: False, nothing more read
    ({"role": 3, "chain": 0}, False),
    ({"chain": 0}, False),
])
def test_a_bound_where_gives_what_evaluate_gives_charged_the_same(record: dict[str, Any], value: bool) -> None:
    budget = Budget()
    holds = Expr(WHERE).bind({}, budget)
    assert spent(WHERE, {"record": record}) == (value, 23, 0)
    assert (holds({"record": record}), budget.limits.steps - budget.steps) == (value, 23)
    assert (holds({"record": record}), budget.limits.steps - budget.steps) == (value, 46)  # reused


def test_a_bound_where_past_the_step_budget_fails_at_the_same_record() -> None:
    budget = Budget(Limits(steps=50))
    holds = Expr(WHERE).bind({}, budget)
    assert [holds({"record": {"role": "probe"}}), holds({"record": {"role": "premise", "chain": 0}})] == [False, True]
    with pytest.raises(EvalFailure) as failed:
        holds({"record": {"role": "probe"}})  # the leading test alone would decide: charged all the same
    assert failed.value.message.endswith("ran past the evaluation budget: more than 50 evaluation steps")
    assert failed.value.expr.text == WHERE


def test_a_bound_expression_fails_as_evaluate_does() -> None:
    budget = Budget()
    bound = Expr("len(record.n) > 1").bind({}, budget)
    assert bound({"record": {"n": [1, 2]}}) is True
    with pytest.raises(EvalFailure) as failed:
        bound({"record": {"n": 5}})
    assert failed.value.message == "expression `len(record.n) > 1` failed: object of type 'int' has no len()"
    assert bound({"record": {"n": "abc"}}) is True  # still usable after a failure


def test_symbolic_logic_reads_wrong_typed_capture_fields_as_not_in_a_run() -> None:
    """A capture whose `role` or `chain` has the wrong type is in no view: the case is judged
    on the rest, with the findings that follow (nothing crashes, nothing is guessed)."""
    lane = load_lane(builtin_rules_dir() / "symbolic_logic.toml", "reference")
    assert lane.casework is not None
    judge = CaseworkEvaluator(lane.casework)
    case = {"id": "S9", "premises": ["Actually truth is wisdom."], "probe": "What is truth?",
            "expected_proposals": 1, "min_vault_hits": 1}
    records = [
        {"chain": 0, "role": "premise", "surface": "Noted.", "pack_mutation_proposal": {"subject": "s"}},
        {"chain": "0", "role": "probe", "surface": "Truth.", "vault_hits": 2, "trace_hash": "ab"},  # chain a string
        {"chain": 1, "role": ["premise"], "surface": "Noted.", "pack_mutation_proposal": {"subject": "s"}},
        {"chain": 1, "role": "probe", "surface": "Truth.", "vault_hits": 2, "trace_hash": "ab"},
    ]
    outcome, blames = judge.case_findings(case, records)
    assert {k: outcome.values[k] for k in ("vault_hits", "proposal_count", "replay_proposal_count", "has_replay",
                                           "main_hash", "premise_recall", "replay_determinism",
                                           "proposal_storage", "passed")} == {
        "vault_hits": 0, "proposal_count": 1, "replay_proposal_count": 0, "has_replay": True, "main_hash": None,
        "premise_recall": False, "replay_determinism": False, "proposal_storage": True, "passed": False}
    assert [(b.predicate, b.message) for b in blames] == [
        ("premise_recall", "probe vault_hits 0 < min_vault_hits 1"),
        ("replay_determinism", "replay differs: empty trace_hash; vault_hits 0 != replay 2; "
                               "proposal_count 1 != replay 0"),
    ]
