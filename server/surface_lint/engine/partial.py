"""Scoring a lane in pieces and merging the pieces exactly: what `--jobs` and `surface_lint.api` share.

A *span* is one transcript file or a range of its lines (`split_file` cuts a large JSONL file at
line boundaries, where the case id changes). Scoring a span (`score_span`, in any process)
evaluates its records (the costly part: the predicates) and writes what the fold needs of each
to a *segment*: a stream of pickled batches, in a file or in memory, never held whole. Merging
(`SegmentMerge`) folds the segments' records in span order into one `LaneScorer`, as if one
process had read every span in turn: the same positions, case order, duplicates, float sums
(summed here in case order, as one process sums them) and the same first failing cases with
findings. What one span cannot know of another is checked as the segments are merged: a case
primed in one span and scored in a later one, or a symbolic chain whose turns are in two spans,
is an `Overlap` (the caller scores those inputs in one process); a case id unknown to the case
files in two spans keeps only the first span's SL015, as one reader would.
"""

from __future__ import annotations

import io
import json
import os
import pickle
import stat
import tempfile
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import IO, Any

from ..model.checks import CHECK_CODES as C
from ..model.findings import Finding, Location
from ..rules.loader import Lane
from ..sources.base import JsonlReader, ReadStats, Record, _CrlfCount, crlf_notice
from ..sources.lines import UTF8, UTF8_BOM, _Prefixed, _utf8_lines, detect_encoding
from ..sources.streams import open_input
from ..sources.transcripts import Turn, iter_turns, sniff_stream
from .caseindex import IdSet
from .compact import whole_record
from .pipeline import join_turns
from .results import CaseIndex, UsageError
from .score import LaneScorer, Scored
from .services import EngineServices
from .spool import fewer_collections

BATCH_ITEMS = 1024  # items pickled together: what a reader of a segment holds at once
MIN_SPAN_BYTES = 1 << 20  # a file is cut into ranges only where each gets at least this much
_BOUNDARY_LINES = 4096  # lines looked at past a cut for one where the case id changes

# Tags of a segment's items: a scored record (a Scored, or only what the tally reads of it), an
# input problem, an id no case matched, a primed id.
SCORED, COUNTED, PROBLEM, UNKNOWN, PRIMED = 0, 1, 2, 3, 4


class Overlap(Exception):
    """Two spans share a case in a way only one reader sees (priming, a split chain), or a
    chain lane's lane report follows its turn files (one reader folds a report's records as it
    reads them and every chain after the last turn)."""

    def __init__(self, case_id: str | None, why: str) -> None:
        super().__init__(f"case `{case_id}` {why}" if case_id is not None else why)
        self.case_id = case_id


def scratch_error(folder: str, exc: OSError) -> UsageError:
    reason = (exc.strerror or str(exc)).lower()
    return UsageError(f"cannot write scratch data to {folder}: {reason} (set TMPDIR)")


# --- batches: bulk results in bounded pieces -----------------------------------------------


class BatchWriter:
    """Items pickled a batch at a time to a file (or to memory): never more than a batch held."""

    def __init__(self, fh: IO[bytes], path: str | None) -> None:
        self._fh = fh
        self.path = path or ""
        self._batch: list[Any] = []
        self.count = 0
        self._data: bytes | None = None
        self._closed = False

    @classmethod
    def in_folder(cls, folder: str) -> BatchWriter:
        try:
            fd, path = tempfile.mkstemp(prefix="part-", suffix=".batches", dir=folder)
        except OSError as exc:
            raise scratch_error(folder, exc) from None
        return cls(os.fdopen(fd, "wb"), path)

    @classmethod
    def in_memory(cls) -> BatchWriter:
        return cls(io.BytesIO(), None)

    def add(self, item: Any) -> None:
        self._batch.append(item)
        self.count += 1
        if len(self._batch) >= BATCH_ITEMS:
            self.flush()

    def flush(self) -> None:
        if self._batch:
            try:
                pickle.dump(self._batch, self._fh, pickle.HIGHEST_PROTOCOL)
            except OSError as exc:
                raise scratch_error(os.path.dirname(self.path) or tempfile.gettempdir(), exc) from None
            self._batch = []

    def close(self) -> bytes | None:
        """Everything written; the bytes when written to memory (closing again gives them again)."""
        if self._closed:
            return self._data
        self._closed = True
        self.flush()
        self._data = self._fh.getvalue() if isinstance(self._fh, io.BytesIO) else None
        try:
            self._fh.close()
        except OSError as exc:
            raise scratch_error(os.path.dirname(self.path) or tempfile.gettempdir(), exc) from None
        return self._data

    def __enter__(self) -> BatchWriter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def read_batches(source: str | bytes, remove: bool = False) -> Iterator[list[Any]]:
    """The batches a `BatchWriter` wrote (a file's name, or its bytes), in order, one at a time."""
    fh: IO[bytes] = io.BytesIO(source) if isinstance(source, bytes) else open(source, "rb")
    try:
        while True:
            try:
                batch = pickle.load(fh)
            except EOFError:
                return
            yield batch
    finally:
        fh.close()
        if remove and isinstance(source, str):
            try:
                os.unlink(source)
            except OSError:
                pass


# --- spans: a file, or a range of its lines -------------------------------------------------


@dataclass(frozen=True, slots=True)
class Span:
    """A transcript file, or the lines of it from byte `start` (line `line`) to byte `end`."""

    path: str
    start: int = 0
    end: int | None = None  # None: to the end of the file
    line: int = 1

    @property
    def whole(self) -> bool:
        return self.start == 0 and self.end is None


def _case_of(raw: bytes) -> object:
    try:
        data = json.loads(raw)
    except (ValueError, RecursionError):
        return None
    return data.get("case_id") if isinstance(data, dict) else None


def split_file(path: str, parts: int, min_bytes: int = MIN_SPAN_BYTES) -> list[Span]:
    """`path` cut into up to `parts` ranges of whole lines, each at least `min_bytes`, each cut
    moved down to the first line whose case id differs from the line before (within a few
    thousand lines; a case's turns written together stay in one range). One span (the whole
    file) for anything but a regular UTF-8 JSONL file without a byte-order mark."""
    whole = [Span(path)]
    try:
        info = os.stat(path)
    except OSError:
        return whole
    if not stat.S_ISREG(info.st_mode) or parts < 2:
        return whole
    size = info.st_size
    parts = min(parts, size // max(1, min_bytes))
    if parts < 2:
        return whole
    cuts: list[int] = []
    with open(path, "rb") as fh:
        head = fh.read(8)
        if detect_encoding(head) != UTF8 or head.startswith(UTF8_BOM):
            return whole
        for k in range(1, parts):
            fh.seek(max(size * k // parts - 1, cuts[-1] if cuts else 0))
            _skip_line(fh)  # to the start of the next line
            cut = _case_change(fh)
            if cut is not None and cut < size and (not cuts or cut > cuts[-1]):
                cuts.append(cut)
        if not cuts:
            return whole
        lines = _line_numbers(fh, cuts)
    starts = [0, *cuts]
    ends: list[int | None] = [*cuts, None]
    return [Span(path, s, e, n) for s, e, n in zip(starts, ends, [1, *lines], strict=True)]


def _skip_line(fh: IO[bytes]) -> None:
    while True:
        chunk = fh.readline(1 << 20)
        if not chunk or chunk.endswith(b"\n"):
            return


def _case_change(fh: IO[bytes]) -> int | None:
    """The offset of the first line (from here) whose case id differs from the line before."""
    here = fh.tell()
    first = fh.readline(1 << 20)
    if not first:
        return None
    if not first.endswith(b"\n"):  # a very long line: cut after it
        _skip_line(fh)
        return fh.tell()
    previous = _case_of(first)
    for _ in range(_BOUNDARY_LINES):
        at = fh.tell()
        line = fh.readline(1 << 20)
        if not line:
            break
        if not line.endswith(b"\n"):
            _skip_line(fh)
            return fh.tell()
        case = _case_of(line)
        if case != previous or case is None:
            return at
        previous = case
    # One case over thousands of lines (or to the end): cut anyway; the merge is exact across
    # the cut, or finds the overlap (then everything is read in one process).
    return here


def _line_numbers(fh: IO[bytes], offsets: Sequence[int]) -> list[int]:
    """The 1-based number of the line starting at each offset (ascending)."""
    fh.seek(0)
    numbers: list[int] = []
    count, position = 0, 0
    for offset in offsets:
        while position < offset:
            chunk = fh.read(min(1 << 20, offset - position))
            if not chunk:
                break
            count += chunk.count(b"\n")
            position += len(chunk)
        numbers.append(count + 1)
    return numbers


class _Window:
    """`length` bytes of a stream from its position: a range of whole lines."""

    def __init__(self, fh: IO[bytes], length: int | None) -> None:
        self._fh = fh
        self._left = length

    def readline(self, limit: int) -> bytes:
        if self._left is None:
            return self._fh.readline(limit)
        if self._left <= 0:
            return b""
        raw = self._fh.readline(min(limit, self._left))
        self._left -= len(raw)
        return raw

    def read(self, size: int) -> bytes:
        if self._left is None:
            return self._fh.read(size)
        raw = self._fh.read(min(size, max(0, self._left)))
        self._left -= len(raw)
        return raw


@dataclass(slots=True)
class RangeReader(JsonlReader):
    """A `JsonlReader` over one span of a UTF-8 file: its lines numbered from the span's first,
    its CRLF line ends counted for the merge (which reports the file's one notice)."""

    first_line: int = 1
    length: int | None = None
    crlf: _CrlfCount = field(default_factory=_CrlfCount)

    def records(self, source: Any) -> Iterator[Record]:
        lines = _utf8_lines(_Prefixed(b"", _Window(source, self.length)), self.max_line_bytes)  # type: ignore[arg-type]
        shift = self.first_line - 1
        numbered = ((number + shift, raw) for number, raw in lines) if shift else lines
        yield from self._read(numbered, UTF8, self.crlf)


# --- segments: one span scored ----------------------------------------------------------------


@dataclass
class Segment:
    """What one span's scoring leaves for the merge. Small: the records are in `file` (a batch
    file, read once and removed) or `data` (the batches' bytes)."""

    key: tuple[int, ...]  # its place among the segments of a run (span order)
    path: str
    file: str | None
    data: bytes | None
    stats: ReadStats
    unscored: dict[str, int]
    records: int  # records the span's reader yielded (the next span's record indices follow them)
    split: bool  # a range of a file (not the whole file)
    crlf: tuple[int, int] = (0, 0)  # (lines, first line) of CRLF line ends in a range
    reports_read: int = 0
    declared: str | None = None
    items: int = 0
    report: bool = False  # a lane report (its records folded as read, never as chains of turns)

    def batches(self) -> Iterator[list[Any]]:
        if self.data is not None:
            return read_batches(self.data)
        assert self.file is not None
        return read_batches(self.file, remove=True)


def score_span(engine: EngineServices, lane: Lane, index: CaseIndex | None, span: Span, key: tuple[int, ...],
               want_rows: bool, finding_limit: int | None, texts: Mapping[str, bytes],
               out: BatchWriter, row_findings: bool = True) -> Segment:
    """One span scored: each scored record, input problem, unknown and primed id to `out`."""
    add = out.add
    scorer = _SpanScorer(engine, lane, index, want_rows, finding_limit)
    scorer.out = add
    scorer.span_path = span.path
    scorer.row_findings = row_findings
    if want_rows:  # rows need every Scored; else only what the tally reads (`_SpanScorer.count`)
        scorer.on_scored = lambda scored: add((SCORED, scored))
    primed = IdSet()
    given = texts.get(span.path)
    records = 0
    crlf = (0, 0)
    try:
        if given is not None:
            kind = sniff_stream(io.BytesIO(given))
        else:
            with open_input(span.path) as fh:
                kind = sniff_stream(fh)
    except OSError as exc:
        raise UsageError(f"{span.path}: cannot read: {exc.strerror}") from None
    if kind in ("report", "cases") or (kind is None and not span.whole):
        scorer.read([span.path], texts)  # a lane report (whole), or what the reader refuses
    else:
        reader: JsonlReader
        if span.whole:
            reader = JsonlReader(span.path, engine.config.max_line_bytes)
        else:
            length = None if span.end is None else span.end - span.start
            reader = RangeReader(span.path, engine.config.max_line_bytes, first_line=span.line, length=length)
        scorer.unknown_reported = IdSet()
        try:
            with io.BytesIO(given) if given is not None else open_input(span.path) as fh:
                fh.seek(span.start)
                turns = _watch(iter_turns(span.path, fh, kind or "turns", reader), reader, scorer.problem, primed)
                scorer.fold(join_turns(lane, turns, index, unknown=scorer.unknown_reported))
        except OSError as exc:
            raise UsageError(f"{span.path}: cannot read: {exc.strerror}") from None
        for problem in reader.findings:
            scorer.problem(problem)
        scorer.stats.add(reader.stats)
        records = reader.yielded
        if isinstance(reader, RangeReader):
            crlf = (reader.crlf.lines, reader.crlf.first)
    for _, problem in scorer.findings:
        add((PROBLEM, problem))
    scorer.findings.close()
    for case_id in scorer.unknown:
        add((UNKNOWN, case_id))
    for case_id in primed:
        add((PRIMED, case_id))
    count = out.count
    data = out.close()
    return Segment(key, span.path, out.path or None, data, scorer.stats, dict(scorer.unscored), records,
                   not span.whole, crlf, scorer.reports_read, scorer.declared, count, kind == "report")


class _SpanScorer(LaneScorer):
    """A span's scorer: what the tally reads of each scored record goes to the segment (the
    merge counts it), without rows (text, SARIF, GitHub): a tuple of builtins, not a Scored."""

    out: Callable[[Any], None]
    span_path: str = ""

    def count(self, case_id: str, signals: tuple[Any, ...], failed: tuple[str, ...], where: Record | Location,
              record_index: int | None, findings: Iterable[Finding]) -> tuple[int, int]:
        whole = where if isinstance(where, Location) else whole_record(where)
        # The record's range without its path (the segment's) unless it lies elsewhere.
        at: tuple[Any, ...] = (whole.line, whole.column, whole.end_line, whole.end_column)
        if whole.path != self.span_path:
            at = (*at, whole.path)
        self.out((COUNTED, (case_id, signals, failed, at, record_index, tuple(findings))))
        return 0, 0


def _watch(turns: Iterable[Turn], reader: JsonlReader, problem: Callable[[Finding], None],
           primed: IdSet) -> Iterator[Turn]:
    """The turns, the reader's findings moved to the scorer as they come, priming ids noted."""
    found = reader.findings
    for turn in turns:
        if found:
            for f in found:
                problem(f)
            found.clear()
        if turn.role == "priming" and turn.case_id:
            primed.add(turn.case_id)
        yield turn


# --- the merge ------------------------------------------------------------------------------


def _reindexed(f: Finding, offset: int) -> Finding:
    """A finding of a later range of a file, its record index counted from the file's start."""
    if not offset or f.record_index is None:
        return f
    return Finding(f.location, f.code, f.rule, f.severity, f.message, f.record_id, f.related, f.fixes,
                   f.record_index + offset, f.extra)


class SegmentMerge:
    """Segments folded, in key order, into one LaneScorer (see the module's docstring)."""

    def __init__(self, scorer: Any) -> None:
        self.scorer = scorer
        self.primed = IdSet()  # ids primed in the segments merged so far
        self.unknown = IdSet()  # ids no case matched in the segments merged so far (SL015 given)
        self.chains: IdSet | None = IdSet() if scorer.lane.unit == "chain" else None
        self._chain_turns = False  # a chain lane's turn file merged (no lane report may follow)
        self._offsets: dict[str, int] = {}
        self._crlf: dict[str, tuple[int, int]] = {}

    def add(self, segment: Segment) -> None:
        scorer = self.scorer
        offset = self._offsets.get(segment.path, 0) if segment.split else 0
        self._offsets[segment.path] = offset + segment.records
        scorer.stats.add(segment.stats)
        scorer.reports_read += segment.reports_read
        if scorer.declared is None:
            scorer.declared = segment.declared
        for key, n in segment.unscored.items():
            scorer.unscored[key] += n
        limit = scorer.finding_limit
        primed, unknown, chains = self.primed, self.unknown, self.chains
        if chains is not None and segment.report:
            if self._chain_turns:
                raise Overlap(None, f"{segment.path}: a lane report after the chain lane's turn files")
            chains = None  # a report's cases are records, not chains: a later one replaces an earlier one
        elif chains is not None:
            self._chain_turns = True
        check_primed = bool(primed)

        def admit(case_id: str) -> None:
            """A scored record of this segment, against what the earlier segments saw (each id
            is noted as it comes: a segment yields each chain once, its primed ids last)."""
            if check_primed and case_id in primed:
                raise Overlap(case_id, "is primed in one part of the input and scored in another")
            if chains is not None and not chains.add(case_id):
                raise Overlap(case_id, "has chain turns in two parts of the input")

        def shown(found: tuple[Finding, ...]) -> tuple[Finding, ...]:
            """The findings a record keeps: each span counted only its own; the limit is over all."""
            if offset:
                found = tuple([_reindexed(f, offset) for f in found])
            if found:
                if limit is not None and scorer.failing_shown >= limit:
                    return ()
                scorer.failing_shown += 1
            return found

        with fewer_collections():
            for batch in segment.batches():
                for tag, value in batch:
                    if tag == COUNTED:
                        case_id, signals, failed, at, record_index, found = value
                        admit(case_id)
                        where = Location(at[4] if len(at) > 4 else segment.path, at[0], at[1], at[2], at[3])
                        if offset and record_index is not None:
                            record_index += offset
                        scorer.count(case_id, signals, failed, where, record_index, shown(found))
                    elif tag == SCORED:
                        scored: Scored = value
                        admit(scored.case_id)
                        if offset and scored.record_index is not None:
                            scored.record_index += offset
                        scored.findings = shown(scored.findings)
                        scorer.keep(scored)
                    elif tag == PROBLEM:
                        problem: Finding = value
                        if problem.code == C.UNJOINED and problem.record_id is not None and unknown \
                                and problem.record_id in unknown:
                            continue  # an earlier segment reported this id first
                        scorer.problem(_reindexed(problem, offset))
                    elif tag == UNKNOWN:  # after this segment's problems: they were checked above
                        if not unknown.add(value) and chains is not None:
                            raise Overlap(value, "has chain turns in two parts of the input")
                        scorer.unknown.add(value)
                    else:  # after this segment's scored records
                        primed.add(value)
        if segment.split and segment.crlf[0]:
            lines, first = self._crlf.get(segment.path, (0, 0))
            self._crlf[segment.path] = (lines + segment.crlf[0], first or segment.crlf[1])

    def done(self, path: str) -> None:
        """Every segment of `path` merged: its file-level notices (the CRLF count of its ranges)."""
        lines, first = self._crlf.pop(path, (0, 0))
        if lines:
            self.scorer.problem(crlf_notice(path, first, lines))
