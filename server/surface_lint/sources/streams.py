"""Inputs that are not regular files: a FIFO, `/dev/stdin`, a process substitution
(`<(...)`, a `/dev/fd/N` pipe), a character device (`/dev/zero`, `/dev/urandom`).

Such an input can be read only once, and not sought in: the readers of a regular file open it
more than once (the kind sniff, then the reader) and seek back to its start. So a stream is
read once, as it comes, into an unlinked scratch file (memory does not grow with it), and every
later open of its path (`open_input`) reads that copy from its start, as often as asked.

A stream may never end (`/dev/zero`): the copy stops at the first line longer than the
line-length limit (`max-line-bytes`), with that line's first bytes in it, so the reader reports
the line (SL004: longer than the limit) and reads no further; `hold_stream` returns its number.
"""

from __future__ import annotations

import os
import stat
import tempfile
from typing import IO

CHUNK = 1024 * 1024  # bytes copied at once
# A character device that is no terminal (/dev/urandom: short lines for ever) is read no further
# than this; a pipe or FIFO is read to its end (its writer decides), a terminal until end of input.
MAX_DEVICE_BYTES = 64 * 1024 * 1024
_copies: dict[str, IO[bytes]] = {}  # a stream's path as given -> the copy of what it held


def is_stream(path: str) -> bool:
    """Whether `path` (followed through links: /dev/stdin, /dev/fd/N) is neither a regular file
    nor a folder (a FIFO, a device, a socket). OSError when it cannot be stat'ed."""
    mode = os.stat(path).st_mode
    return not stat.S_ISREG(mode) and not stat.S_ISDIR(mode)


def hold_stream(path: str, max_line_bytes: int) -> str | None:
    """Read the stream at `path` once into a scratch copy that `open_input(path)` then gives.
    Why it stopped short of its end (its first line longer than `max_line_bytes`, a device's
    MAX_DEVICE_BYTES), else None. OSError from the stream's open or read as StreamReadError,
    from the scratch file's writes as it is (the caller says the scratch folder is full)."""
    if path in _copies:
        return None
    copy = tempfile.TemporaryFile(prefix="surface-lint-", suffix=".stream")
    stopped: str | None = None
    try:
        try:
            source = open(path, "rb", buffering=0)
        except OSError as exc:
            raise StreamReadError(exc.errno or 0, exc.strerror or str(exc)) from None
        with source:
            device = stat.S_ISCHR(os.fstat(source.fileno()).st_mode) and not source.isatty()
            left = MAX_DEVICE_BYTES if device else -1
            lines = 0  # line ends copied so far
            run = 0  # bytes of the current line copied so far
            most = max_line_bytes + 2  # what the reader's readline takes of a line (its end included)
            while True:
                try:
                    chunk = source.read(CHUNK if left < 0 else min(CHUNK, left))
                except OSError as exc:
                    raise StreamReadError(exc.errno or 0, exc.strerror or str(exc)) from None
                if not chunk:
                    if left == 0:
                        stopped = (f"a device: read no further than its first {MAX_DEVICE_BYTES // (1024 * 1024)} "
                                   "MiB")
                    break
                left -= len(chunk) if left > 0 else 0
                copy.write(chunk)
                over = _first_long_line(chunk, run, most)
                if over is not None:
                    number = lines + chunk.count(b"\n", 0, over) + 1
                    stopped = f"line {number} is longer than {max_line_bytes} bytes; this stream is read no further"
                    break
                last = chunk.rfind(b"\n")
                run = run + len(chunk) if last < 0 else len(chunk) - last - 1
                lines += chunk.count(b"\n")
        copy.flush()
    except BaseException:
        copy.close()
        raise
    _copies[path] = copy
    return stopped


def _first_long_line(chunk: bytes, run: int, most: int) -> int | None:
    """The offset in `chunk` where a line longer than `most` bytes (its first `run` bytes in the
    chunks before) starts being over, else None."""
    if run + len(chunk) <= most:
        return None
    start, carried = 0, run
    while True:
        end = chunk.find(b"\n", start)
        stop = len(chunk) if end < 0 else end
        if carried + stop - start > most:
            return start
        if end < 0:
            return None
        start, carried = end + 1, 0


class StreamReadError(OSError):
    """The stream itself could not be opened or read (not the scratch copy)."""


def open_input(path: str) -> IO[bytes]:
    """An input file opened for reading from its start: a stream's copy (`hold_stream`) when
    there is one, else the file itself."""
    copy = _copies.get(path)
    if copy is None:
        return open(path, "rb")
    try:  # a description of its own (Linux): readers of one copy never move each other's position
        return open(f"/proc/self/fd/{copy.fileno()}", "rb")
    except OSError:
        fh = os.fdopen(os.dup(copy.fileno()), "rb")
        fh.seek(0)
        return fh


def read_input(path: str) -> bytes:
    """The whole of an input file (a stream's copy when there is one)."""
    with open_input(path) as fh:
        return fh.read()


def release_streams() -> None:
    """Close every copy (their scratch files go with them)."""
    while _copies:
        _copies.popitem()[1].close()
