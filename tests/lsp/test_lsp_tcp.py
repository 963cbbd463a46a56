"""TCP mode: each connection is its own session. A second local client never sees the first
one's diagnostics or documents, and its `exit` ends only its own connection."""

from __future__ import annotations

import os
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

TOKEN = "t0ken-for-tests"  # given by the environment, as a launcher that starts the server would
REFUSED = {"code": -32803, "message": "this surface-lint server needs its token: pass it as "
           "initializationOptions.token (it is printed when the server starts, or set with --token-file or "
           "SURFACE_LINT_TOKEN)"}


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture
def tcp_server() -> Iterator[int]:
    port = _free_port()
    proc = subprocess.Popen([sys.executable, "-m", "surface_lint", "server", "--tcp", f"127.0.0.1:{port}"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env={**os.environ, "SURFACE_LINT_TOKEN": TOKEN})
    try:
        assert proc.stderr is not None
        line = proc.stderr.readline()
        assert line == f"surface-lint server listening on 127.0.0.1:{port} (one session per connection)\n", line
        line = proc.stderr.readline()
        assert line == "surface-lint server token: the one given (--token-file or SURFACE_LINT_TOKEN)\n", line
        yield port
        assert proc.poll() is None, "a client's exit stopped the server"
    finally:
        proc.kill()
        proc.wait()


def _init(client: SocketRpcClient, root: Path, token: str = TOKEN) -> None:
    answer = client.request("initialize", {"processId": None, "rootUri": root.as_uri(), "capabilities": {},
                                           "initializationOptions": {"token": token}})
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


@pytest.mark.parametrize("options", [None, {}, {"token": "wrong"}, {"token": 7}, "t0ken-for-tests"])
def test_a_second_local_client_without_the_token_is_refused(tcp_server: int, options: object) -> None:
    root = FIXTURES / "workspace"
    path = root / TRANSCRIPT
    first = SocketRpcClient(tcp_server)
    second = SocketRpcClient(tcp_server)
    try:
        _init(first, root)
        # Before initialize nothing is served; a wrong or missing token is refused and disconnected.
        symbols = {"textDocument": {"uri": path.as_uri()}}
        assert second.request("textDocument/documentSymbol", symbols)["error"] == {
            "code": -32002, "message": "textDocument/documentSymbol before initialize"}
        params: dict[str, object] = {"processId": None, "rootUri": root.as_uri(), "capabilities": {}}
        if options is not None:
            params["initializationOptions"] = options
        answer = second.request("initialize", params)
        assert answer == {"jsonrpc": "2.0", "id": 2, "error": REFUSED}
        assert second.closed.wait(10), "a refused client is disconnected"
        # The first client's session goes on.
        first.notify("textDocument/didOpen", {"textDocument": {"uri": path.as_uri(), "languageId": "jsonl",
                                                               "version": 1, "text": path.read_text("utf-8")}})
        assert [d["code"] for d in _diagnostics_for(first, path.as_uri())] == ["SL103", "SL101"]
    finally:
        first.disconnect()
        second.disconnect()


def test_the_token_comes_from_a_file(tmp_path: Path) -> None:
    port = _free_port()
    token_file = tmp_path / "token"
    token_file.write_text("from-a-file\n", encoding="utf-8")
    proc = subprocess.Popen([sys.executable, "-m", "surface_lint", "server", "--tcp", f"127.0.0.1:{port}",
                             "--token-file", str(token_file)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, env={**os.environ, "SURFACE_LINT_TOKEN": TOKEN})
    try:
        assert proc.stderr is not None
        assert proc.stderr.readline().startswith("surface-lint server listening on ")
        proc.stderr.readline()
        client = SocketRpcClient(port)
        try:
            _init(client, FIXTURES / "workspace", token="from-a-file")
            assert client.request("shutdown", None)["result"] is None
        finally:
            client.disconnect()
        refused = SocketRpcClient(port)
        try:
            answer = refused.request("initialize", {"processId": None, "rootUri": None, "capabilities": {},
                                                    "initializationOptions": {"token": TOKEN}})
            assert answer["error"] == REFUSED, "the file's token wins over the environment's"
        finally:
            refused.disconnect()
    finally:
        proc.kill()
        proc.communicate(timeout=30)


@pytest.mark.parametrize(("content", "message"), [
    (b"", "give the token on one line, alone"),
    (b"two\nlines\n", "give the token on one line, alone"),
    (b"\xff\xfe", "not UTF-8 text"),
    (b"x" * 5000, "longer than 4096 bytes; a token is one line"),
])
def test_a_bad_token_file_is_exit_2(tmp_path: Path, content: bytes, message: str) -> None:
    token_file = tmp_path / "token"
    token_file.write_bytes(content)
    done = subprocess.run([sys.executable, "-m", "surface_lint", "server", "--tcp", "127.0.0.1:0",
                           "--token-file", str(token_file)], capture_output=True, text=True, timeout=60)
    assert (done.returncode, done.stdout, done.stderr) == (
        2, "", f"surface-lint: error: --token-file {token_file}: {message}\n")


def test_a_token_file_without_tcp_is_exit_2(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, "-m", "surface_lint", "server", "--token-file", str(tmp_path / "t")],
                          capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)
    assert (done.returncode, done.stdout, done.stderr) == (
        2, "", "surface-lint: error: --token-file is for --tcp: a server on stdio talks only to the client that "
        "started it\n")


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
    env = {k: v for k, v in os.environ.items() if k != "SURFACE_LINT_TOKEN"}
    proc = subprocess.Popen([sys.executable, "-m", "surface_lint", "server", "--tcp", where],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    try:
        assert proc.stderr is not None
        line = proc.stderr.readline()
        found = re.fullmatch(rf"surface-lint server listening on {re.escape(shown)}:(\d+) \(one session per "
                             r"connection\)\n", line)
        assert found is not None, line
        port = int(found.group(1))
        assert 1 <= port <= 65535
        # No token given: a new one, printed (32 URL-safe characters, 192 random bits).
        printed = re.fullmatch(r"surface-lint server token: ([A-Za-z0-9_-]{32})\n", proc.stderr.readline())
        assert printed is not None
        client = SocketRpcClient(port)
        try:
            answer = client.request("initialize", {"processId": None, "rootUri": None, "capabilities": {},
                                                   "initializationOptions": {"token": printed.group(1)}})
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
