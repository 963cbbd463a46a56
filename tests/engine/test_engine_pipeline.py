"""The one record pipeline: `check_line` (the editor's re-checked lines) agrees with `check_bytes`,
priming comes from context (no fabricated record), suppressions work on the parsed records."""

from __future__ import annotations

import json
from pathlib import Path

from surface_lint.engine import Engine
from surface_lint.model.findings import Finding

MULTI = "multi_sentence_response"


def _jsonl(rows: list[dict[str, object]]) -> str:
    return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows)


ROWS: list[dict[str, object]] = [
    {"case_id": "m1", "role": "priming", "surface": "A forest is land covered by trees.", "grounding_source": "pack"},
    {"case_id": "m2", "role": "prompt", "surface": "Short.", "grounding_source": "pack"},
    {"case_id": "m1", "role": "prompt", "surface": "Short.", "grounding_source": "pack"},
    {"case_id": "m3", "role": "prompt", "surface": "river flows valley", "grounding_source": "pack",
     "surface_lint": {"disable": ["SL103"]}},
]


def test_check_line_is_check_bytes_line_by_line() -> None:
    engine = Engine()
    path = "t_multi_sentence_response.jsonl"
    text = _jsonl(ROWS)
    whole = engine.check_bytes(path, text.encode(), "turns", MULTI)
    lines = text.splitlines()
    by_line = []
    records = []
    for number, line in enumerate(lines, 1):
        primed = ["m1"] if number > 1 else []
        got = engine.check_line(path, line, number, "turns", MULTI, primed=primed)
        by_line.extend(got.findings)
        records.extend(got.records)
    assert [f.to_dict() for f in by_line] == [f.to_dict() for f in whole.findings]
    assert [(r.id, r.location) for r in records] == [(r.id, r.location) for r in whole.records]
    primed = {r.location.line: r.verdicts["primed"].passed for r in records if r.verdicts}
    assert primed == {1: True, 2: False, 3: True, 4: False}


def test_check_line_primed_comes_from_the_caller_not_a_fabricated_turn() -> None:
    engine = Engine()
    line = json.dumps(ROWS[2])
    alone = engine.check_line("t.jsonl", line, 7, "turns", MULTI)
    primed = engine.check_line("t.jsonl", line, 7, "turns", MULTI, primed=["m1"])
    assert [r.verdicts["primed"].passed for r in alone.records if r.verdicts] == [False]
    assert [r.verdicts["primed"].passed for r in primed.records if r.verdicts] == [True]
    assert {r.location.line for r in primed.records} == {7}
    assert all(f.location.line == 7 for f in primed.findings)


def test_a_bom_is_a_notice_on_line_1_only() -> None:
    engine = Engine()
    line = "\ufeff" + json.dumps(ROWS[1])
    first = engine.check_line("t.jsonl", line, 1, "turns", MULTI)
    later = engine.check_line("t.jsonl", line, 5, "turns", MULTI)
    assert [(f.code, f.location.line, f.location.column) for f in first.findings if f.code in ("SL009", "SL001")] == [
        ("SL009", 1, 1)]
    assert [(f.code, f.location.line, f.location.column) for f in later.findings if f.code in ("SL009", "SL001")] == [
        ("SL001", 5, 1)]


def test_suppression_reads_the_parsed_record(tmp_path: Path) -> None:
    engine = Engine()
    rows = [
        {"case_id": "f1", "surface": "river flows valley", "grounding_source": "pack"},
        {"case_id": "f2", "surface": "river flows valley", "grounding_source": "pack",
         "surface_lint": {"disable": ["SL103"]}},
        {"case_id": "f3", "surface": "river flows valley", "grounding_source": "pack",
         "surface_lint": {"disable": ["complete_punctuation"]}},
    ]
    path = tmp_path / "t_deterministic_fluency.jsonl"
    path.write_text(_jsonl(rows), encoding="utf-8")
    streamed: list[Finding] = []
    stats = engine.check_file(str(path), None, "deterministic_fluency", None, streamed.append)
    whole = engine.check_bytes(str(path), path.read_bytes(), None, "deterministic_fluency")
    assert stats.records == 3
    assert [(f.code, f.location.line, f.location.column) for f in whole.findings if f.code == "SL103"] == [
        ("SL103", 1, 48)]  # the last character: `{"case_id": "f1", "surface": "` is 30 columns
    assert sorted(f.to_dict() for f in streamed) == sorted(f.to_dict() for f in whole.findings)  # type: ignore[type-var]


def test_check_codes_are_one_list() -> None:
    from surface_lint.model.checks import CHECKS, CheckCode

    constants = {v for k, v in vars(CheckCode).items() if k.isupper()}
    assert constants == set(CHECKS)


def test_the_engine_imports_no_process_pool() -> None:
    import subprocess
    import sys

    code = ("import sys, surface_lint.engine, surface_lint.reporters; "
            "print(sorted(m for m in sys.modules if m in ('surface_lint.cli.parallel', 'concurrent.futures', "
            "'multiprocessing')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
