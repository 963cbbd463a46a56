"""Bytes -> numbered lines, in the file's encoding: lines end at `\\n` and nowhere else.

JSON strings may hold U+2028, U+2029, U+0085, form feeds and bare CRs (JSON whitespace
too), so no `splitlines()` here. A file with a UTF-16 or UTF-32 byte-order mark is
decoded (VS Code opens such files as text, so the editor and the CLI agree) and every
line is handed on re-encoded as UTF-8; a UTF-16 file without a byte-order mark is refused
with one finding, its lines counted as errors.
"""

from __future__ import annotations

import codecs
from collections.abc import Iterator
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
    """The encoding of a file from its first (up to 4) bytes."""
    for mark, codec, label in _BOMS:
        if head.startswith(mark):
            return Encoding(codec, label, len(mark))
    # RFC 4627 section 3: JSON text starts with an ASCII character, so NULs among the first
    # bytes give away a UTF-16/32 text without a byte-order mark (never valid UTF-8 JSON).
    if len(head) >= 4 and head[0] and not head[1] and not head[2] and not head[3]:
        return Encoding("utf-32-le", "UTF-32-LE", refused=True)
    if len(head) >= 4 and not head[0] and not head[1] and not head[2] and head[3]:
        return Encoding("utf-32-be", "UTF-32-BE", refused=True)
    if len(head) >= 2 and head[0] and not head[1]:
        return Encoding("utf-16-le", "UTF-16-LE", refused=True)
    if len(head) >= 2 and not head[0] and head[1]:
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
    head = stream.read(4)
    encoding = detect_encoding(head)
    if encoding.transcoded and not encoding.refused:
        return encoding, _decoded_lines(_Prefixed(head[encoding.bom :], stream), encoding.codec, limit)
    return encoding, _utf8_lines(_Prefixed(head, stream), limit)


def _utf8_lines(stream: _Prefixed, limit: int) -> Iterator[tuple[int, bytes | None]]:
    number = 0
    readline = stream.readline
    while True:
        raw = readline(limit + 1)
        if not raw:
            return
        number += 1
        if len(raw) > limit and not raw.endswith(b"\n"):
            while True:
                chunk = readline(_CHUNK)
                if not chunk or chunk.endswith(b"\n"):
                    break
            yield number, None
            continue
        yield number, raw


def _decoded_lines(stream: _Prefixed, codec: str, limit: int) -> Iterator[tuple[int, bytes | None]]:
    # Unpaired surrogates survive decoding (surrogatepass) and make the line invalid UTF-8
    # below: the reader reports that line (SL008) and reads the others.
    decoder = codecs.getincrementaldecoder(codec)("surrogatepass")
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
            if size <= limit + 1:
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
    if size > limit + 1:
        return None
    raw = "".join(parts).encode("utf-8", "surrogatepass")
    return raw if len(raw) - raw.endswith(b"\n") <= limit else None


def decode_text(raw: bytes, encoding: Encoding) -> str:
    """A whole document's text in `encoding` (raises UnicodeDecodeError)."""
    if encoding.transcoded:
        return raw[encoding.bom :].decode(encoding.codec)
    return raw.decode("utf-8")
