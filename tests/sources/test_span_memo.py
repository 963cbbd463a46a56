"""sources/base.py DocLocator.span_locations: a surface's span ranges are remembered per raw
token, so the same surface on another line, at another column, is located without a second scan,
and exactly: the escapes of the token (not its decoded text) decide the ranges."""

from __future__ import annotations

import pytest

from surface_lint.model.findings import Location
from surface_lint.sources import base
from surface_lint.sources.base import DocLocator


@pytest.fixture(autouse=True)
def _fresh_memo(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each test starts with no remembered ranges (`scans`, tests/conftest.py, counts the scans)."""
    monkeypatch.setattr(base, "_RANGES", {})


def test_a_repeated_token_is_scanned_once_and_located_where_it_sits(scans: list[int]) -> None:
    spans = ((0, 2), (4, 5))
    one = DocLocator("t.jsonl", '{"id": "c1", "surface": "ab \\u00e9c"}', first_line=1)
    two = DocLocator("t.jsonl", '{"id": "case-22", "surface": "ab \\u00e9c"}', first_line=7)
    assert one.span_locations(("surface",), spans) == [Location("t.jsonl", 1, 26, 1, 28),
                                                       Location("t.jsonl", 1, 35, 1, 36)]
    assert two.span_locations(("surface",), spans) == [Location("t.jsonl", 7, 31, 7, 33),
                                                       Location("t.jsonl", 7, 40, 7, 41)]
    assert scans == [24]  # the first line's token only


def test_the_same_decoded_text_with_other_escapes_gets_its_own_ranges(scans: list[int]) -> None:
    spans = ((3, 5),)
    raw = DocLocator("t.jsonl", '{"surface": "ab \u00e9c"}')
    escaped = DocLocator("t.jsonl", '{"surface": "ab \\u00e9c"}')
    assert raw.span_locations(("surface",), spans) == [Location("t.jsonl", 1, 17, 1, 19)]
    assert escaped.span_locations(("surface",), spans) == [Location("t.jsonl", 1, 17, 1, 24)]
    assert len(scans) == 2
    for locator in (raw, escaped):  # the one-by-one path agrees
        assert locator.span_locations(("surface",), spans) == [locator.location(("surface",), spans[0])]
