"""What the engine returns: per-document results, lane results, the case index (caseindex.py), usage errors."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from ..model.errors import UsageError as UsageError  # re-exported: raised by every layer, defined below them all
from ..model.findings import Finding, Fix, Location, Related
from ..model.positions import JsonPath
from ..rules.kinds.core import Verdict
from ..sources.base import ReadStats, Record, member_range
from .caseindex import CaseIndex as CaseIndex  # re-exported: the engine's façade and the editor import it here
from .scoring import Outcome, ThresholdResult

if TYPE_CHECKING:
    from .details import SharedDetails

SURFACE_PATH = ("surface",)
T_co = TypeVar("T_co", covariant=True)


class RecordInfo:
    """What the editor needs of one record: id, range, and (for surfaces) the verdicts.

    Positions are located when a feature first asks for them (hover, symbols, definition,
    references), from the record's own text: a cold open of a 20,000-line transcript asks for
    none, and locating every record's id and surface was two thirds of its check.
    """

    __slots__ = ("_base", "_case", "_case_location", "_delta", "_id_key", "_id_location", "_line", "_located", "_location",
                 "_path", "_source", "_surface", "_surface_key", "_text", "id", "kind", "verdicts")

    def __init__(self, id: str | None, kind: str, location: Location, id_location: Location | None = None,
                 surface: Location | None = None, verdicts: Mapping[str, Verdict] | None = None,
                 case_location: Location | None = None) -> None:
        self.id = id
        self.kind = kind  # case | turn | report-case
        self.verdicts = verdicts
        self._location = location
        self._id_location = id_location
        self._surface = surface
        self._case_location = case_location
        self._located = True  # every position given (else each is located on first use)
        self._source: Record | None = None  # a report entry, located in its document
        self._text: str | None = None  # a JSONL record's line (its parsed data is not kept)
        self._path = location.path
        self._line = location.line  # where the record was read
        self._id_key: str | None = None
        self._surface_key: JsonPath | None = None
        self._case: Record | None = None
        self._delta = 0  # lines further down than it was read
        self._base: RecordInfo | None = None  # the unshifted record whose positions this one shifts

    @classmethod
    def of_record(cls, id: str | None, kind: str, record: Record, id_key: str | None,
                  surface_key: JsonPath | None, verdicts: Mapping[str, Verdict] | None,
                  case: Record | None, delta: int = 0) -> RecordInfo:
        """A record's info whose positions are located on demand: `id_key` and `surface_key`
        name the members to locate (None: the record has none); `delta`: lines to move them down."""
        if record.prefix:
            return cls._unlocated(id, kind, verdicts, record, None, record.path, record.line, id_key, surface_key,
                                  case, delta)
        return cls._unlocated(id, kind, verdicts, None, record.text, record.path, record.line, id_key, surface_key,
                              case, delta)

    @classmethod
    def _unlocated(cls, id: str | None, kind: str, verdicts: Mapping[str, Verdict] | None, source: Record | None,
                   text: str | None, path: str, line: int, id_key: str | None, surface_key: JsonPath | None,
                   case: Record | None, delta: int) -> RecordInfo:
        info = cls.__new__(cls)  # every slot set here: one object per record of a cold open
        info.id, info.kind, info.verdicts = id, kind, verdicts
        # Each position is _UNLOCATED until a feature asks for it (None: the record has no such member).
        info._location, info._id_location, info._surface, info._case_location = _UNLOCATED, _UNLOCATED, _UNLOCATED, None
        info._located = False
        info._source, info._text, info._path, info._line = source, text, path, line
        info._id_key, info._surface_key, info._case, info._delta = id_key, surface_key, case, delta
        info._base = None
        return info

    def share_text(self, text: str) -> None:
        """Keep `text`, the caller's own copy of this record's line, if equal (not the reader's)."""
        if self._text is not None and self._text == text:
            self._text = text

    def _locate(self, part: int) -> Location | None:
        """One of the record's positions (_WHOLE, _ID, _SURFACE), located on first use and kept:
        the symbols a 20,000-line transcript asks for need no surface located."""
        base = self._base
        if base is not None:  # located once for the record and every shifted copy of it (each edit's)
            found = base.location if part == _WHOLE else base.id_location if part == _ID else base.surface
            return _shift_opt(found, self._path, self._delta - base._delta)
        source = self._source
        text = self._text
        if source is None:  # the same locator the record would have built for its line
            source = Record({}, self._line, 0, path=self._path, text=text or "")
        if part == _WHOLE:
            found = source.whole()
        elif part == _ID:
            if self._id_key is None:
                return None
            span = member_range(text, self._id_key) if text is not None else None
            # A JSONL line's id by a walk that stops at it (as located through the record otherwise).
            found = source.locator.location_of_offsets(*span) if span is not None else source.location(self._id_key)
        else:
            found = source.location(*self._surface_key) if self._surface_key is not None else None
        return _shift_opt(found, self._path, self._delta)

    @property
    def line(self) -> int:
        """The 1-based line the record starts on (a JSONL record's own line: nothing located)."""
        if not self._located and self._text is not None:
            return self._line + self._delta
        return self.location.line

    @property
    def location(self) -> Location:
        found = self._location
        if _is_unlocated(found):
            whole = self._locate(_WHOLE)
            assert whole is not None
            found = self._location = whole
        return found

    @property
    def id_location(self) -> Location | None:
        found = self._id_location
        if _is_unlocated(found):
            found = self._id_location = self._locate(_ID)
        return found

    @property
    def surface(self) -> Location | None:
        found = self._surface
        if _is_unlocated(found):
            found = self._surface = self._locate(_SURFACE)
        return found

    @property
    def case_location(self) -> Location | None:
        """The joined case, for go-to-definition (in its case file: never shifted)."""
        if self._case_location is None and self._case is not None:
            self._case_location = self._case.whole()
        return self._case_location

    def shifted(self, path: str, delta: int) -> RecordInfo:
        """The same record `delta` lines further down in document `path`."""
        if not delta:
            return self
        if self._located or self._path != path:
            return RecordInfo(self.id, self.kind, shift_location(self.location, path, delta),
                              _shift_opt(self.id_location, path, delta), _shift_opt(self.surface, path, delta),
                              self.verdicts, self.case_location)
        out = RecordInfo._unlocated(self.id, self.kind, self.verdicts, self._source, self._text, self._path,
                                    self._line, self._id_key, self._surface_key, self._case, self._delta + delta)
        out._case_location = self._case_location
        out._base = self._base or self
        return out

    def _fields(self) -> tuple[object, ...]:
        return (self.id, self.kind, self.location, self.id_location, self.surface, self.verdicts, self.case_location)

    def __eq__(self, other: object) -> bool:
        """Equal when every field is (located now if need be), as when this was a dataclass."""
        if not isinstance(other, RecordInfo):
            return NotImplemented
        return self._fields() == other._fields()

    __hash__ = None  # type: ignore[assignment]  # mutable (its positions fill in), as a dataclass with eq

    def __repr__(self) -> str:
        return (f"RecordInfo(id={self.id!r}, kind={self.kind!r}, location={self.location!r}, "
                f"id_location={self.id_location!r}, surface={self.surface!r})")


_UNLOCATED = Location("", 0, 0, 0, 0)  # placeholder of a position not located yet (never returned)
_WHOLE, _ID, _SURFACE = 0, 1, 2  # the positions RecordInfo._locate finds


def _is_unlocated(found: Location | None) -> bool:
    """The placeholder, by value (a copy of a RecordInfo keeps its meaning): no real line is 0."""
    return found is not None and found.line == 0 and found == _UNLOCATED


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
    remainder: Sequence[str]  # multi-sentence cases outside the three buckets (may be kept on disk: caseindex.IdList)
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
    # The same cases as `outcomes`, as (case_id, failed names, details) without rebuilding an
    # Outcome: the JSON writer's view. None when only `outcomes` is given. Light rows (`score`'s
    # `light_rows`) give details shared by repeated cases (details.SharedDetails).
    case_rows: Rows[tuple[str, tuple[str, ...], dict[str, Any] | SharedDetails | None]] | None = None
    # Report sections a case-driven lane computes beside `metrics` (fabrication_control's `by_class`).
    sections: Mapping[str, Any] = field(default_factory=dict)
    split: str | None = None  # the split scored, when known (`--split`, `--split-name`): the runner's `split`
    timestamp: str | None = None  # given (`--timestamp`), never read from a clock: the runner's `timestamp`
    # A Markdown or HTML run scored for what it shows (`Engine.score`'s `shown`): every case
    # counted and the shown cases' outcomes (views.ShownCases); `outcomes` is then a count, and
    # `findings` holds none of the predicates' own findings. None: `outcomes` has every case.
    # (Typed Any: views.py, below which this module sits, reads LaneResult.)
    shown: Any = None




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


def _shift_opt(location: Location | None, path: str, delta: int) -> Location | None:
    return shift_location(location, path, delta) if location is not None else None


def shift_record(r: RecordInfo, path: str, delta: int) -> RecordInfo:
    return r.shifted(path, delta)
