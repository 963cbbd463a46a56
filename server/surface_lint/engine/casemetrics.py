"""The metrics of a case-driven lane, folded one case at a time.

Each `[[casework.metrics]]` entry keeps a running total per category (`by`): counts, sums and
the number of items it saw. A case is added once (`add`), in case-file order, and dropped: what
is kept does not grow with the cases, only with the categories a `by` finds. `finish` then
computes `value` and `thresholds` metrics over the others, in the lane's order, and rounds.
The sums run in case order, as the runners sum them, so every metric equals theirs bit for bit.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from ..casework import CaseMetric, CaseOutcome, Casework, CaseworkEvaluator, _thresholds

_Item = Mapping[str, Any]


def category_key(key: Any) -> tuple[int, str, Any]:
    """How a `by` metric's categories are ordered: numbers, then strings, then null; equal kinds
    by value (a case whose category is missing is the `null` category, never a sort error)."""
    if key is None:
        return (2, "", "")
    if isinstance(key, bool):
        return (0, "bool", int(key))
    if isinstance(key, (int, float)):
        return (0, "number", key)
    return (1, type(key).__name__, str(key))


@dataclass(slots=True)
class _Total:
    """One metric's running numbers over some items."""

    items: int = 0
    hits: int = 0  # items whose value is truthy (count, rate)
    total: Any = 0  # the sum of values (sum, mean), in item order
    counts: dict[str, int] = field(default_factory=dict)  # kind `counts`: per field


class CaseMetricsFold:
    """Every casework metric of one lane run, added to case by case."""

    def __init__(self, casework: Casework, functions: Mapping[str, Callable[..., Any]] | None = None) -> None:
        self.casework = casework
        self.functions = functions if functions is not None else CaseworkEvaluator(casework).functions()
        self.specs = [s for s in casework.metrics if s.kind not in ("value", "thresholds")]
        self.totals: dict[str, dict[Any, _Total]] = {s.name: {} for s in self.specs}
        self.cases = 0

    def add(self, outcome: CaseOutcome) -> None:
        """One judged case: each metric's items of it (the case, or each turn of a view)."""
        self.cases += 1
        base = {**outcome.views, **outcome.values, "case": outcome.case, "runs": outcome.runs}
        fns = self.functions
        for spec in self.specs:
            if spec.per == "case":
                self._item(spec, base, fns)
            else:
                for t in outcome.views.get(spec.per, []):
                    self._item(spec, {**base, "t": t}, fns)

    def _item(self, spec: CaseMetric, item: _Item, fns: Mapping[str, Callable[..., Any]]) -> None:
        if spec.where is not None and not spec.where.evaluate(item, fns):
            return
        key = spec.by.evaluate(item, fns) if spec.by is not None else None
        groups = self.totals[spec.name]
        total = groups.get(key)
        if total is None:
            total = groups[key] = _Total()
        total.items += 1
        kind = spec.kind
        if kind == "count":
            if spec.value is None or spec.value.evaluate(item, fns):
                total.hits += 1
        elif kind == "rate":
            assert spec.value is not None
            if spec.value.evaluate(item, fns):
                total.hits += 1
        elif kind == "sum":
            assert spec.value is not None
            total.total = total.total + spec.value.evaluate(item, fns)
        elif kind == "mean":
            assert spec.value is not None
            total.total = total.total + float(spec.value.evaluate(item, fns))
        elif kind == "counts":
            for name, cond in sorted(spec.fields.items()):
                total.counts[name] = total.counts.get(name, 0) + (1 if cond.evaluate(item, fns) else 0)

    def finish(self) -> tuple[dict[str, dict[str, Any]], dict[str, Any]]:
        """(the report's sections, each metric unrounded: what thresholds compare)."""
        raw: dict[str, Any] = {}
        sections: dict[str, dict[str, Any]] = {}
        fns = self.functions
        for spec in self.casework.metrics:
            value: Any
            if spec.kind == "thresholds":
                value = _thresholds(spec, raw)
                raw[spec.name] = value
            elif spec.kind == "value":
                assert spec.value is not None
                out = spec.value.evaluate({"metrics": raw, **raw}, fns)
                raw[spec.name] = out
                value = _rounded(spec, out)
            elif spec.by is not None:
                groups = self.totals[spec.name]
                keys = sorted(groups, key=category_key)
                raw[spec.name] = {k: self._value(spec, groups[k]) for k in keys}
                value = {k: _rounded(spec, raw[spec.name][k]) for k in keys}
            else:
                out = self._value(spec, self.totals[spec.name].get(None, _Total()))
                raw[spec.name] = out
                value = _rounded(spec, out)
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
        assert kind == "counts"
        return {name: total.counts.get(name, 0) for name in sorted(spec.fields)}


def _rounded(spec: CaseMetric, value: Any) -> Any:
    if spec.digits is not None and isinstance(value, float):
        return round(value, spec.digits)
    return value


__all__ = ["CaseMetricsFold", "category_key"]
