"""A case-driven lane judges a lane report's entry again from its raw fields (engine/casework.py
`report_values`): each value is recomputed where everything its expressions read is known (the
case, the values before it), else given by `[casework.from_report]` (an expression over `report`,
the entry), else by its bare-name detail field, else unknown. A false recomputed check is its
predicate's finding at the entry's field; a recomputed bare-name detail that differs from the
stored one is SL011. The lane here is the case-driven symbolic_logic fixture (named
symbolic_logic: it replaces the shipped lane in these engines), so the tests hold before and
after it ships."""

from __future__ import annotations

from pathlib import Path

import pytest
from engine_support import fts, write

from surface_lint.engine import Engine
from surface_lint.engine.config import Config
from surface_lint.engine.results import UsageError
from surface_lint.rules.loader import LaneError, parse_lane

LANE_FILE = Path(__file__).resolve().parents[2] / "rules" / "symbolic_logic.toml"
LANE_TEXT = LANE_FILE.read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def engine() -> Engine:
    return Engine(Config(lane_files=[LANE_FILE]))


# Raw fields, no stored flags: every check is recomputed (SL301/SL302/SL303 as the chain lane gives).
REPORT = """{
  "lane": "symbolic_logic",
  "version": "v1",
  "cases": [
    {"id": "SYM-1", "expected_proposals": 2, "min_vault_hits": 1,
     "vault_hits": 0, "trace_hash": "aa", "trace_hash_replay": "bb", "proposal_count": 1}
  ]
}
"""
REPORT_FINDINGS = [
    ("r.json", 6, 20, 6, 21, "SL301", "error", "premise_recall: probe vault_hits 0 < min_vault_hits 1"),
    ("r.json", 6, 37, 6, 41, "SL302", "error", "replay_determinism: replay differs: trace_hash aa… != replay bb…"),
    ("r.json", 6, 88, 6, 89, "SL303", "error", "proposal_storage: 1 pack-mutation proposal(s) fired; expected_proposals is 2"),
]

# Stored flags that say pass where the raw fields say vault_hits 0 < 1.
FLAGGED = """{
  "lane": "symbolic_logic",
  "case_details": [
    {"id": "S1", "vault_hits": 0, "trace_hash": "a", "trace_hash_replay": "a", "proposal_count": 1,
     "expected_proposals": 1, "min_vault_hits": 1,
     "premise_recall_pass": true, "replay_pass": true, "proposal_pass": true, "passed": true}
  ]
}
"""


def test_a_report_entry_s_raw_fields_give_each_check_s_finding_at_its_field(engine: Engine) -> None:
    assert fts(engine.check_bytes("r.json", REPORT.encode()).findings) == REPORT_FINDINGS


def test_scoring_the_report_folds_the_recomputed_values(engine: Engine, tmp_path: Path) -> None:
    path = write(tmp_path / "r.json", REPORT)
    result = engine.score(None, [], [str(path)])
    assert result.metrics == {"all_three_pass_rate": 0.0, "case_count": 1, "overall_pass": False,
                              "premise_recall": 0.0, "proposal_storage": 0.0, "replay_determinism": 0.0}
    assert fts(result.findings) == [(str(path), *f[1:]) for f in REPORT_FINDINGS]


def test_a_stored_flag_the_raw_fields_contradict_is_sl011(engine: Engine) -> None:
    found = engine.check_bytes("sym.json", FLAGGED.encode()).findings
    assert fts(found) == [
        ("sym.json", 4, 32, 4, 33, "SL301", "error", "premise_recall: probe vault_hits 0 < min_vault_hits 1"),
        ("sym.json", 6, 29, 6, 33, "SL011", "warning", "stored `premise_recall_pass` is true but the raw fields give false"),
        ("sym.json", 6, 89, 6, 93, "SL011", "warning", "stored `passed` is true but the raw fields give false"),
    ]


def test_sl011_when_scoring_and_the_raw_fields_decide_the_metrics(engine: Engine, tmp_path: Path) -> None:
    path = write(tmp_path / "sym.json", FLAGGED)
    result = engine.score(None, [], [str(path)])
    # Recomputed, not the stored all-true flags: premise_recall fails, the replay and storage pass.
    assert result.metrics == {"all_three_pass_rate": 0.0, "case_count": 1, "overall_pass": False,
                              "premise_recall": 0.0, "proposal_storage": 1.0, "replay_determinism": 1.0}
    assert fts(result.findings, {"SL011", "SL301"}) == [
        (str(path), 4, 32, 4, 33, "SL301", "error", "premise_recall: probe vault_hits 0 < min_vault_hits 1"),
        (str(path), 6, 29, 6, 33, "SL011", "warning", "stored `premise_recall_pass` is true but the raw fields give false"),
        (str(path), 6, 89, 6, 93, "SL011", "warning", "stored `passed` is true but the raw fields give false"),
    ]


def test_flags_that_follow_from_the_raw_fields_are_no_finding(engine: Engine) -> None:
    agreeing = FLAGGED.replace('"vault_hits": 0', '"vault_hits": 3')
    assert fts(engine.check_bytes("sym.json", agreeing.encode()).findings) == []


def test_a_value_reading_a_case_field_the_entry_does_not_embed_is_not_recomputed(engine: Engine) -> None:
    # Without min_vault_hits in the entry (and no case file) premise_recall is not judged again:
    # its stored flag stands, so the stored `passed` is no mismatch either.
    text = FLAGGED.replace(' "min_vault_hits": 1,', "")
    assert fts(engine.check_bytes("sym.json", text.encode()).findings) == []


def test_a_wrong_typed_raw_field_is_sl003_and_reads_as_null(engine: Engine) -> None:
    # trace_hash 5: the reader's SL003, and the hash reads as null ("empty trace_hash"), never a
    # failed expression.
    text = REPORT.replace('"trace_hash": "aa"', '"trace_hash": 5   ')  # as long as "aa": the columns after it stay
    assert fts(engine.check_bytes("r.json", text.encode()).findings) == [
        REPORT_FINDINGS[0],
        ("r.json", 6, 37, 6, 38, "SL003", "error", "`trace_hash` must be a string or null, not a number"),
        ("r.json", 6, 37, 6, 38, "SL302", "error", "replay_determinism: replay differs: empty trace_hash"),
        REPORT_FINDINGS[2],
    ]


# --- a broken report is findings, never a usage error -----------------------------------------


@pytest.mark.parametrize(("data", "expected"), [
    (b'{"lane": "symbolic_logic", "cases": [{"id": "S1", "vault_hits": 0',
     [("SL001", 1, 66, 1, 66, "invalid JSON: Expecting ',' delimiter")]),
    (b"[1, 2]", [("SL001", 1, 1, 1, 7, "expected a lane report object, found an array")]),
    (b'\xff{"lane": "symbolic_logic", "cases": []}', [("SL008", 1, 1, 1, 2, "invalid UTF-8 byte 0xff")]),
])
def test_a_broken_report_scores_with_findings_at_their_positions(engine: Engine, data: bytes,
                                                                 expected: list[tuple[object, ...]]) -> None:
    result = engine.score("symbolic_logic", [], ["b.json"], texts={"b.json": data})
    assert result.metrics == {}
    assert [(f.code, f.location.line, f.location.column, f.location.end_line, f.location.end_column, f.message)
            for f in result.findings if f.code != "SL017"] == expected


def test_a_broken_report_beside_an_intact_one_scores_the_intact_one(engine: Engine) -> None:
    texts = {"b.json": b"[1, 2]", "r.json": REPORT.encode()}
    result = engine.score("symbolic_logic", [], ["b.json", "r.json"], texts=texts)
    assert result.metrics["case_count"] == 1
    assert [(f.location.path, f.code) for f in result.findings] == [
        ("b.json", "SL001"), ("r.json", "SL301"), ("r.json", "SL302"), ("r.json", "SL303")]


def test_captures_without_cases_are_still_refused(engine: Engine) -> None:
    capture = b'{"case_id": "S1", "role": "probe", "chain": 0, "surface": "x", "vault_hits": 1}\n'
    with pytest.raises(UsageError, match="give --cases"):
        engine.score("symbolic_logic", [], ["t.jsonl"], texts={"t.jsonl": capture})


# --- [casework.from_report] is checked at load ------------------------------------------------

FROM_REPORT = 'main_hash = "report.trace_hash"'


@pytest.mark.parametrize(("new", "message"), [
    ('mian_hash = "report.trace_hash"',
     "[casework.from_report]: `mian_hash` is not a value of [[casework.values]] (vault_hits, proposal_count, "),
    ('main_hash = "case.id"',
     "from_report 'main_hash': reads `case`; an expression of [casework.from_report] reads only `report` "
     "(the report entry's fields)"),
    ('main_hash = "report.trace_hash +"', "from_report 'main_hash': "),
    ('main_hash = "nothing(report)"', "from_report 'main_hash': expression 'nothing(report)': unknown function `nothing`"),
])
def test_from_report_errors_name_their_line_and_column(new: str, message: str) -> None:
    assert LANE_TEXT.count(FROM_REPORT) == 1
    line = LANE_TEXT[: LANE_TEXT.index(FROM_REPORT)].count("\n") + 1
    with pytest.raises(LaneError) as info:
        parse_lane(LANE_TEXT.replace(FROM_REPORT, new), "lane.toml")
    assert (info.value.path, info.value.line, info.value.column) == ("lane.toml", line, 1)
    assert info.value.message.startswith(message)
