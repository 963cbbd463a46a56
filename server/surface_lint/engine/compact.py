"""Scored cases in bounded flat arrays; the summary metrics and text output read."""

from __future__ import annotations

from array import array
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..checks import CHECK_CODES as C
from ..findings import Finding, Location, Severity
from ..lanes import Lane
from ..scoring import (
    SlotValues,
    ValueSum,
    lane_signals,
)
from ..sources.base import Record, check_finding
from .results import LaneResult  # noqa: F401


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


@dataclass
class Summary:
    tally: Counter[tuple[bool, ...]]
    case_count: int
    failing_count: int
    remainder: list[str]
    findings: list[Finding]  # SL005 for each record that replaced an earlier one of its case
    replaced: set[int]  # positions of records a later record of the same case replaced
    values: dict[tuple[Any, ...], tuple[ValueSum, ...]]  # per tally key: its value slots' exact sums


class CompactOutcomes:
    """Scored cases in flat arrays: 18 bytes a case and a fixed 8 MiB filter, no object per case.

    The last scored record of a case wins, as with Outcome objects, and each later record of
    an id already seen is an SL005 warning at that record. A case is known by two 64-bit hashes
    (of its id and of the id reversed; only compared within this run, so the hash seed cannot
    change a result); a Bloom filter sends the (rare) ids that may repeat to an exact check,
    so only those keep their id and position."""

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
        self.filter = bytearray((self._FILTER_MASK + 1) // 8)
        # Positions that may repeat an earlier id: position -> (case id, where it is).
        self.suspects: dict[int, tuple[str, Location, int | None]] = {}
        self.suspect_digests: set[tuple[int, int]] = set()
        self.named: dict[int, str] = {}  # ids kept for the unbucketed remainder
        self.values = SlotValues(self.names)

    def add(self, case_id: str, signals: tuple[bool, ...], failed: tuple[str, ...], where: Record | Location,
            record_index: int | None) -> int:
        """Count one scored record; its position (a later record of the same id replaces it)."""
        signals = self.values.take(signals)  # a value slot's number out of the key (scoring.SlotValues)
        k = (signals, not failed)
        key = self.keys.get(k)
        if key is None:
            key = self.keys[k] = len(self.key_list)
            self.key_list.append((signals, bool(failed)))
            self.key_unbucketed.append(self.unbucketed(signals))
        high, low = hash(case_id), hash(case_id[::-1])
        keys = self.key
        position = len(keys)
        self.high.append(high)
        self.low.append(low)
        keys.append(key)
        bit1, bit2 = high & self._FILTER_MASK, low & self._FILTER_MASK
        f = self.filter
        i1, m1, i2, m2 = bit1 >> 3, 1 << (bit1 & 7), bit2 >> 3, 1 << (bit2 & 7)
        if f[i1] & m1 and f[i2] & m2:
            at = where if isinstance(where, Location) else whole_record(where)
            self.suspects[position] = (case_id, at, record_index)
            self.suspect_digests.add((high, low))
        else:
            f[i1] |= m1
            f[i2] |= m2
        if self.key_unbucketed[key]:
            self.named[position] = case_id
        return position

    def summary(self) -> Summary:
        # Exact check of the suspects: every position whose digest a suspect has.
        groups: dict[tuple[int, int], list[int]] = {}
        if self.suspect_digests:
            for position, pair in enumerate(zip(self.high, self.low, strict=True)):
                if pair in self.suspect_digests:
                    groups.setdefault(pair, []).append(position)
        replaced: set[int] = set()
        duplicates: list[Finding] = []
        for positions in groups.values():
            replaced.update(positions[:-1])
            for position in positions[1:]:
                case_id, where, index = self.suspects[position]
                duplicates.append(second_record(case_id, where, index))
        tally: Counter[tuple[bool, ...]] = Counter()
        failing = 0
        for key, count in Counter(self.key).items():
            signals, failed = self.key_list[key]
            tally[signals] += count
            failing += count if failed else 0
        for position in replaced:
            signals, failed = self.key_list[self.key[position]]
            tally[signals] -= 1
            failing -= 1 if failed else 0
        tally = +tally  # drop zero counts
        cases = len(self.key) - len(replaced)
        remainder = [case_id for p, case_id in sorted(self.named.items()) if p not in replaced]
        values = self.values.sums(self.key, [signals for signals, _ in self.key_list], replaced)
        return Summary(tally, cases, failing, remainder, duplicates, replaced, values)


def whole_record(record: Record) -> Location:
    """The record's whole range; for a JSONL line, without asking its locator to parse it."""
    if record.prefix:
        return record.whole()
    text = record.text
    lead = len(text) - len(text.lstrip())
    end = max(lead, len(text.rstrip()))
    return Location(record.path, record.line, lead + 1, record.line, end + 1)


