"""A record's positions are located one by one, on first use (engine/results.py RecordInfo):
the editor's document symbols need each record's range and id, never its surface, whose
string scan (escapes, emoji) is the costly part of a 20,000-line transcript's first symbols."""

from __future__ import annotations

import json

import pytest
from engine_support import check

from surface_lint.model.findings import Location
from surface_lint.model.positions import StringSpan
from surface_lint.sources.base import member_range, top_level_members


@pytest.fixture
def scans(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, int]]:
    """(text start, quote offset) of every StringSpan.scan, the real scan still doing the work."""
    calls: list[tuple[str, int]] = []
    real = StringSpan.scan

    def counting(cls: type[StringSpan], text: str, quote: int) -> StringSpan:
        calls.append((text[:20], quote))
        return real(text, quote)

    monkeypatch.setattr(StringSpan, "scan", classmethod(counting))
    return calls


LINES = [json.dumps({"case_id": "c1", "surface": "A lamp \u2014 gives light \U0001f600.", "grounding_source": "pack"}),
         json.dumps({"case_id": "c22", "surface": "A river runs", "grounding_source": "pack"}, ensure_ascii=False)]


def test_range_and_id_are_located_without_the_surface(scans: list[tuple[str, int]]) -> None:
    records = check(LINES, lane_name="deterministic_fluency").records
    scans.clear()  # what the check itself scanned (its findings) is not the question here
    first, second = records
    # `{"case_id": "` is 12 columns: the id's quotes at 13 and 13 + len('"c1"').
    assert (first.location, first.id_location) == (Location("t.jsonl", 1, 1, 1, len(LINES[0]) + 1),
                                                   Location("t.jsonl", 1, 13, 1, 17))
    assert (second.location, second.id_location) == (Location("t.jsonl", 2, 1, 2, len(LINES[1]) + 1),
                                                     Location("t.jsonl", 2, 13, 2, 18))
    surface_quotes = {LINES[0].index('"A lamp'), LINES[1].index('"A river')}
    assert [quote for _, quote in scans if quote in surface_quotes] == []
    # Asked for, the surface is located exactly (`\u2014` and the escaped emoji pair: 6 + 12 source characters).
    surface_at = LINES[0].index('"A lamp') + 1
    assert first.surface == Location("t.jsonl", 1, surface_at, 1, surface_at + len('"A lamp \\u2014 gives light '
                                                                                   '\\ud83d\\ude00."'))
    assert second.surface == Location("t.jsonl", 2, 31, 2, 31 + len('"A river runs"'))
    # Each position once: asking again scans nothing.
    scans.clear()
    assert first.surface is first.surface and first.id_location is first.id_location
    assert scans == []


def test_a_shifted_copy_locates_through_its_original_once(scans: list[tuple[str, int]]) -> None:
    record = check(LINES, lane_name="deterministic_fluency").records[1]
    moved = record.shifted("t.jsonl", 3)  # the record three lines further down (an edit above it)
    scans.clear()
    assert moved.id_location == Location("t.jsonl", 5, 13, 5, 18)
    assert record.id_location == Location("t.jsonl", 2, 13, 2, 18)
    assert moved.location == Location("t.jsonl", 5, 1, 5, len(LINES[1]) + 1)
    assert scans == []  # the id's range needs no string scan (its inner offsets are never asked), the surface none


@pytest.mark.parametrize("text", [
    '{"case_id": "c1", "surface": "plain"}',
    '{"surface": "x", "case_id": "c1"}',
    '{ "case_id" : "c1" , "n": [1, {"case_id": "inner"}] }',
    # json keeps the last of repeated keys: so does the range, written plainly or escaped.
    '{"case_id": "a", "x": 1, "case_id": "b"}',
    '{"case_id": "a", "case\\u005fid": "b"}',
    '{"case_id": "a", "s": "say \\"case_id\\"", "case_id": "b"}',
    '{"n": 1}',
    '{}',
    '[1, 2]',
])
def test_member_range_is_the_last_member_as_the_whole_walk_finds_it(text: str) -> None:
    assert json.loads(text) is not None  # every text here is one json.loads accepts
    assert member_range(text, "case_id") == top_level_members(text).get("case_id")


def test_member_range_of_a_repeated_key_is_the_last_one() -> None:
    text = '{"case_id": "a", "x": 1, "case_id": "b"}'
    assert member_range(text, "case_id") == (text.index('"b"'), text.index('"b"') + 3)
    escaped = '{"case_id": "a", "case\\u005fid": "b"}'
    assert member_range(escaped, "case_id") == (escaped.index('"b"'), escaped.index('"b"') + 3)
