"""What the engine returns: per-document results, lane results, the case index, usage errors."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ..findings import Finding, Location
from ..predicates import Verdict
from ..scoring import (
    Outcome,
    ThresholdResult,
)
from ..sources.base import ReadStats, Record, check_finding
from ..sources.cases import (
    Case,
    CaseFile,
)

SURFACE_PATH = ("surface",)


class UsageError(Exception):
    """Bad arguments or unreadable input: exit code 2."""


@dataclass(slots=True)
class RecordInfo:
    """What the editor needs of one record: id, range, and (for surfaces) the verdicts."""

    id: str | None
    kind: str  # case | turn | report-case
    location: Location
    id_location: Location | None = None
    surface: Location | None = None
    verdicts: Mapping[str, Verdict] | None = None
    case_location: Location | None = None  # the joined case, for go-to-definition


@dataclass
class DocResult:
    path: str
    kind: str | None
    lane: str | None
    findings: list[Finding]
    stats: ReadStats
    records: list[RecordInfo] = field(default_factory=list)


@dataclass
class CaseIndex:
    """Case files of one lane, by id (the first of duplicates wins)."""

    files: list[CaseFile] = field(default_factory=list)
    by_id: dict[str, Case] = field(default_factory=dict)
    findings: list[Finding] = field(default_factory=list)
    stats: ReadStats = field(default_factory=ReadStats)

    def add(self, case_file: CaseFile) -> None:
        self.files.append(case_file)
        self.stats.add(case_file.stats)
        for case in case_file.cases:
            self.by_id.setdefault(case.id, case)

    def ordered(self) -> list[Case]:
        seen: set[str] = set()
        out = []
        for f in self.files:
            for c in f.cases:
                if c.id not in seen:
                    seen.add(c.id)
                    out.append(c)
        return out


@dataclass
class LaneResult:
    lane: str
    profile: str
    version: str
    threshold_set: str | None
    metrics: dict[str, Any]
    thresholds: list[ThresholdResult]
    passed: bool | None
    outcomes: list[Outcome]
    findings: list[Finding]  # input problems + per-case failures (positioned)
    missing_transcripts: list[str]
    unknown_cases: list[str]
    remainder: list[str]  # multi-sentence cases outside the three buckets
    stats: ReadStats
    sources: list[str]
    headline: str
    metric_aliases: dict[str, str]
    case_count: int = 0  # cases scored (also when `outcomes` is not kept: text output)
    failing_count: int = 0  # of those, cases with a failing predicate



def unjoined(record: Record, case_id: str | None, cases: CaseIndex | None, seen: set[str]) -> list[Finding]:
    """SL015 once per unknown case id, at its first record (only when cases were given)."""
    if cases is None or not case_id or case_id in cases.by_id or case_id in seen:
        return []
    seen.add(case_id)
    where = record.location("case_id") if "case_id" in record.data else (
        record.location("id") if "id" in record.data else record.whole())
    return [check_finding("SL015", where, f"case id `{case_id}` matches no case in the given case files",
                          case_id, record_index=record.index)]

