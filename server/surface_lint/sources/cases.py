"""Case files (JSONL): records with positions, and the case-file checks of a lane's schema."""

from __future__ import annotations

import difflib
import io
import math
import weakref
from collections.abc import Container, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..model.checks import CHECK_CODES as C
from ..model.findings import Finding, Fix, Related
from ..rules.loader import FieldSpec, Lane, nested_problems
from .base import JsonlReader, ReadStats, Record, check_finding, json_type
from .suppress import SUPPRESSION_KEY

_TYPE_NAMES = {
    "string": "a string",
    "integer": "an integer",
    "number": "a number",
    "boolean": "a boolean",
    "list[string]": "an array of strings",
    "list[integer]": "an array of integers",
    "list[number]": "an array of numbers",
    "object": "an object",
    "list[object]": "an array of objects",
}


@dataclass(slots=True)
class Case:
    id: str
    data: dict[str, Any]
    record: Record

    @property
    def path(self) -> str:
        return self.record.locator.path


@dataclass(slots=True)
class CaseFile:
    path: str
    lane: Lane
    split: str | None
    cases: list[Case] = field(default_factory=list)
    records: list[Record] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)
    stats: ReadStats = field(default_factory=ReadStats)


def split_of(path: str) -> str | None:
    """`dev`, `public` or `holdouts` from a path laid out as `<lane>/<split>/...`."""
    parts = Path(path).parts
    for part in reversed(parts):
        if part in ("holdouts", "holdout"):
            return "holdouts"
        if part in ("public", "dev"):
            return part
    return None


def _type_ok(value: Any, type_name: str) -> bool:
    if type_name == "string":
        return isinstance(value, str)
    if type_name == "integer":
        return isinstance(value, int) and not isinstance(value, bool)
    if type_name == "number":  # NaN and infinities (`1e999`) compare with nothing: not numbers here
        return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
    if type_name == "boolean":
        return isinstance(value, bool)
    if type_name.startswith("list["):
        return isinstance(value, list) and all(_type_ok(v, type_name[5:-1]) for v in value)
    if type_name == "object":
        return isinstance(value, dict)
    return True


def read_case_file(path: str, data: bytes, lane: Lane, max_line_bytes: int | None = None) -> CaseFile:
    """Read and check one case file on its own (duplicates within it included)."""
    reader = JsonlReader(path) if max_line_bytes is None else JsonlReader(path, max_line_bytes)
    out = CaseFile(path, lane, split_of(path))
    for record in reader.records(io.BytesIO(data)):
        out.records.append(record)
        case = check_case_record(record, lane, out.findings)
        if case is not None:
            out.cases.append(case)
    out.findings.extend(reader.findings)
    out.stats = reader.stats
    out.findings.extend(duplicate_findings([out]))
    return out


# (kind, param) of every predicate parameter that names a case field holding a count.
_COUNT_PARAMS = (("count_between", "min_field"), ("count_between", "max_field"))


# count_fields per lane, computed once (case files are checked record by record): id -> (lane, paths).
_COUNT_FIELDS: dict[int, tuple[weakref.ref[Lane], tuple[str, ...]]] = {}


def count_fields(lane: Lane) -> tuple[str, ...]:
    """The case fields (dotted paths) the lane reads as counts: a negative value there means nothing."""
    key = id(lane)
    known = _COUNT_FIELDS.get(key)
    if known is not None and known[0]() is lane:
        return known[1]
    paths: list[str] = []
    if lane.proposal_check is not None:
        paths.append(lane.proposal_check.count_field)
    paths.extend(p for p in _declared_counts(lane.schema.fields) if p not in paths)
    for spec in lane.predicates:
        for kind, param in _COUNT_PARAMS:
            value = spec.params.get(param)
            if spec.kind == kind and isinstance(value, str) and value and value not in paths:
                paths.append(value)
    found = tuple(paths)
    _COUNT_FIELDS[key] = (weakref.ref(lane, lambda _: _COUNT_FIELDS.pop(key, None)), found)
    return found


def _declared_counts(fields: Mapping[str, FieldSpec], prefix: str = "") -> list[str]:
    """The dotted paths of the schema's fields declared `count = true` (inside objects too)."""
    out: list[str] = []
    for name, spec in fields.items():
        if spec.count:
            out.append(prefix + name)
        if spec.type == "object":
            out.extend(_declared_counts(spec.fields, f"{prefix}{name}."))
    return out


def _negative(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and value < 0


def _value_at(data: Mapping[str, Any], path: Sequence[str]) -> Any:
    node: Any = data
    for part in path:
        if not isinstance(node, Mapping) or part not in node:
            return None
        node = node[part]
    return node


def _without(data: Any, path: Sequence[str | int]) -> Any:
    """A copy of `data` without the member at `path` (the containers on the way copied, not shared)."""
    head, rest = path[0], path[1:]
    if isinstance(data, Mapping) and isinstance(head, str) and head in data:
        out = dict(data)
        if rest:
            out[head] = _without(out[head], rest)
        else:
            del out[head]
        return out
    if isinstance(data, list) and isinstance(head, int) and 0 <= head < len(data) and rest:
        items = list(data)
        items[head] = _without(items[head], rest)
        return items
    return data


def typed_case_fields(lane: Lane, data: Mapping[str, Any]) -> dict[str, Any]:
    """`data` without the schema fields whose value has the wrong type or is a negative count:
    what the lane evaluates. Such a field is an SL003 finding and otherwise counts as absent (its
    default), so no predicate ever sees an object `prompt`, `priming_prompts: 3` or `min_vault_hits: -1`."""
    fields = lane.schema.fields
    out = {k: v for k, v in data.items() if k not in fields or _type_ok(v, fields[k].type)}
    for path in count_fields(lane):
        parts = path.split(".")
        if _negative(_value_at(out, parts)):
            out = _without(out, parts)
    return out


def check_case_record(record: Record, lane: Lane, findings: list[Finding]) -> Case | None:
    """The case-file checks of one record (its findings to `findings`); its Case, None without an id."""
    schema = lane.schema
    data = record.data
    case_id = data.get(schema.id_field)
    shown_id = case_id if isinstance(case_id, str) else None
    wrong = False
    mistyped: set[str] = set()  # nested fields already reported as wrong-typed
    drop: list[tuple[str | int, ...]] = []  # nested values reported: counted as absent
    for name, spec in schema.fields.items():
        if name not in data:
            if spec.required:
                findings.append(
                    check_finding(
                        C.MISSING_FIELD,
                        record.whole(),
                        f"missing required field `{name}` ({_TYPE_NAMES[spec.type]}) for lane {lane.name}",
                        shown_id,
                        record_index=record.index,
                    )
                )
            continue
        value = data[name]
        if not _type_ok(value, spec.type):
            findings.append(
                check_finding(
                    C.WRONG_TYPE,
                    record.location(name),
                    f"`{name}` must be {_TYPE_NAMES[spec.type]}, not {json_type(value)}",
                    shown_id,
                    record_index=record.index,
                )
            )
            wrong = True
            continue
        if spec.predicate_list:
            findings.extend(_unknown_predicates(record, name, value, lane, shown_id))
        for path, inner, missing, actual in nested_problems(value, spec, (name,)):  # object fields' own fields
            shown = ".".join(str(p) for p in path)
            mistyped.add(shown)
            if not missing:
                drop.append(path)
            if missing:
                message = f"missing required field `{shown}` ({_TYPE_NAMES[inner.type]}) for lane {lane.name}"
                findings.append(check_finding(C.MISSING_FIELD, record.location(*path[:-1]), message, shown_id,
                                              record_index=record.index))
            else:
                message = f"`{shown}` must be {_TYPE_NAMES[inner.type]}, not {json_type(actual)}"
                findings.append(check_finding(C.WRONG_TYPE, record.location(*path), message, shown_id,
                                              record_index=record.index))
        for path, known in _unknown_nested(value, spec, (name,)):  # a typo inside a typed object
            close = difflib.get_close_matches(str(path[-1]), known, n=1, cutoff=0.75)
            hint = f"; did you mean `{close[0]}`?" if close else ""
            shown = ".".join(str(p) for p in path)
            findings.append(check_finding(C.UNKNOWN_FIELD, record.key_location(*path),
                                          f"unknown field `{shown}` for lane {lane.name}{hint}", shown_id,
                                          record_index=record.index))
    for count_path in count_fields(lane):
        parts = count_path.split(".")
        value = _value_at(data, parts)
        if _negative(value) and count_path not in mistyped and (
                parts[0] not in schema.fields or _type_ok(data[parts[0]], schema.fields[parts[0]].type)):
            findings.append(check_finding(
                C.WRONG_TYPE, record.location(*parts), f"`{count_path}` is a count: it must be 0 or more, not {value}",
                shown_id, record_index=record.index))
            drop.append(tuple(parts))
    for name in data:
        if name not in schema.fields and name != SUPPRESSION_KEY:
            close = difflib.get_close_matches(name, list(schema.fields), n=1, cutoff=0.75)
            hint = f"; did you mean `{close[0]}`?" if close else ""
            findings.append(
                check_finding(
                    C.UNKNOWN_FIELD,
                    record.key_location(name),
                    f"unknown field `{name}` for lane {lane.name}{hint}",
                    shown_id,
                    record_index=record.index,
                )
            )
    check = lane.proposal_check
    if check is not None:
        premises = data.get(check.premises_field)
        expected = data.get(check.count_field)
        if _type_ok(premises, "list[string]") and _type_ok(expected, "integer") and not _negative(expected):
            count = sum(1 for p in list(premises or ()) if check.correction_pattern.search(str(p)))
            if count != expected:
                findings.append(
                    check_finding(
                        check.code,
                        record.location(check.count_field),
                        f"`{check.count_field}` is {expected} but {count} premise(s) are "
                        f"correction-intent (match `{check.correction_pattern.pattern}`)",
                        shown_id,
                        record_index=record.index,
                        fixes=(
                            Fix(f"Set {check.count_field} to {count}", record.location(check.count_field), str(count)),
                        ),
                    )
                )
    if case_id == "":
        # Otherwise the case is silently left out: nothing can join to it.
        findings.append(
            check_finding(
                C.MISSING_FIELD,
                record.location(schema.id_field),
                f"`{schema.id_field}` is empty: the case cannot be joined to a transcript and is left out",
                record_index=record.index,
            )
        )
    if not isinstance(case_id, str) or not case_id:
        return None
    typed: Any = typed_case_fields(lane, data) if wrong else data
    for path in drop:
        typed = _without(typed, path)
    return Case(case_id, typed, record)


def _unknown_nested(value: Any, spec: FieldSpec, path: tuple[str | int, ...]) -> list[tuple[tuple[str | int, ...], list[str]]]:
    """(path, the declared names there) of every key inside an object / list[object] value whose
    spec declares its fields and not that key; an object field that declares none is open."""
    if not spec.fields:
        return []
    objects = [(path, value)] if isinstance(value, dict) else [
        ((*path, i), item) for i, item in enumerate(value) if isinstance(item, dict)] if isinstance(value, list) else []
    out: list[tuple[tuple[str | int, ...], list[str]]] = []
    for where, obj in objects:
        for key, inner in obj.items():
            child = spec.fields.get(key)
            if child is None:
                out.append(((*where, key), list(spec.fields)))
            elif _type_ok(inner, child.type):
                out.extend(_unknown_nested(inner, child, (*where, key)))
    return out


def _unknown_predicates(
    record: Record, name: str, values: Sequence[str], lane: Lane, case_id: str | None
) -> Iterable[Finding]:
    known: list[str] | None = None  # the names a typo is matched against, built at the first unknown one
    for i, value in enumerate(values):
        if lane.predicate(value) is not None:
            continue
        if known is None:
            known = [p.name for p in lane.predicates if p.report] + [
                a for p in lane.predicates if p.report for a in p.aliases
            ]
        close = difflib.get_close_matches(value, known, n=1, cutoff=0.5)
        loc = record.location(name, i)
        fixes = (Fix(f"Replace with `{close[0]}`", loc, f'"{close[0]}"'),) if close else ()
        hint = f"; did you mean `{close[0]}`?" if close else ""
        yield check_finding(
            C.UNKNOWN_PREDICATE,
            loc,
            f"unknown predicate `{value}` for lane {lane.name}{hint}",
            case_id,
            fixes=fixes,
            record_index=record.index,
        )


def next_free_id(case_id: str, taken: Container[str]) -> str:
    """`fluency_truth_001` -> the next unused number with the same width (`..._016`)."""
    stem = case_id.rstrip("0123456789")
    digits = case_id[len(stem):]
    width = len(digits) or 3
    n = int(digits) if digits else 1
    while True:
        n += 1
        candidate = f"{stem}{n:0{width}d}" if digits else f"{case_id}_{n}"
        if candidate not in taken:
            return candidate


def duplicate_finding(case: Case, twin: Case, id_field: str, new_id: str) -> Finding:
    """SL005 for `case`, a later case with the id of `twin`; the fix renumbers it to `new_id`."""
    where = "this file" if twin.path == case.path else twin.path
    loc = case.record.location(id_field)
    return check_finding(
        C.DUPLICATE_ID,
        loc,
        f"duplicate case id `{case.id}` (first at {where}:{twin.record.line})",
        case.id,
        related=(Related(twin.record.location(id_field), f"first `{case.id}`"),),
        fixes=(Fix(f"Renumber to `{new_id}`", loc, f'"{new_id}"'),),
        record_index=case.record.index,
    )


@dataclass(frozen=True, slots=True)
class DuplicatePair:
    """A later case (`case`) with the id of an earlier one (`twin`), and the id its fix renumbers it to."""

    case: Case
    twin: Case
    id_field: str
    new_id: str
    within_file: bool  # both in one case file (else `twin` is in an earlier file of the run)

    def finding(self) -> Finding:
        return duplicate_finding(self.case, self.twin, self.id_field, self.new_id)


def duplicate_pairs(files: Sequence[CaseFile]) -> Iterator[DuplicatePair]:
    """Duplicate ids within and across the given case files (the later one is paired), in file
    order; each renumbering skips every id the files hold and every id offered before it."""
    first: dict[str, tuple[Case, int]] = {}
    taken = {c.id for f in files for c in f.cases}
    for file_no, case_file in enumerate(files):
        for case in case_file.cases:
            seen = first.get(case.id)
            if seen is None:
                first[case.id] = (case, file_no)
                continue
            new_id = next_free_id(case.id, taken)
            taken.add(new_id)
            yield DuplicatePair(case, seen[0], case_file.lane.schema.id_field, new_id, seen[1] == file_no)


def duplicate_findings(files: Sequence[CaseFile]) -> list[Finding]:
    """Duplicate ids within and across the given case files (the later one is flagged)."""
    return [pair.finding() for pair in duplicate_pairs(files)]


def leak_key(case: Case, fields: Sequence[str]) -> tuple[Any, ...] | None:
    """What a holdout leak compares of a case (its leak fields, folded), None when it has none."""
    values = tuple(_normalise(case.data.get(f)) for f in fields)
    if all(v is None for v in values):
        return None
    return values


def _normalise(value: Any) -> Any:
    """A hashable, whitespace- and case-folded form of a (typed) leak field's value."""
    if isinstance(value, str):
        return " ".join(value.split()).casefold()
    if isinstance(value, list):
        return tuple(" ".join(v.split()).casefold() if isinstance(v, str) else json_type(v) for v in value)
    if isinstance(value, dict):
        return None  # never walked (a field the schema does not type may nest any depth): no key
    return value


def leak_finding(case: Case, twin: Case, case_file: CaseFile, fields: Sequence[str]) -> Finding:
    """SL006 for `case`, whose leak fields repeat those of holdout case `twin`."""
    what = " + ".join(fields)
    return check_finding(
        C.HOLDOUT_LEAK,
        case.record.location(fields[0]),
        f"this {case_file.split or 'non-holdout'} case repeats the {what} of holdout "
        f"`{twin.id}` ({twin.path}:{twin.record.line})",
        case.id,
        related=(Related(twin.record.location(fields[0]), f"holdout `{twin.id}`"),),
        record_index=case.record.index,
    )


def leak_findings(files: Sequence[CaseFile]) -> list[Finding]:
    """A dev/public case whose prompt (or premise chain) repeats a holdout case's."""
    holdouts: dict[tuple[Any, ...], Case] = {}
    out: list[Finding] = []
    for case_file in files:
        if case_file.split != "holdouts":
            continue
        for case in case_file.cases:
            key = leak_key(case, case_file.lane.schema.leak_fields)
            if key is not None:
                holdouts.setdefault(key, case)
    for case_file in files:
        if case_file.split == "holdouts":
            continue
        fields = case_file.lane.schema.leak_fields
        for case in case_file.cases:
            key = leak_key(case, fields)
            twin = holdouts.get(key) if key is not None else None
            if twin is None:
                continue
            out.append(leak_finding(case, twin, case_file, fields))
    return out


def sibling_case_files(path: str, lane_name: str) -> list[Path]:
    """The lane's other case files (`<lane>/{dev,public/*,holdouts/*}/cases.jsonl`, also under
    `<lane>/cases/`, the runtime's lane folders' layout)."""
    p = Path(path).resolve()
    root = None
    for parent in p.parents:
        if parent.name == lane_name:
            root = parent
            break
    if root is None:
        return []
    found: list[Path] = []
    for base in (root, root / "cases"):
        found.append(base / "dev" / "cases.jsonl")
        for split in ("public", "holdouts", "holdout"):
            found.extend(sorted((base / split).glob("*/cases.jsonl")))
    return [f for f in found if f.is_file() and f.resolve() != p]
