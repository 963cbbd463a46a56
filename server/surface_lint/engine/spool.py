"""Bounded-memory sequences: items kept on disk once they outnumber a buffer, read back in order.

A lane over millions of turns keeps every case row and finding it reports; these hold them in
temporary files (memory stays flat, disk grows) and give them back as often as a reporter asks,
in the order they were appended or sorted by a key (an external merge sort, stable like
`sorted`).
"""

from __future__ import annotations

import heapq
import os
import pickle
import tempfile
import weakref
from collections.abc import Callable, Iterable, Iterator
from typing import IO, Any, Generic, TypeVar

T = TypeVar("T")

BUFFER_ITEMS = 2048  # items held in memory before a batch is written out


def _remove(paths: list[str]) -> None:
    for path in paths:
        try:
            os.unlink(path)
        except OSError:
            pass


def _batches(path: str) -> Iterator[list[Any]]:
    with open(path, "rb") as fh:
        while True:  # one pickle per batch, each with its own memo
            try:
                yield pickle.load(fh)
            except EOFError:
                return


def _read(path: str) -> Iterator[Any]:
    for batch in _batches(path):
        yield from batch


class Spool(Generic[T]):
    """Items in append order (or sorted by `key`); memory holds at most `buffer` of them."""

    def __init__(self, key: Callable[[T], Any] | None = None, buffer: int = BUFFER_ITEMS) -> None:
        self._key = key
        self._buffer_size = buffer
        self._buffer: list[T] = []
        self._count = 0
        # Unsorted: one file of batches. Sorted: one file per sorted run.
        self._paths: list[str] = []
        self._out: IO[bytes] | None = None
        self._finalizer = weakref.finalize(self, _remove, self._paths)

    def __len__(self) -> int:
        return self._count

    def append(self, item: T) -> None:
        self._buffer.append(item)
        self._count += 1
        if len(self._buffer) >= self._buffer_size:
            self._spill()

    def extend(self, items: Iterable[T]) -> None:
        for item in items:
            self.append(item)

    def _new_file(self) -> IO[bytes]:
        fd, path = tempfile.mkstemp(prefix="surface-lint-", suffix=".spool")
        self._paths.append(path)
        return os.fdopen(fd, "wb")

    def _spill(self) -> None:
        if not self._buffer:
            return
        if self._key is not None:
            # A sorted run of its own, written in batches.
            run = sorted(self._buffer, key=self._key)
            with self._new_file() as fh:
                for i in range(0, len(run), self._buffer_size // 4 or 1):
                    pickle.dump(run[i : i + self._buffer_size // 4 or 1], fh, pickle.HIGHEST_PROTOCOL)
        else:
            if self._out is None:
                self._out = self._new_file()
            pickle.dump(self._buffer, self._out, pickle.HIGHEST_PROTOCOL)
        self._buffer = []

    def __iter__(self) -> Iterator[T]:
        if self._key is None:
            if self._out is not None:
                self._out.flush()
                yield from _read(self._paths[0])
            yield from list(self._buffer)
            return
        if not self._paths:
            yield from sorted(self._buffer, key=self._key)
            return
        self._spill()
        yield from heapq.merge(*(_read(p) for p in self._paths), key=self._key)

    def close(self) -> None:
        if self._out is not None:
            self._out.close()
            self._out = None
        self._finalizer()


class Mapped(Generic[T]):
    """A re-iterable view that maps each item of a source (and knows its length)."""

    def __init__(self, source: Iterable[Any], length: int, fn: Callable[[Any], T]) -> None:
        self._source = source
        self._length = length
        self._fn = fn

    def __len__(self) -> int:
        return self._length

    def __iter__(self) -> Iterator[T]:
        fn = self._fn
        for item in self._source:
            yield fn(item)

    def __bool__(self) -> bool:
        return self._length > 0
