"""engine/spool.py ScratchText: text written now (JUnit's cases, before their totals) comes back
in order and whole, from memory or from its file, multi-byte characters and lone surrogates
split across read chunks included."""

from __future__ import annotations

import pytest

from surface_lint.engine.spool import ScratchText

PARTS = ["<testcase name=\"a\" />\n", "surface: narrative — teaching\n", "half an emoji \ud83d|", "\U0001f600 done\n"]


@pytest.mark.parametrize(("memory", "chunk"), [(1 << 18, 1 << 20), (1, 1), (7, 3), (40, 5)])
def test_the_text_comes_back_whole_and_in_order(memory: int, chunk: int) -> None:
    scratch = ScratchText(memory=memory)
    for part in PARTS * 3:
        scratch.write(part)
    got: list[str] = []
    scratch.copy_to(got.append, chunk=chunk)
    assert "".join(got) == "".join(PARTS * 3)
    assert all(got)  # no empty write
    assert (scratch._file is None) == (memory > 200)  # small memories spilled to the file


def test_nothing_written_copies_nothing() -> None:
    got: list[str] = []
    ScratchText().copy_to(got.append)
    assert got == []
