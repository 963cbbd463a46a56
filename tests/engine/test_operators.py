"""One threshold operator list and one compare function (operators.py), and one threshold
check (scoring.check_thresholds), used by a lane's `[thresholds.*]` sets and by its
`kind = "thresholds"` metrics alike."""

from __future__ import annotations

import pytest

from surface_lint.engine import casescore, casework, scoring
from surface_lint.model.operators import OPERATORS, compare, metric_kinds
from surface_lint.rules import loader as lanes
from surface_lint.rules.casework_schema import CASEWORK_METRIC_KINDS, CASEWORK_THRESHOLD_OPS
from surface_lint.rules.loader import METRIC_KINDS, THRESHOLD_OPS, ThresholdCheck


@pytest.mark.parametrize(
    ("actual", "op", "bound", "tolerance", "expected"),
    [
        (0.9, ">=", 0.9, 0.0, True), (0.89, ">=", 0.9, 0.0, False),
        (0.9, "<=", 0.9, 0.0, True), (0.91, "<=", 0.9, 0.0, False),
        (0.9, ">", 0.9, 0.0, False), (0.91, ">", 0.9, 0.0, True),
        (0.9, "<", 0.9, 0.0, False), (0.89, "<", 0.9, 0.0, True),
        (0.1 + 0.2, "==", 0.3, 0.0, True), (0.3001, "==", 0.3, 0.0, False),
        (0.2, "~=", 0.1, 0.1, True), (0.2001, "~=", 0.1, 0.1, False),
        (1.0, "=>", 1.0, 0.0, False),
    ],
)
def test_compare(actual: float, op: str, bound: float, tolerance: float, expected: bool) -> None:
    assert compare(actual, op, bound, tolerance) is expected


def test_both_threshold_systems_take_the_one_list_and_function() -> None:
    assert THRESHOLD_OPS == CASEWORK_THRESHOLD_OPS == (">=", "<=", ">", "<", "==", "~=") == tuple(OPERATORS)
    assert casework.check_thresholds is scoring.check_thresholds
    assert casescore.threshold_results is scoring.threshold_results
    assert lanes.compare is compare
    assert ThresholdCheck("m", "<", 0.5).passes(0.4) and not ThresholdCheck("m", "<", 0.5).passes(None)
    assert ThresholdCheck("m", ">", 0.5).describe() == "> 0.5"
    assert ThresholdCheck("m", "~=", 0.1, 0.05).describe() == "≈ 0.1 ± 0.05"


def test_every_metric_kind_is_in_one_list() -> None:
    assert METRIC_KINDS == metric_kinds("metrics") == ("rate", "count", "sum", "mean", "min", "max", "thresholds_pass")
    assert CASEWORK_METRIC_KINDS == metric_kinds("casework") == (
        "rate", "count", "sum", "mean", "min", "max", "counts", "value", "thresholds")
