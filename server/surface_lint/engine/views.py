"""Scored cases as every report and the editor show them: which predicates were judged and
which failed (a `CaseView`), and a metric value's one printed form (`fmt_value`).

In the engine, below the reporters: `diff` and `review` join runs by these views, and every
reporter prints them (reporters/common.py re-exports them).
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..model.checks import CASE_LEVEL, CHECKS
from ..model.findings import Finding, Severity
from .results import LaneResult
from .scoring import Outcome

if TYPE_CHECKING:
    from ..rules.loader import Lane

Span = tuple[int, int]


# Detail fields that name a case's group, in order of preference (fluency/multi: category;
# symbolic: pattern).
GROUP_FIELDS = ("category", "pattern")


def fmt_value(value: object) -> str:
    """A metric value as every report prints it: rates to 4 places, booleans lower-case."""
    if value is None:
        return "-"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return f"{value:.4f}"
    return str(value)


def numeric(value: object) -> float | None:
    """A metric value as a number (booleans count as 0/1), or None."""
    if isinstance(value, bool):
        return 1.0 if value else 0.0
    if isinstance(value, (int, float)):
        return float(value)
    return None


@dataclass(frozen=True, slots=True)
class PredicateFailure:
    name: str
    code: str
    severity: Severity | None  # of its finding; None: failed but reported nothing (severity off)
    message: str
    spans: tuple[Span, ...]  # offsets into the decoded surface

    @property
    def severity_label(self) -> str:
        """`error`, `warning`, ...; `off` when the predicate failed but reports nothing."""
        return self.severity.label if self.severity is not None else "off"

    @property
    def blocking(self) -> bool:
        """At warning or above: what makes a case fail (check's --fail-on default)."""
        return self.severity is not None and self.severity >= Severity.WARNING


@dataclass(frozen=True, slots=True)
class CaseView:
    """One scored case as a report shows it: which predicates were judged and which failed."""

    case_id: str
    group: str | None
    surface: str | None
    judged: tuple[str, ...]  # reported predicates with a verdict, in lane order
    failures: tuple[PredicateFailure, ...]
    findings: tuple[Finding, ...]
    # A case-driven lane's own verdict on the case (its `passed`): it decides, whatever the
    # severity of the findings that say why. None for a lane whose predicates decide.
    verdict: bool | None = None

    @property
    def worst(self) -> Severity | None:
        levels = [f.severity for f in self.failures if f.severity is not None]
        return max(levels) if levels else None

    @property
    def failing(self) -> bool:
        """Fails when a predicate it is held to fails at warning or above (check's --fail-on default),
        or when a case-driven lane's verdict on it is false."""
        if self.verdict is not None:
            return not self.verdict
        return any(f.blocking for f in self.failures)

    @property
    def deciding(self) -> tuple[PredicateFailure, ...]:
        """The failures that make the case fail: a case-driven lane's case fails on each reason it
        gives; else the predicates failing at warning or above."""
        if self.verdict is not None:
            return () if self.verdict else self.failures
        return tuple(f for f in self.failures if f.blocking)

    @property
    def status(self) -> str:
        if self.failing:
            return "fail"
        return "note" if self.failures else "pass"

    def failed_names(self) -> list[str]:
        return [f.name for f in self.failures]

    def passed(self, predicate: str) -> bool | None:
        """True/False for a judged predicate, None when it was not judged."""
        if predicate not in self.judged:
            return None
        return predicate not in self.failed_names()


def reported_predicates(lane: Lane | None, outcomes: Iterable[Outcome] = ()) -> list[tuple[str, str]]:
    """(name, code) of the lane's reported predicates in lane order; without a lane, those seen failing."""
    if lane is not None:
        out = [(p.name, p.code) for p in lane.predicates if p.report]
        if lane.casework is not None:  # a case-driven lane's case fails on these too (checks.CASE_LEVEL)
            out += [(CHECKS[code].name, code) for code in CASE_LEVEL]
        return out
    seen: dict[str, str] = {}
    for o in outcomes:
        for name in o.failed:
            seen.setdefault(name, "")
    return sorted(seen.items())


def case_group(details: Mapping[str, Any]) -> str | None:
    """A case view's `group`: the first of GROUP_FIELDS its details name as a non-empty string."""
    for k in GROUP_FIELDS:
        value = details.get(k)
        if isinstance(value, str) and value:
            return str(value)
    return None


def case_surface(details: Mapping[str, Any]) -> str | None:
    """A case view's `surface`: its details' `surface` when a string."""
    surface = details.get("surface")
    return surface if isinstance(surface, str) else None


def case_view(outcome: Outcome, predicates: Sequence[tuple[str, str]],
              memo: dict[tuple[Any, ...], Any] | None = None, case_verdict: bool = False) -> CaseView:
    """`memo`: what a view takes from `predicates` by the outcome's judged and failed names (the
    names judged in lane order, the failed ones with their codes), and its failures by their
    values, kept across the cases of one report: the cases of a run repeat a few such sets. `case_verdict`: the lane is case-driven,
    and the outcome's one signal is its verdict on the case."""
    case_ok = bool(outcome.signals[0]) if case_verdict and outcome.signals else None
    details: Mapping[str, Any] = outcome.details or {}
    group = case_group(details)
    surface = case_surface(details)
    key = (outcome.judged, outcome.failed)
    known = memo.get(key) if memo is not None else None
    if known is None:
        failed = set(outcome.failed)
        had_verdict = set(outcome.judged)
        known = (tuple(name for name, _ in predicates if name in had_verdict or name in failed),
                 tuple((name, code) for name, code in predicates if name in failed))
        if memo is not None and len(memo) < 4096:
            memo[key] = known
    judged, failing = known
    if not failing:
        return _new_view(outcome.case_id, group, surface, judged, (), tuple(outcome.findings), case_ok)
    verdicts = outcome.verdicts or {}
    # Each failed predicate's severity (None or absent: it reports nothing).
    severity = outcome.levels if outcome.levels is not None else _severities(outcome)
    found = [(severity.get(name), verdict.message, tuple(verdict.spans)) if (verdict := verdicts.get(name)) is not None
             else (severity.get(name), "", ()) for name, _ in failing]
    # The failures as a view holds them, by their values: one tuple for the cases that share them
    # (a writer may remember what it made of them by its identity, as reporters/junit.py does).
    by_values: tuple[Any, ...] = (None, failing, *found)
    try:
        failures = memo.get(by_values) if memo is not None else None
    except TypeError:  # a span not a pair of numbers (not hashable): not remembered
        failures = memo = None
    if failures is None:
        failures = tuple([_new_failure(name, code, level, message, spans)
                          for (name, code), (level, message, spans) in zip(failing, found, strict=True)])
        if memo is not None and len(memo) < 4096:
            memo[by_values] = failures
    return _new_view(outcome.case_id, group, surface, judged, failures, tuple(outcome.findings), case_ok)


# A report views every case: its views are built slot by slot (as model/findings.py new_finding),
# not by the frozen dataclasses' `__init__`, which costs about twice as much.
_new = object.__new__
_SET_VIEW = tuple(CaseView.__dict__[name].__set__ for name in CaseView.__slots__)
_SET_FAILURE = tuple(PredicateFailure.__dict__[name].__set__ for name in PredicateFailure.__slots__)


def _new_view(case_id: str, group: str | None, surface: str | None, judged: tuple[str, ...],
              failures: tuple[PredicateFailure, ...], findings: tuple[Finding, ...], verdict: bool | None) -> CaseView:
    """`CaseView(case_id, group, surface, judged, failures, findings, verdict)`."""
    view = _new(CaseView)
    s_id, s_group, s_surface, s_judged, s_failures, s_findings, s_verdict = _SET_VIEW
    s_id(view, case_id)
    s_group(view, group)
    s_surface(view, surface)
    s_judged(view, judged)
    s_failures(view, failures)
    s_findings(view, findings)
    s_verdict(view, verdict)
    return view


def _new_failure(name: str, code: str, severity: Severity | None, message: str,
                 spans: tuple[Span, ...]) -> PredicateFailure:
    """`PredicateFailure(name, code, severity, message, spans)`."""
    failure = _new(PredicateFailure)
    s_name, s_code, s_severity, s_message, s_spans = _SET_FAILURE
    s_name(failure, name)
    s_code(failure, code)
    s_severity(failure, severity)
    s_message(failure, message)
    s_spans(failure, spans)
    return failure


def _severities(outcome: Outcome) -> dict[str, Severity]:
    """Each failed predicate's severity (none for one that reports nothing)."""
    if outcome.levels is not None:  # known whether or not its findings were kept
        return {name: level for name, level in outcome.levels.items() if level is not None}
    severity: dict[str, Severity] = {}
    for f in outcome.findings:
        if f.rule not in severity or f.severity > severity[f.rule]:
            severity[f.rule] = f.severity
    return severity


_PASSING: tuple[str, tuple[str, ...], tuple[str, ...]] = ("pass", (), ())


def case_standing(outcome: Outcome, predicates: Sequence[tuple[str, str]],
                  memo: dict[tuple[str, ...], tuple[str, ...]] | None = None) -> tuple[str, tuple[str, ...], tuple[str, ...]]:
    """`case_view(outcome, predicates)`'s `status`, its failures' names and its deciding failures'
    names, without the view, for a lane whose predicates decide (not a case-driven lane's verdict):
    what a report counts of every case, most of which it does not show. `memo`: the failed names
    in lane order by the outcome's failed tuple, kept across the cases of one report (4,096 sets,
    cleared when full)."""
    if not outcome.failed:
        return _PASSING
    return standing(outcome.failed, _severities(outcome), predicates, memo)


def standing(failed: tuple[str, ...], severity: Mapping[str, Severity | None], predicates: Sequence[tuple[str, str]],
             memo: dict[tuple[str, ...], tuple[str, ...]] | None = None) -> tuple[str, tuple[str, ...], tuple[str, ...]]:
    """`case_standing` of a case by its failed names and their severities (None or absent: the
    predicate reports nothing): also what the engine counts of a case it keeps no row for."""
    if not failed:
        return _PASSING
    names = memo.get(failed) if memo is not None else None
    if names is None:
        failed_set = set(failed)
        names = tuple([name for name, _ in predicates if name in failed_set])
        if memo is not None:
            if len(memo) >= 4096:
                memo.clear()
            memo[failed] = names
    if not names:
        return _PASSING
    deciding = tuple([name for name in names if (level := severity.get(name)) is not None and level >= Severity.WARNING])
    return ("fail" if deciding else "note"), names, deciding


def case_status(outcome: Outcome, predicates: Sequence[tuple[str, str]],
                case_verdict: bool = False, memo: dict[tuple[str, ...], tuple[str, ...]] | None = None) -> tuple[str, list[str]]:
    """`case_view(outcome, predicates, case_verdict=case_verdict)`'s `status` and `failed_names()`,
    without the view (a JSON Lines case line needs only these); `memo` as `case_standing`'s."""
    if case_verdict:
        view = case_view(outcome, predicates, None, True)
        return view.status, view.failed_names()
    status, names, _ = case_standing(outcome, predicates, memo)
    return status, list(names)


def case_views(result: LaneResult, lane: Lane | None) -> list[CaseView]:
    """Every case view in memory: for `diff`, which joins two runs by case id."""
    return list(iter_case_views(result, lane))


def iter_case_views(result: LaneResult, lane: Lane | None) -> Iterator[CaseView]:
    """`case_views` as a stream (the outcomes may be on disk)."""
    for _, view in iter_outcome_views(result, lane):
        yield view


def iter_outcome_views(result: LaneResult, lane: Lane | None) -> Iterator[tuple[Outcome, CaseView]]:
    """Each outcome with its case view, the outcomes read once."""
    predicates = reported_predicates(lane, result.outcomes if lane is None else ())
    memo: dict[tuple[Any, ...], Any] = {}
    for outcome in result.outcomes:
        yield outcome, case_view(outcome, predicates, memo, lane is not None and lane.casework is not None)


# --- what a lane report shows of its cases ---------------------------------------------------

SHOW_PER_PREDICATE = 20  # reports people read list this many failing cases per predicate
LIST_LIMIT = 500  # rows of a long list (matrix, findings, ids) shown in reports people read


class PerPredicateQuota:
    """The first `limit` failing cases of each predicate: a case is shown while one of its failed
    predicates has shown fewer; the rest are counted per predicate."""

    def __init__(self, limit: int = SHOW_PER_PREDICATE) -> None:
        self.limit = limit
        self.shown: dict[str, int] = {}
        self.hidden: dict[str, int] = {}

    def admit(self, names: Sequence[str]) -> bool:
        # Asked for every failing case of a run: plain loops, no generator.
        shown, limit = self.shown, self.limit
        counts = self.hidden
        keep = False
        for n in names:
            if shown.get(n, 0) < limit:
                counts, keep = shown, True
                break
        for n in names:
            counts[n] = counts.get(n, 0) + 1
        return keep

    def notes(self) -> list[tuple[str, int]]:
        """(predicate, failing cases not shown), in name order."""
        return sorted((n, c) for n, c in self.hidden.items() if c)


class ShownCases:
    """What a lane report counts of every case, in case order, and which cases it shows (their
    outcomes kept, each with its place among the cases), for a lane whose predicates decide (not
    a case-driven lane) with every failure shown (no --select/--ignore). Filled either by the
    report's writer from `result.outcomes` (`see`), or by the engine as it scores (`Engine.score`'s
    `shown`: the engine then makes a row only for the cases `count` shows, and `result.shown` is
    this object): one policy for both. A subclass says what its report counts (`count`)."""

    def __init__(self, predicates: Sequence[tuple[str, str]]) -> None:
        self.predicates = predicates  # reported_predicates(lane)
        self.cases = 0
        self.shown: list[tuple[int, Outcome]] = []  # (place among the cases, outcome), in case order
        self._names: dict[tuple[str, ...], tuple[str, ...]] = {}  # standing's memo (bounded there)

    def standing(self, failed: tuple[str, ...], severity: Mapping[str, Severity | None]) -> tuple[
            str, tuple[str, ...], tuple[str, ...]]:
        """`standing` of a case by its failed names and their severities."""
        return standing(failed, severity, self.predicates, self._names)

    def count(self, status: str, names: tuple[str, ...], deciding: tuple[str, ...], group: str | None,
              surface: bool, keys: Collection[str]) -> bool:
        """Count the next case: its `standing`, its view's group, whether its view has a surface,
        its details' keys. Whether the report shows it (then `keep` its outcome)."""
        raise NotImplementedError

    def keep(self, place: int, outcome: Outcome) -> None:
        self.shown.append((place, outcome))

    def see(self, outcome: Outcome) -> None:
        """Count the next case from its outcome, keeping it when shown."""
        status, names, deciding = case_standing(outcome, self.predicates, self._names)
        details: Mapping[str, Any] = outcome.details or {}
        place = self.cases
        if self.count(status, names, deciding, case_group(details), case_surface(details) is not None, details):
            self.keep(place, outcome)


class MarkdownCases(ShownCases):
    """The Markdown lane report's: the failing and the notes-only cases counted, whether a failing
    case has a surface, the failing cases the quota admits by their deciding failures."""

    def __init__(self, predicates: Sequence[tuple[str, str]]) -> None:
        super().__init__(predicates)
        self.failing = 0
        self.notes = 0
        self.surfaces = False
        self.quota = PerPredicateQuota()

    def count(self, status: str, names: tuple[str, ...], deciding: tuple[str, ...], group: str | None,
              surface: bool, keys: Collection[str]) -> bool:
        self.cases += 1
        if status == "fail":
            self.failing += 1
            self.surfaces = self.surfaces or surface
            return self.quota.admit(deciding)
        if status == "note":
            self.notes += 1
        return False


class HtmlCases(ShownCases):
    """The HTML lane report's: the failing cases and those with a failure counted, whether one of
    those has a surface, the first LIST_LIMIT groups, whether the first case's details name a
    `pattern`; shown: the first LIST_LIMIT cases (the matrix) and the cases with a failure the
    quota admits by their failures (`articles`, by place)."""

    def __init__(self, predicates: Sequence[tuple[str, str]]) -> None:
        super().__init__(predicates)
        self.failing = 0
        self.with_failures = 0
        self.surfaces = False
        self.groups: set[str] = set()
        self.pattern = False
        self.quota = PerPredicateQuota()
        self.articles: set[int] = set()  # bounded by the quota

    def count(self, status: str, names: tuple[str, ...], deciding: tuple[str, ...], group: str | None,
              surface: bool, keys: Collection[str]) -> bool:
        place = self.cases
        self.cases += 1
        if not place:
            self.pattern = "pattern" in keys
        self.failing += status == "fail"
        if names:  # failing implies a failure here (no case verdict, no --select/--ignore)
            self.with_failures += 1
            self.surfaces = self.surfaces or surface
        if group and len(self.groups) < LIST_LIMIT:
            self.groups.add(group)
        article = bool(names) and self.quota.admit(names)
        if article:
            self.articles.add(place)
        return article or place < LIST_LIMIT
