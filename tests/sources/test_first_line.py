"""Whatever line 1 holds, every intact line is read and counted (issue 8, "nothing lost").

Lines end at `\\n` only: U+2028, U+2029 and U+0085 inside a string, a bare CR used as
whitespace, a first line over 64 KiB, a garbage first line. The kind comes from the
records that parse, not from line 1.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from engine_support import assert_counts, check, fts, write

from surface_lint.cli.main import main
from surface_lint.engine import Engine
from surface_lint.sources.transcripts import sniff

P = "t.jsonl"
LANE = "deterministic_fluency"
# Line 2 of every file: its `...` at columns 37-40 (the surface starts at column 31).
SECOND = '{"case_id": "c2", "surface": "It is ... fine."}'
PLACEHOLDER_ON_2 = (P, 2, 37, 2, 40, "SL101", "error", "no_placeholder: placeholder marker `...` in the surface")

FIRST_LINES = {
    "u2028": '{"case_id": "c1", "surface": "Truth\u2028is real."}',
    "u2029": '{"case_id": "c1", "surface": "Truth\u2029is real."}',
    "u0085": '{"case_id": "c1", "surface": "Truth\u0085is real."}',
    "bare-cr-whitespace": '{"case_id": "c1",\r"surface": "Truth is real."}',
    "over-64-KiB": '{"case_id": "c1", "surface": "Truth is ' + "a" * 70_000 + '."}',
}


@pytest.mark.parametrize("name", sorted(FIRST_LINES))
def test_a_legal_first_line_that_splitlines_would_break(name: str) -> None:
    data = (FIRST_LINES[name] + "\n" + SECOND + "\n").encode("utf-8")
    result = check(data, path=P)
    assert result.kind == "turns"
    assert fts(result.findings) == [PLACEHOLDER_ON_2]
    assert (result.stats.lines, result.stats.records, result.stats.errors) == (2, 2, 0)
    assert_counts(result.stats)
    assert [r.id for r in result.records] == ["c1", "c2"]


@pytest.mark.parametrize("name", sorted(FIRST_LINES))
def test_a_legal_first_line_scores_every_case(name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write(tmp_path / P, (FIRST_LINES[name] + "\n" + SECOND + "\n").encode("utf-8"))
    result = Engine().score(LANE, [], [str(path)])
    assert result.case_count == 2
    assert (result.stats.lines, result.stats.records, result.stats.errors) == (2, 2, 0)
    assert main(["--lane", LANE, "--transcripts", str(path), "--output-format", "json"]) == 1
    report = json.loads(capsys.readouterr().out)
    assert len(report["cases"]) == 2


def test_a_garbage_first_line_is_one_error_and_the_rest_is_read() -> None:
    result = check(b"garbage\n" + SECOND.encode() + b"\n", path=P)
    assert result.kind == "turns"
    assert fts(result.findings) == [(P, 1, 1, 1, 2, "SL001", "error", "invalid JSON: Expecting value"), PLACEHOLDER_ON_2]
    assert (result.stats.lines, result.stats.records, result.stats.errors) == (2, 1, 1)
    assert_counts(result.stats)


def test_a_raw_control_character_breaks_only_its_own_line() -> None:
    # A form feed is not allowed raw in a JSON string, and it does not end a line either.
    data = b'{"case_id": "c1", "surface": "a\x0cb."}\n' + SECOND.encode() + b"\n"
    result = check(data, path=P)
    assert fts(result.findings) == [
        (P, 1, 32, 1, 33, "SL001", "error", "invalid JSON: Invalid control character at"),
        PLACEHOLDER_ON_2,
    ]
    assert (result.stats.lines, result.stats.records, result.stats.errors) == (2, 1, 1)


def test_a_first_line_over_the_size_limit_then_turns(tmp_path: Path) -> None:
    from surface_lint.engine.config import Config

    data = b'{"case_id": "c1", "surface": "' + b"a" * 300 + b'."}\n' + SECOND.encode() + b"\n"
    result = check(data, path=P, engine=Engine(Config(max_line_bytes=200)))
    assert result.kind == "turns"
    assert fts(result.findings) == [
        (P, 1, 1, 1, 1, "SL010", "error", "line is longer than 200 bytes; skipped"),
        PLACEHOLDER_ON_2,
    ]
    assert (result.stats.lines, result.stats.records, result.stats.errors) == (2, 1, 1)


CASES = "evals/deterministic_fluency/dev/cases.jsonl"
CASE_2 = '{"id": "c2", "prompt": "p", "expected_predicates": ["no_placeholders"]}'
UNKNOWN_ON_2 = (CASES, 2, 53, 2, 70, "SL004", "error",
                "unknown predicate `no_placeholders` for lane deterministic_fluency; did you mean `no_placeholder`?")


@pytest.mark.parametrize("first", [
    "garbage",
    '{"id": "c1", "prompt": "Truth\u2028is", "expected_predicates": []}',
    '{"id": "c1",\r"prompt": "p", "expected_predicates": []}',
    '{"id": "c1", "prompt": "' + "p" * 70_000 + '", "expected_predicates": []}',
])
def test_a_case_file_with_a_hostile_first_line_shows_its_other_findings(first: str) -> None:
    result = check((first + "\n" + CASE_2 + "\n").encode("utf-8"), path=CASES, siblings=False)
    assert result.kind == "cases"
    broken = [(CASES, 1, 1, 1, 2, "SL001", "error", "invalid JSON: Expecting value")] if first == "garbage" else []
    assert fts(result.findings) == [*broken, UNKNOWN_ON_2]
    assert result.stats.lines == 2 and result.stats.records == (1 if broken else 2)
    assert_counts(result.stats)


REPORT = {"lane": LANE, "version": "v1", "metrics": {"no_placeholder_rate": 1.0},
          "cases": [{"case_id": "c1", "surface": "It is ... fine."}]}


def test_a_pretty_printed_report_is_a_report() -> None:
    data = json.dumps(REPORT, indent=2).encode()
    assert sniff(data)[0] == "report"
    result = check(data, path="r.json")
    assert result.kind == "report"
    # Line 10 is `      "surface": "It is ... fine."`: the surface starts at column 19.
    assert fts(result.findings) == [
        ("r.json", 10, 25, 10, 28, "SL101", "error", "no_placeholder: placeholder marker `...` in the surface")]


def test_a_compact_one_line_report_is_a_report(tmp_path: Path) -> None:
    path = write(tmp_path / "r.json", json.dumps(REPORT).encode())
    assert Engine().score(LANE, [], [str(path)]).case_count == 1
    assert check(path.read_bytes(), path="r.json").kind == "report"


def test_a_broken_pretty_printed_report_is_one_positioned_error() -> None:
    text = json.dumps(REPORT, indent=2).replace('"v1",', '"v1"')
    result = check(text.encode(), path="r.json")
    assert result.kind == "report"
    assert fts(result.findings) == [("r.json", 4, 3, 4, 4, "SL001", "error", "invalid JSON: Expecting ',' delimiter")]


@pytest.mark.parametrize("name", [*sorted(FIRST_LINES), "garbage"])
def test_the_editor_reads_every_line_whatever_line_1_holds(name: str, tmp_path: Path) -> None:
    from surface_lint.lsp.documents import Snapshot
    from surface_lint.lsp.workspace import ServerState

    first = FIRST_LINES.get(name, "garbage")
    path = str(tmp_path / P)
    text = first + "\n" + SECOND + "\n"
    result = ServerState().lint(Snapshot("file://" + path, path, 1, tuple(text.split("\n"))))
    broken = [(path, 1, 1, 1, 2, "SL001", "error", "invalid JSON: Expecting value")] if name == "garbage" else []
    assert (result.kind, result.error) == ("turns", None)
    assert fts(result.findings) == [*broken, (path, *PLACEHOLDER_ON_2[1:])]


def test_the_editor_shows_a_case_files_findings_after_a_garbage_first_line(tmp_path: Path) -> None:
    from surface_lint.lsp.documents import Snapshot
    from surface_lint.lsp.workspace import ServerState

    path = str(tmp_path / CASES)
    text = "garbage\n" + CASE_2 + "\n"
    result = ServerState().lint(Snapshot("file://" + path, path, 1, tuple(text.split("\n"))))
    assert result.kind == "cases"
    assert fts(result.findings) == [(path, 1, 1, 1, 2, "SL001", "error", "invalid JSON: Expecting value"),
                                    (path, *UNKNOWN_ON_2[1:])]
