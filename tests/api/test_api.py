"""surface_lint.api: findings of records, partial lane scores that merge exactly, reports.

A run scored as 1, 2 or 7 parts (pickled, merged in a shuffled order) gives the bytes one
`surface-lint --lane` process prints, in every format, on the real corpus's captures and cases."""

from __future__ import annotations

import functools
import json
import pickle
import random
from pathlib import Path

import pytest
from reporters_support import cli

from surface_lint import api
from surface_lint.engine import UsageError

FORMATS = ["text", "json", "json-lines", "sarif", "junit", "github", "markdown", "html"]
# (lane, cases, captures) of the real corpus: the lanes that score turns (case-driven lanes,
# symbolic_logic among them, are scored in parts of their cases: tests/api/test_case_parts.py).
RUNS = [
    ("deterministic_fluency", "cases/deterministic_fluency/public/v1/cases.jsonl",
     "runtime/captures/deterministic_fluency_public_v1.jsonl"),
    ("multi_sentence_response", "cases/multi_sentence_response/public/v1/cases.jsonl",
     "runtime/captures/multi_sentence_response_public_v1.jsonl"),
]


@pytest.fixture(scope="module")
def linter() -> api.Linter:
    return api.Linter()


def merged(linter: api.Linter, lane: str, cases: list[str], path: Path, parts: int, fmt: str,
           seed: int = 3) -> str:
    options = api.ScoreOptions.for_format(fmt)
    spans = linter.split(path, parts, min_bytes=1)
    assert (len(spans) > 1) == (parts > 1) and len(spans) <= parts
    pieces = [pickle.loads(pickle.dumps(linter.score_file(s, lane, key=k, cases=cases, options=options)))
              for k, s in enumerate(spans)]
    random.Random(seed).shuffle(pieces)
    whole = functools.reduce(api.PartialScore.merge, pieces, linter.empty(lane, cases, options))
    return linter.render(linter.finish(whole), fmt)


@pytest.mark.parametrize(("lane", "cases", "captures"), RUNS)
@pytest.mark.parametrize("fmt", FORMATS)
def test_parts_give_the_bytes_of_one_process(linter: api.Linter, corpus: Path, lane: str, cases: str,
                                             captures: str, fmt: str) -> None:
    case_path, path = str(corpus / cases), corpus / captures
    one = cli("--lane", lane, "--cases", case_path, "--transcripts", str(path), "--output-format", fmt)
    assert one.code in (0, 1), one.err
    for parts in (1, 2, 7):
        assert merged(linter, lane, [case_path], path, parts, fmt) == one.out, (lane, fmt, parts)


def test_repeated_case_ids_across_parts_are_second_records(linter: api.Linter, corpus: Path,
                                                           tmp_path: Path) -> None:
    # The corpus's real turns repeat case ids across the file: the last record of a case wins
    # (SL005 at each later one), across parts as in one stream.
    records = corpus / "surfaces" / "records.jsonl"
    one = cli("--lane", "deterministic_fluency", "--transcripts", str(records), "--output-format", "json")
    report = json.loads(one.out)
    assert sum(1 for f in report["findings"] if f["code"] == "SL005") > 0
    for parts in (2, 7):
        assert merged(linter, "deterministic_fluency", [], records, parts, "json") == one.out


def test_merge_is_associative_and_commutative(linter: api.Linter, corpus: Path) -> None:
    lane, cases, captures = RUNS[0]
    spans = linter.split(corpus / captures, 3, min_bytes=1)
    a, b, c = (linter.score_file(s, lane, key=k, cases=[str(corpus / cases)]) for k, s in enumerate(spans))
    left, right, swapped = a.merge(b).merge(c), a.merge(b.merge(c)), c.merge(a).merge(b)
    assert left.keys == right.keys == swapped.keys == ((0,), (1,), (2,))
    texts = {linter.render(linter.finish(p), "json") for p in (left, right, swapped)}
    assert len(texts) == 1
    metrics = json.loads(texts.pop())["metrics"]
    assert metrics["cases"] == 15 and metrics["expected_predicates_pass_rate"] == 1.0


def test_records_as_dicts_give_findings_with_positions(linter: api.Linter) -> None:
    records = [{"case_id": "c1", "surface": "A lamp gives ... light.", "grounding_source": "none"},
               {"case_id": "c2", "surface": "Salt keeps food from spoiling. teaching-grounded (session).",
                "grounding_source": "teaching"}]
    found = linter.check(records, lane="deterministic_fluency")
    assert [(f.code, f.location.line, f.location.column, f.location.end_column) for f in found] == [
        ("SL101", 1, 44, 47)]  # `...` at columns 44-46 of line 1
    assert found[0].location.path == "<records>"
    assert linter.check(b'{"case_id": "c1", "surface": "ok"\n', lane="deterministic_fluency")[0].code == "SL001"


def test_records_scored_as_parts(linter: api.Linter) -> None:
    rows = [{"case_id": f"c{i}", "turn_index": 0, "scored": True, "surface": s, "grounding_source": "none"}
            for i, s in enumerate(["A river carries water to the sea.", "A lamp gives ... light."] * 3)]
    parts = [linter.score(rows[:2], "deterministic_fluency", key=0, path="run.jsonl"),
             linter.score(rows[2:], "deterministic_fluency", key=1, path="run.jsonl", line=3)]
    result = linter.finish(parts[1].merge(parts[0]))
    assert result.case_count == 6 and result.failing_count == 3
    whole = linter.finish(linter.score(rows, "deterministic_fluency", path="run.jsonl"))
    assert linter.render(result, "json") == linter.render(whole, "json")
    assert [f.location.line for f in result.findings if f.code == "SL101"] == [2, 4, 6]


def test_a_case_primed_in_one_part_and_scored_in_another(linter: api.Linter) -> None:
    primed = {"case_id": "p1", "turn_index": 0, "role": "priming", "scored": False, "surface": "Hello there."}
    scored = {"case_id": "p1", "turn_index": 1, "scored": True, "surface": "A river carries water to the sea."}
    a = linter.score([primed], "deterministic_fluency", key=0)
    b = linter.score([scored], "deterministic_fluency", key=1)
    with pytest.raises(UsageError, match=r"case `p1` is primed in one part of the input and scored in another"):
        linter.finish(a.merge(b))
    assert linter.finish(linter.score([primed, scored], "deterministic_fluency")).case_count == 1


def test_parts_that_cannot_merge(linter: api.Linter) -> None:
    row = [{"case_id": "c1", "turn_index": 0, "scored": True, "surface": "A river carries water to the sea."}]
    a = linter.score(row, "deterministic_fluency", key=0)
    with pytest.raises(ValueError, match=r"two parts have the key \(0,\)"):
        a.merge(linter.score(row, "deterministic_fluency", key=0))
    with pytest.raises(ValueError, match="cannot merge parts of different runs"):
        a.merge(linter.score(row, "multi_sentence_response", key=1))
    with pytest.raises(UsageError, match="lane calibration is case-driven"):
        linter.score(row, "calibration")


def test_a_linter_and_a_part_pickle(linter: api.Linter) -> None:
    row = [{"case_id": "c1", "turn_index": 0, "scored": True, "surface": "A lamp gives ... light."}]
    part = linter.score(row, "deterministic_fluency")
    copy, part_copy = pickle.loads(pickle.dumps(linter)), pickle.loads(pickle.dumps(part))
    assert copy.lanes == linter.lanes and "deterministic_fluency" in copy.lanes
    assert copy.render(copy.finish(part_copy), "json") == linter.render(linter.finish(part), "json")
    assert part.records == 1 and part.nbytes > 0


@pytest.mark.parametrize("fmt", ["text", "json"])
def test_lane_reports_as_parts(linter: api.Linter, corpus: Path, fmt: str) -> None:
    # symbolic_logic's committed reports (case-driven: each report's entries are its cases' records).
    reports = sorted(str(p) for p in (corpus / "reports" / "symbolic_logic").glob("*.json"))[:3]
    one = cli("--lane", "symbolic_logic", "--transcripts", *reports, "--output-format", fmt)
    options = api.ScoreOptions.for_format(fmt)
    parts = [linter.score_cases(reports, "symbolic_logic", k, 3, [], options) for k in range(3)]
    whole = functools.reduce(api.PartialScore.merge, reversed(parts))
    assert linter.render(linter.finish(whole), fmt) == one.out


def test_the_finding_limit_and_a_repeated_id_across_parts(linter: api.Linter) -> None:
    # 30 turns, every second one failing; part one holds 5 failing, part two the rest and a
    # second record of c0 (line 31): the limit of 7 is the run's, the SL005 found across parts.
    rows = [{"case_id": f"c{i}", "turn_index": 0, "scored": True, "surface": s, "grounding_source": "none"}
            for i, s in enumerate(["A river carries water to the sea.", "A lamp gives ... light."] * 15)]
    rows.append({**rows[0], "surface": "A lamp gives ... light."})
    options = api.ScoreOptions(details=False, finding_limit=7)
    parts = [linter.score(rows[:10], "deterministic_fluency", key=0, path="run.jsonl", options=options),
             linter.score(rows[10:], "deterministic_fluency", key=1, path="run.jsonl", line=11, options=options)]
    result = linter.finish(pickle.loads(pickle.dumps(parts[1])).merge(parts[0]))
    assert result.case_count == 30 and result.failing_count == 16
    assert [f.location.line for f in result.findings if f.code == "SL101"] == [2, 4, 6, 8, 10, 12, 14]
    assert [(f.location.line, f.record_id) for f in result.findings if f.code == "SL005"] == [(31, "c0")]
    whole = linter.finish(linter.score(rows, "deterministic_fluency", path="run.jsonl", options=options))
    assert linter.render(result, "text") == linter.render(whole, "text")
