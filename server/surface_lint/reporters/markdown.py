"""Markdown (GitHub-flavoured) for pull requests and `$GITHUB_STEP_SUMMARY`.

`--lane`: the metric table against the thresholds, then the failing cases with their failing
characters in bold. `check`: a findings table. `diff`: metric deltas and flipped verdicts.
With a byte limit, long lists are cut with a note saying how many rows were left out.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, TextIO

from ..engine import LaneResult
from .common import (
    LIST_LIMIT,
    CaseView,
    MarkdownCases,
    PerPredicateQuota,
    PredicateFailure,
    SafeOut,
    capture,
    case_view,
    display_path,
    fmt_value,
    highlight_segments,
    lane_notes,
    metric_rows,
    printable,
    reported_predicates,
    shown_views,
    verdict_word,
    where,
)

if TYPE_CHECKING:
    from ..engine.diff import LaneDiff
    from .options import CheckRun, RenderOptions

SURFACE_CHARS = 240  # a surface longer than this is cut in tables (the HTML report has it whole)
_SPECIAL = re.compile(r"([\\`*_\[\]|~#])")
_LINE_BREAK = re.compile(r"\r\n|[\r\n\u2028\u2029\x85\v\f]")
_BACKTICKS = re.compile(r"`+")


def md_text(text: str) -> str:
    """Plain text safe inside a table cell: Markdown punctuation escaped, HTML neutralised."""
    text = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    text = _SPECIAL.sub(r"\\\1", text)
    return "<br>".join(printable(part) for part in _LINE_BREAK.split(text))


def md_code(text: str) -> str:
    """Inline code safe inside a table cell and on one line: a fence longer than any run of
    backticks in the text, line breaks as spaces (a case id cannot start a heading or a row)."""
    text = printable(_LINE_BREAK.sub(" ", text))
    longest = max((len(m) for m in _BACKTICKS.findall(text)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if "`" in text else ""
    body = text.replace("|", "\\|")
    return f"{fence}{pad}{body}{pad}{fence}"


def _cut(text: str, limit: int) -> tuple[str, bool]:
    return (text, False) if len(text) <= limit else (text[:limit], True)


def md_surface(surface: str | None, failures: Sequence[PredicateFailure] = ()) -> str:
    """The surface, its failing characters in bold; cut after SURFACE_CHARS code points."""
    if surface is None:
        return ""
    if surface == "":
        return "_(empty)_"
    shown, cut = _cut(surface, SURFACE_CHARS)
    # Bold runs: adjacent failing segments merge; spaces stay outside the markers (CommonMark).
    runs: list[tuple[str, bool]] = []
    for text, names in highlight_segments(shown, failures):
        if runs and runs[-1][1] == bool(names):
            runs[-1] = (runs[-1][0] + text, bool(names))
        else:
            runs.append((text, bool(names)))
    parts = []
    for text, bold in runs:
        core = text.strip()
        if bold and core:
            lead, trail = text[: len(text) - len(text.lstrip())], text[len(text.rstrip()):]
            parts.append(f"{md_text(lead)}**{md_text(core)}**{md_text(trail)}")
        else:
            parts.append(md_text(text))
    return "".join(parts) + (" …" if cut else "")


def _failures(view: CaseView) -> str:
    items = []
    for f in view.failures:
        sev = f.severity_label
        detail = f": {md_text(f.message)}" if f.message else ""
        items.append(f"{md_code(f.name)} ({f.code}, {sev}){detail}")
    return "<br>".join(items)


class _Budget:
    """Adds rows while the whole text stays under a byte limit, keeping room for a closing note."""

    NOTE_ROOM = 400

    def __init__(self, limit: int | None, used: str) -> None:
        self.limit = limit
        self.used = len(used.encode("utf-8"))

    def fits(self, text: str) -> bool:
        size = len(text.encode("utf-8"))
        if self.limit is not None and self.used + size + self.NOTE_ROOM > self.limit:
            return False
        self.used += size
        return True


def _table(head: str, rows: Sequence[str], budget: _Budget, what: str) -> list[str]:
    """A table's lines; rows past the budget are left out and counted in a note."""
    out = [head]
    budget.fits(head + "\n")
    shown = 0
    for row in rows:
        if not budget.fits(row + "\n"):
            break
        out.append(row)
        shown += 1
    if shown < len(rows):
        out.append("")
        out.append(f"_… {len(rows) - shown} more {what} not shown: this summary is kept under "
                   f"{(budget.limit or 0) // 1024} KiB. The JSON, SARIF or HTML output lists them all._")
    return out


# --- --lane --------------------------------------------------------------------------------


def _metric_table(result: LaneResult, options: RenderOptions) -> list[str]:
    baseline = {d.name: d for d in options.baseline.deltas} if options.baseline else {}
    head = "| Metric | Value | Threshold | Result |"
    rule = "|---|---:|---|---|"
    if baseline:
        head, rule = head + " Baseline |", rule + "---|"
    lines = [head, rule]
    for row in metric_rows(result):
        name = f"**{md_code(row.name)}** (headline)" if row.headline else md_code(row.name)
        verdict = "" if row.passed is None else ("✅ pass" if row.passed else "❌ fail")
        cells = [name, fmt_value(row.value), md_text(row.threshold or ""), verdict]
        if baseline:
            d = baseline.get(row.name)
            if d is None or d.old is None:
                cells.append("")
            else:
                change = f" ({d.change})" if d.delta else ""
                mark = " ❌ below" if d.regressed else ""
                cells.append(f"{fmt_value(d.old)}{change}{mark}")
        lines.append("| " + " | ".join(cells) + " |")
    return lines


def write_lane(result: LaneResult, options: RenderOptions, out: TextIO) -> None:
    """Every metric; the first SHOW_PER_PREDICATE failing cases of each predicate, with how many
    more there are; within the byte limit. One pass over the cases counts them and keeps the
    failing ones the quota admits (at most SHOW_PER_PREDICATE a predicate: memory stays bounded)."""
    w = SafeOut(out).write
    failing = notes = 0
    surfaces = False
    quota = PerPredicateQuota()
    admitted: list[CaseView] = []
    lane = options.lane
    if lane is not None and lane.casework is None and options.findings_filter is None:
        # Every case counted (by the engine as it scored, else here from its outcome); a view
        # built only for the cases the quota admits.
        predicates = reported_predicates(lane)
        counted = result.shown
        if not isinstance(counted, MarkdownCases):
            counted = MarkdownCases(predicates)
            for outcome in result.outcomes:
                counted.see(outcome)
        views: dict[tuple[Any, ...], Any] = {}
        admitted = [case_view(outcome, predicates, views) for _, outcome in counted.shown]
        failing, notes, surfaces, quota = counted.failing, counted.notes, counted.surfaces, counted.quota
    else:
        for view in shown_views(result, lane, options.findings_filter):
            if view.failing:
                failing += 1
                surfaces = surfaces or view.surface is not None
                if quota.admit([f.name for f in view.deciding]):
                    admitted.append(view)
            elif view.status == "note":
                notes += 1
    head = [
        f"## surface-lint · {md_code(result.lane)} {md_text(result.version)} · {verdict_word(result.passed)}",
        "",
        f"Profile {md_code(result.profile)} · thresholds {md_code(result.threshold_set or 'none')} · "
        f"{len(result.outcomes) or result.case_count} case(s) · {failing} failing · {notes} with notes only",
        "",
        *[md_text(n) + "  " for n in lane_notes(options.lanes)],
        *([md_text(options.findings_filter.note()) + "  "] if options.findings_filter is not None else []),
        *([""] if options.lanes or options.findings_filter is not None else []),
        *_metric_table(result, options),
    ]
    if result.nothing_scored is not None:
        head += ["", f"**No case was scored:** {md_text(result.nothing_scored)}."]
    if options.baseline is not None:
        b = options.baseline
        head += ["", f"Baseline {md_code(display_path(b.path))}: " + (
            "no metric below it." if b.passed else f"**{len(b.regressions)} metric(s) below it.**")]
    lists = []
    if result.missing_transcripts:
        lists.append(f"- {len(result.missing_transcripts)} case(s) without a transcript: "
                     + ", ".join(md_code(c) for c in result.missing_transcripts[:20])
                     + (" …" if len(result.missing_transcripts) > 20 else ""))
    if result.unknown_cases:
        lists.append(f"- {len(result.unknown_cases)} transcript case id(s) without a case: "
                     + ", ".join(md_code(c) for c in result.unknown_cases[:20])
                     + (" …" if len(result.unknown_cases) > 20 else ""))
    if result.remainder:
        lists.append(f"- {len(result.remainder)} multi-sentence case(s) outside the three buckets: "
                     + ", ".join(md_code(c) for c in result.remainder[:20])
                     + (" …" if len(result.remainder) > 20 else ""))
    if lists:
        head += ["", *lists]
    text = "\n".join(head)
    w(text)
    if not failing:
        w("\n")
        return
    section = ["", f"### Failing cases ({failing})", ""]
    table_head = ("| Case | Group | Failed predicates | Surface |\n|---|---|---|---|" if surfaces
                  else "| Case | Group | Failed predicates |\n|---|---|---|")
    budget = _Budget(options.byte_limit, text)
    w("\n" + "\n".join(section) + "\n" + table_head)
    budget.fits("\n".join(section) + "\n" + table_head + "\n")
    cut = 0
    for view in admitted:
        if cut:
            cut += 1
            continue
        row = (f"| {md_code(view.case_id)} | {md_text(view.group or '')} | {_failures(view)} |"
               + (f" {md_surface(view.surface, view.failures)} |" if surfaces else ""))
        if not budget.fits(row + "\n"):
            cut = 1
            continue
        w("\n" + row)
    tail = []
    hidden = quota.notes()
    if hidden:
        tail.append("")
        tail += [f"_… {n} more failing case(s) of {md_code(name)} not shown (the first {quota.limit} of "
                 "each predicate are listed). The JSON, SARIF or HTML output lists them all._"
                 for name, n in hidden]
    if cut:
        tail.append("")
        tail.append(f"_… {cut} more failing case(s) not shown: this summary is kept under "
                    f"{(budget.limit or 0) // 1024} KiB. The JSON, SARIF or HTML output lists them all._")
    w("\n".join(["", *tail]) if tail else "")
    w("\n")


def render_lane(result: LaneResult, options: RenderOptions) -> str:
    return capture(lambda out: write_lane(result, options, out))


# --- check -----------------------------------------------------------------------------


def write_check(run: CheckRun, options: RenderOptions, out: TextIO) -> None:
    w = SafeOut(out).write
    counts: dict[str, int] = {}
    for f in run.findings:
        counts[f.severity.label] = counts.get(f.severity.label, 0) + 1
    summary = ", ".join(f"{c} {s}" for s, c in sorted(counts.items())) or "no findings"
    head = "\n".join([
        f"## surface-lint check · {len(run.findings)} finding(s)",
        "",
        f"{summary} in {len(run.files)} file(s) · profile {md_code(run.profile)} · "
        f"{run.records} record(s) read",
        *(["", *(md_text(n) + "  " for n in lane_notes(options.lanes, len(run.files)))] if options.lanes else []),
    ])
    w(head)
    if run.findings:
        w("\n")
        budget = _Budget(options.byte_limit, head + "\n")
        table = "| Location | Code | Severity | Message |\n|---|---|---|---|"
        w("\n" + table)
        budget.fits(table + "\n")
        shown = 0
        for f in run.findings:
            if shown >= LIST_LIMIT:
                break
            row = (f"| {md_code(where(f))} | "
                   f"{f.code} {md_code(f.rule)} | {f.severity.label} | {md_text(f.message)} |")
            if not budget.fits(row + "\n"):
                break
            w("\n" + row)
            shown += 1
        if shown < len(run.findings):
            why = (f"this summary is kept under {(budget.limit or 0) // 1024} KiB" if shown < LIST_LIMIT
                   else f"the first {LIST_LIMIT} are listed")
            w(f"\n\n_… {len(run.findings) - shown} more finding(s) not shown: {why}. "
              "The JSON, SARIF or HTML output lists them all._")
    w("\n")


def render_check(run: CheckRun, options: RenderOptions) -> str:
    return capture(lambda out: write_check(run, options, out))


# --- diff ------------------------------------------------------------------------------


def _pass_word(passed: bool) -> str:
    return "pass" if passed else "**fail**"


def render_diff(diff: LaneDiff, options: RenderOptions) -> str:
    word = "REGRESSED" if diff.regressed else "no regression"
    out = [
        f"## surface-lint diff · {md_code(diff.new.lane)} · {word}",
        "",
        f"{md_code(display_path(diff.old_label))} → {md_code(display_path(diff.new_label))} · "
        f"profile {md_code(diff.new.profile)} · {len(diff.changed)} case(s) with flipped verdicts, {len(diff.new_cases)} new, "
        f"{len(diff.vanished)} vanished, {diff.unchanged} unchanged" + ("  " if options.lanes else ""),
        *[md_text(n) + "  " for n in lane_notes(options.lanes)],
        "",
        "| Metric | Old | New | Change | |",
        "|---|---:|---:|---:|---|",
    ]
    for d in diff.metrics:
        change = d.change
        mark = "❌ regressed" if d.regressed else ("✅ improved" if d.improved else "")
        out.append(f"| {md_code(d.name)} | {fmt_value(d.old)} | {fmt_value(d.new)} | {change} | {mark} |")
    budget = _Budget(options.byte_limit, "\n".join(out))
    if diff.changed:
        rows = []
        for c in diff.changed:
            for flip in c.flips:
                rows.append(
                    f"| {md_code(c.case_id)} | {md_code(flip.predicate)}{' (' + flip.code + ')' if flip.code else ''} | "
                    f"{_pass_word(flip.old_passed)} | {_pass_word(flip.new_passed)} | "
                    f"{md_surface(c.old.surface, c.old.failures)} | {md_surface(c.new.surface, c.new.failures)} |")
        out += ["", f"### Flipped verdicts ({len(rows)})", ""]
        out += _table("| Case | Predicate | Old | New | Old surface | New surface |\n|---|---|---|---|---|---|",
                      rows, budget, "flipped verdict(s)")
    for title, views in (("New cases", diff.new_cases), ("Vanished cases", diff.vanished)):
        if views:
            rows = [f"| {md_code(v.case_id)} | {md_text(', '.join(v.failed_names()) or 'none')} |" for v in views]
            out += ["", f"### {title} ({len(views)})", ""]
            out += _table("| Case | Failed predicates |\n|---|---|", rows, budget, title.lower())
    return "\n".join(out) + "\n"
