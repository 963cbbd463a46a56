"""Run-vs-run comparison of one lane: metric deltas, flipped verdicts, new and vanished cases.

Pure: takes two scored LaneResults (the engine scored both) and says what changed and whether
it is a regression. A metric regresses when it moves the wrong way: down for a metric checked
with `>=` or `>` (and for every rate or pass flag without a check), up for one checked with
`<=` or `<`, away from the target for one checked with `~=` or `==`; counts never regress, nor
do a case-driven lane's `mean`, `sum` and `value` metrics without a check (which way is better
is not said: they are reported as changed). A metric that is an object (a case-driven lane's
`by` metric, `counts` with fields, a `thresholds` record) is compared member by member, as
`name.member` (`by_domain.kinship`): a category falls on its own; of a thresholds record only
its `passed` flag gates. A predicate regresses when it passed on a case before and fails now;
in a case-driven lane (`[casework]`) the case's verdict is its `passed` value (a case whose
outcome lists no failed check), compared as the check `passed`, and each predicate a value
names as its `check` (symbolic_logic's SL301-SL303) is judged on every case: a check that
flips is the case's flip (its code and message), its `passed` is then not listed again.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..model.findings import Severity
from ..rules.kinds.core import Verdict
from ..rules.loader import Lane
from . import LaneResult, UsageError
from .caseindex import KeyedRows
from .casework import checked_predicates
from .results import Rows
from .scoring import Outcome, ThresholdResult
from .spool import Spool
from .views import CaseView, PredicateFailure, fmt_value, iter_outcome_views, numeric

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


CASE_VERDICT = "passed"  # a case-driven lane's verdict of a case: its value `passed`
_OP_BETTER = {">=": "higher", ">": "higher", "<=": "lower", "<": "lower", "~=": "target", "==": "target"}
# A case-driven lane's metric kinds and which way is better without a check (None: never regresses).
_CASE_KIND_BETTER: dict[str, str | None] = {
    "rate": "higher", "thresholds": "higher", "count": None, "counts": None, "mean": None, "sum": None, "value": None}


def is_case_driven(lane: Lane) -> bool:
    """A `[casework]` lane (directly or through `extends`): its cases are judged whole."""
    return getattr(lane, "casework", None) is not None


def _case_metric_kinds(lane: Lane) -> dict[str, str]:
    """A case-driven lane's metric kinds by name, as its lane file declares them."""
    casework = getattr(lane, "casework", None)
    return {m.name: m.kind for m in getattr(casework, "metrics", ())}


def _case_metric_checks(lane: Lane, results: Sequence[Sequence[ThresholdResult]]) -> dict[str, tuple[str, float]]:
    """(op, value) of the check on each metric of a case-driven lane: from its `thresholds`
    metrics, else from the threshold results of either run (the first check of a metric wins)."""
    out: dict[str, tuple[str, float]] = {}
    casework = getattr(lane, "casework", None)
    for spec in getattr(casework, "metrics", ()):
        for check in getattr(spec, "checks", ()) or ():
            out.setdefault(check.metric, (check.op, float(check.value)))
    for run in results:
        for t in run:
            out.setdefault(t.check.metric, (t.check.op, float(t.check.value)))
    return out


def _case_direction(kinds: Mapping[str, str], checks: Mapping[str, tuple[str, float]], top: str, name: str,
                    value: Any) -> tuple[str | None, float | None]:
    """Which way is better for member `name` of case-driven metric `top` (`name == top` when
    the metric is not an object): its check, else its kind, else its value's type."""
    kind = kinds.get(top)
    if kind == "thresholds":  # a pass flag, or a record of which only `passed` gates
        return ("higher", None) if name == top or name == f"{top}.passed" else (None, None)
    check = checks.get(top)
    if check is not None:
        better = _OP_BETTER.get(check[0], "higher")
        return better, check[1] if better == "target" else None
    if kind is not None:
        return _CASE_KIND_BETTER.get(kind), None
    if isinstance(value, bool) or isinstance(value, float):  # a metric the lane does not declare
        return "higher", None
    return None, None


def metric_direction(lane: Lane, name: str, threshold_set: str | None) -> tuple[str | None, float | None]:
    """Which way is better for a metric: from its check in the threshold set in force, else
    its `better` in the lane file (higher by default); None for counts and unknown metrics.
    (A case-driven lane's metrics: `_case_direction`.)"""
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


_MAX_DEPTH = 8  # members of members flattened (a deeper object is compared whole)


def flat_metrics(metrics: Mapping[str, Any]) -> dict[str, tuple[str, Any]]:
    """Each metric, an object metric member by member: `name.member` -> (top-level name, value);
    an empty object stays one value (`{}`)."""
    out: dict[str, tuple[str, Any]] = {}

    def walk(top: str, name: str, value: Any, depth: int) -> None:
        if isinstance(value, Mapping) and value and depth < _MAX_DEPTH:
            for key in sorted(value, key=str):
                walk(top, f"{name}.{key}", value[key], depth + 1)
        else:
            out.setdefault(name, (top, value))

    for key, value in metrics.items():
        walk(str(key), str(key), value, 0)
    return out


def compare_metrics(lane: Lane, old: Mapping[str, Any], new: Mapping[str, Any],
                    threshold_set: str | None, tolerance: float = 0.0,
                    results: Sequence[Sequence[ThresholdResult]] = ()) -> list[MetricDelta]:
    """`results`: the threshold results of the runs (a case-driven lane's checks, when its
    lane file does not give them)."""
    case_driven = is_case_driven(lane)
    if case_driven:
        old_f, new_f = flat_metrics(canonical_metrics(lane, old)), flat_metrics(canonical_metrics(lane, new))
        kinds, checks = _case_metric_kinds(lane), _case_metric_checks(lane, results)
    else:
        old_f = {k: (k, v) for k, v in canonical_metrics(lane, old).items()}
        new_f = {k: (k, v) for k, v in canonical_metrics(lane, new).items()}
    out = []
    for name in sorted(set(old_f) | set(new_f)):
        top, a = old_f.get(name) or (new_f[name][0], None)
        b = new_f[name][1] if name in new_f else None
        if case_driven:
            better, target = _case_direction(kinds, checks, top, name, a if a is not None else b)
        else:
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

    @property
    def subject(self) -> str:
        """What flipped, as a sentence names it: `the case` (a case-driven lane's verdict), else the predicate."""
        return "the case" if self.predicate == CASE_VERDICT and not self.code else self.predicate

    @property
    def label(self) -> str:
        """`name (CODE)`; a check without a code (a case-driven lane's `passed`) by its name."""
        return f"{self.predicate} ({self.code})" if self.code else self.predicate


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

    def anchor(self, flip: PredicateFlip) -> Any:
        """The new run's finding a regression is shown at: the flipped predicate's, else (a
        case-driven lane's verdict) the case's first; None when the run gave the case none."""
        found = next((f for f in self.new.findings if f.rule == flip.predicate), None)
        if found is None and flip.subject == "the case":
            found = next(iter(self.new.findings), None)
        return found


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


def case_verdict_view(outcome: Outcome, view: CaseView, checks: Sequence[str] = ()) -> CaseView:
    """A case-driven lane's case as diff compares it: the check `passed` judged on every case
    (failed when the outcome lists a failed check), each of the lane's `checks` (the predicates
    its values name as `check`) judged on every case, and each other failed check the outcome
    names (with its verdict's message, when it gives one)."""
    verdicts = outcome.verdicts or {}
    levels = outcome.levels or {}
    failed = [n for n in outcome.failed if n != CASE_VERDICT]
    if not outcome.signals and not outcome.failed:  # a report's case with no verdict: not judged
        return CaseView(view.case_id, view.group, view.surface, (), (), view.findings)
    failures = []
    if outcome.failed:
        failures.append(PredicateFailure(CASE_VERDICT, "", Severity.WARNING, "", ()))
    for name in failed:
        verdict = verdicts.get(name)
        level = levels.get(name, Severity.WARNING)
        failures.append(PredicateFailure(name, next((f.code for f in view.failures if f.name == name), ""),
                                         level if isinstance(level, Severity) else None,
                                         verdict.message if verdict is not None else "",
                                         tuple(verdict.spans) if verdict is not None else ()))
    judged = (CASE_VERDICT, *dict.fromkeys([*checks, *view.judged, *failed]))
    return CaseView(view.case_id, view.group, view.surface, judged, tuple(failures), view.findings)


def _now_false(old: Mapping[str, Any] | None, new: Mapping[str, Any] | None) -> list[str]:
    """The detail values of a case that were true (or absent) and are false now: in a
    case-driven lane's per-case record, the checks that failed it. A list of records (one per
    turn) is looked into: `turns[2].length_adequate`."""
    a, b = old or {}, new or {}
    out = []
    for key in sorted(b):
        value, before = b[key], a.get(key)
        if key != CASE_VERDICT and value is False and before is not False:
            out.append(key)
        elif isinstance(value, list):
            for i, item in enumerate(value):
                if not isinstance(item, dict):
                    continue
                was = before[i] if isinstance(before, list) and i < len(before) else None
                was = was if isinstance(was, dict) else {}
                out.extend(f"{key}[{i}].{k}" for k in sorted(item) if item[k] is False and was.get(k) is not False)
    return out


def _nested(value: Any) -> bool:
    """A list holding objects (a case-driven lane's per-turn records)."""
    return isinstance(value, list) and any(isinstance(v, dict) for v in value)


def _case_message(view: CaseView, old_fields: Mapping[str, Any] | None, new_fields: Mapping[str, Any] | None) -> str:
    """Why a case-driven lane's case fails now: the failed checks its outcome names (with their
    messages), else the values of its record that turned false."""
    named = [f.message if f.message.startswith(f"{f.name}: ") else f"{f.name}: {f.message}" if f.message else f.name
             for f in view.failures if f.name != CASE_VERDICT]  # a predicate's message starts with its name
    if named:
        return "; ".join(named)
    turned = _now_false(old_fields, new_fields)
    return "now false: " + ", ".join(turned) if turned else ""


def diff_results(old: LaneResult, new: LaneResult, lane: Lane,
                 old_label: str, new_label: str) -> LaneDiff:
    """Two runs of one lane compared. Runs of two lanes (as scored, or as their reports name
    themselves) are refused: their metrics and verdicts do not correspond."""
    old_lane, new_lane = old.declared_lane or old.lane, new.declared_lane or new.lane
    if old.lane != new.lane or old_lane != new_lane:
        raise UsageError(f"{old_label} is a run of {old_lane} but {new_label} one of {new_lane}: "
                         "diff compares two runs of one lane")
    # The old run indexed by case id (on disk past a few thousand cases), the new one streamed by.
    case_driven = is_case_driven(lane)
    checks = checked_predicates(lane.casework)
    old_rows = KeyedRows()
    for outcome, view in iter_outcome_views(old, lane):
        if case_driven:
            view = case_verdict_view(outcome, view, checks)
        old_rows.put(view.case_id, _verdicts(view), _body(view, outcome.details))
    codes = {p.name: p.code for p in lane.predicates}
    changed: Spool[CaseChange] = Spool()
    new_cases: Spool[CaseView] = Spool()
    unchanged = 0
    new_views = iter_outcome_views(new, lane)
    while chunk := list(itertools.islice(new_views, _LOOKUPS)):
        kept = old_rows.get_many([view.case_id for _, view in chunk])
        for outcome, view in chunk:
            if case_driven:
                view = case_verdict_view(outcome, view, checks)
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
                    if case_driven and name == CASE_VERDICT:
                        flips.append(PredicateFlip(  # a message says why the case fails: none for a pass
                            name, "", a, b, "" if a else _case_message(before, None, before_fields),
                            "" if b else _case_message(view, before_fields, outcome.details)))
                        continue
                    flips.append(PredicateFlip(name, codes.get(name, ""), a, b,
                                               _message(before, name), _message(view, name)))
            if case_driven and any(f.predicate != CASE_VERDICT for f in flips):
                # A check that flipped says why the case did: its verdict `passed` is not repeated.
                flips = [f for f in flips if f.predicate != CASE_VERDICT]
            if flips:
                fields = _changed_fields(before_fields, outcome.details)
                if case_driven:  # its `passed` is the verdict flipped above; per-turn records are
                    # named in the verdict's message, value by value, not printed whole
                    fields = tuple(f for f in fields if f[0] != CASE_VERDICT and not _nested(f[1])
                                   and not _nested(f[2]))
                changed.append(CaseChange(view.case_id, view.group or before.group, tuple(flips), before, view,
                                          fields))
            else:
                unchanged += 1
    vanished: Spool[CaseView] = Spool()
    for case_id, verdicts, stored in old_rows.unseen():
        vanished.append(_old_view(case_id, verdicts, old_rows.body(stored))[0])
    old_rows.close()
    metrics = compare_metrics(lane, old.metrics, new.metrics, new.threshold_set,
                              results=(new.thresholds, old.thresholds))
    return LaneDiff(old_label, new_label, old, new, metrics, changed, new_cases, vanished, unchanged)


def report_result(lane: Lane, path: str, report: Mapping[str, Any]) -> LaneResult:
    """A case-driven lane's run read back from a lane report (a `--lane --output-format json`
    output, or the runner's report): its `metrics`, its `thresholds` records, and a case per
    `cases` entry (its id from `case_id`, `id` or the lane's id field). A case's verdict: failed
    when our report's `failed_predicates` lists it (else passed), or, in a runner's report,
    its `passed` flag (a case without one is not judged)."""
    from ..rules.loader import ThresholdCheck
    from ..sources.base import ReadStats

    metrics = report.get("metrics")
    metrics = dict(metrics) if isinstance(metrics, Mapping) else {}
    listed = report.get("failed_predicates")
    failed_by_id = listed if isinstance(listed, Mapping) else None
    keys = ("case_id", "id", lane.schema.id_field)
    # Why each case fails: the report's first finding of each check on it (its message).
    why: dict[tuple[str, str], str] = {}
    found = report.get("findings")
    for f in found if isinstance(found, list) else ():
        if isinstance(f, dict) and isinstance(f.get("record_id"), str) and isinstance(f.get("rule"), str):
            why.setdefault((f["record_id"], f["rule"]), str(f.get("message", "")))
    outcomes: list[Outcome] = []
    entries = report.get("cases")
    for entry in entries if isinstance(entries, list) else ():
        if not isinstance(entry, dict):
            continue
        case_id = next((entry[k] for k in keys if isinstance(entry.get(k), str)), None)
        if case_id is None:
            continue
        if failed_by_id is not None:
            names = failed_by_id.get(case_id)
            failed = tuple(n for n in names if isinstance(n, str)) if isinstance(names, list) else ()
            signals: tuple[bool, ...] = (not failed,)
        elif isinstance(entry.get(CASE_VERDICT), bool):
            signals = (entry[CASE_VERDICT],)
            failed = () if entry[CASE_VERDICT] else (CASE_VERDICT,)
        else:
            signals, failed = (), ()
        verdicts = {n: Verdict(False, message=why[(case_id, n)]) for n in failed if (case_id, n) in why}
        outcomes.append(Outcome(case_id=case_id, signals=signals, details=entry, failed=failed,
                                verdicts=verdicts or None))
    thresholds: list[ThresholdResult] = []
    records = report.get("thresholds")
    for t in records if isinstance(records, list) else ():
        if (isinstance(t, dict) and isinstance(t.get("metric"), str) and isinstance(t.get("op"), str)
                and isinstance(t.get("value"), (int, float)) and not isinstance(t.get("value"), bool)):
            actual = t.get("actual")
            thresholds.append(ThresholdResult(
                ThresholdCheck(t["metric"], t["op"], float(t["value"])),
                float(actual) if isinstance(actual, (int, float)) and not isinstance(actual, bool) else None,
                t.get("passed") is True))
    passed = report.get("passed")
    set_name = report.get("threshold_set")
    headline = report.get("headline")
    return LaneResult(
        lane=lane.name, profile=str(report.get("profile") or "contract"), version=lane.version,
        threshold_set=set_name if isinstance(set_name, str) else None, metrics=metrics, thresholds=thresholds,
        passed=passed if isinstance(passed, bool) else None, outcomes=outcomes, findings=[],
        missing_transcripts=[], unknown_cases=[], remainder=[], stats=ReadStats(), sources=[path],
        headline=headline if isinstance(headline, str) else lane.headline, metric_aliases={},
        case_count=len(outcomes), failing_count=sum(1 for o in outcomes if o.failed),
        declared_lane=lane.name)
