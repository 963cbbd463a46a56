"""What several reporters share: paths as CI tools want them, rule metadata, per-case views.

Nothing here computes a verdict: it regroups what the engine returned.
"""

from __future__ import annotations

import io
import os
import re
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from itertools import pairwise
from pathlib import Path, PurePath
from typing import TYPE_CHECKING, Any, TextIO

from ..engine import LaneResult
from ..engine.config import Selection
from ..engine.results import Rows
from ..engine.views import GROUP_FIELDS as GROUP_FIELDS
from ..engine.views import LIST_LIMIT as LIST_LIMIT
from ..engine.views import SHOW_PER_PREDICATE as SHOW_PER_PREDICATE
from ..engine.views import CaseView as CaseView
from ..engine.views import HtmlCases as HtmlCases
from ..engine.views import MarkdownCases as MarkdownCases
from ..engine.views import PerPredicateQuota as PerPredicateQuota
from ..engine.views import PredicateFailure as PredicateFailure
from ..engine.views import Span as Span
from ..engine.views import case_group as case_group
from ..engine.views import case_standing as case_standing
from ..engine.views import case_status as case_status
from ..engine.views import case_surface as case_surface
from ..engine.views import case_view as case_view
from ..engine.views import case_views as case_views
from ..engine.views import fmt_value as fmt_value
from ..engine.views import iter_case_views as iter_case_views
from ..engine.views import iter_outcome_views as iter_outcome_views
from ..engine.views import numeric as numeric
from ..engine.views import reported_predicates as reported_predicates
from ..model.findings import Finding, Severity
from ..rules.loader import Lane

if TYPE_CHECKING:
    from ..engine import Engine


_DISPLAY: dict[tuple[str, str], str] = {}  # (path, working directory) -> display path: findings repeat paths


# --- data shown as text ---------------------------------------------------------------------

# What data (a case id, a surface, a file name) must not carry raw into anything a terminal, a
# browser or GitHub renders: C0 and C1 controls (ESC starts a terminal sequence, U+0085 ends a
# line), DEL, the line and paragraph separators (a line of output ended early starts a forged one:
# `::error ...` read by GitHub as a command) and the bidirectional overrides and isolates
# (U+202A-U+202E, U+2066-U+2069: text shown in another order than it is, "Trojan Source").
_ESCAPED = (*range(0x20), *range(0x7F, 0xA0), 0x2028, 0x2029, *range(0x202A, 0x202F), *range(0x2066, 0x206A))
_ESCAPES = {c: f"\\x{c:02x}" if c < 0x100 else f"\\u{c:04x}" for c in _ESCAPED}
_ESCAPES.update({ord("\n"): "\\n", ord("\r"): "\\r", ord("\t"): "\\t"})
# Per `keep`: the escapes, and a search for any character they change (most text has none, and
# a regex search is many times faster than `str.translate` with a dict).
_KEEPING: dict[str, tuple[dict[int, str], Callable[[str], object]]] = {}


def printable(text: str, keep: str = "") -> str:
    """`text` with each such character as a backslash escape (`\\n`, `\\x1b`, `\\u202e`), but
    those in `keep`, which the format itself encodes or shows as what they are (a line end in a
    GitHub annotation is `%0A`, in HTML a line break)."""
    known = _KEEPING.get(keep)
    if known is None:
        table = {c: e for c, e in _ESCAPES.items() if chr(c) not in keep}
        known = _KEEPING[keep] = (table, re.compile("[" + printable_class(keep) + "]").search)
    table, search = known
    return text.translate(table) if search(text) is not None else text


def printable_class(keep: str = "") -> str:
    """The characters `printable(text, keep)` escapes, as the inside of a regex character set (a
    format whose own escaping leaves most text alone too tests for these and its own at once)."""
    return "".join(re.escape(chr(c)) for c in _ESCAPES if chr(c) not in keep)


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


def severity_counts(findings: Iterable[Finding]) -> str:
    """`2 error, 1 warning` (severities in name order), or `no findings`."""
    counts: dict[str, int] = {}
    for f in findings:
        counts[f.severity.label] = counts.get(f.severity.label, 0) + 1
    return ", ".join(f"{n} {s}" for s, n in sorted(counts.items())) or "no findings"


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
    from ..model.checks import CHECKS
    from .docs import check_url, rule_url

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


# RenderOptions.lanes: (engine.lanechoice.LaneChoice, the files it was chosen for) per lane of a run.
LaneChoices = Sequence[tuple[Any, Sequence[str]]]


def lane_notes(lanes: LaneChoices, total_files: int = 0) -> list[str]:
    """Each lane of a run and how it was chosen, one line each (`lanes` from RenderOptions):
    `lane grammatical_coverage, chosen by the path: the folder grammatical_coverage in the path`;
    with `total_files` and several lanes, how many files each was chosen for."""
    notes = []
    for choice, files in lanes:
        count = f" for {len(files)} of {total_files} file(s)" if len(lanes) > 1 and total_files else ""
        notes.append(f"lane {choice.lane}{count}, chosen by {choice.by}: {choice.how}")
    return notes


def run_note(lanes: LaneChoices, profile: str, total_files: int = 0) -> str:
    """One line naming the run's lane(s), how each was chosen, and the profile."""
    return "; ".join([*lane_notes(lanes, total_files), f"profile {profile}"])


def lane_records(lanes: LaneChoices) -> list[dict[str, Any]]:
    """The same as data (JSON, SARIF, JSON Lines): lane, chosen_by, how, files."""
    return [{"lane": c.lane, "chosen_by": c.by, "how": c.how, **({"files": list(fs)} if fs else {})}
            for c, fs in lanes]


@dataclass(frozen=True, slots=True)
class SeverityBasis:
    """What a predicate's severity is before a case changes it, and the case fields that can:
    `level` the rules table's (after the config's `[severity]`), `expected` the case field whose
    predicates are errors, `informational` the one whose predicates are information."""

    level: str
    expected: str | None
    informational: str | None


def severity_bases(engine: Engine) -> dict[str, SeverityBasis]:
    """Per predicate code (the first lane using a code wins, as in `rule_index`)."""
    out: dict[str, SeverityBasis] = {}
    for lane_name in sorted(engine.lane_set.lanes):
        lane = engine.lane_set.lanes[lane_name]
        for spec in lane.predicates:
            level = engine.severity_levels.get(spec.name, spec.default_severity)
            out.setdefault(spec.code, SeverityBasis(level, lane.expected_field, lane.informational_field))
    return out


def severity_reason(f: Finding, bases: Mapping[str, SeverityBasis]) -> str | None:
    """Why `f` is not at its rules table's severity (a case's expectation raised it), else None."""
    basis = bases.get(f.code)
    if basis is None or basis.level == "off":
        return None
    if f.severity is Severity.parse(basis.level):
        return None
    if f.severity is Severity.ERROR and basis.expected:
        why = f"the case's `{basis.expected}` names it"
    elif f.severity is Severity.INFORMATION and basis.informational:
        why = f"the case's `{basis.informational}` names it"
    else:
        why = "set for this case"
    return f"{why}; rules table: {Severity.parse(basis.level).label}"


# --- `--select` / `--ignore` on a lane run ----------------------------------------------------


@dataclass(frozen=True)
class FindingFilter:
    """`--select/--ignore` on a lane run: which findings are shown. The case verdicts, metrics,
    thresholds and exit code stay the lane's (they are the runner's numbers); `hidden` of `total`
    findings are not shown, and every output says so (`note`, `record`)."""

    selection: Selection
    given: str  # the flags as given: `--select SL1 --ignore SL103`
    hidden: int
    total: int

    def note(self) -> str:
        return (f"{self.given}: {self.hidden} of {self.total} finding(s) not shown; the metrics, thresholds, "
                "case verdicts and exit code count every finding")

    def record(self) -> dict[str, Any]:
        s = self.selection
        return {"select": None if s.selected is None else sorted(s.selected), "ignore": sorted(s.ignored),
                "findings_hidden": self.hidden, "findings_total": self.total}


class _SelectedRows:
    """The findings a FindingFilter shows, streamed from the run's (which may be on disk)."""

    def __init__(self, rows: Rows[Finding], selection: Selection, count: int) -> None:
        self.rows, self.selection, self.count = rows, selection, count

    def __iter__(self) -> Iterator[Finding]:
        allows = self.selection.allows
        return (f for f in self.rows if allows(f.code))

    def __len__(self) -> int:
        return self.count


def select_findings(result: LaneResult, selection: Selection, given: str) -> tuple[LaneResult, FindingFilter]:
    """The run as the reporters show it under `--select/--ignore` (its findings filtered; one pass
    counts what is hidden, so a header can say it), and the filter for the case views."""
    total = hidden = 0
    for f in result.findings:
        total += 1
        hidden += not selection.allows(f.code)
    shown = replace(result, findings=_SelectedRows(result.findings, selection, total - hidden))
    return shown, FindingFilter(selection, given, hidden, total)


def shown_views(result: LaneResult, lane: Lane | None, chosen: FindingFilter | None) -> Iterator[CaseView]:
    """Each case's view with only the failures and findings `chosen` selects (a failure without a
    code is always shown); a hidden check counts as not judged (never shown as a pass); the verdict
    is kept: a case failing only on hidden checks still fails."""
    views = iter_case_views(result, lane)
    if chosen is None:
        yield from views
        return
    allows = chosen.selection.allows
    for view in views:
        failures = tuple(f for f in view.failures if not f.code or allows(f.code))
        findings = tuple(f for f in view.findings if allows(f.code))
        if len(failures) == len(view.failures) and len(findings) == len(view.findings):
            yield view
            continue
        hidden = {f.name for f in view.failures} - {f.name for f in failures}
        yield replace(view, judged=tuple(n for n in view.judged if n not in hidden), failures=failures,
                      findings=findings, verdict=not view.failing)
