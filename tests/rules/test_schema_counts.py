"""Negative counts in a rules file are rejected at file:line:column (a count below 0 means nothing)."""

from __future__ import annotations

import pytest

from surface_lint.rules.loader import LaneError, parse_lane

# Line numbers below are of this text with PARAMS replaced by the case's lines.
BASE = """\
[lane]
name = "tiny"

[[predicates]]
name = "short"
code = "TY1"
kind = "KIND"
default_severity = "warning"
[predicates.params]
PARAMS
"""


def _error(kind: str, params: str) -> str:
    with pytest.raises(LaneError) as info:
        parse_lane(BASE.replace("KIND", kind).replace("PARAMS", params), "tiny.toml", "contract")
    return str(info.value)


@pytest.mark.parametrize(
    ("kind", "params", "expected"),
    [
        ("count_between", 'unit = "words"\nmax = -1',
         "tiny.toml:11:1: predicate 'short': parameter `max` must be at least 0, not -1"),
        ("count_between", 'unit = "words"\nmin = -2',
         "tiny.toml:11:1: predicate 'short': parameter `min` must be at least 0, not -2"),
        ("count_between", 'unit = "words"\nmin = 1\n  max = -0.5',
         "tiny.toml:12:3: predicate 'short': parameter `max` must be at least 0, not -0.5"),
        ("count_between", 'unit = "words"\nmin = 5\nmax = 2',
         "tiny.toml:9:1: predicate 'short' (count_between): `min` 5 is greater than `max` 2: no surface could pass"),
    ],
)
def test_a_negative_count_is_refused_where_it_stands(kind: str, params: str, expected: str) -> None:
    assert _error(kind, params) == expected


@pytest.mark.parametrize("params", ['unit = "words"\nmax = 0', 'unit = "words"\nmin = 0\nmax = 0',
                                    'unit = "words"\nmin = 2\nmax = 2'])
def test_zero_and_equal_bounds_still_load(params: str) -> None:
    lane = parse_lane(BASE.replace("KIND", "count_between").replace("PARAMS", params), "tiny.toml", "contract")
    assert [p.name for p in lane.predicates] == ["short"]
