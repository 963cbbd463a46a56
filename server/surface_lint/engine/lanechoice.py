"""Which lane a file belongs to, and why: every output names the lane and how it was chosen.

`choose_lane` is the one detection (`Engine.detect_lane` returns its lane): a report's `lane`
field, a path segment, the file name, the records' fields, the config's `default-lane`, else
`deterministic_fluency`. `LaneChoice.how` says which, in words a reader can check.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..rules.loader import Lane
from .results import UsageError

FALLBACK_LANE = "deterministic_fluency"

# How a lane was chosen: the kinds of reason (the first word of `how` names one).
BY_FLAG, BY_FIELDS, BY_PATH, BY_CONFIG, BY_DEFAULT, BY_CASES = "flag", "fields", "path", "config", "default", "cases"


@dataclass(frozen=True)
class LaneChoice:
    """A lane and how it was chosen: `by` one of flag, fields, path, config, default, cases;
    `how` the reason in words (`the folder grammatical_coverage in the path`)."""

    lane: str
    by: str
    how: str

    def describe(self) -> str:
        return f"{self.lane} (chosen by {self.by}: {self.how})"


def flag_choice(lane: str, flag: str = "--lane") -> LaneChoice:
    return LaneChoice(lane, BY_FLAG, flag)


def _path_choice(lanes: Mapping[str, Lane], path: str) -> LaneChoice | None:
    """A lane named by a folder of the path (as given, then made absolute: `captures/x.jsonl` run
    inside `lanes/grammatical_coverage/` is in that lane's folder), else by the file name."""
    p = Path(path)
    for parts in (p.parts[:-1], Path(os.path.abspath(path)).parts[:-1]):
        for part in reversed(parts):
            if part in lanes:
                return LaneChoice(part, BY_PATH, f"the folder {part} in the path")
    for name in sorted(lanes, key=len, reverse=True):
        if p.name.startswith(name) or f"_{name}" in p.name or f"{name}_" in p.name:
            return LaneChoice(name, BY_PATH, f"the file name {p.name}")
    return None


def _required(lane: Lane) -> list[str]:
    return [n for n, f in lane.schema.fields.items() if f.required and n != "id"]


def _fields_choices(lanes: Mapping[str, Lane], kind: str | None, first: Mapping[str, Any]) -> list[LaneChoice]:
    """Every lane the first record's fields fit (case files: all its required fields are there)."""
    found = []
    for lane in lanes.values():
        required = _required(lane)
        if kind == "cases" and required and all(n in first for n in required):
            found.append(LaneChoice(lane.name, BY_FIELDS, "the first record's fields (" + ", ".join(required) + ")"))
    if found:
        return found
    if any(k in first for k in ("trace_hash_replay", "premises", "chain")) and "symbolic_logic" in lanes:
        if first.get("role") in ("premise", "probe") or "trace_hash_replay" in first or "premises" in first:
            return [LaneChoice("symbolic_logic", BY_FIELDS, "the first record's fields (role, premises, trace_hash_replay)")]
    return []


def fits_fields(lane: Lane, kind: str | None, first: Mapping[str, Any] | None) -> bool:
    """Could the first record be a case of `lane` (or is nothing to tell)? At least half its
    required fields are there: a case missing one is a finding of that lane (SL002), not of another."""
    if kind != "cases" or first is None:
        return True
    required = _required(lane)
    return 2 * sum(1 for n in required if n in first) >= len(required)


def choose_lane(lanes: Mapping[str, Lane], default_lane: str | None, path: str, kind: str | None,
                hint: str | None = None, first: Mapping[str, Any] | None = None,
                strict: bool = False) -> LaneChoice | None:
    """The lane of one file and why. `strict`: a lane named by the path whose required case fields
    the first record lacks, while another lane's it has, is a UsageError naming both."""
    if hint and hint in lanes:
        return LaneChoice(hint, BY_FIELDS, "the report's `lane` field")
    by_path = _path_choice(lanes, path)
    by_fields = _fields_choices(lanes, kind, first) if first is not None else []
    if by_path is not None:
        if strict and by_fields and by_path.lane not in {c.lane for c in by_fields} \
                and not fits_fields(lanes[by_path.lane], kind, first):
            raise UsageError(f"{path}: {by_path.how} says lane {by_path.lane}, but {by_fields[0].how} say lane "
                             f"{' or '.join(c.lane for c in by_fields)}; give --lane to choose")
        return by_path
    if len(by_fields) > 1 and first is not None:
        # Several lanes' required fields are there: the one whose schema knows most of the record's
        # fields fits best; a tie (the OOD lanes share one schema) is no answer.
        known = {c.lane: sum(1 for k in first if k in lanes[c.lane].schema.fields) for c in by_fields}
        best = max(known.values())
        if sum(1 for n in known.values() if n == best) == 1:
            top = next(c for c in by_fields if known[c.lane] == best)
            by_fields = [LaneChoice(top.lane, BY_FIELDS, top.how.replace("fields (", "fields (best fit: ", 1))]
    if len(by_fields) > 1 and strict:
        raise UsageError(f"{path}: {by_fields[0].how} fit the lanes {', '.join(c.lane for c in by_fields)}; "
                         "give --lane to choose")
    if by_fields:
        return by_fields[0]
    if default_lane and default_lane in lanes:
        return LaneChoice(default_lane, BY_CONFIG, "the config's default-lane")
    if FALLBACK_LANE in lanes:
        return LaneChoice(FALLBACK_LANE, BY_DEFAULT, "nothing in the path or the fields names a lane")
    return None
