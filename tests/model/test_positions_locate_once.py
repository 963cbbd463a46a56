"""Locating many findings in one string scans that string once (QA defect: quadratic positions).

Before the fix every finding on a top-level string re-ran `StringSpan.scan` over the whole
string, so N findings cost N scans of an N-sized string. These tests count the scans (a
pass-through wrapper around the real scanner) and check that the positions stay exact.
"""

from __future__ import annotations

import json

from engine_support import check, fts

from surface_lint.sources.base import DocLocator

INVENTORY = "no_dotted_inventory: dotted-path inventory `a.b; a.b; a.b` in the surface"


def _line(groups: int) -> str:
    # ASCII escapes on purpose: `\u2014`, `\u00e9` and a surrogate pair sit before the matches.
    surface = "x \u2014 pack-grounded (p): \u00e9 \U0001f600 " + "a.b; a.b; a.b; " * groups + "a.b."
    return json.dumps({"case_id": "c1", "surface": surface, "grounding_source": "pack"})


def test_many_findings_on_one_surface_scan_it_once(scans: list[int]) -> None:
    line = _line(200)
    surface_quote = line.index('"x ')
    result = check([line])
    found = fts(result.findings, {"SL105"})
    assert len(found) == 200
    # `{"case_id": "c1", "surface": "` is 30 columns; the escapes before the first `a.b` take
    # 6 + 6 + 12 source characters for 3 decoded ones, so it starts at column 31 + 48.
    assert found[0] == ("t.jsonl", 1, 79, 1, 92, "SL105", "information", INVENTORY)
    assert found[1] == ("t.jsonl", 1, 94, 1, 107, "SL105", "information", INVENTORY)
    assert found[-1] == ("t.jsonl", 1, 79 + 15 * 199, 1, 92 + 15 * 199, "SL105", "information", INVENTORY)
    assert scans.count(surface_quote) == 1


def test_locator_reuses_the_offset_map_of_a_top_level_string(scans: list[int]) -> None:
    text = '{"id": "c1", "surface": "\\u00e9ab\\ud83d\\ude00cd"}'
    locator = DocLocator("t.jsonl", text, first_line=3)
    first = locator.location(("surface",), (1, 3))
    again = locator.location(("surface",), (1, 3))
    emoji = locator.location(("surface",), (3, 4))
    tail = locator.location(("surface",), (4, 6))
    assert (first.line, first.column, first.end_line, first.end_column) == (3, 32, 3, 34)
    assert again == first
    # The surrogate pair `\ud83d\ude00` is one decoded character: 12 source columns.
    assert (emoji.column, emoji.end_column) == (34, 46)
    assert (tail.column, tail.end_column) == (46, 48)
    assert scans == [text.index('"\\u00e9')]
