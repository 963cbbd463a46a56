"""Positions: findings point at the source characters, escapes included; positions.py directly."""

from __future__ import annotations

import json

import pytest
from engine_support import FIXTURES, check, fts

from surface_lint.model.positions import JsonSyntaxError, LineIndex, StringSpan, ValueSpan, utf8_column, utf16_column, value_spans
from surface_lint.sources.base import DocLocator

# \" \n \u2014 and a surrogate pair written as escapes, then a raw em dash, Hebrew and an emoji,
# then a `...` written as `\u002e..` (8 source columns) and a final `é` written as `\u00e9` (6).
ESCAPED = (
    r'{"case_id": "c1", "surface": "He said \"hi\"\nthen \u2014 \ud83d\ude00 — שלום 😀 is '
    r'\u002e.. caf\u00e9", "grounding_source": "pack"}'
)


def test_turn_findings_point_at_escaped_source_characters() -> None:
    assert json.loads(ESCAPED)["surface"] == 'He said "hi"\nthen — 😀 — שלום 😀 is ... café'
    assert ESCAPED.index(r"\u002e..") + 1 == 84 and ESCAPED.index(r"\u00e9") + 1 == 96
    assert fts(check(ESCAPED + "\n").findings) == [
        ("t.jsonl", 1, 84, 1, 92, "SL101", "error", "no_placeholder: placeholder marker `...` in the surface"),
        ("t.jsonl", 1, 96, 1, 102, "SL103", "warning",
         "complete_punctuation: the surface ends with `é`, not terminal punctuation (`.` `?` `!` `;`)"),
    ]


def test_escaped_surface_on_a_later_line_keeps_its_line_number() -> None:
    data = "\n" + '{"case_id": "c0", "surface": "It is fine."}\n' + ESCAPED + "\n"
    found = check(data).findings
    assert [(f.location.line, f.location.column, f.location.end_line, f.location.end_column) for f in found] == [
        (3, 84, 3, 92),
        (3, 96, 3, 102),
    ]


def test_a_surrogate_pair_as_the_last_character_spans_twelve_columns() -> None:
    line = r'{"case_id": "c1", "surface": "Truth is \ud83d\ude00"}'
    found = check(line + "\n").findings
    start = line.index(r"\ud83d") + 1
    assert fts(found) == [
        ("t.jsonl", 1, start, 1, start + 12, "SL103", "warning",
         "complete_punctuation: the surface ends with `😀`, not terminal punctuation (`.` `?` `!` `;`)"),
    ]


def test_a_raw_astral_character_is_one_code_point_column() -> None:
    line = '{"case_id": "c1", "surface": "😀😀 is ... 😀"}'
    found = check(line + "\n").findings
    # `...` is decoded chars 6-8: two emoji, a space, `is`, a space: columns 31 + 6.
    assert [(f.code, f.location.column, f.location.end_column) for f in found] == [
        ("SL101", 37, 40),
        ("SL103", 41, 42),
    ]
    # The LSP converts with utf16_column: each emoji before it counts two UTF-16 units.
    assert utf16_column(line, 37) == 36 + 2
    assert utf8_column(line, 37) == 36 + 6


def test_pretty_printed_report_findings_land_on_their_lines() -> None:
    path = FIXTURES / "fluency_report_pretty.json"
    found = check(path.read_bytes(), path="report.json").findings
    assert fts(found) == [
        ("report.json", 14, 47, 14, 55, "SL101", "error", "no_placeholder: placeholder marker `...` in the surface"),
        ("report.json", 19, 51, 19, 64, "SL106", "warning",
         "surface_provenance_match: the surface says `pack-grounded` but grounding_source is `none`"),
    ]


def test_a_whole_surface_range_inside_a_compact_multiline_report() -> None:
    text = '{"lane": "deterministic_fluency", "cases": [\n {"case_id": "x",\n  "surface": "Light, truth, order."}\n]}\n'
    assert fts(check(text, path="r.json").findings) == [
        ("r.json", 3, 15, 3, 35, "SL104", "warning",
         "finite_predicate_shape: no finite verb or inflected verb form in the surface"),
    ]


# --- positions.py directly ---------------------------------------------------------------


def test_line_index_positions_offsets_and_crlf() -> None:
    text = "ab\ncd\r\n\nשלום😀x"  # noqa: RUF001
    index = LineIndex(text)
    assert index.line_count == 4
    assert index.position(0) == (1, 1)
    assert index.position(2) == (1, 3)  # the newline itself
    assert index.position(3) == (2, 1)
    assert index.position(7) == (3, 1)
    assert index.position(8) == (4, 1)
    assert index.position(12) == (4, 5)  # the emoji is one code point
    assert index.position(len(text)) == (4, 7)
    assert index.line_text(2) == "cd"  # the CR is not part of the line
    assert index.line_text(3) == ""
    assert index.line_text(4) == "שלום😀x"
    assert index.line_start(4) == 8
    for offset in range(len(text) + 1):
        assert index.offset(*index.position(offset)) == offset


def test_string_span_without_escapes_maps_one_to_one() -> None:
    text = 'xx"abc"'
    span = StringSpan.scan(text, 2)
    assert (span.start, span.end, span.value) == (2, 7, "abc")
    assert [span.source_offset(i) for i in range(4)] == [3, 4, 5, 6]  # 3 -> the closing quote
    assert span.source_range(1, 3) == (4, 6)
    assert span.source_range(3, 3) == (6, 6)


def test_string_span_source_range_covers_escapes() -> None:
    raw = r'"a\"b\nc\u2014d\ud83d\ude00e\\f\u002e.."'
    span = StringSpan.scan(raw, 0)
    assert span.value == 'a"b\nc—d😀e\\f...'
    value = span.value
    spans = {ch: span.source_range(i, i + 1) for i, ch in enumerate(value) if ch in '"\n—😀\\'}
    assert spans['"'] == (2, 4)  # \"
    assert spans["\n"] == (5, 7)  # \n
    assert spans["—"] == (8, 14)  # \u2014
    assert spans["😀"] == (15, 27)  # \ud83d\ude00: one code point, 12 source characters
    assert spans["\\"] == (28, 30)  # \\
    dots = value.index("...")
    assert span.source_range(dots, dots + 3) == (31, 39)  # \u002e.. spans 8 source columns
    assert span.source_range(0, len(value)) == (1, len(raw) - 1)
    assert span.source_offset(len(value)) == len(raw) - 1  # the closing quote


def test_string_span_lone_surrogates_and_adjacent_escapes() -> None:
    raw = r'"\ud83dx\ude00\u0041"'
    span = StringSpan.scan(raw, 0)
    assert span.value == "\ud83dx\ude00A"
    assert [span.source_range(i, i + 1) for i in range(4)] == [(1, 7), (7, 8), (8, 14), (14, 20)]


def test_string_span_rejects_an_unterminated_string() -> None:
    with pytest.raises(ValueError):
        StringSpan.scan('"abc', 0)


def test_value_spans_by_path() -> None:
    text = '{"a": [1, {"b": "x\\"y"}], "c": null, "d": {}, "e": []}'
    spans = value_spans(text)
    assert spans[()] == ValueSpan(0, len(text))
    assert spans[("a",)] == ValueSpan(6, 24)
    assert spans[("a", 0)] == ValueSpan(7, 8)
    assert (spans[("a", 1, "b")].start, spans[("a", 1, "b")].end) == (16, 22)
    assert spans[("a", 1, "b")].string is not None
    assert spans[("a", 1, "b")].string.value == 'x"y'
    assert spans[("c",)] == ValueSpan(31, 35)
    assert spans[("d",)] == ValueSpan(42, 44)
    assert spans[("e",)] == ValueSpan(51, 53)


def test_value_spans_want_limits_recorded_depth() -> None:
    text = '{"a": {"b": {"c": 1}}}'
    assert ("a", "b", "c") in value_spans(text, want=3)
    assert ("a", "b", "c") not in value_spans(text, want=2)
    assert ("a", "b") in value_spans(text, want=2)


@pytest.mark.parametrize(
    ("text", "offset"),
    [
        ('{"a": 1,}', 8),
        ('{"a" 1}', 5),
        ('{"a": tru}', 6),
        ('[1 2]', 3),
        ('{"a": "b', 6),
        ("", 0),
    ],
)
def test_value_spans_syntax_errors_carry_their_offset(text: str, offset: int) -> None:
    with pytest.raises(JsonSyntaxError) as info:
        value_spans(text)
    assert info.value.offset == offset


def test_value_spans_deep_nesting_is_an_error_not_a_crash() -> None:
    with pytest.raises(JsonSyntaxError) as info:
        value_spans("[" * 100000, max_depth=64)
    assert info.value.offset == 64
    assert "nesting deeper than 64 levels" in info.value.message
    assert value_spans("[" * 64 + "]" * 64, max_depth=64)[()] == ValueSpan(0, 128)


def test_utf16_and_utf8_columns() -> None:
    line = "aé😀b"
    assert [utf16_column(line, c) for c in range(1, 6)] == [0, 1, 2, 4, 5]
    assert [utf8_column(line, c) for c in range(1, 6)] == [0, 1, 3, 7, 8]
    assert utf8_column("\ud83dx", 2) == 3  # a lone surrogate does not crash the conversion


def test_doc_locator_key_location_and_whole() -> None:
    text = '  {"k\\"ey": "v", "other": [1]}  '
    locator = DocLocator("p", text, first_line=7)
    assert locator.whole() == locator.location_of_offsets(2, len(text) - 2)
    key = locator.key_location(("k\"ey",))
    assert (key.line, key.column, key.end_column) == (7, 4, 11)  # `"k\\"ey"`, quotes included
    value = locator.location(("other", 0))
    assert (value.line, value.column, value.end_column) == (7, 28, 29)
    # A path that does not exist falls back to its nearest existing parent.
    missing = locator.location(("other", 5))
    assert (missing.column, missing.end_column) == (27, 30)


def test_an_escaped_backslash_before_u_is_not_a_high_surrogate_escape() -> None:
    # `\\ud83d` is a backslash then the letters `ud83d`; the `\ude00` after it stands alone.
    raw = r'"\\ud83d\ude00 ..."'
    span = StringSpan.scan(raw, 0)
    assert span.value == "\\ud83d\ude00 ..."
    dots = span.value.index("...")
    assert span.source_range(dots, dots + 3) == (15, 18)
    assert span.source_range(6, 7) == (8, 14)  # the lone low surrogate escape


_SHORT = {'"': '\\"', "\\": "\\\\", "\n": "\\n", "\r": "\\r", "\t": "\\t", "\b": "\\b", "\f": "\\f"}


def _escape(text: str, choices: list[int]) -> str:
    """JSON string body for `text`, each character written raw, short-escaped or \\u-escaped."""
    out = []
    for i, ch in enumerate(text):
        how = choices[i % len(choices)] if choices else 0
        code = ord(ch)
        if how == 0 and ch not in _SHORT and code >= 0x20:
            out.append(ch)
        elif how == 1 and ch in _SHORT:
            out.append(_SHORT[ch])
        elif code > 0xFFFF:
            code -= 0x10000
            out.append(f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04X}")
        else:
            out.append(f"\\u{code:04x}")
    return "".join(out)


def test_every_decoded_character_maps_back_to_its_source_characters() -> None:
    from hypothesis import assume, given, settings
    from hypothesis import strategies as st

    chars = st.one_of(
        st.characters(blacklist_categories=("Cs",)),
        st.sampled_from(['"', "\\", "\n", ".", "u", "d", "8", "—", "😀", "\ud83d", "\ude00"]),
    )

    @settings(max_examples=200, deadline=None, database=None)
    @given(st.lists(chars, max_size=40).map("".join), st.lists(st.integers(0, 2), max_size=7), st.text(max_size=3))
    def check_roundtrip(text: str, choices: list[int], prefix: str) -> None:
        body = _escape(text, choices)
        # Two lone surrogates written as adjacent escapes decode as one pair: not this text.
        assume(json.loads('"' + body + '"') == text)
        lead = json.dumps(prefix) + ", "
        source = lead + '"' + body + '"'
        span = StringSpan.scan(source, len(lead))
        assert span.value == text
        assert span.end == len(source)
        for i, ch in enumerate(text):
            start, end = span.source_range(i, i + 1)
            assert json.loads('"' + source[start:end] + '"') == ch, (source, i)
        if text:
            assert span.source_range(0, len(text)) == (len(lead) + 1, len(source) - 1)

    check_roundtrip()
