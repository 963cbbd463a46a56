"""GitHub Actions workflow commands: `::error file=..,line=..,col=..,endLine=..,endColumn=..,title=..::msg`.

GitHub shows only about ten annotations of each kind per step, so the most severe come first,
at most `annotation_limit` are printed, and a closing `::notice::` says how many were left out.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TextIO

from ..engine import LaneResult
from ..model.findings import Finding, Severity, stored_severity, unpacked_finding
from .common import SafeOut, capture, display_path, fmt_value, printable, run_note
from .records import stored_findings

if TYPE_CHECKING:
    from ..engine.diff import LaneDiff
    from .options import CheckRun, RenderOptions

COMMANDS = {
    Severity.ERROR: "error",
    Severity.WARNING: "warning",
    Severity.INFORMATION: "notice",
    Severity.HINT: "notice",
}


def escape_data(text: str) -> str:
    """A command's message: `%`, CR and LF are percent-encoded (as @actions/core does); every
    other control, separator and bidi override is a backslash escape (`printable`)."""
    return printable(text, keep="\r\n").replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    """A property value: as data, plus `:` and `,`, which delimit properties."""
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


@dataclass(frozen=True, slots=True)
class Annotation:
    severity: Severity
    message: str
    title: str | None = None
    finding: Finding | None = None  # gives the file and range

    def command(self) -> str:
        props: list[tuple[str, str]] = []
        if self.finding is not None:
            loc = self.finding.location
            props += [("file", display_path(loc.path)), ("line", str(loc.line)), ("col", str(loc.column)),
                      ("endLine", str(loc.end_line)), ("endColumn", str(loc.end_column))]
        if self.title is not None:
            props.append(("title", self.title))
        head = ",".join(f"{k}={escape_property(v)}" for k, v in props)
        return f"::{COMMANDS[self.severity]}{' ' + head if head else ''}::{escape_data(self.message)}"


def finding_annotation(f: Finding, title_prefix: str = "") -> Annotation:
    """Titled by code and rule, and by the case when the finding has one (`SL101 no_placeholder
    (case c1)`): GitHub lists annotations by title, and a CI log reader looks for the case."""
    case = f" (case {f.record_id})" if f.record_id else ""
    return Annotation(f.severity, f.message, f"{title_prefix}{f.code} {f.rule}{case}", f)


def write_annotations(annotations: Iterable[Annotation], limit: int, out: TextIO) -> None:
    """Most severe first (stable within a severity), cut at `limit`, with a closing count. Only
    the first `limit` of each severity are held while the annotations stream by."""
    _write_kept(annotations, limit, out)


# What `_write_kept` takes: an annotation, or a finding as the run keeps it (a Finding or its
# packed tuple, reporters/records.py stored_findings), annotated only if it is shown.
_Item = Annotation | Finding | tuple[Any, ...]


def _severity_key(item: _Item) -> int:
    if isinstance(item, Annotation):
        return -int(item.severity)
    return -stored_severity(item)


def _annotation(item: _Item) -> Annotation:
    if isinstance(item, Annotation):
        return item
    return finding_annotation(unpacked_finding(item) if isinstance(item, tuple) else item)


def _write_kept(items: Iterable[_Item], limit: int, out: TextIO) -> None:
    """`write_annotations`, the findings among `items` made annotations only when shown (a run
    has hundreds of thousands; GitHub is shown a few)."""
    w = SafeOut(out).write
    limit = max(0, limit)
    kept: dict[int, list[_Item]] = {}
    total = 0
    for a in items:
        total += 1
        bucket = kept.setdefault(_severity_key(a), [])
        if len(bucket) < limit:
            bucket.append(a)
    shown = [a for key in sorted(kept) for a in kept[key]][:limit]
    for a in shown:
        w(_annotation(a).command() + "\n")
    left_out = total - len(shown)
    if left_out:
        w(Annotation(
            Severity.INFORMATION,
            f"surface-lint: {left_out} more annotation(s) not shown (limit {limit}, "
            "--annotation-limit); the SARIF, JSON or Markdown output lists them all.").command() + "\n")


def render_annotations(annotations: Sequence[Annotation], limit: int) -> str:
    return capture(lambda out: write_annotations(annotations, limit, out))


def write_check(run: CheckRun, options: RenderOptions, out: TextIO) -> None:
    # A log line, not an annotation (it takes none of GitHub's few annotation slots).
    SafeOut(out).write(f"surface-lint: {printable(run_note(options.lanes, run.profile, len(run.files)))}\n")
    write_annotations((finding_annotation(f) for f in run.findings), options.annotation_limit, out)


def render_check(run: CheckRun, options: RenderOptions) -> str:
    return capture(lambda out: write_check(run, options, out))


def threshold_annotations(result: LaneResult) -> list[Annotation]:
    title = f"surface-lint {result.lane}: threshold failed"
    out = [
        Annotation(Severity.ERROR,
                   f"{t.check.metric} is {fmt_value(t.actual)}; the {result.threshold_set} "
                   f"threshold needs {t.check.describe()}", title)
        for t in result.thresholds if not t.passed
    ]
    if result.nothing_scored is not None and result.passed is False:
        out.append(Annotation(Severity.ERROR, f"no case was scored: {result.nothing_scored}",
                              f"surface-lint {result.lane}: nothing scored"))
    return out


def write_lane(result: LaneResult, options: RenderOptions, out: TextIO) -> None:
    def annotations() -> Iterator[_Item]:
        if options.baseline is not None:
            for line in options.baseline.regression_lines():
                yield Annotation(Severity.ERROR, line, f"surface-lint {result.lane}: below baseline")
        yield from threshold_annotations(result)
        yield from stored_findings(result.findings)

    shown = [options.findings_filter.note()] if options.findings_filter is not None else []
    SafeOut(out).write(f"surface-lint: {printable('; '.join([run_note(options.lanes, result.profile), *shown]))}\n")
    _write_kept(annotations(), options.annotation_limit, out)


def render_lane(result: LaneResult, options: RenderOptions) -> str:
    return capture(lambda out: write_lane(result, options, out))


def render_diff(diff: LaneDiff, options: RenderOptions) -> str:
    lane = diff.new.lane
    annotations = [
        Annotation(Severity.ERROR, d.describe(), f"surface-lint {lane}: metric regressed")
        for d in diff.metrics if d.regressed
    ]
    note = f"surface-lint: {printable(run_note(options.lanes, diff.new.profile))}\n" if options.lanes else ""
    for change in diff.changed:
        for flip in change.flips:
            if not flip.regressed:
                continue
            anchor = change.anchor(flip)
            annotations.append(Annotation(
                Severity.ERROR, f"{change.case_id}: {flip.subject} passed before and fails now: "
                f"{flip.new_message}", f"surface-lint {lane}: {f'{flip.code} ' if flip.code else ''}{flip.predicate} regressed (case {change.case_id})",
                anchor))
    return note + render_annotations(annotations, options.annotation_limit)
