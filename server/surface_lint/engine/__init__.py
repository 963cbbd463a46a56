"""The engine's façade: what front ends (CLI, language server, reporters) import.

Submodules: `detect` (shape and lane of a file), `pipeline` (records joined with their case
and context, and the one `evaluate`), `check` (findings of a document), `score` (a lane's
outcomes folded into metrics), `details` (the runner's per-case fields), `compact` (bounded
per-case state), `results` (what the engine returns).
"""

from __future__ import annotations

from ..rules.loader import EXPECTED
from .core import Engine
from .details import build_details
from .detect import first_object
from .results import CaseIndex, DocResult, LaneResult, RecordInfo, UsageError

__all__ = ["EXPECTED", "CaseIndex", "DocResult", "Engine", "LaneResult", "RecordInfo", "UsageError",
           "build_details", "first_object"]
