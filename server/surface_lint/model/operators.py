"""The one list of threshold operators and of metric kinds, and the one compare function, shared
by a lane's `[thresholds.*]` checks and its `kind = "thresholds"` metrics' checks."""

from __future__ import annotations

import math

# op -> (what it means, which way is better for a metric checked with it: higher | lower | target)
OPERATORS: dict[str, tuple[str, str]] = {
    ">=": ("at least the bound", "higher"),
    "<=": ("at most the bound", "lower"),
    ">": ("above the bound", "higher"),
    "<": ("below the bound", "lower"),
    "==": ("equal to the bound (math.isclose: relative 1e-9)", "target"),
    "~=": ("within `tolerance` of the bound (abs(actual - bound) <= tolerance)", "target"),
}
EPSILON = 1e-12  # `~=` forgives this much float noise beyond the tolerance


def compare(actual: float, op: str, bound: float, tolerance: float = 0.0) -> bool:
    """Whether `actual` satisfies `op bound` (an unknown op never does)."""
    if op == ">=":
        return actual >= bound
    if op == "<=":
        return actual <= bound
    if op == ">":
        return actual > bound
    if op == "<":
        return actual < bound
    if op == "==":
        return math.isclose(actual, bound)
    if op == "~=":
        return abs(actual - bound) <= tolerance + EPSILON
    return False


def describe(op: str, bound: float, tolerance: float = 0.0) -> str:
    """`>= 0.9`, `≈ 0.1 ± 0.1`."""
    if op == "~=":
        return f"≈ {bound:g} ± {tolerance:g}"
    return f"{op} {bound:g}"


# Every metric kind, with the sorts of lane that compute it: `metrics` (a classic lane's
# [[metrics]], over the cases' signals) and `casework` (a case-driven lane's [[metrics]], over its
# values). `thresholds_pass` and `thresholds` are one concept (a threshold set's pass flag): a
# classic lane names a [thresholds.*] set, a case-driven lane's metric holds its checks.
METRIC_KINDS: dict[str, tuple[str, tuple[str, ...]]] = {
    "rate": ("share of the counted items that pass", ("metrics", "casework")),
    "count": ("how many items are counted", ("metrics", "casework")),
    "sum": ("sum of a number per item", ("metrics", "casework")),
    "mean": ("mean of a number per item", ("metrics", "casework")),
    "min": ("smallest number per item", ("metrics", "casework")),
    "max": ("largest number per item", ("metrics", "casework")),
    "thresholds_pass": ("whether the lane's default threshold set passes", ("metrics",)),
    "counts": ("a table of counts, one per named condition", ("casework",)),
    "value": ("an expression over earlier metrics", ("casework",)),
    "thresholds": ("checks on earlier metrics (CI's exit code)", ("casework",)),
}


def metric_kinds(table: str) -> tuple[str, ...]:
    """The metric kinds one table takes, in METRIC_KINDS order."""
    return tuple(kind for kind, (_, tables) in METRIC_KINDS.items() if table in tables)
