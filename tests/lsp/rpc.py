"""A minimal blocking JSON-RPC client over a server's stdio (for the property test).

pytest-lsp structures every message with cattrs; this one keeps raw JSON, reads in a
thread and lets a synchronous hypothesis test drive one server process for many examples.
"""

from __future__ import annotations

import json
import queue
import socket
import subprocess
import threading
from collections.abc import Sequence
from typing import IO, Any


def read_frame(out: IO[bytes]) -> bytes | None:
    """One LSP message body from a stream (Content-Length framing); None at end of stream.
    Shared with bench/lsp_latency.py, which times the moment a body is in."""
    length = 0
    while True:
        line = out.readline()
        if not line:
            return None
        if line in (b"\r\n", b"\n"):
            break
        if line.lower().startswith(b"content-length:"):
            length = int(line.split(b":")[1])
    return out.read(length)


class RpcClient:
    def __init__(self, command: Sequence[str], cwd: str | None = None) -> None:
        self.proc = subprocess.Popen(list(command), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, cwd=cwd)
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self._start(self.proc.stdout, self.proc.stdin)
        self.stderr_reader = threading.Thread(target=self._read_stderr, daemon=True)
        self.stderr_reader.start()

    def _start(self, out: IO[bytes], into: IO[bytes]) -> None:
        self._out = out
        self._in = into
        self._next = 0
        self._responses: dict[int, queue.Queue[dict[str, Any]]] = {}
        self._lock = threading.Lock()
        self.notifications: list[dict[str, Any]] = []
        self.unmatched: queue.Queue[dict[str, Any]] = queue.Queue()  # responses to no request of ours (id null)
        self.stderr: list[str] = []
        self.answers: dict[str, Any] = {}  # method -> the result given to the server's requests (else null)
        self.closed = threading.Event()  # the server closed the stream
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        out = self._out
        while True:
            try:
                body = read_frame(out)
            except (OSError, ValueError):
                body = None
            if body is None:
                self.closed.set()
                return
            message = json.loads(body)
            if "id" in message and "method" in message:  # a request from the server
                self._send({"jsonrpc": "2.0", "id": message["id"], "result": self.answers.get(message["method"])})
            elif "id" in message:
                with self._lock:
                    box = self._responses.get(message["id"])
                if box is not None:
                    box.put(message)
                else:
                    self.unmatched.put(message)
            else:
                self.notifications.append(message)

    def _read_stderr(self) -> None:
        err = self.proc.stderr
        assert err is not None
        for line in err:
            self.stderr.append(line.decode("utf-8", "replace"))

    def _send(self, message: dict[str, Any]) -> None:
        body = json.dumps(message).encode("utf-8")
        stdin = self._in
        with self._lock:
            stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
            stdin.flush()

    def send_body(self, body: bytes) -> None:
        """One frame holding exactly these bytes (JSON or not)."""
        with self._lock:
            self._in.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
            self._in.flush()

    def notify_together(self, messages: Sequence[tuple[str, Any]]) -> None:
        """Notifications (method, params) in one write: the server finds them all read at once."""
        data = b""
        for method, params in messages:
            body = json.dumps({"jsonrpc": "2.0", "method": method, "params": params}).encode("utf-8")
            data += b"Content-Length: %d\r\n\r\n" % len(body) + body
        with self._lock:
            self._in.write(data)
            self._in.flush()

    def request(self, method: str, params: Any, timeout: float = 30.0) -> dict[str, Any]:
        """Send a request and wait for its response (the whole message: result or error)."""
        with self._lock:
            self._next += 1
            msg_id = self._next
            box: queue.Queue[dict[str, Any]] = queue.Queue()
            self._responses[msg_id] = box
        self._send({"jsonrpc": "2.0", "id": msg_id, "method": method, "params": params})
        try:
            return box.get(timeout=timeout)
        finally:
            with self._lock:
                del self._responses[msg_id]

    def notify(self, method: str, params: Any) -> None:
        self._send({"jsonrpc": "2.0", "method": method, "params": params})

    def close(self) -> None:
        try:
            self.request("shutdown", None, timeout=10)
            self.notify("exit", None)
            self.proc.wait(timeout=10)
        except Exception:
            self.proc.kill()
            self.proc.wait()


class SocketRpcClient(RpcClient):
    """The same client over a TCP connection to `surface-lint server --tcp`."""

    def __init__(self, port: int) -> None:
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=30)
        self.sock.settimeout(None)
        self._start(self.sock.makefile("rb"), self.sock.makefile("wb"))

    def disconnect(self) -> None:
        self.sock.close()
