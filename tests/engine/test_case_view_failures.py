"""engine/views.py `case_view`: a failing view's failures remembered by their values across one
report's cases (`memo`): cases failing alike share one tuple, cases that differ in a message, a
span or a severity do not. Expected failures written by hand."""

from __future__ import annotations

from typing import Any

from surface_lint.engine.scoring import Outcome
from surface_lint.engine.views import PredicateFailure, case_view
from surface_lint.model.findings import Severity
from surface_lint.rules.kinds.core import Verdict

PREDICATES = [("a", "SL1"), ("b", "SL2")]


def _outcome(case_id: str, message: str, spans: Any, level: Severity | None) -> Outcome:
    return Outcome(case_id, (False,), failed=("b", "a"), judged=("a", "b"),
                   verdicts={"a": Verdict(False, spans, message), "b": Verdict(False, (), "no b")},
                   levels={"a": level, "b": Severity.WARNING})


def test_alike_cases_share_one_failures_tuple() -> None:
    memo: dict[tuple[Any, ...], Any] = {}
    first = case_view(_outcome("c1", "bad a", ((1, 2),), Severity.ERROR), PREDICATES, memo)
    second = case_view(_outcome("c2", "bad a", ((1, 2),), Severity.ERROR), PREDICATES, memo)
    assert first.failures == (PredicateFailure("a", "SL1", Severity.ERROR, "bad a", ((1, 2),)),
                              PredicateFailure("b", "SL2", Severity.WARNING, "no b", ()))
    assert second.failures is first.failures
    assert (first.case_id, second.case_id) == ("c1", "c2")
    others = [case_view(_outcome("m", "other a", ((1, 2),), Severity.ERROR), PREDICATES, memo),
              case_view(_outcome("s", "bad a", ((1, 3),), Severity.ERROR), PREDICATES, memo),
              case_view(_outcome("l", "bad a", ((1, 2),), None), PREDICATES, memo)]
    assert [v.failures[0] for v in others] == [
        PredicateFailure("a", "SL1", Severity.ERROR, "other a", ((1, 2),)),
        PredicateFailure("a", "SL1", Severity.ERROR, "bad a", ((1, 3),)),
        PredicateFailure("a", "SL1", None, "bad a", ((1, 2),))]
    assert all(v.failures is not first.failures for v in others)


def test_spans_not_hashable_are_not_remembered() -> None:
    memo: dict[tuple[Any, ...], Any] = {}
    view = case_view(_outcome("c", "bad a", [[1, 2]], Severity.ERROR), PREDICATES, memo)
    assert view.failures[0] == PredicateFailure("a", "SL1", Severity.ERROR, "bad a", ([1, 2],))
    assert not any(key[0] is None for key in memo)
