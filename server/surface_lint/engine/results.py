"""What the engine returns: per-document results, lane results, the case index (caseindex.py), usage errors."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeVar

from ..findings import Finding, Fix, Location, Related
from ..predicates import Verdict
from ..scoring import (
    Outcome,
    ThresholdResult,
)
from ..sources.base import ReadStats
from .caseindex import CaseIndex as CaseIndex  # re-exported: the engine's façade and the editor import it here

SURFACE_PATH = ("surface",)
T_co = TypeVar("T_co", covariant=True)


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


class Rows(Protocol[T_co]):
    """A re-iterable, sized run of items (a list, or rows kept on disk: see spool.py)."""

    def __iter__(self) -> Iterator[T_co]: ...

    def __len__(self) -> int: ...


@dataclass
class LaneResult:
    """One lane run: the results model `--lane`, `diff`, the baseline and every reporter read.

    `outcomes` (scored cases, case-file order, else input order) and `findings` (sorted) may be
    kept on disk: iterate them, as often as needed; never index them."""

    lane: str
    profile: str
    version: str
    threshold_set: str | None
    metrics: dict[str, Any]
    thresholds: list[ThresholdResult]
    passed: bool | None
    outcomes: Rows[Outcome]
    findings: Rows[Finding]  # input problems + per-case failures (positioned)
    missing_transcripts: Sequence[str]  # may be kept on disk (caseindex.IdList): iterate, count, slice
    unknown_cases: Sequence[str]
    remainder: list[str]  # multi-sentence cases outside the three buckets
    stats: ReadStats
    sources: list[str]
    headline: str
    metric_aliases: dict[str, str]
    case_count: int = 0  # cases scored (also when `outcomes` is not kept: text output)
    failing_count: int = 0  # of those, cases with a failing predicate
    # The lane the inputs name themselves (a report's `lane`, a path, the records' shape), which
    # `diff` compares: None when only `--lane` said it.
    declared_lane: str | None = None
    nothing_scored: str | None = None  # why no case was scored (exit 1 with thresholds), else None




@dataclass(slots=True)
class LineCheck:
    """`Engine.check_line`: one JSONL line's findings and what the editor keeps of its record."""

    findings: list[Finding]
    records: list[RecordInfo]


def shift_location(location: Location, path: str, delta: int) -> Location:
    """The same range `delta` lines further down (other files' locations unchanged)."""
    if location.path != path or not delta:
        return location
    return Location(path, location.line + delta, location.column, location.end_line + delta, location.end_column)


def shift_finding(f: Finding, path: str, delta: int) -> Finding:
    if not delta:
        return f
    return Finding(
        shift_location(f.location, path, delta), f.code, f.rule, f.severity, f.message, f.record_id,
        tuple(Related(shift_location(r.location, path, delta), r.message) for r in f.related),
        tuple(Fix(x.title, shift_location(x.location, path, delta), x.replacement) for x in f.fixes),
        f.record_index, f.extra,
    )


def shift_record(r: RecordInfo, path: str, delta: int) -> RecordInfo:
    def opt(location: Location | None) -> Location | None:
        return shift_location(location, path, delta) if location is not None else None

    return RecordInfo(r.id, r.kind, shift_location(r.location, path, delta), opt(r.id_location),
                      opt(r.surface), r.verdicts, r.case_location)
