"""Out-of-range and negative counts in case files (QA defect 10): an SL003 finding at the value,
and the field counts as absent (its documented default), never a substituted number."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from engine_support import check, fts, write

from surface_lint.cli.main import main
from surface_lint.engine import Engine
from surface_lint.engine.config import Config
from surface_lint.rules.loader import LaneError, parse_lane
from surface_lint.sources.cases import read_case_file

SYM = "symbolic_logic"
P = "cases.jsonl"
PREMISES = '"premises": ["What is truth?", "Actually truth is wisdom."], "probe": "What is truth?"'
# `{"id": "c1", ` (13) + PREMISES (86) + `, "expected_proposals": ` (24): the first count is at column 124.
LINES = [
    '{"id": "c1", ' + PREMISES + ', "expected_proposals": 1e999, "min_vault_hits": 1e999}',
    '{"id": "c2", ' + PREMISES + ', "expected_proposals": -1, "min_vault_hits": -2}',
    '{"id": "c3", ' + PREMISES + ', "expected_proposals": 1, "min_vault_hits": 0}',
]


def test_out_of_range_and_negative_counts_are_sl003_at_the_value() -> None:
    result = check(LINES, path=P, kind="cases", lane_name=SYM)
    assert fts(result.findings) == [
        (P, 1, 124, 1, 129, "SL003", "error",
         "`expected_proposals` must be an integer, not a number out of range (infinite)"),
        (P, 1, 149, 1, 154, "SL003", "error",
         "`min_vault_hits` must be an integer, not a number out of range (infinite)"),
        (P, 2, 124, 2, 126, "SL003", "error", "`expected_proposals` is a count: it must be 0 or more, not -1"),
        (P, 2, 146, 2, 148, "SL003", "error", "`min_vault_hits` is a count: it must be 0 or more, not -2"),
    ]
    cases = read_case_file(P, "\n".join(LINES).encode("utf-8"), Engine().lane(SYM)).cases
    by_id = {c.id: c.data for c in cases}
    # Counted as absent: the lane's details then show its documented defaults (0 and 1).
    assert "expected_proposals" not in by_id["c1"] and "min_vault_hits" not in by_id["c1"]
    assert "expected_proposals" not in by_id["c2"] and "min_vault_hits" not in by_id["c2"]
    assert (by_id["c3"]["expected_proposals"], by_id["c3"]["min_vault_hits"]) == (1, 0)


def test_the_lane_scores_a_negative_count_with_its_default(tmp_path: Path) -> None:
    cases = write(tmp_path / "cases.jsonl", [LINES[1]])
    turn = {"case_id": "c2", "chain": 0, "path": "ChatRuntime.chat", "role": "probe", "scored": True,
            "surface": "Truth is wisdom.", "grounding_source": "vault", "turn_index": 2, "vault_hits": 0,
            "proposal_count": 1, "trace_hash": "ab"}
    turns = write(tmp_path / "turns.jsonl", [json.dumps(turn)])
    out = tmp_path / "lane.json"
    main(["--lane", SYM, "--cases", str(cases), "--transcripts", str(turns), "--output-format", "json",
          "-o", str(out)])
    (case,) = json.loads(out.read_text("utf-8"))["cases"]
    assert (case["expected_proposals"], case["min_vault_hits"]) == (0, 1)


V2 = """\
[lane]
name = "v2"

[case_schema]
[case_schema.fields.id]
type = "string"
required = true
[case_schema.fields.max_words]
type = "number"
[case_schema.fields.limits]
type = "object"
[case_schema.fields.limits.fields.min_words]
type = "integer"

[[predicates]]
name = "short"
code = "VV3"
kind = "count_between"
[predicates.params]
unit = "words"
max_field = "max_words"

[[predicates]]
name = "long"
code = "VV4"
kind = "count_between"
[predicates.params]
unit = "words"
min_field = "limits.min_words"
"""


def test_a_negative_count_between_bound_is_sl003_top_level_and_nested(tmp_path: Path) -> None:
    engine = Engine(Config(lane_files=[write(tmp_path / "v2.toml", V2)]))
    lines = ['{"id": "c1", "max_words": -3, "limits": {"min_words": -1}}',
             '{"id": "c2", "max_words": 4.5, "limits": {"min_words": -1.5}}']
    result = check(lines, path=P, engine=engine, kind="cases", lane_name="v2")
    assert [(f.location.line, f.location.column, f.location.end_column, f.code, f.message)
            for f in result.findings] == [
        (1, 27, 29, "SL003", "`max_words` is a count: it must be 0 or more, not -3"),
        (1, 55, 57, "SL003", "`limits.min_words` is a count: it must be 0 or more, not -1"),
        # Wrong type first: one finding for -1.5, not a second for its sign.
        (2, 56, 60, "SL003", "`limits.min_words` must be an integer, not a number"),
    ]
    c1, c2 = read_case_file(P, "\n".join(lines).encode("utf-8"), engine.lane("v2")).cases
    assert c1.data == {"id": "c1", "limits": {}}
    # The wrong-typed nested bound counts as absent too: `long` is not judged, not judged against -1.5.
    assert c2.data == {"id": "c2", "max_words": 4.5, "limits": {}}


RUNS_LANE = Path(__file__).resolve().parents[2] / "rules" / "symbolic_logic.toml"


def test_a_case_field_declared_a_count_is_sl003_when_negative_in_a_case_driven_lane(tmp_path: Path) -> None:
    # The case-driven symbolic_logic has no chain kinds naming its counts: its schema says
    # `count = true` on expected_proposals and min_vault_hits.
    engine = Engine(Config(lane_files=[RUNS_LANE]))
    assert engine.lane(SYM).casework is not None
    result = check(LINES, path=P, engine=engine, kind="cases", lane_name=SYM)
    assert [(f.location.line, f.location.column, f.location.end_column, f.message) for f in result.findings
            if "count" in f.message] == [
        (2, 124, 126, "`expected_proposals` is a count: it must be 0 or more, not -1"),
        (2, 146, 148, "`min_vault_hits` is a count: it must be 0 or more, not -2"),
    ]
    # Counted as absent: the lane's details show its defaults (0 and 1), as in the chain lane.
    cases = write(tmp_path / "cases.jsonl", [LINES[1]])
    probe = {"case_id": "c2", "chain": 0, "role": "probe", "surface": "Truth is wisdom.", "vault_hits": 0,
             "trace_hash": "ab"}
    turns = write(tmp_path / "turns.jsonl", [json.dumps(probe)])
    (outcome,) = engine.score(SYM, [str(cases)], [str(turns)]).outcomes
    assert (outcome.details["expected_proposals"], outcome.details["min_vault_hits"]) == (0, 1)


def test_count_on_a_field_that_is_no_integer_is_a_load_error() -> None:
    text = V2.replace('[case_schema.fields.max_words]\ntype = "number"\n',
                      '[case_schema.fields.max_words]\ntype = "number"\ncount = true\n')
    with pytest.raises(LaneError) as info:
        parse_lane(text, "v2.toml", "reference")
    assert (info.value.line, info.value.column, info.value.message) == (
        text.splitlines().index("count = true") + 1, 1,
        "case field 'max_words': `count` needs type \"integer\", not 'number'")
