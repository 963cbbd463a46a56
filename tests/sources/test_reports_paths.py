"""NaN and Infinity keep every finding's position; the same file named twice is read once."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from engine_support import check, fts, write

from surface_lint.cli.main import main
from surface_lint.engine import Engine

LANE = "deterministic_fluency"
PLACEHOLDER = "no_placeholder: placeholder marker `...` in the surface"


def test_nan_and_infinity_in_a_compact_report_keep_positions() -> None:
    text = ('{"lane": "deterministic_fluency", "metrics": {"no_placeholder_rate": NaN, "x": -Infinity}, '
            '"cases": [{"case_id": "c1", "score": Infinity, "surface": "It is ... fine."}]}')
    result = check(text.encode(), path="r.json")
    column = text.index("...") + 1  # 1-based column of the placeholder in the source line
    assert column == 157
    assert fts(result.findings) == [("r.json", 1, 157, 1, 160, "SL101", "error", PLACEHOLDER)]


def test_nan_in_a_pretty_printed_report_keeps_positions() -> None:
    text = json.dumps({"lane": LANE, "metrics": {"no_placeholder_rate": float("nan")},
                       "cases": [{"case_id": "c1", "x": float("inf"), "surface": "It is ... fine."}]}, indent=2)
    assert "NaN" in text and "Infinity" in text
    lines = text.split("\n")
    line = next(i for i, t in enumerate(lines, 1) if "..." in t)
    assert (line, lines[line - 1]) == (10, '      "surface": "It is ... fine."')
    assert fts(check(text.encode(), path="r.json").findings) == [("r.json", 10, 25, 10, 28, "SL101", "error",
                                                                  PLACEHOLDER)]


def test_nan_in_a_turn_line_keeps_positions() -> None:
    line = '{"case_id": "c1", "score": NaN, "surface": "It is ... fine.", "w": -Infinity}'
    assert fts(check([line], path="t.jsonl").findings) == [("t.jsonl", 1, 51, 1, 54, "SL101", "error", PLACEHOLDER)]


def _turns(tmp_path: Path) -> Path:
    return write(tmp_path / "t.jsonl", ['{"case_id": "c1", "surface": "It is ... fine."}'])


def test_the_same_transcript_twice_is_read_once(tmp_path: Path) -> None:
    turns = _turns(tmp_path)
    link = tmp_path / "link.jsonl"
    os.symlink(turns, link)
    spellings = [str(turns), str(tmp_path / "." / "t.jsonl"), str(link)]
    result = Engine().score(LANE, [], spellings)
    assert (result.case_count, result.stats.lines, result.stats.records) == (1, 1, 1)
    assert result.sources == [str(turns)]
    assert [f.code for f in result.findings] == ["SL101"]  # no SL005 "a second scored record"


def test_the_same_case_file_twice_is_read_once(tmp_path: Path) -> None:
    cases = write(tmp_path / "cases.jsonl", ['{"id": "c1", "prompt": "p", "expected_predicates": []}'])
    result = Engine().score(LANE, [str(cases), str(cases)], [str(_turns(tmp_path))])
    assert (result.case_count, result.stats.lines) == (1, 2)
    assert [f.code for f in result.findings] == ["SL101"]  # no SL005 duplicate id across "two" files


def test_check_reads_a_file_named_twice_once(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    turns = _turns(tmp_path)
    assert main(["check", str(turns), str(turns), "--output-format", "json"]) == 1
    out = json.loads(capsys.readouterr().out)
    assert [f["code"] for f in out["findings"]] == ["SL101"]
