"""Per-record suppression: `"surface_lint": {"disable": ["SL103", "complete_punctuation"]}`.

JSONL has no comments, so a record carries its own suppressions under one reserved key.
A finding is dropped when the record it belongs to lists the finding's code or rule name.
File-level findings (no record) and records that do not parse are never suppressed. The
suppressions are read from the parsed records as the pipeline reads them (no second read).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

from ..model.findings import Finding

if TYPE_CHECKING:
    from .base import Record

SUPPRESSION_KEY = "surface_lint"
DISABLE_KEY = "disable"


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


class Suppressions:
    """`"surface_lint": {"disable": [...]}` of the parsed records, by record index: a finding is
    dropped when its record disables its code or rule. Only records that disable something are kept."""

    __slots__ = ("by_index",)

    def __init__(self) -> None:
        self.by_index: dict[int, frozenset[str]] = {}

    def note(self, record: Record) -> None:
        if SUPPRESSION_KEY in record.data:
            disabled = disabled_rules(record.data)
            if disabled:
                self.by_index[record.index] = disabled

    def note_all(self, records: Iterable[Record]) -> None:
        for record in records:
            self.note(record)

    def keeps(self, finding: Finding) -> bool:
        if not self.by_index or finding.record_index is None:
            return True
        disabled = self.by_index.get(finding.record_index)
        return disabled is None or (finding.code not in disabled and finding.rule not in disabled)

    def filter(self, findings: list[Finding]) -> list[Finding]:
        if not self.by_index:
            return findings
        return [f for f in findings if self.keeps(f)]
