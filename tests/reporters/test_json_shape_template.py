"""The JSON writer's per-shape template: one shape, values of changing types, keys holding `%`."""

from __future__ import annotations

import enum
import json

from surface_lint.reporters.json_format import indented


class Level(enum.IntEnum):
    HIGH = 3


def test_one_shape_with_values_of_every_type_in_turn() -> None:
    # Same keys in the same order each time: one remembered shape, a new type signature per row.
    rows = [
        {"s": "a\u2028\"b", "n": 1, "f": 2.5, "b": True, "z": None},
        {"s": 1, "n": True, "f": float("nan"), "b": 1.0, "z": "x"},
        {"s": [], "n": {}, "f": float("-inf"), "b": (1, "t"), "z": {"k": [None]}},
        {"s": Level.HIGH, "n": -0.0, "f": 10**30, "b": False, "z": [{"y": 1, "x": 2}]},
        {"s": "a\u2028\"b", "n": 1, "f": 2.5, "b": True, "z": None},
    ]
    for row in rows:
        for pad in ("", "      "):
            assert indented(row, pad) == json.dumps(row, indent=2, sort_keys=True, ensure_ascii=False).replace(
                "\n", "\n" + pad)


def test_keys_with_percent_signs_and_a_single_key() -> None:
    assert indented({"%s": "%d", "a%": 1}) == '{\n  "%s": "%d",\n  "a%": 1\n}'
    assert indented({"%": "%%"}, "  ") == '{\n    "%": "%%"\n  }'
    assert indented({"only": {"%(x)s": True}}) == '{\n  "only": {\n    "%(x)s": true\n  }\n}'
