"""engine/caseindex.py KeyedRows (diff's index of the old run): the same rows, order and found
marks in memory and in its scratch database, read ahead or looked up out of order."""

from __future__ import annotations

import enum
import os
import tempfile
from pathlib import Path

import pytest

from surface_lint.engine import caseindex
from surface_lint.engine.caseindex import KeyedRows


class Level(enum.IntEnum):  # a type marshal refuses: pickled instead
    LOW = 1


def _filled(memory: int) -> KeyedRows:
    rows = KeyedRows(memory=memory)
    rows.put("b", ("h1",), {"x": 1.5, "nan": float("nan")})
    rows.put("a\ud83d", ("h2",), ["half an emoji"])
    rows.put("c", ("h1",), (Level.LOW, -0.0))
    rows.put("b", ("h3",), "b replaced in place")  # a later row for a key keeps its first position
    rows.put("d", ("h1",), None)
    rows.put("e", ("h2",), [[1, [2, [3]]], True, 10**30])
    return rows


def _got(rows: KeyedRows, found: dict[str, tuple[object, object]]) -> dict[str, tuple[object, object]]:
    return {k: (head, rows.body(stored)) for k, (head, stored) in found.items()}


@pytest.mark.parametrize("memory", [100, 0, 2])
def test_rows_found_and_unseen_are_the_same_in_memory_and_on_disk(memory: int,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(caseindex, "READ_AHEAD", 2)  # a read ahead of two rows, then lookups by key
    monkeypatch.setattr(caseindex, "HEAD_MEMO", 1)  # the head memo cleared at every new head
    rows = _filled(memory)
    assert len(rows) == 5
    found = _got(rows, rows.get_many(["e", "zz", "c", "e"]))
    assert list(found) == ["e", "c"] or list(found) == ["c", "e"]
    assert found["e"] == (("h2",), [[1, [2, [3]]], True, 10**30])
    head, body = found["c"]
    assert head == ("h1",) and body == (Level.LOW, -0.0) and type(body[0]) is Level  # type: ignore[index]
    assert str(body[1]) == "-0.0"  # type: ignore[index]
    assert [(k, head, rows.body(stored)) for k, head, stored in rows.unseen()][:2] == [
        ("b", ("h3",), "b replaced in place"), ("a\ud83d", ("h2",), ["half an emoji"])]
    assert [k for k, _, _ in rows.unseen()] == ["b", "a\ud83d", "d"]
    rows.get_many(["a\ud83d", "b"])
    assert [k for k, _, _ in rows.unseen()] == ["d"]
    rows.get_many(["d"])
    assert list(rows.unseen()) == []
    rows.close()


def test_a_key_written_to_disk_then_put_again_keeps_its_position(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(caseindex, "_BATCH", 2)  # rows written two at a time
    rows = KeyedRows(memory=1)
    for i in range(7):
        rows.put(f"k{i}", (i % 2,), i)
    rows.put("k1", ("again",), "new value")  # already on disk: replaced, in its place
    assert len(rows) == 7
    assert [(k, h, rows.body(b)) for k, h, b in rows.unseen()] == [
        ("k0", (0,), 0), ("k1", ("again",), "new value"), ("k2", (0,), 2), ("k3", (1,), 3),
        ("k4", (0,), 4), ("k5", (1,), 5), ("k6", (0,), 6)]
    assert _got(rows, rows.get_many(["k6", "k1"])) == {"k6": ((0,), 6), "k1": (("again",), "new value")}
    assert [k for k, _, _ in rows.unseen()] == ["k0", "k2", "k3", "k4", "k5"]
    rows.close()


def test_in_order_lookups_read_ahead_and_find_every_row(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(caseindex, "READ_AHEAD", 4)
    rows = KeyedRows(memory=3)
    for i in range(30):
        rows.put(f"id{i:02d}", ("same",), i)
    # In order with a gap (id10..id14 never asked for), one id out of order and one unknown id.
    asked = [[f"id{i:02d}" for i in range(s, s + 3)] for s in (0, 3, 6)] + [["id15", "id29", "nope", "id16"]]
    asked += [[f"id{i:02d}" for i in range(s, min(s + 3, 29))] for s in range(17, 29, 3)]
    for keys in asked:
        got = _got(rows, rows.get_many(keys))
        assert got == {k: (("same",), int(k[2:])) for k in keys if k != "nope"}
    assert [k for k, _, _ in rows.unseen()] == ["id09", "id10", "id11", "id12", "id13", "id14"]
    rows.close()


def test_no_file_is_left_in_the_temporary_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    monkeypatch.setenv("TMPDIR", str(scratch))
    monkeypatch.setattr(tempfile, "tempdir", None)
    rows = KeyedRows(memory=1)
    for i in range(5000):
        rows.put(f"id{i}", (i % 3,), "x" * 200)
    assert len(rows.get_many([f"id{i}" for i in range(0, 5000, 2)])) == 2500
    assert sum(1 for _ in rows.unseen()) == 2500
    rows.close()
    assert os.listdir(scratch) == []
