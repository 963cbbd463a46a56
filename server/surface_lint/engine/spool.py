"""Bounded-memory sequences: items kept on disk once they outnumber a buffer, read back in order.

A lane over millions of turns keeps every case row and finding it reports; these hold them in
temporary files (memory stays flat, disk grows) and give them back as often as a reporter asks,
in the order they were appended or sorted by a key (an external merge sort, stable like
`sorted`).
"""

from __future__ import annotations

import codecs
import errno
import gc
import heapq
import marshal
import os
import pickle
import sqlite3
import tempfile
import threading
import weakref
from array import array
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from typing import IO, Any, Generic, TypeVar

T = TypeVar("T")

BUFFER_ITEMS = 2048  # items held in memory before a batch is written out
FAN_IN = 16  # sorted runs of one size merged into one (files open at once stay few)


# Collections while a run streams: its millions of short-lived rows are acyclic, and the default
# threshold (700 new containers) walks each young generation hundreds of thousands of times.
STREAMING_GC_THRESHOLD = 50_000
_gc_lock = threading.Lock()
_gc_users = 0
_gc_before: tuple[int, int, int] = (0, 0, 0)


@contextmanager
def fewer_collections() -> Iterator[None]:
    """Raise the collector's first threshold while rows stream (nested and threaded uses share
    one raise; the last to leave restores the threshold it found)."""
    global _gc_users, _gc_before
    with _gc_lock:
        if _gc_users == 0:
            _gc_before = gc.get_threshold()
            if _gc_before[0]:  # 0: collection is off; leave it off
                gc.set_threshold(max(_gc_before[0], STREAMING_GC_THRESHOLD), *_gc_before[1:])
        _gc_users += 1
    try:
        yield
    finally:
        with _gc_lock:
            _gc_users -= 1
            if _gc_users == 0:
                gc.set_threshold(*_gc_before)


def _close(files: list[IO[bytes]]) -> None:
    for fh in files:
        try:
            fh.close()
        except OSError:
            pass


class ScratchError(Exception):
    """The temporary folder cannot take the run's scratch data (full, read-only, a file size
    limit): said as one line naming the folder, never blamed on an input."""


# What each errno says in a scratch-data message (the C library's own words for the rest).
_SCRATCH_REASONS = {errno.ENOSPC: "no space left", errno.EDQUOT: "disk quota exceeded",
                    errno.EFBIG: "file too large (a file size limit)", errno.EROFS: "read-only file system",
                    errno.EACCES: "permission denied", errno.EPERM: "permission denied"}
# SQLite's result codes for the same faults (its scratch databases live in the same folder).
_SQLITE_REASONS = {"SQLITE_FULL": "no space left", "SQLITE_CANTOPEN": "cannot create a file there",
                   "SQLITE_READONLY": "read-only file system", "SQLITE_IOERR": "a write failed (disk I/O error)"}


def scratch_error(exc: BaseException) -> ScratchError | None:
    """`exc` as a ScratchError when it is a fault of the scratch folder (an OSError of a spool
    write, a SQLite error of a scratch database's file), else None (a bug stays a bug)."""
    if isinstance(exc, ScratchError):
        return exc
    reason: str | None = None
    if isinstance(exc, OSError) and exc.errno is not None:
        reason = _SCRATCH_REASONS.get(exc.errno) or (exc.strerror or "").lower() or None
    elif isinstance(exc, sqlite3.Error):
        name = str(getattr(exc, "sqlite_errorname", "") or "")
        reason = next((why for code, why in _SQLITE_REASONS.items() if name.startswith(code)), None)
        if reason is None and "disk is full" in str(exc):
            reason = _SQLITE_REASONS["SQLITE_FULL"]
    if reason is None:
        return None
    return ScratchError(f"cannot write scratch data to {scratch_folder()}: {reason} "
                        "(set TMPDIR to a folder with room)")


def scratch_folder() -> str:
    """The folder scratch data goes to: the one tempfile settled on, else the first that the
    environment names (asking tempfile then would probe a full folder and name another)."""
    if tempfile.tempdir:
        return tempfile.tempdir
    for name in ("SQLITE_TMPDIR", "TMPDIR", "TEMP", "TMP"):
        folder = os.environ.get(name)
        if folder and os.path.isdir(folder):
            return folder
    return tempfile.gettempdir()


@contextmanager
def scratch_writes() -> Iterator[None]:
    """Writes of scratch data: an OSError there is a ScratchError."""
    try:
        yield
    except OSError as exc:
        fault = scratch_error(exc)
        if fault is None:
            raise
        raise fault from None


def _new_file() -> IO[bytes]:
    # Unlinked as it is created (POSIX): nothing is left in the temp folder, even after a SIGKILL.
    with scratch_writes():
        return tempfile.TemporaryFile(prefix="surface-lint-", suffix=".spool")


def encode(value: Any) -> bytes:
    """A value as marshal bytes (exact for builtins, and several times faster than pickle);
    pickled if marshal refuses it (an enum, a subclass, an object)."""
    try:
        return b"m" + marshal.dumps(value)
    except ValueError:  # a type marshal does not know
        return b"p" + pickle.dumps(value, pickle.HIGHEST_PROTOCOL)


def decode(raw: bytes) -> Any:
    return marshal.loads(raw[1:]) if raw[:1] == b"m" else pickle.loads(raw[1:])


Pack = Callable[[Any], Any]


def _dump(batch: list[Any], fh: IO[bytes], pack: Pack | None) -> None:
    """One batch as its length and its bytes: the items packed to builtins (when `pack`) and
    marshalled, or the items themselves pickled when marshal or `pack` refuses one. The bytes are
    written as they are made (no concatenated copy: a batch is the largest transient of a run)."""
    try:
        tag, raw = b"m", marshal.dumps([pack(item) for item in batch] if pack is not None else batch)
    except ValueError:
        tag, raw = b"p", pickle.dumps(batch, pickle.HIGHEST_PROTOCOL)
    fh.write((len(raw) + 1).to_bytes(8, "little"))
    fh.write(tag)
    fh.write(raw)


def _read(fh: IO[bytes], unpack: Pack | None = None) -> Iterator[Any]:
    """The items of a spool file from its start; each reader keeps its own position (several may
    read one file at once), and each batch is read whole, on its own, and unpacked an item at a
    time (the packed batch and one item in memory, not the batch twice)."""
    position = 0
    end = fh.seek(0, os.SEEK_END)
    while position < end:
        fh.seek(position)
        size = int.from_bytes(fh.read(8), "little")
        tag = fh.read(1)
        raw = fh.read(size - 1)
        position += 8 + size
        batch = marshal.loads(raw) if tag == b"m" else pickle.loads(raw)
        del raw
        if tag == b"m" and unpack is not None:
            yield from map(unpack, batch)
        else:
            yield from batch
        del batch


class Spool(Generic[T]):
    """Items in append order (or sorted by `key`); memory holds at most `buffer` of them. On disk a
    batch is marshalled (`pack` makes an item builtins, `unpack` gives it back equal) or, when
    marshal or `pack` refuses one of its items, pickled."""

    def __init__(self, key: Callable[[T], Any] | None = None, buffer: int = BUFFER_ITEMS,
                 pack: Pack | None = None, unpack: Pack | None = None) -> None:
        self._key = key
        self._pack = pack
        self._unpack = unpack
        self._buffer_size = buffer
        self._buffer: list[T] = []
        self._written = 0  # items written out (the others are in the buffer)
        # Unsorted: one file of batches. Sorted: one file per sorted run, with its merge level.
        self._runs: list[IO[bytes]] = []
        self._levels: list[int] = []
        self._tails: list[Any] = []  # sorted: each run's greatest key
        self._finalizer = weakref.finalize(self, _close, self._runs)

    def __len__(self) -> int:
        return self._written + len(self._buffer)

    def append(self, item: T) -> None:
        # Called for every row and finding of a run: no counter of its own (see __len__).
        buffer = self._buffer
        buffer.append(item)
        if len(buffer) >= self._buffer_size:
            self._spill()

    def extend(self, items: Iterable[T]) -> None:
        for item in items:
            self.append(item)

    def _spill(self) -> None:
        if not self._buffer:
            return
        with scratch_writes():
            self._spill_buffer()

    def _spill_buffer(self) -> None:
        if self._key is not None:
            items = sorted(self._buffer, key=self._key)
            head, tail = self._key(items[0]), self._key(items[-1])
            if self._runs and not head < self._tails[-1]:
                # In order after the last run (findings come in input order): that run goes on.
                out = self._runs[-1]
                out.seek(0, os.SEEK_END)
                self._write_batches(out, items)
                self._tails[-1] = tail
            else:
                # A sorted run of its own, written in batches.
                self._write_run(items, 0)
                self._tails.append(tail)
                self._merge_runs()
        else:
            if not self._runs:
                self._runs.append(_new_file())
            out = self._runs[0]
            out.seek(0, os.SEEK_END)  # a reader may have moved the position
            _dump(self._buffer, out, self._pack)
        self._written += len(self._buffer)
        self._buffer = []

    def _write_run(self, items: Iterable[T], level: int) -> None:
        fh = _new_file()
        self._write_batches(fh, items)
        self._runs.append(fh)
        self._levels.append(level)

    def _write_batches(self, fh: IO[bytes], items: Iterable[T]) -> None:
        step = max(1, self._buffer_size // 4)
        batch: list[T] = []
        for item in items:
            batch.append(item)
            if len(batch) >= step:
                _dump(batch, fh, self._pack)
                batch = []
        if batch:
            _dump(batch, fh, self._pack)

    def _merge_runs(self) -> None:
        """FAN_IN trailing runs of one level become one run of the next (order kept: stable)."""
        while len(self._levels) >= FAN_IN and len(set(self._levels[-FAN_IN:])) == 1:
            level = self._levels[-1]
            runs = self._runs[-FAN_IN:]
            tail = max(self._tails[-FAN_IN:])
            del self._runs[-FAN_IN:], self._levels[-FAN_IN:], self._tails[-FAN_IN:]
            self._write_run(heapq.merge(*(_read(fh, self._unpack) for fh in runs), key=self._key), level + 1)
            self._tails.append(tail)
            _close(runs)

    def __iter__(self) -> Iterator[T]:
        if self._key is None:
            if self._runs:
                yield from _read(self._runs[0], self._unpack)
            yield from list(self._buffer)
            return
        if not self._runs:
            yield from sorted(self._buffer, key=self._key)
            return
        self._spill()
        if len(self._runs) == 1:  # one run (items came in order): already sorted, no merge
            yield from _read(self._runs[0], self._unpack)
            return
        yield from heapq.merge(*(_read(fh, self._unpack) for fh in self._runs), key=self._key)

    def stored(self, key: Callable[[Any], Any] | None = None) -> Iterator[Any]:
        """The items as `__iter__` gives them, but each item of a marshalled batch as `pack` made
        it (not unpacked); the others (a pickled batch's, those never written) as appended. A
        sorted spool needs `key`, the order of both forms (the same order as its own key)."""
        if self._key is None:
            if self._runs:
                yield from _read(self._runs[0])
            yield from list(self._buffer)
            return
        if key is None:
            raise ValueError("a sorted spool's stored items need a key that reads both forms")
        if not self._runs:
            yield from sorted(self._buffer, key=self._key)
            return
        self._spill()
        if len(self._runs) == 1:
            yield from _read(self._runs[0])
            return
        yield from heapq.merge(*(_read(fh) for fh in self._runs), key=key)

    def close(self) -> None:
        self._finalizer()


class ScratchText:
    """Text written now and copied out later (a report whose totals come before the rows they
    count): memory holds about `memory` characters, the rest goes to an unlinked temporary file
    (as UTF-8, lone surrogates kept), and it is read back a chunk at a time."""

    def __init__(self, memory: int = 1 << 18) -> None:
        self._parts: list[str] = []
        self._size = 0
        self._memory = memory
        self._file: IO[bytes] | None = None
        self._finalizer: weakref.finalize[Any, Any] | None = None

    def write(self, text: str) -> None:
        self._parts.append(text)
        self._size += len(text)
        if self._size >= self._memory:
            self._spill()

    def _spill(self) -> None:
        if self._file is None:
            self._file = _new_file()
            self._finalizer = weakref.finalize(self, _close, [self._file])
        with scratch_writes():
            self._file.write("".join(self._parts).encode("utf-8", "surrogatepass"))
        self._parts = []
        self._size = 0

    def copy_to(self, write: Callable[[str], None], chunk: int = 1 << 16) -> None:
        """Everything written, in order, to `write`, then the text is let go."""
        fh = self._file
        if fh is not None:
            fh.seek(0)
            decoder = codecs.getincrementaldecoder("utf-8")("surrogatepass")
            while raw := fh.read(chunk):
                text = decoder.decode(raw)
                if text:
                    write(text)
            tail = decoder.decode(b"", final=True)
            if tail:
                write(tail)
        if self._parts:
            write("".join(self._parts))
        self.close()

    def close(self) -> None:
        self._parts = []
        self._size = 0
        if self._finalizer is not None:
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
        with fewer_collections():  # a reporter's loop over the rows
            yield from map(self._fn, self._source)

    def __bool__(self) -> bool:
        return self._length > 0


MEMORY_ENTRIES = 16384  # entries of a Columns held in memory before they are written out as one chunk


class Columns:
    """Parallel flat arrays (one entry each per position), appended in step by their owner; past
    `memory` entries they are written to an unlinked temporary file as one chunk and emptied, and
    read back a chunk at a time: memory holds at most two chunks, whatever the number of entries."""

    def __init__(self, arrays: Sequence[array[Any]], memory: int | None = None) -> None:
        self.arrays = tuple(arrays)  # the owner appends to these; `spill` empties them in place
        self.memory = MEMORY_ENTRIES if memory is None else memory
        self.spilled = 0  # entries on disk: the position of the first entry in memory
        self._chunks: list[tuple[int, int]] = []  # (file offset, entries) of each chunk on disk
        self._file: IO[bytes] | None = None
        self._finalizer: weakref.finalize[Any, Any] | None = None

    def __len__(self) -> int:
        return self.spilled + len(self.arrays[0])

    def spill(self) -> None:
        """Write the entries in memory out as one chunk (when there are any) and empty the arrays."""
        count = len(self.arrays[0])
        if not count:
            return
        with scratch_writes():
            self._spill(count)

    def _spill(self, count: int) -> None:
        if self._file is None:
            self._file = _new_file()
            self._finalizer = weakref.finalize(self, _close, [self._file])
        fh = self._file
        offset = fh.seek(0, os.SEEK_END)
        for column in self.arrays:
            column.tofile(fh)
            del column[:]
        self._chunks.append((offset, count))
        self.spilled += count

    def chunks(self, which: Sequence[int] | None = None) -> Iterator[tuple[int, tuple[array[Any], ...]]]:
        """(position of its first entry, the arrays `which` names) for each chunk in order, the
        entries in memory last (those arrays themselves: read them, do not change them)."""
        names = range(len(self.arrays)) if which is None else which
        base = 0
        for offset, count in self._chunks:
            assert self._file is not None
            parts: list[array[Any]] = []
            at = offset
            for i, column in enumerate(self.arrays):
                if i in names:
                    self._file.seek(at)
                    part = array(column.typecode)
                    part.fromfile(self._file, count)
                    parts.append(part)
                at += count * column.itemsize
            yield base, tuple(parts)
            base += count
        if len(self.arrays[0]):
            yield base, tuple(self.arrays[i] for i in names)

    def close(self) -> None:
        if self._finalizer is not None:
            self._finalizer()
