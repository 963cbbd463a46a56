"""The severity levels a `[severity]` table accepts and their aliases, read from the one table
(`severity_levels.json`, which the VS Code extension tests against). Imports nothing of ours."""

from __future__ import annotations

import json
from pathlib import Path

_TABLE = json.loads((Path(__file__).with_name("severity_levels.json")).read_text("utf-8"))

LEVELS: tuple[str, ...] = tuple(_TABLE["levels"])
ALIASES: dict[str, str] = dict(_TABLE["aliases"])


def normalize_level(value: object) -> str | None:
    """`"Info "` -> `"information"`; None for anything that is not a level or an alias."""
    if not isinstance(value, str):
        return None
    key = value.strip().lower()
    key = ALIASES.get(key, key)
    return key if key in LEVELS else None
