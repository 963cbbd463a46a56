"""No input crashes the server or leaves it silent: malformed JSON, a 50 MB line, positions
past the end, unknown URIs, and (property-based) random documents under random edits."""

from __future__ import annotations

import itertools
import json
import shutil
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from lsp_support import (
    FIXTURES,
    SERVER,
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
from rpc import RpcClient


async def test_malformed_json_and_a_50_mb_line(client: RecordingClient, workspace: Path) -> None:
    await start(client, workspace)
    good = json.dumps({"case_id": "fl_tide_001", "surface": "A tide rises", "grounding_source": "pack"})
    huge = '{"case_id": "fl_tide_001", "surface": "' + "a" * (50 * 1024 * 1024) + '"}'
    text = "\n".join([good, huge, '{"case_id": "x", "surface": "oops",}', good]) + "\n"
    uri = open_file(client, workspace / "transcripts" / "big_deterministic_fluency_transcript.jsonl", text)
    diags = await published(client, uri, 1, timeout=120)
    assert spans(diags) == [(0, 50, 0, 51, "SL103"), (1, 0, 1, 0, "SL010"), (2, 35, 2, 36, "SL001"),
                            (3, 50, 3, 51, "SL103")]
    assert diags[1].message == "line is longer than 33554432 bytes; skipped"
    assert diags[2].message == "invalid JSON: Expecting property name enclosed in double quotes"
    # Hovering on the huge line answers at once (nothing to show), and edits elsewhere still work.
    t0 = time.monotonic()
    assert await client.text_document_hover_async(types.HoverParams(
        types.TextDocumentIdentifier(uri), types.Position(1, 1000))) is None
    assert time.monotonic() - t0 < 5
    v2 = change(client, uri, [(rng(3, 51, 3, 51), ".")])
    assert [d.code for d in await published(client, uri, v2, timeout=120)] == ["SL103", "SL010", "SL001"]
    no_server_errors(client)


async def test_positions_past_the_end_and_unknown_uris(client: RecordingClient, workspace: Path) -> None:
    await start(client, workspace)
    uri = open_file(client, workspace / TRANSCRIPT)
    await published(client, uri, 1)
    doc = types.TextDocumentIdentifier(uri)
    far = types.Position(10_000, 10_000)
    assert await client.text_document_hover_async(types.HoverParams(doc, far)) is None
    assert await client.text_document_definition_async(types.DefinitionParams(doc, far)) is None
    completion = await client.text_document_completion_async(types.CompletionParams(doc, far))
    assert isinstance(completion, types.CompletionList) and list(completion.items) == []
    actions = await client.text_document_code_action_async(types.CodeActionParams(
        doc, rng(10_000, 0, 20_000, 5), types.CodeActionContext(diagnostics=[])))
    assert actions is not None and list(actions) == []
    # An edit whose range runs past the end is clamped to the end of the document.
    v2 = change(client, uri, [(rng(7, 3, 9, 0), '{"case_id": "fl_harbor_003", "surface": "no stop"}')])
    assert client.texts[uri].endswith('"none"}\n{"case_id": "fl_harbor_003", "surface": "no stop"}')
    assert [d.code for d in await published(client, uri, v2)] == ["SL103", "SL101", "SL104", "SL103"]
    unknown = types.TextDocumentIdentifier((workspace / "nowhere.jsonl").as_uri())
    assert await client.text_document_hover_async(types.HoverParams(unknown, types.Position(0, 0))) is None
    assert await client.text_document_document_symbol_async(types.DocumentSymbolParams(unknown)) is None
    lenses = await client.text_document_code_lens_async(types.CodeLensParams(unknown))
    assert lenses is not None and list(lenses) == []
    client.text_document_did_change(types.DidChangeTextDocumentParams(
        types.VersionedTextDocumentIdentifier(version=2, uri=unknown.uri),
        [types.TextDocumentContentChangeWholeDocument(text="{}")]))
    client.text_document_did_close(types.DidCloseTextDocumentParams(unknown))
    assert await client.text_document_hover_async(types.HoverParams(doc, types.Position(1, 120))) is not None
    no_server_errors(client)


# --- property-based: random documents and edit sequences ---------------------------------------

PATHS = [
    "evals/deterministic_fluency/dev/cases_{n}.jsonl",
    "evals/multi_sentence_response/dev/cases_{n}.jsonl",
    "evals/symbolic_logic/dev/cases_{n}.jsonl",
    "transcripts/deterministic_fluency_{n}_transcript.jsonl",
    "transcripts/multi_sentence_response_{n}_transcript.jsonl",
    "transcripts/symbolic_logic_{n}_transcript.jsonl",
    "reports/deterministic_fluency_{n}.json",
    "notes_{n}.txt",
    "rules_{n}.toml",
]
TEXT = st.text(st.characters(blacklist_categories=("Cs",)), max_size=30) | st.sampled_from(
    ["🌊", "—", "…", "<pending>", "...", "\\", '"', "\t", "\u2028", "\ufeff", "é", "pack-grounded (p)", ". No session"])
SURFACE = st.lists(TEXT, max_size=4).map("".join)
TURN = st.fixed_dictionaries(
    {"case_id": st.sampled_from(["fl_tide_001", "fl_lamp_002", "SYM-001", "x", ""]), "surface": SURFACE},
    optional={"grounding_source": st.sampled_from(["pack", "none", "oov", "vault"]),
              "role": st.sampled_from(["prompt", "priming", "premise", "probe"]),
              "chain": st.integers(0, 1), "vault_hits": st.integers(0, 3), "trace_hash": st.sampled_from(["", "ab"]),
              "surface_lint": st.sampled_from([{"disable": ["SL103"]}, {"disable": "x"}, 3])})
CASE = st.fixed_dictionaries(
    {"id": st.sampled_from(["fl_tide_001", "c1", "c2", ""]), "prompt": SURFACE},
    optional={"expected_predicates": st.lists(st.sampled_from(["no_placeholder", "no_placeholders",
                                                                "complete_punctuation", "x"]), max_size=3),
              "premises": st.lists(SURFACE, max_size=2), "expected_proposals": st.integers(-1, 3),
              "surface_lint": st.just({"disable": ["SL004"]}), "bogus": st.none()})
LINE = st.one_of(
    TURN.map(lambda d: json.dumps(d, ensure_ascii=False)),
    TURN.map(json.dumps),
    CASE.map(json.dumps),
    st.sampled_from(['{"case_id": "c1", "surface": "broken', "", "   ", "[1, 2]", "null", '{"surface": 5}',
                     '{"id": "x", "expected_predicates": "no_placeholder"}', "}", "{", '{"cases": [']),
    TEXT,
)
DOCUMENT = st.tuples(st.lists(LINE, max_size=10), st.sampled_from(["\n", "\r\n"])).map(lambda t: t[1].join(t[0]))
EDIT = st.tuples(st.integers(0, 12), st.integers(0, 120), st.integers(0, 12), st.integers(0, 120),
                 st.one_of(LINE, TEXT, st.just("\n"), st.just("")))
REQUEST = st.tuples(st.sampled_from(["hover", "completion", "definition", "codeAction", "documentSymbol",
                                     "codeLens", "laneScore", "diagnostic"]),
                    st.integers(0, 12), st.integers(0, 150))


@pytest.fixture(scope="module")
def rpc_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[RpcClient, Path]]:
    root = tmp_path_factory.mktemp("prop") / "ws"
    shutil.copytree(FIXTURES / "workspace", root)
    client = RpcClient(SERVER)
    result = client.request("initialize", {"processId": None, "rootUri": root.as_uri(), "capabilities": {
        "general": {"positionEncodings": ["utf-8", "utf-16"]},
        "textDocument": {"publishDiagnostics": {"relatedInformation": True}}}})
    assert "result" in result
    client.notify("initialized", {})
    yield client, root
    client.close()
    log_errors = [n for n in client.notifications
                  if n.get("method") == "window/logMessage" and n["params"]["type"] == 1]
    assert log_errors == []
    assert not [line for line in client.stderr if "Traceback" in line or "ERROR" in line], "".join(client.stderr)


_COUNTER = itertools.count()


def _params(kind: str, uri: str, line: int, character: int) -> tuple[str, Any]:
    doc = {"uri": uri}
    pos = {"line": line, "character": character}
    return {
        "hover": ("textDocument/hover", {"textDocument": doc, "position": pos}),
        "completion": ("textDocument/completion", {"textDocument": doc, "position": pos}),
        "definition": ("textDocument/definition", {"textDocument": doc, "position": pos}),
        "codeAction": ("textDocument/codeAction", {"textDocument": doc, "range": {"start": pos, "end": pos},
                                                   "context": {"diagnostics": []}}),
        "documentSymbol": ("textDocument/documentSymbol", {"textDocument": doc}),
        "codeLens": ("textDocument/codeLens", {"textDocument": doc}),
        "laneScore": ("surfaceLint/laneScore", {"uri": uri}),
        "diagnostic": ("textDocument/diagnostic", {"textDocument": doc}),
    }[kind]


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                   HealthCheck.too_slow])
@given(path=st.sampled_from(PATHS), text=DOCUMENT, edits=st.lists(EDIT, max_size=5),
       requests=st.lists(REQUEST, min_size=1, max_size=4))
def test_random_documents_and_edits_never_break_the_server(
    rpc_server: tuple[RpcClient, Path], path: str, text: str,
    edits: list[tuple[int, int, int, int, str]], requests: list[tuple[str, int, int]],
) -> None:
    client, root = rpc_server
    n = next(_COUNTER)
    uri = (root / path.format(n=n)).as_uri()
    client.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "json", "version": 1,
                                                            "text": text}})
    version = 1
    for i in range(max(len(edits), len(requests))):
        if i < len(edits):
            sl, sc, el, ec, new = edits[i]
            version += 1
            client.notify("textDocument/didChange", {
                "textDocument": {"uri": uri, "version": version},
                "contentChanges": [{"range": {"start": {"line": sl, "character": sc},
                                              "end": {"line": el, "character": ec}}, "text": new}]})
        if i < len(requests):
            kind, line, character = requests[i]
            method, params = _params(kind, uri, line, character)
            answer = client.request(method, params)
            assert "result" in answer, answer
    answer = client.request("textDocument/documentSymbol", {"textDocument": {"uri": uri}})
    assert "result" in answer, answer
    # The newest version's diagnostics are published: the server is never silent.
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        if any(m.get("method") == "textDocument/publishDiagnostics" and m["params"]["uri"] == uri
               and m["params"].get("version") == version for m in client.notifications):
            break
        time.sleep(0.01)
    else:
        raise AssertionError(f"no diagnostics for {path} version {version}")
    client.notify("textDocument/didClose", {"textDocument": {"uri": uri}})


def test_server_module_does_not_import_pygls_into_the_cli() -> None:
    """`surface-lint` (the CLI) must start without pygls: it is imported only by `server`."""
    import subprocess

    code = "import sys, surface_lint.cli.main; assert 'pygls' not in sys.modules, 'pygls imported'"
    subprocess.run([sys.executable, "-c", code], check=True)
