"""What a reporter is given: the `check` run, the render options, and the renderer/writer types.

Apart from the format registry (reporters/__init__.py), so that each format imports these from
here and the registry imports the formats: no circle.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TextIO

from ..engine import Engine, LaneResult
from ..engine.results import Rows
from ..model.findings import Finding
from .common import FindingFilter, RuleInfo, SeverityBasis

if TYPE_CHECKING:
    from ..engine.baseline import BaselineReport
    from ..engine.diff import LaneDiff
    from ..engine.lanechoice import LaneChoice
    from ..rules.loader import Lane

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
    # The lane(s) of the run and how each was chosen, with the files it was chosen for (check).
    lanes: tuple[tuple[LaneChoice, tuple[str, ...]], ...] = ()
    # text: each predicate's severity before a case changes it (a raised one says why)
    severity_bases: Mapping[str, SeverityBasis] = field(default_factory=dict)
    show: int = 20  # text: failing cases listed by id (`--show`)
    text_style: str = "concise"  # text: `concise` one line per finding, `full` with the source line
    statistics: bool = False  # text: one row per code with its count (`--statistics`)
    texts: Mapping[str, bytes] = field(default_factory=dict)  # bytes of paths not on disk (stdin)
    # `--select/--ignore` on a lane run: the findings shown, and how many are not (None: all shown)
    findings_filter: FindingFilter | None = None


def lane_options(engine: Engine, lane: str | None, **given: Any) -> RenderOptions:
    """The options every lane run renders with: the engine's rule docs and severity bases, the
    scored lane; `given` adds the front end's own (colour, `--show`, how the lane was chosen)."""
    from .common import rule_index, severity_bases

    return RenderOptions(rules=rule_index(engine), lane=engine.lane(lane) if lane else None,
                         severity_bases=severity_bases(engine), **given)


RenderCheck = Callable[[CheckRun, RenderOptions], str]
RenderLane = Callable[[LaneResult, RenderOptions], str]
RenderDiff = Callable[["LaneDiff", RenderOptions], str]
# Writers render to a stream as the rows come (memory stays flat); the renderers above give
# the same text as one string.
WriteCheck = Callable[[CheckRun, RenderOptions, TextIO], None]
WriteLane = Callable[[LaneResult, RenderOptions, TextIO], None]
WriteDiff = Callable[["LaneDiff", RenderOptions, TextIO], None]
