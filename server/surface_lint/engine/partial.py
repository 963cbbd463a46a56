"""Scoring a lane in pieces and merging the pieces exactly: what `--jobs` and `surface_lint.api` share.

A *span* is one transcript file or a range of its lines (`split_file` cuts a large JSONL file at
line boundaries, where the case id changes). Scoring a span (in any process) evaluates its
records (the costly part: the predicates) and folds them there. For a lane whose unit is a
record (`tally_span`), into a *span state*: the tally as flat arrays in chunks (case digests,
tally keys, value-slot numbers), the findings sorted and the case rows in order, as batch
streams (files in the run's scratch folder, or compressed bytes that travel with a pickle).
`TallyMerge` adds the arrays to one `LaneScorer`'s CompactOutcomes in span order and reads the
streams only when a report iterates them: the same positions, case order, duplicates (found
across spans by the digests), exact sums and first failing cases with findings as one process.
What one span cannot know of another is checked as they are merged: a case primed in one span
and scored in a later one is an `Overlap` (the caller scores those inputs in one process); a
case id unknown to the case files in two spans keeps only the first span's SL015, as one reader
would. (A case-driven lane's parts are its cases: casescore.py.)
"""

from __future__ import annotations

import hashlib
import heapq
import io
import itertools
import os
import pickle
import shutil
import stat
import struct
import tempfile
import weakref
import zlib
from array import array
from bisect import bisect_left
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import IO, Any, cast

from ..model.checks import CHECK_CODES as C
from ..model.findings import Finding, Location
from ..model.jsonread import loads
from ..rules.loader import Lane
from ..sources.base import JsonlReader, ReadStats, Record, _CrlfCount, crlf_notice
from ..sources.lines import UTF8, UTF8_BOM, _Prefixed, _utf8_lines, detect_encoding
from ..sources.streams import open_input
from ..sources.transcripts import Turn, iter_turns, sniff_stream
from .caseindex import IdSet
from .compact import unbucketed, whole_record
from .pipeline import join_turns
from .results import CaseIndex, UsageError
from .score import LaneScorer
from .scoring import SlotValues, lane_signals
from .services import EngineServices
from .spool import Spool, fewer_collections

BATCH_ITEMS = 1024  # items pickled together: what a reader of a segment holds at once
MIN_SPAN_BYTES = 1 << 20  # a file is cut into ranges only where each gets at least this much
_BOUNDARY_LINES = 4096  # lines looked at past a cut for one where the case id changes

class Overlap(Exception):
    """Two spans share a case in a way only one reader sees (a case primed in one and scored in
    another)."""

    def __init__(self, case_id: str | None, why: str) -> None:
        super().__init__(f"case `{case_id}` {why}" if case_id is not None else why)
        self.case_id = case_id


def scratch_error(folder: str, exc: OSError) -> UsageError:
    reason = (exc.strerror or str(exc)).lower()
    return UsageError(f"cannot write scratch data to {folder}: {reason} (set TMPDIR)")


def scratch_folder() -> str:
    """A private folder for one run's worker output (its caller removes it)."""
    try:
        return tempfile.mkdtemp(prefix="surface-lint-jobs-")
    except OSError as exc:
        raise scratch_error(tempfile.gettempdir(), exc) from None


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

    @classmethod
    def packed(cls) -> BatchWriter:
        """In memory, compressed as written (`Packed` bytes, read back a batch at a time)."""
        return cls(cast(IO[bytes], _Deflating()), None)

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
        self._data = self._fh.getvalue() if isinstance(self._fh, (io.BytesIO, _Deflating)) else None
        try:
            self._fh.close()
        except OSError as exc:
            raise scratch_error(os.path.dirname(self.path) or tempfile.gettempdir(), exc) from None
        return self._data

    def __enter__(self) -> BatchWriter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class Packed(bytes):
    """Batches compressed with zlib (what `BatchWriter.packed` gives)."""


class _Deflating:
    """A write-only stream that keeps what is written compressed."""

    def __init__(self) -> None:
        self._z = zlib.compressobj(1)
        self._parts: list[bytes] = []
        self._done: Packed | None = None

    def write(self, data: bytes) -> int:
        self._parts.append(self._z.compress(data))
        return len(data)

    def getvalue(self) -> Packed:
        if self._done is None:
            self._parts.append(self._z.flush())
            self._done = Packed(b"".join(self._parts))
            self._parts = []
        return self._done

    def close(self) -> None:
        self.getvalue()


class _Inflating(io.RawIOBase):
    """Packed bytes read back as a stream, decompressed a piece at a time."""

    def __init__(self, data: bytes) -> None:
        self._data = memoryview(data)
        self._at = 0
        self._z = zlib.decompressobj()
        self._buffer = b""

    def readable(self) -> bool:
        return True

    def readinto(self, out: Any) -> int:
        while not self._buffer and (self._at < len(self._data) or not self._z.eof):
            if self._at >= len(self._data):
                self._buffer = self._z.flush()
                break
            piece = self._data[self._at:self._at + (1 << 16)]
            self._at += len(piece)
            self._buffer = self._z.decompress(piece)
        n = min(len(out), len(self._buffer))
        out[:n] = self._buffer[:n]
        self._buffer = self._buffer[n:]
        return n


def read_batches(source: str | bytes, remove: bool = False) -> Iterator[list[Any]]:
    """The batches a `BatchWriter` wrote (a file's name, or its bytes), in order, one at a time."""
    fh: IO[bytes]
    if isinstance(source, Packed):
        fh = io.BufferedReader(_Inflating(source), 1 << 16)
    else:
        fh = io.BytesIO(source) if isinstance(source, bytes) else open(source, "rb")
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
        data = loads(raw)
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


def _read_span(scorer: LaneScorer, engine: EngineServices, span: Span,
               texts: Mapping[str, bytes]) -> tuple[int, tuple[int, int], str | None, IdSet]:
    """The span's records folded into `scorer`: (records the reader yielded, the CRLF count of a
    range, the kind sniffed, the ids primed)."""
    lane, index = scorer.lane, scorer.index
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
        return records, crlf, kind, primed
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
    return records, crlf, kind, primed


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


# --- tallies: one span folded in its worker, merged as small states -------------------------
# A lane whose unit is a record (not a chain): each span's worker folds its records into a
# `SpanTally` (a case's digest, tally key and value-slot numbers, 18 bytes or so a record, in
# chunks) and keeps its findings and case rows in the order the reports list them, in batch
# streams. The merge (`TallyMerge`) adds the chunks' arrays to the run's `CompactOutcomes` as
# they are (the duplicates across spans found there, as in one process) and reads the findings
# and rows streams only when a report iterates them, in span order: no record is unpickled or
# folded again here.

TALLY_CHUNK = 4096  # records of a tally chunk: its ids are unpickled only for a record that may repeat one
_DIGEST = struct.Struct("<qq")


def stable_digest(case_id: str) -> tuple[int, int]:
    """A case id's two 64-bit digests, the same in every process (`hash` is salted per process)."""
    return _DIGEST.unpack(hashlib.blake2b(case_id.encode("utf-8", "surrogatepass"), digest_size=16).digest())


Stored = str | bytes  # a batch stream: a file in the run's scratch folder, or its bytes


class SpanTally:
    """A span's scored records as a `CompactOutcomes` would count them, written out a chunk at a
    time: memory holds one chunk."""

    def __init__(self, lane: Lane, out: BatchWriter) -> None:
        names = lane_signals(lane)
        self.unbucketed = unbucketed(lane, names)
        self.values = SlotValues(names)
        self.keys: dict[tuple[tuple[Any, ...], bool], int] = {}
        self.key_list: list[tuple[tuple[Any, ...], bool]] = []
        self.key_unbucketed: list[bool] = []
        self.out = out
        self.count = 0
        self.base = 0  # position of the chunk's first record
        self._new_chunk()

    def _new_chunk(self) -> None:
        self.high, self.low, self.key = array("q"), array("q"), array("H")
        self.ids: list[tuple[str, Location, int | None]] = []
        self.named: list[tuple[int, str]] = []

    def add(self, case_id: str, signals: tuple[Any, ...], failed: tuple[str, ...], where: Location,
            record_index: int | None) -> int:
        position = self.count
        signals = self.values.take(signals)
        k = (signals, not failed)
        key = self.keys.get(k)
        if key is None:
            key = self.keys[k] = len(self.key_list)
            self.key_list.append((signals, bool(failed)))
            self.key_unbucketed.append(self.unbucketed(signals))
        high, low = stable_digest(case_id)
        self.high.append(high)
        self.low.append(low)
        self.key.append(key)
        self.ids.append((case_id, where, record_index))
        if self.key_unbucketed[key]:
            self.named.append((position - self.base, case_id))
        self.count = position + 1
        if len(self.key) >= TALLY_CHUNK:
            self.flush()
        return position

    def flush(self) -> None:
        n = len(self.key)
        if not n:
            return
        values, base = self.values, self.base
        big = sorted((p - base, j, x) for (p, j), x in values.big.items())
        values.big.clear()
        numbers = [array("d", column) for column in values.numbers]
        kinds = [array("B", column) for column in values.kinds]
        for number_column in values.numbers:
            del number_column[:]
        for kind_column in values.kinds:
            del kind_column[:]
        self.out.add((n, self.high, self.low, self.key, numbers, kinds, big, self.named,
                      pickle.dumps(self.ids, pickle.HIGHEST_PROTOCOL)))
        self.out.flush()
        self.base += n
        self._new_chunk()


@dataclass
class SpanState:
    """What one span's worker leaves for the merge: counts, and its streams (a tally chunk a
    batch, findings sorted as reports list them, case rows in their order)."""

    key: tuple[int, ...]
    path: str
    split: bool
    records: int  # records the span's reader yielded (the next span's record indices follow them)
    scored: int  # scored records in the tally
    key_list: list[tuple[tuple[Any, ...], bool]]
    tally: Stored
    findings: Stored
    finding_count: int
    rows: Stored | None
    row_count: int
    counted: tuple[int, ...] | None  # with a finding limit: the positions of failing records with findings
    stats: ReadStats
    unscored: dict[str, int]
    ranks: bytes  # the case ranks scored (one byte each), or b"" without cases
    unknown: tuple[str, ...]
    primed: tuple[str, ...]
    crlf: tuple[int, int] = (0, 0)
    reports_read: int = 0
    declared: str | None = None

    @property
    def nbytes(self) -> int:
        """Bytes of the streams carried in memory (none when they are files)."""
        return sum(len(x) for x in (self.tally, self.findings, self.rows) if isinstance(x, bytes))


class _RowSink:
    """Case rows straight to a batch stream (rows in position order need no sort)."""

    def __init__(self, out: BatchWriter) -> None:
        self.out = out
        self.count = 0

    def append(self, row: tuple[Any, ...]) -> None:
        self.out.add(row)
        self.count += 1

    def __len__(self) -> int:
        return self.count

    def close(self) -> None:
        pass


class _TallyScorer(LaneScorer):
    """A span's scorer that counts into a `SpanTally` (positions from the span's first record)."""

    tally: SpanTally
    counted: list[int] | None = None

    def count(self, case_id: str, signals: tuple[Any, ...], failed: tuple[str, ...], where: Record | Location,
              record_index: int | None, findings: Iterable[Finding]) -> tuple[int, int]:
        whole = where if isinstance(where, Location) else whole_record(where)
        position = self.tally.add(case_id, signals, failed, whole, record_index)
        rank = position
        if self.index is not None:
            rank = self.index.rank(case_id)
            if rank >= 0:
                self.scored_ranks[rank] = 1
        if findings:
            append = self.findings.append
            for f in findings:
                append((position, f))
            if failed and self.counted is not None:
                self.counted.append(position)
        return position, rank


def tally_span(engine: EngineServices, lane: Lane, index: CaseIndex | None, span: Span, key: tuple[int, ...],
               want_rows: bool, finding_limit: int | None, texts: Mapping[str, bytes],
               writer: Callable[[], BatchWriter], row_findings: bool = True) -> SpanState:
    """One span folded (not a chain lane's): its tally, findings and rows to streams `writer` makes."""
    scorer = _TallyScorer(engine, lane, index, want_rows, finding_limit)
    scorer.row_findings = row_findings
    tally_out = writer()
    scorer.tally = SpanTally(lane, tally_out)
    scorer.counted = [] if finding_limit is not None else None
    rows_out: BatchWriter | None = None
    if want_rows:
        rows_out = writer()
        if index is None:
            scorer.rows.close()
            scorer.rows = _RowSink(rows_out)  # type: ignore[assignment]
    records, crlf, _, primed = _read_span(scorer, engine, span, texts)
    scorer.tally.flush()
    findings_out = writer()
    with fewer_collections():
        for item in scorer.findings:
            findings_out.add(item)
        if rows_out is not None and index is not None:
            for row in scorer.rows:
                rows_out.add(row)
    finding_count = len(scorer.findings)
    row_count = len(scorer.rows)
    scorer.findings.close()
    scorer.rows.close()

    def stored(out: BatchWriter) -> Stored:
        data = out.close()
        return data if data is not None else out.path

    return SpanState(key, span.path, not span.whole, records, scorer.tally.count, scorer.tally.key_list,
                     stored(tally_out), stored(findings_out), finding_count,
                     stored(rows_out) if rows_out is not None else None, row_count,
                     tuple(scorer.counted) if scorer.counted is not None else None, scorer.stats,
                     dict(scorer.unscored), bytes(scorer.scored_ranks), tuple(scorer.unknown), tuple(primed),
                     crlf, scorer.reports_read, scorer.declared)


class _Folder:
    """A run's scratch folder, removed once nothing reads its streams (or at exit)."""

    def __init__(self, path: str | None) -> None:
        self.path = path
        if path is not None:
            weakref.finalize(self, shutil.rmtree, path, True)


class _FindingStream:
    """One span's findings as the run sees them: positions after the spans before it, record
    indices counted from its file's start, findings past the run's limit and SL015 of ids an
    earlier span reported left out."""

    def __init__(self, data: Stored, base: int, offset: int, count: int, limit: int | None, shown: int,
                 counted: tuple[int, ...] | None, drop: frozenset[str], folder: _Folder) -> None:
        self.data, self.base, self.offset = data, base, offset
        self.limit, self.shown, self.counted, self.drop = limit, shown, counted, drop
        self.folder = folder
        self.filtered = bool(drop) or (limit is not None and shown + len(counted or ()) >= limit)
        self._count = None if self.filtered else count

    def __len__(self) -> int:
        if self._count is None:
            self._count = sum(1 for _ in self)
        return self._count

    def __iter__(self) -> Iterator[tuple[int, Finding]]:
        base, offset, drop = self.base, self.offset, self.drop
        limit, shown, counted = self.limit, self.shown, self.counted or ()
        for batch in read_batches(self.data):
            for position, f in batch:
                if position < 0:
                    if drop and f.code == C.UNJOINED and f.record_id in drop:
                        continue
                else:
                    if limit is not None and shown + bisect_left(counted, position) >= limit:
                        continue
                    position += base
                yield position, _reindexed(f, offset)


class MergedFindings:
    """The run's findings: its own (`own`, a spool the result adds to) and each span's stream,
    merged in the order every report lists them (each is sorted)."""

    def __init__(self, own: Spool[tuple[int, Finding]]) -> None:
        self.own = own
        self.streams: list[_FindingStream] = []

    def append(self, item: tuple[int, Finding]) -> None:
        self.own.append(item)

    def __len__(self) -> int:
        return len(self.own) + sum(len(s) for s in self.streams)

    def __iter__(self) -> Iterator[tuple[int, Finding]]:
        if not self.streams:
            return iter(self.own)
        return heapq.merge(*self.streams, self.own, key=_finding_key)

    def close(self) -> None:
        self.own.close()


def _finding_key(item: tuple[int, Finding]) -> tuple[str, int, int, int, int, str, str]:
    return item[1].sort_key()


class MergedRows:
    """The run's case rows: each span's stream in span order (merged by case-file rank when the
    cases are given), positions after the spans before it."""

    def __init__(self, by_rank: bool) -> None:
        self.by_rank = by_rank
        self.streams: list[tuple[Stored, int, _Folder]] = []
        self.count = 0

    def add(self, data: Stored, base: int, count: int, folder: _Folder) -> None:
        self.streams.append((data, base, folder))
        self.count += count

    def append(self, row: tuple[Any, ...]) -> None:
        raise AssertionError("merged rows are read, not added to")

    def __len__(self) -> int:
        return self.count

    def _read(self, data: Stored, base: int) -> Iterator[tuple[Any, ...]]:
        by_rank = self.by_rank
        for batch in read_batches(data):
            if not base:
                yield from batch
            elif by_rank:
                for row in batch:
                    yield (row[0], row[1] + base, *row[2:])
            else:
                for row in batch:
                    yield (row[0] + base, row[1] + base, *row[2:])

    def __iter__(self) -> Iterator[tuple[Any, ...]]:
        streams = [self._read(data, base) for data, base, _ in self.streams]
        if self.by_rank:
            return heapq.merge(*streams, key=_rank_position)
        return itertools.chain.from_iterable(streams)

    def close(self) -> None:
        pass


def _rank_position(row: tuple[Any, ...]) -> tuple[int, int]:
    return row[0], row[1]


class TallyMerge:
    """Span states merged, in key order, into one LaneScorer (not a chain lane's): the tally
    chunks into its CompactOutcomes, the findings and rows as streams read when reported."""

    def __init__(self, scorer: LaneScorer, folder: str | None = None) -> None:
        self.scorer = scorer
        scorer.compact.digest = stable_digest
        self.folder = _Folder(folder)
        self.findings = MergedFindings(scorer.findings)
        scorer.findings = self.findings  # type: ignore[assignment]
        self.rows = MergedRows(scorer.index is not None)
        if scorer.want_rows:
            scorer.rows.close()
            scorer.rows = self.rows  # type: ignore[assignment]
        self.primed: set[tuple[int, int]] = set()  # digests of ids primed in the spans merged so far
        self._offsets: dict[str, int] = {}
        self._crlf: dict[str, tuple[int, int]] = {}

    def add(self, state: SpanState) -> None:
        scorer = self.scorer
        offset = self._offsets.get(state.path, 0) if state.split else 0
        self._offsets[state.path] = offset + state.records
        primed = self.primed
        compact = scorer.compact
        base = len(compact.columns)
        with fewer_collections():
            for batch in read_batches(state.tally):
                for _, high, low, keys, numbers, kinds, big, named, ids_blob in batch:
                    if primed:
                        for pair in zip(high, low, strict=True):
                            if pair in primed:
                                at = next(i for i, p in enumerate(zip(high, low, strict=True)) if p == pair)
                                case_id = pickle.loads(ids_blob)[at][0]
                                raise Overlap(case_id, "is primed in one part of the input and scored in another")
                    ids: list[tuple[str, Location, int | None]] | None = None

                    def record(i: int, blob: bytes = ids_blob) -> tuple[str, Location, int | None]:
                        nonlocal ids
                        if ids is None:
                            ids = pickle.loads(blob)
                        case_id, where, record_index = ids[i]
                        if offset and record_index is not None:
                            record_index += offset
                        return case_id, where, record_index

                    compact.extend(state.key_list, high, low, keys, numbers, kinds, big, named, record)
        scorer.stats.add(state.stats)
        scorer.reports_read += state.reports_read
        if scorer.declared is None:
            scorer.declared = state.declared
        for key, n in state.unscored.items():
            scorer.unscored[key] += n
        if state.ranks:
            ranks = scorer.scored_ranks
            for i in _ones(state.ranks):
                ranks[i] = 1
        unknown = scorer.unknown
        drop = frozenset(u for u in state.unknown if u in unknown) if len(unknown) else frozenset()
        for case_id in state.unknown:
            unknown.add(case_id)
        self.findings.streams.append(_FindingStream(
            state.findings, base, offset, state.finding_count, scorer.finding_limit, scorer.failing_shown,
            state.counted, drop, self.folder))
        if state.counted is not None:
            scorer.failing_shown += len(state.counted)
        if state.rows is not None and scorer.want_rows:
            self.rows.add(state.rows, base, state.row_count, self.folder)
        primed.update(stable_digest(c) for c in state.primed)
        if state.split and state.crlf[0]:
            lines, first = self._crlf.get(state.path, (0, 0))
            self._crlf[state.path] = (lines + state.crlf[0], first or state.crlf[1])

    def done(self, path: str) -> None:
        """Every span of `path` merged: its file-level notices (the CRLF count of its ranges)."""
        lines, first = self._crlf.pop(path, (0, 0))
        if lines:
            self.scorer.problem(crlf_notice(path, first, lines))


def _ones(flags: bytes) -> Iterator[int]:
    """The indices of the non-zero bytes."""
    at = flags.find(1)
    while at >= 0:
        yield at
        at = flags.find(1, at + 1)
