"""Diagnostics: findings -> LSP Diagnostic JSON (the hot path: pre-serialised, cached per
finding) and the pull handlers (textDocument/diagnostic, workspace/diagnostic).

Push diagnostics are sent by the scheduler when a lint finishes; they use the same builder.

Plain JSON, not typed lsprotocol objects, on this measured hot path (bench transcript, 4,041
diagnostics, CPU): built once 56 ms, then 0.9 ms per publish from the cache; typed, each publish
would unstructure and dump them again, 46 ms (more than a whole edit's p95, about 20 ms).
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lsprotocol import types
from lsprotocol.converters import get_converter

from ...checks import CHECKS
from ...docs import check_url, rule_url
from ...findings import Finding
from ..documents import Bare, Snapshot, TextDoc, path_to_uri
from ..lint import LintResult
from ..wire import RawResult
from ..workspace import EngineEntry
from .common import LSP_SEVERITY, SOURCE, JsonRange, Positions, lsp_range

if TYPE_CHECKING:
    from ..server import SurfaceLintServer

_COMPACT = (",", ":")
_CONVERTER = get_converter()


def register(server: SurfaceLintServer) -> None:
    @server.handle(types.TEXT_DOCUMENT_DIAGNOSTIC, types.DiagnosticOptions(
        identifier="surface-lint", inter_file_dependencies=True, workspace_diagnostics=True))
    async def on_document_diagnostic(params: types.DocumentDiagnosticParams) -> RawResult:
        uri = params.text_document.uri
        run = server.scheduler.runs.get(uri)
        doc = server.state.docs.get(uri)
        if run is None or doc is None:
            return RawResult('{"kind":"full","items":[]}')
        if server.scheduler.should_show(doc, doc.version):
            await server.current_result(uri)
        shown = run.shown
        if shown is None:
            await server.current_result(uri)
            shown = (run.result, run.items) if run.result is not None else None
        if shown is None:
            return RawResult('{"kind":"full","items":[]}')
        result, items = shown
        result_id = f"{result.generation}:{result.version}:{id(result)}"
        if params.previous_result_id == result_id:
            return RawResult(json.dumps({"kind": "unchanged", "resultId": result_id}))
        return RawResult('{"kind":"full","resultId":' + json.dumps(result_id) + ',"items":' + items_json(items) + "}")

    @server.handle(types.WORKSPACE_DIAGNOSTIC)
    async def on_workspace_diagnostic(params: types.WorkspaceDiagnosticParams) -> RawResult:
        """Every case file under the workspace roots that is not open (open ones are pulled)."""
        previous = {p.uri: p.value for p in params.previous_result_ids or []}
        loop = asyncio.get_running_loop()
        reports = await loop.run_in_executor(server.scheduler.pool, _workspace_reports, server, previous)
        return RawResult('{"items":[' + ",".join(reports) + "]}")


def _workspace_reports(server: SurfaceLintServer, previous: Mapping[str, str]) -> list[str]:
    out: list[str] = []
    state = server.state
    open_paths = {d.path for d in list(state.docs.values())}
    for root in state.roots:
        entry = state.engine_for(str(root / "_"))
        for path in state.all_case_files(entry, root)[:1000]:
            if path in open_paths:
                continue
            uri = path_to_uri(path)
            try:
                data = Path(path).read_bytes()
            except OSError:
                continue
            result_id = f"{state.generation}:{hash(data)}"
            if previous.get(uri) == result_id:
                out.append(json.dumps({"kind": "unchanged", "uri": uri, "resultId": result_id, "version": None}))
                continue
            doc = TextDoc(uri, data.decode("utf-8", "replace"), None)
            result = state.lint(Snapshot.of(doc))
            state.memos.pop(uri, None)
            extra = [error_diagnostic(result.error)] if result.error else []
            items = server.diagnostic_builder().json_items(result, extra)
            out.append('{"kind":"full","uri":' + json.dumps(uri) + ',"version":null,"resultId":'
                       + json.dumps(result_id) + ',"items":' + items_json(items) + "}")
    return out


def href(entry: EngineEntry | None, lane_name: str | None, f: Finding) -> str | None:
    """Where the finding's rule is documented: its lane file (predicates) or checks.py."""
    if entry is None:
        return None
    key = (lane_name or "", f.code)
    cached = entry.hrefs.get(key)
    if cached is not None:
        return cached
    url: str | None = None
    lane = entry.engine.lane_set.get(lane_name) if lane_name else None
    spec = lane.predicate(f.rule) if lane is not None else None
    if lane is not None and spec is not None and spec.code == f.code:
        url = rule_url(spec, lane)
    elif f.code in CHECKS:
        url = check_url(f.code)
    if url is not None:
        entry.hrefs[key] = url
    return url


class DiagnosticBuilder:
    """Findings -> LSP Diagnostic JSON, memoised per finding object of one document."""

    def __init__(self, positions: Positions, related: bool, code_description: bool = True,
                 data: bool = True) -> None:
        self.positions = positions
        self.related = related  # only what the client says it supports is sent
        self.code_description = code_description
        self.data = data
        self._cache: dict[int, tuple[Finding, str]] = {}
        self._bare: Bare = {}  # the bare CRs the cached ranges were computed with

    def diagnostic(self, f: Finding, result: LintResult) -> dict[str, Any]:
        pos = self.positions
        out: dict[str, Any] = {
            "range": pos.range(f.location, result),
            "severity": LSP_SEVERITY[f.severity],
            "code": f.code,
            "source": SOURCE,
            "message": f.message,
        }
        url = href(result.entry, result.lane, f) if self.code_description else None
        if url is not None:
            out["codeDescription"] = {"href": url}
        if self.related and f.related:
            out["relatedInformation"] = [
                {"location": pos.location(r.location, result), "message": r.message} for r in f.related
            ]
        data: dict[str, Any] = {}
        if f.fixes:
            data["fixes"] = [
                {"title": x.title, "range": pos.range(x.location, result), "newText": x.replacement}
                for x in f.fixes if x.location.path == result.path
            ]
        if f.record_index is not None:
            data["record"] = f.location.line - 1  # the line the record starts on (for "disable")
        if self.data and data:
            out["data"] = data
        return out

    def json_items(self, result: LintResult, extra: Iterable[dict[str, Any]] = (), keep: bool = False) -> list[str]:
        """Each finding's Diagnostic as JSON text (cached), plus any extra diagnostics.

        The cache is replaced by this result's findings, or only added to with `keep`
        (a partial result while a long lint runs)."""
        if result.bare != self._bare:  # client line numbers moved: no cached range holds
            self._cache = {}
            self._bare = dict(result.bare)
        cache = self._cache
        fresh: dict[int, tuple[Finding, str]] = cache if keep else {}
        items: list[str] = []
        for f in result.findings:
            hit = cache.get(id(f))
            if hit is None or hit[0] is not f:
                hit = (f, json.dumps(self.diagnostic(f, result), separators=_COMPACT))
            fresh[id(f)] = hit
            items.append(hit[1])
        self._cache = fresh
        items.extend(json.dumps(d, separators=_COMPACT) for d in extra)
        return items


def typed_diagnostic(diagnostic: Mapping[str, Any]) -> types.Diagnostic:
    """A Diagnostic built as JSON (the hot path) as the lsprotocol type (for typed results)."""
    found: types.Diagnostic = _CONVERTER.structure(diagnostic, types.Diagnostic)
    return found


def error_diagnostic(message: str, code: str | None = None, line: int = 0,
                     rng: JsonRange | None = None) -> dict[str, Any]:
    out: dict[str, Any] = {"range": rng or lsp_range(line, 0, line, 0), "severity": 1, "source": SOURCE,
                           "message": message}
    if code is not None:
        out["code"] = code
        if code in CHECKS:
            out["codeDescription"] = {"href": check_url(code)}
    return out


def items_json(items: Sequence[str]) -> str:
    return "[" + ",".join(items) + "]"
