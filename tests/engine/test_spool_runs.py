"""A sorted spool continues its last run when a buffer comes in order after it (findings arrive in
input order), and still gives exactly a stable sort of everything appended."""

from __future__ import annotations

from surface_lint.engine.spool import FAN_IN, Spool


def _key(item: tuple[int, str]) -> int:
    return item[0]


def test_in_order_buffers_extend_one_run() -> None:
    spool: Spool[tuple[int, str]] = Spool(key=_key, buffer=4)
    items = [(i // 3, f"item{i}") for i in range(40)]  # equal keys across buffer edges
    for item in items:
        spool.append(item)
    assert list(spool) == sorted(items, key=_key) == items
    assert len(spool._runs) == 1
    spool.close()


def test_out_of_order_buffers_start_runs_and_merge_stably() -> None:
    spool: Spool[tuple[int, str]] = Spool(key=_key, buffer=4)
    items: list[tuple[int, str]] = []
    for i in range(FAN_IN * 12):
        # Mostly rising, with a low key (an input problem, position -1) every seventh item.
        items.append((-1, f"problem{i}") if i % 7 == 0 else (i // 5, f"item{i}"))
    for item in items:
        spool.append(item)
    assert list(spool) == sorted(items, key=_key)
    assert list(spool) == sorted(items, key=_key)  # a second reader gets the same
    assert 1 < len(spool._runs) < FAN_IN
    spool.close()
