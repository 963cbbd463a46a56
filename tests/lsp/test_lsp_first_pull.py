"""The first pull of a cold open, answered before pygls is imported (lsp/first.py): exactly the
diagnostics the whole server gives for the same document, in the same session and in a session
where the first pull waits for it; whatever comes before that pull is answered by the server,
after it, and anything that could change the answer sends the pull to the server."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import pytest
from rpc import RpcClient

from surface_lint.lsp.early import TIMEOUT, FrameReader, Prefixed

SERVER = [sys.executable, "-m", "surface_lint", "server"]
TRACE = "the first pull of transcript.jsonl answered before the server's import"

CASES = [
    '{"id": "dev_truth", '
    '"prompt": "What is truth?", "category": "pack_definition", "expected_predicates": ["no_placeholder", "complete_punctation", "finite_predicate_shape"]}',
    '{"id": "dev_river", '
    '"prompt": "Where does the river go?", "category": "pack_definition", "expected_predicates": ["no_placeholder", "complete_punctuation"]}',
    '{"id": "dev_light", "prompt": "What is light?", "category": "pack_definition", "expected_predicates": ["no_placeholder", "complete_punctuation"]}',
    '{"id": "dev_smile", "prompt": "What is a smile?", "category": "pack_definition", "expected_predicates": ["no_placeholder", "complete_punctuation"]}',
]
TURNS = [
    '{"case_id": "dev_truth", "turn_index": 0, '
    '"prompt": "What is truth?", "surface": "Truth is what is real. pack-grounded (en_demo_epistemic_v1).", "grounding_source": "pack"}',
    '{"case_id": "dev_river", "turn_index": 0, "prompt": "Where does the river go?", "surface": "river flows valley", "grounding_source": "none"}',
    '{"case_id": "dev_light", "turn_index": 0, "prompt": "What is light?", "surface": "Light is ... bright.", "grounding_source": "none"}',
    '{"case_id": "dev_smile", "turn_index": 0, "prompt": "What is a smile?", "surface": "A smile \U0001f642 is ... warm.", "grounding_source": "none"}',
]
PUNCTUATION = "complete_punctuation: the surface ends with `y`, not terminal punctuation (`.` `?` `!` `;`)"
PLACEHOLDER = "no_placeholder: placeholder marker `...` in the surface"


def _range(line: int, start: int, end: int) -> dict[str, Any]:
    return {"start": {"line": line, "character": start}, "end": {"line": line, "character": end}}


def _expected(href_punctuation: str, href_placeholder: str) -> list[dict[str, Any]]:
    # UTF-16 columns: the surface of line 3 holds an emoji (two code units) before its "...".
    return [
        {"range": _range(1, 109, 110), "severity": 1, "code": "SL103", "source": "surface-lint", "message": PUNCTUATION,
         "codeDescription": {"href": href_punctuation},
         "data": {"fixes": [{"title": "Add terminal punctuation `.`", "range": _range(1, 110, 110), "newText": "."}],
                  "record": 1}},
        {"range": _range(2, 91, 94), "severity": 1, "code": "SL101", "source": "surface-lint", "message": PLACEHOLDER,
         "codeDescription": {"href": href_placeholder}, "data": {"record": 2}},
        {"range": _range(3, 98, 101), "severity": 1, "code": "SL101", "source": "surface-lint", "message": PLACEHOLDER,
         "codeDescription": {"href": href_placeholder}, "data": {"record": 3}},
    ]


def _vscode_capabilities() -> dict[str, Any]:
    """What VS Code 1.100's language client declares about diagnostics (it pulls them)."""
    return {
        "general": {"positionEncodings": ["utf-16"]},
        "textDocument": {
            "synchronization": {"dynamicRegistration": True, "willSave": True, "willSaveWaitUntil": True,
                                "didSave": True},
            "publishDiagnostics": {"relatedInformation": True, "versionSupport": False, "tagSupport": {"valueSet": [1, 2]},
                                   "codeDescriptionSupport": True, "dataSupport": True},
            "diagnostic": {"dynamicRegistration": True, "relatedDocumentSupport": False},
        },
        "workspace": {"configuration": True, "diagnostics": {"refreshSupport": True},
                      "didChangeWatchedFiles": {"dynamicRegistration": True}},
    }


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    cases = tmp_path / "evals" / "deterministic_fluency" / "dev" / "cases.jsonl"
    cases.parent.mkdir(parents=True)
    cases.write_text("\n".join(CASES) + "\n", encoding="utf-8")
    (tmp_path / "transcript.jsonl").write_text("\n".join(TURNS) + "\n", encoding="utf-8")
    return tmp_path


class Session:
    def __init__(self, root: Path, first_lint: bool = True, pull: bool = True, initialized: bool = True) -> None:
        with pytest.MonkeyPatch.context() as env:
            env.setenv("SURFACE_LINT_TRACE_TIMING", "1")
            if first_lint:
                env.delenv("SURFACE_LINT_NO_FIRST_LINT", raising=False)
            else:
                env.setenv("SURFACE_LINT_NO_FIRST_LINT", "1")
            self.client = RpcClient(SERVER)  # the server inherits this environment
        caps = _vscode_capabilities()
        if not pull:
            del caps["textDocument"]["diagnostic"]
        answer = self.client.request("initialize", {
            "processId": None, "rootUri": root.as_uri(), "capabilities": caps,
            "workspaceFolders": [{"uri": root.as_uri(), "name": "ws"}],
            "initializationOptions": {"settings": {"profile": "auto", "severity": {}, "run": "onType"}, "trusted": True}})
        assert "result" in answer, answer
        self.uri = (root / "transcript.jsonl").as_uri()
        if initialized:
            self.client.notify("initialized", {})

    def open(self, text: str) -> None:
        self.client.notify("textDocument/didOpen", {"textDocument": {
            "uri": self.uri, "languageId": "jsonl", "version": 1, "text": text}})

    def pull(self) -> dict[str, Any]:
        answer = self.client.request("textDocument/diagnostic", {"textDocument": {"uri": self.uri},
                                                                 "identifier": "surface-lint"})
        result: dict[str, Any] = answer["result"]
        return result

    def answered_first(self) -> bool:
        """Whether first.py said it answered the pull (its stderr line, once the server is up)."""
        self.client.request("textDocument/documentSymbol", {"textDocument": {"uri": self.uri}})
        return any(TRACE in line for line in self.client.stderr)

    def close(self) -> None:
        self.client.close()


def _hrefs(items: list[dict[str, Any]]) -> tuple[str, str]:
    """The two rules' links (file: URIs of this checkout's rules file, at their lines)."""
    rules = (Path(__file__).resolve().parents[2] / "rules" / "deterministic_fluency.toml").as_uri()
    return rules + "#L71", rules + "#L34"


def test_the_first_pull_is_answered_before_the_server_with_its_exact_diagnostics(workspace: Path) -> None:
    text = (workspace / "transcript.jsonl").read_text(encoding="utf-8")
    first = Session(workspace)
    try:
        first.open(text)
        early = first.pull()
        steady = first.pull()  # the whole server's, in the same session
        assert first.answered_first()
        # The client's next pull gives first.py's resultId: the server takes it for its own report.
        again = first.client.request("textDocument/diagnostic", {"textDocument": {"uri": first.uri},
                                                                 "previousResultId": early["resultId"]})["result"]
    finally:
        first.close()
    waited = Session(workspace, first_lint=False)
    try:
        waited.open(text)
        whole = waited.pull()  # a session whose first pull waits for the whole server
        assert not waited.answered_first()
    finally:
        waited.close()
    assert early["kind"] == steady["kind"] == whole["kind"] == "full"
    assert early["resultId"] != steady["resultId"]  # two lints: first.py's, then the server's
    assert again == {"kind": "unchanged", "resultId": early["resultId"]}
    assert early["items"] == _expected(*_hrefs(early["items"]))
    assert json.dumps(early["items"]) == json.dumps(steady["items"]) == json.dumps(whole["items"])


def test_a_request_or_the_review_settings_before_the_first_pull(workspace: Path) -> None:
    session = Session(workspace)
    try:
        # What VS Code's extension sends at start: the review's run globs (no diagnostic reads them).
        session.client.notify("surfaceLint/reviewSettings", {"transcripts": ["**/*transcript*.jsonl"]})
        session.open((workspace / "transcript.jsonl").read_text(encoding="utf-8"))
        session.client.send_body(json.dumps({"jsonrpc": "2.0", "id": "symbols", "method": "textDocument/documentSymbol",
                                             "params": {"textDocument": {"uri": session.uri}}}).encode())
        early = session.pull()
        symbols = session.client.unmatched.get(timeout=30)
        assert session.answered_first()
    finally:
        session.close()
    assert symbols["id"] == "symbols"
    assert [s["name"] for s in symbols["result"]] == ["dev_truth", "dev_river", "dev_light", "dev_smile"]
    assert early["items"] == _expected(*_hrefs(early["items"]))


def test_an_edit_before_the_first_pull_sends_it_to_the_server(workspace: Path) -> None:
    session = Session(workspace)
    try:
        session.open((workspace / "transcript.jsonl").read_text(encoding="utf-8"))
        # Line 2 gets its final period: its SL103 goes.
        session.client.notify("textDocument/didChange", {
            "textDocument": {"uri": session.uri, "version": 2},
            "contentChanges": [{"range": _range(1, 110, 110), "text": "."}]})
        answer = session.pull()
        assert not session.answered_first()
    finally:
        session.close()
    expected = _expected(*_hrefs(answer["items"]))[1:]
    assert answer["items"] == expected


def test_frame_reader_waits_with_a_timeout_and_hands_on_what_it_read_beyond() -> None:
    read_end, write_end = os.pipe()
    try:
        os.write(write_end, b"Content-Length: 2\r\n\r\n{}Content-Length: 3\r\n\r\n[1]Content-Le")
        reader = FrameReader(read_end)
        assert reader.frame(0.05) == b"{}"
        assert reader.frame(0.05) == b"[1]"
        assert reader.frame(0.05) is TIMEOUT  # half a header: nothing more comes
        assert reader.rest() == b"Content-Le"
        os.write(write_end, b"ngth: 1\r\n\r\n7")
        rest = Prefixed(reader.rest(), os.fdopen(os.dup(read_end), "rb"))
        assert rest.readline() == b"Content-Length: 1\r\n"
        assert rest.readline() == b"\r\n"
        assert rest.read(1) == b"7"
    finally:
        os.close(read_end)
        os.close(write_end)


def test_frame_reader_says_the_end_of_the_stream() -> None:
    read_end, write_end = os.pipe()
    os.write(write_end, b"Content-Length: 5\r\n\r\n{}")
    os.close(write_end)
    try:
        assert FrameReader(read_end).frame(0.05) is None  # the body is cut short
    finally:
        os.close(read_end)
