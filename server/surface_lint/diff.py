"""Run-vs-run comparison of one lane: metric deltas, flipped verdicts, new and vanished cases.

Pure: takes two scored LaneResults (the engine scored both) and says what changed and whether
it is a regression. A metric regresses when it moves the wrong way: down for a metric checked
with `>=` (and for every rate or pass flag without a check), up for one checked with `<=`,
away from the target for one checked with `~=`; counts never regress. A predicate regresses
when it passed on a case before and fails now.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from .engine import LaneResult, UsageError
from .engine.caseindex import KeyedRows
from .engine.results import Rows
from .engine.spool import Spool
from .engine.views import CaseView, PredicateFailure, fmt_value, iter_outcome_views, numeric
from .findings import Severity
from .lanes import Lane

EPSILON = 1e-12  # metrics are rounded to 4 places; this only absorbs float noise
_LOOKUPS = 512  # new-run cases looked up in the old run at once


@dataclass(frozen=True, slots=True)
class MetricDelta:
    name: str
    old: Any
    new: Any
    better: str | None  # "higher" | "lower" | "target"; None for a count (never regresses)
    target: float | None
    regressed: bool
    improved: bool

    @property
    def delta(self) -> float | None:
        old, new = numeric(self.old), numeric(self.new)
        if old is None or new is None or isinstance(self.old, bool) or isinstance(self.new, bool):
            return None
        return round(new - old, 4)

    @property
    def change(self) -> str:
        """The delta as reports print it: `+0.0667`, `-2` for counts, empty when not numeric."""
        d = self.delta
        if d is None:
            return ""
        if isinstance(self.old, int) and isinstance(self.new, int):
            return f"{int(d):+d}"
        return f"{d:+.4f}"

    def describe(self) -> str:
        change = f" ({self.change})" if self.change else ""
        return f"{self.name}: {fmt_value(self.old)} -> {fmt_value(self.new)}{change}"


def metric_direction(lane: Lane, name: str, threshold_set: str | None) -> tuple[str | None, float | None]:
    """Which way is better for a metric: from its check in the threshold set in force, else
    its `better` in the lane file (higher by default); None for counts and unknown metrics."""
    spec = lane.metric(name)
    if spec is None or spec.kind == "count":
        return None, None
    if threshold_set is not None and threshold_set in lane.thresholds:
        for check in lane.thresholds[threshold_set].checks:
            if check.metric == spec.name:
                if check.op == "<=":
                    return "lower", None
                if check.op == "~=":
                    return "target", check.value
                return "higher", None
    return spec.better, None


def canonical_metrics(lane: Lane, metrics: Mapping[str, Any]) -> dict[str, Any]:
    """Metric names resolved through the lane's aliases (runner names -> ours)."""
    out: dict[str, Any] = {}
    for key, value in metrics.items():
        spec = lane.metric(key)
        out.setdefault(spec.name if spec else key, value)
    return out


def compare_metrics(lane: Lane, old: Mapping[str, Any], new: Mapping[str, Any],
                    threshold_set: str | None, tolerance: float = 0.0) -> list[MetricDelta]:
    old_c, new_c = canonical_metrics(lane, old), canonical_metrics(lane, new)
    out = []
    for name in sorted(set(old_c) | set(new_c)):
        a, b = old_c.get(name), new_c.get(name)
        better, target = metric_direction(lane, name, threshold_set)
        x, y = numeric(a), numeric(b)
        regressed = improved = False
        if better is not None and x is not None:
            if y is None:
                regressed = True  # the metric is gone (an empty run, a lane without it)
            else:
                if better == "higher":
                    worse, gain = x - y, y - x
                elif better == "lower":
                    worse, gain = y - x, x - y
                else:
                    assert target is not None
                    worse = abs(y - target) - abs(x - target)
                    gain = -worse
                regressed = worse > tolerance + EPSILON
                improved = gain > EPSILON
        out.append(MetricDelta(name, a, b, better, target, regressed, improved))
    return out


@dataclass(frozen=True, slots=True)
class PredicateFlip:
    predicate: str
    code: str
    old_passed: bool
    new_passed: bool
    old_message: str
    new_message: str

    @property
    def regressed(self) -> bool:
        return self.old_passed and not self.new_passed


@dataclass(frozen=True, slots=True)
class CaseChange:
    """A case scored in both runs whose verdict on some predicate flipped."""

    case_id: str
    group: str | None
    flips: tuple[PredicateFlip, ...]
    old: CaseView  # as diff keeps the old run: without its findings (no report shows them)
    new: CaseView
    fields: tuple[tuple[str, Any, Any], ...]  # other detail fields that changed (key, old, new)

    @property
    def regressed(self) -> bool:
        return any(f.regressed for f in self.flips)

    @property
    def new_findings(self) -> tuple[Any, ...]:
        return self.new.findings


@dataclass(frozen=True)
class LaneDiff:
    old_label: str
    new_label: str
    old: LaneResult
    new: LaneResult
    metrics: list[MetricDelta]
    changed: Rows[CaseChange]  # these may be kept on disk (engine/spool.py): iterate and count them
    new_cases: Rows[CaseView]
    vanished: Rows[CaseView]
    unchanged: int  # cases in both runs with no flipped verdict

    @property
    def regressed(self) -> bool:
        return any(m.regressed for m in self.metrics) or any(c.regressed for c in self.changed)

    @property
    def regressions(self) -> int:
        return (sum(1 for m in self.metrics if m.regressed)
                + sum(1 for c in self.changed for f in c.flips if f.regressed))


def _message(view: CaseView, predicate: str) -> str:
    for f in view.failures:
        if f.name == predicate:
            return f.message
    return ""


def _changed_fields(old: Mapping[str, Any] | None, new: Mapping[str, Any] | None) -> tuple[tuple[str, Any, Any], ...]:
    a, b = old or {}, new or {}
    return tuple(
        (k, a.get(k), b.get(k)) for k in sorted(set(a) | set(b))
        if k != "surface" and not isinstance(a.get(k), dict) and not isinstance(b.get(k), dict)
        and a.get(k) != b.get(k)
    )


# What diff keeps of an old run's case (the fields it compares or prints; not its findings):
# a head, the verdicts every case is compared on, and a body, read only for a flipped or vanished case.
Verdicts = tuple[tuple[str, ...], tuple[str, ...]]  # (judged, failed) predicate names, in lane order


def _verdicts(view: CaseView) -> Verdicts:
    return view.judged, tuple(f.name for f in view.failures)


def _body(view: CaseView, details: Mapping[str, Any] | None) -> tuple[Any, ...]:
    """The rest as builtins: a failure's severity as its number, of the details what
    `_changed_fields` reads (a dict-valued field as an empty dict: it is skipped either way)."""
    failures = tuple((f.name, f.code, None if f.severity is None else int(f.severity), f.message, f.spans)
                     for f in view.failures)
    fields = {k: {} if isinstance(v, dict) else v for k, v in (details or {}).items() if k != "surface"}
    return view.group, view.surface, failures, fields


def _old_view(case_id: str, verdicts: Verdicts, body: tuple[Any, ...]) -> tuple[CaseView, dict[str, Any]]:
    group, surface, failures, fields = body
    return CaseView(case_id, group, surface, verdicts[0], tuple(
        PredicateFailure(name, code, None if level is None else Severity(level), message, spans)
        for name, code, level, message, spans in failures), ()), fields


def diff_results(old: LaneResult, new: LaneResult, lane: Lane,
                 old_label: str, new_label: str) -> LaneDiff:
    """Two runs of one lane compared. Runs of two lanes (as scored, or as their reports name
    themselves) are refused: their metrics and verdicts do not correspond."""
    old_lane, new_lane = old.declared_lane or old.lane, new.declared_lane or new.lane
    if old.lane != new.lane or old_lane != new_lane:
        raise UsageError(f"{old_label} is a run of {old_lane} but {new_label} one of {new_lane}: "
                         "diff compares two runs of one lane")
    # The old run indexed by case id (on disk past a few thousand cases), the new one streamed by.
    old_rows = KeyedRows()
    for outcome, view in iter_outcome_views(old, lane):
        old_rows.put(view.case_id, _verdicts(view), _body(view, outcome.details))
    codes = {p.name: p.code for p in lane.predicates}
    changed: Spool[CaseChange] = Spool()
    new_cases: Spool[CaseView] = Spool()
    unchanged = 0
    new_views = iter_outcome_views(new, lane)
    while chunk := list(itertools.islice(new_views, _LOOKUPS)):
        kept = old_rows.get_many([view.case_id for _, view in chunk])
        for outcome, view in chunk:
            row = kept.get(view.case_id)
            if row is None:
                new_cases.append(view)
                continue
            verdicts, stored = row
            if verdicts == _verdicts(view):  # the same verdicts: nothing flipped
                unchanged += 1
                continue
            before, before_fields = _old_view(view.case_id, verdicts, old_rows.body(stored))
            flips = []
            for name in view.judged:
                a, b = before.passed(name), view.passed(name)
                if a is not None and b is not None and a != b:
                    flips.append(PredicateFlip(name, codes.get(name, ""), a, b,
                                               _message(before, name), _message(view, name)))
            if flips:
                changed.append(CaseChange(view.case_id, view.group or before.group, tuple(flips), before, view,
                                          _changed_fields(before_fields, outcome.details)))
            else:
                unchanged += 1
    vanished: Spool[CaseView] = Spool()
    for case_id, verdicts, stored in old_rows.unseen():
        vanished.append(_old_view(case_id, verdicts, old_rows.body(stored))[0])
    old_rows.close()
    metrics = compare_metrics(lane, old.metrics, new.metrics, new.threshold_set)
    return LaneDiff(old_label, new_label, old, new, metrics, changed, new_cases, vanished, unchanged)
