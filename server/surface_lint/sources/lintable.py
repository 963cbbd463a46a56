"""Which files surface-lint reads: the one decision `check <folder>` and the editor share.

JSON Lines files are read as case files, transcripts or telemetry; a `.json` file only when it
is a lane report (package.json, tsconfig.json and other plain JSON are not ours).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from .detect import detect_kind
from .transcripts import sniff

JSONL_SUFFIXES = (".jsonl", ".ndjson", ".jsonlines")
JSONL_LANGUAGES = ("jsonl", "jsonlines", "ndjson")
# How much of a file decides its kind.
HEAD_BYTES = 65536
# Top-level keys that make a JSON document a lane report when it cannot be parsed whole.
REPORT_KEYS = frozenset(("cases", "case_details", "metrics", "lane"))
_SCALAR_END = re.compile(r"[,}\]\s]")
_DECODER = json.JSONDecoder()


def _suffix(path: str) -> str:
    name = Path(path).name
    return Path(path).suffix.lower() if "." in name else ""


def may_be_lintable(path: str, language_id: str = "") -> bool:
    """Could this file be ours, by its name alone (before its first bytes are read)?"""
    suffix = _suffix(path)
    if suffix == ".json" or suffix in JSONL_SUFFIXES:
        return True
    return not suffix and language_id in ("json", *JSONL_LANGUAGES)


def document_kind(path: str, head: bytes, language_id: str = "") -> str | None:
    """What the engine would read this document as; None for files surface-lint does not lint
    (anything but JSON Lines, and JSON files other than lane reports)."""
    suffix = _suffix(path)
    if suffix == ".json" or (not suffix and language_id == "json"):
        kind, whole = sniff(head)
        if whole is not None:  # parsed whole: its keys decide (sniff calls any document a report)
            return "report" if detect_kind(None, whole) == "report" else None
        if kind != "report":
            return None
        # Not parsed whole (longer than the head, or broken): a report names its keys early.
        return "report" if REPORT_KEYS.intersection(top_level_keys(head)) else None
    if suffix in JSONL_SUFFIXES or (not suffix and language_id in JSONL_LANGUAGES):
        kind, _ = sniff(head)
        return kind or "turns"
    return None


def top_level_keys(head: bytes) -> list[str]:
    """The keys of a JSON object's first level, as far as `head` (a file's first bytes) holds them:
    a key counts once it is read, even when its value runs past the end or is broken."""
    text = head.lstrip(b"\xef\xbb\xbf").decode("utf-8", "replace")
    i = _skip_space(text, 0)
    if not text.startswith("{", i):
        return []
    keys: list[str] = []
    i += 1
    while True:
        i = _skip_space(text, i)
        if not text.startswith('"', i):
            return keys
        try:
            key, i = _DECODER.raw_decode(text, i)
        except ValueError:
            return keys
        i = _skip_space(text, i)
        if not text.startswith(":", i):
            return keys
        keys.append(key)
        end = _skip_value(text, _skip_space(text, i + 1))
        if end is None:
            return keys
        i = _skip_space(text, end)
        if not text.startswith(",", i):
            return keys
        i += 1


def _skip_space(text: str, i: int) -> int:
    while i < len(text) and text[i] in " \t\r\n":
        i += 1
    return i


def _skip_value(text: str, i: int) -> int | None:
    """The index after the JSON value at `i` (brackets counted, strings skipped); None if cut off."""
    if i >= len(text):
        return None
    if text[i] == '"':
        return _string_end(text, i)
    if text[i] not in "{[":
        m = _SCALAR_END.search(text, i)
        return m.start() if m else None
    depth = 0
    while i < len(text):
        c = text[i]
        if c == '"':
            end = _string_end(text, i)
            if end is None:
                return None
            i = end
            continue
        if c in "{[":
            depth += 1
        elif c in "}]":
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    return None


def _string_end(text: str, i: int) -> int | None:
    j = i + 1
    while j < len(text):
        if text[j] == "\\":
            j += 2
        elif text[j] == '"':
            return j + 1
        else:
            j += 1
    return None
