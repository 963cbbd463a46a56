"""Human text output: ruff-like `path:line:col: CODE [severity] message` (`concise`), or with the
source line and a caret under the exact characters (`full`); colour only when asked (a TTY).

Every run names its lane(s), how each was chosen, and the profile; a severity a case raised
says why; the headline metric is marked in words; a per-category metric is one aligned row per
category; every failing case listed has its id, the first `--show` of them and a count of the rest.
"""

from __future__ import annotations

import io
from collections.abc import Iterator, Mapping, Sequence
from typing import IO, TYPE_CHECKING, Any, TextIO

from ..engine import LaneResult
from ..model.findings import Finding, Severity
from .common import SafeOut, capture, fmt_value, lane_notes, severity_reason
from .outputs import printable

if TYPE_CHECKING:
    from .common import SeverityBasis
    from .options import CheckRun, RenderOptions

_COLOURS = {
    Severity.ERROR: "\x1b[31m",
    Severity.WARNING: "\x1b[33m",
    Severity.INFORMATION: "\x1b[36m",
    Severity.HINT: "\x1b[2m",
}
_RESET = "\x1b[0m"
_BOLD = "\x1b[1m"
# `full`: code points of context either side of the marked span (JSONL lines run to thousands).
SNIPPET_CONTEXT = 40
SNIPPET_LINE_BYTES = 64 * 1024 * 1024  # a longer line is not shown (the finding still is)


def finding_line(f: Finding, colour: bool, bases: Mapping[str, SeverityBasis] | None = None) -> str:
    loc = f.location
    sev = f.severity.label
    if colour:
        sev = f"{_COLOURS[f.severity]}{sev}{_RESET}"
        code = f"{_BOLD}{f.code}{_RESET}"
    else:
        code = f.code
    reason = severity_reason(f, bases) if bases else None
    if reason:
        sev = f"{sev}: {reason}"
    return f"{printable(loc.path)}:{loc.line}:{loc.column}: {code} [{sev}] {printable(f.message)}"


class SourceLines:
    """The text of the lines findings point at, for `full`: each file read forward once (the
    findings come sorted by path and line), at most one file open; `texts` for stdin's bytes."""

    def __init__(self, texts: Mapping[str, bytes] | None = None) -> None:
        self.texts = texts or {}
        self.path: str | None = None
        self.stream: IO[bytes] | None = None
        self.lines: Iterator[tuple[int, bytes | None]] = iter(())
        self.at: tuple[int, bytes | None] = (0, None)

    def line(self, path: str, number: int) -> str | None:
        from ..sources.lines import open_lines

        if path != self.path or number < self.at[0]:
            self.close()
            self.path = path
            try:
                given = self.texts.get(path)
                self.stream = io.BytesIO(given) if given is not None else open(path, "rb")
            except OSError:
                return None
            self.lines = open_lines(self.stream, SNIPPET_LINE_BYTES)[1]
            self.at = (0, None)
        while self.at[0] < number:
            got = next(self.lines, None)
            if got is None:
                return None
            self.at = got
        raw = self.at[1]
        if raw is None:
            return None
        text = raw.decode("utf-8", "replace").rstrip("\r\n")
        return text[1:] if number == 1 and text.startswith("\ufeff") else text

    def close(self) -> None:
        if self.stream is not None:
            self.stream.close()
            self.stream = None


def snippet(text: str, f: Finding) -> list[str]:
    """The source line (a window of it) and a caret under the finding's code points; each
    character as written (JSON escapes stay escapes), controls shown as backslash escapes."""
    loc = f.location
    first = loc.column - 1
    last = loc.end_column - 1 if loc.end_line == loc.line else len(text)
    last = max(first + 1, min(last, len(text) if len(text) > first else first + 1))
    start = max(0, first - SNIPPET_CONTEXT)
    stop = min(len(text), last + SNIPPET_CONTEXT)
    shown = ["…"] if start else []
    marks = [" "] if start else []
    for i in range(start, stop):
        ch = printable(text[i])
        shown.append(ch)
        marks.append(("^" if first <= i < last else " ") * len(ch))
    if first >= len(text):  # the end of the line (a missing value): the caret past it
        marks.append("^")
    if stop < len(text):
        shown.append("…")
    gutter = str(loc.line)
    pad = " " * len(gutter)
    return [f"{pad} |", f"{gutter} | {''.join(shown)}", f"{pad} | {''.join(marks).rstrip()}", ""]


def _finding_block(f: Finding, options: RenderOptions, sources: SourceLines | None, indent: str = "") -> str:
    head = indent + finding_line(f, options.colour, options.severity_bases) + "\n"
    if sources is None:
        return head
    text = sources.line(f.location.path, f.location.line)
    if text is None:
        return head + "\n"
    return head + "".join((indent + line if line else "") + "\n" for line in snippet(text, f))


def statistics_lines(findings: Sequence[Finding] | Any) -> list[str]:
    """ruff's `--statistics`: one row per code, most frequent first: count, code, name, severity."""
    counts: dict[tuple[str, str], int] = {}
    severities: dict[str, set[str]] = {}
    for f in findings:
        counts[(f.code, f.rule)] = counts.get((f.code, f.rule), 0) + 1
        severities.setdefault(f.code, set()).add(f.severity.label)
    rows = sorted(counts.items(), key=lambda item: (-item[1], item[0]))
    width = max((len(str(n)) for _, n in rows), default=1)
    code_width = max((len(code) for (code, _), _ in rows), default=4)
    name_width = max((len(name) for (_, name), _ in rows), default=4)
    return [f"{n:>{width}}  {code:<{code_width}}  {name:<{name_width}}  [{', '.join(sorted(severities[code]))}]".rstrip()
            for (code, name), n in rows]


def write_check(run: CheckRun, out: TextIO, options: RenderOptions) -> None:
    w = SafeOut(out).write
    if options.statistics:
        for row in statistics_lines(run.findings):
            w(row + "\n")
    counts: dict[str, int] = {}
    n = 0
    sources = SourceLines(options.texts) if options.text_style == "full" and not options.statistics else None
    try:
        for f in run.findings:
            if not options.statistics:
                w(_finding_block(f, options, sources))
            counts[f.severity.label] = counts.get(f.severity.label, 0) + 1
            n += 1
    finally:
        if sources is not None:
            sources.close()
    summary = ", ".join(f"{c} {s}" for s, c in sorted(counts.items())) or "no findings"
    w(f"Found {n} finding(s) ({summary}) in {len(run.files)} file(s); profile: {run.profile}.\n")
    w(f"{run.lines} lines read: {run.records} records, {run.errors} errors, "
      f"{run.blank} blank, {run.skipped} skipped.\n")
    for note in lane_notes(options.lanes, len(run.files)):  # last: which lane, and why
        w(printable(note) + "\n")


def render_check(run: CheckRun, options: RenderOptions) -> str:
    return capture(lambda out: write_check(run, out, options))


def _ids(title: str, ids: Sequence[str], limit: int = 20) -> str:
    more = len(ids) - limit
    return f"{title} ({len(ids)}): " + ", ".join(map(printable, ids[:limit])) + (f" … {more} more" if more > 0 else "")


def _metric_rows(result: LaneResult, colour: bool) -> list[str]:
    thresholds = {t.check.metric: t for t in result.thresholds}
    keys = [str(k) for v in result.metrics.values() if isinstance(v, dict) for k in v]
    width = max([len(k) for k in result.metrics] + [len(k) + 2 for k in keys], default=10) + 2
    rows = []
    for name, value in result.metrics.items():
        mark = ""
        t = thresholds.get(name)
        if t is not None:
            verdict = "ok" if t.passed else "FAIL"
            if colour:
                verdict = f"\x1b[32m{verdict}{_RESET}" if t.passed else f"\x1b[31m{verdict}{_RESET}"
            mark = f"  {t.check.describe():<12} {verdict}"
        headline = "  (headline metric)" if name == result.headline else ""
        if isinstance(value, dict):
            rows.append(f"  {name}{headline}")
            for key, sub in value.items():
                rows.append(f"    {key!s:<{width - 2}}{fmt_value(sub):>8}")
            continue
        line = f"  {name:<{width}}{fmt_value(value):>8}{mark}"
        if headline:
            line = f"{line:<{width + 2 + 8 + 2 + 12 + 1 + 4}}{headline}"
        rows.append(line.rstrip())
    return rows


def write_lane(result: LaneResult, out: TextIO, options: RenderOptions) -> None:
    w = SafeOut(out).write
    colour = options.colour
    w(f"lane {result.lane} {result.version} · profile {result.profile} · "
      f"thresholds {result.threshold_set or 'none'} · {result.case_count} case(s)\n")
    for note in lane_notes(options.lanes):
        w(printable(note) + "\n")
    if options.findings_filter is not None:
        w(printable(options.findings_filter.note()) + "\n")
    for row in _metric_rows(result, colour):
        w(row + "\n")
    if result.passed is None:
        w("result: no thresholds checked\n")
    else:
        w(f"result: {'PASS' if result.passed else 'FAIL'}\n")
    if result.nothing_scored is not None:
        w(f"nothing scored: {printable(result.nothing_scored)}\n")
    if result.missing_transcripts:
        w(_ids("cases without a transcript", result.missing_transcripts, options.show) + "\n")
    if result.unknown_cases:
        w(_ids("transcripts without a case", result.unknown_cases, options.show) + "\n")
    if result.remainder:
        w(_ids("multi-sentence cases outside the three buckets", result.remainder, options.show) + "\n")
    sources = SourceLines(options.texts) if options.text_style == "full" else None
    try:
        _write_failures(result, options, sources, w)
    finally:
        if sources is not None:
            sources.close()
    s = result.stats
    w(f"{s.lines} lines read: {s.records} records, {s.errors} errors, {s.blank} blank, {s.skipped} skipped.\n")


def _write_failures(result: LaneResult, options: RenderOptions, sources: SourceLines | None, w: Any) -> None:
    """Input problems, then each failing case by id with its findings: the first `show` cases."""
    from ..model.checks import CASE_LEVEL

    by_case: dict[str, list[Finding]] = {}
    problems = 0
    for f in result.findings:
        # A predicate's or a case-level check's finding fails its case; anything else (a reader's
        # problem, a repeated record) is an input problem, whichever case it names.
        if f.record_id is None or (f.code not in options.severity_bases and f.code not in CASE_LEVEL):
            if not problems:
                w("input problems:\n")
            problems += 1
            w(_finding_block(f, options, sources, "  "))
        elif f.record_id in by_case or len(by_case) < options.show:
            by_case.setdefault(f.record_id, []).append(f)
    if options.statistics:
        for row in statistics_lines(result.findings):
            w(row + "\n")
    if not result.failing_count:
        return
    listed = min(len(by_case), options.show)
    cut = listed >= options.show and listed < result.failing_count  # `--show` stopped the list
    w(f"failing cases: {result.failing_count}" + (f" (the first {listed} listed)" if cut else "") + "\n")
    for case_id, found in by_case.items():
        w(f"case {printable(case_id)}:\n")
        for f in found:
            w(_finding_block(f, options, sources, "  "))
    more = result.failing_count - listed
    if more > 0:
        chosen = options.findings_filter is not None
        w(f"  … {more} more (--show N lists more" + (", or their findings are not selected" if chosen else "") + ")\n"
          if cut else f"  … {more} more with no finding reported (a severity set off"
          + (", or their findings not selected" if chosen else "") + ")\n")


def render_lane(result: LaneResult, options: RenderOptions) -> str:
    return capture(lambda out: write_lane(result, out, options))
