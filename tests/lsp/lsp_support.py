"""Helpers for the LSP tests: a recording pytest-lsp client, capabilities, edits, waits."""

from __future__ import annotations

import asyncio
import re
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from lsprotocol import types
from pytest_lsp import LanguageClient
from pytest_lsp.client import DEFAULT_CLIENT_FEATURES, register_lsp_features

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "lsp"
SERVER = [sys.executable, "-m", "surface_lint", "server"]
TRANSCRIPT = "transcripts/deterministic_fluency_transcript.jsonl"
DEV_CASES = "evals/deterministic_fluency/dev/cases.jsonl"
PUBLIC_CASES = "evals/deterministic_fluency/public/v1/cases.jsonl"
SYMBOLIC_CASES = "evals/symbolic_logic/dev/cases.jsonl"
REPORT = "reports/deterministic_fluency_report.json"


class RecordingClient(LanguageClient):
    """pytest-lsp's client, also keeping every publishDiagnostics with its version."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.published: list[types.PublishDiagnosticsParams] = []
        self.versions: dict[str, int] = {}
        self.texts: dict[str, str] = {}
        self.registrations: list[types.Registration] = []
        self.lens_refreshes = 0


def _on_publish(client: RecordingClient, params: types.PublishDiagnosticsParams) -> None:
    client.diagnostics[params.uri] = params.diagnostics
    client.published.append(params)


def _on_register(client: RecordingClient, params: types.RegistrationParams) -> None:
    client.registrations.extend(params.registrations)


def _on_lens_refresh(client: RecordingClient, params: None) -> None:
    client.lens_refreshes += 1


def make_client() -> RecordingClient:
    client = RecordingClient()
    register_lsp_features(client, {**DEFAULT_CLIENT_FEATURES, types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS: _on_publish,
                                   types.CLIENT_REGISTER_CAPABILITY: _on_register,
                                   types.WORKSPACE_CODE_LENS_REFRESH: _on_lens_refresh})
    return client


def capabilities(encodings: Sequence[str] | None = None, pull: bool = False,
                 configuration: bool = True, watch: bool = True) -> types.ClientCapabilities:
    """What a full-featured editor declares (VS Code-like), push or pull."""
    markdown = [types.MarkupKind.Markdown, types.MarkupKind.PlainText]
    diag = types.PublishDiagnosticsClientCapabilities(
        related_information=True, code_description_support=True, data_support=True, version_support=True)
    return types.ClientCapabilities(
        general=types.GeneralClientCapabilities(position_encodings=list(encodings)) if encodings else None,
        text_document=types.TextDocumentClientCapabilities(
            publish_diagnostics=diag,
            # As VS Code declares pull: what diagnostics may carry is said under publishDiagnostics.
            diagnostic=types.DiagnosticClientCapabilities(dynamic_registration=True) if pull else None,
            hover=types.HoverClientCapabilities(content_format=markdown),
            completion=types.CompletionClientCapabilities(
                completion_item=types.ClientCompletionItemOptions(documentation_format=markdown)),
            code_action=types.CodeActionClientCapabilities(data_support=True),
            synchronization=types.TextDocumentSyncClientCapabilities(did_save=True),
        ),
        workspace=types.WorkspaceClientCapabilities(
            configuration=configuration,
            did_change_watched_files=types.DidChangeWatchedFilesClientCapabilities(dynamic_registration=True)
            if watch else None,
            diagnostics=types.DiagnosticWorkspaceClientCapabilities(refresh_support=True) if pull else None,
            code_lens=types.CodeLensWorkspaceClientCapabilities(refresh_support=True),
        ),
    )


async def start(client: RecordingClient, root: Path, encodings: Sequence[str] | None = None,
                pull: bool = False, settings: dict[str, Any] | None = None,
                **caps: Any) -> types.InitializeResult:
    return await client.initialize_session(types.InitializeParams(
        capabilities=capabilities(encodings, pull, **caps),
        root_uri=root.as_uri(),
        workspace_folders=[types.WorkspaceFolder(uri=root.as_uri(), name="ws")],
        initialization_options={"settings": settings} if settings is not None else None,
    ))


def open_file(client: RecordingClient, path: Path, text: str | None = None, language: str = "jsonl") -> str:
    uri = path.as_uri()
    body = path.read_text(encoding="utf-8") if text is None else text
    client.versions[uri] = 1
    client.texts[uri] = body
    client.text_document_did_open(types.DidOpenTextDocumentParams(
        types.TextDocumentItem(uri=uri, language_id=language, version=1, text=body)))
    return uri


def offset_of(text: str, line: int, character: int, encoding: str) -> int:
    """An LSP position -> offset in `text` (written independently of the server's code).
    Lines end at "\\r\\n", "\\n" or a bare "\\r", as an LSP client counts them."""
    bounds, at = [], 0
    for m in re.finditer(r"\r\n|\r|\n", text):
        bounds.append((at, m.start()))
        at = m.end()
    bounds.append((at, len(text)))
    if line >= len(bounds):
        return len(text)
    a, b = bounds[line]
    units = 0
    for i in range(a, b):
        if units >= character:
            return i
        units += {"utf-8": len(text[i].encode("utf-8")), "utf-16": len(text[i].encode("utf-16-le")) // 2}.get(
            encoding, 1)
    return b


def change(client: RecordingClient, uri: str, edits: Sequence[tuple[types.Range, str]],
           encoding: str = "utf-16") -> int:
    """Apply edits locally and send them as incremental changes; returns the new version."""
    text = client.texts[uri]
    changes = []
    for rng, new in edits:
        a = offset_of(text, rng.start.line, rng.start.character, encoding)
        b = offset_of(text, rng.end.line, rng.end.character, encoding)
        text = text[:a] + new + text[b:]
        changes.append(types.TextDocumentContentChangePartial(range=rng, text=new))
    client.texts[uri] = text
    client.versions[uri] += 1
    client.text_document_did_change(types.DidChangeTextDocumentParams(
        text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=client.versions[uri]),
        content_changes=changes))
    return client.versions[uri]


def apply_edit(client: RecordingClient, edit: types.WorkspaceEdit, encoding: str = "utf-16") -> int:
    """What an editor does with a code action's WorkspaceEdit: apply it, send didChange."""
    assert edit.changes is not None
    (uri, edits), = edit.changes.items()
    ordered = sorted(edits, key=lambda e: (e.range.start.line, e.range.start.character), reverse=True)
    return change(client, uri, [(e.range, e.new_text) for e in ordered], encoding)


async def published(client: RecordingClient, uri: str, version: int | None = None,
                    timeout: float = 30.0) -> list[types.Diagnostic]:
    """The diagnostics published for `uri` at `version` (the newest version when None)."""
    want = client.versions.get(uri) if version is None else version
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while loop.time() < deadline:
        for p in reversed(client.published):
            if p.uri == uri and (want is None or p.version == want):
                return list(p.diagnostics)
        await asyncio.sleep(0.02)
    raise AssertionError(f"no diagnostics for {uri} version {want} within {timeout}s; got "
                         f"{[(p.uri, p.version) for p in client.published]}")


def rng(sl: int, sc: int, el: int, ec: int) -> types.Range:
    return types.Range(types.Position(sl, sc), types.Position(el, ec))


def spans(diags: Sequence[types.Diagnostic]) -> list[tuple[int, int, int, int, str | int | None]]:
    return [(d.range.start.line, d.range.start.character, d.range.end.line, d.range.end.character, d.code)
            for d in diags]


def no_server_errors(client: RecordingClient) -> None:
    errors = [m.message for m in client.log_messages if m.type == types.MessageType.Error]
    assert errors == [], errors
