"""The editor's line checks: `Engine.check_lines` (many lines in one read, a cold open) and
`Engine.check_line` (one re-checked line) give a line what the whole file gives it, and the
positions of a record (located only when asked) are exact, escapes included."""

from __future__ import annotations

import pytest

from surface_lint.engine import Engine
from surface_lint.model.findings import Location

PATH = "/x/deterministic_fluency_t.jsonl"
LANE = "deterministic_fluency"
# `\u00e9` and a surrogate pair escape: decoded characters and source columns differ.
LINE = r"""{"case_id": "c\u00e9", "surface": "\ud83c\udf0a tide flows"}"""
NULS = '\x00{\x00"\x00a\x00"\x00:\x001\x00}'  # NULs in every other byte: how UTF-16 starts a file


def _at(line: int, column: int, end_column: int) -> Location:
    return Location(PATH, line, column, line, end_column)


@pytest.mark.parametrize("how", ["check_bytes", "check_line", "check_lines"])
def test_a_records_positions_are_exact_when_asked_for(how: str) -> None:
    engine = Engine()
    if how == "check_bytes":
        line, result = 1, engine.check_bytes(PATH, (LINE + "\n").encode(), None, LANE, None)
        records, findings = result.records, result.findings
    elif how == "check_line":
        line, checked = 7, engine.check_line(PATH, LINE, 7, "turns", LANE)
        records, findings = checked.records, checked.findings
    else:
        line, (checked, _) = 5, engine.check_lines(PATH, [(5, LINE, None), (6, LINE, None)], "turns", LANE)
        records, findings = checked.records, checked.findings
    (record,) = records
    assert record.line == line
    assert record.id == "c\u00e9"
    assert record.location == _at(line, 1, 61)
    assert record.id_location == _at(line, 13, 22)  # `"c\u00e9"`, quotes included
    assert record.surface == _at(line, 35, 60)
    # The surface ends with `s` (the escape pair is 12 columns for one character before it).
    assert [(f.code, f.location) for f in findings] == [("SL103", _at(line, 58, 59))]


def test_a_record_moved_down_keeps_exact_positions() -> None:
    (checked,) = Engine().check_lines(PATH, [(4, LINE, None)], "turns", LANE)
    (record,) = checked.records
    moved = record.shifted(PATH, 10)
    assert (moved.line, moved.id_location, moved.surface) == (14, _at(14, 13, 22), _at(14, 35, 60))
    assert record.surface == _at(4, 35, 60)  # the original is unchanged
    back = moved.shifted(PATH, -3)  # a copy of a copy (each edit above it shifts it again)
    assert (back.line, back.location, back.id_location) == (11, _at(11, 1, 61), _at(11, 13, 22))
    unlocated = record.shifted(PATH, 2).shifted(PATH, 1)
    assert (unlocated.line, unlocated.surface) == (7, _at(7, 35, 60))


@pytest.mark.parametrize("line", [2, 3, 9])
def test_nuls_in_a_later_line_make_it_one_bad_line_not_a_utf16_file(line: int) -> None:
    """Only a file's first bytes can say UTF-16; the CLI reads such a later line as bad JSON.
    (The editor used to read a re-checked line as a file of its own: refused, no finding.)"""
    engine = Engine()
    alone = engine.check_line(PATH, NULS, line, "turns", LANE).findings
    expected = [("SL001", _at(line, 1, 2), "invalid JSON: Expecting value")]
    assert [(f.code, f.location, f.message) for f in alone] == expected
    if line >= 2:
        (together, _) = engine.check_lines(PATH, [(line, NULS, None), (line + 1, LINE, None)], "turns", LANE)
        assert [(f.code, f.location, f.message) for f in together.findings] == expected


def test_check_lines_takes_lines_in_order() -> None:
    engine = Engine()
    with pytest.raises(ValueError, match="line 0 out of order"):
        engine.check_lines(PATH, [(0, LINE, None)], "turns", LANE)
    with pytest.raises(ValueError, match="line 5 out of order"):
        engine.check_lines(PATH, [(6, LINE, None), (5, LINE, None)], "turns", LANE)
    with pytest.raises(ValueError, match="line 4 holds a line end"):
        engine.check_lines(PATH, [(4, LINE + "\n" + LINE, None)], "turns", LANE)
    assert engine.check_lines(PATH, [], "turns", LANE) == []


def test_each_line_read_together_has_its_own_join() -> None:
    """An unknown case id is SL015 on every line read together, as on each line alone (the
    editor keeps the first per file, as the whole file reports it)."""
    engine = Engine()
    unknown = '{"case_id": "nope", "surface": "A tide is here."}'
    _, cases = engine.load_cases([], engine.lane(LANE))
    checked = engine.check_lines(PATH, [(3, unknown, None), (4, unknown, None)], "turns", LANE, cases)
    assert [[(f.code, f.location.line) for f in c.findings] for c in checked] == [[("SL015", 3)], [("SL015", 4)]]


def test_a_lines_number_is_its_context_when_read_with_others() -> None:
    """Line 1 is the file's start however many lines come with it (its BOM a notice, its NULs a
    UTF-16 guess that refuses that line only); any other line's BOM is a character, and a CR
    ending a line's text is JSON whitespace, never a CRLF counted (the caller counts line ends)."""
    engine = Engine()
    punct = ("SL103", "complete_punctuation: the surface ends with `s`, not terminal punctuation (`.` `?` `!` `;`)")
    bom = "\ufeff" + LINE
    first, second = engine.check_lines(PATH, [(1, bom, None), (2, bom, None)], "turns", LANE)
    assert [(f.code, f.location.line, f.location.column, f.message) for f in first.findings] == [
        ("SL009", 1, 1, "file starts with a UTF-8 byte-order mark (ignored)"), (punct[0], 1, 58, punct[1])]
    assert [(f.code, f.location.line, f.location.column, f.message) for f in second.findings] == [
        ("SL001", 2, 1, "invalid JSON: Unexpected UTF-8 BOM (decode using utf-8-sig)")]
    refused, kept = engine.check_lines(PATH, [(1, NULS, None), (2, LINE, None)], "turns", LANE)
    assert [(f.code, f.location.line, f.message) for f in refused.findings] == [
        ("SL008", 1, "file looks UTF-16-BE encoded without a byte-order mark (NUL bytes among its first characters); "
                     "nothing read: save it as UTF-8")]
    assert (refused.records, [(f.code, f.location.line) for f in kept.findings], len(kept.records)) == (
        [], [("SL103", 2)], 1)
    (cr,) = engine.check_lines(PATH, [(3, LINE + "\r", None)], "turns", LANE)
    assert [(f.code, f.location.line, f.location.column) for f in cr.findings] == [("SL103", 3, 58)]
