"""The one Finding type every front end renders (CLI, LSP, reporters)."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import IntEnum
from typing import Any

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


_new = object.__new__
_SEVERITIES = {int(s): s for s in Severity}
_SET_FINDING = tuple(Finding.__dict__[name].__set__ for name in Finding.__slots__)  # in field order
_SET_FIX = tuple(Fix.__dict__[name].__set__ for name in ("title", "location", "replacement"))
_SET_LOCATION = tuple(Location.__dict__[name].__set__ for name in ("path", "line", "column", "end_line", "end_column"))


def packed_location(loc: Location) -> tuple[object, ...]:
    return (loc.path, loc.line, loc.column, loc.end_line, loc.end_column)


def unpacked_location(packed: tuple[Any, ...]) -> Location:
    """The Location `packed_location` gave (built slot by slot: a frozen dataclass's own
    `__init__` costs more than the rest of a spool's read)."""
    return new_location(*packed)


def new_location(path: str, line: int, column: int, end_line: int, end_column: int) -> Location:
    """`Location(path, line, column, end_line, end_column)`, slot by slot (half the frozen
    dataclass's `__init__`: a run locates every finding it keeps)."""
    loc = _new(Location)
    s_path, s_line, s_column, s_end_line, s_end_column = _SET_LOCATION
    s_path(loc, path)
    s_line(loc, line)
    s_column(loc, column)
    s_end_line(loc, end_line)
    s_end_column(loc, end_column)
    return loc


def new_fix(title: str, location: Location, replacement: str) -> Fix:
    """`Fix(title, location, replacement)`, slot by slot (as `new_location`)."""
    x = _new(Fix)
    s_title, s_location, s_replacement = _SET_FIX
    s_title(x, title)
    s_location(x, location)
    s_replacement(x, replacement)
    return x


def new_finding(location: Location, code: str, rule: str, severity: Severity, message: str,
                record_id: str | None = None, related: tuple[Related, ...] = (), fixes: tuple[Fix, ...] = (),
                record_index: int | None = None, extra: dict[str, object] | None = None) -> Finding:
    """`Finding(...)` with these fields, slot by slot (as `new_location`); `extra` a new dict when
    not given, as the dataclass's default."""
    f = _new(Finding)
    s_loc, s_code, s_rule, s_severity, s_message, s_record_id, s_related, s_fixes, s_index, s_extra = _SET_FINDING
    s_loc(f, location)
    s_code(f, code)
    s_rule(f, rule)
    s_severity(f, severity)
    s_message(f, message)
    s_record_id(f, record_id)
    s_related(f, related)
    s_fixes(f, fixes)
    s_index(f, record_index)
    s_extra(f, {} if extra is None else extra)
    return f


def packed_finding(f: Finding) -> tuple[object, ...]:
    """A finding as a tuple of builtins (what marshal writes; `unpacked_finding` reads it back
    equal, field for field). ValueError when a field is not what a Finding holds (marshal would
    write a subclass as its base type): the caller then pickles."""
    if type(f) is not Finding:
        raise ValueError("not a plain finding")
    loc, severity, related, fixes = f.location, f.severity, f.related, f.fixes
    if type(severity) is not Severity or type(loc) is not Location:
        raise ValueError("not a plain finding")
    packed_related: tuple[Any, ...] = ()
    packed_fixes: tuple[Any, ...] = ()
    if related:
        if any(type(r) is not Related or type(r.location) is not Location for r in related):
            raise ValueError("not a plain related location or fix")
        packed_related = tuple((packed_location(r.location), r.message) for r in related)
    if len(fixes) == 1:  # a finding's one fix (an ending's), without a generator
        x = fixes[0]
        at = x.location
        if type(x) is not Fix or type(at) is not Location:
            raise ValueError("not a plain related location or fix")
        packed_fixes = ((x.title, (at.path, at.line, at.column, at.end_line, at.end_column), x.replacement),)
    elif fixes:
        if any(type(x) is not Fix or type(x.location) is not Location for x in fixes):
            raise ValueError("not a plain related location or fix")
        packed_fixes = tuple((x.title, packed_location(x.location), x.replacement) for x in fixes)
    return ((loc.path, loc.line, loc.column, loc.end_line, loc.end_column), f.code, f.rule, int(severity), f.message,
            f.record_id, packed_related, packed_fixes, f.record_index, f.extra)


def stored_code(item: Finding | tuple[Any, ...]) -> str:
    """The code of a finding or of its packed tuple (`packed_finding`), without unpacking it."""
    return item[1] if type(item) is tuple else item.code  # type: ignore[union-attr]


def stored_severity(item: Finding | tuple[Any, ...]) -> int:
    """The severity (as a number) of a finding or of its packed tuple, without unpacking it."""
    return item[3] if type(item) is tuple else int(item.severity)  # type: ignore[union-attr]


def unpacked_finding(packed: tuple[Any, ...]) -> Finding:
    loc, code, rule, severity, message, record_id, related, fixes, record_index, extra = packed
    if len(fixes) == 1:  # a finding's one fix (an ending's): most findings of a run have one
        (title, at, text), = fixes
        unpacked_fixes: tuple[Fix, ...] = (new_fix(title, new_location(*at), text),)
    else:
        unpacked_fixes = tuple([new_fix(title, new_location(*at), text) for title, at, text in fixes]) if fixes else ()
    return new_finding(new_location(*loc), code, rule, _SEVERITIES[severity], message, record_id,
                       tuple(Related(new_location(*at), text) for at, text in related) if related else (),
                       unpacked_fixes, record_index, extra)


def sorted_findings(findings: list[Finding]) -> list[Finding]:
    """Deterministic order: path, position, code, message."""
    return sorted(findings, key=Finding.sort_key)
