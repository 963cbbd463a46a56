"""The language server: a thin pygls 2.x layer over the engine.

* `wire` — JSON-RPC framing, lifecycle errors, `start()` (stdio or TCP);
* `server` — the session: lifecycle, settings, document sync, output;
* `scheduler` — when to lint (a worker pool, the newest version only);
* `documents` — open documents in client units; `lint` — one document version's lint;
* `workspace` — settings, configs, engines and case files;
* `features` — payloads and handlers, registered in one place (`features.register_features`).

Started by `surface-lint server [--tcp HOST:PORT]` through `start()`.
"""

from __future__ import annotations

from .wire import start

__all__ = ["start"]
