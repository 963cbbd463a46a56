"""Output formats. Each reporter turns engine results into text; none computes a verdict.

Registry: format name -> (render_check, render_lane). A format may support only one of the two.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from ..engine import LaneResult
from ..findings import Finding
from . import json_format, text


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


RenderCheck = Callable[[CheckRun, bool], str]  # (run, colour) -> text
RenderLane = Callable[[LaneResult, bool], str]

CHECK_FORMATS: dict[str, RenderCheck] = {
    "text": text.render_check,
    "json": json_format.render_check,
}
LANE_FORMATS: dict[str, RenderLane] = {
    "text": text.render_lane,
    "json": json_format.render_lane,
}
