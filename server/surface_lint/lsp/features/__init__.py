"""The server's features: each module builds its payloads from lint results and registers
its handlers with `register(server)`. This is the one place where feature modules are listed.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from . import code_actions, completion, diagnostics, hover, lane_score, review, symbols

if TYPE_CHECKING:
    from ..server import SurfaceLintServer

FEATURE_MODULES = (diagnostics, hover, completion, code_actions, symbols, lane_score, review)


def register_features(server: SurfaceLintServer) -> None:
    for module in FEATURE_MODULES:
        module.register(server)
