"""The language server: a thin pygls 2.x layer over the engine.

Modules, lowest first (each imports only those above it; `tests/lsp/test_lsp_imports.py`
checks there is no circle):

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

Started by `surface-lint server [--tcp HOST:PORT]` through `start()`.
"""

from __future__ import annotations

from .main import start

__all__ = ["start"]
