"""Bad input: each gets a positioned finding, every other line is still read and counted,
nothing crashes and nothing is written into the inputs."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
from engine_support import assert_counts, check, fts, snapshot, write

from surface_lint.cli.main import main
from surface_lint.engine import Engine
from surface_lint.engine.config import Config

P = "bad.jsonl"
GOOD = b'{"case_id": "c1", "surface": "It is fine."}'

# One file, every kind of bad line between good ones. Line numbers are the list's, 1-based.
BAD_LINES = [
    GOOD,                                                        # 1 (after a BOM)
    b'{"case_id": "c2", "surface": "x"',                         # 2 malformed JSON
    b'{"case_id": "c3", "surface": 5}',                          # 3 wrong type
    b'{"case_id": "c4", "surface": "caf\xc3\xa9 \xff is."}',     # 4 invalid UTF-8 after a 2-byte char
    b"[1, 2]",                                                   # 5 not an object
    b'"just a string"',                                          # 6 not an object
    b"[" * 100000,                                               # 7 deep nesting (and over the limit)
    b"",                                                         # 8 blank
    b'{"case_id": "c5", "surface": "It is ... fine."}\r',        # 9 CRLF
    b'{"case_id": "c6", "surface": "' + b"a" * 300 + b'"}',      # 10 over max-line-bytes
    b'{"case_id": "c7", "surface": "It is fine."}',              # 11
]
BAD_FILE = b"\xef\xbb\xbf" + b"\n".join(BAD_LINES) + b"\n"

EXPECTED = [
    (P, 1, 1, 1, 1, "SL009", "information", "file starts with a UTF-8 byte-order mark (ignored)"),
    (P, 2, 33, 2, 33, "SL001", "error", "invalid JSON: Expecting ',' delimiter"),  # at the end of the line
    (P, 3, 30, 3, 31, "SL003", "error", "`surface` must be a string or null, not a number"),
    (P, 4, 36, 4, 37, "SL008", "error", "invalid UTF-8 byte 0xff; line skipped"),
    (P, 5, 1, 5, 7, "SL001", "error", "expected a JSON object, found an array"),
    (P, 6, 1, 6, 16, "SL001", "error", "expected a JSON object, found a string"),
    (P, 7, 1, 7, 1, "SL010", "error", "line is longer than 200 bytes; skipped"),
    (P, 9, 1, 9, 1, "SL009", "information", "CRLF line endings on 1 line(s) (read as LF)"),
    (P, 9, 37, 9, 40, "SL101", "error", "no_placeholder: placeholder marker `...` in the surface"),
    (P, 10, 1, 10, 1, "SL010", "error", "line is longer than 200 bytes; skipped"),
]


def test_every_bad_line_gets_a_positioned_finding_and_the_rest_is_read() -> None:
    result = check(BAD_FILE, path=P, engine=Engine(Config(max_line_bytes=200)))
    assert fts(result.findings) == EXPECTED
    s = result.stats
    assert (s.lines, s.records, s.errors, s.blank, s.skipped) == (11, 3, 6, 1, 1)
    assert_counts(s)
    assert [r.id for r in result.records] == ["c1", "c5", "c7"]


def test_the_same_file_scored_from_disk(tmp_path: Path) -> None:
    path = write(tmp_path / P, BAD_FILE)
    before = snapshot([path])
    result = Engine(Config(max_line_bytes=200)).score("deterministic_fluency", [], [str(path)])
    assert [(f.location.line, f.code) for f in result.findings] == [(e[1], e[5]) for e in EXPECTED]
    assert [o.case_id for o in result.outcomes] == ["c1", "c5", "c7"]
    assert_counts(result.stats)
    assert snapshot([path]) == before


def test_a_file_without_a_final_newline() -> None:
    result = check(GOOD + b"\n" + b'{"case_id": "c2", "surface": "It is ..."}', path=P)
    assert [(f.location.line, f.code) for f in result.findings] == [(2, "SL101")]
    assert (result.stats.lines, result.stats.records) == (2, 2)


def test_deep_nesting_within_the_size_limit() -> None:
    result = check(b"[" * 100000 + b"\n" + GOOD + b"\n", path=P)
    assert fts(result.findings) == [(P, 1, 1, 1, 2, "SL001", "error", "invalid JSON: nesting too deep to read")]
    assert (result.stats.lines, result.stats.records, result.stats.errors) == (2, 1, 1)


def test_deeply_nested_but_valid_values_inside_a_report_keep_positions() -> None:
    text = ('{"lane": "deterministic_fluency", "extra": ' + "[" * 150 + "]" * 150 + ',\n'
            ' "cases": [{"case_id": "c1", "surface": "It is ..."}]}\n')
    assert fts(check(text, path="r.json").findings) == [
        ("r.json", 2, 48, 2, 51, "SL101", "error", "no_placeholder: placeholder marker `...` in the surface"),
    ]


def test_deep_nesting_inside_a_report() -> None:
    data = b'{"lane": "deterministic_fluency", "cases": ' + b"[" * 100000
    result = check(data, path="r.json")
    assert result.kind == "report"
    assert fts(result.findings) == [("r.json", 1, 1, 1, 1, "SL001", "error", "invalid JSON: nesting too deep to read")]


def test_deeply_nested_but_valid_values_inside_a_turn_are_fine() -> None:
    line = '{"case_id": "c1", "extra": ' + "[" * 150 + "]" * 150 + ', "surface": "It is ..."}'
    found = check([line], path=P).findings
    start = line.index("...") + 1
    assert [(f.code, f.location.column, f.location.end_column) for f in found] == [("SL101", start, start + 3)]


@pytest.mark.parametrize("kind", [None, "turns", "telemetry", "cases"])
def test_an_empty_jsonl_file_has_nothing_to_report(kind: str | None) -> None:
    result = check(b"", path="empty.jsonl", kind=kind)
    assert result.findings == []
    assert (result.stats.lines, result.stats.records) == (0, 0)


def test_an_empty_report_is_invalid_json() -> None:
    result = check(b"", path="empty.json", kind="report")
    # An empty range at the end of the (empty) line: a position never lies past its line.
    assert fts(result.findings) == [("empty.json", 1, 1, 1, 1, "SL001", "error", "invalid JSON: Expecting value")]


def test_only_blank_lines() -> None:
    result = check(b"\n  \n\t\r\n", path=P)
    assert fts(result.findings) == [(P, 3, 1, 3, 1, "SL009", "information", "CRLF line endings on 1 line(s) (read as LF)")]
    assert (result.stats.lines, result.stats.blank) == (3, 3)


def test_report_invalid_json_and_invalid_utf8_are_positioned() -> None:
    text = b'{\n  "lane": "deterministic_fluency",\n  "cases": [\n    {"case_id": "c1",, "surface": "x"}\n  ]\n}\n'
    assert fts(check(text, path="r.json").findings) == [
        ("r.json", 4, 22, 4, 23, "SL001", "error", "invalid JSON: Expecting property name enclosed in double quotes"),
    ]
    text = b'{\n  "lane": "deterministic_fluency",\n  "cases": [\n    {"case_id": "c1", "surface": "caf\xff"}\n  ]\n}\n'
    assert fts(check(text, path="r.json").findings) == [
        ("r.json", 4, 38, 4, 39, "SL008", "error", "invalid UTF-8 byte 0xff"),
    ]


def test_report_with_bom_and_crlf() -> None:
    text = (b'\xef\xbb\xbf{\r\n  "lane": "deterministic_fluency",\r\n  "cases": [\r\n'
            b'    {"case_id": "c1", "surface": "It is ..."}\r\n  ]\r\n}\r\n')
    assert fts(check(text, path="r.json").findings) == [
        ("r.json", 1, 1, 1, 1, "SL009", "information", "file starts with a UTF-8 byte-order mark (ignored)"),
        ("r.json", 4, 41, 4, 44, "SL101", "error", "no_placeholder: placeholder marker `...` in the surface"),
    ]


def test_a_bad_case_file_is_read_the_same_way() -> None:
    data = (b'{"id": "c1", "prompt": "What is truth?", "expected_predicates": []}\n'
            b'{"id": "c2", "prompt": "What is \xff?", "expected_predicates": []}\n'
            b"not json\n"
            b'{"id": "c3", "prompt": "What is light?", "expected_predicates": []}\r\n')
    result = check(data, path="evals/deterministic_fluency/dev/cases.jsonl", kind="cases")
    assert [(f.location.line, f.location.column, f.code) for f in result.findings] == [
        (2, 33, "SL008"), (3, 1, "SL001"), (4, 1, "SL009"),
    ]
    assert [r.id for r in result.records] == ["c1", "c3"]
    assert_counts(result.stats)


@pytest.mark.slow
def test_a_real_50_mb_line_is_skipped_without_stalling(tmp_path: Path) -> None:
    big = b'{"case_id": "big", "surface": "' + b"a" * 50_000_000 + b'"}'
    data = GOOD + b"\n" + big + b"\n" + b'{"case_id": "c2", "surface": "It is ..."}\n'
    path = write(tmp_path / "big.jsonl", data)
    del big, data
    engine = Engine()  # the default limit: 32 MiB
    started = time.monotonic()
    result = engine.score("deterministic_fluency", [], [str(path)])
    assert time.monotonic() - started < 10
    assert [(f.location.line, f.location.column, f.code, f.message) for f in result.findings] == [
        (2, 1, "SL010", f"line is longer than {32 * 1024 * 1024} bytes; skipped"),
        (3, 31 + 6, "SL101", "no_placeholder: placeholder marker `...` in the surface"),
    ]
    s = result.stats
    assert (s.lines, s.records, s.errors) == (3, 2, 1)
    assert_counts(s)


# --- nothing is ever written into the inputs --------------------------------------------------


def test_inputs_are_never_written(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cases = write(tmp_path / "evals" / "deterministic_fluency" / "dev" / "cases.jsonl",
                  b'{"id": "c1", "prompt": "What is truth?", "expected_predicates": ["no_placeholder"]}\n'
                  b'{"id": "c1", "prompt": "dup", "expected_predicates": ["no_placeholders"]}\n')
    turns = write(tmp_path / "turns.jsonl", BAD_FILE)
    report = write(tmp_path / "report.json",
                   json.dumps({"lane": "deterministic_fluency",
                               "cases": [{"case_id": "c1", "surface": "It is ...", "predicates": {"no_placeholder": True}}]},
                              indent=2))
    inputs = [cases, turns, report]
    before = snapshot(inputs)
    time.sleep(0.01)
    assert main(["check", str(cases), str(turns), str(report), "--output-format", "json"]) == 1
    assert main(["--lane", "deterministic_fluency", "--cases", str(cases), "--transcripts", str(turns), str(report),
                 "--output-format", "json"]) in (0, 1)
    assert main(["--lane", "deterministic_fluency", "--cases", str(cases), "--transcripts", str(turns)]) in (0, 1)
    capsys.readouterr()
    engine = Engine()
    for path in inputs:
        engine.check_bytes(str(path), path.read_bytes())
    assert snapshot(inputs) == before
    assert sorted(p.name for p in tmp_path.rglob("*") if p.is_file()) == ["cases.jsonl", "report.json", "turns.jsonl"]


def test_mistyped_fields_of_a_report_entry_are_sl003_not_silently_missing() -> None:
    text = ('{"lane": "symbolic_logic", "cases": [\n'
            '  {"id": "S1", "vault_hits": "3", "trace_hash": 7, "trace_hash_replay": "a", "proposal_count": 1,\n'
            '   "expected_proposals": 1, "min_vault_hits": 1}\n'
            "]}\n")
    found = check(text, path="r.json").findings
    assert fts(found, {"SL003"}) == [
        ("r.json", 2, 30, 2, 33, "SL003", "error", "`vault_hits` must be an integer or null, not a string"),
        ("r.json", 2, 49, 2, 50, "SL003", "error", "`trace_hash` must be a string or null, not a number"),
    ]
    text = '{"lane": "deterministic_fluency", "cases": [{"case_id": "c1", "surface": 5}]}'
    assert fts(check(text, path="r.json").findings, {"SL003"}) == [
        ("r.json", 1, 74, 1, 75, "SL003", "error", "`surface` must be a string or null, not a number"),
    ]
