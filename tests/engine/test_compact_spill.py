"""The compact tally past its spill thresholds (engine/compact.py): per-case arrays written out
in chunks, suspects of a repeated id in a scratch database, unbucketed ids and big ints spooled;
the summary is exactly the one computed in memory."""

from __future__ import annotations

import os
import tempfile
from collections import Counter
from pathlib import Path

import pytest

from surface_lint.engine import compact, spool
from surface_lint.engine.compact import CompactOutcomes, PositionSet
from surface_lint.engine.fold import metrics_from_tally
from surface_lint.engine.scoring import lane_signals
from surface_lint.model.findings import Location
from surface_lint.rules.loader import load_lanes

IDS = ["a", "b", "c", "a", "d", "e", "b", "a", "f"]  # positions 0..8; a at 0, 3, 7 and b at 1, 6
FAILED_AT = {0, 4, 7}


def _lower(monkeypatch: pytest.MonkeyPatch, scratch: Path) -> None:
    monkeypatch.setattr(spool, "MEMORY_ENTRIES", 4)  # chunks 0-3 and 4-7 on disk, 8 in memory
    monkeypatch.setattr(compact, "MEMORY_SUSPECTS", 2)  # the third suspect moves them to the database
    monkeypatch.setattr(compact, "MEMORY_IDS", 1)
    monkeypatch.setattr(tempfile, "tempdir", str(scratch))
    monkeypatch.setenv("TMPDIR", str(scratch))


@pytest.mark.parametrize("lowered", [False, True])
def test_repeated_ids_across_chunks_are_replaced_exactly(tmp_path: Path, lowered: bool,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    if lowered:
        _lower(monkeypatch, scratch)
    lane = load_lanes().lanes["multi_sentence_response"]
    names = lane_signals(lane)
    # Even positions: the unbucketed signals (>= 2 sentences, neither grounded); odd: every signal false.
    outside = tuple(n == "sentence_count_>=_2" for n in names)
    inside = tuple(False for _ in names)
    outcomes = CompactOutcomes(lane)
    for position, case_id in enumerate(IDS):
        where = Location("t.jsonl", position + 1, 1, position + 1, 9)
        got = outcomes.add(case_id, outside if position % 2 == 0 else inside,
                           ("x",) if position in FAILED_AT else (), where, position)
        assert got == position
    assert (outcomes.columns.spilled, outcomes.suspect_db is not None) == ((8, True) if lowered else (0, False))
    summary = outcomes.summary()
    assert sorted(summary.replaced) == [0, 1, 3]
    assert -1 not in summary.replaced and 9 not in summary.replaced
    assert (summary.case_count, summary.failing_count) == (6, 2)  # kept: 2 4 5 6 7 8; failed: 4 7
    assert summary.tally == Counter({outside: 4, inside: 2})
    assert list(summary.remainder) == ["c", "d", "b", "f"] and len(summary.remainder) == 4
    assert summary.remainder[:2] == ["c", "d"]
    assert [(f.code, f.location.line, f.message) for f in summary.findings] == [
        ("SL005", 4, "a second scored record for case `a` replaces the first"),
        ("SL005", 8, "a second scored record for case `a` replaces the first"),
        ("SL005", 7, "a second scored record for case `b` replaces the first"),
    ]
    assert summary.case_count == outcomes.summary().case_count  # summary reads, never consumes
    del outcomes, summary
    assert os.listdir(scratch) == []


VALUE_LANE = """
[lane]
name = "vals"
[case_schema.fields.id]
type = "string"
[case_schema.fields.score]
type = "number"

[[predicates]]
name = "ends"
code = "VT1"
kind = "ends_with"
[predicates.params]
endings = ["."]

[[metrics]]
name = "sum_score"
kind = "sum"
value = "case.score"

[[metrics]]
name = "max_score"
kind = "max"
value = "case.score"

[[metrics]]
name = "min_score"
kind = "min"
value = "case.score"
"""


@pytest.mark.parametrize("lowered", [False, True])
def test_value_slots_and_big_ints_sum_exactly_across_chunks(tmp_path: Path, lowered: bool,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    if lowered:
        _lower(monkeypatch, scratch)
        monkeypatch.setattr(spool, "MEMORY_ENTRIES", 2)
    rules = tmp_path / "vals.toml"
    rules.write_text(VALUE_LANE, "utf-8")
    lane = load_lanes(extra_files=[rules]).lanes["vals"]
    names = lane_signals(lane)
    # c1 and c3 hold ints a float cannot (2**60 + 1, 2**60 + 3); c0's 3 is replaced by its 7; c4 has none.
    records = [("c0", 3), ("c1", 2 ** 60 + 1), ("c2", 5), ("c0", 7), ("c3", 2 ** 60 + 3), ("c4", None), ("c5", -2)]
    outcomes = CompactOutcomes(lane)
    for i, (case_id, score) in enumerate(records):
        signals = tuple(score if n == "=case.score" else True for n in names)
        outcomes.add(case_id, signals, (), Location("t.jsonl", i + 1, 1, i + 1, 2), i)
    summary = outcomes.summary()
    assert summary.case_count == 6 and sorted(summary.replaced) == [0]
    metrics = metrics_from_tally(lane, summary.tally, summary.values)
    assert metrics == {"max_score": 2 ** 60 + 3, "min_score": -2, "sum_score": 2 ** 61 + 14}
    assert isinstance(metrics["sum_score"], int)


def test_a_position_set_holds_bits() -> None:
    positions = PositionSet(20)
    for p in (19, 0, 8, 8, 7):
        positions.add(p)
    assert (len(positions), list(positions)) == (4, [0, 7, 8, 19])
    assert [p in positions for p in (-1, 0, 1, 19, 20, "0")] == [False, True, False, True, False, False]
