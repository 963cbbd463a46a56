"""Engine additions the language server relies on: per-record suppression, the SL103 fix,
scoring from in-memory bytes. Exact positions, 1-based code-point columns."""

from __future__ import annotations

import json
from pathlib import Path

from surface_lint.engine import Engine
from surface_lint.model.findings import Fix, Location

LANE = "deterministic_fluency"


def _turn(surface: str, **extra: object) -> str:
    return json.dumps({"case_id": "c1", "surface": surface, "grounding_source": "pack", **extra},
                      ensure_ascii=False)


def test_sl103_carries_an_add_punctuation_fix_after_the_last_character() -> None:
    # `{"case_id": "c1", "surface": "` is 30 code points; "river flows valley" ends at column 48.
    data = (_turn("river flows valley") + "\n").encode()
    result = Engine().check_bytes("t.jsonl", data, "turns", LANE)
    sl103 = [f for f in result.findings if f.code == "SL103"]
    assert len(sl103) == 1
    assert sl103[0].location == Location("t.jsonl", 1, 48, 1, 49)
    assert sl103[0].fixes == (Fix("Add terminal punctuation `.`", Location("t.jsonl", 1, 49, 1, 49), "."),)


def test_sl103_fix_lands_after_an_escape_and_before_trailing_blanks() -> None:
    # "caf\u00e9  " written with an ASCII escape: the last character is the 6-character escape.
    line = '{"case_id": "c1", "surface": "caf\\u00e9  ", "grounding_source": "pack"}'
    result = Engine().check_bytes("t.jsonl", (line + "\n").encode(), "turns", LANE)
    (finding,) = [f for f in result.findings if f.code == "SL103"]
    assert finding.location == Location("t.jsonl", 1, 34, 1, 40)
    assert finding.fixes[0].location == Location("t.jsonl", 1, 40, 1, 40)
    fixed = line[:39] + "." + line[39:]
    again = Engine().check_bytes("t.jsonl", (fixed + "\n").encode(), "turns", LANE)
    assert [f.code for f in again.findings if f.code == "SL103"] == []


def test_empty_surface_gets_no_fix() -> None:
    result = Engine().check_bytes("t.jsonl", (_turn("") + "\n").encode(), "turns", LANE)
    (finding,) = [f for f in result.findings if f.code == "SL103"]
    assert finding.fixes == ()


def test_record_disable_drops_only_that_records_findings_by_code_or_rule() -> None:
    lines = [
        _turn("river flows valley", surface_lint={"disable": ["SL103"]}),
        _turn("river flows valley"),
        _turn("river flows valley", surface_lint={"disable": ["complete_punctuation"]}),
        _turn("river flows valley", surface_lint={"disable": "SL104"}),
    ]
    result = Engine().check_bytes("t.jsonl", ("\n".join(lines) + "\n").encode(), "turns", LANE)
    assert [(f.location.line, f.code) for f in result.findings if f.code == "SL103"] == [(2, "SL103"), (4, "SL103")]


def test_case_file_accepts_the_suppression_key_and_honours_it() -> None:
    lines = [
        json.dumps({"id": "c1", "prompt": "What is truth?", "expected_predicates": ["no_placeholders"],
                    "surface_lint": {"disable": ["SL004"]}}),
        json.dumps({"id": "c2", "prompt": "What is doubt?", "expected_predicates": ["no_placeholders"]}),
    ]
    result = Engine().check_bytes("evals/deterministic_fluency/dev/cases.jsonl",
                                  ("\n".join(lines) + "\n").encode(), None, None, siblings=False)
    assert [(f.location.line, f.code) for f in result.findings] == [(2, "SL004")]


def test_report_entry_disable(tmp_path: Path) -> None:
    report = {"lane": LANE, "metrics": {}, "cases": [
        {"case_id": "c1", "surface": "river flows valley", "grounding_source": "pack",
         "surface_lint": {"disable": ["SL103", "SL104"]}},
        {"case_id": "c2", "surface": "river flows valley", "grounding_source": "pack"},
    ]}
    data = json.dumps(report, indent=2).encode()
    result = Engine().check_bytes("report.json", data)
    assert sorted({(f.record_id, f.code) for f in result.findings}) == [("c2", "SL103")]


def test_score_reads_unsaved_bytes_instead_of_the_file(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    path.write_text(_turn("Truth is what is real.") + "\n")
    unsaved = (_turn("river flows valley") + "\n").encode()
    engine = Engine()
    on_disk = engine.score(LANE, [], [str(path)])
    in_memory = engine.score(LANE, [], [str(path)], texts={str(path): unsaved})
    assert on_disk.metrics["complete_punctuation_rate"] == 1.0
    assert in_memory.metrics["complete_punctuation_rate"] == 0.0
    assert path.read_text() == _turn("Truth is what is real.") + "\n"
