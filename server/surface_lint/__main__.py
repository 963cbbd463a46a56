"""The `surface-lint` command and `python -m surface_lint`: the command line, handed the language
server's entry point (the package's face wires the two; cli and lsp never import each other)."""

from __future__ import annotations

import sys
from collections.abc import Sequence

from .cli.main import StartServer
from .cli.main import main as cli_main


def load_server() -> StartServer:
    """The language server's `start` (imports pygls: only `surface-lint server` calls this)."""
    from .lsp import start

    return start


def main(argv: Sequence[str] | None = None) -> int:
    return cli_main(argv, load_server)


if __name__ == "__main__":
    sys.exit(main())
