"""The server reads only the workspace: a request naming a file outside every workspace folder
(and not open in the editor) is answered with an LSP error saying so, never with the file."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from lsp_support import FIXTURES, RecordingClient, no_server_errors, open_file, published, start
from lsprotocol import types
from pygls.exceptions import JsonRpcException

REVIEW_FIXTURES = FIXTURES.parent / "review" / "workspace"
CASES = "evals/deterministic_fluency/public/v1/cases.jsonl"
RUN_B = "transcripts/run_b.jsonl"
# A turn whose surface is a secret: what the server must not hand to whoever asks.
SECRET_TURN = ('{"case_id": "rv_river_001", "turn_index": 0, "role": "prompt", "prompt": "Key?", '
               '"surface": "API_KEY=sk-live-0123456789", "grounding_source": "none"}\n')


def refusal(path: Path) -> str:
    return (f"{path}: surface-lint reads only files under a workspace folder and documents open in the editor; "
            "this file is outside them")


@pytest.fixture
def layout(tmp_path: Path) -> tuple[Path, Path]:
    """A workspace copied from the review fixtures, and beside it (outside) a mode-600 secret."""
    root = tmp_path / "ws"
    shutil.copytree(REVIEW_FIXTURES, root)
    secret = tmp_path / "private" / "secret.jsonl"
    secret.parent.mkdir()
    secret.write_text(SECRET_TURN, encoding="utf-8")
    secret.chmod(0o600)
    return root.resolve(), secret.resolve()


async def _refused(client: RecordingClient, method: str, params: dict[str, object]) -> tuple[int, str]:
    with pytest.raises(JsonRpcException) as failed:
        await client.protocol.send_request_async(method, params)
    return failed.value.code, failed.value.message


async def test_review_runs_and_run_diff_refuse_a_file_outside_the_workspace(
        client: RecordingClient, layout: tuple[Path, Path]) -> None:
    root, secret = layout
    await start(client, root)
    inside = (root / RUN_B).as_uri()
    assert await _refused(client, "surfaceLint/review", {"uri": secret.as_uri()}) == (-32803, refusal(secret))
    assert await _refused(client, "surfaceLint/runs", {"uri": secret.as_uri()}) == (-32803, refusal(secret))
    assert await _refused(client, "surfaceLint/runDiff", {"old": secret.as_uri(), "new": inside}) == (
        -32803, refusal(secret))
    assert await _refused(client, "surfaceLint/runDiff", {"old": inside, "new": secret.as_uri()}) == (
        -32803, refusal(secret))
    # A path that climbs out of the workspace, and a link inside it to the secret: outside too.
    climbing = root / "transcripts" / ".." / ".." / "private" / "secret.jsonl"
    assert await _refused(client, "surfaceLint/review", {"uri": climbing.as_uri()}) == (-32803, refusal(climbing))
    link = root / "transcripts" / "link.jsonl"
    link.symlink_to(secret)
    assert await _refused(client, "surfaceLint/review", {"uri": link.as_uri()}) == (-32803, refusal(link))
    # A relative "path" (a URI that is not file:) names nothing on disk: refused unless its text comes along.
    assert await _refused(client, "surfaceLint/review", {"uri": "private/secret.jsonl"}) == (
        -32803, refusal(Path("private/secret.jsonl")))
    # Inside the workspace: served.
    review = await client.protocol.send_request_async("surfaceLint/review", {"uri": inside})
    assert [t.caseId for t in review.turns] == ["rv_river_001", "rv_lamp_002", "rv_zephyr_003"]
    # The run list never shows the link to the secret (a run found under a folder, resolved outside).
    runs = await client.protocol.send_request_async("surfaceLint/runs", {"uri": inside})
    assert "transcripts/link.jsonl" not in [r["name"] for r in runs]
    assert sorted(r["name"] for r in runs) == ["runs/run_c.jsonl", "transcripts/run_a.jsonl", "transcripts/run_b.jsonl"]
    no_server_errors(client)


async def test_a_document_the_client_opened_is_served_wherever_it_is(
        client: RecordingClient, layout: tuple[Path, Path]) -> None:
    root, secret = layout
    await start(client, root)
    uri = open_file(client, secret)  # the user opened it: its text is the client's to give
    await published(client, uri, 1)
    review = await client.protocol.send_request_async("surfaceLint/review", {"uri": uri})
    assert [(t.caseId, t.surface) for t in review.turns] == [("rv_river_001", "API_KEY=sk-live-0123456789")]
    client.text_document_did_close(types.DidCloseTextDocumentParams(types.TextDocumentIdentifier(uri)))
    assert await _refused(client, "surfaceLint/review", {"uri": uri}) == (-32803, refusal(secret))
    no_server_errors(client)


async def test_case_files_found_outside_the_workspace_are_not_read(client: RecordingClient, tmp_path: Path) -> None:
    # The workspace is a folder inside a project whose case files lie above it: the upward search
    # finds them, and the server leaves them unread (no case, so no lens and no declaration).
    project = tmp_path / "project"
    shutil.copytree(REVIEW_FIXTURES, project)
    root = (project / "transcripts").resolve()
    await start(client, root)
    uri = open_file(client, root / "run_b.jsonl")
    diagnostics = await published(client, uri, 1)
    assert [d.code for d in diagnostics] == ["SL101", "SL101", "SL104", "SL103"]
    found = await client.text_document_definition_async(types.DefinitionParams(
        text_document=types.TextDocumentIdentifier(uri), position=types.Position(0, 15)))
    assert found is None
    review = await client.protocol.send_request_async("surfaceLint/review", {"uri": uri})
    assert [t.category for t in review.turns] == ["uncategorised", "uncategorised", "uncategorised"]
    assert os.path.isfile(project / CASES)
    no_server_errors(client)


async def test_the_folders_read_follow_the_clients_workspace_folders(
        client: RecordingClient, layout: tuple[Path, Path]) -> None:
    root, secret = layout
    await start(client, root)
    assert await _refused(client, "surfaceLint/review", {"uri": secret.as_uri()}) == (-32803, refusal(secret))
    folder = types.WorkspaceFolder(uri=secret.parent.as_uri(), name="private")
    client.workspace_did_change_workspace_folders(types.DidChangeWorkspaceFoldersParams(
        event=types.WorkspaceFoldersChangeEvent(added=[folder], removed=[])))
    review = await client.protocol.send_request_async("surfaceLint/review", {"uri": secret.as_uri()})
    assert [t.surface for t in review.turns] == ["API_KEY=sk-live-0123456789"]
    client.workspace_did_change_workspace_folders(types.DidChangeWorkspaceFoldersParams(
        event=types.WorkspaceFoldersChangeEvent(added=[], removed=[folder])))
    assert await _refused(client, "surfaceLint/review", {"uri": secret.as_uri()}) == (-32803, refusal(secret))
    no_server_errors(client)
