"""Output formats. Each reporter turns engine results into text; none computes a verdict.

Registries: format name -> renderer, one per kind of run (`check`, `--lane`, `diff`).
A format may support only some kinds of run.
"""

from __future__ import annotations

from dataclasses import replace

from ..model import formats
from . import diff_text, github, html, json_format, jsonl, junit, markdown, sarif, text
from .common import RuleInfo as RuleInfo
from .common import SafeOut, capture
from .options import (
    DEFAULT_ANNOTATION_LIMIT as DEFAULT_ANNOTATION_LIMIT,
)
from .options import (
    STEP_SUMMARY_LIMIT as STEP_SUMMARY_LIMIT,
)
from .options import (
    CheckRun as CheckRun,
)
from .options import (
    RenderCheck as RenderCheck,
)
from .options import (
    RenderDiff as RenderDiff,
)
from .options import (
    RenderLane as RenderLane,
)
from .options import (
    RenderOptions as RenderOptions,
)
from .options import (
    WriteCheck as WriteCheck,
)
from .options import (
    WriteDiff as WriteDiff,
)
from .options import (
    WriteLane as WriteLane,
)

CHECK_WRITERS: dict[str, WriteCheck] = {
    "text": lambda run, o, out: text.write_check(run, out, o),
    "json": lambda run, o, out: json_format.write_check(run, out, o.lanes),
    "json-lines": jsonl.write_check,
    "sarif": sarif.write_check,
    "junit": junit.write_check,
    "github": github.write_check,
    "markdown": markdown.write_check,
    "html": html.write_check,
}
# `full`: text with the source line and a caret under each finding; `concise` is `text`.
CHECK_WRITERS["concise"] = CHECK_WRITERS["text"]
CHECK_WRITERS["full"] = lambda run, o, out: text.write_check(run, out, replace(o, text_style="full"))
LANE_WRITERS: dict[str, WriteLane] = {
    "text": lambda result, o, out: text.write_lane(result, out, o),
    "json": lambda result, o, out: json_format.write_lane(result, out, o.lanes, o.findings_filter),
    "json-lines": jsonl.write_lane,
    "sarif": sarif.write_lane,
    "junit": junit.write_lane,
    "github": github.write_lane,
    "markdown": markdown.write_lane,
    "html": html.write_lane,
}
LANE_WRITERS["concise"] = LANE_WRITERS["text"]
LANE_WRITERS["full"] = lambda result, o, out: text.write_lane(result, out, replace(o, text_style="full"))
TEXT_FORMATS = formats.TEXT_FORMATS  # the human text output, one line or a snippet per finding
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

# One list of format names (model/formats.py, what the command line offers before importing this).
if (tuple(LANE_WRITERS), tuple(CHECK_WRITERS), tuple(DIFF_WRITERS)) != (
        formats.OUTPUT_FORMATS, formats.OUTPUT_FORMATS, formats.DIFF_OUTPUT_FORMATS):
    raise ImportError("reporters: the writers' format names differ from model/formats.py's")
