"""Diagnostics over stdio: exact ranges per position encoding, push and pull, incremental edits.

The transcript's line 2 is
  {"case_id": "fl_tide_001", ..., "surface": "🌊 caf\\u00e9 — \\"tide\\"\\t rises and falls", ...}
Before the final `s` of "falls" come an emoji (2 UTF-16 units, 4 UTF-8 bytes), a `\\u00e9`
escape, an em dash (1 unit, 3 bytes), escaped quotes and a `\\t`: the `s` is code point 142
(0-based), UTF-16 unit 143, UTF-8 byte 147. Line 3 has a `\\ud83d\\udca1` escape (ASCII in the
source) and `…` (1 unit, 3 bytes) before `<pending>` at code point 128 = UTF-16 128 = UTF-8 130.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from lsp_support import (
    DEV_CASES,
    PUBLIC_CASES,
    REPORT,
    SYMBOLIC_CASES,
    TRANSCRIPT,
    RecordingClient,
    change,
    no_server_errors,
    open_file,
    published,
    rng,
    spans,
    start,
)
from lsprotocol import types

from surface_lint.engine import Engine

RULES = Path(__file__).resolve().parents[2] / "rules" / "deterministic_fluency.toml"
SL103_MESSAGE = "complete_punctuation: the surface ends with `s`, not terminal punctuation (`.` `?` `!` `;`)"
SL101_MESSAGE = "no_placeholder: placeholder marker `<pending>` in the surface"


@pytest.mark.parametrize(
    ("encodings", "negotiated", "sl103", "sl101"),
    [
        (None, "utf-16", (142 + 1, 143 + 1), (128, 137)),
        (["utf-8", "utf-16"], "utf-8", (147, 148), (130, 139)),
        (["utf-32"], "utf-32", (142, 143), (128, 137)),
    ],
)
async def test_transcript_diagnostics_exact_ranges_per_encoding(
    client: RecordingClient, workspace: Path, encodings: list[str] | None, negotiated: str,
    sl103: tuple[int, int], sl101: tuple[int, int],
) -> None:
    result = await start(client, workspace, encodings)
    assert result.capabilities.position_encoding == negotiated
    uri = open_file(client, workspace / TRANSCRIPT)
    diags = await published(client, uri, 1)
    assert spans(diags) == [(1, sl103[0], 1, sl103[1], "SL103"), (2, sl101[0], 2, sl101[1], "SL101")]
    punct, placeholder = diags
    # fl_tide_001 expects complete_punctuation: an error, as the engine says.
    assert punct.severity == types.DiagnosticSeverity.Error
    assert punct.message == SL103_MESSAGE
    assert punct.source == "surface-lint"
    assert punct.code_description is not None
    spec = Engine().lane("deterministic_fluency").predicate("complete_punctuation")
    assert spec is not None
    assert punct.code_description.href == f"{RULES.as_uri()}#L{spec.line}"  # its [[predicates]] table
    assert punct.data == {
        "record": 1,
        "fixes": [{"title": "Add terminal punctuation `.`",
                   "range": {"start": {"line": 1, "character": sl103[1]}, "end": {"line": 1, "character": sl103[1]}},
                   "newText": "."}],
    }
    assert placeholder.message == SL101_MESSAGE
    assert placeholder.severity == types.DiagnosticSeverity.Error
    no_server_errors(client)


async def test_case_file_diagnostics_with_related_information(client: RecordingClient, workspace: Path) -> None:
    await start(client, workspace)
    uri = open_file(client, workspace / PUBLIC_CASES)
    diags = await published(client, uri, 1)
    dev = workspace / DEV_CASES
    hold = workspace / "evals/deterministic_fluency/holdouts/v1/cases.jsonl"
    assert spans(diags) == [(0, 7, 0, 20, "SL005"), (1, 33, 1, 49, "SL006")]
    dup, leak = diags
    assert dup.message == f"duplicate case id `fl_tide_001` (first at {dev}:1)"
    assert dup.related_information is not None
    (related,) = dup.related_information
    assert related.location.uri == dev.as_uri()
    assert (related.location.range.start.character, related.location.range.end.character) == (6, 19)
    assert related.message == "first `fl_tide_001`"
    assert leak.message == f"this public case repeats the prompt of holdout `fl_hold_900` ({hold}:1)"
    assert leak.code_description is not None and leak.code_description.href.endswith("checks.py#SL006")


async def test_symbolic_case_and_report(client: RecordingClient, workspace: Path) -> None:
    await start(client, workspace)
    sym = open_file(client, workspace / SYMBOLIC_CASES)
    report = open_file(client, workspace / REPORT, language="json")
    sym_diags = await published(client, sym, 1)
    assert spans(sym_diags) == [(0, 163, 0, 164, "SL007")]
    assert sym_diags[0].message == ("`expected_proposals` is 2 but 1 premise(s) are correction-intent "
                                    "(match `^\\s*Actually\\b`)")
    rep = await published(client, report, 1)
    # "Tides rise — and fall" on line 20 of the pretty-printed report: the `l` after the em dash.
    assert spans(rep) == [(19, 38, 19, 39, "SL103")]
    assert rep[0].severity == types.DiagnosticSeverity.Error


async def test_pull_diagnostics_and_unchanged_result(client: RecordingClient, workspace: Path) -> None:
    await start(client, workspace, pull=True)
    uri = open_file(client, workspace / TRANSCRIPT)
    report = await client.text_document_diagnostic_async(types.DocumentDiagnosticParams(
        text_document=types.TextDocumentIdentifier(uri)))
    assert isinstance(report, types.RelatedFullDocumentDiagnosticReport)
    assert spans(report.items) == [(1, 143, 1, 144, "SL103"), (2, 128, 2, 137, "SL101")]
    # Pull capabilities say nothing of codeDescription/data (as in VS Code): those of
    # publishDiagnostics apply.
    punct = report.items[0]
    spec = Engine().lane("deterministic_fluency").predicate("complete_punctuation")
    assert spec is not None and punct.code_description is not None
    assert punct.code_description.href == f"{RULES.as_uri()}#L{spec.line}"
    assert punct.data is not None and punct.data["fixes"][0]["newText"] == "."
    again = await client.text_document_diagnostic_async(types.DocumentDiagnosticParams(
        text_document=types.TextDocumentIdentifier(uri), previous_result_id=report.result_id))
    assert isinstance(again, types.RelatedUnchangedDocumentDiagnosticReport)
    assert again.result_id == report.result_id
    # Pull clients get no pushed diagnostics for their documents.
    assert [p for p in client.published if p.uri == uri] == []
    ws = await client.workspace_diagnostic_async(types.WorkspaceDiagnosticParams(previous_result_ids=[]))
    by_uri = {item.uri: item for item in ws.items}
    assert set(by_uri) == {(workspace / p).as_uri() for p in (
        DEV_CASES, PUBLIC_CASES, SYMBOLIC_CASES, "evals/deterministic_fluency/holdouts/v1/cases.jsonl")}
    dev = by_uri[(workspace / DEV_CASES).as_uri()]
    assert isinstance(dev, types.WorkspaceFullDocumentDiagnosticReport)
    assert spans(dev.items) == [(1, 99, 1, 116, "SL004")]
    ws2 = await client.workspace_diagnostic_async(types.WorkspaceDiagnosticParams(previous_result_ids=[
        types.PreviousResultId(uri=dev.uri, value=dev.result_id or "")]))
    assert isinstance({i.uri: i for i in ws2.items}[dev.uri], types.WorkspaceUnchangedDocumentDiagnosticReport)


async def test_incremental_edits_update_exact_ranges(client: RecordingClient, workspace: Path) -> None:
    await start(client, workspace)
    uri = open_file(client, workspace / TRANSCRIPT)
    await published(client, uri, 1)
    # Insert a 🌊 at the start of line 3's surface (after `"surface": "`): <pending> moves 2 units.
    line3 = client.texts[uri].split("\n")[2]
    at = line3.index('"surface": "') + len('"surface": "')
    v2 = change(client, uri, [(rng(2, at, 2, at), "🌊")])
    assert spans(await published(client, uri, v2)) == [(1, 143, 1, 144, "SL103"), (2, 130, 2, 139, "SL101")]
    # Add the missing full stop on line 2 (after UTF-16 unit 144) and delete line 1 entirely.
    v3 = change(client, uri, [(rng(1, 144, 1, 144), "."), (rng(0, 0, 1, 0), "")])
    assert spans(await published(client, uri, v3)) == [(1, 130, 1, 139, "SL101")]
    # A burst of keystrokes: only the last version's diagnostics matter, none is lost.
    line = client.texts[uri].split("\n")[1]
    col = line.index("<pending>")
    for i, ch in enumerate("<pending>"):
        change(client, uri, [(rng(1, col + i, 1, col + i + 1), ch.upper() if ch.isalpha() else ch)])
    final = await published(client, uri)
    assert spans(final) == []
    versions = [p.version for p in client.published if p.uri == uri]
    assert versions == sorted(versions), "diagnostics of an older version were published after a newer one"
    no_server_errors(client)
