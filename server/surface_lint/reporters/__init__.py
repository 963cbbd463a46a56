"""Output formats. Each reporter turns engine results into text; none computes a verdict.

Registries: format name -> renderer, one per kind of run (`check`, `--lane`, `diff`).
A format may support only some kinds of run.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, TextIO

from ..engine import LaneResult
from ..engine.results import Rows
from ..findings import Finding
from . import diff_text, github, html, json_format, jsonl, junit, markdown, sarif, text
from .common import RuleInfo, SafeOut, capture

if TYPE_CHECKING:
    from ..baseline import BaselineReport
    from ..diff import LaneDiff
    from ..lanes import Lane

DEFAULT_ANNOTATION_LIMIT = 50
STEP_SUMMARY_LIMIT = 1024 * 1024  # GitHub rejects a step summary above 1 MiB


@dataclass(frozen=True)
class CheckRun:
    """What `surface-lint check` found: the findings (sorted; may be kept on disk: iterate them)
    plus what was read."""

    findings: Rows[Finding]
    profile: str
    files: list[str]
    lines: int
    records: int
    errors: int
    blank: int
    skipped: int


@dataclass(frozen=True)
class RenderOptions:
    """Everything a renderer may need beyond the result itself."""

    colour: bool = False
    annotation_limit: int = DEFAULT_ANNOTATION_LIMIT  # github: annotations printed at most
    byte_limit: int | None = None  # markdown: stay under this many UTF-8 bytes
    rules: Mapping[str, RuleInfo] = field(default_factory=dict)  # code -> docs (sarif, html)
    lane: Lane | None = None  # the scored lane (predicate order, metric kinds)
    baseline: BaselineReport | None = None  # the ratchet's comparison, shown where it fits


RenderCheck = Callable[[CheckRun, RenderOptions], str]
RenderLane = Callable[[LaneResult, RenderOptions], str]
RenderDiff = Callable[["LaneDiff", RenderOptions], str]
# Writers render to a stream as the rows come (memory stays flat); the renderers above give
# the same text as one string.
WriteCheck = Callable[[CheckRun, RenderOptions, TextIO], None]
WriteLane = Callable[[LaneResult, RenderOptions, TextIO], None]
WriteDiff = Callable[["LaneDiff", RenderOptions, TextIO], None]

CHECK_WRITERS: dict[str, WriteCheck] = {
    "text": lambda run, o, out: text.write_check(run, out, o.colour),
    "json": lambda run, o, out: json_format.write_check(run, out),
    "json-lines": jsonl.write_check,
    "sarif": sarif.write_check,
    "junit": junit.write_check,
    "github": github.write_check,
    "markdown": markdown.write_check,
    "html": html.write_check,
}
LANE_WRITERS: dict[str, WriteLane] = {
    "text": lambda result, o, out: text.write_lane(result, out, o.colour),
    "json": lambda result, o, out: json_format.write_lane(result, out),
    "json-lines": jsonl.write_lane,
    "sarif": sarif.write_lane,
    "junit": junit.write_lane,
    "github": github.write_lane,
    "markdown": markdown.write_lane,
    "html": html.write_lane,
}
DIFF_FORMATS: dict[str, RenderDiff] = {
    "text": diff_text.render_text,
    "json": diff_text.render_json,
    "junit": junit.render_diff,
    "github": github.render_diff,
    "markdown": markdown.render_diff,
    "html": html.render_diff,
    "json-lines": jsonl.render_diff,
    "sarif": sarif.render_diff,
}


def _string_writer(render: RenderDiff) -> WriteDiff:
    return lambda diff, o, out: SafeOut(out).write(render(diff, o))


DIFF_WRITERS: dict[str, WriteDiff] = {name: _string_writer(render) for name, render in DIFF_FORMATS.items()}
CHECK_FORMATS: dict[str, RenderCheck] = {
    name: (lambda w: lambda run, o: capture(lambda out: w(run, o, out)))(write) for name, write in CHECK_WRITERS.items()
}
LANE_FORMATS: dict[str, RenderLane] = {
    name: (lambda w: lambda result, o: capture(lambda out: w(result, o, out)))(write)
    for name, write in LANE_WRITERS.items()
}
