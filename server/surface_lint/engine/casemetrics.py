"""The metrics of a case-driven lane, folded one case at a time.

Each `[[casework.metrics]]` entry keeps a running total per category (`by`): counts, sums and
the number of items it saw. A case is added once (`add`), in case-file order, and dropped: what
is kept does not grow with the cases, only with the categories a `by` finds. `finish` then
computes `value` and `thresholds` metrics over the others, in the lane's order, and rounds.
The sums run in case order, as the runners sum them, so every metric equals theirs bit for bit.

A metric expression that fails on an item (a run-time error, the evaluation budget, a value of
the wrong kind) leaves that item out of the metric and is kept in `errors`: once per case and
expression, and not for a case whose own evaluation failed (its SL019/SL020 says why).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from ..model.checks import CHECK_CODES as C
from ..rules.expressions import Budget, EvalFailure, Expr
from .casework import (
    CaseError,
    CaseMetric,
    CaseOutcome,
    Casework,
    CaseworkEvaluator,
    _failure,
    _is_scalar,
    _shown,
    _thresholds,
    category_key,
    category_order,
)

_Item = Mapping[str, Any]


@dataclass(slots=True)
class _Total:
    """One metric's running numbers over some items."""

    items: int = 0  # items the metric's value was read on
    hits: int = 0  # of those, truthy (count, rate)
    total: Any = 0  # the sum of values (sum, mean), in item order
    counts: dict[str, int] = field(default_factory=dict)  # kind `counts`: per field
    first: Any = None  # the category's first value (its order among the categories)
    low: Any = None  # min, max: the least and the greatest number (the first of equals)
    high: Any = None


class CaseMetricsFold:
    """Every casework metric of one lane run, added to case by case."""

    def __init__(self, casework: Casework, functions: Mapping[str, Callable[..., Any]] | None = None) -> None:
        self.casework = casework
        self.functions = functions if functions is not None else CaseworkEvaluator(casework).functions()
        self.specs = [s for s in casework.metrics if s.kind not in ("value", "thresholds")]
        self.totals: dict[str, dict[str, _Total]] = {s.name: {} for s in self.specs}
        self.cases = 0
        self.errors: list[tuple[str | None, CaseError]] = []  # (case id, what failed)
        self._reported: set[tuple[str | None, str]] = set()
        self._case: CaseOutcome | None = None

    # --- one case ----------------------------------------------------------------------

    def add(self, outcome: CaseOutcome) -> None:
        """One judged case: each metric's items of it (the case, or each turn of a view)."""
        self.cases += 1
        self._case = outcome
        base = {**outcome.views, **outcome.values, "case": outcome.case, "runs": outcome.runs}
        for spec in self.specs:
            if spec.per == "case":
                self._item(spec, base)
            else:
                for t in outcome.views.get(spec.per, []):
                    self._item(spec, {**base, "t": t})
        self._case = None

    def _attempt(self, expr: Expr, item: _Item) -> tuple[bool, Any]:
        try:  # each item's metric expressions have a budget of their own
            return True, expr.evaluate(item, self.functions, Budget())
        except EvalFailure as exc:
            self._error(expr, _failure(exc))
            return False, None

    def _error(self, expr: Expr, error: CaseError) -> None:
        case = self._case
        key = (case.case_id if case is not None else None, expr.where + expr.text)
        if key not in self._reported and (case is None or case.error is None):
            self._reported.add(key)
            self.errors.append((key[0], error))

    def _item(self, spec: CaseMetric, item: _Item) -> None:
        if spec.where is not None:
            ok, holds = self._attempt(spec.where, item)
            if not ok or not holds:
                return
        key: Any = None
        if spec.by is not None:
            ok, key = self._attempt(spec.by, item)
            if not ok:
                return
            if not _is_scalar(key):  # a list or an object is no category: the item has none
                self._error(spec.by, CaseError(
                    C.EXPR_ERROR, f"expression `{spec.by.shown()}` ({spec.by.where}) failed: a category "
                    f"must be text, a number, true, false or null, not {_shown(key)}", spec.by.where))
                key = None
        groups = self.totals[spec.name]
        name = category_key(key)
        total = groups.get(name)
        if total is None:
            total = groups[name] = _Total(first=key)
        kind = spec.kind
        if kind == "counts":
            total.items += 1
            for field_name, cond in sorted(spec.fields.items()):
                ok, holds = self._attempt(cond, item)
                if ok and holds:
                    total.counts[field_name] = total.counts.get(field_name, 0) + 1
            return
        if spec.value is None:  # a count of the items
            total.items += 1
            total.hits += 1
            return
        ok, got = self._attempt(spec.value, item)
        if not ok:
            return
        if kind in ("count", "rate"):
            total.items += 1
            if got:
                total.hits += 1
            return
        number = self._number(spec, spec.value, got)  # sum, mean, min, max
        if number is None:
            return
        total.items += 1
        if kind in ("min", "max"):
            if total.low is None or number < total.low:
                total.low = number
            if total.high is None or number > total.high:
                total.high = number
            return
        total.total = total.total + (float(number) if kind == "mean" else number)

    def _number(self, spec: CaseMetric, expr: Expr, got: Any) -> Any:
        """An item's number (a flag counts 1 or 0, as Python sums it; `mean` also reads a number's
        text); a value that is not one is the item's failure, left out of the metric."""
        if isinstance(got, (int, float)):
            return got
        if spec.kind == "mean" and isinstance(got, str):
            try:
                return float(got)
            except ValueError:
                pass
        self._error(expr, CaseError(
            C.EXPR_ERROR, f"expression `{expr.shown()}` ({expr.where}) failed: a `{spec.kind}` "
            f"metric needs a number, not {_shown(got)}", expr.where))
        return None

    # --- the run -----------------------------------------------------------------------

    def finish(self) -> tuple[dict[str, dict[str, Any]], dict[str, Any]]:
        """(the report's sections, each metric unrounded: what thresholds compare)."""
        raw: dict[str, Any] = {}
        sections: dict[str, dict[str, Any]] = {}
        for spec in self.casework.metrics:
            value: Any
            if spec.kind == "thresholds":
                value = _thresholds(spec, raw)
                raw[spec.name] = value
            elif spec.kind == "value":
                assert spec.value is not None
                out = _round(spec, self._attempt(spec.value, {"metrics": raw, **raw})[1])
                raw[spec.name] = out
                value = _rounded(spec, out)
            elif spec.by is not None:
                groups = self.totals[spec.name]
                keys = sorted(groups, key=lambda k: category_order(groups[k].first))
                raw[spec.name] = {k: _round(spec, self._value(spec, groups[k])) for k in keys}
                value = {k: _rounded(spec, raw[spec.name][k]) for k in keys}
            else:
                out = _round(spec, self._value(spec, self.totals[spec.name].get(category_key(None), _Total())))
                raw[spec.name] = out
                value = _rounded(spec, out)
            if not spec.report:  # a helper: thresholds and `value` metrics read it, no output shows it
                continue
            if spec.section == spec.name:  # the metric is a whole report section (`by_class`)
                sections[spec.name] = value if isinstance(value, dict) else {"value": value}
            else:
                sections.setdefault(spec.section, {})[spec.name] = value
        return {name: dict(sorted(values.items())) for name, values in sections.items()}, raw

    @staticmethod
    def _value(spec: CaseMetric, total: _Total) -> Any:
        kind = spec.kind
        if kind == "count":
            return total.hits
        if kind == "sum":
            return total.total
        if kind == "rate":
            return total.hits / total.items if total.items else spec.empty
        if kind == "mean":
            return total.total / total.items if total.items else spec.empty
        if kind in ("min", "max"):
            return (total.low if kind == "min" else total.high) if total.items else spec.empty
        assert kind == "counts"
        return {name: total.counts.get(name, 0) for name in sorted(spec.fields)}


def _rounded(spec: CaseMetric, value: Any) -> Any:
    """The reported value (`digits`)."""
    if spec.digits is not None and isinstance(value, float):
        return round(value, spec.digits)
    return value


def _round(spec: CaseMetric, value: Any) -> Any:
    """The metric itself (`round = N`): what thresholds and `value` metrics read."""
    if spec.rounding is not None and isinstance(value, (int, float)) and not isinstance(value, bool):
        return round(value, spec.rounding)
    return value


__all__ = ["CaseMetricsFold"]
