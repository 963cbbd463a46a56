"""The LSP 3.17 lifecycle and error codes, over raw JSON-RPC (every request gets a response):
-32602 for invalid params, -32002 before initialize, -32600 after shutdown, the exit code."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from lsp_support import FIXTURES, SERVER, TRANSCRIPT
from rpc import RpcClient

INIT = {"processId": None, "rootUri": None, "capabilities": {}}


@pytest.fixture
def rpc() -> Iterator[RpcClient]:
    client = RpcClient(SERVER)
    yield client
    if client.proc.poll() is None:
        client.proc.kill()
        client.proc.wait()


def _hover(line: object, character: object = 0) -> dict[str, object]:
    return {"textDocument": {"uri": "file:///nowhere.jsonl"}, "position": {"line": line, "character": character}}


def test_a_request_before_initialize_is_answered_with_server_not_initialized(rpc: RpcClient) -> None:
    answer = rpc.request("textDocument/hover", _hover(0))
    assert answer["error"] == {"code": -32002, "message": "textDocument/hover before initialize"}
    assert "result" not in answer
    # A notification before initialize is dropped, and the session then starts normally.
    rpc.notify("textDocument/didOpen", {"textDocument": {"uri": "file:///x.jsonl", "languageId": "jsonl",
                                                         "version": 1, "text": "{}"}})
    assert "capabilities" in rpc.request("initialize", INIT)["result"]
    again = rpc.request("initialize", INIT)
    assert again["error"] == {"code": -32600, "message": "initialize may be sent only once"}


def test_invalid_params_get_invalid_params_not_silence(rpc: RpcClient) -> None:
    rpc.request("initialize", INIT)
    rpc.notify("initialized", {})
    negative = rpc.request("textDocument/hover", _hover(-1))
    assert negative["error"] == {"code": -32602, "message": "invalid params for textDocument/hover: Position.line "
                                                          "should be in range [0:2147483647], but was -1. @ $.params.position"}
    string = rpc.request("textDocument/hover", _hover("3"))
    assert string["error"] == {"code": -32602, "message": "invalid params for textDocument/hover: "
                                                        "expected an integer, got \"3\" @ $.params.position.line"}
    boolean = rpc.request("textDocument/hover", _hover(1, True))
    assert boolean["error"] == {"code": -32602, "message": "invalid params for textDocument/hover: "
                                                         "expected an integer, got true @ $.params.position.character"}
    no_range = rpc.request("textDocument/codeAction", {"textDocument": {"uri": "file:///nowhere.jsonl"},
                                                       "context": {"diagnostics": []}})
    assert no_range["error"] == {"code": -32602, "message": "invalid params for textDocument/codeAction: "
                                                          "required field missing @ $.params.range"}
    # The session still works after them.
    assert rpc.request("textDocument/hover", _hover(0)) == {"jsonrpc": "2.0", "id": 6, "result": None}


def test_requests_after_shutdown_get_invalid_request_and_exit_is_0(rpc: RpcClient) -> None:
    rpc.request("initialize", INIT)
    rpc.notify("initialized", {})
    assert rpc.request("shutdown", None)["result"] is None
    after = rpc.request("textDocument/hover", _hover(0))
    assert after["error"] == {"code": -32600, "message": "the server is shut down; textDocument/hover is not served"}
    twice = rpc.request("shutdown", None)
    assert twice["error"] == {"code": -32600, "message": "the server is shut down; shutdown is not served"}
    rpc.notify("exit", None)
    # stdin stays open: the server must exit on `exit` alone.
    assert rpc.proc.wait(timeout=10) == 0


def test_exit_without_shutdown_is_1(rpc: RpcClient) -> None:
    rpc.request("initialize", INIT)
    rpc.notify("initialized", {})
    rpc.notify("exit", None)
    assert rpc.proc.wait(timeout=10) == 1


def test_exit_before_initialize_is_1_and_a_closed_stream_without_shutdown_is_1(tmp_path: Path) -> None:
    early = RpcClient(SERVER)
    early.notify("exit", None)
    assert early.proc.wait(timeout=10) == 1
    gone = RpcClient(SERVER)
    gone.request("initialize", INIT)
    assert gone.proc.stdin is not None
    gone.proc.stdin.close()
    assert gone.proc.wait(timeout=10) == 1


def test_a_transcript_still_lints_under_the_strict_converter(rpc: RpcClient, tmp_path: Path) -> None:
    """The strict int/str/bool hooks do not reject what real clients send."""
    root = FIXTURES / "workspace"
    rpc.request("initialize", {**INIT, "rootUri": root.as_uri(),
                               "capabilities": {"general": {"positionEncodings": ["utf-8", "utf-16"]},
                                                "textDocument": {"publishDiagnostics": {"relatedInformation": True}}},
                               "initializationOptions": {"settings": {"run": "onType"}}})
    rpc.notify("initialized", {})
    path = root / TRANSCRIPT
    rpc.notify("textDocument/didOpen", {"textDocument": {"uri": path.as_uri(), "languageId": "jsonl", "version": 1,
                                                         "text": path.read_text(encoding="utf-8")}})
    symbols = rpc.request("textDocument/documentSymbol", {"textDocument": {"uri": path.as_uri()}})
    assert [s["name"] for s in symbols["result"]] == ["fl_harbor_003", "fl_tide_001", "fl_lamp_002", "fl_doubt_010"]
    assert json.dumps(symbols).count('"error"') == 0


@pytest.mark.parametrize("editor", ["visual-studio-code", "neovim", "emacs"])
def test_real_editors_initialize_params_pass_the_strict_converter(editor: str) -> None:
    """No coercion does not mean refusing what editors send (pytest-lsp's recorded capabilities)."""
    import pytest_lsp
    from lsprotocol import types

    from surface_lint.lsp.wire import strict_converter

    caps = pytest_lsp.client_capabilities(editor)
    converter = strict_converter()
    raw = json.loads(json.dumps(converter.unstructure(caps)))  # as it comes off the wire
    params = converter.structure({"processId": 41, "rootUri": "file:///ws", "capabilities": raw, "trace": "off",
                                  "workDoneToken": "t1"}, types.InitializeParams)
    assert params.capabilities == caps
    assert params.process_id == 41


def test_a_notification_with_invalid_params_is_reported_to_the_client(rpc: RpcClient) -> None:
    rpc.request("initialize", INIT)
    rpc.notify("initialized", {})
    rpc.notify("textDocument/didChange", {"textDocument": {"uri": "file:///x.jsonl", "version": 2},
                                          "contentChanges": [{"range": {"start": {"line": -1, "character": 0},
                                                                        "end": {"line": 0, "character": 0}},
                                                              "text": "x"}]})
    # A request after it is answered: the notification was handled (and reported) first.
    assert rpc.request("shutdown", None)["result"] is None
    logs = [n["params"] for n in rpc.notifications if n["method"] == "window/logMessage"]
    assert len(logs) == 1 and logs[0]["type"] == 1
    assert logs[0]["message"].startswith("surface-lint: invalid params for textDocument/didChange (ignored): ")
    assert logs[0]["message"].endswith("@ $.params.contentChanges[0].range.start")
