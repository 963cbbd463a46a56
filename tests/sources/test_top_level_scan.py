"""The top-level member scan (json's C scanner per member) on the shapes the token walk also handles."""

from __future__ import annotations

import json

from surface_lint.sources.base import top_level_members


def test_members_with_whitespace_nesting_and_escaped_keys() -> None:
    text = ' { "a" : 1 ,\t"b":{"x":[1,"]"]} , "\\u0063": "s\\"q" }  '
    assert top_level_members(text) == {"a": (9, 10), "b": (17, 30), "c": (43, 49)}


def test_a_repeated_key_is_located_at_its_last_value_as_json_loads_reads_it() -> None:
    text = '{"a": 1, "a": [2]}'
    assert json.loads(text) == {"a": [2]}
    assert top_level_members(text) == {"a": (14, 17)}


def test_nesting_deeper_than_the_stack_still_gives_every_member() -> None:
    deep = "[" * 100_000 + "]" * 100_000
    text = '{"a": ' + deep + ', "b": NaN}'
    assert top_level_members(text) == {"a": (6, 200_006), "b": (200_013, 200_016)}


def test_an_empty_object_and_a_non_object_have_no_members() -> None:
    assert top_level_members("{}") == {}
    assert top_level_members(" { } ") == {}
    assert top_level_members("[1]") == {}
