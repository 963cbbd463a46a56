"""`initialize` answered before the server is imported (lsp/early.py): the same answer the
server computes itself, for real editors' capabilities; params it cannot vouch for go to the
server unanswered (LSP's errors as before); client capabilities that do not structure after the
early answer are said to the client, and the session goes on."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from typing import Any

import pytest
from lsp_support import SERVER
from rpc import RpcClient

from surface_lint.lsp.early import initialize_request, initialize_result

VSCODE_RESULT = {
    "capabilities": {
        "positionEncoding": "utf-16",
        "textDocumentSync": {"openClose": True, "change": 2, "willSave": False, "willSaveWaitUntil": False,
                             "save": {"includeText": False}},
        "completionProvider": {"triggerCharacters": ['"', "[", ",", "{"]},
        "hoverProvider": True,
        "definitionProvider": True,
        "referencesProvider": True,
        "documentSymbolProvider": True,
        "codeActionProvider": {"codeActionKinds": ["quickfix"]},
        "codeLensProvider": {"resolveProvider": False},
        "executeCommandProvider": {"commands": []},
        "diagnosticProvider": {"identifier": "surface-lint", "interFileDependencies": True,
                               "workspaceDiagnostics": True},
        "workspace": {"workspaceFolders": {"supported": True, "changeNotifications": True}, "fileOperations": {}},
    },
    "serverInfo": {"name": "surface-lint", "version": "0.1.0"},
}


def _editor_capabilities(editor: str) -> dict[str, Any]:
    import pytest_lsp

    from surface_lint.lsp.wire import strict_converter

    caps = strict_converter().unstructure(pytest_lsp.client_capabilities(editor))
    return json.loads(json.dumps(caps))  # as it comes off the wire


def _computed_by_the_server(params: dict[str, Any]) -> Any:
    """The answer the server itself computes (pygls's capabilities builder), in-process, no early answer."""
    from surface_lint.lsp.server import create_server

    sent: list[bytes] = []

    class Capture:
        def write(self, data: bytes) -> None:
            sent.append(data)

    async def run() -> None:
        server = create_server()
        server.raw.set_writer(Capture())
        body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": params}).encode()
        server.raw.receive(body, server.report_server_error)
        for _ in range(100):
            if sent:
                break
            await asyncio.sleep(0.01)
        server.close_session()

    asyncio.run(run())
    return json.loads(b"".join(sent).split(b"\r\n\r\n", 1)[1])["result"]


@pytest.fixture
def rpc() -> Iterator[RpcClient]:
    client = RpcClient(SERVER)
    yield client
    if client.proc.poll() is None:
        client.proc.kill()
        client.proc.wait()


@pytest.mark.parametrize("editor", ["visual-studio-code", "neovim", "emacs", None])
def test_the_early_answer_is_the_one_the_server_computes(editor: str | None) -> None:
    params = {"processId": 41, "rootUri": "file:///ws",
              "capabilities": _editor_capabilities(editor) if editor else {}}
    assert initialize_request(json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize",
                                          "params": params}).encode()) == (1, params)
    assert initialize_result(params, "0.1.0") == _computed_by_the_server(params)


def test_the_answer_to_vs_code_over_stdio(rpc: RpcClient) -> None:
    answer = rpc.request("initialize", {"processId": None, "rootUri": None,
                                        "capabilities": _editor_capabilities("visual-studio-code")})
    assert answer == {"jsonrpc": "2.0", "id": 1, "result": VSCODE_RESULT}
    rpc.notify("initialized", {})
    hover = {"textDocument": {"uri": "file:///nowhere.jsonl"}, "position": {"line": 0, "character": 0}}
    assert rpc.request("textDocument/hover", hover) == {"jsonrpc": "2.0", "id": 2, "result": None}
    assert rpc.request("initialize", {"processId": None, "capabilities": {}})["error"] == {
        "code": -32600, "message": "initialize may be sent only once"}
    rpc.close()
    assert rpc.proc.returncode == 0
    rpc.stderr_reader.join(timeout=10)
    # Answered once: the server's own answer matched early.py's and was not sent.
    assert [line for line in rpc.stderr if "early" in line] == []


@pytest.mark.parametrize(("params", "problem"), [
    ({"processId": "41", "capabilities": {}}, 'expected an integer, got "41" @ $.params.processId'),
    ({"processId": None}, "required field missing @ $.params.capabilities"),
    ({"processId": None, "capabilities": {}, "trace": "loud"}, "@ $.params.trace"),
    ({"processId": None, "capabilities": {}, "rootUri": 5}, "expected a string, got 5 @ $.params.rootUri"),
])
def test_params_early_py_cannot_vouch_for_get_the_servers_own_invalid_params(
        rpc: RpcClient, params: dict[str, Any], problem: str) -> None:
    error = rpc.request("initialize", params)["error"]
    assert error["code"] == -32602
    assert error["message"].startswith("invalid params for initialize: ")
    assert problem in error["message"]
    # Still not initialized: the session starts with a good initialize.
    assert "capabilities" in rpc.request("initialize", {"processId": None, "capabilities": {}})["result"]


def test_capabilities_that_do_not_structure_after_the_early_answer_are_said_and_the_session_goes_on(
        rpc: RpcClient) -> None:
    bad = {"processId": None, "rootUri": None, "capabilities": {"textDocument": {"hover": {"contentFormat": 3}}}}
    answer = rpc.request("initialize", bad)
    assert answer["result"]["capabilities"]["positionEncoding"] == "utf-16"
    rpc.notify("initialized", {})
    hover = {"textDocument": {"uri": "file:///nowhere.jsonl"}, "position": {"line": 0, "character": 0}}
    assert rpc.request("textDocument/hover", hover) == {"jsonrpc": "2.0", "id": 2, "result": None}
    logged = [n["params"] for n in rpc.notifications if n["method"] == "window/logMessage"]
    assert logged[0] == {"type": 1, "message": "surface-lint: invalid params for initialize (the server goes on "
                                               "without the client's capabilities and initializationOptions): "
                                               "expected an object, got a number @ "
                                               "$.params.capabilities.textDocument.hover.contentFormat"}
    rpc.close()
    assert rpc.proc.returncode == 0
