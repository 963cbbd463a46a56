"""Document symbols (one per record) and go-to-definition (a turn's case id -> its case)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from lsprotocol import types

from ..host import Host
from ..lint import LintResult
from ..scheduler import gc_paused
from ..wire import RawResult
from .common import Positions, contains


def register(server: Host) -> None:

    # Raw JSON, not typed: a measured hot path (VS Code asks after every edit, one symbol a record;
    # 20,000 typed DocumentSymbols cost about twice the JSON, bench in notes/lsp.md).
    @server.handle(types.TEXT_DOCUMENT_DOCUMENT_SYMBOL)
    async def on_document_symbol(params: types.DocumentSymbolParams) -> RawResult | None:
        result = await server.current_result(params.text_document.uri)
        if result is None:
            return None
        with gc_paused():  # the first request locates every record: long-lived objects, as a lint makes
            return RawResult(json.dumps(document_symbols(result, server.positions())))

    @server.handle(types.TEXT_DOCUMENT_DEFINITION)
    async def on_definition(params: types.DefinitionParams) -> types.Location | None:
        at = await server.at(params.text_document.uri, params.position)
        if at is None:
            return None
        return definition(at[0], at[1], at[2], server.positions())


_SYMBOL_KIND = {"case": 19, "turn": 24, "report-case": 19}  # Object, Event


def document_symbols(result: LintResult, positions: Positions) -> list[dict[str, Any]]:
    out = []
    for record in result.records:
        rng = positions.range(record.location, result)
        sel = positions.range(record.id_location, result) if record.id_location is not None else rng
        if not (_le(rng["start"], sel["start"]) and _le(sel["end"], rng["end"])):
            sel = rng
        name = record.id or f"(no id, line {record.location.line})"
        out.append({"name": name, "detail": record.kind, "kind": _SYMBOL_KIND.get(record.kind, 19),
                    "range": rng, "selectionRange": sel})
    return out


def _le(a: Mapping[str, int], b: Mapping[str, int]) -> bool:
    return (a["line"], a["character"]) <= (b["line"], b["character"])


def definition(result: LintResult, line: int, column: int, positions: Positions) -> types.Location | None:
    """From a transcript's (or report's) case id to the case in the lane's case files."""
    for record in result.records_at(line + 1) if result.line_mode else result.records:
        if record.id_location is None or record.case_location is None:
            continue
        if contains(record.id_location, line + 1, column + 1):
            return positions.typed_location(record.case_location, None)
    return None
