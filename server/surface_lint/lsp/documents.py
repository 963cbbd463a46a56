"""Open documents without pygls: client units <-> code points, URIs, and the document store.

`TextDoc` holds an open document as lines split on "\\n" (a line may keep a trailing
"\\r"), exactly as the engine reads JSON Lines records, and applies LSP edits in client
units. The client ends lines at "\\r\\n", "\\n" and a bare "\\r" (LSP 3.17); `LineMap`
maps positions between the two exactly.
"""

from __future__ import annotations

import bisect
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import unquote, urlparse

# --- positions: client units <-> code points ------------------------------------------------


def to_client_units(line: str, column: int, encoding: str) -> int:
    """0-based code-point column on `line` -> 0-based column in the negotiated encoding."""
    if column <= 0:
        return 0
    prefix = line[:column]
    if encoding == "utf-32" or prefix.isascii():
        return len(prefix)
    if encoding == "utf-8":
        return len(prefix.encode("utf-8", "surrogatepass"))
    return len(prefix) + sum(1 for ch in prefix if ord(ch) > 0xFFFF)


def from_client_units(line: str, units: int, encoding: str) -> int:
    """0-based column in client units -> 0-based code-point column (clamped to the line)."""
    if units <= 0:
        return 0
    if encoding == "utf-32" or line.isascii():
        return min(units, len(line))
    count = 0
    for index, ch in enumerate(line):
        if count >= units:
            return index
        code = ord(ch)
        if encoding == "utf-8":
            count += 1 if code < 0x80 else 2 if code < 0x800 else 3 if code < 0x10000 else 4
        else:
            count += 2 if code > 0xFFFF else 1
    return len(line)


# --- documents --------------------------------------------------------------------------------


def uri_to_path(uri: str) -> str:
    """A file: URI's path; any other URI is used as its own path (lane detection still works)."""
    parsed = urlparse(uri)
    if parsed.scheme == "file":
        return unquote(parsed.path)
    return uri


def path_to_uri(path: str) -> str:
    if "://" in path or path.startswith("untitled:"):
        return path
    return Path(path).absolute().as_uri()


Bare = dict[int, tuple[int, ...]]  # engine line index -> offsets of its bare CRs


def bare_crs(line: str, last: bool) -> tuple[int, ...]:
    """Offsets of the CRs in an engine line that end a client line on their own: every "\r"
    but the one of a CRLF (a non-last line's final "\r", followed by the "\n")."""
    end = len(line) - 1 if line.endswith("\r") and not last else len(line)
    found: list[int] = []
    at = line.find("\r", 0, end)
    while at != -1:
        found.append(at)
        at = line.find("\r", at + 1, end)
    return tuple(found)


def scan_bare(lines: Sequence[str], start: int = 0, stop: int | None = None) -> Bare:
    last = len(lines) - 1
    out: Bare = {}
    for index in range(start, len(lines) if stop is None else stop):
        text = lines[index]
        if "\r" in text and (found := bare_crs(text, index == last)):
            out[index] = found
    return out


class LineMap:
    """The client's lines (ended by "\r\n", "\n" or a bare "\r", as LSP counts them) over the
    engine's lines (ended by "\n", as JSON Lines records are read).

    Positions go both ways exactly: a client (line, units) -> an engine (line, code point),
    and back. Without bare CRs (nearly always) the two line numbers are the same.
    """

    __slots__ = ("_cum", "_keys", "_starts", "bare", "lines")

    def __init__(self, lines: Sequence[str], bare: Bare) -> None:
        self.lines = lines
        self.bare = bare
        self._keys = sorted(bare)
        self._cum: list[int] = []  # extra client lines up to and including each key
        self._starts: list[int] = []  # the client line where each key's engine line starts
        total = 0
        for key in self._keys:
            self._starts.append(key + total)
            total += len(bare[key])
            self._cum.append(total)

    @classmethod
    def scan(cls, lines: Sequence[str]) -> LineMap:
        return cls(lines, scan_bare(lines))

    @property
    def client_line_count(self) -> int:
        return len(self.lines) + (self._cum[-1] if self._cum else 0)

    def _segment(self, index: int, segment: int) -> tuple[int, int]:
        """[start, end) of one client line inside engine line `index` (line end excluded)."""
        text = self.lines[index]
        breaks = self.bare.get(index, ())
        start = breaks[segment - 1] + 1 if segment > 0 else 0
        if segment < len(breaks):
            return start, breaks[segment]
        crlf = text.endswith("\r") and not (breaks and breaks[-1] == len(text) - 1)
        return start, len(text) - 1 if crlf else len(text)

    def _locate(self, line: int) -> tuple[int, int]:
        """Client line -> (engine line, which client line inside it)."""
        if not self._keys:
            return line, 0
        j = bisect.bisect_right(self._starts, line) - 1
        if j < 0:
            return line, 0
        key = self._keys[j]
        segment = line - self._starts[j]
        if segment <= len(self.bare[key]):
            return key, segment
        return line - self._cum[j], 0

    def client_text(self, line: int) -> str:
        """Client line `line` (0-based) without its line end; "" past the end."""
        if not 0 <= line < self.client_line_count:
            return ""
        index, segment = self._locate(line)
        start, end = self._segment(index, segment)
        text = self.lines[index]
        return text if start == 0 and end == len(text) else text[start:end]

    def to_engine(self, line: int, units: int, encoding: str) -> tuple[int, int]:
        """A client position -> (engine line, code-point column), clamped into the document."""
        if line < 0 or not self.lines:
            return 0, 0
        if line >= self.client_line_count:
            index = len(self.lines) - 1
            return index, self._segment(index, len(self.bare.get(index, ())))[1]
        index, segment = self._locate(line)
        start, end = self._segment(index, segment)
        text = self.lines[index]
        part = text if start == 0 and end == len(text) else text[start:end]
        return index, start + from_client_units(part, units, encoding)

    def to_client(self, index: int, column: int, encoding: str) -> tuple[int, int]:
        """(engine line, code-point column) -> a client position (clamped to the line)."""
        if not self.lines:
            return 0, 0
        index = min(max(index, 0), len(self.lines) - 1)
        j = bisect.bisect_left(self._keys, index)
        line = index + (self._cum[j - 1] if j > 0 else 0)
        breaks = self.bare.get(index, ())
        segment = bisect.bisect_left(breaks, column) if breaks else 0
        start, end = self._segment(index, segment)
        text = self.lines[index]
        column = min(max(column, start), end)
        part = text if start == 0 and end == len(text) else text[start:end]
        return line + segment, to_client_units(part, column - start, encoding)


class TextDoc:
    """An open document: lines split on "\n" as the engine reads them (a trailing "\r" stays),
    with the bare CRs that also end lines for the client kept up to date on every edit."""

    __slots__ = ("_map", "bare", "language_id", "lines", "path", "saved_version", "uri", "version")

    def __init__(self, uri: str, text: str, version: int | None = 0, language_id: str = "") -> None:
        self.uri = uri
        self.path = uri_to_path(uri)
        self.version = version
        self.language_id = language_id
        self.lines: list[str] = text.split("\n")
        self.bare: Bare = scan_bare(self.lines)
        self.saved_version = version
        self._map: LineMap | None = None

    @property
    def text(self) -> str:
        return "\n".join(self.lines)

    @property
    def linemap(self) -> LineMap:
        if self._map is None:
            self._map = LineMap(self.lines, self.bare)
        return self._map

    def line(self, index: int) -> str:
        """Engine line `index` (0-based) without its "\r"; "" past the end."""
        if 0 <= index < len(self.lines):
            text = self.lines[index]
            return text[:-1] if text.endswith("\r") else text
        return ""

    def point(self, line: int, units: int, encoding: str) -> tuple[int, int]:
        """A client position -> (engine line, code-point column), clamped into the document."""
        return self.linemap.to_engine(line, units, encoding)

    def apply_change(self, change_range: tuple[int, int, int, int] | None, text: str, encoding: str) -> None:
        """Apply one LSP content change (range in client units, or None for the whole text)."""
        self._map = None
        if change_range is None:
            self.lines = text.split("\n")
            self.bare = scan_bare(self.lines)
            return
        sl, sc, el, ec = change_range
        (sl, sc), (el, ec) = self.point(sl, sc, encoding), self.point(el, ec, encoding)
        if (el, ec) < (sl, sc):
            (sl, sc), (el, ec) = (el, ec), (sl, sc)
        # A "\r" ending the end line stays: the client's columns never include it.
        new = (self.lines[sl][:sc] + text + self.lines[el][ec:]).split("\n")
        self.lines[sl : el + 1] = new
        delta = len(new) - (el - sl + 1)
        bare = {i: b for i, b in self.bare.items() if i < sl}
        bare.update({i + delta: b for i, b in self.bare.items() if i > el})
        bare.update(scan_bare(self.lines, sl, sl + len(new)))  # a line stops being last only if edited
        self.bare = bare


@dataclass(frozen=True, slots=True)
class Snapshot:
    """What a lint reads: an immutable view of one version of a document."""

    uri: str
    path: str
    version: int | None
    lines: tuple[str, ...]
    language_id: str = ""
    bare: Bare = field(default_factory=dict)

    @classmethod
    def of(cls, doc: TextDoc) -> Snapshot:
        return cls(doc.uri, doc.path, doc.version, tuple(doc.lines), doc.language_id, dict(doc.bare))

    @property
    def linemap(self) -> LineMap:
        return LineMap(self.lines, self.bare)

    def line(self, index: int) -> str:
        if 0 <= index < len(self.lines):
            text = self.lines[index]
            return text[:-1] if text.endswith("\r") else text
        return ""

    def data(self) -> bytes:
        return "\n".join(self.lines).encode("utf-8", "surrogatepass")


