"""The JSON writer's remembered dict shapes give json.dumps's bytes whatever keys come first."""

from __future__ import annotations

import json

from surface_lint.reporters.json_format import indented


class Key(str):
    pass


def test_shapes_by_insertion_order_key_types_and_depth() -> None:
    values = [
        {"b": 1, "a": "x"},
        {"a": "x", "b": 1},
        {"a": [1, {"z": None, "y": True}], "b": {"d": 2.5, "c": "\u2028"}},
        {True: "t"},
        {1: "one"},
        {Key("a"): 1, "b": 2},
        {"a": 1, "b": 2},
    ]
    for value in values:
        for pad in ("", "    "):
            assert indented(value, pad) == json.dumps(value, indent=2, sort_keys=True, ensure_ascii=False).replace(
                "\n", "\n" + pad)
    assert indented({True: "t"}) == '{\n  "true": "t"\n}'
    assert indented({1: "one"}) == '{\n  "1": "one"\n}'


def test_equal_values_of_different_types_are_written_each_their_own_way() -> None:
    # True == 1 == 1.0 in Python (and hash alike): a remembered nested object must not mix them.
    assert indented({"o": {"x": True}}) == '{\n  "o": {\n    "x": true\n  }\n}'
    assert indented({"o": {"x": 1}}) == '{\n  "o": {\n    "x": 1\n  }\n}'
    assert indented({"o": {"x": 1.0}}) == '{\n  "o": {\n    "x": 1.0\n  }\n}'
    assert indented({"o": {True: 1}}) == '{\n  "o": {\n    "true": 1\n  }\n}'
    assert indented({"o": {1: 1}}) == '{\n  "o": {\n    "1": 1\n  }\n}'
