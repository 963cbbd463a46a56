"""What the engine's parts (check, score, casegroup, casefile) need of the engine: its settings,
severity levels and lanes, and how it reads a file. `core.Engine` provides it; the parts are
typed against this protocol, so none of them imports the façade above it (no circle)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol

from ..rules.loader import Lane
from .config import Config


class EngineServices(Protocol):
    config: Config
    profile: str
    severity_levels: dict[str, str]

    def lane(self, name: str) -> Lane: ...

    def reference_lane(self, name: str) -> Lane | None: ...

    def detect_lane(self, path: str, kind: str | None, hint: str | None = None,
                    first: Mapping[str, Any] | None = None) -> Lane | None: ...

    def read_bytes(self, path: str) -> bytes: ...
