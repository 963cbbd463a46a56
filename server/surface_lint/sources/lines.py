"""Bytes -> numbered lines, in the file's encoding: lines end at `\\n` and nowhere else.

JSON strings may hold U+2028, U+2029, U+0085, form feeds and bare CRs (JSON whitespace
too), so no `splitlines()` here. A file with a UTF-16 or UTF-32 byte-order mark is
decoded (VS Code opens such files as text, so the editor and the CLI agree) and every
line is handed on re-encoded as UTF-8; a UTF-16 file without a byte-order mark is refused
with one finding, its lines counted as errors.
"""

from __future__ import annotations

import codecs
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import IO

_CHUNK = 1024 * 1024
UTF8_BOM = b"\xef\xbb\xbf"
# Longest first: the UTF-32-LE mark begins with the UTF-16-LE one.
_BOMS = (
    (b"\xff\xfe\x00\x00", "utf-32-le", "UTF-32-LE"),
    (b"\x00\x00\xfe\xff", "utf-32-be", "UTF-32-BE"),
    (b"\xff\xfe", "utf-16-le", "UTF-16-LE"),
    (b"\xfe\xff", "utf-16-be", "UTF-16-BE"),
)


@dataclass(frozen=True, slots=True)
class Encoding:
    """What the first bytes of a file say about how to read it."""

    codec: str  # "utf-8", or the codec lines are decoded with
    label: str  # as people write it: UTF-8, UTF-16-LE, ...
    bom: int = 0  # bytes of byte-order mark to skip (a UTF-8 one is left to the reader: SL009)
    refused: bool = False  # a UTF-16/32 file without a byte-order mark: not read

    @property
    def transcoded(self) -> bool:
        return self.codec != "utf-8"


UTF8 = Encoding("utf-8", "UTF-8")


def detect_encoding(head: bytes) -> Encoding:
    """The encoding of a file from its first (up to 8) bytes."""
    for mark, codec, label in _BOMS:
        if head.startswith(mark):
            return Encoding(codec, label, len(mark))
    # RFC 4627 section 3: JSON text starts with ASCII characters, so a NUL in every other
    # byte of the first four code units gives away UTF-16 without a byte-order mark (every
    # fourth: UTF-32). One stray NUL on line 1 of a UTF-8 file is not enough: that line is
    # then one bad line and the others are read.
    if len(head) >= 8 and all(head[i] for i in (0, 4)) and not any(head[i] for i in (1, 2, 3, 5, 6, 7)):
        return Encoding("utf-32-le", "UTF-32-LE", refused=True)
    if len(head) >= 8 and all(head[i] for i in (3, 7)) and not any(head[i] for i in (0, 1, 2, 4, 5, 6)):
        return Encoding("utf-32-be", "UTF-32-BE", refused=True)
    if len(head) >= 8 and all(head[i] for i in (0, 2, 4, 6)) and not any(head[i] for i in (1, 3, 5, 7)):
        return Encoding("utf-16-le", "UTF-16-LE", refused=True)
    if len(head) >= 8 and all(head[i] for i in (1, 3, 5, 7)) and not any(head[i] for i in (0, 2, 4, 6)):
        return Encoding("utf-16-be", "UTF-16-BE", refused=True)
    return UTF8


class _Prefixed:
    """A byte stream with `head` (bytes already read from it) put back in front."""

    __slots__ = ("head", "stream")

    def __init__(self, head: bytes, stream: IO[bytes]) -> None:
        self.head = head
        self.stream = stream

    def readline(self, limit: int) -> bytes:
        head = self.head
        if not head:
            return self.stream.readline(limit)
        newline = head.find(b"\n", 0, limit)
        if newline >= 0:
            self.head = head[newline + 1 :]
            return head[: newline + 1]
        if len(head) >= limit:
            self.head = head[limit:]
            return head[:limit]
        self.head = b""
        return head + self.stream.readline(limit - len(head))

    def read(self, size: int) -> bytes:
        head = self.head
        if not head:
            return self.stream.read(size)
        self.head = b""
        return head + self.stream.read(max(0, size - len(head)))


def open_lines(stream: IO[bytes], limit: int) -> tuple[Encoding, Iterator[tuple[int, bytes | None]]]:
    """(encoding, (line number, UTF-8 bytes with their `\\n`) for each line); None for a line
    over `limit` bytes (drained, never held). A refused encoding yields its raw lines."""
    head = stream.read(8)
    encoding = detect_encoding(head)
    if encoding.refused:  # its lines as the guessed encoding counts them, to be counted as errors
        return encoding, _decoded_lines(_Prefixed(head, stream), encoding.codec, limit, "replace")
    if encoding.transcoded:
        return encoding, _decoded_lines(_Prefixed(head[encoding.bom :], stream), encoding.codec, limit)
    return encoding, _utf8_lines(_Prefixed(head, stream), limit)


def _content_length(raw: bytes) -> int:
    """Bytes of a line without its ending (`\\n` or `\\r\\n`): what `limit` bounds."""
    if raw.endswith(b"\r\n"):
        return len(raw) - 2
    return len(raw) - 1 if raw.endswith(b"\n") else len(raw)


def _utf8_lines(stream: _Prefixed, limit: int) -> Iterator[tuple[int, bytes | None]]:
    number = 0
    readline: Callable[[int], bytes] = stream.readline
    most = limit + 2
    while True:
        raw = readline(most)
        if not raw:
            return
        number += 1
        if not stream.head:
            readline = stream.stream.readline  # the peeked bytes are used up: read directly
        if len(raw) > limit and _content_length(raw) > limit:
            if not raw.endswith(b"\n"):  # drain the rest of the line without holding it
                while True:
                    chunk = readline(_CHUNK)
                    if not chunk or chunk.endswith(b"\n"):
                        break
            yield number, None
            continue
        yield number, raw


def _mark_undecodable(exc: UnicodeError) -> tuple[str, int]:
    return "\udcff", exc.end  # type: ignore[attr-defined]


# Undecodable data (an unpaired surrogate, a cut-off code unit) becomes a lone surrogate, which
# makes its line invalid UTF-8 below: the reader reports that line (SL008) and reads the others.
_MARK = "surface_lint.mark"
codecs.register_error(_MARK, _mark_undecodable)


def _decoded_lines(stream: _Prefixed, codec: str, limit: int,
                   errors: str = _MARK) -> Iterator[tuple[int, bytes | None]]:
    decoder = codecs.getincrementaldecoder(codec)(errors)
    parts: list[str] = []
    size = 0  # code points held for the current line; over `limit` its bytes surely are too
    number = 0
    while True:
        chunk = stream.read(_CHUNK)
        text = decoder.decode(chunk, final=not chunk)
        start = 0
        while True:
            newline = text.find("\n", start)
            stop = len(text) if newline < 0 else newline + 1
            if size <= limit + 2:
                parts.append(text[start:stop])
                size += stop - start
            if newline < 0:
                break
            number += 1
            yield number, _line_bytes(parts, size, limit)
            parts, size, start = [], 0, stop
        if not chunk:
            break
    if size:
        number += 1
        yield number, _line_bytes(parts, size, limit)


def _line_bytes(parts: list[str], size: int, limit: int) -> bytes | None:
    if size > limit + 2:
        return None
    raw = "".join(parts).encode("utf-8", "surrogatepass")
    return raw if _content_length(raw) <= limit else None


def decode_text(raw: bytes, encoding: Encoding) -> str:
    """A whole document's text in `encoding` (raises UnicodeDecodeError)."""
    if encoding.transcoded:
        return raw[encoding.bom :].decode(encoding.codec)
    return raw.decode("utf-8")
