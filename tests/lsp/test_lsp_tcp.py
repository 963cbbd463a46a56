"""TCP mode: each connection is its own session. A second local client never sees the first
one's diagnostics or documents, and its `exit` ends only its own connection."""

from __future__ import annotations

import re
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from lsp_support import FIXTURES, TRANSCRIPT
from rpc import SocketRpcClient


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture
def tcp_server() -> Iterator[int]:
    port = _free_port()
    proc = subprocess.Popen([sys.executable, "-m", "surface_lint", "server", "--tcp", f"127.0.0.1:{port}"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stderr is not None
        line = proc.stderr.readline()
        assert line == f"surface-lint server listening on 127.0.0.1:{port} (one session per connection)\n", line
        yield port
        assert proc.poll() is None, "a client's exit stopped the server"
    finally:
        proc.kill()
        proc.wait()


def _init(client: SocketRpcClient, root: Path) -> None:
    answer = client.request("initialize", {"processId": None, "rootUri": root.as_uri(), "capabilities": {}})
    assert "capabilities" in answer["result"]
    client.notify("initialized", {})


def _diagnostics_for(client: SocketRpcClient, uri: str, timeout: float = 30.0) -> list[dict[str, object]]:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for note in client.notifications:
            if note["method"] == "textDocument/publishDiagnostics" and note["params"]["uri"] == uri:
                return list(note["params"]["diagnostics"])
        time.sleep(0.02)
    raise AssertionError(f"no diagnostics for {uri}")


def test_each_connection_is_its_own_session(tcp_server: int) -> None:
    root = FIXTURES / "workspace"
    path = root / TRANSCRIPT
    uri = path.as_uri()
    first = SocketRpcClient(tcp_server)
    second = SocketRpcClient(tcp_server)
    try:
        _init(first, root)
        _init(second, root)
        first.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "jsonl", "version": 1,
                                                               "text": path.read_text(encoding="utf-8")}})
        codes = [d["code"] for d in _diagnostics_for(first, uri)]
        assert codes == ["SL103", "SL101"]
        hover = {"textDocument": {"uri": uri}, "position": {"line": 1, "character": 140}}
        assert first.request("textDocument/hover", hover)["result"] is not None
        # The second client does not have the first one's document, nor its diagnostics.
        assert second.request("textDocument/hover", hover)["result"] is None
        assert second.request("textDocument/documentSymbol", {"textDocument": {"uri": uri}})["result"] is None
        assert [n for n in second.notifications if n["method"] == "textDocument/publishDiagnostics"] == []
        # The second client's exit (without shutdown) ends its connection only.
        second.notify("exit", None)
        assert second.closed.wait(10)
        symbols = first.request("textDocument/documentSymbol", {"textDocument": {"uri": uri}})["result"]
        assert [s["name"] for s in symbols] == ["fl_harbor_003", "fl_tide_001", "fl_lamp_002", "fl_doubt_010"]
        # After shutdown the first session refuses requests; a new connection is served afresh.
        assert first.request("shutdown", None)["result"] is None
        assert first.request("textDocument/hover", hover)["error"]["code"] == -32600
        first.notify("exit", None)
        assert first.closed.wait(10)
        third = SocketRpcClient(tcp_server)
        try:
            _init(third, root)
            assert third.request("textDocument/hover", hover)["result"] is None
        finally:
            third.disconnect()
    finally:
        first.disconnect()
        second.disconnect()


def test_a_dropped_connection_does_not_stop_the_server(tcp_server: int) -> None:
    root = FIXTURES / "workspace"
    gone = SocketRpcClient(tcp_server)
    _init(gone, root)
    gone.disconnect()
    time.sleep(0.2)
    after = SocketRpcClient(tcp_server)
    try:
        _init(after, root)
    finally:
        after.disconnect()


@pytest.mark.parametrize("where", ["0.0.0.0:2087", "192.168.1.5:2087", "example.com:2087"])
def test_tcp_listens_on_loopback_only(where: str) -> None:
    done = subprocess.run([sys.executable, "-m", "surface_lint", "server", "--tcp", where],
                          capture_output=True, text=True, timeout=30)
    assert done.returncode == 2
    assert done.stderr == (f"surface-lint: error: --tcp {where}: the server listens on loopback only "
                           "(127.0.0.1, localhost or ::1)\n")


@pytest.mark.parametrize(("where", "shown"), [("127.0.0.1:0", "127.0.0.1"), ("localhost:0", "127.0.0.1"),
                                             (":0", "127.0.0.1")])
def test_port_0_listens_on_a_free_port_and_prints_it(where: str, shown: str) -> None:
    proc = subprocess.Popen([sys.executable, "-m", "surface_lint", "server", "--tcp", where],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stderr is not None
        line = proc.stderr.readline()
        found = re.fullmatch(rf"surface-lint server listening on {re.escape(shown)}:(\d+) \(one session per "
                             r"connection\)\n", line)
        assert found is not None, line
        port = int(found.group(1))
        assert 1 <= port <= 65535
        client = SocketRpcClient(port)
        try:
            answer = client.request("initialize", {"processId": None, "rootUri": None, "capabilities": {}})
            assert answer["result"]["serverInfo"]["name"] == "surface-lint"
            client.notify("initialized", {})
            assert client.request("shutdown", None) == {"jsonrpc": "2.0", "id": 2, "result": None}
            client.notify("exit", None)
            assert client.closed.wait(10), "exit closes the connection"
        finally:
            client.disconnect()
        assert proc.poll() is None, "the server keeps listening after one session's exit"
        with socket.create_connection(("127.0.0.1", port), timeout=10):
            pass
    finally:
        proc.kill()
        _, err = proc.communicate(timeout=30)
    assert "Traceback" not in err, err
