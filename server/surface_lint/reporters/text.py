"""Human text output (ruff-like `path:line:col: CODE message`); colour only when asked (a TTY)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..engine import LaneResult
from ..findings import Finding, Severity
from .common import fmt_value, severity_counts

if TYPE_CHECKING:
    from . import CheckRun

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
    return f"{loc.path}:{loc.line}:{loc.column}: {code} [{sev}] {f.message}"


def render_check(run: CheckRun, colour: bool = False) -> str:
    lines = [finding_line(f, colour) for f in run.findings]
    summary = severity_counts(run.findings)
    lines.append(
        f"Found {len(run.findings)} finding(s) ({summary}) in {len(run.files)} file(s); "
        f"profile: {run.profile}."
    )
    lines.append(
        f"{run.lines} lines read: {run.records} records, {run.errors} errors, "
        f"{run.blank} blank, {run.skipped} skipped."
    )
    return "\n".join(lines) + "\n"


def render_lane(result: LaneResult, colour: bool = False) -> str:
    out: list[str] = []
    thresholds = {t.check.metric: t for t in result.thresholds}
    out.append(
        f"lane {result.lane} {result.version} · profile {result.profile} · "
        f"thresholds {result.threshold_set or 'none'} · {result.case_count} case(s)"
    )
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
        out.append(f" {star}{name:<{width}}{fmt_value(value):>8}{mark}")
    if result.passed is None:
        out.append("result: no thresholds checked")
    else:
        out.append(f"result: {'PASS' if result.passed else 'FAIL'}")
    if result.missing_transcripts:
        out.append(f"cases without a transcript ({len(result.missing_transcripts)}): "
                   + ", ".join(result.missing_transcripts[:20])
                   + (" …" if len(result.missing_transcripts) > 20 else ""))
    if result.unknown_cases:
        out.append(f"transcripts without a case ({len(result.unknown_cases)}): "
                   + ", ".join(result.unknown_cases[:20])
                   + (" …" if len(result.unknown_cases) > 20 else ""))
    if result.remainder:
        out.append(f"multi-sentence cases outside the three buckets ({len(result.remainder)}): "
                   + ", ".join(result.remainder[:20]))
    if result.failing_count:
        out.append(f"cases with a failing predicate: {result.failing_count}")
    for f in result.findings:
        out.append("  " + finding_line(f, colour))
    s = result.stats
    out.append(f"{s.lines} lines read: {s.records} records, {s.errors} errors, {s.blank} blank, {s.skipped} skipped.")
    return "\n".join(out) + "\n"
