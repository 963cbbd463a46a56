"""engine/views.py `case_status`: a case's status and failed names as its view gives them, without
building the view (what a JSON Lines case line reads)."""

from __future__ import annotations

from surface_lint.engine.scoring import Outcome
from surface_lint.engine.views import case_status, case_view
from surface_lint.model.findings import Finding, Location, Severity

PREDICATES = [("a", "SL1"), ("b", "SL2"), ("c", "SL3")]


def _finding(rule: str, severity: Severity) -> Finding:
    return Finding(Location("t", 1, 1, 1, 2), "SL9", rule, severity, "m")


OUTCOMES = [
    # (outcome, case_status as written by hand)
    (Outcome("p", (True,), judged=("a", "b")), ("pass", [])),
    (Outcome("w", (False,), failed=("c", "a"), levels={"a": Severity.WARNING, "c": None}), ("fail", ["a", "c"])),
    (Outcome("i", (False,), failed=("b",), levels={"b": Severity.INFORMATION}), ("note", ["b"])),
    (Outcome("o", (False,), failed=("b",), levels={"b": None}), ("note", ["b"])),
    (Outcome("u", (False,), failed=("zz",), levels={"zz": Severity.ERROR}), ("pass", [])),  # not reported
    # No levels kept: the worst finding of each predicate decides.
    (Outcome("f", (False,), failed=("a",), findings=(_finding("a", Severity.HINT), _finding("a", Severity.ERROR)),
             levels=None), ("fail", ["a"])),
    (Outcome("h", (False,), failed=("a",), findings=(_finding("a", Severity.HINT),), levels=None), ("note", ["a"])),
]


def test_status_and_failed_names_as_written() -> None:
    for outcome, expected in OUTCOMES:
        assert case_status(outcome, PREDICATES) == expected, outcome.case_id


def test_the_same_as_the_view_says_also_for_a_case_driven_lane() -> None:
    for outcome, _ in OUTCOMES:
        for case_verdict in (False, True):
            view = case_view(outcome, PREDICATES, None, case_verdict)
            assert case_status(outcome, PREDICATES, case_verdict) == (view.status, view.failed_names())
    # A case-driven lane's verdict decides: a passing verdict with a warning is a note, not a failure.
    assert case_status(Outcome("v", (True,), failed=("a",), levels={"a": Severity.ERROR}), PREDICATES, True) == (
        "note", ["a"])
    assert case_status(Outcome("x", (False,)), PREDICATES, True) == ("fail", [])
