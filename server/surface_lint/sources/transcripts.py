"""Captured transcripts in their three shapes -> Turns / report entries with positions.

Shapes: turn JSONL (the canonical capture format, see README), lane report JSON
(`cases` or `case_details`), runtime telemetry JSONL (lines without `surface` skipped).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import IO, Any

from ..model.checks import CheckCode
from ..model.findings import Finding, Location
from ..model.jsonread import loads
from ..model.positions import JsonSyntaxError, value_spans
from .base import (
    DocLocator,
    JsonlReader,
    NumberedLines,
    ReadStats,
    Record,
    check_finding,
    decode_document,
    has_surrogate_escape,
    json_type,
    repair_surrogates,
    surrogate_findings,
)
from .detect import detect_kind, sniff, sniff_stream

__all__ = ["KINDS", "ReportEntry", "Transcript", "Turn", "detect_kind", "iter_turns", "read_report",
           "sniff", "sniff_stream", "turn_from_record"]

KINDS = ("cases", "turns", "report", "telemetry")

# Canonical turn fields and their JSON types (None allowed where the runtime writes null).
TURN_FIELDS: dict[str, str] = {
    "case_id": "string",
    "turn_index": "integer",
    "role": "string",
    "scored": "boolean",
    "prompt": "string",
    "surface": "string",
    "grounding_source": "string",
    "vault_hits": "integer",
    "trace_hash": "string",
    "chain": "integer",
}
# The per-case fields of a lane report the engine reads, and their JSON types.
REPORT_FIELDS: dict[str, str] = {
    "case_id": "string",
    "id": "string",
    "prompt": "string",
    "surface": "string",
    "grounding_source": "string",
    "vault_hits": "integer",
    "trace_hash": "string",
    "trace_hash_replay": "string",
    "proposal_count": "integer",
}
_ARTICLE = {"integer": "an integer"}
SCORED_ROLES = ("prompt", "probe")


@dataclass(slots=True)
class Turn:
    """One runtime turn with a surface (turn JSONL or telemetry)."""

    record: Record
    case_id: str | None
    surface: str | None
    grounding: str
    role: str
    scored: bool
    chain: int
    prompt: str | None
    turn_index: int | None


@dataclass(slots=True)
class ReportEntry:
    """One per-case entry of a lane report."""

    record: Record
    data: dict[str, Any]

    @property
    def case_id(self) -> str | None:
        value = self.data.get("case_id", self.data.get("id"))
        return value if isinstance(value, str) else None


@dataclass(slots=True)
class Transcript:
    path: str
    kind: str
    lane_hint: str | None = None
    turns: list[Turn] = field(default_factory=list)
    entries: list[ReportEntry] = field(default_factory=list)
    report: dict[str, Any] | None = None
    findings: list[Finding] = field(default_factory=list)
    stats: ReadStats = field(default_factory=ReadStats)


def typed_report_entry(entry: dict[str, Any]) -> dict[str, Any]:
    """A report entry as expressions read it: a REPORT_FIELDS field of the wrong type (the
    reader's SL003) is null, as a capture's is."""
    wrong = [k for k, kind in REPORT_FIELDS.items() if k in entry and _opt(entry, k, kind) is _WRONG]
    return {k: (None if k in wrong else v) for k, v in entry.items()} if wrong else entry


def _opt(data: dict[str, Any], key: str, kind: str) -> Any:
    value = data.get(key)
    if value is None:
        return None
    if kind == "string" and isinstance(value, str):
        return value
    if kind == "integer" and isinstance(value, int) and not isinstance(value, bool):
        return value
    if kind == "boolean" and isinstance(value, bool):
        return value
    return _WRONG


_WRONG = object()


def turn_from_record(record: Record, findings: list[Finding], telemetry: bool = False) -> Turn | None:
    """Validate one turn object; wrong types become findings, the turn is kept when usable."""
    data = record.data
    get = data.get
    case_id = get("case_id")
    surface = get("surface")
    grounding = get("grounding_source")
    role = get("role")
    scored = get("scored")
    prompt = get("prompt")
    vault_hits = get("vault_hits")
    trace_hash = get("trace_hash")
    turn_index = get("turn_index")
    chain = get("chain")
    # Fast path: every canonical field has its type (or is absent / null).
    if not (
        (case_id is None or type(case_id) is str)
        and (surface is None or type(surface) is str)
        and (grounding is None or type(grounding) is str)
        and (role is None or type(role) is str)
        and (scored is None or type(scored) is bool)
        and (prompt is None or type(prompt) is str)
        and (vault_hits is None or type(vault_hits) is int)
        and (trace_hash is None or type(trace_hash) is str)
        and (turn_index is None or type(turn_index) is int)
        and (chain is None or type(chain) is int)
    ):
        values: dict[str, Any] = {}
        for key, kind in TURN_FIELDS.items():
            value = _opt(data, key, kind)
            if value is _WRONG:
                findings.append(
                    check_finding(
                        CheckCode.WRONG_TYPE,
                        record.location(key),
                        f"`{key}` must be {_ARTICLE.get(kind, 'a ' + kind)} or null, not {json_type(data[key])}",
                        case_id if isinstance(case_id, str) else None,
                        record_index=record.index,
                    )
                )
                value = None
            values[key] = value
        case_id, surface, grounding = values["case_id"], values["surface"], values["grounding_source"]
        role, scored, prompt = values["role"], values["scored"], values["prompt"]
        turn_index = values["turn_index"]
    if surface is None:
        return None
    role = role or ("turn" if telemetry else "prompt")
    if scored is None:
        scored = role in SCORED_ROLES
    if telemetry and turn_index is None:
        t = get("turn")
        turn_index = t if type(t) is int else None
    # Telemetry lines carry no `grounding_source` (the turn format always may): "" = not recorded,
    # which the kinds reading it do not judge (rules.kinds.core.UNRECORDED).
    if telemetry and "grounding_source" not in data:
        grounding = ""
    else:
        grounding = grounding or "none"
    # Positional (record, case_id, surface, grounding, role, scored, chain, prompt, turn_index):
    # one Turn per line. (`vault_hits` and `trace_hash` are typed above: a wrong type is a finding.)
    if type(chain) is not int:  # absent, null or not an integer: a replay run's turn is chain 1
        chain = 1 if get("run") == "replay" or get("replay_run") is True else 0
    return Turn(record, case_id, surface, grounding, role, bool(scored), chain, prompt, turn_index)


def iter_turns(path: str, stream: IO[bytes] | NumberedLines, kind: str, reader: JsonlReader) -> Iterator[Turn]:
    """Stream turns (turn JSONL or telemetry) of a byte stream or of `NumberedLines` (an
    editor's lines, their numbers their context); findings and counts accumulate on `reader`."""
    telemetry = kind == "telemetry"
    for record in reader.records(stream):
        if telemetry and "surface" not in record.data:
            reader.skip()
            continue
        if not telemetry and "surface" not in record.data and "case_id" not in record.data:
            reader.findings.append(
                check_finding(
                    CheckCode.MISSING_FIELD,
                    record.whole(),
                    "a turn needs `case_id` and `surface`",
                    record_index=record.index,
                )
            )
            reader.skip()
            continue
        turn = turn_from_record(record, reader.findings, telemetry)
        if turn is None:
            if not telemetry and "surface" not in record.data:
                reader.findings.append(
                    check_finding(
                        CheckCode.MISSING_FIELD, record.whole(), "missing field `surface`",
                        turn_case(record), record_index=record.index,
                    )
                )
            reader.skip()
            continue
        yield turn


def turn_case(record: Record) -> str | None:
    value = record.data.get("case_id")
    return value if isinstance(value, str) else None


def read_report(path: str, data: bytes) -> Transcript:
    """A lane report JSON document: `cases` (runner framework) or `case_details` (older)."""
    out = Transcript(path, "report")
    text, problems = decode_document(data, path)
    out.findings.extend(problems)
    out.stats.lines = data.count(b"\n") + (0 if data.endswith(b"\n") else 1)
    if text is None:
        out.stats.errors += 1
        return out
    # Counted in the decoded text: a UTF-16 document's bytes hold 0x0A in other characters too.
    out.stats.lines = text.count("\n") + (0 if text.endswith("\n") else 1)
    try:
        obj = loads(text)
    except json.JSONDecodeError as exc:
        out.stats.errors += 1
        out.findings.append(
            check_finding(CheckCode.INVALID_JSON, _error_location(path, text, exc), f"invalid JSON: {exc.msg}")
        )
        return out
    except RecursionError:
        out.stats.errors += 1
        out.findings.append(check_finding(CheckCode.INVALID_JSON, Location(path, 1, 1, 1, 1), "invalid JSON: nesting too deep to read"))
        return out
    locator = DocLocator(path, text, 1)
    if not isinstance(obj, dict):
        out.stats.errors += 1
        out.findings.append(check_finding(CheckCode.INVALID_JSON, locator.whole(), f"expected a lane report object, found {json_type(obj)}"))
        return out
    try:
        locator._spans = value_spans(text, max_depth=len(text), want=4)  # json.loads accepted it
    except JsonSyntaxError:
        locator._spans = {}
    # Unpaired surrogates anywhere in the report: U+FFFD in place, SL016 at each escape.
    repaired = repair_surrogates(obj) if "\\u" in text and has_surrogate_escape(text) else []
    out.report = obj
    lane = obj.get("lane")
    out.lane_hint = lane if isinstance(lane, str) else None
    key = "cases" if "cases" in obj else "case_details"
    cases = obj.get(key)
    if cases is None:
        cases = []
    if repaired:
        whole = Record(obj, 1, 0, locator)
        in_entries = [r for r in repaired if isinstance(cases, list) and r[0][:1] == (key,) and len(r[0]) > 1]
        out.findings.extend(surrogate_findings(whole, [r for r in repaired if r not in in_entries]))
    else:
        in_entries = []
    if not isinstance(cases, list):
        out.stats.errors += 1
        out.findings.append(check_finding(CheckCode.WRONG_TYPE, locator.location((key,)), f"`{key}` must be an array, not {json_type(cases)}"))
        return out
    for i, entry in enumerate(cases):
        span = locator.value((key, i))
        line = locator.index.position(span.start)[0] if span else 1
        record = Record(entry if isinstance(entry, dict) else {}, line, i, locator, (key, i))
        if not isinstance(entry, dict):
            out.stats.errors += 1
            out.findings.append(check_finding(CheckCode.WRONG_TYPE, record.whole(), f"a case entry must be an object, not {json_type(entry)}"))
            continue
        out.stats.records += 1
        out.entries.append(ReportEntry(record, entry))
        mine = [r for r in in_entries if r[0][1] == i]
        if mine:
            out.findings.extend(surrogate_findings(record, mine, (key, i)))
        # A mistyped field would otherwise be read as missing (an "empty" surface, 0 hits).
        entry_id = entry.get("case_id", entry.get("id"))
        for field_name, kind in REPORT_FIELDS.items():
            if field_name in entry and _opt(entry, field_name, kind) is _WRONG:
                out.findings.append(check_finding(
                    CheckCode.WRONG_TYPE, record.location(field_name),
                    f"`{field_name}` must be {_ARTICLE.get(kind, 'a ' + kind)} or null, "
                    f"not {json_type(entry[field_name])}",
                    entry_id if isinstance(entry_id, str) else None, record_index=i))
    return out


def _error_location(path: str, text: str, exc: json.JSONDecodeError) -> Location:
    """Where json stopped, one character wide, kept inside its line (an end-of-line error is
    an empty range at the end; a CR before the LF is not part of the line)."""
    start = text.rfind("\n", 0, exc.pos) + 1
    stop = text.find("\n", exc.pos)
    line = text[start : len(text) if stop < 0 else stop].removesuffix("\r")
    end = min(exc.colno + 1, len(line) + 1)
    return Location(path, exc.lineno, min(exc.colno, end), exc.lineno, end)
