"""Scored cases in bounded flat arrays; the summary metrics and text output read."""

from __future__ import annotations

import itertools
import pickle
import sqlite3
from array import array
from collections import Counter
from collections.abc import Callable, Collection, Container, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from ..model.checks import CHECK_CODES as C
from ..model.findings import Finding, Location, Severity
from ..rules.loader import Lane
from ..sources.base import Record, check_finding
from .caseindex import IdList, scratch_db
from .results import LaneResult  # noqa: F401
from .scoring import SlotValues, lane_signals
from .spool import Columns, Spool
from .sums import Sum


def second_record(case_id: str, where: Location, index: int | None) -> Finding:
    return check_finding(C.DUPLICATE_ID, where, f"a second scored record for case `{case_id}` replaces the first",
                         case_id, severity=Severity.WARNING, record_index=index)


def unbucketed(lane: Lane, names: tuple[str, ...]) -> Callable[[tuple[bool, ...]], bool]:
    """Whether a signal tuple falls outside the lane's buckets (its `unbucketed_*` metric)."""
    spec = next((m for m in lane.metrics if m.name.startswith("unbucketed_")), None)
    if spec is None:
        return lambda signals: False
    idx = {n: i for i, n in enumerate(names)}
    checks = [(idx[s.lstrip("!")], s.startswith("!")) for s in spec.passing]
    return lambda signals: all(signals[i] != negate for i, negate in checks)


# The 28 ways to pick two of a byte's eight bits (the filter's two bits of an id).
_BIT_PAIRS = tuple((1 << a) | (1 << b) for a in range(8) for b in range(a + 1, 8))
MEMORY_SUSPECTS = 4096  # records that may repeat an earlier id kept in memory; past it, in a scratch database
MEMORY_IDS = 2048  # unbucketed ids (and the value slots' big ints) held in memory before they go to disk
_SUSPECT_BATCH = 2048  # suspects written to the database at once
_SUSPECT_FILTER_MASK = (1 << 23) - 1  # bits of the summary's filter of suspect digests (1 MiB)


@dataclass
class Summary:
    tally: Counter[tuple[bool, ...]]
    case_count: int
    failing_count: int
    remainder: Sequence[str]  # may be kept on disk (caseindex.IdList): iterate, count, slice
    findings: Iterable[Finding]  # SL005 for each record that replaced an earlier one of its case
    replaced: Collection[int]  # positions of records a later record of the same case replaced
    values: dict[tuple[Any, ...], tuple[Sum, ...]]  # per tally key: its value slots' exact sums


class PositionSet(Collection[int]):
    """Positions 0..size-1 as bits, one a scored record: the replaced records once more than
    MEMORY_SUSPECTS records repeat an id (a set of them would take ~70 bytes each)."""

    def __init__(self, size: int) -> None:
        self.size = size
        self.bits = bytearray((size + 7) // 8)
        self.count = 0

    def add(self, position: int) -> None:
        i, mask = position >> 3, 1 << (position & 7)
        if not self.bits[i] & mask:
            self.bits[i] |= mask
            self.count += 1

    def __contains__(self, position: object) -> bool:
        return (isinstance(position, int) and 0 <= position < self.size
                and bool(self.bits[position >> 3] >> (position & 7) & 1))

    def __len__(self) -> int:
        return self.count

    def __iter__(self) -> Iterator[int]:
        """The positions in ascending order."""
        for i, byte in enumerate(self.bits):
            if byte:
                for k in range(8):
                    if byte >> k & 1:
                        yield (i << 3) | k


class CompactOutcomes:
    """Scored cases in flat arrays: 18 bytes a case (on disk past `spool.MEMORY_ENTRIES` cases,
    read back a chunk at a time) and a fixed 8 MiB filter, no object per case.

    The last scored record of a case wins, as with Outcome objects, and each later record of
    an id already seen is an SL005 warning at that record. A case is known by two 64-bit hashes
    (of its id and of the id reversed; only compared within this run, so the hash seed cannot
    change a result); a Bloom filter sends the (rare) ids that may repeat to an exact check,
    so only those keep their id and position (in memory up to MEMORY_SUSPECTS of them, then in a
    scratch database)."""

    _FILTER_MASK = (1 << 26) - 1

    def __init__(self, lane: Lane) -> None:
        self.names = lane_signals(lane)
        self.unbucketed = unbucketed(lane, self.names)
        self.keys: dict[tuple[tuple[bool, ...], bool], int] = {}
        self.key_list: list[tuple[tuple[bool, ...], bool]] = []
        self.key_unbucketed: list[bool] = []
        self.high = array("q")
        self.low = array("q")
        self.key = array("H")
        self.values = SlotValues(self.names)
        # Every per-case array, written out together a chunk at a time (the value slots' too).
        self.columns = Columns([self.high, self.low, self.key, *self.values.columns()])
        self.chunk = self.columns.memory  # entries in memory that make a chunk
        # The value slots' big ints of the chunks on disk, in position order.
        self.big: Spool[tuple[tuple[int, int], int]] = Spool(buffer=MEMORY_IDS)
        # A blocked Bloom filter: an id sets two bits of one byte (one memory access a record, not
        # two: the 8 MiB filter is mostly cache misses), the byte chosen by one digest, the pair of
        # its eight bits by the other.
        self.filter = bytearray((self._FILTER_MASK + 1) // 8)
        self.filter_bytes = len(self.filter) - 1  # a byte index mask (the filter's size is a power of 2)
        # Positions that may repeat an earlier id: position -> (case id, where it is).
        self.suspects: dict[int, tuple[str, Location, int | None]] = {}
        self.suspect_digests: set[tuple[int, int]] = set()
        self.suspect_db: sqlite3.Connection | None = None  # past MEMORY_SUSPECTS suspects
        self.suspect_count = 0
        self._pending: list[tuple[int, int, int, bytes]] = []  # suspects not yet in the database
        self.digest: Callable[[str], tuple[int, int]] = _digest_of  # what `add` computes inline
        # (position, case id) of each unbucketed record, for the remainder (on disk past a few thousand).
        self.named: Spool[tuple[int, str]] = Spool(buffer=MEMORY_IDS)

    def add(self, case_id: str, signals: tuple[bool, ...], failed: tuple[str, ...], where: Record | Location,
            record_index: int | None) -> int:
        """Count one scored record; its position (a later record of the same id replaces it)."""
        values = self.values
        if values.slots:
            signals = values.take(signals)  # a value slot's number out of the key (scoring.SlotValues)
        k = (signals, not failed)
        key = self.keys.get(k)
        if key is None:
            key = self.keys[k] = len(self.key_list)
            self.key_list.append((signals, bool(failed)))
            self.key_unbucketed.append(self.unbucketed(signals))
        high, low = hash(case_id), hash(case_id[::-1])
        keys = self.key
        held = len(keys)
        position = self.columns.spilled + held
        self.high.append(high)
        self.low.append(low)
        keys.append(key)
        f = self.filter
        i = (high >> 3) & self.filter_bytes
        m = _BIT_PAIRS[low % 28]
        seen = f[i]
        if seen & m == m:
            self._suspect(position, case_id, where if isinstance(where, Location) else whole_record(where),
                          record_index, high, low)
        else:
            f[i] = seen | m
        if self.key_unbucketed[key]:
            self.named.append((position, case_id))
        if held + 1 >= self.chunk:
            self._spill()
        return position

    def extend(self, key_list: Sequence[tuple[tuple[Any, ...], bool]], highs: array[int], lows: array[int],
               keys: array[int], numbers: Sequence[array[float]], kinds: Sequence[array[int]],
               big: Sequence[tuple[int, int, int]], named: Sequence[tuple[int, str]],
               record: Callable[[int], tuple[str, Location, int | None]]) -> int:
        """Records counted elsewhere (`engine.partial.SpanTally`), in order, as if `add` had been
        called for each: their digests (`digest` must be the one they were made with), their keys
        into `key_list` (signals as `SlotValues.take` leaves them, failed), each value slot's
        numbers and kinds, the big ints (position, slot, int) and unbucketed ids (position, id),
        positions counted from 0. `record(i)` gives the i-th record's id, range and index (only
        asked for the records that may repeat an id). The position of the first record."""
        remap: list[int] = []
        for signals, failed in key_list:
            k = (signals, not failed)
            key = self.keys.get(k)
            if key is None:
                key = self.keys[k] = len(self.key_list)
                self.key_list.append((signals, failed))
                self.key_unbucketed.append(self.unbucketed(signals))
            remap.append(key)
        first = len(self.columns)
        total = len(highs)
        values = self.values
        f, byte_mask = self.filter, self.filter_bytes
        big_at, named_at = 0, 0
        done = 0
        while done < total:
            take = min(self.chunk - len(self.key), total - done)
            end = done + take
            base = len(self.columns) - done  # a record's position here less its position there
            self.high.extend(highs[done:end])
            self.low.extend(lows[done:end])
            self.key.extend(array("H", [remap[k] for k in keys[done:end]]))
            for j, column in enumerate(numbers):
                values.numbers[j].extend(column[done:end])
                values.kinds[j].extend(kinds[j][done:end])
            while big_at < len(big) and big[big_at][0] < end:
                position, slot, x = big[big_at]
                values.big[(base + position, slot)] = x
                big_at += 1
            for i in range(done, end):
                high, low = highs[i], lows[i]
                at = (high >> 3) & byte_mask
                m = _BIT_PAIRS[low % 28]
                seen = f[at]
                if seen & m == m:
                    case_id, where, record_index = record(i)
                    self._suspect(base + i, case_id, where, record_index, high, low)
                else:
                    f[at] = seen | m
            while named_at < len(named) and named[named_at][0] < end:
                position, case_id = named[named_at]
                self.named.append((base + position, case_id))
                named_at += 1
            if values.slots:
                values.taken += take
            done = end
            if len(self.key) >= self.chunk:
                self._spill()
        return first

    def _spill(self) -> None:
        """The arrays in memory out to disk as one chunk (with the big ints that belong to it)."""
        if self.values.big:
            self.big.extend(self.values.big.items())
            self.values.big.clear()
        self.columns.spill()

    def _suspect(self, position: int, case_id: str, where: Location, record_index: int | None,
                 high: int, low: int) -> None:
        self.suspect_count += 1
        if self.suspect_db is None:
            self.suspects[position] = (case_id, where, record_index)
            self.suspect_digests.add((high, low))
            if len(self.suspects) > MEMORY_SUSPECTS:
                db = self.suspect_db = scratch_db()
                db.execute("CREATE TABLE suspect (position INTEGER PRIMARY KEY, high INTEGER NOT NULL, "
                           "low INTEGER NOT NULL, record BLOB NOT NULL)")
                digest = self.digest
                self._pending = [(p, *digest(c), _dump(c, w, i)) for p, (c, w, i) in self.suspects.items()]
                self.suspects, self.suspect_digests = {}, set()
                self._flush_suspects()
            return
        self._pending.append((position, high, low, _dump(case_id, where, record_index)))
        if len(self._pending) >= _SUSPECT_BATCH:
            self._flush_suspects()

    def _flush_suspects(self) -> None:
        assert self.suspect_db is not None
        if self._pending:
            db = self.suspect_db
            db.execute("BEGIN")
            db.executemany("INSERT INTO suspect VALUES (?, ?, ?, ?)", self._pending)
            db.execute("COMMIT")
            self._pending = []

    def summary(self) -> Summary:
        replaced: Collection[int]
        duplicates: Iterable[Finding]
        if self.suspect_db is None:
            replaced, duplicates = self._exact_in_memory()
        else:
            replaced, duplicates = self._exact_on_disk()
        # One pass over the chunks: the count of each key, less the records replaced; the value sums.
        counts: Counter[int] = Counter()
        dropped_keys: Counter[int] = Counter()
        values: dict[tuple[Any, ...], tuple[Sum, ...]] = {}
        key_signals = [signals for signals, _ in self.key_list]
        slots = len(self.values.slots)
        big = _ByPosition(itertools.chain(self.big, self.values.big.items())) if slots else None
        gone = _ByPosition((p, p) for p in (sorted(replaced) if isinstance(replaced, set) else replaced))
        which = (2, *range(3, 3 + 2 * slots))
        for base, (keys, *slot_columns) in self.columns.chunks(which):
            end = base + len(keys)
            counts.update(keys)
            for position in gone.upto(end):
                dropped_keys[keys[position - base]] += 1
            if big is not None:
                self.values.add_sums(values, base, keys, key_signals, replaced, slot_columns[:slots],
                                     slot_columns[slots:], dict(big.upto_items(end)))
        tally: Counter[tuple[bool, ...]] = Counter()
        failing = 0
        for key, count in counts.items():
            signals, failed = self.key_list[key]
            kept = count - dropped_keys[key]
            tally[signals] += kept
            failing += kept if failed else 0
        tally = +tally  # drop zero counts
        cases = len(self.columns) - len(replaced)
        remainder = _Remainder(self.named, replaced)
        return Summary(tally, cases, failing, IdList(remainder, sum(1 for _ in remainder)), duplicates,
                       replaced, values)

    def _exact_in_memory(self) -> tuple[set[int], list[Finding]]:
        """The exact check of the suspects: every position whose digest a suspect has."""
        groups: dict[tuple[int, int], list[int]] = {}
        digests = self.suspect_digests
        if digests:
            for base, (highs, lows) in self.columns.chunks((0, 1)):
                for offset, pair in enumerate(zip(highs, lows, strict=True)):
                    if pair in digests:
                        groups.setdefault(pair, []).append(base + offset)
        replaced: set[int] = set()
        duplicates: list[Finding] = []
        for positions in groups.values():
            replaced.update(positions[:-1])
            for position in positions[1:]:
                case_id, where, index = self.suspects[position]
                duplicates.append(second_record(case_id, where, index))
        return replaced, duplicates

    def _exact_on_disk(self) -> tuple[PositionSet, Spool[Finding]]:
        """The exact check with the suspects in the database: the positions whose digest passes
        a filter of the suspects' digests go to a table, grouped there by digest."""
        self._flush_suspects()
        db = self.suspect_db
        assert db is not None
        mask = _SUSPECT_FILTER_MASK
        wanted = bytearray((mask + 1) // 8)
        # SQLite has no XOR: (a & ~b) | (~a & b) is the same 64-bit value as Python's a ^ b.
        for (bit,) in db.execute("SELECT ((high & ~low) | (~high & low)) & ? FROM suspect", (mask,)):
            wanted[bit >> 3] |= 1 << (bit & 7)
        db.execute("DROP TABLE IF EXISTS candidate")
        db.execute("CREATE TABLE candidate (position INTEGER PRIMARY KEY, high INTEGER NOT NULL, low INTEGER NOT NULL)")
        batch: list[tuple[int, int, int]] = []
        for base, (highs, lows) in self.columns.chunks((0, 1)):
            for offset, (high, low) in enumerate(zip(highs, lows, strict=True)):
                bit = (high ^ low) & mask
                if wanted[bit >> 3] >> (bit & 7) & 1:
                    batch.append((base + offset, high, low))
            if len(batch) >= _SUSPECT_BATCH:
                _insert_candidates(db, batch)
                batch = []
        _insert_candidates(db, batch)
        db.execute("CREATE INDEX candidate_digest ON candidate (high, low)")
        replaced = PositionSet(len(self.columns))
        duplicates: Spool[Finding] = Spool()
        rows = db.execute(
            "SELECT c.position, g.first, g.last, s.record FROM candidate c "
            "JOIN (SELECT high, low, MIN(position) AS first, MAX(position) AS last FROM candidate "
            "GROUP BY high, low HAVING COUNT(*) > 1) g ON c.high = g.high AND c.low = g.low "
            "LEFT JOIN suspect s ON s.position = c.position ORDER BY g.first, c.position")
        for position, first, last, record in rows:
            if position != last:
                replaced.add(position)
            if position != first:  # a later record of an id: always a suspect (the filter knew its id)
                duplicates.append(second_record(*pickle.loads(record)))
        db.execute("DROP TABLE candidate")
        return replaced, duplicates

def whole_record(record: Record) -> Location:
    """The record's whole range; for a JSONL line, without asking its locator to parse it."""
    if record.prefix:
        return record.whole()
    text = record.text
    lead = len(text) - len(text.lstrip())
    end = max(lead, len(text.rstrip()))
    return Location(record.path, record.line, lead + 1, record.line, end + 1)




def _digest_of(case_id: str) -> tuple[int, int]:
    return hash(case_id), hash(case_id[::-1])


def _dump(case_id: str, where: Location, record_index: int | None) -> bytes:
    return pickle.dumps((case_id, where, record_index), pickle.HIGHEST_PROTOCOL)


def _insert_candidates(db: sqlite3.Connection, batch: list[tuple[int, int, int]]) -> None:
    if batch:
        db.execute("BEGIN")
        db.executemany("INSERT INTO candidate VALUES (?, ?, ?)", batch)
        db.execute("COMMIT")


class _ByPosition:
    """Items (position first) read in ascending position order, a run of positions at a time."""

    def __init__(self, items: Iterable[tuple[Any, Any]]) -> None:
        self._items = iter(items)
        self._next: tuple[Any, Any] | None = next(self._items, None)

    def upto_items(self, end: int) -> Iterator[tuple[Any, Any]]:
        """The items whose position (an int, or a tuple starting with one) is below `end`."""
        while self._next is not None and _position(self._next[0]) < end:
            yield self._next
            self._next = next(self._items, None)

    def upto(self, end: int) -> Iterator[Any]:
        return (value for _, value in self.upto_items(end))


def _position(key: Any) -> int:
    return key[0] if isinstance(key, tuple) else int(key)


class _Remainder:
    """The unbucketed records' ids in input order, less those a later record replaced."""

    def __init__(self, named: Iterable[tuple[int, str]], replaced: Container[int]) -> None:
        self.named = named
        self.replaced = replaced

    def __iter__(self) -> Iterator[str]:
        replaced = self.replaced
        return (case_id for position, case_id in self.named if position not in replaced)
