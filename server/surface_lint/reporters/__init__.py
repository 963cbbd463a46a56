"""Output formats. Each reporter turns engine results into text; none computes a verdict.

Registries: format name -> renderer, one per kind of run (`check`, `--lane`, `diff`).
A format may support only some kinds of run.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ..engine import LaneResult
from ..findings import Finding
from . import diff_text, github, html, json_format, jsonl, junit, markdown, sarif, text
from .common import RuleInfo

if TYPE_CHECKING:
    from ..baseline import BaselineReport
    from ..diff import LaneDiff
    from ..lanes import Lane

DEFAULT_ANNOTATION_LIMIT = 50
STEP_SUMMARY_LIMIT = 1024 * 1024  # GitHub rejects a step summary above 1 MiB


@dataclass(frozen=True)
class CheckRun:
    """What `surface-lint check` found: the findings plus what was read."""

    findings: list[Finding]
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

CHECK_FORMATS: dict[str, RenderCheck] = {
    "text": lambda run, o: text.render_check(run, o.colour),
    "json": lambda run, o: json_format.render_check(run, o.colour),
    "json-lines": jsonl.render_check,
    "sarif": sarif.render_check,
    "junit": junit.render_check,
    "github": github.render_check,
    "markdown": markdown.render_check,
    "html": html.render_check,
}
LANE_FORMATS: dict[str, RenderLane] = {
    "text": lambda result, o: text.render_lane(result, o.colour),
    "json": lambda result, o: json_format.render_lane(result, o.colour),
    "json-lines": jsonl.render_lane,
    "sarif": sarif.render_lane,
    "junit": junit.render_lane,
    "github": github.render_lane,
    "markdown": markdown.render_lane,
    "html": html.render_lane,
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
