"""Which lane a file belongs to and what shape it has, from its name and first records."""

from __future__ import annotations

import json
from typing import Any


def looks_jsonl(head: bytes) -> bool:
    first = head.lstrip(b"\xef\xbb\xbf").split(b"\n", 1)[0].strip()
    if not first.startswith(b"{"):
        return False
    try:
        json.loads(first)
    except (ValueError, RecursionError):
        return False
    return True


def first_object(data: bytes) -> dict[str, Any] | None:
    """The first JSON object of a JSONL text (its first 64 KiB), for guessing shape and lane."""
    for line in data[:65536].lstrip(b"\xef\xbb\xbf").split(b"\n"):
        if line.strip():
            try:
                obj = json.loads(line)
            except (ValueError, RecursionError):
                return None
            return obj if isinstance(obj, dict) else None
    return None

