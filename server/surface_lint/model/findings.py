"""The one Finding type every front end renders (CLI, LSP, reporters)."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import IntEnum

from .severity import ALIASES


class Severity(IntEnum):
    """Ordered so that a larger value is more severe (sorting, thresholds)."""

    HINT = 1
    INFORMATION = 2
    WARNING = 3
    ERROR = 4

    @property
    def label(self) -> str:
        return self.name.lower()

    @classmethod
    def parse(cls, text: str) -> Severity:
        key = text.strip().lower()
        key = ALIASES.get(key, key)
        for member in cls:
            if member.label == key:
                return member
        raise ValueError(
            f"unknown severity {text!r} (expected error, warning, information or hint)"
        )


@dataclass(frozen=True, slots=True)
class Location:
    """A range in a source file: 1-based lines, 1-based columns in code points, end exclusive."""

    path: str
    line: int
    column: int
    end_line: int
    end_column: int

    def sort_key(self) -> tuple[str, int, int, int, int]:
        return (self.path, self.line, self.column, self.end_line, self.end_column)

    def __reduce__(self) -> tuple[object, ...]:
        # Findings are spooled to disk by the hundred thousand: a tuple pickles fast.
        return (Location, (self.path, self.line, self.column, self.end_line, self.end_column))


@dataclass(frozen=True, slots=True)
class Related:
    """Another place that matters for a finding (the duplicate's twin, the leaked holdout)."""

    location: Location
    message: str


@dataclass(frozen=True, slots=True)
class Fix:
    """A mechanical edit: replace the text at `location` with `replacement`."""

    title: str
    location: Location
    replacement: str


@dataclass(frozen=True, slots=True)
class Finding:
    location: Location
    code: str
    rule: str
    severity: Severity
    message: str
    record_id: str | None = None
    related: tuple[Related, ...] = ()
    fixes: tuple[Fix, ...] = ()
    # Index of the record (0-based line or case index) the finding belongs to, for suppression.
    record_index: int | None = None
    extra: dict[str, object] = field(default_factory=dict, compare=False, hash=False)

    @property
    def path(self) -> str:
        return self.location.path

    def __reduce__(self) -> tuple[object, ...]:
        return (Finding, (self.location, self.code, self.rule, self.severity, self.message, self.record_id,
                          self.related, self.fixes, self.record_index, self.extra))

    def sort_key(self) -> tuple[str, int, int, int, int, str, str]:
        return (*self.location.sort_key(), self.code, self.message)

    def to_dict(self) -> dict[str, object]:
        loc = self.location
        out: dict[str, object] = {
            "path": loc.path,
            "line": loc.line,
            "column": loc.column,
            "end_line": loc.end_line,
            "end_column": loc.end_column,
            "code": self.code,
            "rule": self.rule,
            "severity": self.severity.label,
            "message": self.message,
        }
        if self.record_id is not None:
            out["record_id"] = self.record_id
        if self.related:
            out["related"] = [
                {
                    "path": r.location.path,
                    "line": r.location.line,
                    "column": r.location.column,
                    "end_line": r.location.end_line,
                    "end_column": r.location.end_column,
                    "message": r.message,
                }
                for r in self.related
            ]
        if self.fixes:
            out["fixes"] = [
                {
                    "title": f.title,
                    "line": f.location.line,
                    "column": f.location.column,
                    "end_line": f.location.end_line,
                    "end_column": f.location.end_column,
                    "replacement": f.replacement,
                }
                for f in self.fixes
            ]
        return out


def sorted_findings(findings: list[Finding]) -> list[Finding]:
    """Deterministic order: path, position, code, message."""
    return sorted(findings, key=Finding.sort_key)
