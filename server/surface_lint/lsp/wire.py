"""The JSON-RPC wire: pygls's protocol with our document store and pre-serialised results,
and `start()` (stdio or TCP)."""

from __future__ import annotations

import asyncio
import inspect
import json
import logging
import sys
from typing import Any, ClassVar

from lsprotocol import types
from pygls.protocol import LanguageServerProtocol, lsp_method


class RawResult(str):
    """A handler result that is already JSON text (sent as is, without cattrs)."""


class Protocol(LanguageServerProtocol):
    """pygls's protocol, with our own document store and pre-serialised results.

    Open documents live in `ServerState.docs` (lines split as the engine reads files, edits
    applied in O(edit)); pygls's workspace copy of them is not kept.
    """

    @lsp_method(types.TEXT_DOCUMENT_DID_OPEN)
    def lsp_text_document__did_open(self, params: types.DidOpenTextDocumentParams) -> Any:
        if (handler := self.fm.features.get(types.TEXT_DOCUMENT_DID_OPEN)) is not None:
            yield handler, (params,), None

    @lsp_method(types.TEXT_DOCUMENT_DID_CHANGE)
    def lsp_text_document__did_change(self, params: types.DidChangeTextDocumentParams) -> Any:
        if (handler := self.fm.features.get(types.TEXT_DOCUMENT_DID_CHANGE)) is not None:
            yield handler, (params,), None

    @lsp_method(types.TEXT_DOCUMENT_DID_CLOSE)
    def lsp_text_document__did_close(self, params: types.DidCloseTextDocumentParams) -> Any:
        if (handler := self.fm.features.get(types.TEXT_DOCUMENT_DID_CLOSE)) is not None:
            yield handler, (params,), None

    _writes: ClassVar[set[asyncio.Future[Any]]] = set()  # pending async writes, kept alive until done

    def _send_response(self, msg_id: Any, result: Any | None = None, error: Any = None) -> None:
        if error is None and isinstance(result, RawResult):
            self.send_raw('{"jsonrpc":"2.0","id":' + json.dumps(msg_id) + ',"result":' + result + "}")
            return
        super()._send_response(msg_id, result, error)

    def send_raw(self, body: str) -> None:
        """Write one JSON-RPC message that is already JSON text."""
        if self.writer is None:
            return
        data = body.encode("utf-8")
        if self._include_headers:
            data = (f"Content-Length: {len(data)}\r\n"
                    f"Content-Type: {self.CONTENT_TYPE}; charset={self.CHARSET}\r\n\r\n").encode() + data
        written = self.writer.write(data)
        if inspect.isawaitable(written):
            task = asyncio.ensure_future(written)
            self._writes.add(task)
            task.add_done_callback(self._writes.discard)




def start(tcp: str | None = None) -> None:
    """Run the server on stdio, or on TCP when given HOST:PORT."""
    from .server import create_server

    logging.basicConfig(level=logging.WARNING, stream=sys.stderr,
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    server = create_server()
    if tcp:
        host, _, port = tcp.rpartition(":")
        server.start_tcp(host or "127.0.0.1", int(port))
    else:
        server.start_io()
