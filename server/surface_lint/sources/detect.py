"""What a file holds (cases, turns, a lane report, telemetry), from the records that parse.

Never from line 1 alone: a first line that does not parse (garbage, a truncated record,
a line over the size limit) is passed over and the next records decide. A first line
that is the unfinished start of a JSON value (`{` alone, `{"lane": "x",`) means a
multi-line (pretty-printed) document: it is parsed whole.
"""

from __future__ import annotations

import io
import json
from collections.abc import Callable, Iterator
from typing import IO, Any

from ..model.jsonread import loads
from .lines import UTF8_BOM, decode_text, detect_encoding, open_lines

# Non-blank lines looked at for a record that tells the kind; past them the kind stays
# unknown (read as turns, every line still read and counted).
PROBE_LINES = 1000
_PROBE_LINE_BYTES = 32 * 1024 * 1024


def detect_kind(first_line: str | None, whole: Any = None) -> str | None:
    """The kind one JSON object (or the object on `first_line`) belongs to."""
    obj = whole
    if obj is None and first_line is not None:
        try:
            obj = json.loads(first_line)
        except (ValueError, RecursionError):
            return None
    if not isinstance(obj, dict):
        return None
    if "cases" in obj or "case_details" in obj or ("metrics" in obj and "lane" in obj):
        return "report"
    if "case_id" in obj:
        return "turns"
    if "turn" in obj or obj.get("type") == "reboot" or "walk_surface" in obj:
        return "telemetry"
    if "id" in obj:
        return "cases"
    if "surface" in obj:
        return "turns"
    return None


def _parse_line(raw: bytes) -> tuple[Any, bool]:
    """(the line's JSON value or None, whether it stopped only for want of more text)."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        return None, False
    try:
        return loads(text), False
    except json.JSONDecodeError as exc:  # the text ran out (inside a string, too)
        return None, exc.pos >= len(text.rstrip()) or exc.msg.startswith("Unterminated string")
    except RecursionError:  # too deep to tell where it ends: the whole document decides
        return None, True


def _probed(lines: Iterator[tuple[int, bytes | None]]) -> Iterator[tuple[bytes, bytes] | None]:
    """(line without line 1's BOM, stripped) of the first PROBE_LINES lines that are not blank;
    None for a line over the limit (no record to look at; it does not count)."""
    probed = 0
    for number, raw in lines:
        if raw is None:
            yield None
            continue
        if number == 1 and raw.startswith(UTF8_BOM):
            raw = raw[3:]
        stripped = raw.strip(b" \t\r\n")
        if not stripped:
            continue
        probed += 1
        if probed > PROBE_LINES:
            return
        yield raw, stripped


def _decide(lines: Iterator[tuple[int, bytes | None]], whole: Callable[[], Any]) -> tuple[str | None, Any]:
    first: bytes | None = None
    unfinished = False
    for line in _probed(lines):
        if line is None:
            first = first if first is not None else b"\0"
            continue
        raw, stripped = line
        obj, stopped_at_end = _parse_line(stripped)
        if first is None:
            first = stripped
            if isinstance(obj, dict):
                kind = detect_kind(None, obj)
                if kind is not None:  # a report on one line is the whole document
                    return kind, obj if kind == "report" else None
                continue
            if stopped_at_end:
                unfinished = True
                doc = whole()
                if isinstance(doc, dict):
                    return detect_kind(None, doc) or "report", doc
            continue
        # Later lines decide only when they start a record at column 1: the indented lines
        # of a broken pretty-printed report are not records.
        if isinstance(obj, dict) and raw[:1] == b"{":
            kind = detect_kind(None, obj)
            if kind is not None:
                return kind, None
    if unfinished and first is not None and first.startswith(b"{"):
        return "report", None  # a broken multi-line document: read whole, its error positioned
    return None, None


def _whole_of(data: bytes) -> Any:
    try:
        return loads(decode_text(data, detect_encoding(data[:8])).lstrip("\ufeff"))
    except (ValueError, RecursionError):
        return None


def sniff(data: bytes) -> tuple[str | None, Any]:
    """(kind, the parsed whole document when it was parsed whole) of a file's bytes."""
    encoding, lines = open_lines(io.BytesIO(data), _PROBE_LINE_BYTES)
    if encoding.refused:  # nothing in it is read: the line reader says so, counting its lines
        return None, None
    return _decide(lines, lambda: _whole_of(data))


def sniff_stream(stream: IO[bytes]) -> str | None:
    """The kind of a seekable byte stream, read from its current position, which is restored.
    Only a multi-line document is read whole."""
    start = stream.tell()
    try:
        encoding, lines = open_lines(stream, _PROBE_LINE_BYTES)
        if encoding.refused:
            return None

        def whole() -> Any:
            here = stream.tell()  # the line reader goes on from here afterwards
            stream.seek(start)
            try:
                return _whole_of(stream.read())
            finally:
                stream.seek(here)

        return _decide(lines, whole)[0]
    finally:
        stream.seek(start)


def first_record(data: bytes) -> dict[str, Any] | None:
    """The first line of a JSONL text that parses as an object (for guessing the lane)."""
    encoding, lines = open_lines(io.BytesIO(data), _PROBE_LINE_BYTES)
    if encoding.refused:
        return None
    for line in _probed(lines):
        if line is not None:
            obj, _ = _parse_line(line[1])
            if isinstance(obj, dict):
                return obj
    return None
