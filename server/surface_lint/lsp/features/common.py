"""What every feature shares: LSP ranges in the negotiated encoding, markup, constants."""

from __future__ import annotations

import os
import re

from lsprotocol import types

from ...model.findings import Location
from ..lint import LintResult
from ..positions import LSP_SEVERITY as LSP_SEVERITY
from ..positions import SOURCE as SOURCE
from ..positions import JsonRange as JsonRange
from ..positions import Positions as JsonPositions
from ..positions import lsp_range as lsp_range
from ..wire import RequestFailed
from ..workspace import ServerState

MAX_FEATURE_LINE = 1_000_000  # hover/completion look no further into longer lines


class Positions(JsonPositions):
    """The server's positions: the JSON ranges, and the typed ones the features return."""

    def typed_range(self, loc: Location, result: LintResult | None) -> types.Range:
        return to_range(self.range(loc, result))

    def typed_location(self, loc: Location, result: LintResult | None) -> types.Location:
        return types.Location(uri=self.location(loc, result)["uri"], range=self.typed_range(loc, result))


def require_readable(state: ServerState, path: str, text_given: bool = False) -> None:
    """A file a request names by URI: refused with an LSP error (RequestFailed) unless it is an
    open document or under a workspace folder. A URI that is not a file, sent with its text,
    reads nothing from disk and is served."""
    if text_given and not os.path.isabs(path):
        return
    refusal = state.refusal(path)
    if refusal is not None:
        raise RequestFailed(refusal)


_INLINE_MARKUP = re.compile(r"([\\`*_\[\]<>&!~|])")  # what starts inline Markdown or HTML mid-line
_BACKTICKS = re.compile(r"`+")
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")


def md_text(text: str) -> str:
    """Data as literal Markdown text in the middle of a line: every character that could start
    inline markup (HTML, entity, link, emphasis, code) backslash-escaped; line ends become spaces."""
    return _INLINE_MARKUP.sub(r"\\\1", " ".join(text.splitlines()))


def md_message(text: str) -> str:
    """A message quoting data in code spans: the spans that CommonMark would parse are kept
    (their content is literal), everything around them is `md_text`."""
    flat = " ".join(text.splitlines())
    return "".join(part if is_code else md_text(part) for is_code, part in _code_spans(flat))


def md_code(text: str) -> str:
    """Data as one Markdown code span (its content is literal): the fence is longer than any
    run of backticks inside, and spaces pad content that starts or ends with one."""
    flat = " ".join(text.splitlines())
    longest = max((len(m.group()) for m in _BACKTICKS.finditer(flat)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if flat.startswith(("`", " ")) or flat.endswith(("`", " ")) or not flat else ""
    return f"{fence}{pad}{flat}{pad}{fence}"


def no_html(markdown: str) -> str:
    """Authored Markdown (rule docs) with any raw HTML shown as text: "<" outside code spans and
    fenced blocks becomes "&lt;" (CommonMark: an entity is text, never a tag)."""
    out: list[str] = []
    fence: str | None = None
    for line in markdown.split("\n"):
        opened = _FENCE.match(line)
        if fence is not None:
            if opened and opened.group(1)[0] == fence[0] and len(opened.group(1)) >= len(fence):
                fence = None
            out.append(line)
            continue
        if opened:
            fence = opened.group(1)
            out.append(line)
            continue
        out.append(_escape_outside_code(line))
    return "\n".join(out)


def _escape_outside_code(line: str) -> str:
    return "".join(part if is_code else part.replace("<", "&lt;") for is_code, part in _code_spans(line))


def _code_spans(line: str) -> list[tuple[bool, str]]:
    """A line cut into (is a code span, text), as CommonMark finds spans: a backtick run opens one
    that the next run of the same length closes; a run with no such closer is literal."""
    parts: list[tuple[bool, str]] = []
    at = 0
    for run in _BACKTICKS.finditer(line):
        if run.start() < at:
            continue
        close = re.compile(r"(?<!`)" + run.group() + r"(?!`)").search(line, run.end())
        if close is None:
            continue
        parts.append((False, line[at:run.start()]))
        parts.append((True, line[run.start():close.end()]))
        at = close.end()
    parts.append((False, line[at:]))
    return [p for p in parts if p[1]]


def to_range(r: JsonRange) -> types.Range:
    return types.Range(start=types.Position(line=r["start"]["line"], character=r["start"]["character"]),
                       end=types.Position(line=r["end"]["line"], character=r["end"]["character"]))


def markup_content(text: str, markdown: bool) -> types.MarkupContent:
    return types.MarkupContent(kind=types.MarkupKind.Markdown if markdown else types.MarkupKind.PlainText, value=text)

def contains(loc: Location, line: int, column: int) -> bool:
    """Is 1-based (line, column) inside `loc` (its end column included: the cursor after the text)?"""
    if not loc.line <= line <= loc.end_line:
        return False
    if line == loc.line and column < loc.column:
        return False
    return not (line == loc.end_line and column > loc.end_column)
