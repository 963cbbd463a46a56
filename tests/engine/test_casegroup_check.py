"""`check --cases` on a case-driven lane judges cases as `score` does (engine/casegroup.py,
`CaseworkEvaluator.case_findings`), on our own small lane: a case that passes has no finding,
a failing one gets each reason at the turn it came from, a case-level value (SL018) at the case
id of its first captured turn; the grouping moves to disk past its memory bound with the same
findings."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from test_casework import CASES, LANE, rec, write_jsonl

from surface_lint.engine import Engine, casegroup
from surface_lint.engine.casegroup import CaseGroups
from surface_lint.engine.config import Config
from surface_lint.sources.base import JsonlReader

# The demo lane with a verdict that reads a case-level value too.
BOTH = LANE.replace('name = "passed"\nexpr = "anchors"', 'name = "passed"\nexpr = "anchors and same_answers"')


def engine_with(tmp_path: Path, text: str) -> Engine:
    lane_file = tmp_path / "thread_demo.toml"
    lane_file.write_text(text, encoding="utf-8")
    engine = Engine(Config(lane_files=[lane_file]), profile="reference")
    assert engine.lane_errors == []
    return engine


CAPTURES: list[Any] = [
    rec("c1", 0, 0, "Light is bright."),
    rec("c1", 0, 1, "Because it is."),  # does not name `light`: c1 fails
    rec("c2", 0, 0, "Truth is real."),
    rec("c1", 1, 0, "Light is bright."),  # the replay run comes back to c1 later
    rec("c1", 1, 1, "Light matters."),
    rec("c2", 1, 0, "It is."),  # the replay fails c2's anchor: metrics only, c2 passes
    rec("c9", 0, 0, "Nobody asked."),
    "{not json",
]


def check(engine: Engine, tmp_path: Path, rows: list[Any]) -> list[tuple[Any, ...]]:
    cases = write_jsonl(tmp_path / "cases.jsonl", CASES)
    captures = write_jsonl(tmp_path / "captures.jsonl", rows)
    _, index = engine.load_cases([cases], engine.lane("thread_demo"))
    result = engine.check_bytes(captures, Path(captures).read_bytes(), lane_name="thread_demo", cases=index)
    streamed: list[Any] = []
    engine.check_file(captures, None, "thread_demo", index, streamed.append)  # the CLI's path
    assert sorted(streamed, key=lambda f: f.sort_key()) == result.findings
    return [(f.location.line, f.location.column, f.location.end_column, f.code, f.record_id, f.message)
            for f in result.findings]


def test_a_case_has_findings_only_when_its_verdict_fails(tmp_path: Path) -> None:
    assert check(engine_with(tmp_path, LANE), tmp_path, CAPTURES) == [
        (2, 78, 91, "TD1", "c1", "names_topic: does not name light"),
        (7, 13, 17, "SL015", "c9", "case id `c9` matches no case in the given case files"),
        (8, 2, 3, "SL001", None, "invalid JSON: Expecting property name enclosed in double quotes"),
    ]


def test_a_case_level_value_is_reported_at_the_case_id_of_its_first_turn(tmp_path: Path) -> None:
    assert check(engine_with(tmp_path, BOTH), tmp_path, CAPTURES)[:2] == [
        (1, 13, 17, "SL018", "c1", "case c1: 2 different answers"),
        (2, 78, 91, "TD1", "c1", "names_topic: does not name light"),
    ]


def test_a_record_that_disables_a_code_drops_the_case_findings_placed_on_it(tmp_path: Path) -> None:
    rows = list(CAPTURES)
    rows[1] = {**rows[1], "surface_lint": {"disable": ["TD1"]}}
    assert [row[3] for row in check(engine_with(tmp_path, BOTH), tmp_path, rows)] == ["SL018", "SL015", "SL001"]


def test_past_its_memory_bound_the_grouping_is_on_disk_with_the_same_findings(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    engine = engine_with(tmp_path, BOTH)
    in_memory = check(engine, tmp_path, CAPTURES)
    spilled: list[bool] = []
    real = CaseGroups.groups

    def watched(self: CaseGroups) -> Any:
        spilled.append(self.spilled)
        return real(self)

    monkeypatch.setattr(casegroup, "MEMORY_RECORDS", 2)
    monkeypatch.setattr(CaseGroups, "groups", watched)
    assert check(engine, tmp_path, CAPTURES) == in_memory
    assert spilled == [True, True]  # check_bytes and check_file


def test_case_groups_keep_each_cases_records_in_order_on_disk(tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "t.jsonl", [json.dumps(r) for r in CAPTURES[:6]] + ['{"case_id": "c2", "x": "\\ud83d"}'])
    reader = JsonlReader(path)
    with open(path, "rb") as fh:
        records = list(reader.records(fh))
    shapes = []
    for memory in (100, 0):
        groups = CaseGroups(memory)
        for record in records:
            groups.add(record.data["case_id"], record)
        assert groups.spilled is (memory == 0)
        shapes.append([(case_id, [(r.line, r.index, r.data, r.text, r.location("case_id").column) for r in rs])
                       for case_id, rs in groups.groups()])
    assert shapes[0] == shapes[1]
    assert [(case_id, [r[0] for r in rs]) for case_id, rs in shapes[1]] == [("c1", [1, 2, 4, 5]), ("c2", [3, 6, 7])]
    assert shapes[1][1][1][2][2] == {"case_id": "c2", "x": "\ufffd"}  # the reader's repair is kept
