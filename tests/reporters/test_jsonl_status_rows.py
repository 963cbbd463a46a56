"""JSON Lines from status rows (engine/score.py `status_row`: a case's id, shared details, failed
names and their severities, no verdicts) is the report from full rows, and its case lines are
written from the shared details' text made once per repeated case (reporters/jsonl.py)."""

from __future__ import annotations

import json
from pathlib import Path

from surface_lint.engine import Engine
from surface_lint.model.findings import Severity
from surface_lint.reporters import jsonl
from surface_lint.reporters.options import RenderOptions

LANE = "deterministic_fluency"
RIVER = "A river is water that moves toward the sea."  # passes every predicate


def _turns(tmp_path: Path, surfaces: list[str]) -> Path:
    turns = tmp_path / "t.jsonl"
    turns.write_text("".join(json.dumps({"case_id": f"c{i}", "turn_index": 0, "scored": True, "surface": s}) + "\n"
                             for i, s in enumerate(surfaces)))
    return turns


def test_status_and_full_rows_write_the_same_report(tmp_path: Path) -> None:
    turns = _turns(tmp_path, ["no ending", RIVER, "no ending"])
    engine = Engine()
    options = RenderOptions(lane=engine.lane(LANE))
    full = jsonl.render_lane(engine.score(LANE, [], [str(turns)], want_details=True), options)
    status = jsonl.render_lane(engine.score(LANE, [], [str(turns)], want_details=True, status_rows=True), options)
    assert status == full
    lines = status.splitlines()
    assert lines[0] == (
        '{"case_id":"c0","details":{"case_id":"c0","category":"uncategorised","expected_pass":true,'
        '"expected_predicates":[],"grounding_source":"none","predicates":{"complete_punctuation":false,"finite_predicate_shape":true,'
        '"no_dotted_inventory":true,"no_placeholder":true,"no_provenance_only":true,'
        '"surface_provenance_match":true},"prompt":null,"surface":"no ending"},'
        '"failed_predicates":["complete_punctuation"],"status":"fail","type":"case"}')
    assert lines[2] == lines[0].replace('"c0"', '"c2"')
    assert [json.loads(line)["status"] for line in lines[:3]] == ["fail", "pass", "fail"]


def test_status_rows_hold_severities_and_no_verdicts(tmp_path: Path) -> None:
    turns = _turns(tmp_path, ["no ending", RIVER, "no ending"])
    result = Engine().score(LANE, [], [str(turns)], want_details=True, status_rows=True)
    outcomes = list(result.outcomes)
    assert [o.case_id for o in outcomes] == ["c0", "c1", "c2"]
    assert [o.failed for o in outcomes] == [("complete_punctuation",), (), ("complete_punctuation",)]
    assert [o.verdicts for o in outcomes] == [{}, {}, {}]
    assert [o.judged for o in outcomes] == [(), (), ()]
    assert [o.levels for o in outcomes] == [{"complete_punctuation": Severity.WARNING}, {},
                                            {"complete_punctuation": Severity.WARNING}]
    # The details of a repeated case: one dict and serial, the case's own id beside them.
    first, _, third = (o.details for o in outcomes)
    assert isinstance(first, tuple) and isinstance(third, tuple)
    assert first[0] == third[0] and first[1] is third[1]
    assert (first[2], first[3], third[2], third[3]) == ("case_id", "c0", "case_id", "c2")


def test_shared_details_text_splices_the_id_and_falls_back_when_the_mark_repeats() -> None:
    text = jsonl._SharedDetails()
    shared = {"case_id": None, "surface": "x", "n": 1}
    assert text((7, shared, "case_id", "a\"b")) == '{"case_id":"a\\"b","n":1,"surface":"x"}'
    assert text((7, shared, "case_id", 5)) == '{"case_id":5,"n":1,"surface":"x"}'
    assert text((8, {"surface": "y"}, "", None)) == '{"surface":"y"}'
    assert text({"case_id": "w", "z": [1, 2]}) == '{"case_id":"w","z":[1,2]}'  # a worker's plain dict
    marked = {"case_id": None, "surface": jsonl._ID_MARK}  # the mark twice in the text: encoded whole
    assert text((9, marked, "case_id", "q")) == '{"case_id":"q","surface":"\\u0000surface-lint case id\\u0000"}'
