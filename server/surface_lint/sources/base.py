"""Reading bytes into JSON records that remember where every value came from."""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import IO, Any

from ..model.checks import CHECK_CODES as C
from ..model.checks import CHECKS
from ..model.findings import Finding, Location, Severity, new_location
from ..model.jsonread import decode, loads
from ..model.positions import JsonPath, JsonSyntaxError, LineIndex, StringSpan, ValueSpan, value_spans
from .lines import UTF8, UTF8_BOM, Encoding, decode_text, detect_encoding, open_lines

DEFAULT_MAX_LINE_BYTES = 32 * 1024 * 1024


def check_finding(
    code: str,
    location: Location,
    message: str,
    record_id: str | None = None,
    severity: Severity | None = None,
    **kwargs: Any,
) -> Finding:
    spec = CHECKS[code]
    return Finding(
        location=location,
        code=code,
        rule=spec.name,
        severity=severity or Severity.parse(spec.severity),
        message=message,
        record_id=record_id,
        **kwargs,
    )


# (a string member's raw token, decoded spans) -> the spans' source ranges from the token's quote:
# the corpus's surfaces repeat, each with the same ranges wherever its line puts it.
_RANGES: dict[tuple[str, tuple[Any, ...]], tuple[tuple[int, int], ...]] = {}
_RANGES_SIZE = 4096  # entries (cleared when full)
_RANGES_TOKEN = 4096  # characters: a longer token is scanned each time (the memo stays a few MiB at most)


class DocLocator:
    """Maps JSON paths (and offsets inside decoded strings) of one JSON text to Locations.

    For a JSONL record, `text` is the line and `first_line` its number; for a whole
    document (a lane report), `text` is the file and `first_line` is 1.
    """

    __slots__ = ("_first", "_index", "_spans", "_top", "_top_spans", "first_line", "path", "text")

    def __init__(self, path: str, text: str, first_line: int = 1) -> None:
        self.path = path
        self.text = text
        self.first_line = first_line
        self._spans: dict[JsonPath, ValueSpan] | None = None
        self._top: dict[str, tuple[int, int]] | None = None
        # Top-level spans already built: one string scan per member, however many findings it has.
        self._top_spans: dict[str, ValueSpan] = {}
        self._first: tuple[str, tuple[int, int] | None] | None = None  # the first member asked for, and its range
        self._index: LineIndex | None = None

    @property
    def spans(self) -> dict[JsonPath, ValueSpan]:
        if self._spans is None:
            try:
                # json.loads accepted this text: any depth it parsed must be walked too.
                self._spans = value_spans(self.text, max_depth=len(self.text), want=6)
            except JsonSyntaxError:
                self._spans = {}
        return self._spans

    @property
    def index(self) -> LineIndex:
        if self._index is None:
            self._index = LineIndex(self.text)
        return self._index

    def location_of_offsets(self, start: int, end: int) -> Location:
        index = self.index
        line, col = index.position(start)
        end_line, end_col = index.position(end)
        off = self.first_line - 1
        return new_location(self.path, line + off, col, end_line + off, end_col)

    def _member_range(self, member: str) -> tuple[int, int] | None:
        """[start, end) of a top-level member's value. The first member asked for (a finding's
        `surface`) is found by scanning only as far as it when that is exact (member_range); a
        second one walks every member once."""
        first = self._first
        if first is None:
            found = member_range(self.text, member)
            self._first = (member, found)
            return found
        if first[0] == member:
            return first[1]
        if self._top is None:
            self._top = top_level_members(self.text)
        return self._top.get(member)

    def _get(self, path: JsonPath) -> ValueSpan | None:
        """The span at `path`: a top-level member without walking the whole document."""
        if self._spans is None and len(path) == 1 and type(path[0]) is str:
            member = path[0]
            known = self._top_spans.get(member)
            if known is not None:
                return known
            found = self._member_range(member)
            if found is None:
                return None
            start, end = found
            string = StringSpan.scan(self.text, start) if self.text[start] == '"' else None
            span = ValueSpan(start, end, string)
            self._top_spans[member] = span
            return span
        return self.spans.get(path)

    def span_locations(self, path: JsonPath, spans: Sequence[tuple[int, int]]) -> list[Location]:
        """`[self.location(path, inner) for inner in spans]`. For a top-level string member the
        spans' source ranges are remembered per (raw token, spans): they depend on the token's
        escapes, not on where it sits, so a repeated surface is not scanned again."""
        if self._spans is None and len(path) == 1 and type(path[0]) is str and path[0] not in self._top_spans:
            found = self._member_range(path[0])
            text = self.text
            if found is not None and text[found[0]] == '"':
                start, end = found
                token = text[start:end]
                key = (token, tuple(spans))
                try:
                    ranges = _RANGES.get(key)
                except TypeError:  # a span that is not a tuple: located one by one
                    return [self.location(path, inner) for inner in spans]
                if ranges is None:
                    string = StringSpan.scan(text, start)
                    ranges = tuple((a - start, b - start) for a, b in (string.source_range(*inner) for inner in spans))
                    if len(token) <= _RANGES_TOKEN:
                        if len(_RANGES) >= _RANGES_SIZE:
                            _RANGES.clear()
                        _RANGES[key] = ranges
                if "\n" not in text:  # one line (a JSONL record's): a column is its offset + 1
                    line, where, base = self.first_line, self.path, start + 1
                    return [new_location(where, line, base + a, line, base + b) for a, b in ranges]
                at = self.location_of_offsets
                return [at(start + a, start + b) for a, b in ranges]
        return [self.location(path, inner) for inner in spans]

    def first_member(self, member: str, found: tuple[int, int]) -> None:
        """`_member_range`'s answer for the first member asked for, known already (found as
        `member_range(self.text, member)` finds it); nothing when a member was asked for."""
        if self._first is None:
            self._first = (member, found)

    def top_string(self, member: str) -> tuple[int, str] | None:
        """(offset, raw token) of the top-level string member `member` of a one-line text (a
        JSONL record's), None when the text has several lines or the member is no string."""
        text = self.text
        if "\n" in text:
            return None
        span = self._get((member,))
        if span is None or span.string is None:
            return None
        return span.start, text[span.start : span.end]

    def value(self, path: JsonPath) -> ValueSpan | None:
        return self._get(path)

    def string(self, path: JsonPath) -> StringSpan | None:
        span = self._get(path)
        return span.string if span is not None else None

    def location(self, path: JsonPath, inner: tuple[int, int] | None = None) -> Location:
        """The value at `path`; with `inner`, the decoded-string range inside it."""
        span = self._get(path)
        if span is None:
            # Fall back to the enclosing value, then the whole record.
            while path and span is None:
                path = path[:-1]
                span = self._get(path)
            if span is None:
                return self.whole()
        if inner is not None and span.string is not None:
            start, end = span.string.source_range(*inner)
            return self.location_of_offsets(start, end)
        return self.location_of_offsets(span.start, span.end)

    def key_location(self, path: JsonPath) -> Location:
        """The property name of the member at `path` (quotes included)."""
        span = self._get(path)
        if span is None or not path:
            return self.location(path)
        # Walk back from the value over ':' to the key's closing quote, then its opening one.
        text = self.text
        close = text.rfind('"', 0, text.rfind(":", 0, span.start))
        start = close - 1
        while start >= 0:
            if text[start] == '"':
                slashes = len(text[:start]) - len(text[:start].rstrip("\\"))
                if slashes % 2 == 0:
                    break
            start -= 1
        if close < 0 or start < 0:
            return self.location(path)
        return self.location_of_offsets(start, close + 1)

    def whole(self) -> Location:
        stripped = self.text.rstrip()
        lead = len(self.text) - len(self.text.lstrip())
        return self.location_of_offsets(lead, max(lead, len(stripped)))


_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|[{}\[\],:]', re.S)
# json's own C scanners: a string from after its quote, and any value from its first character.
_scan_string: Callable[[str, int, bool], tuple[str, int]] = json.decoder.scanstring  # type: ignore[attr-defined]
_scan_value: Callable[[str, int], tuple[Any, int]] = json.JSONDecoder().scan_once  # type: ignore[attr-defined]
_COLON = re.compile(r"[ \t\r\n]*:[ \t\r\n]*")
_AFTER_VALUE = re.compile(r"[ \t\r\n]*(,[ \t\r\n]*)?")


def top_level_members(text: str) -> dict[str, tuple[int, int]]:
    """[start, end) of each member value of the top-level object in `text`, which json.loads
    accepted: one step per member, each value skipped by json's C scanner."""
    pos = _skip_ws(text, 0)
    if text[pos : pos + 1] != "{":
        return _members_by_tokens(text)
    out: dict[str, tuple[int, int]] = {}
    colon, after = _COLON.match, _AFTER_VALUE.match
    try:
        pos = _skip_ws(text, pos + 1)
        if text[pos] == "}":
            return out
        while True:
            key, pos = _scan_string(text, pos + 1, True)
            start = colon(text, pos).end()  # type: ignore[union-attr]
            end = _scan_value(text, start)[1]
            out[key] = (start, end)
            m = after(text, end)
            if m.group(1) is None:  # type: ignore[union-attr]
                return out
            pos = m.end()  # type: ignore[union-attr]
    except (RecursionError, ValueError, StopIteration, IndexError, AttributeError):
        # Nested deeper than this stack allows (or not what json.loads accepted): the token walk.
        return _members_by_tokens(text)


# A JSON string token (possessive: one way to match, nothing kept to backtrack), and the members
# before a named key when each of their values is a string, number, true, false or null.
_STRING_TOKEN = r'"[^"\\]*+(?:\\.[^"\\]*+)*+"'
_WS = r"[ \t\r\n]*+"
_SCALAR_MEMBERS = (rf"\{{{_WS}(?:{_STRING_TOKEN}{_WS}:{_WS}(?:{_STRING_TOKEN}|[-0-9][-+.0-9eE]*+|true|false|null)"
                   rf"{_WS},{_WS})*?")
_KEY_AFTER_SCALARS: dict[str, re.Pattern[str] | None] = {}


def _key_after_scalars(key: str) -> re.Pattern[str] | None:
    """A pattern matching from the `{` to the value of the first member spelled `"key"` that
    follows only scalar members (None for a key whose spelling needs escapes)."""
    try:
        return _KEY_AFTER_SCALARS[key]
    except KeyError:
        pass
    plain = not any(c in '"\\' or c < " " for c in key)
    # The value's token too when it is a string (group 1): one match finds a surface's range.
    pattern = re.compile(rf'{_SCALAR_MEMBERS}"{re.escape(key)}"{_WS}:{_WS}({_STRING_TOKEN})?', re.S) if plain else None
    if len(_KEY_AFTER_SCALARS) < 64:
        _KEY_AFTER_SCALARS[key] = pattern
    return pattern


def member_range(text: str, key: str) -> tuple[int, int] | None:
    """[start, end) of the top-level member `key`'s value in `text` (which json.loads accepted),
    as top_level_members gives it, scanning the members only as far as the first `key` when no
    later one can repeat it (json keeps the last of repeated keys): the rest of the text has no
    backslash (so no escaped spelling of a key) and no `"key"`. Otherwise the whole walk.

    When every member before it is a scalar (a turn line's `case_id`, `turn_index`, `prompt`...),
    one regex match finds the key: an earlier member spelled with escapes is skipped, and rightly,
    since a later plain `"key"` is the one json keeps."""
    pattern = _key_after_scalars(key)
    m = pattern.match(text, 0 if text.startswith("{") else _skip_ws(text, 0)) if pattern is not None else None
    if m is not None:
        start = end = m.end()
        if m.group(1) is not None:  # a string value: its token matched
            start = m.start(1)
        elif text[start : start + 1] == '"':  # a string token that does not end (not what json accepted)
            end = -1
        else:
            try:
                end = _scan_value(text, start)[1]
            except (RecursionError, ValueError, StopIteration, IndexError):
                end = -1
        if end >= 0 and text.find("\\", end) < 0 and text.find(f'"{key}"', end) < 0:
            return start, end
    pos = _skip_ws(text, 0)
    if text[pos : pos + 1] == "{":
        colon, after = _COLON.match, _AFTER_VALUE.match
        try:
            pos = _skip_ws(text, pos + 1)
            while text[pos] != "}":
                name, pos = _scan_string(text, pos + 1, True)
                start = colon(text, pos).end()  # type: ignore[union-attr]
                end = _scan_value(text, start)[1]
                if name == key:
                    if text.find("\\", end) < 0 and text.find(f'"{key}"', end) < 0:
                        return start, end
                    break
                m = after(text, end)
                if m.group(1) is None:  # type: ignore[union-attr]
                    return None
                pos = m.end()  # type: ignore[union-attr]
            else:
                return None
        except (RecursionError, ValueError, StopIteration, IndexError, AttributeError):
            pass
    return top_level_members(text).get(key)


def _members_by_tokens(text: str) -> dict[str, tuple[int, int]]:
    """top_level_members by a regex walk over strings and punctuation (any depth, no parsing)."""
    out: dict[str, tuple[int, int]] = {}
    depth = 0
    key: str | None = None
    expect_key = False
    value_start = -1
    for m in _TOKEN.finditer(text):
        tok = m.group()
        c = tok[0]
        if c == '"':
            if depth == 1 and expect_key:
                key = tok[1:-1] if "\\" not in tok else json.loads(tok)
                expect_key = False
        elif c in "{[":
            depth += 1
            if depth == 1:
                expect_key = True
        elif c in "}]":
            depth -= 1
            if depth == 0:
                if key is not None and value_start >= 0:
                    out[key] = (value_start, _value_end(text, value_start, m.start()))
                break
        elif c == ":" and depth == 1:
            value_start = _skip_ws(text, m.end())
        elif c == "," and depth == 1:
            if key is not None and value_start >= 0:
                out[key] = (value_start, _value_end(text, value_start, m.start()))
            key, value_start, expect_key = None, -1, True
    return out


_BLANK = re.compile(r"[ \t\r\n]*")


def _skip_ws(text: str, pos: int) -> int:
    return _BLANK.match(text, pos).end()  # type: ignore[union-attr]


def _value_end(text: str, start: int, stop: int) -> int:
    """End of the value that starts at `start` and runs up to the delimiter at `stop`."""
    end = stop
    while end > start and text[end - 1] in " \t\r\n":
        end -= 1
    return end


class Record:
    """One JSON object read from a file: its data, its line and how to locate its values.

    A JSONL record keeps its line's text and builds its locator only when a position is
    asked for (most records on the hot path never are)."""

    __slots__ = ("_locator", "_text", "data", "index", "line", "path", "prefix")

    def __init__(
        self,
        data: dict[str, Any],
        line: int,
        index: int,
        locator: DocLocator | None = None,
        prefix: JsonPath = (),  # path of this object inside its document (reports)
        path: str = "",
        text: str = "",
    ) -> None:
        self.data = data
        self.line = line
        self.index = index
        self.prefix = prefix
        self._locator = locator
        self.path = locator.path if locator is not None else path
        self._text = text

    @property
    def text(self) -> str:
        """The JSON text of this record (a JSONL line; a report entry's whole document)."""
        return self._text if self._locator is None else self._locator.text

    @property
    def locator(self) -> DocLocator:
        if self._locator is None:
            self._locator = DocLocator(self.path, self._text, self.line)
        return self._locator

    def location(self, *path: str | int, inner: tuple[int, int] | None = None) -> Location:
        return self.locator.location((*self.prefix, *path), inner)

    def span_locations(self, path: JsonPath, spans: Sequence[tuple[int, int]]) -> list[Location]:
        """The decoded-string ranges `spans` of the value at `path` (as `location(..., inner=)`)."""
        return self.locator.span_locations((*self.prefix, *path), spans)

    def key_location(self, *path: str | int) -> Location:
        return self.locator.key_location((*self.prefix, *path))

    def top_string(self, member: str) -> tuple[int, str] | None:
        """(offset in the line, raw token with its quotes) of a top-level string member of a
        one-line record (a JSONL line's, as `location(member)` finds it), else None. A record not
        yet located is searched once without building its locator (a failing case asks only this)."""
        if self.prefix:
            return None
        if self._locator is not None:  # its positions are the record's own (`_shifted` puts them at self.line)
            locator = self._locator
            return locator.top_string(member) if locator.first_line == self.line and locator.path == self.path else None
        text = self._text
        if "\n" in text:
            return None
        if "\\" not in text and member in self.data:
            # Without a backslash every quote delimits a string and the member's key is spelled
            # plainly: a `"member"` found once is the top-level key, its string value the next
            # token (C string searches, not member_range's regex walk of the members before it).
            quoted = f'"{member}"'
            at = text.find(quoted) + len(quoted)
            if text.find(quoted, at) < 0:
                start = at + 2 if text.startswith(': "', at) else _COLON.match(text, at).end()  # type: ignore[union-attr]
                if text[start : start + 1] != '"':
                    return None
                return start, text[start : text.find('"', start + 1) + 1]
        found = member_range(text, member)
        if found is None or text[found[0]] != '"':
            return None
        start, end = found
        return start, text[start:end]

    def surface_at(self, member: str, start: int, end: int) -> None:
        """Tell a locator not yet built that `member`'s value is at [start, end) (`top_string`
        found it), so locating it does not search again."""
        if self._locator is None and not self.prefix:
            self.locator.first_member(member, (start, end))

    def whole(self) -> Location:
        if self.prefix:
            return self.locator.location(self.prefix)
        return self.locator.whole()

    def string(self, *path: str | int) -> StringSpan | None:
        return self.locator.string((*self.prefix, *path))


@dataclass(slots=True)
class ReadStats:
    lines: int = 0
    records: int = 0
    errors: int = 0
    blank: int = 0
    skipped: int = 0  # lines read but holding nothing to lint (telemetry without a surface)
    # Each line is counted once: lines == records + errors + blank + skipped (for JSONL).

    def add(self, other: ReadStats) -> None:
        self.lines += other.lines
        self.records += other.records
        self.errors += other.errors
        self.blank += other.blank
        self.skipped += other.skipped

    def describe(self) -> str:
        return (
            f"{self.lines} lines read: {self.records} records, {self.errors} errors, "
            f"{self.blank} blank, {self.skipped} skipped"
        )


@dataclass(frozen=True, slots=True)
class NumberedLines:
    """Lines of a document read elsewhere (an editor's buffer), for `JsonlReader.records`: each
    (1-based line number, its text without its line end), numbers increasing. Their context is
    their numbers: only line 1 is a file's start (where a byte-order mark is read and the bytes
    may say UTF-16); a line's text is JSON as it stands (a CR in it is JSON whitespace, not a
    line end: the caller, who split the document, knows its line ends)."""

    lines: Sequence[tuple[int, str]]


@dataclass(slots=True)
class _CrlfCount:
    lines: int = 0
    first: int = 0


def crlf_notice(path: str, first: int, count: int) -> Finding:
    """The file-level SL009 notice of `count` CRLF line ends, at the first (the reader's, and the
    editor's, which counts its document's line ends itself)."""
    return check_finding(C.ENCODING_NOTICE, Location(path, first, 1, first, 1),
                         f"CRLF line endings on {count} line(s) (read as LF)")


@dataclass(slots=True)
class JsonlReader:
    """Streams a JSONL byte source into Records, turning every bad line into a Finding."""

    path: str
    max_line_bytes: int = DEFAULT_MAX_LINE_BYTES
    max_depth: int = 200
    stats: ReadStats = field(default_factory=ReadStats)
    findings: list[Finding] = field(default_factory=list)
    # Records yielded so far: each one's index (stable even when a record is later skipped).
    yielded: int = field(default=0, init=False, repr=False)

    def skip(self) -> None:
        """The last record holds nothing to lint: count its line as skipped, not as a record."""
        self.stats.records -= 1
        self.stats.skipped += 1

    def records(self, source: IO[bytes] | NumberedLines) -> Iterator[Record]:
        """The records of a byte stream (a whole file: its first bytes say its encoding, its
        lines end at `\\n`), or of `NumberedLines` (lines of a document read elsewhere, each
        with its number, without its line end)."""
        if isinstance(source, NumberedLines):
            yield from self._numbered(source)
            return
        encoding, lines = open_lines(source, self.max_line_bytes)
        if encoding.refused:
            self._refuse(encoding, lines)
            return
        if encoding.transcoded:
            self.findings.append(check_finding(
                C.ENCODING_NOTICE, Location(self.path, 1, 1, 1, 1),
                f"file is {encoding.label} (byte-order mark); read as {encoding.label}, "
                "but JSON Lines files should be UTF-8"))
        crlf = _CrlfCount()
        yield from self._read(lines, encoding, crlf)
        if crlf.lines:
            self.findings.append(crlf_notice(self.path, crlf.first, crlf.lines))

    def _numbered(self, source: NumberedLines) -> Iterator[Record]:
        """`NumberedLines`: only a first line numbered 1 is a file's start (a byte-order mark,
        a UTF-16 guess from its bytes); no line end to strip, so no CRLF to count."""
        limit = self.max_line_bytes
        lines: list[tuple[int, bytes | None]] = []
        for number, text in source.lines:
            raw = text.encode("utf-8", "surrogatepass")
            if number == 1:
                encoding = detect_encoding((raw + b"\n")[:8])
                if encoding.refused:  # as a file of this one line would be: refused, counted an error
                    self._refuse(encoding, iter(((1, None),)))
                    continue
            lines.append((number, raw if len(raw) <= limit else None))
        yield from self._read(iter(lines), UTF8, None)

    def _read(self, lines: Iterator[tuple[int, bytes | None]], encoding: Encoding,
              crlf: _CrlfCount | None) -> Iterator[Record]:
        """Numbered lines -> records. `crlf`: the lines still end with `\\n` (a stream's), and
        their CRLF endings are counted there; None: the lines come without their line ends."""
        stats = self.stats
        path = self.path
        for number, raw in lines:
            if number == 1 and raw == UTF8_BOM and crlf is not None:  # a file that is only a byte-order mark has no line
                self.findings.append(check_finding(C.ENCODING_NOTICE, Location(self.path, 1, 1, 1, 1),
                                                   "file starts with a UTF-8 byte-order mark (ignored)"))
                break
            stats.lines += 1
            if raw is None:
                stats.errors += 1
                self.findings.append(
                    check_finding(
                        C.LINE_TOO_LONG,
                        Location(self.path, number, 1, number, 1),
                        f"line is longer than {self.max_line_bytes} bytes; skipped",
                    )
                )
                continue
            if crlf is not None:
                if raw.endswith(b"\n"):
                    raw = raw[:-1]
                if raw.endswith(b"\r"):
                    raw = raw[:-1]
                    crlf.lines += 1
                    crlf.first = crlf.first or number
            if number == 1 and raw.startswith(UTF8_BOM):
                raw = raw[3:]
                self.findings.append(
                    check_finding(
                        C.ENCODING_NOTICE,
                        Location(self.path, 1, 1, 1, 1),
                        "file starts with a UTF-8 byte-order mark (ignored)",
                    )
                )
            try:
                text = raw.decode("utf-8")
            except UnicodeDecodeError as exc:
                stats.errors += 1
                col = len(raw[: exc.start].decode("utf-8", "replace")) + 1
                self.findings.append(
                    check_finding(
                        C.INVALID_UTF8,
                        Location(self.path, number, col, number, col + 1),
                        f"invalid {encoding.label} data (an unpaired surrogate or a cut-off character); line skipped"
                        if encoding.transcoded else f"invalid UTF-8 byte 0x{raw[exc.start]:02x}; line skipped",
                    )
                )
                continue
            if text[:1] != "{" and not text.strip(" \t\r\n"):  # a record line starts with `{`: no copy
                stats.blank += 1
                continue
            try:
                # json.loads's value (msgspec reads the bytes where installed; what it reads holds
                # no lone surrogate escape, so only the other lines are scanned for one below).
                data, clean = decode(text, raw)
            except (json.JSONDecodeError, RecursionError):
                data, clean = None, False
            if type(data) is not dict:
                data = self._parse(text, number)  # the finding for a line that is not an object
                if data is None:
                    continue
            stats.records += 1
            self.yielded += 1
            record = Record(data, number, self.yielded - 1, None, (), path, text)
            if not clean and _surrogate_escape(text):  # one scan: faster than a substring prefilter
                self.findings.extend(surrogate_findings(record, repair_surrogates(data)))
            yield record

    def _refuse(self, encoding: Encoding, lines: Iterator[tuple[int, bytes | None]]) -> None:
        """A UTF-16/32 file without a byte-order mark: one finding, every line an error."""
        for _ in lines:
            self.stats.lines += 1
            self.stats.errors += 1
        self.findings.append(check_finding(
            C.INVALID_UTF8, Location(self.path, 1, 1, 1, 1), refused_message(encoding)))

    def _parse(self, text: str, number: int) -> dict[str, Any] | None:
        try:
            data = loads(text)
        except json.JSONDecodeError as exc:
            self._error(number, exc.colno, f"invalid JSON: {exc.msg}", 1, len(text))
            return None
        except RecursionError:
            self._error(number, 1, "invalid JSON: nesting too deep to read", 1, len(text))
            return None
        if not isinstance(data, dict):
            self._error(number, 1, f"expected a JSON object, found {_json_type(data)}", len(text), len(text))
            return None
        return data

    def _error(self, number: int, col: int, message: str, width: int, line_length: int) -> None:
        self.stats.errors += 1
        # An error at the end of the line (`Expecting value` after `{`) is an empty range there.
        end = min(col + width, line_length + 1)
        self.findings.append(
            check_finding(C.INVALID_JSON, Location(self.path, number, min(col, end), number, end), message)
        )


def _json_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, float) and not math.isfinite(value):
        return "NaN" if math.isnan(value) else "a number out of range (infinite)"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "an array"
    return "an object"


def json_type(value: Any) -> str:
    return _json_type(value)


def refused_message(encoding: Encoding) -> str:
    return (f"file looks {encoding.label} encoded without a byte-order mark (NUL bytes among its first "
            "characters); nothing read: save it as UTF-8")


def decode_document(raw: bytes, path: str) -> tuple[str | None, list[Finding]]:
    """Decode a whole JSON document's bytes (BOM tolerated) or say where it is broken."""
    findings: list[Finding] = []
    encoding = detect_encoding(raw[:8])
    if encoding.refused:
        return None, [check_finding(C.INVALID_UTF8, Location(path, 1, 1, 1, 1), refused_message(encoding))]
    if encoding.transcoded:
        findings.append(check_finding(
            C.ENCODING_NOTICE, Location(path, 1, 1, 1, 1),
            f"file is {encoding.label} (byte-order mark); read as {encoding.label}, but JSON files should be UTF-8"))
        try:
            return decode_text(raw, encoding), findings
        except UnicodeDecodeError as exc:
            good = raw[encoding.bom : exc.start].decode(encoding.codec, "replace")
            line = good.count("\n") + 1
            col = len(good) - (good.rfind("\n") + 1) + 1
            findings.append(check_finding(
                C.INVALID_UTF8, Location(path, line, col, line, col + 1), f"invalid {encoding.label} data: {exc.reason}"))
            return None, findings
    if raw.startswith(UTF8_BOM):
        raw = raw[3:]
        findings.append(
            check_finding(C.ENCODING_NOTICE, Location(path, 1, 1, 1, 1), "file starts with a UTF-8 byte-order mark (ignored)")
        )
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        line_start = raw.rfind(b"\n", 0, exc.start) + 1
        col = len(raw[line_start : exc.start].decode("utf-8", "replace")) + 1
        findings.append(
            check_finding(C.INVALID_UTF8, Location(path, line, col, line, col + 1), f"invalid UTF-8 byte 0x{raw[exc.start]:02x}")
        )
        return None, findings
    return text, findings


_LONE_SURROGATE = re.compile("[\ud800-\udfff]")
# The only way a surrogate gets into a string json.loads returns (strict UTF-8 has none).
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")
_surrogate_escape = _SURROGATE_ESCAPE.search
REPLACEMENT = "\ufffd"


def has_surrogate_escape(text: str) -> bool:
    """Whether a JSON text may hold an unpaired surrogate (a `\\uD800`-`\\uDFFF` escape)."""
    return _SURROGATE_ESCAPE.search(text) is not None


def repair_surrogates(value: Any) -> list[tuple[JsonPath, int, bool]]:
    """Replace every unpaired surrogate (a `\\ud83d` escape alone) in the strings and keys of a
    parsed JSON value by U+FFFD, in place; where each was: (source path, index in the string,
    whether in a key). Paths keep the keys as the source spells them (for positions).

    One character for one: every other offset in the string stays where it was, so positions
    inside it still map to the source. Iterative, for values nested any depth."""
    found: list[tuple[JsonPath, int, bool]] = []
    stack: list[tuple[JsonPath, Any]] = [((), value)]
    search = _LONE_SURROGATE.search
    while stack:
        path, node = stack.pop()
        if isinstance(node, dict):
            for key in list(node):
                item = node[key]
                source_key = key
                if search(key):
                    found.extend(((*path, key), m.start(), True) for m in _LONE_SURROGATE.finditer(key))
                    del node[key]
                    key = _LONE_SURROGATE.sub(REPLACEMENT, key)
                    node[key] = item
                if isinstance(item, str):
                    if search(item):
                        found.extend(((*path, source_key), m.start(), False) for m in _LONE_SURROGATE.finditer(item))
                        node[key] = _LONE_SURROGATE.sub(REPLACEMENT, item)
                elif isinstance(item, (dict, list)):
                    stack.append(((*path, source_key), item))
        elif isinstance(node, list):
            for i, item in enumerate(node):
                if isinstance(item, str):
                    if search(item):
                        found.extend(((*path, i), m.start(), False) for m in _LONE_SURROGATE.finditer(item))
                        node[i] = _LONE_SURROGATE.sub(REPLACEMENT, item)
                elif isinstance(item, (dict, list)):
                    stack.append(((*path, i), item))
    return found


def surrogate_findings(record: Record, found: list[tuple[JsonPath, int, bool]],
                       prefix: JsonPath = ()) -> list[Finding]:
    """SL016 for each unpaired surrogate `repair_surrogates` replaced, at its escape."""
    out = []
    case_id = record.data.get("case_id", record.data.get("id"))
    shown = case_id if isinstance(case_id, str) else None
    for path, index, in_key in found:
        rel = path[len(prefix):] if prefix and path[: len(prefix)] == prefix else path
        if in_key:
            where = record.key_location(*rel)
            what = f"the key `{_LONE_SURROGATE.sub(REPLACEMENT, str(rel[-1]))}`"
        else:
            where = record.location(*rel, inner=(index, index + 1))
            what = f"`{_dotted(rel)}`" if rel else "the value"
        out.append(check_finding(
            C.UNPAIRED_SURROGATE, where,
            f"unpaired UTF-16 surrogate in {what} (half of a character); read as U+FFFD",
            shown, record_index=record.index))
    return out


def _dotted(path: JsonPath) -> str:
    text = "".join(f"[{p}]" if isinstance(p, int) else (f".{p}" if i else p) for i, p in enumerate(path))
    return _LONE_SURROGATE.sub(REPLACEMENT, text)
