"""The language server: a thin pygls 2.x layer over the engine.

Modules, lowest first (each imports only those above it; `tests/lsp/test_lsp_imports.py`
checks there is no circle):

* `early` — the answer to `initialize` before anything else is imported (standard library only);
* `documents` — open documents in client units; `wire` — JSON-RPC framing, lifecycle errors;
* `lint` — one document version's lint (and `EngineEntry`, what it runs with);
* `workspace` — settings, configs, engines and case files;
* `features.common`, `diagnostic_json` — positions, Markdown, the diagnostics JSON builder;
* `scheduler` — when to lint (a worker pool, the newest version only);
* `host` — the server's API as a protocol, what feature modules are given;
* `features.*` — payloads and handlers, each module's `register(server: Host)`;
* `server` — the session: lifecycle, settings, document sync, output; registers the
  features (`server.FEATURE_MODULES`, the one place they are listed);
* `main` — `start()`: stdio, or TCP with a session per connection.

Started by `surface-lint server [--tcp HOST:PORT]` through `start()`, which on stdio answers
`initialize` (early.py) before it imports `main` and with it pygls, lsprotocol and the engine.
Importing this package imports neither: it only checks that they are installed.
"""

from __future__ import annotations

import importlib.util
import json
import os
import sys
from pathlib import Path
from typing import Any

from .. import __version__
from .early import FrameReader, Prefixed, answer_initialize

FIRST_ENV = "SURFACE_LINT_NO_FIRST_LINT"  # set: the first diagnostics wait for the whole server (tests compare)

for _name in ("pygls", "lsprotocol"):  # the command line says how to install them (cli.run_server)
    if importlib.util.find_spec(_name) is None:
        raise ModuleNotFoundError(f"No module named {_name!r}", name=_name)


def start(address: tuple[str, int] | None = None, token_file: Path | None = None) -> None:
    """Run the server (main.start); on stdio, `initialize` is answered before the server is
    imported, and on POSIX the first diagnostics of a document opened then too (first.py: the
    answer to the first pull, or the first publish to a client that does not pull)."""
    if address is not None or token_file is not None:
        from .main import start as serve

        serve(address, token_file)
        return
    stdin: Any = sys.stdin.buffer
    if os.name == "posix":
        stdin = FrameReader(sys.stdin.buffer.fileno())
    body, answered = answer_initialize(stdin, sys.stdout.buffer, __version__)
    bodies = [body] if body is not None else []
    first: dict[Any, tuple[str, str]] = {}
    published: dict[str, tuple[int, list[str]]] = {}
    state = None
    if answered is not None and isinstance(stdin, FrameReader) and FIRST_ENV not in os.environ:
        from .first import first_diagnostics

        more, first, published, state = first_diagnostics(stdin, sys.stdout.buffer, json.loads(bodies[0])["params"])
        bodies += more
    if isinstance(stdin, FrameReader):
        stdin = Prefixed(stdin.rest(), sys.stdin.buffer)
    from .main import Handover
    from .main import start as serve

    serve(None, None, Handover(bodies, answered, first, stdin, published, state))


__all__ = ["start"]
