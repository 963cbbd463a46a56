"""Code actions: the findings' quick fixes and "disable CODE for this record"."""

from __future__ import annotations

import bisect
import json
from collections.abc import Mapping, Sequence
from typing import Any

from lsprotocol import types
from lsprotocol.converters import get_converter

from ...model.findings import Finding
from ...model.positions import JsonSyntaxError, value_spans
from ...sources.suppress import DISABLE_KEY, SUPPRESSION_KEY
from ..diagnostic_json import DiagnosticBuilder
from ..host import Host
from ..lint import LintResult
from .common import MAX_FEATURE_LINE, JsonRange, lsp_range, to_range

_CONVERTER = get_converter()


def typed_diagnostic(diagnostic: Mapping[str, Any]) -> types.Diagnostic:
    """A Diagnostic built as JSON (the hot path, diagnostic_json) as the lsprotocol type."""
    found: types.Diagnostic = _CONVERTER.structure(diagnostic, types.Diagnostic)
    return found


def register(server: Host) -> None:
    @server.handle(types.TEXT_DOCUMENT_CODE_ACTION,
                   types.CodeActionOptions(code_action_kinds=[types.CodeActionKind.QuickFix]))
    async def on_code_action(params: types.CodeActionParams) -> list[types.CodeAction] | None:
        uri = params.text_document.uri
        doc = server.state.docs.get(uri)
        result = await server.current_result(uri) if doc is not None else None
        run = server.scheduler.runs.get(uri)
        if result is None or doc is None or run is None:
            return None
        r = params.range
        encoding = server.state.encoding
        # The range as the document's own positions (clamped into it, as the findings are).
        lines = doc.linemap
        start = lines.to_client(*lines.to_engine(r.start.line, r.start.character, encoding), encoding)
        end = lines.to_client(*lines.to_engine(r.end.line, r.end.character, encoding), encoding)
        requested = lsp_range(*start, *end)
        only = [str(getattr(k, "value", k)) for k in (params.context.only or [])]
        return code_actions(result, requested, run.builder, only or None)


def _overlaps(a: JsonRange, b: JsonRange) -> bool:
    def key(p: Mapping[str, int]) -> tuple[int, int]:
        return p["line"], p["character"]

    return key(a["start"]) <= key(b["end"]) and key(b["start"]) <= key(a["end"])


def code_actions(result: LintResult, requested: JsonRange, builder: DiagnosticBuilder,
                 only: Sequence[str] | None = None) -> list[types.CodeAction]:
    """Quick fixes from the findings' Fixes, and "disable this rule for this record"."""
    if only and not any(k == "quickfix" or k.startswith("quickfix") or k == "" for k in only):
        return []
    actions: list[types.CodeAction] = []
    disable_offered: set[tuple[int, str]] = set()
    for f in result.findings:
        found = builder.diagnostic(f, result)
        if not _overlaps(found["range"], requested):
            continue
        diag = typed_diagnostic(found)
        fixes = [x for x in f.fixes if x.location.path == result.path]
        for fix in fixes:
            edit = types.TextEdit(range=to_range(builder.positions.range(fix.location, result)), new_text=fix.replacement)
            actions.append(types.CodeAction(title=fix.title, kind=types.CodeActionKind.QuickFix, diagnostics=[diag],
                                            is_preferred=len(fixes) == 1,
                                            edit=types.WorkspaceEdit(changes={result.uri: [edit]})))
        if f.record_index is not None:
            key = (f.location.line, f.code)
            if key in disable_offered:
                continue
            disable_offered.add(key)
            edit_ = disable_edit(result, f, builder.positions.encoding)
            if edit_ is not None:
                actions.append(types.CodeAction(
                    title=f"Disable {f.code} ({f.rule}) for this record", kind=types.CodeActionKind.QuickFix,
                    diagnostics=[diag], edit=types.WorkspaceEdit(changes={result.uri: [to_edit(edit_)]})))
    return actions


def to_edit(edit: Mapping[str, Any]) -> types.TextEdit:
    return types.TextEdit(range=to_range(edit["range"]), new_text=edit["newText"])


def disable_edit(result: LintResult, f: Finding, encoding: str) -> dict[str, Any] | None:
    """The edit that adds `f.code` to its record's `"surface_lint": {"disable": [...]}`."""
    if result.kind == "report":
        return _disable_in_report(result, f, encoding)
    index = f.location.line - 1
    text = result.line(index)
    if len(text) > MAX_FEATURE_LINE:
        return None
    lead = 1 if index == 0 and text.startswith("\ufeff") else 0
    body = text[lead:]
    try:
        record = json.loads(body)
        spans = value_spans(body, want=2)
    except (ValueError, RecursionError, JsonSyntaxError):
        return None
    if not isinstance(record, dict):
        return None
    compact = '": ' not in body and '", ' not in body
    new_value, span = _merged_suppression(record, f.code)
    whole = spans.get(())
    if whole is None:
        return None
    if span is not None:
        start, end = spans[span].start, spans[span].end
        replacement = _dumps(new_value, compact)
    else:
        close = whole.end - 1  # the record's closing brace
        start = end = len(body[:close].rstrip()) if body[whole.start + 1:close].strip() else close
        sep = "," if record else ""
        key = f'"{SUPPRESSION_KEY}":' if compact else f' "{SUPPRESSION_KEY}": '
        replacement = f"{sep}{key}{_dumps(new_value, compact)}"
        if not record and not compact:
            replacement = replacement.lstrip()
    lines = result.linemap
    rng = lsp_range(*lines.to_client(index, start + lead, encoding), *lines.to_client(index, end + lead, encoding))
    return {"range": rng, "newText": replacement}


def _merged_suppression(record: Mapping[str, Any], code: str) -> tuple[Any, tuple[str, ...] | None]:
    """The new value and which span to replace: the disable list, the table, or nothing (insert)."""
    table = record.get(SUPPRESSION_KEY)
    if isinstance(table, dict):
        if DISABLE_KEY in table:
            return merged_disable(table[DISABLE_KEY], code), (SUPPRESSION_KEY, DISABLE_KEY)
        return {**table, DISABLE_KEY: [code]}, (SUPPRESSION_KEY,)
    if SUPPRESSION_KEY in record:
        return {DISABLE_KEY: [code]}, (SUPPRESSION_KEY,)
    return {DISABLE_KEY: [code]}, None


def merged_disable(listed: Any, code: str) -> list[Any]:
    """What the record disabled already (a code, or a list of them), in order, without
    duplicates, then `code`. A value that disables nothing (not a string or list) is replaced."""
    current: list[Any] = [listed] if isinstance(listed, str) else list(listed) if isinstance(listed, list) else []
    merged: list[Any] = []
    for item in [*current, code]:
        if item not in merged:
            merged.append(item)
    return merged


def _dumps(value: Any, compact: bool) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":") if compact else None)


def _disable_in_report(result: LintResult, f: Finding, encoding: str) -> dict[str, Any] | None:
    """A report entry: add the key after its last member, indented like it."""
    text = "\n".join(result.line(i) for i in range(len(result.lines)))
    try:
        obj = json.loads(text)
        spans = value_spans(text, want=3)
    except (ValueError, RecursionError, JsonSyntaxError):
        return None
    if not isinstance(obj, dict):
        return None
    key = "cases" if "cases" in obj else "case_details"
    entries = obj.get(key)
    index = f.record_index
    if not isinstance(entries, list) or index is None or not 0 <= index < len(entries):
        return None
    record = entries[index]
    if not isinstance(record, dict):
        return None
    new_value, span = _merged_suppression(record, f.code)
    starts = _line_starts(text)
    if span is not None:
        vs = spans.get((key, index, *span))
        if vs is None:
            return None
        replacement = json.dumps(new_value, ensure_ascii=False)
        start, end = vs.start, vs.end
    else:
        whole = spans.get((key, index))
        if whole is None:
            return None
        close = whole.end - 1
        start = end = len(text[:close].rstrip())
        last_line = text[starts[_line_of(starts, start)]:start]
        indent = last_line[: len(last_line) - len(last_line.lstrip())]
        sep = "," if record else ""
        replacement = f'{sep}\n{indent}"{SUPPRESSION_KEY}": {json.dumps(new_value)}'
    sl, el = _line_of(starts, start), _line_of(starts, end)
    lines = result.linemap
    return {"range": lsp_range(*lines.to_client(sl, start - starts[sl], encoding),
                               *lines.to_client(el, end - starts[el], encoding)),
            "newText": replacement}


def _line_starts(text: str) -> list[int]:
    starts = [0]
    pos = text.find("\n")
    while pos != -1:
        starts.append(pos + 1)
        pos = text.find("\n", pos + 1)
    return starts


def _line_of(starts: list[int], offset: int) -> int:
    return bisect.bisect_right(starts, offset) - 1
