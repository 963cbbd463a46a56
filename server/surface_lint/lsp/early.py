"""The answer to `initialize` before the server is imported (start-up time, docs/editor.md).

Importing pygls and lsprotocol (and the engine behind the features) takes about a second, and
a client waits for the answer to `initialize` before it sends anything else. On stdio the first
message is read here, with the standard library only; when it is an `initialize` request whose
params have the shape LSP 3.17 gives them, it is answered at once with the capabilities the
server registers (`RESULT`; `tests/lsp/test_lsp_early.py` holds it equal to what the server's
own `initialize` computes for real editors' capabilities). The server is then imported and the
message handed to it, so it initializes exactly as it would have, and its own answer is not sent
a second time (`wire.Protocol.answered_early`).

Any other first message (a request before `initialize`, a notification, `exit`, a body that is
not JSON, params of another shape, the end of the stream) is not answered here: it goes to the
server unread, which answers it as LSP says (-32002, -32602, exit 1, ...). TCP sessions are not
answered early (each must show its token first).
"""

from __future__ import annotations

import json
import os
import re
import select
from typing import IO, Any

CONTENT_LENGTH = re.compile(rb"^Content-Length: (\d+)\r\n$")  # the framing wire.read_messages reads
SERVER_NAME = "surface-lint"
# What pygls's capabilities builder makes of the features the server registers (text sync
# incremental, no willSave, no rename, no file operations). Two things depend on the client: the
# position encoding, and whether `willSave` and `willSaveWaitUntil` are said (false) or left out
# (pygls says them when the client's textDocument.synchronization gives them).
CAPABILITIES: dict[str, Any] = {
    "textDocumentSync": {"openClose": True, "change": 2, "save": {"includeText": False}},
    "completionProvider": {"triggerCharacters": ['"', "[", ",", "{"]},
    "hoverProvider": True,
    "definitionProvider": True,
    "referencesProvider": True,
    "documentSymbolProvider": True,
    "codeActionProvider": {"codeActionKinds": ["quickfix"]},
    "codeLensProvider": {"resolveProvider": False},
    "executeCommandProvider": {"commands": []},
    "diagnosticProvider": {"identifier": "surface-lint", "interFileDependencies": True, "workspaceDiagnostics": True},
    "workspace": {"workspaceFolders": {"supported": True, "changeNotifications": True}, "fileOperations": {}},
}
ENCODINGS = ("utf-8", "utf-16", "utf-32")  # pygls's: the first the client lists wins, else utf-16
TRACES = ("off", "messages", "verbose")


def read_frame(stream: Any) -> bytes | None:
    """One message body, framed as `wire.read_messages` frames it; None at the end of the stream."""
    content_length = 0
    while True:
        header = stream.readline()
        if not header:
            return None
        if not content_length:
            match = CONTENT_LENGTH.fullmatch(header)
            if match:
                content_length = int(match.group(1))
        if content_length and not header.strip():
            body = stream.read(content_length)
            return body if len(body) == content_length else None


TIMEOUT = object()  # FrameReader.frame: no message came in time


class FrameReader:
    """A file descriptor read with this module's own buffer, so that it can wait for the next
    message with a timeout (`frame`; POSIX `select`); `readline` and `read` as a stream's, and
    `rest()`, the bytes read beyond the messages taken, for the server to read first."""

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self.buffer = b""
        self.eof = False

    def _fill(self, timeout: float | None) -> bool:
        """More bytes into the buffer; False when none came within `timeout` seconds."""
        if self.eof:
            return True
        if timeout is not None and not select.select([self.fd], [], [], timeout)[0]:
            return False
        chunk = os.read(self.fd, 65536)
        self.eof = not chunk
        self.buffer += chunk
        return True

    def readline(self) -> bytes:
        while b"\n" not in self.buffer and not self.eof:
            self._fill(None)
        end = self.buffer.find(b"\n") + 1 or len(self.buffer)
        line, self.buffer = self.buffer[:end], self.buffer[end:]
        return line

    def read(self, n: int) -> bytes:
        while len(self.buffer) < n and not self.eof:
            self._fill(None)
        data, self.buffer = self.buffer[:n], self.buffer[n:]
        return data

    def frame(self, timeout: float) -> object:
        """The next message body (framed as `read_frame` frames it), None at the end of the
        stream, TIMEOUT when no whole message came with `timeout` seconds between bytes."""
        while True:
            at, content_length = 0, 0
            while True:  # read_frame's loop, on the buffer
                end = self.buffer.find(b"\n", at) + 1
                if not end:
                    break
                header, at = self.buffer[at:end], end
                if not content_length:
                    match = CONTENT_LENGTH.fullmatch(header)
                    if match:
                        content_length = int(match.group(1))
                if content_length and not header.strip():
                    if len(self.buffer) - at >= content_length:
                        body, self.buffer = self.buffer[at:at + content_length], self.buffer[at + content_length:]
                        return body
                    break
            if self.eof:
                return None
            if not self._fill(timeout):
                return TIMEOUT

    def rest(self) -> bytes:
        return self.buffer


class Prefixed:
    """A stream that gives `head` first, then what `stream` gives (`readline`, `read`)."""

    def __init__(self, head: bytes, stream: IO[bytes]) -> None:
        self.head = head
        self.stream = stream

    def readline(self) -> bytes:
        if not self.head:
            return self.stream.readline()
        end = self.head.find(b"\n") + 1
        if end:
            line, self.head = self.head[:end], self.head[end:]
            return line
        line, self.head = self.head, b""
        return line + self.stream.readline()

    def read(self, n: int) -> bytes:
        if not self.head:
            return self.stream.read(n)
        data, self.head = self.head[:n], self.head[n:]
        return data + self.stream.read(n - len(data)) if len(data) < n else data


def _is_id(value: Any) -> bool:
    return isinstance(value, (str, int)) and not isinstance(value, bool)


def _optional(params: dict[str, Any], name: str, kind: type) -> bool:
    value = params.get(name)
    return value is None or (isinstance(value, kind) and not isinstance(value, bool))


def _folders_ok(folders: Any) -> bool:
    return folders is None or (isinstance(folders, list) and all(
        isinstance(f, dict) and isinstance(f.get("uri"), str) and isinstance(f.get("name"), str) for f in folders))


def initialize_request(body: bytes) -> tuple[Any, dict[str, Any]] | None:
    """(id, params) of an `initialize` request whose top-level params have LSP's shape, else None."""
    try:
        message = json.loads(body)
    except (ValueError, RecursionError):
        return None
    if not (isinstance(message, dict) and message.get("jsonrpc") == "2.0" and message.get("method") == "initialize"
            and _is_id(message.get("id"))):
        return None
    params = message.get("params")
    if not isinstance(params, dict) or not isinstance(params.get("capabilities"), dict):
        return None
    if not _optional(params, "processId", int):
        return None
    if not all(_optional(params, name, str) for name in ("rootUri", "rootPath", "locale")):
        return None
    info = params.get("clientInfo")
    if info is not None and not (isinstance(info, dict) and isinstance(info.get("name"), str)
                                 and _optional(info, "version", str)):
        return None
    trace = params.get("trace")
    token = params.get("workDoneToken")
    if (trace is not None and trace not in TRACES) or (token is not None and not _is_id(token)):
        return None
    if not _folders_ok(params.get("workspaceFolders")) or position_encoding(params) is None:
        return None
    if _synchronization(params) is None:
        return None
    return message["id"], params


def _synchronization(params: dict[str, Any]) -> dict[str, Any] | None:
    """The client's textDocument.synchronization capabilities ({} when not given), None when not objects."""
    text = params["capabilities"].get("textDocument")
    if text is None:
        return {}
    if not isinstance(text, dict):
        return None
    sync = text.get("synchronization")
    if sync is None:
        return {}
    return sync if isinstance(sync, dict) else None


def position_encoding(params: dict[str, Any]) -> str | None:
    """The encoding pygls chooses for these params (None: `positionEncodings` is not a list of strings)."""
    general = params["capabilities"].get("general")
    if general is None:
        return "utf-16"
    if not isinstance(general, dict):
        return None
    encodings = general.get("positionEncodings")
    if encodings is None:
        return "utf-16"
    if not isinstance(encodings, list) or not all(isinstance(e, str) for e in encodings):
        return None
    return next((e for e in encodings if e in ENCODINGS), "utf-16")


def initialize_result(params: dict[str, Any], version: str) -> dict[str, Any]:
    """The server's answer to `initialize` with these params."""
    encoding = position_encoding(params)
    sync = dict(CAPABILITIES["textDocumentSync"])
    for name in ("willSave", "willSaveWaitUntil"):
        if (_synchronization(params) or {}).get(name) is not None:
            sync[name] = False  # the server registers neither
    return {"capabilities": {"positionEncoding": encoding, **CAPABILITIES, "textDocumentSync": sync},
            "serverInfo": {"name": SERVER_NAME, "version": version}}


def answer_initialize(stdin: Any, stdout: IO[bytes], version: str) -> tuple[bytes | None, Any]:
    """Read the first message; answer it when it is `initialize`. Returns (the body, or None at
    the end of the stream; the id answered, or None when nothing was)."""
    body = read_frame(stdin)
    if body is None:
        return None, None
    request = initialize_request(body)
    if request is None:
        return body, None
    msg_id, params = request
    send(stdout, json.dumps({"jsonrpc": "2.0", "id": msg_id, "result": initialize_result(params, version)},
                            separators=(",", ":")))
    return body, msg_id


def send(stdout: IO[bytes], message: str) -> None:
    """One message on the wire, framed as the server frames its own."""
    data = message.encode("utf-8")
    stdout.write(b"Content-Length: %d\r\n"
                 b"Content-Type: application/vscode-jsonrpc; charset=utf-8\r\n\r\n" % len(data) + data)
    stdout.flush()
