"""The editor on the case-driven lanes of ../shared/corpus/lanes (issue 9, item 3): the same
engine as `surface-lint check` gives the diagnostics, hover and completion know the lanes'
fields (nested ones too) and predicates; and the trust notification as VS Code sends it."""

from __future__ import annotations

import asyncio
from pathlib import Path

from lsp_support import TRANSCRIPT, RecordingClient, capabilities, no_server_errors, open_file, published
from lsprotocol import types

E, W = types.DiagnosticSeverity.Error, types.DiagnosticSeverity.Warning


async def test_did_grant_trust_without_params_is_accepted(client: RecordingClient, workspace: Path) -> None:
    # VS Code sends `surfaceLint/didGrantTrust` with no `params` key at all (JSON-RPC 2.0 allows it);
    # pygls used to answer it with a "Error in server: Internal Error" message and drop it.
    (workspace / "surface-lint.toml").write_text('[severity]\nno_placeholder = "warning"\n', encoding="utf-8")
    await client.initialize_session(types.InitializeParams(
        capabilities=capabilities(configuration=False), root_uri=workspace.as_uri(),
        workspace_folders=[types.WorkspaceFolder(uri=workspace.as_uri(), name="ws")],
        initialization_options={"trusted": False}))
    uri = open_file(client, workspace / TRANSCRIPT)
    first = await published(client, uri, 1)
    assert [(d.range.start.line, d.code, d.severity) for d in first] == [(1, "SL103", E), (2, "SL101", E)]
    before = len(client.published)
    client.protocol._send_data({"jsonrpc": "2.0", "method": "surfaceLint/didGrantTrust"})
    newer: list[types.PublishDiagnosticsParams] = []
    for _ in range(1500):
        newer = [p for p in client.published[before:] if p.uri == uri]
        if newer:
            break
        await asyncio.sleep(0.02)
    # Trusted now: the workspace config makes SL101 (no_placeholder) a warning.
    assert [(d.range.start.line, d.code, d.severity) for d in newer[0].diagnostics] == \
        [(1, "SL103", E), (2, "SL101", W)]
    assert [m.message for m in client.messages] == []
    no_server_errors(client)
