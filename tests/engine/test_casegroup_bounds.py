"""`check --cases` past both memory bounds (the case index and the grouping on disk) runs a
number of SQLite statements that grows with the batches, not with the cases: a runner's second
pass and check's case-by-case pass read the case index ahead block by block (caseindex.WINDOW),
and the grouping only appends records, then groups them in one ordered read. Counted with
SQLite's own trace hook on every scratch database, so the check is exact and takes no timing."""

from __future__ import annotations

import sqlite3
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from test_casegroup_check import engine_with
from test_casework import LANE, rec, write_jsonl

from surface_lint.engine import casegroup, caseindex
from surface_lint.model.findings import Finding

CASES = 3000  # > caseindex.MEMORY_CASES (2048); two passes: 6000 records > casegroup.MEMORY_RECORDS (4096)


def test_statements_grow_with_batches_not_with_cases(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert caseindex.MEMORY_CASES < CASES and casegroup.MEMORY_RECORDS < 2 * CASES
    assert (caseindex.WINDOW, casegroup._BATCH) == (512, 1024)  # the counts below are worked out from these
    engine = engine_with(tmp_path, LANE)
    cases = write_jsonl(tmp_path / "cases.jsonl", [
        {"id": f"c{i:05d}", "topic": "truth", "turns": [{"prompt": "What is truth?", "anchor": "truth"}]}
        for i in range(CASES)])
    # A first run over every case, then a replay run over every case (as a runner writes them);
    # every seventh case's first run misses its anchor.
    captures = write_jsonl(tmp_path / "captures.jsonl",
                           [rec(f"c{i:05d}", 0, 0, "It is." if i % 7 == 0 else "Truth is real.") for i in range(CASES)]
                           + [rec(f"c{i:05d}", 1, 0, "Truth is real.") for i in range(CASES)])
    statements: list[tuple[str, str]] = []
    made = caseindex.scratch_db

    def traced(owner: str) -> Any:
        def scratch_db() -> sqlite3.Connection:
            db = made()
            db.set_trace_callback(lambda sql: statements.append((owner, " ".join(sql.split()[:3]))))
            return db
        return scratch_db

    monkeypatch.setattr(caseindex, "scratch_db", traced("index"))
    monkeypatch.setattr(casegroup, "scratch_db", traced("groups"))
    _, index = engine.load_cases([cases], engine.lane("thread_demo"))
    assert index.on_disk
    statements.clear()  # only what check runs
    found: list[Finding] = []
    engine.check_file(captures, None, "thread_demo", index, found.append)
    assert len(found) == 429 == len({f.record_id for f in found})  # c00000, c00007, ... c02996
    assert (found[0].location.line, found[0].code, found[0].record_id) == (1, "TD1", "c00000")
    assert Counter(statements) == {
        # The case index: 6 blocks of 512 ranks, each read ahead once per pass (the first run,
        # the replay run, the case-by-case pass), after the one lookup that finds its block.
        ("index", "SELECT f.rank, r.file,"): 3 * 6,
        ("index", "SELECT f.rank, f.id,"): 3 * 6,
        # The grouping: 6000 appended rows in 6 batches (5 of 1024 and the rest), then one index,
        # one table of cases in first-seen order and one ordered read.
        ("groups", "CREATE TABLE records"): 1,
        ("groups", "INSERT INTO records"): 2 * CASES,
        ("groups", "BEGIN"): 6,
        ("groups", "COMMIT"): 6,
        ("groups", "CREATE INDEX records_by_case"): 1,
        ("groups", "CREATE TABLE cases"): 1,
        ("groups", "INSERT INTO cases"): 1,
        ("groups", "SELECT c.id, r.blob"): 1,
    }
