"""The one fold: every lane's metrics, from its items added one at a time.

Every `[[metrics]]` entry of every lane compiles to a `FoldMetric`: `where` (which items
count), `value` (what each item gives), `by` (its category), `fields` (kind `counts`), all
expressions of the one expression language, and which sum the metric reports (`exact`). The
fold keeps a running total per metric and category (items, truthy values, a `sums.Sum` of the
numbers, counts per field, the least and greatest number) and computes the metrics from them
(`finish`): what is kept does not grow with the items, only with the categories a `by` finds.

* A case-driven lane adds each judged case (`add_case`), in case-file order: an item is the
  case, or each turn of a view (`per`), scoped over the case's values, views, `case` and
  `runs`. Its sums are in order (`Sum.in_order`), as the runners sum them, so every metric
  equals theirs bit for bit.
* A classic lane's signals (`passing`, `over`: predicate verdicts and case flags) compile to the
  same form, over a scope `s` of the signal values: `over = ["a", "!b"]` is the `where`
  `s["a"] and not s["b"]`, a rate's `passing` its `value`; a value metric's `value` is the
  `Sum` of its case numbers. Its items are the entries of its tally (one per distinct signal
  tuple, weighted by how many cases have it: `add_group`), so its sums are exact
  (`Sum.exact`), the same however the cases are grouped or merged across `--jobs` workers;
  its metrics are rounded to `round` (else 4 digits) and a `by` metric also reports each
  category as `NAME.CATEGORY` beside the whole.

A metric expression that fails on an item (a run-time error, the evaluation budget, a value of
the wrong kind) leaves that item out of the metric and is kept in `errors`: once per case and
expression, and not for a case whose own evaluation failed (its SL019/SL020 says why).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..model.checks import CHECK_CODES as C
from ..rules.expressions import Budget, EvalFailure, Expr
from ..rules.loader import Lane, MetricSpec
from .casework import (
    CaseError,
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
from .scoring import lane_signals, threshold_results
from .sums import Sum

_Item = Mapping[str, Any]

CLASSIC_DIGITS = 4  # a classic metric without `round`: the runners' 4 digits


@dataclass(frozen=True, slots=True)
class FoldMetric:
    """One metric as the fold reads it (compiled from a `MetricSpec`)."""

    spec: MetricSpec
    where: Expr | None  # which items count (None: every item)
    value: Expr | None  # each item's value (None: the item counts); a classic value metric's is a Sum
    by: Expr | None  # each item's category (None: one whole)
    exact: bool  # which sum it reports: the exact one (classic), else the in-order one (case-driven)
    rounding: int | None  # the metric itself is rounded (what thresholds and `value` metrics read)
    empty: Any  # the metric over no item
    flat: bool  # a `by` metric reports the whole and `NAME.CATEGORY`s (classic), else one table

    @property
    def name(self) -> str:
        return self.spec.name

    @property
    def kind(self) -> str:
        return self.spec.kind


def casework_metrics(casework: Casework) -> tuple[FoldMetric, ...]:
    """A case-driven lane's metrics: its expressions as they are; in-order sums."""
    return tuple(
        FoldMetric(spec, spec.where, spec.value, spec.by, exact=False, rounding=spec.rounding,
                   empty=0 if spec.kind == "sum" else spec.empty, flat=False)
        for spec in casework.metrics)


def _condition(signals: Sequence[str]) -> str:
    """`passing`/`over` signals (`name`, `!name`) as an expression over the scope `s`."""
    return " and ".join(f"{'not ' if s.startswith('!') else ''}s[{json.dumps(s.lstrip('!'))}]" for s in signals)


_NOTHING = Sum()  # a classic value metric's value on an item whose signals do not pass: no number


def classic_metrics(lane: Lane) -> tuple[FoldMetric, ...]:
    """A classic lane's metrics, its signals compiled to `where` and `value` expressions over `s`."""
    out: list[FoldMetric] = []
    for spec in lane.metrics:
        where = Expr(_condition(spec.over)) if spec.over else None
        value: Expr | None = None
        passing = _condition(spec.passing)
        if spec.kind == "rate":
            value = Expr(passing or "True")
        elif spec.kind in ("mean", "sum", "min", "max"):
            slot = f"s[{json.dumps('=' + (spec.value_path or ''))}]"
            value = Expr(f"{slot} if {passing} else nothing" if passing else slot)
        by = Expr(f"s[{json.dumps('#' + spec.by_path)}]") if spec.by_path else None
        rounding = spec.rounding if spec.rounding is not None else CLASSIC_DIGITS
        out.append(FoldMetric(spec, where, value, by, exact=True, rounding=rounding, empty=spec.empty, flat=True))
    return tuple(out)


@dataclass(slots=True)
class _Total:
    """One metric's running numbers over some items."""

    items: int = 0  # items the metric's value was read on (a classic group: its cases)
    hits: int = 0  # of those, truthy (count, rate)
    sum: Sum = field(default_factory=Sum)  # the numbers (sum, mean, min, max)
    counts: dict[str, int] = field(default_factory=dict)  # kind `counts`: per field
    first: Any = None  # the category's first value (its order among the categories)


class MetricsFold:
    """Every metric of one lane run, added to item by item."""

    def __init__(self, metrics: Sequence[FoldMetric], functions: Mapping[str, Callable[..., Any]] | None = None,
                 lane: Lane | None = None) -> None:
        self.metrics = tuple(metrics)
        self.lane = lane  # a classic lane: its `thresholds_pass` metrics read its default threshold set
        self.functions = functions
        self.folded = [m for m in self.metrics if m.kind not in ("value", "thresholds", "thresholds_pass")]
        self.totals: dict[str, dict[Any, _Total]] = {m.name: {} for m in self.folded}
        self.wholes: dict[str, _Total] = {m.name: _Total() for m in self.folded if m.by is None or m.flat}
        self.cases = 0
        self.errors: list[tuple[str | None, CaseError]] = []  # (case id, what failed)
        self._reported: set[tuple[str | None, str]] = set()
        self._case: CaseOutcome | None = None
        self._budget = Budget()  # reset for each evaluation (`_attempt`): a budget of its own

    @classmethod
    def for_casework(cls, casework: Casework, functions: Mapping[str, Callable[..., Any]] | None = None) -> MetricsFold:
        return cls(casework_metrics(casework),
                   functions if functions is not None else CaseworkEvaluator(casework).functions())

    @classmethod
    def for_classic(cls, lane: Lane) -> MetricsFold:
        return cls(classic_metrics(lane), lane=lane)

    # --- items -------------------------------------------------------------------------

    def add_case(self, outcome: CaseOutcome) -> None:
        """One judged case: each metric's items of it (the case, or each turn of a view)."""
        self.cases += 1
        self._case = outcome
        base = {**outcome.views, **outcome.values, "case": outcome.case, "runs": outcome.runs}
        for metric in self.folded:
            per = metric.spec.per
            if per == "case":
                self._item(metric, base, 1)
            else:
                for t in outcome.views.get(per, []):
                    self._item(metric, {**base, "t": t}, 1)
        self._case = None

    def add_group(self, signals: Mapping[str, Any], weight: int) -> None:
        """`weight` cases with these signal values (a classic value slot's value: their numbers' Sum)."""
        self.cases += weight
        item = {"s": signals, "nothing": _NOTHING}
        for metric in self.folded:
            self._item(metric, item, weight)

    def _attempt(self, expr: Expr, item: _Item) -> tuple[bool, Any]:
        try:  # each item's metric expressions have a budget of their own
            return True, expr.evaluate(item, self.functions, self._budget.reset())
        except EvalFailure as exc:
            self._error(expr, _failure(exc))
            return False, None

    def _error(self, expr: Expr, error: CaseError) -> None:
        case = self._case
        key = (case.case_id if case is not None else None, expr.where + expr.text)
        if key not in self._reported and (case is None or case.error is None):
            self._reported.add(key)
            self.errors.append((key[0], error))

    def _item(self, metric: FoldMetric, item: _Item, weight: int) -> None:
        if metric.where is not None:
            ok, holds = self._attempt(metric.where, item)
            if not ok or not holds:
                return
        total = self.wholes.get(metric.name)
        if metric.by is not None:
            ok, key = self._attempt(metric.by, item)
            if not ok:
                return
            if not _is_scalar(key):  # a list or an object is no category: the item has none
                by = metric.by
                self._error(by, CaseError(
                    C.EXPR_ERROR, f"expression `{by.shown()}` ({by.where}) failed: a category "
                    f"must be text, a number, true, false or null, not {_shown(key)}", by.where))
                key = None
            groups = self.totals[metric.name]
            name = key if metric.flat else category_key(key)  # flat: the slot's text (None: no category)
            group = groups.get(name)
            if group is None:
                group = groups[name] = _Total(first=key)
            self._count(metric, item, weight, group)
        if total is not None:
            self._count(metric, item, weight, total)

    def _count(self, metric: FoldMetric, item: _Item, weight: int, total: _Total) -> None:
        kind = metric.kind
        if kind == "counts":
            total.items += weight
            for field_name, cond in sorted(metric.spec.fields.items()):
                ok, holds = self._attempt(cond, item)
                if ok and holds:
                    total.counts[field_name] = total.counts.get(field_name, 0) + weight
            return
        if metric.value is None:  # a count of the items
            total.items += weight
            total.hits += weight
            return
        ok, got = self._attempt(metric.value, item)
        if not ok:
            return
        if kind in ("count", "rate"):
            total.items += weight
            if got:
                total.hits += weight
            return
        if isinstance(got, Sum):  # a classic group's numbers, summed already
            total.items += got.count
            total.sum.merge(got)
            return
        number = self._number(metric, metric.value, got)  # sum, mean, min, max
        if number is None:
            return
        total.items += 1
        if kind in ("min", "max"):
            total.sum.bound(number)
        else:
            total.sum.add(float(number) if kind == "mean" else number)

    def _number(self, metric: FoldMetric, expr: Expr, got: Any) -> Any:
        """An item's number (a flag counts 1 or 0, as Python sums it; `mean` also reads a number's
        text); a value that is not one is the item's failure, left out of the metric."""
        if isinstance(got, (int, float)):
            return got
        if metric.kind == "mean" and isinstance(got, str):
            try:
                return float(got)
            except ValueError:
                pass
        self._error(expr, CaseError(
            C.EXPR_ERROR, f"expression `{expr.shown()}` ({expr.where}) failed: a `{metric.kind}` "
            f"metric needs a number, not {_shown(got)}", expr.where))
        return None

    # --- the run -----------------------------------------------------------------------

    def finish(self) -> dict[str, Any]:
        """Every metric in the lane's order (rounded to `round`: what thresholds compare); a flat
        `by` metric's categories follow it as `NAME.CATEGORY`, a table's are one dict."""
        raw: dict[str, Any] = {}
        passes: list[FoldMetric] = []
        for metric in self.metrics:
            spec = metric.spec
            kind = metric.kind
            if kind == "thresholds_pass":  # once every other metric is known
                passes.append(metric)
            elif kind == "thresholds":
                raw[metric.name] = _thresholds(spec, raw)
            elif kind == "value":
                assert spec.value is not None
                raw[metric.name] = _round(metric, self._attempt(spec.value, {"metrics": raw, **raw})[1])
            elif metric.flat:
                raw[metric.name] = _round(metric, self._value(metric, self.wholes[metric.name]))
                groups = self.totals[metric.name]
                for name in sorted(k for k in groups if k is not None):
                    raw[f"{metric.name}.{name}"] = _round(metric, self._value(metric, groups[name]))
            elif metric.by is not None:
                groups = self.totals[metric.name]
                keys = sorted(groups, key=lambda k: category_order(groups[k].first))
                raw[metric.name] = {k: _round(metric, self._value(metric, groups[k])) for k in keys}
            else:
                raw[metric.name] = _round(metric, self._value(metric, self.wholes[metric.name]))
        for metric in passes:
            assert self.lane is not None
            results = threshold_results(self.lane, raw, self.lane.default_thresholds)
            raw[metric.name] = all(r.passed for r in results) if results else None
        return raw

    def sections(self, raw: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
        """A case-driven lane's report sections of `finish`'s metrics: each metric rounded to its
        `digits`, in `metrics` or a section of its own; helpers (`report = false`) in none."""
        sections: dict[str, dict[str, Any]] = {}
        for metric in self.metrics:
            spec = metric.spec
            if not spec.report:  # a helper: thresholds and `value` metrics read it, no output shows it
                continue
            value = raw[metric.name]
            if metric.kind != "thresholds":
                value = ({k: _rounded(spec, v) for k, v in value.items()} if isinstance(value, dict)
                         and metric.by is not None else _rounded(spec, value))
            if spec.section == spec.name:  # the metric is a whole report section (`by_class`)
                sections[spec.name] = value if isinstance(value, dict) else {"value": value}
            else:
                sections.setdefault(spec.section, {})[spec.name] = value
        return {name: dict(sorted(values.items())) for name, values in sections.items()}

    @staticmethod
    def _value(metric: FoldMetric, total: _Total) -> Any:
        kind = metric.kind
        if kind == "count":
            return total.hits
        if kind == "rate":
            return total.hits / total.items if total.items else metric.empty
        if kind == "counts":
            return {name: total.counts.get(name, 0) for name in sorted(metric.spec.fields)}
        if not total.items:
            return metric.empty
        numbers = total.sum
        if kind in ("min", "max"):
            return numbers.low if kind == "min" else numbers.high
        whole = numbers.exact() if metric.exact else numbers.in_order()
        return whole / total.items if kind == "mean" else whole


def metrics_from_tally(lane: Lane, tally: Mapping[tuple[Any, ...], int],
                       values: Mapping[tuple[Any, ...], tuple[Sum, ...]] | None = None) -> dict[str, Any]:
    """A classic lane's metrics (empty lane -> {}) from its tally: a count of cases per distinct
    signal tuple, each tuple one weighted item of the fold. A value slot in the tuple only says
    a case has a number (True); the numbers are `values`' Sums (SlotValues.add_sums)."""
    if not tally or not sum(tally.values()):
        return {}
    names = lane_signals(lane)
    slots = [i for i, n in enumerate(names) if n[0] == "="]
    fold = MetricsFold.for_classic(lane)
    for signals, weight in tally.items():
        scope = dict(zip(names, signals, strict=True))
        if slots:
            sums = (values or {}).get(signals)
            for j, i in enumerate(slots):
                scope[names[i]] = sums[j] if sums is not None and signals[i] is not None else _NOTHING
        fold.add_group(scope, weight)
    return dict(sorted(fold.finish().items()))


def _rounded(spec: MetricSpec, value: Any) -> Any:
    """The reported value (`digits`)."""
    if spec.digits is not None and isinstance(value, float):
        return round(value, spec.digits)
    return value


def _round(metric: FoldMetric, value: Any) -> Any:
    """The metric itself (`round = N`): what thresholds and `value` metrics read."""
    if metric.rounding is not None and isinstance(value, (int, float)) and not isinstance(value, bool):
        return round(value, metric.rounding)
    return value


__all__ = ["FoldMetric", "MetricsFold", "casework_metrics", "classic_metrics", "metrics_from_tally"]
