"""Which lane a file belongs to and what shape it has, from its name and first records."""

from __future__ import annotations

from typing import Any

from ..sources.detect import first_record


def first_object(data: bytes) -> dict[str, Any] | None:
    """The first line of a JSONL text that parses as an object, for guessing shape and lane."""
    return first_record(data)
