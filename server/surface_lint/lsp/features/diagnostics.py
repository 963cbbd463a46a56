"""Diagnostics: the pull handlers (textDocument/diagnostic, workspace/diagnostic), built by
`diagnostic_json.DiagnosticBuilder` as the scheduler's push diagnostics are."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Mapping
from pathlib import Path

from lsprotocol import types

from ..diagnostic_json import error_diagnostic, full_report, items_json, result_id
from ..documents import Snapshot, TextDoc, path_to_uri
from ..host import Host
from ..wire import RawResult


def register(server: Host) -> None:
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
        first = server.first_reports.get(uri)  # first.py answered this document's first pull
        if params.previous_result_id == result_id(result) or (
                first is not None and params.previous_result_id == first[0]
                and json.loads(items_json(items)) == first[1]):
            return RawResult(json.dumps({"kind": "unchanged", "resultId": params.previous_result_id}))
        return RawResult(full_report(result, items))

    @server.handle(types.WORKSPACE_DIAGNOSTIC)
    async def on_workspace_diagnostic(params: types.WorkspaceDiagnosticParams) -> RawResult:
        """Every case file under the workspace roots that is not open (open ones are pulled)."""
        previous = {p.uri: p.value for p in params.previous_result_ids or []}
        loop = asyncio.get_running_loop()
        reports = await loop.run_in_executor(server.scheduler.pool, _workspace_reports, server, previous)
        return RawResult('{"items":[' + ",".join(reports) + "]}")


def _workspace_reports(server: Host, previous: Mapping[str, str]) -> list[str]:
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
