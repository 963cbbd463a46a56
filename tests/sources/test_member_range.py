"""`member_range`: the value of a top-level member, found by one regex match when every member
before it is a scalar, and exactly the range json keeps (the last of repeated keys) otherwise."""

from __future__ import annotations

import pytest

from surface_lint.sources.base import member_range


@pytest.mark.parametrize(("text", "key", "expected"), [
    ('{"a": 1, "surface": "x"}', "surface", (20, 23)),
    ('{"case_id": "c", "turn_index": 0, "scored": true, "prompt": null, "surface": "hi"}', "surface", (77, 81)),
    (' {\n"k" : "v\\"" ,\t"surface"\n:\n"q\\\\"}', "surface", (29, 34)),
    ('{"a": -1.5e+3, "b": false, "surface": 3}', "surface", (38, 39)),
    ('{"a": "surface", "surface": null}', "surface", (28, 32)),  # a value spelled like the key
    ('{"a": "\\"surface\\": 1", "surface": "y"}', "surface", (35, 38)),  # the key inside a string
    ('{"surf\\u0061ce": "e", "surface": "p"}', "surface", (33, 36)),  # the later, plain one is kept
    ('{"surface": "p", "surf\\u0061ce": "e"}', "surface", (33, 36)),  # the later, escaped one is kept
    ('{"surface": "a", "surface": "b"}', "surface", (28, 31)),  # json keeps the last
    ('{"x": {"surface": 1}, "surface": "s"}', "surface", (33, 36)),  # a nested one is not it
    ('{"a": [], "surface": "x"}', "surface", (21, 24)),  # a non-scalar before: the walk
    ('{"surface": {"a": [1]}, "b": 2}', "surface", (12, 22)),
    ('{"a": "b"}', "surface", None),
    ("{}", "surface", None),
    ('{"a\\"b": 1}', 'a"b', (9, 10)),  # a key that needs escapes: the walk
])
def test_member_range(text: str, key: str, expected: tuple[int, int] | None) -> None:
    assert member_range(text, key) == expected
