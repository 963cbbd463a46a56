"""Starting the language server: stdio, or TCP with one session per connection.

The top of the package: it builds servers (`server.create_server`) and runs them on the wire's
read loop (`wire.read_messages`); nothing in the package imports it but `__init__`.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import secrets
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any, NamedTuple

from pygls.io_ import StdinAsyncReader, StdoutWriter

from ..engine import UsageError
from .server import create_server
from .wire import log, read_messages
from .workspace import ServerState

TOKEN_ENV = "SURFACE_LINT_TOKEN"
TOKEN_FILE_LIMIT = 4096  # bytes read of a --token-file (a token is one short line)


def start(address: tuple[str, int] | None = None, token_file: Path | None = None,
          first: Handover | None = None) -> None:
    """Run the server on stdio, or on TCP at (host, port) as cli.parse_tcp gives it (port 0:
    any free port); exits with the LSP exit code. On TCP every client must give the token
    (`tcp_token`) in `initialize`. `first`: on stdio, what was read and answered before the
    server was imported (early.py, first.py)."""
    logging.basicConfig(level=logging.WARNING, stream=sys.stderr,
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    if address is not None:
        token, shown = tcp_token(token_file, os.environ.get(TOKEN_ENV))
        asyncio.run(serve_tcp(*address, token=token, show_token=shown))
        return
    if token_file is not None:
        raise UsageError("--token-file is for --tcp: a server on stdio talks only to the client that started it")
    code = serve_stdio(first)
    sys.stdout.flush()
    sys.stderr.flush()
    # Hard exit: pygls's stdin reader thread may still block on a stream the client keeps open.
    os._exit(code)


class Handover(NamedTuple):
    """What was read and answered before the server was imported, on stdio: the message bodies
    (the first is `initialize`, if any), the id of the `initialize` early.py answered (None if it
    did not), the requests first.py answered ({id: (document URI, result JSON)}), the stream to
    read on, the open first.py published ({URI: (version, diagnostics JSON)}), and the session
    state first.py linted with (`first.First.state`; None: the server starts its own)."""

    bodies: list[bytes]
    initialize_id: Any
    answered: dict[Any, tuple[str, str]]
    stdin: Any
    published: dict[str, tuple[int, list[str]]]
    state: ServerState | None


def serve_stdio(first: Handover | None = None) -> int:
    server = create_server()
    protocol = server.raw
    first = first or Handover([], None, {}, sys.stdin.buffer, {}, None)

    def stop(code: int) -> None:
        raise SystemExit(code)  # ends pygls's loop; the code is kept on the protocol

    protocol.on_exit = stop
    # pygls's start_io, with our read loop (see read_messages).
    server._stop_event = stop_event = threading.Event()
    protocol.set_writer(StdoutWriter(sys.stdout.buffer))

    async def serve() -> None:
        # early.py's and first.py's: the server reads them as if they came first on the wire.
        if first.state is not None:
            # Built by the same `start_session` from the same `initialize` params (which the
            # server applies again: unchanged, nothing is invalidated), so its caches hold; the
            # server's own lint of the first document then re-checks no line.
            server.state = first.state
        if first.initialize_id is not None:
            protocol.answered_early = (first.initialize_id, json.loads(first.bodies[0])["params"])
        protocol.answered_first = dict(first.answered)
        for uri, report in first.answered.values():
            given = json.loads(report)
            server.first_reports[uri] = (given["resultId"], given["items"])
        # The document's first lint does not publish that version again when its diagnostics are these.
        server.scheduler.early = dict(first.published)
        for body in first.bodies:
            protocol.receive(body, server.report_server_error)
        await read_messages(stop_event, StdinAsyncReader(first.stdin, server.thread_pool), protocol,
                            server.report_server_error)

    try:
        asyncio.run(serve())
    except BrokenPipeError:
        log.error("the client closed the connection")
    except (KeyboardInterrupt, SystemExit):
        pass
    finally:
        server.shutdown()
    server.close_session()
    if protocol.exit_code is not None:
        return protocol.exit_code
    return 0 if protocol._shutdown else 1  # the client went away: clean only after shutdown


def tcp_token(token_file: Path | None, from_env: str | None) -> tuple[str, bool]:
    """The token TCP clients must give, and whether it is printed at start: the first line of
    `token_file`, else the environment's SURFACE_LINT_TOKEN, else a new random one (printed)."""
    if token_file is not None:
        try:
            with open(token_file, "rb") as handle:
                head = handle.read(TOKEN_FILE_LIMIT + 1)
        except OSError as exc:
            raise UsageError(f"--token-file {token_file}: cannot read: {exc.strerror or exc}") from None
        if len(head) > TOKEN_FILE_LIMIT:
            raise UsageError(f"--token-file {token_file}: longer than {TOKEN_FILE_LIMIT} bytes; a token is one line")
        try:
            token = head.decode("utf-8").strip()
        except UnicodeDecodeError:
            raise UsageError(f"--token-file {token_file}: not UTF-8 text") from None
        if not token or "\n" in token:
            raise UsageError(f"--token-file {token_file}: give the token on one line, alone")
        return token, False
    if from_env is not None and from_env.strip():
        return from_env.strip(), False
    return secrets.token_urlsafe(24), True


async def serve_tcp(host: str, port: int, ready: Callable[[int], None] | None = None, *, token: str,
                    show_token: bool = True) -> None:
    """Serve each TCP connection its own session until the process is stopped; a client that
    does not give `token` in `initialize` is refused and disconnected."""
    async def connection(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await run_session(reader, writer, token)

    listener = await asyncio.start_server(connection, host, port)
    bound = listener.sockets[0].getsockname()[1]
    # One plain line a client reads the port from (port 0 gives a free one): HOST:PORT as --tcp takes it.
    shown = f"[{host}]" if ":" in host else host
    print(f"surface-lint server listening on {shown}:{bound} (one session per connection)", file=sys.stderr,
          flush=True)
    # The token on a line of its own: a client gives it as initializationOptions.token.
    print(f"surface-lint server token: {token}" if show_token else
          "surface-lint server token: the one given (--token-file or SURFACE_LINT_TOKEN)", file=sys.stderr, flush=True)
    if ready is not None:
        ready(bound)
    async with listener:
        await listener.serve_forever()


async def run_session(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, token: str) -> None:
    """One client's session on one connection; its `exit` closes this connection only."""
    server = create_server()
    protocol = server.raw
    protocol.token = token
    stopped = threading.Event()

    def stop(code: int) -> None:
        stopped.set()
        writer.close()

    protocol.on_exit = stop
    protocol.set_writer(writer)
    try:
        await read_messages(stopped, reader, protocol, server.report_server_error)
    except (ConnectionError, asyncio.IncompleteReadError):
        pass
    finally:
        server.close_session()
        server.shutdown()  # this session's pygls pool (nothing shared with other sessions)
        if not writer.is_closing():
            writer.close()
