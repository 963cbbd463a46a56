"""A spool writes a batch as marshal bytes when every item is builtins (findings packed to tuples
first) and pickles a batch marshal refuses; either way it reads back equal, in order, types kept."""

from __future__ import annotations

import enum
import os

from surface_lint.engine import score
from surface_lint.engine.spool import Spool
from surface_lint.model.findings import Finding, Fix, Location, Related, Severity, packed_finding, unpacked_finding


class Level(enum.IntEnum):  # a type marshal refuses
    LOW = 1


def _finding(i: int, **extra: object) -> Finding:
    at = Location("a.jsonl", i + 1, 3, i + 1, 9)
    return Finding(location=at, code="SL101", rule="grounded", severity=Severity.WARNING, message=f"m{i} \ud83d",
                   record_id=f"case{i}" if i % 2 else None, record_index=i,
                   related=(Related(Location("b.jsonl", 2, 1, 2, 4), "twin"),) if i % 3 == 0 else (),
                   fixes=(Fix("Add `.`", Location("a.jsonl", i + 1, 9, i + 1, 9), "."),) if i % 4 == 0 else (),
                   extra=dict(extra))


def _tags(spool: Spool[object]) -> list[bytes]:
    """The format byte of each batch in the spool's (first) file."""
    fh = spool._runs[0]
    end, at, out = fh.seek(0, os.SEEK_END), 0, []
    while at < end:
        fh.seek(at)
        size = int.from_bytes(fh.read(8), "little")
        out.append(fh.read(1))
        at += 8 + size
    return out


def test_a_packed_finding_unpacks_equal_field_for_field() -> None:
    for i in range(12):
        f = _finding(i, score=0.5, names=["x"])
        back = unpacked_finding(packed_finding(f))
        assert back == f and back.extra == f.extra and type(back.severity) is Severity
        assert back.related == f.related and back.fixes == f.fixes


def test_findings_marshalled_and_a_refused_batch_pickled() -> None:
    spool: Spool[tuple[int, Finding]] = Spool(key=score._finding_order, buffer=8, pack=score._pack_kept,
                                              unpack=score._unpack_kept)
    items = [(i, _finding(i)) for i in range(8)] + [(8, _finding(8, level=Level.LOW))]
    items += [(i, _finding(i)) for i in range(9, 13)]
    for item in items:
        spool.append(item)
    got = list(spool)
    assert got == items
    assert [type(f.extra.get("level")) for _, f in got if f.extra] == [Level]
    # Batches of two (a quarter of the buffer): the one holding the enum (items 8 and 9) is pickled.
    assert _tags(spool) == [b"m", b"m", b"m", b"m", b"p", b"m", b"m"]
    spool.close()


def test_rows_with_and_without_findings_come_back_the_same() -> None:
    rows = [(i, i, f"case{i}", (True, False), "teaching", {"n": i, "x": [1.5, None]}, ("p",) if i % 2 else (),
             ("p", "q"), (), (_finding(i),) if i % 2 else (), ()) for i in range(7)]
    spool: Spool[tuple[object, ...]] = Spool(buffer=3, pack=score._pack_row, unpack=score._unpack_row)
    for row in rows:
        spool.append(row)
    assert list(spool) == rows
    assert list(spool) == rows  # a second reader
    assert _tags(spool) == [b"m", b"m"]
    spool.close()
