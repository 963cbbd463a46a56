"""symbolic_logic: SL301-SL303 on captured chains (turn JSONL) and on lane reports, exact ranges."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from engine_support import cases_index, check, fts, write

from surface_lint.engine import CaseIndex, Engine

LANE = "symbolic_logic"
P = "t.jsonl"


def premise(chain: int, proposal: bool = True) -> str:
    return (
        f'{{"case_id": "SYM-1", "role": "premise", "chain": {chain}, "surface": "Noted.", '
        f'"pack_mutation_proposal": {json.dumps(proposal)}}}'
    )


def probe(chain: int, vault_hits: int = 2, trace_hash: str = "h1") -> str:
    # vault_hits' value sits at column 96; trace_hash's `"h1"` at 113-117; the line is 117 long.
    return (
        f'{{"case_id": "SYM-1", "role": "probe", "chain": {chain}, "surface": "Truth is wisdom.", '
        f'"vault_hits": {vault_hits}, "trace_hash": "{trace_hash}"}}'
    )


@pytest.fixture(scope="module")
def engine() -> Engine:
    return Engine()


@pytest.fixture()
def index(engine: Engine, tmp_path: Path) -> CaseIndex:
    path = write(
        tmp_path / "cases.jsonl",
        [
            {"id": "SYM-1", "pattern": "syllogism", "premises": ["What is truth?", "Actually truth is wisdom."],
             "probe": "What is truth?", "expected_proposals": 1, "min_vault_hits": 1},
        ],
    )
    return cases_index(engine, path, LANE)


def run(lines: list[str], engine: Engine, index: CaseIndex | None) -> list[tuple[str, int, int, int, int, str, str, str]]:
    return fts(check(lines, engine=engine, lane_name=LANE, cases=index).findings)


def test_probe_line_layout_matches_the_documented_columns() -> None:
    line = probe(0)
    assert line.index('"vault_hits": ') + len('"vault_hits": ') + 1 == 96
    assert line.index('"h1"') + 1 == 113
    assert len(line) == 117


def test_a_chain_that_recalls_replays_and_stores_passes(engine: Engine, index: CaseIndex) -> None:
    assert run([premise(0), probe(0), premise(1), probe(1)], engine, index) == []


# --- SL301 premise_recall ----------------------------------------------------------------


def test_sl301_points_at_the_probes_vault_hits(engine: Engine, index: CaseIndex) -> None:
    lines = [premise(0), probe(0, vault_hits=0), premise(1), probe(1, vault_hits=0)]
    assert run(lines, engine, index) == [
        (P, 2, 96, 2, 97, "SL301", "error", "premise_recall: probe vault_hits 0 < min_vault_hits 1"),
    ]


def test_sl301_min_vault_hits_defaults_to_one_without_a_case(engine: Engine) -> None:
    lines = [premise(0), probe(0, vault_hits=0), premise(1), probe(1, vault_hits=0)]
    assert run(lines, engine, None) == [
        (P, 2, 96, 2, 97, "SL301", "error", "premise_recall: probe vault_hits 0 < min_vault_hits 1"),
    ]


# --- SL302 replay_determinism ------------------------------------------------------------


def test_sl302_trace_hash_mismatch_points_at_the_first_runs_hash(engine: Engine, index: CaseIndex) -> None:
    lines = [premise(0), probe(0), premise(1), probe(1, trace_hash="h2")]
    assert run(lines, engine, index) == [
        (P, 2, 113, 2, 117, "SL302", "error", "replay_determinism: replay differs: trace_hash h1… != replay h2…"),
    ]


def test_sl302_vault_hits_and_proposals_must_replay_too(engine: Engine, index: CaseIndex) -> None:
    lines = [premise(0), probe(0, vault_hits=2), premise(1, proposal=False), probe(1, vault_hits=3)]
    found = run(lines, engine, index)
    assert found == [
        (P, 2, 113, 2, 117, "SL302", "error",
         "replay_determinism: replay differs: vault_hits 2 != replay 3; proposal_count 1 != replay 0"),
    ]


def test_sl302_a_missing_replay_run_fails(engine: Engine, index: CaseIndex) -> None:
    found = run([premise(0), probe(0)], engine, index)
    assert [(f[1], f[2], f[3], f[4], f[5]) for f in found] == [(2, 113, 2, 117, "SL302")]


def test_sl302_an_empty_trace_hash_fails_even_when_both_runs_agree(engine: Engine, index: CaseIndex) -> None:
    lines = [premise(0), probe(0, trace_hash=""), premise(1), probe(1, trace_hash="")]
    assert run(lines, engine, index) == [
        (P, 2, 113, 2, 115, "SL302", "error", "replay_determinism: replay differs: empty trace_hash"),
    ]


# --- SL303 proposal_storage --------------------------------------------------------------


def test_sl303_fires_on_a_proposal_count_mismatch(engine: Engine, index: CaseIndex) -> None:
    # Two proposals per run where the case expects one: the probe record holds no
    # proposal_count, so the finding covers the whole probe line.
    lines = [premise(0), premise(0), probe(0), premise(1), premise(1), probe(1)]
    assert run(lines, engine, index) == [
        (P, 3, 1, 3, 118, "SL303", "error",
         "proposal_storage: 2 pack-mutation proposal(s) fired; expected_proposals is 1"),
    ]


def test_sl303_is_not_judged_without_a_case(engine: Engine) -> None:
    lines = [premise(0), premise(0), probe(0), premise(1), premise(1), probe(1)]
    assert run(lines, engine, None) == []


# --- lane reports: findings land on the entry's own fields -------------------------------

REPORT = """{
  "lane": "symbolic_logic",
  "version": "v1",
  "cases": [
    {"id": "SYM-1", "expected_proposals": 2, "min_vault_hits": 1,
     "vault_hits": 0, "trace_hash": "aa", "trace_hash_replay": "bb", "proposal_count": 1}
  ]
}
"""


def test_report_entry_findings_point_at_vault_hits_trace_hash_and_proposal_count(engine: Engine) -> None:
    assert fts(check(REPORT, path="r.json", engine=engine).findings) == [
        ("r.json", 6, 20, 6, 21, "SL301", "error", "premise_recall: probe vault_hits 0 < min_vault_hits 1"),
        ("r.json", 6, 37, 6, 41, "SL302", "error", "replay_determinism: replay differs: trace_hash aa… != replay bb…"),
        ("r.json", 6, 88, 6, 89, "SL303", "error",
         "proposal_storage: 1 pack-mutation proposal(s) fired; expected_proposals is 2"),
    ]
