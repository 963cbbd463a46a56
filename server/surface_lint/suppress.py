"""Per-record suppression: `"surface_lint": {"disable": ["SL103", "complete_punctuation"]}`.

JSONL has no comments, so a record carries its own suppressions under one reserved key.
A finding is dropped when the record it belongs to lists the finding's code or rule name.
File-level findings (no record) and records that do not parse are never suppressed.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from .findings import Finding

SUPPRESSION_KEY = "surface_lint"
DISABLE_KEY = "disable"
_NEEDLE = b'"' + SUPPRESSION_KEY.encode() + b'"'


def disabled_rules(record: Any) -> frozenset[str]:
    """The codes / rule names a record disables (empty when it has no valid suppression)."""
    if not isinstance(record, Mapping):
        return frozenset()
    table = record.get(SUPPRESSION_KEY)
    if not isinstance(table, Mapping):
        return frozenset()
    listed = table.get(DISABLE_KEY)
    if isinstance(listed, str):
        listed = [listed]
    if not isinstance(listed, list):
        return frozenset()
    return frozenset(x for x in listed if isinstance(x, str))


def apply_suppressions(findings: list[Finding], data: bytes, kind: str | None) -> list[Finding]:
    """Drop findings whose record disables their code or rule. Cheap when nothing is disabled."""
    if _NEEDLE not in data or not findings:
        return findings
    if kind == "report":
        lookup = _report_records(data)
    else:
        lookup = _jsonl_records(data)
    out = []
    for finding in findings:
        if finding.record_index is not None:
            disabled = lookup(finding)
            if finding.code in disabled or finding.rule in disabled:
                continue
        out.append(finding)
    return out


def _jsonl_records(data: bytes) -> Any:
    """A JSONL record is its line: the line a finding starts on."""
    lines = data.split(b"\n")
    cache: dict[int, frozenset[str]] = {}

    def lookup(finding: Finding) -> frozenset[str]:
        number = finding.location.line
        if number not in cache:
            raw = lines[number - 1] if 0 < number <= len(lines) else b""
            disabled: frozenset[str] = frozenset()
            if _NEEDLE in raw:
                try:
                    disabled = disabled_rules(json.loads(raw))
                except (ValueError, RecursionError):
                    pass
            cache[number] = disabled
        return cache[number]

    return lookup


def _report_records(data: bytes) -> Any:
    """A lane report's record is its `cases` (or `case_details`) entry, by index."""
    try:
        obj = json.loads(data)
    except (ValueError, RecursionError):
        obj = None
    entries: Any = None
    if isinstance(obj, dict):
        entries = obj.get("cases") if "cases" in obj else obj.get("case_details")
    if not isinstance(entries, list):
        entries = []

    def lookup(finding: Finding) -> frozenset[str]:
        index = finding.record_index
        if index is None or not 0 <= index < len(entries):
            return frozenset()
        return disabled_rules(entries[index])

    return lookup
