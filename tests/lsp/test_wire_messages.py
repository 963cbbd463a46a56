"""-32602 messages say what was expected in JSON's words, also when `params` itself is not an object."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from lsp_support import SERVER
from rpc import RpcClient

INIT = {"processId": None, "rootUri": None, "capabilities": {}}
DOC = {"uri": "file:///nowhere.jsonl"}
AT = {"line": 0, "character": 0}


@pytest.fixture(scope="module")
def rpc() -> Iterator[RpcClient]:
    client = RpcClient(SERVER)
    client.request("initialize", INIT)
    client.notify("initialized", {})
    yield client
    client.close()


@pytest.mark.parametrize(("method", "params", "message"), [
    ("textDocument/hover", 5, "expected an object, got a number @ $.params"),
    ("textDocument/hover", None, "expected an object, got null @ $.params"),
    ("textDocument/hover", [DOC, AT], "expected an object, got an array @ $.params"),
    ("textDocument/codeLens", "x", "expected an object, got a string @ $.params"),
    ("textDocument/completion", {"textDocument": {"uri": 7}, "position": AT},
     "expected a string, got 7 @ $.params.textDocument.uri"),
    ("textDocument/codeAction", {"textDocument": DOC, "range": {"start": AT, "end": AT},
                                 "context": {"diagnostics": [], "triggerKind": True}},
     "expected an integer, got true @ $.params.context.triggerKind"),
    # A nested value that is not an object: named where it stands, not where cattrs tripped over it.
    ("textDocument/hover", {"textDocument": None, "position": AT}, "expected an object, got null @ $.params.textDocument"),
    ("textDocument/hover", {"textDocument": "x", "position": AT}, "expected an object, got a string @ $.params.textDocument"),
    ("textDocument/hover", {"textDocument": DOC, "position": []}, "expected an object, got an array @ $.params.position"),
    ("textDocument/codeAction", {"textDocument": DOC, "range": {"start": None, "end": AT}, "context": {"diagnostics": [5]}},
     "expected an object, got null @ $.params.range.start; expected an object, got a number @ $.params.context.diagnostics[0]"),
])
def test_invalid_params_are_named_in_json_terms(rpc: RpcClient, method: str, params: object, message: str) -> None:
    assert rpc.request(method, params)["error"] == {"code": -32602, "message": f"invalid params for {method}: {message}"}


def test_a_notification_with_a_nested_non_object_is_reported_where_it_stands(rpc: RpcClient) -> None:
    before = len(rpc.notifications)
    rpc.notify("textDocument/didChange", {"textDocument": {"uri": DOC["uri"], "version": 2}, "contentChanges": [5]})
    assert rpc.request("textDocument/hover", {"textDocument": DOC, "position": AT})["result"] is None
    logs = [n["params"] for n in rpc.notifications[before:] if n["method"] == "window/logMessage"]
    assert logs == [{"type": 1, "message": "surface-lint: invalid params for textDocument/didChange (ignored): "
                                           "expected an object, got a number @ $.params.contentChanges[0]"}]


def test_a_method_without_params_still_takes_none(rpc: RpcClient) -> None:
    assert rpc.request("shutdown", None)["result"] is None


def test_initialized_may_omit_its_empty_params() -> None:
    # JSON-RPC 2.0 lets params be omitted; InitializedParams has no fields, so nothing is missing.
    client = RpcClient(SERVER)
    try:
        client.request("initialize", INIT)
        client._send({"jsonrpc": "2.0", "method": "initialized"})
        client.notify("textDocument/didOpen", {"textDocument": {"uri": "file:///t_transcript.jsonl", "languageId": "jsonl",
                                                                "version": 1, "text": '{"case_id": "a"}\n'}})
        assert client.request("textDocument/hover", {"textDocument": DOC, "position": AT})["result"] is None
        assert [n for n in client.notifications if n["method"] == "window/logMessage"] == []
    finally:
        client.close()
    assert client.proc.returncode == 0
