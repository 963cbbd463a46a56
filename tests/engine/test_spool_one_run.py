"""A sorted spool whose items came in order keeps one run and reads it back without a merge."""

from surface_lint.engine.spool import Spool


def _first(item: tuple[int, str]) -> int:
    return item[0]


def test_in_order_items_make_one_run_read_back_in_order() -> None:
    spool: Spool[tuple[int, str]] = Spool(key=_first, buffer=4)
    for item in [(1, "a"), (2, "b"), (2, "c"), (3, "d"), (3, "e"), (4, "f"), (5, "g"), (6, "h"), (7, "i")]:
        spool.append(item)
    assert len(spool._runs) == 1  # the second buffer went on the first run
    expected = [(1, "a"), (2, "b"), (2, "c"), (3, "d"), (3, "e"), (4, "f"), (5, "g"), (6, "h"), (7, "i")]
    assert list(spool) == expected
    assert list(spool.stored(_first)) == expected
    assert list(spool) == expected  # read again: the same
    spool.close()


def test_out_of_order_items_still_merge_stably() -> None:
    spool: Spool[tuple[int, str]] = Spool(key=_first, buffer=2)
    for item in [(5, "a"), (6, "b"), (1, "c"), (5, "d"), (2, "e")]:
        spool.append(item)
    assert len(spool._runs) == 2
    assert list(spool) == [(1, "c"), (2, "e"), (5, "a"), (5, "d"), (6, "b")]
    assert list(spool.stored(_first)) == [(1, "c"), (2, "e"), (5, "a"), (5, "d"), (6, "b")]
    spool.close()
