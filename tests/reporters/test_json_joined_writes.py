"""An array's items are joined into writes of WRITE_ITEMS items: the text is the same as one
write an item."""

import io

from surface_lint.reporters import json_format
from surface_lint.reporters.json_format import ObjectWriter


def _written(texts: list[str], members: bool = False) -> tuple[str, int]:
    out = io.StringIO()
    writes = 0

    def write(text: str) -> None:
        nonlocal writes
        writes += 1
        out.write(text)

    obj = ObjectWriter(write)
    if members:
        obj.members("m", texts)
    else:
        obj.encoded("a", texts)
    obj.close()
    return out.getvalue(), writes


def test_empty_and_one_item() -> None:
    assert _written([]) == ('{\n  "a": []\n}', 3)
    assert _written(["1"]) == ('{\n  "a": [\n    1\n  ]\n}', 3)
    assert _written([], members=True) == ('{\n  "m": {}\n}', 3)
    assert _written(['"k": 2', '"l": 3'], members=True) == ('{\n  "m": {\n    "k": 2,\n    "l": 3\n  }\n}', 3)


def test_items_past_a_write_of_them(monkeypatch) -> None:
    monkeypatch.setattr(json_format, "WRITE_ITEMS", 2)
    assert _written(["1", "2", "3", "4", "5"]) == ('{\n  "a": [\n    1,\n    2,\n    3,\n    4,\n    5\n  ]\n}', 5)
    assert _written(["1", "2"]) == ('{\n  "a": [\n    1,\n    2\n  ]\n}', 3)
