"""What several reporters share: paths as CI tools want them, rule metadata, per-case views.

Nothing here computes a verdict: it regroups what the engine returned.
"""

from __future__ import annotations

import io
import os
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from itertools import pairwise
from pathlib import Path, PurePath
from typing import TYPE_CHECKING, Any, TextIO

from ..checks import CASE_LEVEL, CHECKS
from ..engine import LaneResult
from ..findings import Finding, Severity
from ..scoring import Outcome

if TYPE_CHECKING:
    from ..engine import Engine
    from ..lanes import Lane

Span = tuple[int, int]

# Detail fields that name a case's group, in order of preference (fluency/multi: category;
# symbolic: pattern).
GROUP_FIELDS = ("category", "pattern")


_DISPLAY: dict[tuple[str, str], str] = {}  # (path, working directory) -> display path: findings repeat paths


def display_path(path: str) -> str:
    """A path as CI systems want it: relative to the working directory when inside it, '/'-separated."""
    try:
        key = (path, os.getcwd())
    except OSError:  # the working directory is gone: nothing to remember it by
        return _display_path(path)
    found = _DISPLAY.get(key)
    if found is None:
        found = _display_path(path)
        if len(_DISPLAY) < 1024:
            _DISPLAY[key] = found
    return found


def _display_path(path: str) -> str:
    p = Path(path)
    if p.is_absolute():
        try:
            return p.relative_to(Path.cwd()).as_posix()
        except ValueError:
            return p.as_posix()
    return PurePath(path).as_posix()


def where(f: Finding) -> str:
    """`path:line:column` of a finding's start, the path as `display_path` gives it."""
    return f"{display_path(f.path)}:{f.location.line}:{f.location.column}"


def by_severity(findings: Iterable[Finding]) -> list[Finding]:
    """Most severe first; within a severity, the usual path/position order."""
    return sorted(findings, key=lambda f: (-int(f.severity), *f.sort_key()))


def fmt_value(value: object) -> str:
    """A metric value as every report prints it: rates to 4 places, booleans lower-case."""
    if value is None:
        return "-"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return f"{value:.4f}"
    return str(value)


def severity_counts(findings: Iterable[Finding]) -> str:
    """`2 error, 1 warning` (severities in name order), or `no findings`."""
    counts: dict[str, int] = {}
    for f in findings:
        counts[f.severity.label] = counts.get(f.severity.label, 0) + 1
    return ", ".join(f"{n} {s}" for s, n in sorted(counts.items())) or "no findings"


def numeric(value: object) -> float | None:
    """A metric value as a number (booleans count as 0/1), or None."""
    if isinstance(value, bool):
        return 1.0 if value else 0.0
    if isinstance(value, (int, float)):
        return float(value)
    return None


# --- rules -------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class RuleInfo:
    """One code's documentation, from the lane TOML or checks.py (the single sources)."""

    code: str
    name: str
    summary: str
    what: str
    why: str
    help_uri: str
    default_severity: str
    lane: str | None


def rule_index(engine: Engine) -> dict[str, RuleInfo]:
    """Every predicate and check by code (lanes in name order; the first lane using a code wins)."""
    from ..checks import CHECKS
    from ..docs import check_url, rule_url

    out: dict[str, RuleInfo] = {}
    for lane_name in sorted(engine.lane_set.lanes):
        lane = engine.lane_set.lanes[lane_name]
        for spec in lane.predicates:
            out.setdefault(spec.code, RuleInfo(
                spec.code, spec.name, spec.summary, spec.what, spec.why, rule_url(spec, lane),
                spec.default_severity, lane.name))
    for check in CHECKS.values():
        out.setdefault(check.code, RuleInfo(
            check.code, check.name, check.summary, check.what, check.why, check_url(check.code),
            check.severity, None))
    return out


# --- metrics -----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class MetricRow:
    name: str
    value: Any
    headline: bool
    threshold: str | None  # "≥ 0.9"-style description of the check, when one applies
    target: float | None  # the check's value (for plots)
    op: str | None
    tolerance: float
    passed: bool | None  # None: no threshold on this metric


def metric_rows(result: LaneResult) -> list[MetricRow]:
    checks = {t.check.metric: t for t in result.thresholds}
    rows = []
    for name, value in result.metrics.items():
        t = checks.get(name)
        rows.append(MetricRow(
            name=name, value=value, headline=name == result.headline,
            threshold=t.check.describe() if t else None,
            target=t.check.value if t else None, op=t.check.op if t else None,
            tolerance=t.check.tolerance if t else 0.0, passed=t.passed if t else None))
    return rows


def verdict_word(passed: bool | None) -> str:
    return "PASS" if passed else ("no thresholds checked" if passed is None else "FAIL")


# --- cases -------------------------------------------------------------------------------


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


def case_view(outcome: Outcome, predicates: Sequence[tuple[str, str]],
              passing: dict[tuple[str, ...], tuple[str, ...]] | None = None, case_verdict: bool = False) -> CaseView:
    """`passing`: judged names by the outcome's judged tuple for these `predicates`, kept across
    the cases of one report (a passing case's view needs nothing else). `case_verdict`: the lane
    is case-driven, and the outcome's one signal is its verdict on the case."""
    case_ok = bool(outcome.signals[0]) if case_verdict and outcome.signals else None
    details: Mapping[str, Any] = outcome.details or {}
    group = None
    for k in GROUP_FIELDS:
        value = details.get(k)
        if isinstance(value, str) and value:
            group = str(value)
            break
    surface = details.get("surface")
    if not isinstance(surface, str):
        surface = None
    if not outcome.failed:
        had = outcome.judged
        judged_names = passing.get(had) if passing is not None else None
        if judged_names is None:
            judged_names = tuple(name for name, _ in predicates if name in had)
            if passing is not None and len(passing) < 4096:
                passing[had] = judged_names
        return CaseView(outcome.case_id, group, surface, judged_names, (), tuple(outcome.findings), case_ok)
    verdicts = outcome.verdicts or {}
    severity: dict[str, Severity] = {}
    if outcome.levels is not None:  # known whether or not its findings were kept
        severity = {name: level for name, level in outcome.levels.items() if level is not None}
    else:
        for f in outcome.findings:
            if f.rule not in severity or f.severity > severity[f.rule]:
                severity[f.rule] = f.severity
    judged: list[str] = []
    failures: list[PredicateFailure] = []
    failed = set(outcome.failed)
    had_verdict = set(outcome.judged)
    for name, code in predicates:
        verdict = verdicts.get(name)
        if name not in had_verdict and name not in failed:
            continue
        judged.append(name)
        if name in failed:
            failures.append(PredicateFailure(
                name, code, severity.get(name), verdict.message if verdict else "",
                tuple(verdict.spans) if verdict else ()))
    return CaseView(outcome.case_id, group, surface, tuple(judged), tuple(failures), tuple(outcome.findings), case_ok)


def case_views(result: LaneResult, lane: Lane | None) -> list[CaseView]:
    """Every case view in memory: for `diff`, which joins two runs by case id."""
    return list(iter_case_views(result, lane))


def highlight_segments(surface: str, failures: Sequence[PredicateFailure]) -> list[tuple[str, tuple[str, ...]]]:
    """The surface cut where the set of failing predicates covering a character changes.

    Each segment is (text, names of the predicates whose spans cover it); overlapping spans merge.
    """
    bounds = {0, len(surface)}
    for f in failures:
        for start, end in f.spans:
            bounds.update((max(0, min(start, len(surface))), max(0, min(end, len(surface)))))
    cuts = sorted(bounds)
    out: list[tuple[str, tuple[str, ...]]] = []
    for a, b in pairwise(cuts):
        if a == b:
            continue
        names = tuple(f.name for f in failures if any(s <= a and b <= e for s, e in f.spans))
        if out and out[-1][1] == names:
            out[-1] = (out[-1][0] + surface[a:b], names)
        else:
            out.append((surface[a:b], names))
    return out


# --- streaming output --------------------------------------------------------------------

SHOW_PER_PREDICATE = 20  # reports people read list this many failing cases per predicate
LIST_LIMIT = 500  # rows of a long list (matrix, findings, ids) shown in reports people read


class SafeOut:
    """Writes text to a stream that may not encode everything (a lone surrogate from half an
    emoji, a non-UTF-8 terminal): what it cannot encode is written as a backslash escape,
    which in JSON output is the same character's JSON escape."""

    __slots__ = ("_write", "encoding")

    def __init__(self, out: TextIO) -> None:
        self._write = out.write
        self.encoding = getattr(out, "encoding", None) or "utf-8"

    def write(self, text: str) -> None:
        try:
            self._write(text)
        except UnicodeEncodeError:
            self._write(text.encode(self.encoding, "backslashreplace").decode(self.encoding))


def capture(write: Callable[[TextIO], None]) -> str:
    """What a streaming writer writes, as one string (tests, small outputs)."""
    buffer = io.StringIO()
    write(buffer)
    return buffer.getvalue()


def iter_case_views(result: LaneResult, lane: Lane | None) -> Iterator[CaseView]:
    """`case_views` as a stream (the outcomes may be on disk)."""
    for _, view in iter_outcome_views(result, lane):
        yield view


def iter_outcome_views(result: LaneResult, lane: Lane | None) -> Iterator[tuple[Outcome, CaseView]]:
    """Each outcome with its case view, the outcomes read once."""
    predicates = reported_predicates(lane, result.outcomes if lane is None else ())
    passing: dict[tuple[str, ...], tuple[str, ...]] = {}
    for outcome in result.outcomes:
        yield outcome, case_view(outcome, predicates, passing, lane is not None and lane.casework is not None)


class PerPredicateQuota:
    """The first `limit` failing cases of each predicate: a case is shown while one of its failed
    predicates has shown fewer; the rest are counted per predicate."""

    def __init__(self, limit: int = SHOW_PER_PREDICATE) -> None:
        self.limit = limit
        self.shown: dict[str, int] = {}
        self.hidden: dict[str, int] = {}

    def admit(self, names: Sequence[str]) -> bool:
        keep = any(self.shown.get(n, 0) < self.limit for n in names)
        for n in names:
            if keep:
                self.shown[n] = self.shown.get(n, 0) + 1
            else:
                self.hidden[n] = self.hidden.get(n, 0) + 1
        return keep

    def notes(self) -> list[tuple[str, int]]:
        """(predicate, failing cases not shown), in name order."""
        return sorted((n, c) for n, c in self.hidden.items() if c)
