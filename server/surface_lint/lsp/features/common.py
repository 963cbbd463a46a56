"""What every feature shares: LSP ranges in the negotiated encoding, markup, constants."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from ...findings import Location, Severity
from ..documents import path_to_uri, to_client_units
from ..lint import LintResult

SOURCE = "surface-lint"
LSP_SEVERITY = {Severity.ERROR: 1, Severity.WARNING: 2, Severity.INFORMATION: 3, Severity.HINT: 4}
MAX_FEATURE_LINE = 1_000_000  # hover/completion look no further into longer lines

JsonRange = dict[str, dict[str, int]]
def lsp_range(start_line: int, start_char: int, end_line: int, end_char: int) -> JsonRange:
    return {"start": {"line": start_line, "character": start_char},
            "end": {"line": end_line, "character": end_char}}


# --- positions ---------------------------------------------------------------------------------


class Positions:
    """Engine Locations (1-based, code points) -> LSP ranges in the negotiated encoding."""

    def __init__(self, encoding: str, lines_of: Callable[[str], Sequence[str]]) -> None:
        self.encoding = encoding
        self.lines_of = lines_of  # other files' lines (open buffer or disk)

    def range(self, loc: Location, result: LintResult | None) -> JsonRange:
        line_text: Callable[[int], str]
        if result is not None and loc.path == result.path:
            line_text = result.line
            count = len(result.lines)
            bom = bool(result.lines) and result.lines[0].startswith("\ufeff")
        else:
            other = self.lines_of(loc.path)
            count = len(other)

            def other_line(i: int) -> str:
                return other[i] if 0 <= i < len(other) else ""

            line_text = other_line
            bom = False
        return lsp_range(*self._point(loc.line, loc.column, line_text, count, bom),
                         *self._point(loc.end_line, loc.end_column, line_text, count, bom))

    def _point(self, line: int, column: int, line_text: Callable[[int], str], count: int,
               bom: bool) -> tuple[int, int]:
        index = line - 1
        if index >= count:  # past the end: the end of the last line
            index = max(count - 1, 0)
            text = line_text(index)
            return index, to_client_units(text, len(text), self.encoding)
        index = max(index, 0)
        text = line_text(index)
        col = column - 1 + (1 if bom and index == 0 else 0)  # the engine read line 1 without its BOM
        return index, to_client_units(text, min(max(col, 0), len(text)), self.encoding)

    def location(self, loc: Location, result: LintResult | None) -> dict[str, Any]:
        return {"uri": path_to_uri(loc.path) if result is None or loc.path != result.path else result.uri,
                "range": self.range(loc, result)}





def markup(text: str, markdown: bool) -> dict[str, str]:
    return {"kind": "markdown" if markdown else "plaintext", "value": text}


def contains(loc: Location, line: int, column: int) -> bool:
    """Is 1-based (line, column) inside `loc` (its end column included: the cursor after the text)?"""
    if not loc.line <= line <= loc.end_line:
        return False
    if line == loc.line and column < loc.column:
        return False
    return not (line == loc.end_line and column > loc.end_column)
