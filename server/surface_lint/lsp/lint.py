"""Linting one document version, without pygls.

`lint_document` checks one document. A turn or telemetry JSONL of a surface lane is
checked line by line with a memo keyed by the line's text, so an edit re-evaluates only
the lines it touched; every other document goes to `Engine.check_bytes` whole.
"""

from __future__ import annotations

import bisect
import dataclasses
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from ..engine import CaseIndex, DocResult, Engine, RecordInfo, first_object
from ..engine.casegroup import check_case_lines
from ..engine.casework import judges_without_case
from ..engine.config import ConfigError
from ..engine.results import shift_finding, shift_record
from ..model.checks import CHECK_CODES as C
from ..model.findings import Finding
from ..model.jsonread import loads
from ..rules.loader import Lane, LaneError
from ..sources.base import crlf_notice
from ..sources.lintable import HEAD_BYTES, document_kind
from .documents import Bare, LineMap, Snapshot

_CHUNK_LINES = 512  # lines per engine read (and between cancellation checks) in the line-by-line path


@dataclass
class EngineEntry:
    """An engine for one config file + client settings, and what went wrong building it."""

    engine: Engine
    config_path: Path | None
    config_error: ConfigError | None
    lane_errors: list[LaneError]
    kept: dict[str, str]  # rules path -> lane name kept from the last good load
    generation: int
    hrefs: dict[tuple[str, str], str] = field(default_factory=dict)  # (lane, code) -> docs URL




class CaseSource(Protocol):
    """What a lint asks of its session (`workspace.ServerState` is one): the lane's case files
    for a document and their index, and the generation of the settings it runs under."""

    generation: int

    def case_paths_for(self, entry: EngineEntry, lane: str, doc_path: str) -> tuple[str, ...]: ...

    def case_index(self, entry: EngineEntry, lane: Lane,
                   paths: tuple[str, ...]) -> tuple[CaseIndex | None, tuple[Any, ...]]: ...


class Cancelled(Exception):
    """A lint was abandoned because a newer version of its document arrived."""


class CancelToken:
    __slots__ = ("_event",)

    def __init__(self) -> None:
        self._event = threading.Event()

    def cancel(self) -> None:
        self._event.set()

    @property
    def cancelled(self) -> bool:
        return self._event.is_set()


@dataclass
class LintResult:
    """One lint of one document version, with the engine's records for the editor features.

    In the line-by-line path a record may still carry a pending line shift (`_pairs`):
    shifting every record below an inserted line would cost more than the lint itself.
    """

    uri: str
    path: str
    version: int | None
    lines: tuple[str, ...]
    kind: str | None
    lane: str | None
    findings: list[Finding]
    _records: list[RecordInfo] | None
    entry: EngineEntry | None
    case_paths: tuple[str, ...] = ()
    error: str | None = None
    line_mode: bool = False
    seconds: float = 0.0
    rechecked: int = 0  # lines given to the engine (the rest came from the memo)
    generation: int = 0  # ServerState.generation when the lint started
    _pairs: list[tuple[int, RecordInfo]] | None = None
    bare: Bare = field(default_factory=dict)  # the snapshot's bare CRs (client line ends)
    _linemap: LineMap | None = None

    @property
    def linemap(self) -> LineMap:
        if self._linemap is None:
            self._linemap = LineMap(self.lines, self.bare)
        return self._linemap

    @property
    def records(self) -> list[RecordInfo]:
        if self._records is None:
            pairs = self._pairs or []
            self._records = [shift_record(r, self.path, d) if d else r for d, r in pairs]
        return self._records

    def records_at(self, line: int) -> list[RecordInfo]:
        """Records whose range covers 1-based `line`."""
        if self.line_mode and self._pairs is not None:
            pairs = self._pairs
            i = bisect.bisect_left(pairs, line, key=_pair_line)
            out = []
            while i < len(pairs) and _pair_line(pairs[i]) == line:
                d, r = pairs[i]
                out.append(shift_record(r, self.path, d) if d else r)
                i += 1
            return out
        return [r for r in self.records if r.location.line <= line <= r.location.end_line]

    def line(self, index: int) -> str:
        if 0 <= index < len(self.lines):
            text = self.lines[index]
            return text[:-1] if text.endswith("\r") else text
        return ""


@dataclass
class _LineResult:
    line: int  # where `findings` are
    findings: list[Finding]
    records: list[RecordInfo]
    records_line: int  # where `records` are (shifted lazily)


@dataclass
class _LineEntry:
    turn: tuple[str | None, bool] | None = None  # (case id, is a priming turn), parsed lazily
    results: dict[tuple[bool, bool], _LineResult] = field(default_factory=dict)


@dataclass
class _LinePass:
    """The previous line-by-line lint of a document: what the next one reuses around an edit."""

    lines: tuple[str, ...]
    findings: list[Finding]  # sorted, without the CRLF notice
    pairs: list[tuple[int, RecordInfo]]
    crlf_lines: list[int]
    priming: list[tuple[int, str]]  # (line, case id) of priming turns


@dataclass
class DocMemo:
    """Per-document memo of line results, valid for one engine, lane, kind and case index."""

    key: tuple[Any, ...] = ()
    lines: dict[str, _LineEntry] = field(default_factory=dict)
    last: _LinePass | None = None
    whole: tuple[bytes, int, LintResult] | None = None  # (text, state generation, result)
    hits: int = 0
    misses: int = 0
    # A case-driven lane: each case's lines (numbered from its first) and findings (at that first line).
    cases: dict[str, tuple[tuple[tuple[int, str], ...], int, list[Finding]]] = field(default_factory=dict)
    cases_checked: int = 0  # cases judged again by the last lint (the rest came from `cases`)

    def reset(self, key: tuple[Any, ...]) -> None:
        if key != self.key:
            self.key = key
            self.lines = {}
            self.last = None
            self.whole = None
            self.cases = {}


def _head(snap: Snapshot) -> bytes:
    parts: list[str] = []
    size = 0
    for line in snap.lines:
        parts.append(line)
        size += len(line) + 1
        if size >= HEAD_BYTES:
            break
    return "\n".join(parts).encode("utf-8", "surrogatepass")[:HEAD_BYTES]


# --- linting ------------------------------------------------------------------------------------


def lint_document(state: CaseSource, entry: EngineEntry, snap: Snapshot, memo: DocMemo,
                  token: CancelToken | None,
                  progress: Callable[[list[Finding]], None] | None) -> LintResult:
    engine = entry.engine
    head = _head(snap)
    kind = document_kind(snap.path, head, snap.language_id)
    if kind is None:
        return LintResult(snap.uri, snap.path, snap.version, snap.lines, None, None, [], [], entry, bare=snap.bare)
    lane: Lane | None = None
    if kind in ("turns", "telemetry"):
        lane = engine.detect_lane(snap.path, kind, first=first_object(head))
    elif kind == "report":
        lane = _report_lane(engine, snap)
    cases: CaseIndex | None = None
    case_paths: tuple[str, ...] = ()
    cases_key: tuple[Any, ...] = ()
    if lane is not None:
        case_paths = state.case_paths_for(entry, lane.name, snap.path)
        cases, cases_key = state.case_index(entry, lane, case_paths)
    memo_key = (id(engine), lane.name if lane else None, kind, cases_key)
    if lane is not None and kind in ("turns", "telemetry"):
        memo.reset(memo_key)
        before = memo.misses
        findings, pairs = lint_lines(engine, snap, lane, kind, cases, memo, token, progress)
        if lane.casework is not None and (cases is not None or judges_without_case(lane.casework)):
            findings = sorted([*findings, *case_findings(engine, snap, lane, kind, cases, memo)], key=Finding.sort_key)
        return LintResult(snap.uri, snap.path, snap.version, snap.lines, kind, lane.name, findings, None,
                          entry, case_paths, line_mode=True, rechecked=memo.misses - before, _pairs=pairs,
                          bare=snap.bare)
    data = snap.data()
    memo.reset(memo_key)
    if memo.whole is not None and memo.whole[1] == state.generation and memo.whole[0] == data:
        old = memo.whole[2]
        memo.hits += 1
        return dataclasses.replace(old, uri=snap.uri, version=snap.version, lines=snap.lines, rechecked=0,
                                   bare=snap.bare, _linemap=None)
    memo.misses += 1
    result: DocResult = engine.check_bytes(snap.path, data, None, lane.name if lane else None, cases)
    out = LintResult(snap.uri, snap.path, snap.version, snap.lines, result.kind, result.lane,
                     result.findings, result.records, entry, case_paths, rechecked=len(snap.lines), bare=snap.bare)
    memo.whole = (data, state.generation, out)
    return out


def _report_lane(engine: Engine, snap: Snapshot) -> Lane | None:
    """The lane `check_bytes` would pick for a report (its `lane`, the path, its first entry)."""
    try:
        obj = loads(snap.data())
    except (ValueError, RecursionError):
        obj = None
    hint = None
    first = None
    if isinstance(obj, dict):
        hint = obj.get("lane") if isinstance(obj.get("lane"), str) else None
        entries = obj.get("cases") if "cases" in obj else obj.get("case_details")
        if isinstance(entries, list):
            first = next((e for e in entries if isinstance(e, dict)), None)
    return engine.detect_lane(snap.path, "report", hint, first)


def lint_lines(engine: Engine, snap: Snapshot, lane: Lane, kind: str, cases: CaseIndex | None,
               memo: DocMemo, token: CancelToken | None,
               progress: Callable[[list[Finding]], None] | None,
               ) -> tuple[list[Finding], list[tuple[int, RecordInfo]]]:
    """Check a turn/telemetry JSONL line by line; unchanged lines come from the memo.

    Each line is checked as the engine checks it alone (the engine's one record pipeline):
    the memo misses by one `Engine.check_lines` read per chunk (a cold open reads the file in
    chunks, not line by line), each line given without its line end. The two things a line
    takes from the lines before it are given as context, not as made-up records: the case ids
    primed earlier in the file, and its number (only line 1 reads a BOM and the file's
    encoding). The file-level CRLF notice (this document's line ends, counted here) and the
    once-per-file SL015 are merged here, as the engine asks.

    When the previous pass used the same memo, only the lines between the unchanged head
    and tail of the document are looked at; the rest of its results are reused (the tail
    shifted by the number of lines added or removed).
    """
    path = snap.path
    track_primed = any(p.kind == "primed" for p in lane.predicates)
    new = snap.lines
    last = memo.last
    lo, old_hi, new_hi = 0, 0, len(new)
    if last is not None:
        old = last.lines
        lo = _common_prefix(old, new)
        tail = _common_suffix(old, new, lo)
        old_hi, new_hi = len(old) - tail, len(new) - tail
        if lo == 0 and (old_hi == 0 or new_hi == 0) and tail > 0:
            old_hi, new_hi = old_hi + 1, new_hi + 1  # a line moved to or from line 1 (BOM context)
        if track_primed and (_has_priming(memo, old[lo:old_hi], kind) or _has_priming(memo, new[lo:new_hi], kind)):
            last = None  # primed context below the edit may change: walk every line
    if last is None:
        lo, old_hi, new_hi = 0, 0, len(new)
        head_findings: list[Finding] = []
        head_pairs: list[tuple[int, RecordInfo]] = []
        head_crlf: list[int] = []
        head_priming: list[tuple[int, str]] = []
        tail_findings: list[Finding] = []
        tail_pairs: list[tuple[int, RecordInfo]] = []
        tail_crlf: list[int] = []
        tail_priming: list[tuple[int, str]] = []
    else:
        delta = new_hi - old_hi
        f_lo = bisect.bisect_right(last.findings, lo, key=_finding_line)
        f_hi = bisect.bisect_right(last.findings, old_hi, key=_finding_line)
        head_findings = last.findings[:f_lo]
        tail_findings = last.findings[f_hi:]
        if delta:
            tail_findings = [shift_finding(f, path, delta) for f in tail_findings]
        r_lo = bisect.bisect_right(last.pairs, lo, key=_pair_line)
        r_hi = bisect.bisect_right(last.pairs, old_hi, key=_pair_line)
        head_pairs = last.pairs[:r_lo]
        tail_pairs = [(d + delta, r) for d, r in last.pairs[r_hi:]] if delta else last.pairs[r_hi:]
        head_crlf = [n for n in last.crlf_lines if n <= lo]
        tail_crlf = [n + delta for n in last.crlf_lines if n > old_hi]
        head_priming = [(n, c) for n, c in last.priming if n <= lo]
        tail_priming = [(n + delta, c) for n, c in last.priming if n > old_hi]

    limit = engine.config.max_line_bytes
    primed_ids = {c for _, c in head_priming}
    findings: list[Finding] = []
    pairs: list[tuple[int, RecordInfo]] = []
    crlf_lines: list[int] = []
    priming: list[tuple[int, str]] = []
    table = memo.lines
    next_report = time.perf_counter() + 0.25
    for chunk in range(lo, new_hi, _CHUNK_LINES):
        if chunk > lo:
            if token is not None and token.cancelled:
                raise Cancelled()
            if progress is not None and time.perf_counter() >= next_report:
                progress(head_findings + findings)
                next_report = time.perf_counter() + 1.0
        # The chunk's lines in order, and its memo misses: lines 1 and 2 checked alone, the
        # others in one `Engine.check_lines` read (a cold open checks every line).
        planned: list[tuple[int, _LineEntry, tuple[bool, bool]]] = []
        batch: list[tuple[int, str, str | None]] = []
        batched: list[tuple[int, _LineEntry, tuple[bool, bool]]] = []
        queued: set[tuple[str, tuple[bool, bool]]] = set()
        for i in range(chunk, min(chunk + _CHUNK_LINES, new_hi)):
            number = i + 1
            text = new[i]
            if text.endswith("\r"):
                text = text[:-1]
                # The engine counts CRLF only on lines it reads; its size limit excludes the line end.
                if 4 * len(text) <= limit or len(text.encode("utf-8", "surrogatepass")) <= limit:
                    crlf_lines.append(number)
            if not text.strip():
                continue
            entry = table.get(text)
            if entry is None:
                entry = table[text] = _LineEntry()
            case_id: str | None = None
            prefix_primed = False
            if track_primed:
                if entry.turn is None:
                    entry.turn = _turn_info(text, kind)
                case_id, is_priming = entry.turn
                if is_priming and case_id:
                    primed_ids.add(case_id)
                    priming.append((number, case_id))
                prefix_primed = bool(case_id) and case_id in primed_ids and not is_priming
            # Only line 1 reads a BOM and the file's encoding: every other line is checked alike.
            key = (prefix_primed, number == 1)
            planned.append((number, entry, key))
            if key in entry.results or (text, key) in queued:
                memo.hits += 1
                continue
            memo.misses += 1
            queued.add((text, key))
            batch.append((number, text, case_id if prefix_primed else None))
            batched.append((number, entry, key))
        if batch:
            for (number, entry, key), checked in zip(batched, engine.check_lines(path, batch, kind, lane.name, cases),
                                                     strict=True):
                entry.results[key] = _LineResult(number, checked.findings, checked.records, number)
        for number, entry, key in planned:
            result = entry.results[key]
            if result.line != number:
                result = _LineResult(number, [shift_finding(f, path, number - result.line) for f in result.findings],
                                     result.records, result.records_line)
                entry.results[key] = result
            findings.extend(result.findings)
            if result.records:
                d = number - result.records_line
                pairs.extend((d, r) for r in result.records)
    if len(table) > 2 * len(new) + 1024:
        # Every version of an edited line stays in the memo; drop the lines no longer there.
        current = {raw[:-1] if raw.endswith("\r") else raw for raw in new}
        memo.lines = {text: entry for text, entry in table.items() if text in current}
    all_findings = head_findings + findings + tail_findings
    all_pairs = head_pairs + pairs + tail_pairs
    all_crlf = head_crlf + crlf_lines + tail_crlf
    memo.last = _LinePass(new, all_findings, all_pairs, all_crlf, head_priming + priming + tail_priming)
    all_findings = _once_per_file(all_findings)
    if all_crlf:
        first = all_crlf[0]
        notice = crlf_notice(path, first, len(all_crlf))
        all_findings = list(all_findings)
        bisect.insort(all_findings, notice, key=Finding.sort_key)
    return all_findings, all_pairs


def case_findings(engine: Engine, snap: Snapshot, lane: Lane, kind: str, cases: CaseIndex | None,
                  memo: DocMemo) -> list[Finding]:
    """A case-driven lane judges cases, not lines: an edit re-judges every case whose lines
    changed (all of its lines, wherever they are in the document); the other cases' findings
    come from the memo, moved with their first line. A case not given (no case files found, or
    an id they do not hold) is judged on the lane's `without_case` checks."""
    path = snap.path
    by_case: dict[str, list[tuple[int, str]]] = {}
    for i, raw in enumerate(snap.lines):
        text = raw[:-1] if raw.endswith("\r") else raw
        if not text.strip():
            continue
        if i == 0 and text.startswith("\ufeff"):  # line 1's byte-order mark is not part of its record
            info = _turn_info(text[1:], kind)
        else:
            entry = memo.lines.get(text)
            info = entry.turn if entry is not None and entry.turn is not None else _turn_info(text, kind)
            if entry is not None:
                entry.turn = info
        if info[0] is not None:
            by_case.setdefault(info[0], []).append((i + 1, text))
    kept: dict[str, tuple[tuple[tuple[int, str], ...], int, list[Finding]]] = {}
    out: list[Finding] = []
    memo.cases_checked = 0
    for case_id, lines in by_case.items():
        first = lines[0][0]
        key = tuple((n - first, text) for n, text in lines)
        old = memo.cases.get(case_id)
        if old is not None and old[0] == key:
            found = old[2] if old[1] == first else [shift_finding(f, path, first - old[1]) for f in old[2]]
        else:
            found = check_case_lines(engine, path, lines, kind, lane, cases)
            memo.cases_checked += 1
        kept[case_id] = (key, first, found)
        out.extend(found)
    memo.cases = kept
    return out


# Findings the engine reports once per file and case id, at the first record (SL015: a
# case id that matches no case); each line checked alone reports its own.
_ONCE_PER_FILE = frozenset({C.UNJOINED})


def _once_per_file(findings: list[Finding]) -> list[Finding]:
    if not any(f.code in _ONCE_PER_FILE for f in findings):
        return findings
    seen: set[tuple[str, str | None]] = set()
    out = []
    for f in findings:
        if f.code in _ONCE_PER_FILE:
            key = (f.code, f.record_id)
            if key in seen:
                continue
            seen.add(key)
        out.append(f)
    return out


def _common_prefix(a: tuple[str, ...], b: tuple[str, ...]) -> int:
    """Length of the common head of two line tuples (tuple slices compare in C)."""
    lo, hi = 0, min(len(a), len(b))
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if a[lo:mid] == b[lo:mid]:
            lo = mid
        else:
            hi = mid - 1
    return lo


def _common_suffix(a: tuple[str, ...], b: tuple[str, ...], prefix: int) -> int:
    """Length of the common tail, not overlapping a common head of `prefix` lines."""
    lo, hi = 0, min(len(a), len(b)) - prefix
    na, nb = len(a), len(b)
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if a[na - mid : na - lo] == b[nb - mid : nb - lo]:
            lo = mid
        else:
            hi = mid - 1
    return lo


def _has_priming(memo: DocMemo, lines: tuple[str, ...], kind: str) -> bool:
    for raw in lines:
        text = raw[:-1] if raw.endswith("\r") else raw
        entry = memo.lines.get(text)
        info = entry.turn if entry is not None and entry.turn is not None else _turn_info(text, kind)
        if info[1]:
            return True
    return False


def _finding_line(f: Finding) -> int:
    return f.location.line


def _pair_line(pair: tuple[int, RecordInfo]) -> int:
    return pair[1].line + pair[0]


def _turn_info(text: str, kind: str) -> tuple[str | None, bool]:
    """(case id, is a priming turn) as the engine's turn reader would see this line."""
    try:
        data = loads(text)
    except (ValueError, RecursionError):
        return None, False
    if not isinstance(data, dict) or not isinstance(data.get("surface"), str):
        return None, False
    case_id = data.get("case_id")
    case_id = case_id if isinstance(case_id, str) and case_id else None
    role = data.get("role")
    return case_id, role == "priming" and case_id is not None
