"""Duplicate case ids within and across case files (engine/caseindex.py `finish`): exact
messages, positions and renumbering fixes, the same in memory and past the spill threshold.

Across files the renumbering counts every id already offered, the within-file ones included,
so the cross-file fixes below skip `a_003` (offered for dev's own duplicate)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from surface_lint.engine import Engine, caseindex

LANE = "deterministic_fluency"

# (code, path, line, column, end_column, message, [(fix title, line, column, end_column, replacement)],
#  [(related path, line)])
Row = tuple[str, str, int, int, int, str, list[tuple[str, int, int, int, str]], list[tuple[str, int]]]


def _case(case_id: str, prompt: str) -> str:
    return json.dumps({"id": case_id, "prompt": prompt, "category": "pack_definition",
                       "expected_predicates": ["complete_punctuation"]}, separators=(",", ":")) + "\n"


def _write(path: Path, *cases: tuple[str, str]) -> str:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(_case(i, p) for i, p in cases), "utf-8")
    return str(path)


def _rows(index: caseindex.CaseIndex) -> list[Row]:
    return [(f.code, f.path, f.location.line, f.location.column, f.location.end_column, f.message,
             [(x.title, x.location.line, x.location.column, x.location.end_column, x.replacement) for x in f.fixes],
             [(r.location.path, r.location.line) for r in f.related])
            for f in index.findings]


@pytest.mark.parametrize("memory_cases", [None, 2], ids=["in-memory", "on-disk"])
def test_within_and_cross_file_duplicates_exactly(tmp_path: Path, memory_cases: int | None) -> None:
    # The folder's name and one id hold the words "this file": neither may hide a duplicate.
    root = tmp_path / "see this file" / LANE
    dev = _write(root / "dev" / "cases.jsonl", ("a_001", "A?"), ("a_002", "B?"), ("a_001", "C?"))
    public = _write(root / "public" / "cases.jsonl", ("a_002", "D?"), ("b_001", "E?"), ("b_001", "F?"),
                    ("a_002", "G?"), ("this file_001", "H?"))
    hold = _write(root / "holdouts" / "cases.jsonl", ("this file_001", "I?"), ("c_1", "J?"), ("c_1", "K?"),
                  ("a_001", "L?"))
    _, index = Engine().load_cases([dev, public, hold], memory_cases=memory_cases)
    assert index.on_disk is (memory_cases == 2)
    assert len(index) == 5  # a_001, a_002, b_001, this file_001, c_1
    assert _rows(index) == [
        # Within each file, in file order (each file's renumbering counts that file's ids).
        ("SL005", dev, 3, 7, 14, "duplicate case id `a_001` (first at this file:1)",
         [("Renumber to `a_003`", 3, 7, 14, '"a_003"')], [(dev, 1)]),
        ("SL005", public, 3, 7, 14, "duplicate case id `b_001` (first at this file:2)",
         [("Renumber to `b_002`", 3, 7, 14, '"b_002"')], [(public, 2)]),
        ("SL005", public, 4, 7, 14, "duplicate case id `a_002` (first at this file:1)",
         [("Renumber to `a_003`", 4, 7, 14, '"a_003"')], [(public, 1)]),
        ("SL005", hold, 3, 7, 12, "duplicate case id `c_1` (first at this file:2)",
         [("Renumber to `c_2`", 3, 7, 12, '"c_2"')], [(hold, 2)]),
        # Across files: a later file's case whose id an earlier file holds.
        ("SL005", public, 1, 7, 14, f"duplicate case id `a_002` (first at {dev}:2)",
         [("Renumber to `a_004`", 1, 7, 14, '"a_004"')], [(dev, 2)]),
        ("SL005", public, 4, 7, 14, f"duplicate case id `a_002` (first at {dev}:2)",
         [("Renumber to `a_005`", 4, 7, 14, '"a_005"')], [(dev, 2)]),
        ("SL005", hold, 1, 7, 22, f"duplicate case id `this file_001` (first at {public}:5)",
         [("Renumber to `this file_002`", 1, 7, 22, '"this file_002"')], [(public, 5)]),
        ("SL005", hold, 4, 7, 14, f"duplicate case id `a_001` (first at {dev}:1)",
         [("Renumber to `a_006`", 4, 7, 14, '"a_006"')], [(dev, 1)]),
    ]
    index.close()


@pytest.mark.parametrize("memory_cases", [None, 2], ids=["in-memory", "on-disk"])
def test_each_files_own_duplicates_come_before_those_across_files(tmp_path: Path, memory_cases: int | None) -> None:
    # The cross-file fix skips a_002, offered for dev's own duplicate (whose finding comes first).
    dev = _write(tmp_path / LANE / "dev" / "cases.jsonl", ("a_001", "A?"), ("a_001", "B?"))
    public = _write(tmp_path / LANE / "public" / "cases.jsonl", ("a_001", "C?"), ("b_001", "D?"), ("b_001", "E?"))
    _, index = Engine().load_cases([dev, public], memory_cases=memory_cases)
    assert [(f.path, f.location.line, f.message, f.fixes[0].replacement) for f in index.findings] == [
        (dev, 2, "duplicate case id `a_001` (first at this file:1)", '"a_002"'),
        (public, 3, "duplicate case id `b_001` (first at this file:2)", '"b_002"'),
        (public, 1, f"duplicate case id `a_001` (first at {dev}:1)", '"a_003"'),
    ]
    index.close()
