"""A lane with thresholds that scored nothing exits 1 and says why; transcript-only runs keep
their case ids, and a JSON report read back scores the same cases and metrics."""

from __future__ import annotations

import io
import json
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import pytest

from surface_lint.cli.main import main
from surface_lint.engine import Engine

LANE = "deterministic_fluency"
FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "reporters"


def run(*argv: str) -> tuple[int, str]:
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = main([*argv])
    return code, out.getvalue()


@pytest.fixture(autouse=True)
def _in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)


def test_an_empty_transcript_fails_and_says_so() -> None:
    Path("empty.jsonl").write_text("", encoding="utf-8")
    code, out = run("--lane", LANE, "--transcripts", "empty.jsonl")
    assert code == 1
    assert out.splitlines() == [
        "lane deterministic_fluency v1 · profile contract · thresholds v1 · 0 case(s)",
        "lane deterministic_fluency, chosen by flag: --lane",
        "result: FAIL",
        "nothing scored: the transcripts hold no record",
        "input problems:",
        "  empty.jsonl:1:1: SL017 [error] no case was scored: the transcripts hold no record; "
        "the thresholds were not checked",
        "0 lines read: 0 records, 0 errors, 0 blank, 0 skipped.",
    ]


def test_turns_without_case_id_fail_and_say_so() -> None:
    row = {"surface": "A lamp gives light.", "grounding_source": "none"}
    Path("noid.jsonl").write_text(json.dumps(row) + "\n" + json.dumps(row) + "\n", encoding="utf-8")
    code, out = run("--lane", LANE, "--transcripts", "noid.jsonl")
    assert code == 1
    assert out.splitlines()[2:6] == [
        "result: FAIL",
        "nothing scored: 2 turn(s) without `case_id`",
        "input problems:",
        "  noid.jsonl:1:1: SL017 [error] no case was scored: 2 turn(s) without `case_id`; "
        "the thresholds were not checked",
    ]


def test_ids_that_match_no_case_fail_and_say_so() -> None:
    Path("unknown.jsonl").write_text(json.dumps({"case_id": "zz1", "surface": "A lamp gives light."}) + "\n",
                                     encoding="utf-8")
    code, out = run("--lane", LANE, "--cases", str(FIXTURES / "fluency_cases.jsonl"), "--transcripts",
                    "unknown.jsonl", "--output-format", "json")
    assert code == 1
    report = json.loads(out)
    assert (report["passed"], report["metrics"], report["thresholds"]) == (False, {}, [])
    assert report["nothing_scored"] == "1 case id(s) that match no case"
    assert report["unknown_cases"] == ["zz1"]
    assert [(f["code"], f["path"], f["line"], f["column"]) for f in report["findings"] if f["code"] != "SL015"] == [
        ("SL017", "unknown.jsonl", 1, 1)]


def test_lines_that_do_not_parse_fail_and_say_so() -> None:
    Path("garbage.jsonl").write_text("not json\n{broken\n", encoding="utf-8")
    code, out = run("--lane", LANE, "--transcripts", "garbage.jsonl")
    assert code == 1
    assert "nothing scored: none of the 2 line(s) read could be parsed as a record" in out.splitlines()


def test_nothing_scored_in_a_lane_without_thresholds_says_so_and_claims_no_pass() -> None:
    Path("empty.jsonl").write_text("", encoding="utf-8")
    assert not Engine().lane("multi_sentence_response").thresholds  # the lane has no threshold set
    code, out = run("--lane", "multi_sentence_response", "--transcripts", "empty.jsonl")
    assert code == 0
    assert out.splitlines()[2:4] == ["result: no thresholds checked", "nothing scored: the transcripts hold no record"]
    assert "SL017" not in out


def test_a_transcript_only_json_report_keeps_case_ids_and_reads_back_the_same() -> None:
    transcripts = str(FIXTURES / "fluency_new.jsonl")
    code, out = run("--lane", LANE, "--transcripts", transcripts, "--output-format", "json")
    report = json.loads(out)
    assert [c["case_id"] for c in report["cases"]] == ["flu_001", "flu_002", "flu_003", "flu_004", "flu_005",
                                                       "flu_007"]
    Path("report.json").write_text(out, encoding="utf-8")
    _, again = run("--lane", LANE, "--transcripts", "report.json", "--output-format", "json")
    back = json.loads(again)
    assert back["cases"] == report["cases"]
    assert back["metrics"] == report["metrics"]
    assert back["counts"]["cases"] == report["counts"]["cases"] == 6


def test_an_empty_transcript_with_cases_names_the_transcripts_not_the_cases() -> None:
    Path("empty.jsonl").write_text("", encoding="utf-8")
    Path("also_empty.jsonl").write_text("\n", encoding="utf-8")
    code, out = run("--lane", LANE, "--cases", str(FIXTURES / "fluency_cases.jsonl"), "--transcripts",
                    "empty.jsonl", "also_empty.jsonl")
    assert code == 1
    lines = out.splitlines()
    assert "nothing scored: the transcripts hold no record" in lines
    assert ("  empty.jsonl:1:1: SL017 [error] no case was scored: the transcripts hold no record; "
            "the thresholds were not checked") in lines
