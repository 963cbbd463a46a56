"""Non-UTF-8 files and unpaired surrogates: a clear finding, never silence, never a crash.

Choices (README, "Inputs"): a file with a UTF-16 or UTF-32 byte-order mark is decoded
(VS Code opens it as text, so editor and CLI agree) with an SL009 notice; one without a
byte-order mark is refused with one SL008 at 1:1 and its lines counted as errors. An
unpaired surrogate escape (`\\ud83d`) is SL016 at the escape, and the string is evaluated
with U+FFFD in its place (one character for one: positions stay exact).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from engine_support import assert_counts, check, fts, write

from surface_lint.cli.main import main
from surface_lint.engine import Engine

P = "t.jsonl"
LANE = "deterministic_fluency"
TEXT = '{"case_id": "c1", "surface": "Truth is real."}\n{"case_id": "c2", "surface": "It is ... fine."}\n'
PLACEHOLDER_ON_2 = (P, 2, 37, 2, 40, "SL101", "error", "no_placeholder: placeholder marker `...` in the surface")


@pytest.mark.parametrize(("codec", "bom", "label"), [
    ("utf-16-le", b"\xff\xfe", "UTF-16-LE"),
    ("utf-16-be", b"\xfe\xff", "UTF-16-BE"),
    ("utf-32-le", b"\xff\xfe\x00\x00", "UTF-32-LE"),
    ("utf-32-be", b"\x00\x00\xfe\xff", "UTF-32-BE"),
])
def test_a_file_with_a_byte_order_mark_is_decoded(codec: str, bom: bytes, label: str, tmp_path: Path) -> None:
    data = bom + TEXT.encode(codec)
    result = check(data, path=P)
    assert fts(result.findings) == [
        (P, 1, 1, 1, 1, "SL009", "information",
         f"file is {label} (byte-order mark); read as {label}, but JSON Lines files should be UTF-8"),
        PLACEHOLDER_ON_2,
    ]
    assert (result.stats.lines, result.stats.records, result.stats.errors) == (2, 2, 0)
    path = write(tmp_path / P, data)
    assert Engine().score(LANE, [], [str(path)]).case_count == 2


def test_utf16_with_crlf_and_a_cut_off_last_character() -> None:
    data = b"\xff\xfe" + TEXT.replace("\n", "\r\n").encode("utf-16-le") + b"{"
    result = check(data, path=P)
    assert fts(result.findings) == [
        (P, 1, 1, 1, 1, "SL009", "information", "CRLF line endings on 2 line(s) (read as LF)"),
        (P, 1, 1, 1, 1, "SL009", "information",
         "file is UTF-16-LE (byte-order mark); read as UTF-16-LE, but JSON Lines files should be UTF-8"),
        PLACEHOLDER_ON_2,
        (P, 3, 1, 3, 2, "SL008", "error",
         "invalid UTF-16-LE data (an unpaired surrogate or a cut-off character); line skipped"),
    ]
    assert (result.stats.lines, result.stats.records, result.stats.errors) == (3, 2, 1)
    assert_counts(result.stats)


@pytest.mark.parametrize(("codec", "label"), [("utf-16-le", "UTF-16-LE"), ("utf-16-be", "UTF-16-BE"),
                                              ("utf-32-le", "UTF-32-LE")])
def test_a_utf16_file_without_a_byte_order_mark_is_refused_with_one_finding(codec: str, label: str,
                                                                            tmp_path: Path) -> None:
    data = TEXT.encode(codec)
    result = check(data, path=P)
    assert fts(result.findings) == [
        (P, 1, 1, 1, 1, "SL008", "error", f"file looks {label} encoded without a byte-order mark (NUL bytes "
         "among its first characters); nothing read: save it as UTF-8"),
    ]
    assert (result.stats.lines, result.stats.records, result.stats.errors) == (2, 0, 2)
    assert_counts(result.stats)
    scored = Engine().score(LANE, [], [str(write(tmp_path / P, data))])
    assert scored.case_count == 0 and (scored.stats.lines, scored.stats.errors) == (2, 2)


def test_a_utf16_report_is_decoded_with_exact_positions() -> None:
    report = {"lane": LANE, "note": "\u010a", "cases": [{"case_id": "c1", "surface": "It is ... fine."}]}
    data = b"\xff\xfe" + json.dumps(report, indent=2, ensure_ascii=False).encode("utf-16-le")
    assert data.count(b"\n") == 10  # U+010A is the bytes 0A 01: not a line end
    result = check(data, path="r.json")
    assert result.kind == "report"
    assert (result.stats.lines, result.stats.records) == (10, 1)  # bytes would say 11
    assert fts(result.findings) == [
        ("r.json", 1, 1, 1, 1, "SL009", "information",
         "file is UTF-16-LE (byte-order mark); read as UTF-16-LE, but JSON files should be UTF-8"),
        ("r.json", 7, 25, 7, 28, "SL101", "error", "no_placeholder: placeholder marker `...` in the surface"),
    ]


# --- unpaired surrogates ---------------------------------------------------------------------

def _surrogate(where: str, line: int, col: int, end: int, record: str | None = "c1") -> tuple[str, int, int, int,
                                                                                              int, str, str, str]:
    return (P, line, col, line, end, "SL016", "warning",
            f"unpaired UTF-16 surrogate in {where} (half of a character); read as U+FFFD")


def test_half_an_emoji_in_a_surface_is_a_finding_and_the_surface_is_evaluated() -> None:
    # `{"case_id": "c1", "surface": "` is 30 code points: `Truth is real ` is columns 31-44.
    result = check([r'{"case_id": "c1", "surface": "Truth is real \ud83d"}', TEXT.split("\n")[1]], path=P)
    assert fts(result.findings) == [
        _surrogate("`surface`", 1, 45, 51),
        (P, 1, 45, 1, 51, "SL103", "warning",
         "complete_punctuation: the surface ends with `\ufffd`, not terminal punctuation (`.` `?` `!` `;`)"),
        PLACEHOLDER_ON_2,
    ]
    assert result.records[0].verdicts is not None and not result.records[0].verdicts["complete_punctuation"].passed
    assert_counts(result.stats)


def test_surrogates_that_are_not_unpaired_are_no_finding() -> None:
    lines = [r'{"case_id": "c1", "surface": "Truth is real \ud83d\ude00."}',  # a pair: one emoji
             r'{"case_id": "c2", "surface": "Truth is real \\ud83d."}']        # an escaped backslash
    assert fts(check(lines, path=P).findings) == []


def test_unpaired_surrogates_in_ids_keys_and_nested_values() -> None:
    line = (r'{"case_id": "c\udc00", "surface": "Truth is real.", "x\ud800": 1,'
            r' "meta": {"a": ["\ud83d\ud83d"]}}')
    result = check([line], path=P)
    assert fts(result.findings) == [
        _surrogate("`case_id`", 1, 15, 21, "c\ufffd"),
        _surrogate("the key `x\ufffd`", 1, 53, 62),
        _surrogate("`meta.a[0]`", 1, 83, 89),
        _surrogate("`meta.a[0]`", 1, 89, 95),
    ]
    assert [r.id for r in result.records] == ["c\ufffd"]
    assert {f.record_id for f in result.findings} == {"c\ufffd"}


def test_an_unpaired_surrogate_in_a_case_file_and_in_a_report() -> None:
    cases = "evals/deterministic_fluency/dev/cases.jsonl"
    result = check([r'{"id": "c1", "prompt": "What is \udfff?", "expected_predicates": []}'], path=cases,
                   siblings=False)
    assert fts(result.findings) == [(cases, 1, 33, 1, 39, "SL016", "warning",
                                     "unpaired UTF-16 surrogate in `prompt` (half of a character); read as U+FFFD")]
    assert [r.id for r in result.records] == ["c1"]
    report = '{"lane": "deterministic_fluency", "note": "\\ud800", "cases": [{"case_id": "c1", "surface": "It is \\ud83d."}]}'
    result = check(report.encode(), path="r.json")
    assert fts(result.findings) == [
        ("r.json", 1, 44, 1, 50, "SL016", "warning",
         "unpaired UTF-16 surrogate in `note` (half of a character); read as U+FFFD"),
        ("r.json", 1, 99, 1, 105, "SL016", "warning",
         "unpaired UTF-16 surrogate in `surface` (half of a character); read as U+FFFD"),
    ]


FORMATS = ["text", "json", "json-lines", "sarif", "junit", "github", "markdown", "html"]


@pytest.mark.parametrize("fmt", FORMATS)
def test_half_an_emoji_never_crashes_any_output_format(fmt: str, tmp_path: Path,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    path = write(tmp_path / P, r'{"case_id": "c\ud83d", "surface": "It is ... real \ud83d"}' + "\n")
    assert main(["check", str(path), "--output-format", fmt]) == 1
    assert main(["--lane", LANE, "--transcripts", str(path), "--output-format", fmt]) in (0, 1)
    out = capsys.readouterr()
    assert "Traceback" not in out.err and "\ufffd" in out.out
    out.out.encode("utf-8")  # strict: every character written is encodable
