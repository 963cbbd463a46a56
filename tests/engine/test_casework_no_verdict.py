"""A case-driven lane whose runner gives no per-case verdict: no value is named `passed`, no case
fails (one that cannot be judged still does), and the metrics and thresholds decide the exit."""

from __future__ import annotations

from pathlib import Path

import pytest
from engine_support import FIXTURES, write

from surface_lint.cli.main import main

LANE = (FIXTURES / "lanes" / "answer_words.toml").read_text("utf-8")


def run(tmp_path: Path, surfaces: list[str], capsys: pytest.CaptureFixture[str], *extra: str) -> tuple[int, str]:
    lane = write(tmp_path / "lane.toml", LANE)
    cases = write(tmp_path / "cases.jsonl", "".join(f'{{"id": "c{i}"}}\n' for i in range(len(surfaces))))
    captures = write(tmp_path / "caps.jsonl", "".join(
        f'{{"case_id": "c{i}", "role": "answer", "surface": "{s}"}}\n' for i, s in enumerate(surfaces)))
    code = main(["--lane-file", str(lane), "--lane", "answer_words", "--cases", str(cases),
                 "--transcripts", str(captures), *extra])
    return code, capsys.readouterr().out


def test_no_case_fails_and_the_threshold_decides(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(tmp_path, ["one two three four", "one"], capsys) == (1, (
        "lane answer_words v1 · profile contract · thresholds gate · 2 case(s)\n"
        "lane answer_words, chosen by flag: --lane\n"
        "  gate           false                     (headline metric)\n"
        "  mean_words    2.5000  >= 3         FAIL\n"
        "  n                  2\n"
        "result: FAIL\n"
        "4 lines read: 4 records, 0 errors, 0 blank, 0 skipped.\n"))
    code, out = run(tmp_path, ["one two three four", "one two"], capsys)
    assert (code, out.splitlines()[2:6]) == (0, ["  gate            true                     (headline metric)",
                                                 "  mean_words    3.0000  >= 3         ok", "  n                  2",
                                                 "result: PASS"])


def test_the_junit_cases_have_no_failure(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out = run(tmp_path, ["one two three four", "one"], capsys, "--output-format", "junit")
    assert code == 1
    assert '<testsuite name="answer_words.cases" tests="2" failures="0" errors="0" skipped="0">' in out
