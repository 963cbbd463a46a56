"""Open documents without pygls: client units <-> code points, URIs, and the document store.

`TextDoc` holds an open document as lines split on "\\n" (a line may keep a trailing
"\\r"), exactly as the engine reads files, and applies LSP edits in client units.
"""

from __future__ import annotations

from dataclasses import dataclass
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


class TextDoc:
    """An open document: lines split on "\\n" as the engine reads them (a trailing "\\r" stays)."""

    __slots__ = ("language_id", "lines", "path", "saved_version", "uri", "version")

    def __init__(self, uri: str, text: str, version: int | None = 0, language_id: str = "") -> None:
        self.uri = uri
        self.path = uri_to_path(uri)
        self.version = version
        self.language_id = language_id
        self.lines: list[str] = text.split("\n")
        self.saved_version = version

    @property
    def text(self) -> str:
        return "\n".join(self.lines)

    def line(self, index: int) -> str:
        """Line `index` (0-based) without its "\\r"; "" past the end."""
        if 0 <= index < len(self.lines):
            text = self.lines[index]
            return text[:-1] if text.endswith("\r") else text
        return ""

    def point(self, line: int, units: int, encoding: str) -> tuple[int, int]:
        """A client position -> (line, code-point column), clamped into the document."""
        if line < 0:
            return 0, 0
        if line >= len(self.lines):
            last = len(self.lines) - 1
            return last, len(self.line(last))
        return line, from_client_units(self.line(line), units, encoding)

    def apply_change(self, change_range: tuple[int, int, int, int] | None, text: str, encoding: str) -> None:
        """Apply one LSP content change (range in client units, or None for the whole text)."""
        if change_range is None:
            self.lines = text.split("\n")
            return
        sl, sc, el, ec = change_range
        (sl, sc), (el, ec) = self.point(sl, sc, encoding), self.point(el, ec, encoding)
        if (el, ec) < (sl, sc):
            (sl, sc), (el, ec) = (el, ec), (sl, sc)
        # A "\r" ending the end line stays: the client's columns never include it.
        new = (self.lines[sl][:sc] + text + self.lines[el][ec:]).split("\n")
        self.lines[sl : el + 1] = new


@dataclass(frozen=True, slots=True)
class Snapshot:
    """What a lint reads: an immutable view of one version of a document."""

    uri: str
    path: str
    version: int | None
    lines: tuple[str, ...]
    language_id: str = ""

    @classmethod
    def of(cls, doc: TextDoc) -> Snapshot:
        return cls(doc.uri, doc.path, doc.version, tuple(doc.lines), doc.language_id)

    def line(self, index: int) -> str:
        if 0 <= index < len(self.lines):
            text = self.lines[index]
            return text[:-1] if text.endswith("\r") else text
        return ""

    def data(self) -> bytes:
        return "\n".join(self.lines).encode("utf-8", "surrogatepass")


