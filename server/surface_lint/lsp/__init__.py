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
import sys
from pathlib import Path

from .. import __version__
from .early import answer_initialize

for _name in ("pygls", "lsprotocol"):  # the command line says how to install them (cli.run_server)
    if importlib.util.find_spec(_name) is None:
        raise ModuleNotFoundError(f"No module named {_name!r}", name=_name)


def start(address: tuple[str, int] | None = None, token_file: Path | None = None) -> None:
    """Run the server (main.start); on stdio, `initialize` is answered before the server is imported."""
    first = None
    if address is None and token_file is None:
        first = answer_initialize(sys.stdin.buffer, sys.stdout.buffer, __version__)
    from .main import start as serve

    serve(address, token_file, first)


__all__ = ["start"]
