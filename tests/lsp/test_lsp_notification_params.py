"""Custom notifications check their params as requests do: a bad one is ignored (nothing changes)
and said to the client as a window/logMessage of type Error naming the bad field's path."""

from __future__ import annotations

import asyncio
import shutil
from pathlib import Path
from typing import Any

import pytest
from lsp_support import FIXTURES, TRANSCRIPT, RecordingClient, capabilities, change, open_file, published, rng, start
from lsprotocol import types

REVIEW_WS = FIXTURES.parent / "review" / "workspace"
SETTINGS = "surfaceLint/reviewSettings"
GRANT = "surfaceLint/didGrantTrust"


def _errors(client: RecordingClient) -> list[str]:
    return [m.message for m in client.log_messages if m.type == types.MessageType.Error]


async def _run_names(client: RecordingClient, root: Path) -> list[str]:
    uri = (root / "evals/deterministic_fluency/public/v1/cases.jsonl").as_uri()
    runs = await client.protocol.send_request_async("surfaceLint/runs", {"uri": uri})
    return [r["name"] for r in runs]


@pytest.mark.parametrize(("params", "problem"), [
    ({"transcripts": "runs"}, 'expected an array of strings, got "runs" @ $.params.transcripts'),
    ({"transcripts": ["runs/*.jsonl", 3]}, "expected a string, got 3 @ $.params.transcripts[1]"),
    ({"transcripts": [""]}, 'expected a non-empty string, got "" @ $.params.transcripts[0]'),
    ({"transcripts": None}, "expected an array of strings, got null @ $.params.transcripts"),
    ({}, "required field missing @ $.params.transcripts"),
    (None, "expected an object, got null @ $.params"),
    (["runs/*.jsonl"], "expected an object, got an array @ $.params"),
])
async def test_bad_review_settings_are_ignored_and_reported(client: RecordingClient, tmp_path: Path,
                                                            params: Any, problem: str) -> None:
    root = tmp_path / "ws"
    shutil.copytree(REVIEW_WS, root)
    await start(client, root)
    client.protocol.notify(SETTINGS, {"transcripts": ["runs/*.jsonl"]})
    assert await _run_names(client, root) == ["runs/run_c.jsonl"]
    client.protocol.notify(SETTINGS, params)
    assert await _run_names(client, root) == ["runs/run_c.jsonl"], "the globs before it stay"
    assert _errors(client) == [f"surface-lint: invalid params for {SETTINGS} (ignored): {problem}"]
    assert [m.message for m in client.log_messages if m.type == types.MessageType.Warning] == []


async def test_an_empty_glob_list_means_the_defaults(client: RecordingClient, tmp_path: Path) -> None:
    root = tmp_path / "ws"
    shutil.copytree(REVIEW_WS, root)
    await start(client, root)
    client.protocol.notify(SETTINGS, {"transcripts": ["runs/*.jsonl"]})
    assert await _run_names(client, root) == ["runs/run_c.jsonl"]
    client.protocol.notify(SETTINGS, {"transcripts": []})
    assert sorted(await _run_names(client, root)) == ["runs/run_c.jsonl", "transcripts/run_a.jsonl", "transcripts/run_b.jsonl"]
    assert _errors(client) == []


async def _severities_after_edit(client: RecordingClient, uri: str, before: int) -> list[tuple[int, Any, Any]]:
    for _ in range(1500):
        newer = [p for p in client.published[before:] if p.uri == uri]
        if newer:
            return [(d.range.start.line, d.code, d.severity) for d in newer[-1].diagnostics]
        await asyncio.sleep(0.02)
    raise AssertionError("no diagnostics published")


@pytest.mark.parametrize(("params", "problem"), [
    (5, "expected an object, got a number @ $.params"),
    ("yes", "expected an object, got a string @ $.params"),
    ([True], "expected an object, got an array @ $.params"),
])
async def test_a_trust_grant_with_bad_params_grants_nothing(client: RecordingClient, workspace: Path,
                                                            params: Any, problem: str) -> None:
    e, w = types.DiagnosticSeverity.Error, types.DiagnosticSeverity.Warning
    (workspace / "surface-lint.toml").write_text('[severity]\nno_placeholder = "warning"\n', encoding="utf-8")
    await client.initialize_session(types.InitializeParams(
        capabilities=capabilities(configuration=False), root_uri=workspace.as_uri(),
        workspace_folders=[types.WorkspaceFolder(uri=workspace.as_uri(), name="ws")],
        initialization_options={"trusted": False, "settings": {}}))
    uri = open_file(client, workspace / TRANSCRIPT)
    untrusted = [(1, "SL103", e), (2, "SL101", e)]
    assert [(d.range.start.line, d.code, d.severity) for d in await published(client, uri, 1)] == untrusted
    client.protocol.notify(GRANT, params)
    # An edit relints the document: still untrusted (the workspace config is not read).
    before = len(client.published)
    change(client, uri, [(rng(0, 0, 0, 0), "")])
    assert await _severities_after_edit(client, uri, before) == untrusted
    assert _errors(client) == [f"surface-lint: invalid params for {GRANT} (ignored): {problem}"]
    # The grant itself, without params (as VS Code sends it), or with an object, still works.
    before = len(client.published)
    client.protocol.notify(GRANT, {})
    assert await _severities_after_edit(client, uri, before) == [(1, "SL103", e), (2, "SL101", w)]
    assert len(_errors(client)) == 1
