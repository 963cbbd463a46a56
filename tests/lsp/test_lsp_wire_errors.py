"""Messages the wire rejects, over a raw stdio connection: a body that is not JSON gets -32700
(id null), one that is not a JSON-RPC object -32600; our own `surfaceLint/*` requests get
-32602 for params of the wrong shape; each rejection is one line on stderr, not a traceback,
and the session keeps serving."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from lsp_support import SERVER
from rpc import RpcClient

INIT = {"processId": None, "rootUri": None, "capabilities": {}}
HOVER = {"textDocument": {"uri": "file:///nowhere.jsonl"}, "position": {"line": 0, "character": 0}}


@pytest.fixture
def rpc() -> Iterator[RpcClient]:
    client = RpcClient(SERVER)
    client.request("initialize", INIT)
    client.notify("initialized", {})
    yield client
    if client.proc.poll() is None:
        client.proc.kill()
        client.proc.wait()


def _stderr_after_exit(rpc: RpcClient) -> list[str]:
    rpc.close()
    rpc.stderr_reader.join(timeout=10)
    return rpc.stderr


def test_a_body_that_is_not_json_gets_parse_error_with_id_null_and_the_session_goes_on(rpc: RpcClient) -> None:
    rpc.send_body(b'{"jsonrpc":"2.0","id":99,"method":"textDocument/hover","params":')
    assert rpc.unmatched.get(timeout=30) == {
        "jsonrpc": "2.0", "id": None,
        "error": {"code": -32700, "message": "Parse error: the message is not JSON: "
                                             "Expecting value: line 1 column 65 (char 64)"}}
    rpc.send_body(b'{"jsonrpc":"2.0","id":5,"method":"x","params":{"a":"\xff"}}')  # not UTF-8
    answer = rpc.unmatched.get(timeout=30)
    assert answer["id"] is None and answer["error"]["code"] == -32700
    assert answer["error"]["message"].startswith("Parse error: the message is not JSON: 'utf-8' codec can't decode")
    # The next request is served as usual, and no notification was sent for either.
    assert rpc.request("textDocument/hover", HOVER) == {"jsonrpc": "2.0", "id": 2, "result": None}
    assert rpc.notifications == []
    err = _stderr_after_exit(rpc)
    assert not [line for line in err if "Traceback" in line], "".join(err)
    assert [line.split(" ", 2)[2] for line in err] == [
        "WARNING surface_lint.lsp: a message that is not JSON was answered with -32700: "
        "Expecting value: line 1 column 65 (char 64)\n",
        "WARNING surface_lint.lsp: a message that is not JSON was answered with -32700: 'utf-8' codec can't "
        "decode byte 0xff in position 52: invalid start byte\n"]


def test_json_that_is_not_a_json_rpc_object_gets_invalid_request(rpc: RpcClient) -> None:
    message = 'Invalid Request: a message must be a JSON object with "jsonrpc": "2.0"'
    rpc.send_body(b"[1, 2]")
    assert rpc.unmatched.get(timeout=30) == {"jsonrpc": "2.0", "id": None,
                                            "error": {"code": -32600, "message": message}}
    rpc.send_body(b'{"id": 42, "method": "textDocument/hover"}')
    assert rpc.unmatched.get(timeout=30) == {"jsonrpc": "2.0", "id": 42,
                                            "error": {"code": -32600, "message": message}}
    assert rpc.request("textDocument/hover", HOVER)["result"] is None


@pytest.mark.parametrize(("method", "params", "problem"), [
    ("surfaceLint/laneScore", {"uri": 7}, "expected a string, got 7 @ $.params.uri"),
    ("surfaceLint/laneScore", {}, "required field missing @ $.params.uri"),
    ("surfaceLint/laneScore", None, "expected an object, got null @ $.params"),
    ("surfaceLint/review", {"uri": 7}, "expected a string, got 7 @ $.params.uri"),
    ("surfaceLint/review", {"uri": "file:///x.jsonl", "failingOnly": "yes"},
     'expected a boolean, got "yes" @ $.params.failingOnly'),
    ("surfaceLint/review", {"uri": "file:///x.jsonl", "predicate": 3}, "expected a string, got 3 @ $.params.predicate"),
    ("surfaceLint/runs", {"uri": 7}, "expected a string, got 7 @ $.params.uri"),
    ("surfaceLint/runs", [], "expected an object, got an array @ $.params"),
    ("surfaceLint/runDiff", {"uri": 7}, "required field missing @ $.params.old"),
    ("surfaceLint/runDiff", {"old": "file:///a.json", "new": False}, "expected a string, got false @ $.params.new"),
    ("surfaceLint/runDiff", {"old": "file:///a.json", "new": "file:///b.json", "oldText": 1},
     "expected a string, got 1 @ $.params.oldText"),
])
def test_custom_requests_with_wrong_params_get_invalid_params(rpc: RpcClient, method: str, params: object,
                                                              problem: str) -> None:
    answer = rpc.request(method, params)
    assert answer == {"jsonrpc": "2.0", "id": 2,
                      "error": {"code": -32602, "message": f"invalid params for {method}: {problem}"}}


def test_custom_requests_with_right_params_are_served(rpc: RpcClient) -> None:
    # Optional fields may be absent or null (the extension sends `predicate: null`); runs needs no params.
    assert rpc.request("surfaceLint/laneScore", {"uri": "file:///nowhere.jsonl"})["result"] is None
    # Well-formed, so past the params check; outside the workspace, so refused by the server (not -32602).
    assert rpc.request("surfaceLint/review", {"uri": "file:///nowhere.jsonl", "predicate": None,
                                              "category": None, "failingOnly": False})["error"] == {
        "code": -32803, "message": "/nowhere.jsonl: surface-lint reads only files under a workspace folder and "
                                   "documents open in the editor; this file is outside them"}
    assert rpc.request("surfaceLint/runs", None)["result"] == []
    assert rpc.request("surfaceLint/runs", {})["result"] == []


def test_an_invalid_params_request_is_one_line_on_stderr_not_a_traceback(rpc: RpcClient) -> None:
    bad = {"textDocument": {"uri": "file:///nowhere.jsonl"}, "position": {"line": -1, "character": 0}}
    assert rpc.request("textDocument/hover", bad)["error"]["code"] == -32602
    assert rpc.request("surfaceLint/laneScore", {"uri": 7})["error"]["code"] == -32602
    err = _stderr_after_exit(rpc)
    assert [line.split(" ", 2)[2] for line in err] == [
        "WARNING surface_lint.lsp: invalid params for textDocument/hover (answered with -32602): "
        "Position.line should be in range [0:2147483647], but was -1. @ $.params.position\n",
        "WARNING surface_lint.lsp: invalid params for surfaceLint/laneScore (answered with -32602): "
        "expected a string, got 7 @ $.params.uri\n"]
