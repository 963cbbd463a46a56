"""Human text output (ruff-like `path:line:col: CODE message`); colour only when asked (a TTY)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, TextIO

from ..engine import LaneResult
from ..model.findings import Finding, Severity
from .common import SafeOut, capture, fmt_value
from .outputs import printable

if TYPE_CHECKING:
    from .options import CheckRun

_COLOURS = {
    Severity.ERROR: "\x1b[31m",
    Severity.WARNING: "\x1b[33m",
    Severity.INFORMATION: "\x1b[36m",
    Severity.HINT: "\x1b[2m",
}
_RESET = "\x1b[0m"
_BOLD = "\x1b[1m"


def finding_line(f: Finding, colour: bool) -> str:
    loc = f.location
    sev = f.severity.label
    if colour:
        sev = f"{_COLOURS[f.severity]}{sev}{_RESET}"
        code = f"{_BOLD}{f.code}{_RESET}"
    else:
        code = f.code
    return f"{printable(loc.path)}:{loc.line}:{loc.column}: {code} [{sev}] {printable(f.message)}"


def write_check(run: CheckRun, out: TextIO, colour: bool = False) -> None:
    w = SafeOut(out).write
    counts: dict[str, int] = {}
    n = 0
    for f in run.findings:
        w(finding_line(f, colour) + "\n")
        counts[f.severity.label] = counts.get(f.severity.label, 0) + 1
        n += 1
    summary = ", ".join(f"{c} {s}" for s, c in sorted(counts.items())) or "no findings"
    w(f"Found {n} finding(s) ({summary}) in {len(run.files)} file(s); profile: {run.profile}.\n")
    w(f"{run.lines} lines read: {run.records} records, {run.errors} errors, "
      f"{run.blank} blank, {run.skipped} skipped.\n")


def render_check(run: CheckRun, colour: bool = False) -> str:
    return capture(lambda out: write_check(run, out, colour))


def _ids(title: str, ids: Sequence[str], limit: int = 20) -> str:
    return f"{title} ({len(ids)}): " + ", ".join(map(printable, ids[:limit])) + (" …" if len(ids) > limit else "")


def write_lane(result: LaneResult, out: TextIO, colour: bool = False) -> None:
    w = SafeOut(out).write
    thresholds = {t.check.metric: t for t in result.thresholds}
    w(f"lane {result.lane} {result.version} · profile {result.profile} · "
      f"thresholds {result.threshold_set or 'none'} · {result.case_count} case(s)\n")
    width = max((len(k) for k in result.metrics), default=10) + 2
    for name, value in result.metrics.items():
        mark = ""
        t = thresholds.get(name)
        if t is not None:
            verdict = "ok" if t.passed else "FAIL"
            if colour:
                verdict = f"\x1b[32m{verdict}{_RESET}" if t.passed else f"\x1b[31m{verdict}{_RESET}"
            mark = f"  {t.check.describe():<12} {verdict}"
        star = "*" if name == result.headline else " "
        w(f" {star}{name:<{width}}{fmt_value(value):>8}{mark}\n")
    if result.passed is None:
        w("result: no thresholds checked\n")
    else:
        w(f"result: {'PASS' if result.passed else 'FAIL'}\n")
    if result.nothing_scored is not None:
        w(f"nothing scored: {printable(result.nothing_scored)}\n")
    if result.missing_transcripts:
        w(_ids("cases without a transcript", result.missing_transcripts) + "\n")
    if result.unknown_cases:
        w(_ids("transcripts without a case", result.unknown_cases) + "\n")
    if result.remainder:
        w(f"multi-sentence cases outside the three buckets ({len(result.remainder)}): "
          + ", ".join(map(printable, result.remainder[:20])) + "\n")
    if result.failing_count:
        w(f"cases with a failing predicate: {result.failing_count}\n")
    for f in result.findings:
        w("  " + finding_line(f, colour) + "\n")
    s = result.stats
    w(f"{s.lines} lines read: {s.records} records, {s.errors} errors, {s.blank} blank, {s.skipped} skipped.\n")


def render_lane(result: LaneResult, colour: bool = False) -> str:
    return capture(lambda out: write_lane(result, out, colour))
