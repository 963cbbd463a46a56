"""The case index of a lane run: cases by id (the first of duplicates wins), kept on disk past a threshold.

A run over a few thousand cases keeps them in memory, as the editor does for its documents. A
larger run streams its case files into a private temporary SQLite database (SQLite unlinks it
as it opens it and deletes it when the connection closes: no file is left behind, even after a
kill), keyed by case id, holding each case's record (data, line, text) and its case-file rank.
Lookups go through a read-ahead window in case-file order (transcripts mostly follow their case
file) and a small LRU, so memory stays flat whatever the size of the case files. The findings of
the case files (duplicates, leaks) are the in-memory functions' own, in the same order.
"""

from __future__ import annotations

import itertools
import pickle
import re
import sqlite3
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import IO, Any, overload

from ..model.findings import Finding
from ..model.jsonread import loads
from ..rules.loader import Lane
from ..sources.base import JsonlReader, ReadStats, Record
from ..sources.cases import (
    Case,
    CaseFile,
    DuplicatePair,
    check_case_record,
    duplicate_findings,
    duplicate_pairs,
    leak_finding,
    leak_findings,
    leak_key,
    next_free_id,
    split_of,
)
from .spool import Spool
from .spool import decode as _decode
from .spool import encode as _encode

MEMORY_CASES = 2048  # cases (or ids) held in memory before the index moves to disk
WINDOW = 512  # cases read ahead at once, in case-file order
LRU_CASES = 256  # cases looked up out of order kept decoded
_BATCH = 1024  # rows written per executemany
READ_AHEAD = 1024  # KeyedRows: rows read ahead at once, in insertion order
HEAD_MEMO = 4096  # KeyedRows: decoded heads kept (a lane has few distinct verdict sets)


def _key(case_id: str) -> bytes:
    """An id as SQLite stores it: bytes, whose order is Python's str order (unpaired surrogates included)."""
    return case_id.encode("utf-8", "surrogatepass")


def _unkey(raw: bytes) -> str:
    return raw.decode("utf-8", "surrogatepass")


def scratch_db() -> sqlite3.Connection:
    """A private temporary database: on disk once its cache is full, deleted when closed."""
    db = sqlite3.connect("", check_same_thread=False, isolation_level=None)
    for pragma in ("journal_mode=OFF", "synchronous=OFF", "cache_size=-4096", "temp_store=FILE"):
        db.execute(f"PRAGMA {pragma}")
    return db


class IdSet:
    """A set of case ids: in memory up to `memory` ids, then in a scratch database."""

    def __init__(self, memory: int | None = None) -> None:
        self._memory = MEMORY_CASES if memory is None else memory
        self._set: set[str] = set()
        self._db: sqlite3.Connection | None = None
        self._count = 0
        self._lock = threading.Lock()

    def add(self, case_id: str) -> bool:
        """Add an id; whether it was new."""
        with self._lock:
            if self._db is None:
                if case_id in self._set:
                    return False
                self._set.add(case_id)
                self._count += 1
                if len(self._set) > self._memory:
                    self._spill()
                return True
            cur = self._db.execute("INSERT OR IGNORE INTO ids VALUES (?)", (_key(case_id),))
            if cur.rowcount:
                self._count += 1
                return True
            return False

    def update(self, ids: Iterable[str]) -> None:
        """Add many ids (on disk: written a batch at a time)."""
        it = iter(ids)
        while self._db is None:
            case_id = next(it, None)
            if case_id is None:
                return
            self.add(case_id)
        while batch := [_key(i) for i in itertools.islice(it, _BATCH)]:
            with self._lock:
                db = self._db
                before = db.total_changes
                db.execute("BEGIN")
                db.executemany("INSERT OR IGNORE INTO ids VALUES (?)", ((k,) for k in batch))
                db.execute("COMMIT")
                self._count += db.total_changes - before

    def having(self, ids: Sequence[str]) -> set[str]:
        """Those of `ids` in the set (on disk: looked up a batch at a time)."""
        if self._db is None:
            return {i for i in ids if i in self._set}
        out: set[str] = set()
        unique = list(dict.fromkeys(ids))
        for start in range(0, len(unique), 500):  # within any SQLite's limit on bound parameters
            part = unique[start:start + 500]
            with self._lock:
                rows = self._db.execute(f"SELECT id FROM ids WHERE id IN ({','.join('?' * len(part))})",
                                        [_key(i) for i in part]).fetchall()
            out.update(_unkey(r[0]) for r in rows)
        return out

    def __ior__(self, ids: Iterable[str]) -> IdSet:
        self.update(ids)
        return self

    def _spill(self) -> None:
        db = self._db = scratch_db()
        db.execute("CREATE TABLE ids (id BLOB PRIMARY KEY) WITHOUT ROWID")
        db.executemany("INSERT INTO ids VALUES (?)", ((_key(i),) for i in self._set))
        self._set = set()

    def __contains__(self, case_id: object) -> bool:
        if not isinstance(case_id, str):
            return False
        if self._db is None:  # one run's set, read by the thread that fills it
            return case_id in self._set
        with self._lock:
            return self._db.execute("SELECT 1 FROM ids WHERE id = ?", (_key(case_id),)).fetchone() is not None

    def __len__(self) -> int:
        return self._count

    def __bool__(self) -> bool:
        return self._count > 0

    def __iter__(self) -> Iterator[str]:
        return iter(self.sorted())

    def sorted(self) -> IdList:
        """The ids in sorted order (Python's str order)."""
        if self._db is None:
            return IdList(sorted(self._set), self._count)
        db = self._db
        return IdList(_Query(db, self._lock, "SELECT id FROM ids ORDER BY id", _unkey_row), self._count)


def _unkey_row(row: tuple[Any, ...]) -> str:
    return _unkey(row[0])


class _Query:
    """A re-iterable query (each iteration runs it again, rows fetched in batches)."""

    def __init__(self, db: sqlite3.Connection, lock: threading.Lock, sql: str,
                 convert: Callable[[tuple[Any, ...]], Any], params: tuple[Any, ...] = ()) -> None:
        self.db, self.lock, self.sql, self.convert, self.params = db, lock, sql, convert, params

    def __iter__(self) -> Iterator[Any]:
        with self.lock:
            cur = self.db.execute(self.sql, self.params)
            rows = cur.fetchmany(_BATCH)
        while rows:
            for row in rows:
                yield self.convert(row)
            with self.lock:
                rows = cur.fetchmany(_BATCH)


class IdList(Sequence[str]):
    """A sized, re-iterable list of case ids that may be kept on disk (reports slice and count it)."""

    def __init__(self, source: Iterable[str], length: int) -> None:
        self._source = source
        self._length = length

    def __len__(self) -> int:
        return self._length

    def __iter__(self) -> Iterator[str]:
        return iter(self._source)

    @overload
    def __getitem__(self, index: int) -> str: ...

    @overload
    def __getitem__(self, index: slice) -> list[str]: ...

    def __getitem__(self, index: int | slice) -> str | list[str]:
        if isinstance(self._source, list):
            return self._source[index]
        if isinstance(index, slice):
            start, stop, step = index.indices(self._length)
            return list(itertools.islice(self._source, start, stop, step))
        if index < 0:
            index += self._length
        if not 0 <= index < self._length:
            raise IndexError(index)
        return next(itertools.islice(self._source, index, None))

    def __eq__(self, other: object) -> bool:
        if isinstance(other, (list, tuple, IdList)):
            return len(other) == self._length and list(self) == list(other)
        return NotImplemented

    def __repr__(self) -> str:
        return f"IdList({list(self)!r})" if self._length <= 20 else f"IdList(<{self._length} ids>)"


def _blob(record: Record, case: Case) -> bytes:
    typed = None if case.data is record.data else case.data
    try:
        return pickle.dumps((record.data, typed, record.line, record.index, record.text), pickle.HIGHEST_PROTOCOL)
    except RecursionError:  # a value nested too deep to pickle: kept as its line, read again when used
        return pickle.dumps((None, None, record.line, record.index, record.text), pickle.HIGHEST_PROTOCOL)


def _case(case_id: str, case_file: CaseFile, blob: bytes) -> Case:
    data, typed, line, index, text = pickle.loads(blob)
    if data is None:
        record = Record(loads(text), line, index, None, (), case_file.path, text)
        case = check_case_record(record, case_file.lane, [])
        assert case is not None
        return case
    return Case(case_id, data if typed is None else typed, Record(data, line, index, None, (), case_file.path, text))


class CaseIndex:
    """Case files of one lane, by id (the first of duplicates wins).

    `add` keeps a read case file in memory (the editor's documents); `read` streams one from
    disk, and past `memory_cases` cases the whole index moves to a scratch database. `finish`
    then adds the duplicate and leak findings, in the order the in-memory functions give them."""

    def __init__(self, memory_cases: int | None = None) -> None:
        self.memory_cases = MEMORY_CASES if memory_cases is None else memory_cases
        self.files: list[CaseFile] = []  # in memory: each file with its cases; on disk: the files' names
        self.findings: Spool[Finding] = Spool()
        self.stats = ReadStats()
        self._by_id: dict[str, Case] = {}
        self._ranks: dict[str, int] | None = None
        self._lock = threading.Lock()
        self._db: sqlite3.Connection | None = None
        self._seq = 0  # records stored (duplicates included)
        self._memory_count = 0  # cases `read` into memory so far
        self._distinct = 0
        self._window: dict[str, tuple[int, int, bytes]] = {}  # id -> (rank, file, blob), decoded on use
        self._window_block = -1
        self._lru: OrderedDict[str, tuple[int, Case] | None] = OrderedDict()
        self._last: tuple[str | None, tuple[int, Case] | None] = (None, None)
        self._lookup_lock = threading.RLock()
        # Per file: a `read` file's record and reading findings (its duplicates come at `finish`);
        # None for a file given whole to `add`, whose own findings are complete.
        self._file_findings: list[Spool[Finding] | None] = []

    # --- building ---------------------------------------------------------------------

    def add(self, case_file: CaseFile) -> None:
        """A case file read whole (`read_case_file`): kept in memory as it is."""
        if self._db is not None:
            raise ValueError("a case index on disk takes files through read()")
        self.files.append(case_file)
        self._file_findings.append(None)
        self.stats.add(case_file.stats)
        self._ranks = None
        for case in case_file.cases:
            if case.id not in self._by_id:
                self._by_id[case.id] = case
                self._distinct += 1
        self._memory_count += len(case_file.cases)

    def read(self, path: str, stream: IO[bytes], lane: Lane, max_line_bytes: int | None = None,
             note: Callable[[Record], None] | None = None) -> None:
        """One case file streamed: its records checked as `read_case_file` checks them, the
        cases kept (in memory, or on disk past `memory_cases`), its findings noted."""
        reader = JsonlReader(path) if max_line_bytes is None else JsonlReader(path, max_line_bytes)
        case_file = CaseFile(path, lane, split_of(path))
        found: Spool[Finding] = Spool()
        reading: Spool[Finding] = Spool()  # the reader's own findings come after the records'
        record_findings: list[Finding] = []
        batch: list[tuple[int, int, bytes, bytes]] = []
        file_no = len(self.files)
        self.files.append(case_file)
        self._file_findings.append(found)
        for record in reader.records(stream):
            if note is not None:  # `check` notes each record's suppressions as it is read
                note(record)
            case = check_case_record(record, lane, record_findings)
            if record_findings:
                found.extend(record_findings)
                record_findings.clear()
            if reader.findings:
                reading.extend(reader.findings)
                reader.findings.clear()
            if case is None:
                continue
            if self._db is None:
                case_file.cases.append(case)
                if case.id not in self._by_id:
                    self._by_id[case.id] = case
                    self._distinct += 1
                self._memory_count += 1
                if self._memory_count > self.memory_cases:
                    self._to_disk()
                continue
            batch.append((self._seq, file_no, _key(case.id), _blob(record, case)))
            self._seq += 1
            if len(batch) >= _BATCH:
                self._insert(batch)
                batch = []
        self._insert(batch)
        reading.extend(reader.findings)
        found.extend(reading)
        reading.close()
        case_file.stats = reader.stats
        self.stats.add(reader.stats)
        self._ranks = None

    def _to_disk(self) -> None:
        db = self._db = scratch_db()
        db.execute("CREATE TABLE recs (seq INTEGER PRIMARY KEY, file INTEGER NOT NULL, id BLOB NOT NULL, "
                   "blob BLOB NOT NULL)")
        db.execute("CREATE TABLE firsts (rank INTEGER PRIMARY KEY, id BLOB NOT NULL UNIQUE, seq INTEGER NOT NULL)")
        self._distinct = 0
        self._by_id = {}
        self._seq = 0
        for file_no, case_file in enumerate(self.files):
            rows = [(self._seq + i, file_no, _key(c.id), _blob(c.record, c)) for i, c in enumerate(case_file.cases)]
            self._seq += len(rows)
            self._insert(rows)
            case_file.cases = []

    def _insert(self, rows: list[tuple[int, int, bytes, bytes]]) -> None:
        if not rows or self._db is None:
            return
        db = self._db
        db.execute("BEGIN")
        db.executemany("INSERT INTO recs VALUES (?, ?, ?, ?)", rows)
        before = db.total_changes
        db.executemany("INSERT OR IGNORE INTO firsts (rank, id, seq) VALUES (NULL, ?, ?)",
                       ((key, seq) for seq, _, key, _ in rows))
        self._distinct += db.total_changes - before
        db.execute("COMMIT")

    def finish(self) -> None:
        """Every file's findings in file order (record and reading findings, then duplicates
        within the file), then duplicates across files, then holdout leaks."""
        for file_no in range(len(self.files)):
            self.findings.extend(self.file_findings(file_no))
        if len(self.files) > 1:  # the within-file pairs were given above; their fixes still count here
            self.findings.extend(p.finding() for p in self._cross_pairs() if not p.within_file)
        self.findings.extend(self.leaks())
        for found in self._file_findings:
            if found is not None:
                found.close()
        self._file_findings = []

    def file_findings(self, file_no: int) -> Iterator[Finding]:
        """One file's own findings, as `finish` gives them: its records' and reader's, then its
        duplicates within it (`check <case file>`, before `finish`)."""
        found = self._file_findings[file_no]
        if found is None:
            yield from self.files[file_no].findings
            return
        yield from found
        if self._db is None:
            yield from duplicate_findings([self.files[file_no]])
        elif self._distinct < self._seq:
            self._db.execute("CREATE INDEX IF NOT EXISTS recs_file_id ON recs (file, id, seq)")
            yield from (p.finding() for p in self._duplicate_pairs(file_no))

    def cross_duplicates(self) -> Iterator[Finding]:
        """duplicate_findings over all the files, within-file pairs included."""
        return (p.finding() for p in self._cross_pairs())

    def _cross_pairs(self) -> Iterator[DuplicatePair]:
        if self._db is None:
            yield from duplicate_pairs(self.files)
        elif self._distinct < self._seq:
            self._db.execute("CREATE INDEX IF NOT EXISTS recs_file_id ON recs (file, id, seq)")
            yield from self._duplicate_pairs(None)

    def leaks(self) -> Iterator[Finding]:
        """leak_findings over all the files."""
        if self._db is None:
            yield from leak_findings(self.files)
        elif any(f.split == "holdouts" for f in self.files):
            yield from self._leaks()

    # --- duplicates and leaks on disk (the in-memory functions' findings, in their order) ----

    def _rows(self, sql: str, params: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
        assert self._db is not None
        yield from _Query(self._db, self._lock, sql, tuple, params)

    def _one(self, sql: str, params: tuple[Any, ...]) -> tuple[Any, ...] | None:
        assert self._db is not None
        with self._lock:
            row: tuple[Any, ...] | None = self._db.execute(sql, params).fetchone()
        return row

    def _duplicate_pairs(self, file_no: int | None) -> Iterator[DuplicatePair]:
        """duplicate_pairs over one file (`file_no`) or over all of them (None)."""
        assert self._db is not None
        db = self._db
        within = "file = ? AND " if file_no is not None else ""
        scope: tuple[Any, ...] = (file_no,) if file_no is not None else ()
        db.execute("CREATE TEMP TABLE IF NOT EXISTS fresh (id BLOB PRIMARY KEY) WITHOUT ROWID")
        db.execute("DELETE FROM fresh")

        one = self._one

        class Taken:
            """The ids in scope and those already given out as renumbering fixes."""

            def __contains__(self, candidate: object) -> bool:
                key = _key(str(candidate))
                return (one(f"SELECT 1 FROM recs WHERE {within}id = ? LIMIT 1", (*scope, key)) is not None
                        or one("SELECT 1 FROM fresh WHERE id = ?", (key,)) is not None)

        taken = Taken()
        first_seq = (f"(SELECT min(t.seq) FROM recs t WHERE {'t.file = r.file AND ' if file_no is not None else ''}"
                     "t.id = r.id)")
        sql = (f"SELECT r.seq, r.file, r.id, r.blob, {first_seq} FROM recs r WHERE {within.replace('file', 'r.file')}"
               f"r.seq > {first_seq} ORDER BY r.seq")
        for _, file_no_, raw_id, blob, twin_seq in self._rows(sql, scope):
            case_file = self.files[file_no_]
            case_id = _unkey(raw_id)
            case = _case(case_id, case_file, blob)
            twin_row = self._one("SELECT file, blob FROM recs WHERE seq = ?", (twin_seq,))
            assert twin_row is not None
            twin = _case(case_id, self.files[twin_row[0]], twin_row[1])
            new_id = next_free_id(case_id, taken)
            db.execute("INSERT OR IGNORE INTO fresh VALUES (?)", (_key(new_id),))
            yield DuplicatePair(case, twin, case_file.lane.schema.id_field, new_id, twin_row[0] == file_no_)

    def _leaks(self) -> Iterator[Finding]:
        """leak_findings over the stored files: the first holdout case of each key, then every
        other case whose key it is."""
        assert self._db is not None
        db = self._db
        db.execute("CREATE TEMP TABLE IF NOT EXISTS leaks (hash INTEGER, key BLOB, seq INTEGER)")
        db.execute("CREATE INDEX IF NOT EXISTS leaks_hash ON leaks (hash)")
        holdout = [i for i, f in enumerate(self.files) if f.split == "holdouts"]
        others = [i for i, f in enumerate(self.files) if f.split != "holdouts"]

        def stored(key: tuple[Any, ...]) -> int | None:
            # A hash picks the candidates; equality (1 == 1.0, as a dict would) decides.
            for other, seq in self._rows("SELECT key, seq FROM leaks WHERE hash = ? ORDER BY rowid", (hash(key),)):
                if pickle.loads(other) == key:
                    return int(seq)
            return None

        for file_no in holdout:
            case_file = self.files[file_no]
            for seq, raw_id, blob in self._rows("SELECT seq, id, blob FROM recs WHERE file = ? ORDER BY seq",
                                                (file_no,)):
                key = leak_key(_case(_unkey(raw_id), case_file, blob), case_file.lane.schema.leak_fields)
                if key is not None and stored(key) is None:
                    db.execute("INSERT INTO leaks VALUES (?, ?, ?)", (hash(key), pickle.dumps(key), seq))
        for file_no in others:
            case_file = self.files[file_no]
            fields = case_file.lane.schema.leak_fields
            for _, raw_id, blob in self._rows("SELECT seq, id, blob FROM recs WHERE file = ? ORDER BY seq",
                                              (file_no,)):
                case = _case(_unkey(raw_id), case_file, blob)
                key = leak_key(case, fields)
                twin_seq = stored(key) if key is not None else None
                if twin_seq is None:
                    continue
                row = self._one("SELECT file, id, blob FROM recs WHERE seq = ?", (twin_seq,))
                assert row is not None
                twin = _case(_unkey(row[1]), self.files[row[0]], row[2])
                yield leak_finding(case, twin, case_file, fields)

    # --- lookups ------------------------------------------------------------------------

    @property
    def on_disk(self) -> bool:
        return self._db is not None

    def __len__(self) -> int:
        """Distinct case ids."""
        return self._distinct

    def get(self, case_id: str) -> Case | None:
        """The first case with this id, or None."""
        if self._db is None:
            return self._by_id.get(case_id)
        last = self._last  # one tuple, read at once: no lock needed to reuse it
        if last[0] == case_id:
            return last[1][1] if last[1] is not None else None
        with self._lookup_lock:
            hit = self._lookup(case_id)
        return hit[1] if hit is not None else None

    def rank(self, case_id: str) -> int:
        """The id's place among the distinct ids in case-file order, -1 when no case has it."""
        if self._db is None:
            if self._ranks is None:
                self._ranks = {c.id: i for i, c in enumerate(self._memory_ordered())}
            return self._ranks.get(case_id, -1)
        last = self._last
        if last[0] == case_id:  # the fold asks for the rank of the case the join just looked up
            return last[1][0] if last[1] is not None else -1
        with self._lookup_lock:
            hit = self._lookup(case_id)
        return hit[0] if hit is not None else -1

    def _lookup(self, case_id: str) -> tuple[int, Case] | None:
        if self._last[0] == case_id:  # the join asks for a case, the fold then for its rank
            return self._last[1]
        seen = self._window.get(case_id)
        if seen is not None:
            hit = (seen[0], _case(case_id, self.files[seen[1]], seen[2]))
            self._last = (case_id, hit)
            return hit
        if case_id in self._lru:
            self._lru.move_to_end(case_id)
            return self._lru[case_id]
        row = self._one("SELECT f.rank, r.file, r.blob FROM firsts f JOIN recs r ON r.seq = f.seq WHERE f.id = ?",
                        (_key(case_id),))
        found: tuple[int, Case] | None = None
        if row is not None:
            rank = int(row[0]) - 1
            block = rank // WINDOW
            # Reading on in case-file order (the next block ahead), or starting a block over (a
            # runner's second pass, check's case-by-case pass): that block is read ahead.
            if block == self._window_block + 1 or (rank == block * WINDOW and block != self._window_block):
                self._load_window(block)
                return self._lookup(case_id)
            found = (rank, _case(case_id, self.files[row[1]], row[2]))
        self._lru[case_id] = found
        if len(self._lru) > LRU_CASES:
            self._lru.popitem(last=False)
        self._last = (case_id, found)
        return found

    def _load_window(self, block: int) -> None:
        sql = ("SELECT f.rank, f.id, r.file, r.blob FROM firsts f JOIN recs r ON r.seq = f.seq "
               "WHERE f.rank > ? AND f.rank <= ? ORDER BY f.rank")
        window: dict[str, tuple[int, int, bytes]] = {}
        for rank, raw_id, file_no, blob in self._rows(sql, (block * WINDOW, (block + 1) * WINDOW)):
            window[_unkey(raw_id)] = (int(rank) - 1, file_no, blob)
        self._window = window
        self._window_block = block

    @property
    def by_id(self) -> dict[str, Case]:
        """Every distinct case by id, in case-file order (read whole: for small indexes and tests)."""
        if self._db is None:
            return self._by_id
        return {c.id: c for c in self.ordered()}

    def _memory_ordered(self) -> list[Case]:
        seen: set[str] = set()
        out = []
        for f in self.files:
            for c in f.cases:
                if c.id not in seen:
                    seen.add(c.id)
                    out.append(c)
        return out

    def ordered(self) -> Iterable[Case]:
        """The distinct cases in case-file order (the first of duplicates)."""
        if self._db is None:
            return self._memory_ordered()
        sql = "SELECT f.id, r.file, r.blob FROM firsts f JOIN recs r ON r.seq = f.seq ORDER BY f.rank"
        return (_case(_unkey(i), self.files[n], b) for i, n, b in self._rows(sql))

    def missing(self, scored: bytearray) -> Iterator[Case]:
        """The distinct cases, in case-file order, whose rank `scored` does not mark."""
        if self._db is None:
            for i, case in enumerate(self._memory_ordered()):
                if not scored[i]:
                    yield case
            return
        batch: list[int] = []
        rank = scored.find(0)  # the unscored ranks, found in C
        while True:
            if rank >= 0:
                batch.append(rank + 1)
            if batch and (rank < 0 or len(batch) >= _BATCH):
                sql = ("SELECT f.id, r.file, r.blob FROM firsts f JOIN recs r ON r.seq = f.seq "
                       f"WHERE f.rank IN ({','.join('?' * len(batch))}) ORDER BY f.rank")
                for raw_id, file_no, blob in list(self._rows(sql, tuple(batch))):
                    yield _case(_unkey(raw_id), self.files[file_no], blob)
                batch = []
            if rank < 0:
                return
            rank = scored.find(0, rank + 1)

    def close(self) -> None:
        self.findings.close()
        if self._db is not None:
            self._db.close()
            self._db = None


def ids_list(ids: Sequence[str] | Spool[str]) -> IdList:
    """A list (or a spool) of ids as reports read them."""
    return IdList(ids, len(ids))


class KeyedRows:
    """Rows by key in insertion order, each a (head, body) pair: a later row for a key replaces
    it in place, as a dict keeps it. In memory up to `memory` keys, then in a scratch database
    (heads and bodies as marshal bytes, written in batches). `get_many` reads back in batches
    (reading ahead in insertion order: two runs of one lane mostly list their cases alike) and
    marks what it finds; `unseen` gives the rows no lookup found. A head is decoded as it is
    read (one memo: heads repeat), a body only by `body` (most rows never need theirs)."""

    _UPSERT = ("INSERT INTO rows (n, key, head, body) VALUES (?, ?, ?, ?) "
               "ON CONFLICT (key) DO UPDATE SET head = excluded.head, body = excluded.body")

    def __init__(self, memory: int | None = None) -> None:
        self._memory = MEMORY_CASES if memory is None else memory
        self._count = 0  # positions given out (a replaced key keeps its first)
        self._dict: dict[str, tuple[int, Any, Any]] = {}  # in memory: every row; on disk: those not yet written
        self._db: sqlite3.Connection | None = None
        self._lock = threading.Lock()
        # Memory past `memory` keys: one bit per row (found or not), 2 x READ_AHEAD rows, HEAD_MEMO heads.
        self._seen = bytearray()
        self._ahead: dict[str, tuple[int, Any, bytes]] = {}  # the rows read ahead
        self._ahead_next = 0  # the position reading ahead goes on from
        self._heads: dict[bytes, Any] = {}
        self._encoded_heads: dict[Any, bytes] = {}

    def put(self, key: str, head: Any, body: Any) -> None:
        kept = self._dict.get(key)
        if kept is not None:
            n = kept[0]
        else:
            n = self._count
            self._count += 1
            if not n & 7:
                self._seen.append(0)
        self._dict[key] = (n, head, body)
        if self._db is None:
            if len(self._dict) > self._memory:
                db = self._db = scratch_db()
                db.execute("CREATE TABLE rows (n INTEGER PRIMARY KEY, key BLOB NOT NULL UNIQUE, head BLOB NOT NULL, "
                           "body BLOB NOT NULL)")
                self._flush()
        elif len(self._dict) >= _BATCH:
            self._flush()

    def _flush(self) -> None:
        if self._db is None or not self._dict:
            return
        heads = self._encoded_heads
        if len(heads) >= HEAD_MEMO:
            heads.clear()
        rows = [(n, _key(k), heads.get(head) or heads.setdefault(head, _encode(head)), _encode(body))
                for k, (n, head, body) in self._dict.items()]
        self._dict = {}
        with self._lock:
            self._db.execute("BEGIN")
            self._db.executemany(self._UPSERT, rows)  # a key already written keeps its position
            self._db.execute("COMMIT")

    def _mark(self, n: int) -> None:
        self._seen[n >> 3] |= 1 << (n & 7)

    def get_many(self, keys: Sequence[str]) -> dict[str, tuple[Any, Any]]:
        """The (head, body) of those of `keys` that have a row, each row marked as seen."""
        mark = self._mark
        if self._db is None:
            found: dict[str, tuple[Any, Any]] = {}
            for k in keys:
                row = self._dict.get(k)
                if row is not None:
                    mark(row[0])
                    found[k] = row[1:]
            return found
        self._flush()
        out: dict[str, tuple[Any, Any]] = {}
        missed, last = self._from_ahead(keys, out)
        # Read on when the lookups have passed the rows read ahead (or reached their second half).
        if missed and self._ahead_next < self._count and (last < 0 or last >= self._ahead_next - READ_AHEAD // 2):
            self._read_ahead()
            missed, _ = self._from_ahead(missed, out)
        for start in range(0, len(missed), 500):  # within any SQLite's limit on bound parameters
            part = missed[start:start + 500]
            sql = f"SELECT n, key, head, body FROM rows WHERE key IN ({','.join('?' * len(part))})"
            with self._lock:
                rows = self._db.execute(sql, [_key(k) for k in part]).fetchall()
            for n, raw, head, body in rows:
                mark(n)
                out[_unkey(raw)] = (self._head(head), body)
        return out

    def _from_ahead(self, keys: Iterable[str], out: dict[str, tuple[Any, Any]]) -> tuple[list[str], int]:
        """Those of `keys` read ahead put in `out` (and marked); the others, once each, and the
        greatest position found (-1: none)."""
        ahead, mark = self._ahead, self._mark
        missed: list[str] = []
        last = -1
        for k in keys:
            row = ahead.get(k)
            if row is not None:
                n = row[0]
                mark(n)
                if n > last:
                    last = n
                out[k] = row[1:]
            else:
                missed.append(k)
        return list(dict.fromkeys(missed)), last

    def _read_ahead(self) -> None:
        """The next READ_AHEAD rows in insertion order join those read last (which stay: runs drift)."""
        assert self._db is not None
        with self._lock:
            rows = self._db.execute("SELECT n, key, head, body FROM rows WHERE n >= ? ORDER BY n LIMIT ?",
                                    (self._ahead_next, READ_AHEAD)).fetchall()
        if len(self._ahead) >= READ_AHEAD:
            self._ahead = dict(itertools.islice(self._ahead.items(), len(self._ahead) - READ_AHEAD, None))
        head = self._head
        self._ahead.update((_unkey(raw), (n, head(h), body)) for n, raw, h, body in rows)
        self._ahead_next = rows[-1][0] + 1 if rows else self._count

    def _head(self, raw: bytes) -> Any:
        head = self._heads.get(raw)
        if head is None:
            if len(self._heads) >= HEAD_MEMO:
                self._heads.clear()
            head = self._heads[raw] = _decode(raw)
        return head

    def body(self, stored: Any) -> Any:
        """A body as `get_many` or `unseen` gave it, decoded."""
        return _decode(stored) if self._db is not None else stored

    def unseen(self) -> Iterator[tuple[str, Any, Any]]:
        """(key, head, body) of every row no lookup found, in insertion order."""
        seen = self._seen
        if self._db is None:
            for k, (n, head, body) in self._dict.items():
                if not seen[n >> 3] & (1 << (n & 7)):
                    yield k, head, body
            return
        self._flush()
        batch: list[int] = []
        for match in re.finditer(rb"[^\xff]", seen):  # the bytes with a row not found, found in C
            byte_at = match.start()
            bits = seen[byte_at]
            batch.extend(byte_at * 8 + b for b in range(8) if not bits & (1 << b) and byte_at * 8 + b < self._count)
            if len(batch) >= 500:
                yield from self._rows_at(batch)
                batch = []
        yield from self._rows_at(batch)

    def _rows_at(self, positions: list[int]) -> Iterator[tuple[str, Any, Any]]:
        if not positions:
            return
        assert self._db is not None
        sql = f"SELECT key, head, body FROM rows WHERE n IN ({','.join('?' * len(positions))}) ORDER BY n"
        with self._lock:
            rows = self._db.execute(sql, positions).fetchall()
        for raw, head, body in rows:  # a position whose key was written before has no row: none
            yield _unkey(raw), self._head(head), body

    def __len__(self) -> int:
        if self._db is None:
            return len(self._dict)
        self._flush()
        with self._lock:
            row = self._db.execute("SELECT count(*) FROM rows").fetchone()
        return int(row[0])

    def close(self) -> None:
        if self._db is not None:
            self._db.close()
            self._db = None
