"""Engine Locations -> LSP ranges in the negotiated encoding, as plain JSON (no lsprotocol: the
first lint of a cold open builds its diagnostics with these before pygls is imported, `first.py`;
the typed ranges the features return are `features.common.Positions`)."""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

from ..model.findings import Location, Severity
from .documents import LineMap, path_to_uri
from .lint import LintResult

SOURCE = "surface-lint"
LSP_SEVERITY = {Severity.ERROR: 1, Severity.WARNING: 2, Severity.INFORMATION: 3, Severity.HINT: 4}

JsonRange = dict[str, dict[str, int]]


def lsp_range(start_line: int, start_char: int, end_line: int, end_char: int) -> JsonRange:
    return {"start": {"line": start_line, "character": start_char},
            "end": {"line": end_line, "character": end_char}}


class Positions:
    """Engine Locations (1-based, code points) -> LSP ranges in the negotiated encoding."""

    def __init__(self, encoding: str, lines_of: Callable[[str], LineMap]) -> None:
        self.encoding = encoding
        self.lines_of = lines_of  # other files' lines (as saved on disk)

    def range(self, loc: Location, result: LintResult | None) -> JsonRange:
        if result is not None and loc.path == result.path:
            lines = result.linemap
            bom = bool(result.lines) and result.lines[0].startswith("\ufeff")
        else:
            lines = self.lines_of(loc.path)
            bom = False
        return lsp_range(*self.point(lines, loc.line, loc.column, bom),
                         *self.point(lines, loc.end_line, loc.end_column, bom))

    def point(self, lines: LineMap, line: int, column: int, bom: bool = False) -> tuple[int, int]:
        """1-based engine (line, column) -> 0-based client (line, units); past the end: the end."""
        index = line - 1
        if index >= len(lines.lines):
            return lines.to_client(len(lines.lines) - 1, sys.maxsize, self.encoding)
        col = column - 1 + (1 if bom and index == 0 else 0)  # the engine read line 1 without its BOM
        return lines.to_client(index, col, self.encoding)

    def location(self, loc: Location, result: LintResult | None) -> dict[str, Any]:
        return {"uri": path_to_uri(loc.path) if result is None or loc.path != result.path else result.uri,
                "range": self.range(loc, result)}
