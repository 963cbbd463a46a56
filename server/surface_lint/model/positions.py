"""Offsets in decoded JSON strings <-> offsets and line/columns in the source text.

Every column here counts Unicode code points of the decoded source file, 1-based.
Front ends convert to UTF-16 or UTF-8 units (see `utf16_column`).
"""

from __future__ import annotations

import bisect
import functools
import json.decoder
import re
import unicodedata
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Literal, cast

_scanstring = json.decoder.scanstring  # type: ignore[attr-defined]  # the C scanner when available
_WS = re.compile(r"[ \t\n\r]*")
# NaN and (-)Infinity too: Python's json reads them, so a document holding them must map.
_NUMBER_OR_LITERAL = re.compile(r"-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][-+]?\d+)?|true|false|null|NaN|-?Infinity")
_ESCAPE = re.compile(r"\\(?:u[0-9a-fA-F]{4}|.)", re.S)

# A path into a JSON document: keys and list indices.
JsonPath = tuple[str | int, ...]


class LineIndex:
    """Maps offsets in a text to 1-based (line, column) and back."""

    __slots__ = ("_starts", "text")

    def __init__(self, text: str) -> None:
        self.text = text
        starts = [0]
        find = text.find
        pos = find("\n")
        while pos != -1:
            starts.append(pos + 1)
            pos = find("\n", pos + 1)
        self._starts = starts

    @property
    def line_count(self) -> int:
        return len(self._starts)

    def line_start(self, line: int) -> int:
        """Offset of the first character of 1-based `line`."""
        return self._starts[line - 1]

    def line_text(self, line: int) -> str:
        start = self._starts[line - 1]
        end = self._starts[line] - 1 if line < len(self._starts) else len(self.text)
        return self.text[start:end].rstrip("\r")

    def position(self, offset: int) -> tuple[int, int]:
        """1-based (line, column) of an offset; columns in code points."""
        line = bisect.bisect_right(self._starts, offset)
        return line, offset - self._starts[line - 1] + 1

    def offset(self, line: int, column: int) -> int:
        return self._starts[line - 1] + column - 1


@dataclass(frozen=True, slots=True)
class StringSpan:
    """A JSON string token in a source text and how its decoded characters map back.

    `start` is the offset of the opening quote, `end` the offset just after the closing one.
    """

    start: int
    end: int
    value: str
    # Source offset of each decoded character; None when the token has no escapes.
    _offsets: tuple[int, ...] | None

    @classmethod
    def scan(cls, text: str, quote: int) -> StringSpan:
        """Scan the string token whose opening quote is at `quote`."""
        value, end = _scanstring(text, quote + 1)
        raw = text[quote + 1 : end - 1]
        if "\\" not in raw:
            return cls(quote, end, value, None)
        offsets: list[int] = []
        base = quote + 1
        pos = 0
        high_end = -1  # where the last `\uD800`-`\uDBFF` escape ended (an escaped `\\` is no escape)
        for match in _ESCAPE.finditer(raw):
            offsets.extend(range(base + pos, base + match.start()))
            esc = match.group()
            if esc.startswith("\\u"):
                code = int(esc[2:], 16)
                # A high surrogate escape directly followed by a low one decodes to one code point.
                if 0xDC00 <= code <= 0xDFFF and high_end == match.start():
                    high_end = -1
                    pos = match.end()
                    continue
                high_end = match.end() if 0xD800 <= code <= 0xDBFF else -1
            offsets.append(base + match.start())
            pos = match.end()
        offsets.extend(range(base + pos, base + len(raw)))
        if len(offsets) != len(value):  # defensive: fall back to token start for every char
            offsets = [base] * len(value)
        return cls(quote, end, value, tuple(offsets))

    def source_offset(self, index: int) -> int:
        """Source offset of decoded character `index` (len(value) maps to the closing quote)."""
        if index >= len(self.value):
            return self.end - 1
        if self._offsets is None:
            return self.start + 1 + index
        return self._offsets[index]

    def source_range(self, start: int, end: int) -> tuple[int, int]:
        """Source [start, end) covering decoded characters [start, end), escapes included."""
        if end <= start:
            off = self.source_offset(start)
            return off, off
        first = self.source_offset(start)
        last_char = self.source_offset(end - 1)
        return first, self._char_end(last_char)

    def _char_end(self, source_start: int) -> int:
        """End offset of the source character (or escape) beginning at `source_start`."""
        if self._offsets is None:
            return source_start + 1
        # Find the next decoded character's source start, or the closing quote.
        idx = bisect.bisect_right(self._offsets, source_start)
        return self._offsets[idx] if idx < len(self._offsets) else self.end - 1


@dataclass(frozen=True, slots=True)
class ValueSpan:
    """Where a JSON value sits in the source: [start, end); `string` for string values."""

    start: int
    end: int
    string: StringSpan | None = None


class JsonSyntaxError(ValueError):
    def __init__(self, message: str, offset: int) -> None:
        super().__init__(message)
        self.message = message
        self.offset = offset


def value_spans(
    text: str, start: int = 0, max_depth: int = 64, want: int = 4
) -> dict[JsonPath, ValueSpan]:
    """Spans of every value in the JSON document at `text[start:]`, keyed by path.

    Only paths up to `want` levels deep are recorded (deeper values are skipped over,
    still validated); nesting deeper than `max_depth` raises JsonSyntaxError.
    Iterative, so a deeply nested document cannot exhaust the Python stack.
    """
    spans: dict[JsonPath, ValueSpan] = {}
    for path, span in _walk(text, start, max_depth, want):
        spans[path] = span
    return spans


def _walk(
    text: str, pos: int, max_depth: int, want: int
) -> Iterator[tuple[JsonPath, ValueSpan]]:
    # Stack frames: [path, kind ('{' or '['), value start, next index, expecting-first]
    stack: list[list[object]] = []
    path: JsonPath = ()
    pos = _WS.match(text, pos).end()  # type: ignore[union-attr]
    key: str | int | None = None
    while True:
        # Parse one value at pos with path `path`.
        if pos >= len(text):
            raise JsonSyntaxError("unexpected end of JSON", pos)
        ch = text[pos]
        if ch == '"':
            try:
                span = StringSpan.scan(text, pos)
            except ValueError as exc:
                raise JsonSyntaxError(f"invalid string: {exc}", pos) from None
            if len(path) <= want:
                yield path, ValueSpan(pos, span.end, span)
            pos = span.end
        elif ch in "{[":
            if len(stack) >= max_depth:
                raise JsonSyntaxError(f"nesting deeper than {max_depth} levels", pos)
            stack.append([path, ch, pos, 0])
            pos = _WS.match(text, pos + 1).end()  # type: ignore[union-attr]
            close = "}" if ch == "{" else "]"
            if pos < len(text) and text[pos] == close:
                frame = stack.pop()
                if len(path) <= want:
                    yield path, ValueSpan(int(frame[2]), pos + 1)  # type: ignore[call-overload]
                pos += 1
            else:
                if ch == "{":
                    key, pos = _read_key(text, pos)
                    path = (*path, key)
                else:
                    path = (*path, 0)
                continue
        else:
            m = _NUMBER_OR_LITERAL.match(text, pos)
            if not m:
                raise JsonSyntaxError(f"unexpected character {ch!r}", pos)
            if len(path) <= want:
                yield path, ValueSpan(pos, m.end())
            pos = m.end()
        # After a value: close containers or move to the next member.
        while True:
            pos = _WS.match(text, pos).end()  # type: ignore[union-attr]
            if not stack:
                return
            frame = stack[-1]
            parent = frame[0]
            kind = frame[1]
            close = "}" if kind == "{" else "]"
            if pos < len(text) and text[pos] == ",":
                pos = _WS.match(text, pos + 1).end()  # type: ignore[union-attr]
                frame[3] = int(frame[3]) + 1  # type: ignore[call-overload]
                if kind == "{":
                    key, pos = _read_key(text, pos)
                    path = (*parent, key)  # type: ignore[misc]
                else:
                    path = (*parent, frame[3])  # type: ignore[misc,arg-type]
                break
            if pos < len(text) and text[pos] == close:
                stack.pop()
                path = parent  # type: ignore[assignment]
                if len(path) <= want:
                    yield path, ValueSpan(int(frame[2]), pos + 1)  # type: ignore[call-overload]
                pos += 1
                continue
            raise JsonSyntaxError(f"expected ',' or {close!r}", pos)


def _read_key(text: str, pos: int) -> tuple[str, int]:
    if pos >= len(text) or text[pos] != '"':
        raise JsonSyntaxError("expected a property name in double quotes", pos)
    try:
        key, pos = _scanstring(text, pos + 1)
    except ValueError as exc:
        raise JsonSyntaxError(f"invalid string: {exc}", pos) from None
    pos = _WS.match(text, pos).end()  # type: ignore[union-attr]
    if pos >= len(text) or text[pos] != ":":
        raise JsonSyntaxError("expected ':' after a property name", pos)
    return key, _WS.match(text, pos + 1).end()  # type: ignore[union-attr]


def utf16_column(line_text: str, column: int) -> int:
    """Convert a 1-based code-point column on `line_text` to a 0-based UTF-16 offset."""
    prefix = line_text[: column - 1]
    return len(prefix) + sum(1 for ch in prefix if ord(ch) > 0xFFFF)


def utf8_column(line_text: str, column: int) -> int:
    """Convert a 1-based code-point column on `line_text` to a 0-based UTF-8 byte offset."""
    return len(line_text[: column - 1].encode("utf-8", "surrogatepass"))


# --- Unicode normalisation with a map back to the original text ---------------------------------

UNICODE_FORMS = ("none", "NFC", "NFKC")
_Form = Literal["NFC", "NFKC"]


@functools.cache
def _combines_backward() -> frozenset[int]:
    """Starters (combining class 0) that composition can join to the character before them: the
    second character of a two-character canonical decomposition, and Hangul vowel and final jamo."""
    out = set(range(0x1161, 0x1176)) | set(range(0x11A8, 0x11C3))
    for code in range(0x2FA20):  # no character past U+2FA1D has a decomposition
        mapping = unicodedata.decomposition(chr(code))
        if mapping and not mapping.startswith("<"):
            parts = mapping.split()
            if len(parts) == 2 and unicodedata.combining(chr(int(parts[1], 16))) == 0:
                out.add(int(parts[1], 16))
    return frozenset(out)


def _boundary_before(ch: str, form: str, backward: frozenset[int]) -> bool:
    """Whether normalising never joins `ch` (or what it becomes) with what comes before it: a
    starter that composes with nothing before it, whose normalisation starts with one too."""
    if unicodedata.combining(ch) or ord(ch) in backward:
        return False
    first = unicodedata.normalize(cast(_Form, form), ch)[:1]
    return not first or (unicodedata.combining(first) == 0 and ord(first) not in backward)


@dataclass(frozen=True, slots=True)
class NormalisedText:
    """A text in a Unicode normal form and how its offsets map back to the original's.

    The original is cut where normalising cannot join two characters (before a starter that
    composes with nothing before it); each piece that normalising changes is recorded, and an
    offset inside a changed piece maps to the whole piece: a span covering part of a composed
    character covers all of the original characters it came from.
    """

    text: str
    _starts: tuple[int, ...] = ()  # the normalised start of each changed piece
    _pieces: tuple[tuple[int, int, int, int], ...] = ()  # (normalised start, end, original start, end)

    @property
    def identity(self) -> bool:
        return not self._pieces

    def start(self, offset: int) -> int:
        """The original offset where a span starting at normalised `offset` starts."""
        i = bisect.bisect_right(self._starts, offset) - 1
        if i < 0:
            return offset
        _, n_end, o_start, o_end = self._pieces[i]
        return o_start if offset < n_end else offset + o_end - n_end

    def end(self, offset: int) -> int:
        """The original offset where a span ending at normalised `offset` ends."""
        i = bisect.bisect_left(self._starts, offset) - 1
        if i < 0:
            return offset
        _, n_end, _, o_end = self._pieces[i]
        return o_end if offset <= n_end else offset + o_end - n_end

    def span(self, start: int, end: int) -> tuple[int, int]:
        """The original [start, end) of normalised [start, end) (an empty span stays empty)."""
        if end <= start:
            at = self.start(start)
            return at, at
        return self.start(start), self.end(end)


def normalise_text(text: str, form: str) -> NormalisedText:
    """`text` in `form` (`NFC` or `NFKC`) with the map back to `text`'s offsets."""
    if unicodedata.is_normalized(cast(_Form, form), text):
        return NormalisedText(text)
    backward = _combines_backward()
    out: list[str] = []
    starts: list[int] = []
    pieces: list[tuple[int, int, int, int]] = []
    size = 0
    cut = 0
    safe: dict[str, bool] = {}
    for i in range(1, len(text) + 1):
        if i < len(text):
            ch = text[i]
            ok = safe.get(ch)
            if ok is None:
                ok = safe[ch] = _boundary_before(ch, form, backward)
            if not ok:
                continue
        piece = text[cut:i]
        done = unicodedata.normalize(cast(_Form, form), piece)
        if done != piece:
            starts.append(size)
            pieces.append((size, size + len(done), cut, i))
        out.append(done)
        size += len(done)
        cut = i
    return NormalisedText("".join(out), tuple(starts), tuple(pieces))
