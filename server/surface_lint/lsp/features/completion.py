"""Completion in case files: predicate names inside predicate lists, case field names as keys."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from lsprotocol import types

from ...docs import predicate_markdown
from ...findings import Location
from ...lanes import Lane
from ..lint import LintResult
from .common import MAX_FEATURE_LINE, Positions, markup_content, md_code, md_text, no_html

if TYPE_CHECKING:
    from ..server import SurfaceLintServer


def register(server: SurfaceLintServer) -> None:
    @server.handle(types.TEXT_DOCUMENT_COMPLETION, types.CompletionOptions(trigger_characters=['"', "[", ",", "{"]))
    async def on_completion(params: types.CompletionParams) -> types.CompletionList | None:
        at = await server.at(params.text_document.uri, params.position)
        if at is None:
            return None
        result, line, column = at
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


def completion_context(prefix: str) -> CompletionContext | None:
    """Where the cursor at the end of `prefix` (one JSONL line) sits in the record's structure."""
    # frames: ["{", expecting_key, key, seen] or ["[", owner]
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
                if top is not None and top[0] == "{" and top[1] and len(stack) == 1:
                    return CompletionContext("key", None, True, m.start() + 1, set(top[3]))
                if top is not None and top[0] == "[" and len(stack) == 2:
                    return CompletionContext("value-in-list", top[1], True, m.start() + 1, set())
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
            stack.append(["{", True, None, set()])
        elif tok == "[":
            owner = top[2] if top is not None and top[0] == "{" else None
            stack.append(["[", owner])
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
    if top[0] == "{" and top[1] and len(stack) == 1:
        return CompletionContext("key", None, False, len(prefix), set(top[3]))
    if top[0] == "[" and len(stack) == 2 and prefix.rstrip().endswith(("[", ",")):
        return CompletionContext("value-in-list", top[1], False, len(prefix), set())
    return None


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
    if ctx.where == "value-in-list":
        field_spec = lane.schema.fields.get(ctx.owner or "")
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
        for name, fspec in lane.schema.fields.items():
            if name in ctx.seen:
                continue
            need = "required" if fspec.required else "optional"
            detail = f"{fspec.type}, {need}" + (", predicate names" if fspec.predicate_list else "")
            doc = f"Case field {md_code(name)} of lane {md_code(lane.name)}: {md_text(detail)}."
            items.append(_item(name, types.CompletionItemKind.Field, detail, doc, ctx, rng, markdown))
    return items


def _item(label: str, kind: types.CompletionItemKind, detail: str, doc: str, ctx: CompletionContext,
          rng: types.Range, markdown: bool) -> types.CompletionItem:
    new_text = label if ctx.in_string else json.dumps(label)
    return types.CompletionItem(label=label, kind=kind, detail=detail,
                                documentation=markup_content(doc, True) if markdown else doc,
                                filter_text=new_text, text_edit=types.TextEdit(range=rng, new_text=new_text))
