"""Starting the language server: stdio, or TCP with one session per connection.

The top of the package: it builds servers (`server.create_server`) and runs them on the wire's
read loop (`wire.read_messages`); nothing in the package imports it but `__init__`.
"""

from __future__ import annotations

import asyncio
import logging
import os
import sys
import threading
from collections.abc import Callable

from pygls.io_ import StdinAsyncReader, StdoutWriter

from .server import create_server
from .wire import log, read_messages


def start(address: tuple[str, int] | None = None) -> None:
    """Run the server on stdio, or on TCP at (host, port) as cli.parse_tcp gives it (port 0:
    any free port); exits with the LSP exit code."""
    logging.basicConfig(level=logging.WARNING, stream=sys.stderr,
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    if address is not None:
        asyncio.run(serve_tcp(*address))
        return
    code = serve_stdio()
    sys.stdout.flush()
    sys.stderr.flush()
    # Hard exit: pygls's stdin reader thread may still block on a stream the client keeps open.
    os._exit(code)


def serve_stdio() -> int:
    server = create_server()
    protocol = server.raw

    def stop(code: int) -> None:
        raise SystemExit(code)  # ends pygls's loop; the code is kept on the protocol

    protocol.on_exit = stop
    # pygls's start_io, with our read loop (see read_messages).
    server._stop_event = stop_event = threading.Event()
    protocol.set_writer(StdoutWriter(sys.stdout.buffer))
    try:
        asyncio.run(read_messages(stop_event, StdinAsyncReader(sys.stdin.buffer, server.thread_pool), protocol,
                                  server.report_server_error))
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


async def serve_tcp(host: str, port: int, ready: Callable[[int], None] | None = None) -> None:
    """Serve each TCP connection its own session until the process is stopped."""
    async def connection(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await run_session(reader, writer)

    listener = await asyncio.start_server(connection, host, port)
    bound = listener.sockets[0].getsockname()[1]
    # One plain line a client reads the port from (port 0 gives a free one): HOST:PORT as --tcp takes it.
    shown = f"[{host}]" if ":" in host else host
    print(f"surface-lint server listening on {shown}:{bound} (one session per connection)", file=sys.stderr,
          flush=True)
    if ready is not None:
        ready(bound)
    async with listener:
        await listener.serve_forever()


async def run_session(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    """One client's session on one connection; its `exit` closes this connection only."""
    server = create_server()
    protocol = server.raw
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
