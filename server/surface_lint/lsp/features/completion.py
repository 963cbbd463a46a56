"""Completion in case files: predicate names inside predicate lists, case field names as keys."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from lsprotocol import types

from ...model.findings import Location
from ...reporters.docs import predicate_markdown
from ...rules.loader import Lane
from ..host import Host
from ..lint import LintResult
from .common import MAX_FEATURE_LINE, Positions, markup_content, no_html
from .lane_fields import FieldStep, field_detail, field_markdown, fields_at
from .lane_toml import completion_items, is_lane_document


def register(server: Host) -> None:
    @server.handle(types.TEXT_DOCUMENT_COMPLETION, types.CompletionOptions(trigger_characters=['"', "[", ",", "{"]))
    async def on_completion(params: types.CompletionParams) -> types.CompletionList | None:
        at = await server.at(params.text_document.uri, params.position)
        if at is None:
            return None
        result, line, column = at
        if is_lane_document(result.path, result.lines):
            return types.CompletionList(is_incomplete=False,
                                        items=completion_items(result.lines, line, column, server.markdown_completion))
        lane = None
        if result.entry is not None:
            name = result.lane or _lane_of_path(result)
            lane = result.entry.engine.lane_set.get(name) if name else None
        items = completion(result, lane, line, column, server.positions(), server.markdown_completion)
        return types.CompletionList(is_incomplete=False, items=items)


def _lane_of_path(result: LintResult) -> str | None:
    if result.entry is None:
        return None
    lane = result.entry.engine.detect_lane(result.path, "cases")
    return lane.name if lane else None


_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"?|[{}\[\]:,]|[^\s{}\[\]:,"]+')


@dataclass
class CompletionContext:
    where: str  # "key" | "value-in-list"
    owner: str | None  # the list's field
    in_string: bool
    start: int  # code-point column where the typed word starts (after the quote)
    seen: set[str]
    path: tuple[FieldStep, ...] = field(default=())  # the object the cursor is in (nested fields)


def completion_context(prefix: str) -> CompletionContext | None:
    """Where the cursor at the end of `prefix` (one JSONL line) sits in the record's structure."""
    # frames: ["{", expecting_key, key, seen, path] or ["[", owner, path]; a path is None
    # where no case field can be (a list in a list)
    stack: list[list[Any]] = []
    expecting_value_for: str | None = None
    for m in _TOKEN.finditer(prefix):
        tok = m.group()
        top = stack[-1] if stack else None
        if tok.startswith('"'):
            closed = len(tok) >= 2 and tok.endswith('"') and not _escaped_end(tok)
            if not closed:
                if m.end() != len(prefix):
                    return None
                if top is not None and top[0] == "{" and top[1] and top[4] is not None:
                    return CompletionContext("key", None, True, m.start() + 1, set(top[3]), top[4])
                if top is not None and top[0] == "[" and top[1] is not None and top[2] is not None:
                    return CompletionContext("value-in-list", top[1], True, m.start() + 1, set(), top[2])
                return None
            if top is not None and top[0] == "{" and top[1]:
                try:
                    key = json.loads(tok)
                except ValueError:
                    return None
                top[2] = key
                top[3].add(key)
                top[1] = False
        elif tok == "{":
            stack.append(["{", True, None, set(), _inner_path(top)])
        elif tok == "[":
            owner = top[2] if top is not None and top[0] == "{" else None
            stack.append(["[", owner, top[4] if top is not None and top[0] == "{" else None])
        elif tok in "}]":
            if stack:
                stack.pop()
        elif tok == ",":
            if top is not None and top[0] == "{":
                top[1] = True
        elif tok == ":":
            expecting_value_for = top[2] if top is not None and top[0] == "{" else None
    del expecting_value_for
    top = stack[-1] if stack else None
    if top is None:
        return None
    if top[0] == "{" and top[1] and top[4] is not None:
        return CompletionContext("key", None, False, len(prefix), set(top[3]), top[4])
    if top[0] == "[" and top[1] is not None and top[2] is not None and prefix.rstrip().endswith(("[", ",")):
        return CompletionContext("value-in-list", top[1], False, len(prefix), set(), top[2])
    return None


def _inner_path(top: list[Any] | None) -> tuple[FieldStep, ...] | None:
    """The path of an object opened inside frame `top`: the record itself, a field's value, a list's item."""
    if top is None:
        return ()
    if top[0] == "{":
        ok = top[4] is not None and top[2] is not None and not top[1]  # after `"key":`, not where a key belongs
        return (*top[4], (top[2], False)) if ok else None
    return (*top[2], (top[1], True)) if top[2] is not None and top[1] is not None else None


def _escaped_end(tok: str) -> bool:
    body = tok[1:-1]
    return (len(body) - len(body.rstrip("\\"))) % 2 == 1


def completion(result: LintResult, lane: Lane | None, line: int, column: int,
               positions: Positions, markdown: bool = True) -> list[types.CompletionItem]:
    """Predicate names inside predicate lists; case field names as keys (per the lane schema)."""
    # Case files; a new one whose first line is still being typed reads as a broken report.
    if lane is None or result.kind not in ("cases", None, "report") or not result.path.endswith(".jsonl"):
        return []
    text = result.line(line)
    if len(text) > MAX_FEATURE_LINE:
        return []
    ctx = completion_context(text[:column])
    if ctx is None:
        return []
    items: list[types.CompletionItem] = []
    rng = positions.typed_range(Location(result.path, line + 1, ctx.start + 1, line + 1, column + 1), result)
    fields = fields_at(lane.schema.fields, ctx.path)
    if fields is None:
        return []
    if ctx.where == "value-in-list":
        field_spec = fields.get(ctx.owner or "")
        if field_spec is None or not field_spec.predicate_list:
            return []
        for spec in lane.predicates:
            if not spec.report:
                continue
            for name in (spec.name, *spec.aliases):
                alias = f" (alias of `{spec.name}`)" if name != spec.name else ""
                items.append(_item(name, types.CompletionItemKind.EnumMember, f"{spec.code}{alias} · {spec.summary}",
                                   no_html(predicate_markdown(spec, lane)), ctx, rng, markdown))
    else:
        for name, fspec in fields.items():
            if name in ctx.seen:
                continue
            doc = field_markdown(lane, ctx.path, fspec)
            items.append(_item(name, types.CompletionItemKind.Field, field_detail(fspec), doc, ctx, rng, markdown))
    return items


def _item(label: str, kind: types.CompletionItemKind, detail: str, doc: str, ctx: CompletionContext,
          rng: types.Range, markdown: bool) -> types.CompletionItem:
    new_text = label if ctx.in_string else json.dumps(label)
    return types.CompletionItem(label=label, kind=kind, detail=detail,
                                documentation=markup_content(doc, True) if markdown else doc,
                                filter_text=new_text, text_edit=types.TextEdit(range=rng, new_text=new_text))
