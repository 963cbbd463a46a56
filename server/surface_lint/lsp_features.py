"""Engine results -> LSP payloads: diagnostics, hover, completion, code actions, symbols,
definition, code lens and the lane score. No pygls here; plain JSON-ready values.

Diagnostics are built as JSON text once per finding and reused while the finding object
is (the line-by-line lint hands back the same objects for unchanged lines), so a
re-publish of a large document costs a string join, not a re-serialisation.
"""

from __future__ import annotations

import bisect
import json
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .checks import CHECKS
from .docs import check_markdown, check_url, predicate_markdown, rule_url
from .engine import LaneResult, RecordInfo
from .findings import Finding, Location, Severity
from .lanes import Lane
from .lsp_state import EngineEntry, LintResult, path_to_uri, to_client_units
from .positions import JsonSyntaxError, value_spans
from .predicates import Verdict
from .suppress import DISABLE_KEY, SUPPRESSION_KEY, disabled_rules

SOURCE = "surface-lint"
LSP_SEVERITY = {Severity.ERROR: 1, Severity.WARNING: 2, Severity.INFORMATION: 3, Severity.HINT: 4}
SCORE_COMMAND = "surfaceLint.scoreLane"
MAX_FEATURE_LINE = 1_000_000  # hover/completion look no further into longer lines

JsonRange = dict[str, dict[str, int]]
_COMPACT = (",", ":")


def lsp_range(start_line: int, start_char: int, end_line: int, end_char: int) -> JsonRange:
    return {"start": {"line": start_line, "character": start_char},
            "end": {"line": end_line, "character": end_char}}


# --- positions ---------------------------------------------------------------------------------


class Positions:
    """Engine Locations (1-based, code points) -> LSP ranges in the negotiated encoding."""

    def __init__(self, encoding: str, lines_of: Callable[[str], Sequence[str]]) -> None:
        self.encoding = encoding
        self.lines_of = lines_of  # other files' lines (open buffer or disk)

    def range(self, loc: Location, result: LintResult | None) -> JsonRange:
        line_text: Callable[[int], str]
        if result is not None and loc.path == result.path:
            line_text = result.line
            count = len(result.lines)
            bom = bool(result.lines) and result.lines[0].startswith("\ufeff")
        else:
            other = self.lines_of(loc.path)
            count = len(other)

            def other_line(i: int) -> str:
                return other[i] if 0 <= i < len(other) else ""

            line_text = other_line
            bom = False
        return lsp_range(*self._point(loc.line, loc.column, line_text, count, bom),
                         *self._point(loc.end_line, loc.end_column, line_text, count, bom))

    def _point(self, line: int, column: int, line_text: Callable[[int], str], count: int,
               bom: bool) -> tuple[int, int]:
        index = line - 1
        if index >= count:  # past the end: the end of the last line
            index = max(count - 1, 0)
            text = line_text(index)
            return index, to_client_units(text, len(text), self.encoding)
        index = max(index, 0)
        text = line_text(index)
        col = column - 1 + (1 if bom and index == 0 else 0)  # the engine read line 1 without its BOM
        return index, to_client_units(text, min(max(col, 0), len(text)), self.encoding)

    def location(self, loc: Location, result: LintResult | None) -> dict[str, Any]:
        return {"uri": path_to_uri(loc.path) if result is None or loc.path != result.path else result.uri,
                "range": self.range(loc, result)}


# --- diagnostics -----------------------------------------------------------------------------


def href(entry: EngineEntry | None, lane_name: str | None, f: Finding) -> str | None:
    """Where the finding's rule is documented: its lane file (predicates) or checks.py."""
    if entry is None:
        return None
    key = (lane_name or "", f.code)
    cached = entry.hrefs.get(key)
    if cached is not None:
        return cached
    url: str | None = None
    lane = entry.engine.lane_set.get(lane_name) if lane_name else None
    spec = lane.predicate(f.rule) if lane is not None else None
    if lane is not None and spec is not None and spec.code == f.code:
        url = rule_url(spec, lane)
    elif f.code in CHECKS:
        url = check_url(f.code)
    if url is not None:
        entry.hrefs[key] = url
    return url


class DiagnosticBuilder:
    """Findings -> LSP Diagnostic JSON, memoised per finding object of one document."""

    def __init__(self, positions: Positions, related: bool, code_description: bool = True,
                 data: bool = True) -> None:
        self.positions = positions
        self.related = related  # only what the client says it supports is sent
        self.code_description = code_description
        self.data = data
        self._cache: dict[int, tuple[Finding, str]] = {}

    def diagnostic(self, f: Finding, result: LintResult) -> dict[str, Any]:
        pos = self.positions
        out: dict[str, Any] = {
            "range": pos.range(f.location, result),
            "severity": LSP_SEVERITY[f.severity],
            "code": f.code,
            "source": SOURCE,
            "message": f.message,
        }
        url = href(result.entry, result.lane, f) if self.code_description else None
        if url is not None:
            out["codeDescription"] = {"href": url}
        if self.related and f.related:
            out["relatedInformation"] = [
                {"location": pos.location(r.location, result), "message": r.message} for r in f.related
            ]
        data: dict[str, Any] = {}
        if f.fixes:
            data["fixes"] = [
                {"title": x.title, "range": pos.range(x.location, result), "newText": x.replacement}
                for x in f.fixes if x.location.path == result.path
            ]
        if f.record_index is not None:
            data["record"] = f.location.line - 1  # the line the record starts on (for "disable")
        if self.data and data:
            out["data"] = data
        return out

    def json_items(self, result: LintResult, extra: Iterable[dict[str, Any]] = (), keep: bool = False) -> list[str]:
        """Each finding's Diagnostic as JSON text (cached), plus any extra diagnostics.

        The cache is replaced by this result's findings, or only added to with `keep`
        (a partial result while a long lint runs)."""
        cache = self._cache
        fresh: dict[int, tuple[Finding, str]] = cache if keep else {}
        items: list[str] = []
        for f in result.findings:
            hit = cache.get(id(f))
            if hit is None or hit[0] is not f:
                hit = (f, json.dumps(self.diagnostic(f, result), separators=_COMPACT))
            fresh[id(f)] = hit
            items.append(hit[1])
        self._cache = fresh
        items.extend(json.dumps(d, separators=_COMPACT) for d in extra)
        return items


def error_diagnostic(message: str, code: str | None = None, line: int = 0,
                     rng: JsonRange | None = None) -> dict[str, Any]:
    out: dict[str, Any] = {"range": rng or lsp_range(line, 0, line, 0), "severity": 1, "source": SOURCE,
                           "message": message}
    if code is not None:
        out["code"] = code
        if code in CHECKS:
            out["codeDescription"] = {"href": check_url(code)}
    return out


def items_json(items: Sequence[str]) -> str:
    return "[" + ",".join(items) + "]"


# --- hover ---------------------------------------------------------------------------------------


def _contains(loc: Location, line: int, column: int) -> bool:
    """Is 1-based (line, column) inside `loc` (its end column included: the cursor after the text)?"""
    if not loc.line <= line <= loc.end_line:
        return False
    if line == loc.line and column < loc.column:
        return False
    return not (line == loc.end_line and column > loc.end_column)


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
    who = f"case `{record.id}`" if record.id else "a record without a case id"
    lines = [f"**surface-lint** · lane `{lane.name}` · {who} · profile `{profile}`", ""]
    for spec in lane.predicates:
        verdict = verdicts.get(spec.name)
        if verdict is None:
            continue
        mark = "✓" if verdict.passed else "✗"
        kind = " (signal)" if not spec.report else ""
        message = verdict.message or ("passes" if verdict.passed else "fails")
        lines.append(f"- {mark} `{spec.name}`{kind} — {message}  ")
        lines.append(f"  {spec.summary}")
    return "\n".join(lines)


def _markup(text: str, markdown: bool) -> dict[str, str]:
    return {"kind": "markdown" if markdown else "plaintext", "value": text}


def hover(result: LintResult, line: int, column: int, positions: Positions,
          markdown: bool = True) -> dict[str, Any] | None:
    """Hover at 0-based (line, code-point column): verdicts on a surface, docs on a predicate name."""
    entry = result.entry
    if entry is None:
        return None
    engine = entry.engine
    lane = engine.lane_set.get(result.lane) if result.lane else None
    for record in result.records_at(line + 1):
        if record.surface is not None and record.verdicts is not None and lane is not None \
                and _contains(record.surface, line + 1, column + 1):
            text = verdict_markdown(lane, record, record.verdicts, engine.profile)
            return {"contents": _markup(text, markdown), "range": positions.range(record.surface, result)}
    token = string_at(result.line(line), column)
    if token is None:
        return None
    value, start, end = token
    text = ""
    if lane is not None:
        spec = lane.predicate(value) or next((p for p in lane.predicates if p.code == value), None)
        if spec is not None:
            text = predicate_markdown(spec, lane)
    if not text and value in CHECKS:
        text = check_markdown(CHECKS[value])
    if not text:
        return None
    loc = Location(result.path, line + 1, start + 1, line + 1, end + 1)
    return {"contents": _markup(text, markdown), "range": positions.range(loc, result)}


# --- completion ------------------------------------------------------------------------------------

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
               positions: Positions, markdown: bool = True) -> list[dict[str, Any]]:
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
    items: list[dict[str, Any]] = []
    rng = positions.range(Location(result.path, line + 1, ctx.start + 1, line + 1, column + 1), result)
    if ctx.where == "value-in-list":
        field_spec = lane.schema.fields.get(ctx.owner or "")
        if field_spec is None or not field_spec.predicate_list:
            return []
        for spec in lane.predicates:
            if not spec.report:
                continue
            for name in (spec.name, *spec.aliases):
                alias = f" (alias of `{spec.name}`)" if name != spec.name else ""
                items.append(_item(name, 20, f"{spec.code}{alias} · {spec.summary}",
                                   predicate_markdown(spec, lane), ctx, rng, markdown))
    else:
        for name, fspec in lane.schema.fields.items():
            if name in ctx.seen:
                continue
            need = "required" if fspec.required else "optional"
            detail = f"{fspec.type}, {need}" + (", predicate names" if fspec.predicate_list else "")
            items.append(_item(name, 5, detail, f"Case field `{name}` of lane `{lane.name}`: {detail}.", ctx, rng,
                               markdown))
    return items


def _item(label: str, kind: int, detail: str, doc: str, ctx: CompletionContext,
          rng: JsonRange, markdown: bool) -> dict[str, Any]:
    new_text = label if ctx.in_string else json.dumps(label)
    return {"label": label, "kind": kind, "detail": detail,
            "documentation": _markup(doc, True) if markdown else doc,
            "filterText": label if ctx.in_string else json.dumps(label),
            "textEdit": {"range": rng, "newText": new_text}}


# --- code actions -------------------------------------------------------------------------------


def _overlaps(a: JsonRange, b: JsonRange) -> bool:
    def key(p: Mapping[str, int]) -> tuple[int, int]:
        return p["line"], p["character"]

    return key(a["start"]) <= key(b["end"]) and key(b["start"]) <= key(a["end"])


def code_actions(result: LintResult, requested: JsonRange, builder: DiagnosticBuilder,
                 only: Sequence[str] | None = None) -> list[dict[str, Any]]:
    """Quick fixes from the findings' Fixes, and "disable this rule for this record"."""
    if only and not any(k == "quickfix" or k.startswith("quickfix") or k == "" for k in only):
        return []
    actions: list[dict[str, Any]] = []
    disable_offered: set[tuple[int, str]] = set()
    for f in result.findings:
        diag = builder.diagnostic(f, result)
        if not _overlaps(diag["range"], requested):
            continue
        fixes = [x for x in f.fixes if x.location.path == result.path]
        for fix in fixes:
            edit = {"range": builder.positions.range(fix.location, result), "newText": fix.replacement}
            actions.append({"title": fix.title, "kind": "quickfix", "diagnostics": [diag],
                            "isPreferred": len(fixes) == 1,
                            "edit": {"changes": {result.uri: [edit]}}})
        if f.record_index is not None:
            key = (f.location.line, f.code)
            if key in disable_offered:
                continue
            disable_offered.add(key)
            edit_ = disable_edit(result, f, builder.positions.encoding)
            if edit_ is not None:
                actions.append({"title": f"Disable {f.code} ({f.rule}) for this record", "kind": "quickfix",
                                "diagnostics": [diag], "edit": {"changes": {result.uri: [edit_]}}})
    return actions


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
    text_line = result.line(index)
    rng = lsp_range(index, to_client_units(text_line, start + lead, encoding),
                    index, to_client_units(text_line, end + lead, encoding))
    return {"range": rng, "newText": replacement}


def _merged_suppression(record: Mapping[str, Any], code: str) -> tuple[Any, tuple[str, ...] | None]:
    """The new value and which span to replace: the disable list, the table, or nothing (insert)."""
    table = record.get(SUPPRESSION_KEY)
    if isinstance(table, dict):
        listed = table.get(DISABLE_KEY)
        if isinstance(listed, list):
            if code in disabled_rules(record):
                return listed, (SUPPRESSION_KEY, DISABLE_KEY)
            return [*listed, code], (SUPPRESSION_KEY, DISABLE_KEY)
        return {**table, DISABLE_KEY: [code]}, (SUPPRESSION_KEY,)
    if SUPPRESSION_KEY in record:
        return {DISABLE_KEY: [code]}, (SUPPRESSION_KEY,)
    return {DISABLE_KEY: [code]}, None


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
    return {"range": lsp_range(sl, to_client_units(result.line(sl), start - starts[sl], encoding),
                               el, to_client_units(result.line(el), end - starts[el], encoding)),
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


# --- symbols, definition -------------------------------------------------------------------------

_SYMBOL_KIND = {"case": 19, "turn": 24, "report-case": 19}  # Object, Event


def document_symbols(result: LintResult, positions: Positions) -> list[dict[str, Any]]:
    out = []
    for record in result.records:
        rng = positions.range(record.location, result)
        sel = positions.range(record.id_location, result) if record.id_location is not None else rng
        if not (_le(rng["start"], sel["start"]) and _le(sel["end"], rng["end"])):
            sel = rng
        name = record.id or f"(no id, line {record.location.line})"
        out.append({"name": name, "detail": record.kind, "kind": _SYMBOL_KIND.get(record.kind, 19),
                    "range": rng, "selectionRange": sel})
    return out


def _le(a: Mapping[str, int], b: Mapping[str, int]) -> bool:
    return (a["line"], a["character"]) <= (b["line"], b["character"])


def definition(result: LintResult, line: int, column: int, positions: Positions) -> dict[str, Any] | None:
    """From a transcript's (or report's) case id to the case in the lane's case files."""
    for record in result.records_at(line + 1) if result.line_mode else result.records:
        if record.id_location is None or record.case_location is None:
            continue
        if _contains(record.id_location, line + 1, column + 1):
            return positions.location(record.case_location, None)
    return None


# --- lane score -----------------------------------------------------------------------------------


def _fmt(value: Any) -> str:
    if value is None:
        return "n/a"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return f"{value:.4f}".rstrip("0").rstrip(".") if value != int(value) else f"{value:.1f}"
    return str(value)


def verdict_word(passed: bool | None) -> str:
    return "passes" if passed is True else "fails" if passed is False else "no verdict"


def lane_score(result: LaneResult, file_name: str) -> dict[str, Any]:
    """The `surfaceLint/laneScore` answer: lane, profile, headline, pass/fail and a Markdown table."""
    value = result.metrics.get(result.headline)
    number = float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None
    checks = {t.check.metric: t for t in result.thresholds}
    rows = ["| metric | value | threshold | |", "|---|---|---|---|"]
    for name, metric in result.metrics.items():
        t = checks.get(name)
        rows.append(f"| `{name}` | {_fmt(metric)} | {t.check.describe() if t else ''} | "
                    f"{('✓' if t.passed else '✗') if t else ''} |")
    sets = f", thresholds `{result.threshold_set}`" if result.threshold_set else ""
    scored = result.case_count
    notes = [f"{scored} case(s) scored from `{file_name}`."]
    if result.missing_transcripts:
        notes.append(f"{len(result.missing_transcripts)} case(s) have no transcript here.")
    if result.unknown_cases:
        notes.append(f"{len(result.unknown_cases)} turn case id(s) match no case.")
    markdown = "\n".join([
        f"### Lane `{result.lane}` {verdict_word(result.passed)} (profile `{result.profile}`{sets})",
        "",
        f"Headline: `{result.headline}` = {_fmt(value)}",
        "",
        *rows,
        "",
        " ".join(notes),
    ]) + "\n"
    return {"lane": result.lane, "profile": result.profile,
            "headline": {"name": result.headline, "value": number},
            "passed": result.passed, "markdown": markdown}


def lens_title(score: Mapping[str, Any]) -> str:
    head = score["headline"]
    value = head["value"]
    shown = "n/a" if value is None else f"{value:.2f}"
    return f"surface-lint · {score['lane']}: {head['name']} {shown} · {verdict_word(score['passed'])} ({score['profile']})"
