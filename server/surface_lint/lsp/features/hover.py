"""Hover: a surface's verdicts per predicate, a predicate's or check's docs on its name."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping

from lsprotocol import types

from ...engine import RecordInfo
from ...model.checks import CHECKS
from ...model.findings import Location
from ...reporters.docs import check_markdown, predicate_markdown
from ...rules.kinds.core import Verdict
from ...rules.loader import Lane
from ..host import Host
from ..lint import LintResult
from .common import MAX_FEATURE_LINE, Positions, contains, markup_content, md_code, md_message, no_html
from .completion import completion_context
from .lane_fields import casework_markdown, field_markdown, fields_at
from .lane_toml import hover_markdown, is_lane_document


def register(server: Host) -> None:
    @server.handle(types.TEXT_DOCUMENT_HOVER)
    async def on_hover(params: types.HoverParams) -> types.Hover | None:
        at = await server.at(params.text_document.uri, params.position)
        if at is None:
            return None
        if is_lane_document(at[0].path, at[0].lines):
            text = hover_markdown(at[0].lines, at[1], at[2])
            return types.Hover(markup_content(text, server.markdown_hover)) if text else None
        return hover(at[0], at[1], at[2], server.positions(), server.markdown_hover)


_STRING = re.compile(r'"(?:[^"\\\n]|\\.)*"')


def string_at(text: str, column: int) -> tuple[str, int, int] | None:
    """The JSON string token under 0-based `column` of a line: (value, start, end) in code points."""
    if len(text) > MAX_FEATURE_LINE:
        return None
    for m in _STRING.finditer(text):
        if m.start() > column:
            break
        if column < m.end():
            try:
                value = json.loads(m.group())
            except ValueError:
                return None
            return (value, m.start(), m.end()) if isinstance(value, str) else None
    return None


def verdict_markdown(lane: Lane, record: RecordInfo, verdicts: Mapping[str, Verdict], profile: str) -> str:
    """✓/✗ per predicate with the verdict's message and the predicate's one-line definition."""
    # Everything from data is a code span or escaped text: no HTML or Markdown from a transcript.
    who = f"case {md_code(record.id)}" if record.id else "a record without a case id"
    lines = [f"**surface-lint** · lane {md_code(lane.name)} · {who} · profile {md_code(profile)}", ""]
    for spec in lane.predicates:
        verdict = verdicts.get(spec.name)
        if verdict is None:
            continue
        mark = "✓" if verdict.passed else "✗"
        kind = " (signal)" if not spec.report else ""
        message = verdict.message or ("passes" if verdict.passed else "fails")
        lines.append(f"- {mark} {md_code(spec.name)}{kind} — {md_message(message)}  ")
        lines.append(f"  {no_html(spec.summary)}")
    return "\n".join(lines)


def hover(result: LintResult, line: int, column: int, positions: Positions,
          markdown: bool = True) -> types.Hover | None:
    """Hover at 0-based (line, code-point column): verdicts on a surface, docs on a predicate name."""
    entry = result.entry
    if entry is None:
        return None
    engine = entry.engine
    lane = engine.lane_set.get(result.lane) if result.lane else None
    for record in result.records_at(line + 1):
        if record.surface is not None and record.verdicts and lane is not None \
                and contains(record.surface, line + 1, column + 1):
            text = verdict_markdown(lane, record, record.verdicts, engine.profile)
            return types.Hover(contents=markup_content(text, markdown), range=positions.typed_range(record.surface, result))
    token = string_at(result.line(line), column)
    if token is None:
        return None
    value, start, end = token
    text = ""
    if lane is not None and result.kind == "cases":
        text = key_field_markdown(lane, result.line(line), start, value)
    if lane is not None and not text:
        spec = lane.predicate(value) or next((p for p in lane.predicates if p.code == value), None)
        if spec is not None:
            text = no_html(predicate_markdown(spec, lane))
    if not text and lane is not None:
        text = casework_markdown(lane, value) or ""
    if not text and value in CHECKS:
        text = no_html(check_markdown(CHECKS[value]))
    if not text:
        return None
    loc = Location(result.path, line + 1, start + 1, line + 1, end + 1)
    return types.Hover(contents=markup_content(text, markdown), range=positions.typed_range(loc, result))


def key_field_markdown(lane: Lane, text: str, start: int, name: str) -> str:
    """The docs of the case field whose key string starts at `start` of a case line (nested keys
    too: `must_contain` inside `constraints`); "" when the string there is not a known field's key."""
    ctx = completion_context(text[:start])
    if ctx is None or ctx.where != "key":
        return ""
    fields = fields_at(lane.schema.fields, ctx.path)
    spec = fields.get(name) if fields is not None else None
    return field_markdown(lane, ctx.path, spec) if spec is not None else ""
