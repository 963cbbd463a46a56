"""Exact positions of findings located through the span memo (sources/base.py
DocLocator.span_locations: a surface's ranges remembered per raw token, offset by where the
token sits in its line), for one surface repeated at other lines and columns, with `\\u`
escapes, a surrogate pair and U+2028 in it and raw non-ASCII characters and escapes before
it; read from UTF-8 and from UTF-16 files, and as the editor's UTF-16 and UTF-8 columns.

Every expected value is counted by hand (the comments show the counts).
"""

from __future__ import annotations

import io

import pytest

from surface_lint.model.findings import Location
from surface_lint.model.positions import utf8_column, utf16_column
from surface_lint.sources import base
from surface_lint.sources.base import DocLocator, JsonlReader

# The surface's token, escapes as written: "h\u00e9 \ud83d\ude00 x\u2028y." decodes to
# h é ␠ 😀 ␠ x U+2028 y . (9 code points). Offsets in the token from its opening quote:
# " 0, h 1, \u00e9 2-7, ␠ 8, \ud83d\ude00 9-20, ␠ 21, x 22, \u2028 23-28, y 29, . 30, " 31.
TOKEN = '"h\\u00e9 \\ud83d\\ude00 x\\u2028y."'
# é (decoded 1-2) -> token [2, 8); 😀 (3-4) -> [9, 21); U+2028 y (6-8) -> [23, 30).
SPANS = ((1, 2), (3, 4), (6, 8))

# 23 characters before the token: {"id": "a", "surface": (quote at offset 23, column 24).
PLAIN = '{"id": "a", "surface": ' + TOKEN + "}"
# Before the token: {"id": " (8) b é 😀 U+2028 (raw, 4) \t (an escape, 2) " , ␠ (3)
# "surface" (9) : ␠ (2) = 28 characters: the quote at offset 28, column 29.
AFTER_WIDE = '{"id": "b\u00e9\U0001f600\u2028\\t", "surface": ' + TOKEN + "}"
# The same decoded surface written raw (no escapes): its own token, its own ranges.
# " 0, h 1, é 2, ␠ 3, 😀 4, ␠ 5, x 6, U+2028 7, y 8, . 9, " 10; quote at offset 23.
RAW = '{"id": "a", "surface": "h\u00e9 \U0001f600 x\u2028y."}'


@pytest.fixture(autouse=True)
def _fresh_memo(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(base, "_RANGES", {})


def test_a_repeated_escaped_surface_at_other_columns_and_lines(scans: list[int]) -> None:
    first = DocLocator("t.jsonl", PLAIN, first_line=1)
    again = DocLocator("t.jsonl", AFTER_WIDE, first_line=5)
    # Token at column 24: [2, 8) -> columns 26-32, [9, 21) -> 33-45, [23, 30) -> 47-54.
    assert first.span_locations(("surface",), SPANS) == [
        Location("t.jsonl", 1, 26, 1, 32), Location("t.jsonl", 1, 33, 1, 45), Location("t.jsonl", 1, 47, 1, 54)]
    # Token at column 29 on line 5: columns 31-37, 38-50, 52-59.
    assert again.span_locations(("surface",), SPANS) == [
        Location("t.jsonl", 5, 31, 5, 37), Location("t.jsonl", 5, 38, 5, 50), Location("t.jsonl", 5, 52, 5, 59)]
    assert scans == [23]  # the second line's token was not scanned again
    # The one-by-one path (no memo) agrees.
    assert [again.location(("surface",), inner) for inner in SPANS] == again.span_locations(("surface",), SPANS)


def test_the_raw_spelling_of_the_same_surface() -> None:
    raw = DocLocator("t.jsonl", RAW, first_line=2)
    # Token quote at column 24: é [2, 3) -> 26-27, 😀 [4, 5) -> 28-29, U+2028 y [7, 9) -> 31-33.
    assert raw.span_locations(("surface",), SPANS) == [
        Location("t.jsonl", 2, 26, 2, 27), Location("t.jsonl", 2, 28, 2, 29), Location("t.jsonl", 2, 31, 2, 33)]


def test_editor_columns_of_memo_positions() -> None:
    """The language server's UTF-16 and UTF-8 columns (0-based) of those code-point columns."""
    wide = DocLocator("t.jsonl", AFTER_WIDE, first_line=5).span_locations(("surface",), SPANS)
    # Before column 31: é (UTF-16 1 unit, UTF-8 2 bytes), 😀 (2 units, 4 bytes), U+2028 (1, 3): 30 code points
    # are 31 UTF-16 units and 36 UTF-8 bytes; the token itself is ASCII.
    assert [(utf16_column(AFTER_WIDE, at.column), utf16_column(AFTER_WIDE, at.end_column)) for at in wide] == [
        (31, 37), (38, 50), (52, 59)]
    assert [(utf8_column(AFTER_WIDE, at.column), utf8_column(AFTER_WIDE, at.end_column)) for at in wide] == [
        (36, 42), (43, 55), (57, 64)]
    raw = DocLocator("t.jsonl", RAW, first_line=1).span_locations(("surface",), SPANS)
    # RAW: é at column 26, 😀 at 28, U+2028 at 31. UTF-16: after 😀 one more unit; UTF-8: é +1,
    # 😀 +3, U+2028 +2 bytes once passed.
    assert [(utf16_column(RAW, at.column), utf16_column(RAW, at.end_column)) for at in raw] == [
        (25, 26), (27, 29), (31, 33)]
    assert [(utf8_column(RAW, at.column), utf8_column(RAW, at.end_column)) for at in raw] == [
        (25, 27), (28, 32), (34, 38)]


@pytest.mark.parametrize("codec, bom", [("utf-8", b""), ("utf-16-le", b"\xff\xfe"), ("utf-16-be", b"\xfe\xff")])
def test_read_records_locate_alike_in_utf8_and_utf16_files(codec: str, bom: bytes, scans: list[int]) -> None:
    """Records read from a file (UTF-16 with its byte-order mark, transcoded): code-point columns,
    the same whatever the file's encoding; lines 1, 3 (after a blank line) and 4."""
    text = PLAIN + "\n\n" + AFTER_WIDE + "\n" + PLAIN + "\n"
    records = list(JsonlReader("t.jsonl").records(io.BytesIO(bom + text.encode(codec))))
    assert [r.line for r in records] == [1, 3, 4]
    found = [r.span_locations(("surface",), SPANS) for r in records]
    assert found == [
        [Location("t.jsonl", 1, 26, 1, 32), Location("t.jsonl", 1, 33, 1, 45), Location("t.jsonl", 1, 47, 1, 54)],
        [Location("t.jsonl", 3, 31, 3, 37), Location("t.jsonl", 3, 38, 3, 50), Location("t.jsonl", 3, 52, 3, 59)],
        [Location("t.jsonl", 4, 26, 4, 32), Location("t.jsonl", 4, 33, 4, 45), Location("t.jsonl", 4, 47, 4, 54)],
    ]
    assert scans == [23]  # one scan for the three lines
