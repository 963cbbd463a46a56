"""The one record pipeline: each record joined with its case and context once, evaluated by one function.

`join_turns` / `join_report` turn what a reader yields into `Joined` records (the case, the
subject predicates read, priming, unjoined ids); `Evaluator.evaluate` gives a
joined record's verdicts and findings. `check` maps over the stream, scoring folds it, the
language server calls `Engine.check_line` for the lines it re-checks (the same path).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, overload

from ..model.checks import CHECK_CODES as C
from ..model.findings import Finding, Fix, Location, Severity, new_finding, new_fix, new_location, packed_finding
from ..rules.kinds.core import Context, Subject, Verdict
from ..rules.loader import Lane, PredicateSpec, detail_is_derived
from ..sources.base import Record, check_finding
from ..sources.cases import Case
from ..sources.suppress import Suppressions
from ..sources.transcripts import Transcript, Turn
from .caseindex import IdSet
from .casework import report_mismatches, report_verdicts
from .details import build_details, is_primed, report_case_fields, report_subject
from .results import SURFACE_PATH, CaseIndex
from .scoring import EvaluationMemo, expected_names
from .scoring import evaluate as lane_verdicts

TURN, REPORT_CASE = "turn", "report-case"
_NO_PROBLEMS: list[Finding] = []  # shared by every record joined without case files (never changed)
# A failed reported predicate: its spec, its verdict, its findings' messages (one per span, else one).
_Failing = tuple[PredicateSpec, Verdict, tuple[str, ...]]
_FAILING_KEPT = 4096  # verdict mappings whose failures are remembered (cleared when full)
# A remembered finding of a failing surface (`Evaluator._shifted`): its start and end columns from
# the column of the surface token's quote, code, rule, severity, message, and its fix (title,
# column from the quote's, replacement) or None.
_Shifted = tuple[int, int, str, str, Severity, str, tuple[str, int, str] | None]
_SHIFTED_TOKEN = 4096  # characters: a longer token's findings are made each time
# Characters of the tokens `_shifted` holds at most (cleared when past): 4,096 tokens of 4,096
# characters would be 16 MiB; real surfaces of a few hundred characters never reach it.
_SHIFTED_CHARS = 1 << 20


@dataclass(slots=True)
class Joined:
    """One record with everything its evaluation reads, computed once."""

    kind: str  # TURN | REPORT_CASE
    record: Record  # where its findings point
    case_id: str | None
    case: Case | None
    subject: Subject
    fields: Mapping[str, Any] | None  # case fields predicates read
    judged: Mapping[str, Any] | None  # case fields the record is held to (its expectations)
    stored: Mapping[str, Any] | None = None  # a report entry: its stored verdicts and fields
    scored: bool = True  # the record a lane scores for its case
    known: bool = True  # its case id names a given case (True when no case files were given)
    problems: list[Finding] = field(default_factory=list)  # SL015 for an unjoined id, once per id
    # A turn its runner does not score (priming, premise, `scored: false`): context, which gives
    # no predicate finding unless the lane's [casework] judges it (`Evaluator.evaluate`).
    context: bool = False


@dataclass(slots=True)
class Evaluated:
    joined: Joined
    verdicts: Mapping[str, Verdict]
    findings: list[Finding]  # of the lane's predicates (a case's failures)
    mismatches: list[Finding]  # a report entry's stored flags that do not follow (input problems)

    def all_findings(self) -> list[Finding]:
        """Everything `check` reports of this record: the join's, the stored flags', the predicates'."""
        if not self.joined.problems and not self.mismatches:
            return self.findings
        return [*self.joined.problems, *self.mismatches, *self.findings]


class _Join:
    """Which case ids were seen without a case (SL015 once per id, at its first record)."""

    def __init__(self, cases: CaseIndex | None) -> None:
        self.cases = cases
        self.unknown = IdSet()  # bounded: on disk past a few thousand ids

    def case(self, case_id: str | None, record: Record) -> tuple[Case | None, bool, list[Finding]]:
        if self.cases is None or not case_id:
            return None, self.cases is None, []
        case = self.cases.get(case_id)
        if case is not None:
            return case, True, []
        if not self.unknown.add(case_id):
            return None, False, []
        where = record.location("case_id") if "case_id" in record.data else (
            record.location("id") if "id" in record.data else record.whole())
        return None, False, [check_finding(C.UNJOINED, where,
                                           f"case id `{case_id}` matches no case in the given case files",
                                           case_id, record_index=record.index)]


def join_turns(lane: Lane, turns: Iterable[Turn], cases: CaseIndex | None,
               primed: Iterable[str] = (), unknown: IdSet | None = None) -> Iterator[Joined]:
    """Turn JSONL / telemetry joined with cases, each turn as it comes (a priming turn primes the
    later turns of its case; a case-driven lane groups a case's turns itself: casegroup.py).
    `primed`: case ids primed before these turns (the editor's re-checked lines); `unknown`: ids
    already reported."""
    join = _Join(cases)
    if unknown is not None:
        join.unknown = unknown
    primed_ids = IdSet()  # bounded, as the unjoined ids
    primed_ids.update(primed)
    any_primed = bool(primed_ids)  # no priming turn yet: no id to look up
    casework = lane.casework
    for turn in turns:
        case_id = turn.case_id
        if turn.role == "priming" and case_id:
            primed_ids.add(case_id)
            any_primed = True
        if cases is None:  # nothing to join with (join.case's answer, without the call)
            case, known, problems = None, True, _NO_PROBLEMS
        else:
            case, known, problems = join.case(case_id, turn.record)
        fields = case.data if case is not None else None
        # A case-driven lane's predicates also read the case's entry for this turn (casework.py).
        read = casework.subject_case(turn.record.data, fields) if casework is not None else fields
        transcript_primed = any_primed and case_id in primed_ids
        subject = Subject(turn.surface or "", turn.grounding, read,
                          is_primed(fields, transcript_primed) if fields is not None else transcript_primed)
        scored = turn.scored and turn.chain == 0 and bool(case_id)
        # Only the scored turn is held to the case's expectations.
        yield Joined(TURN, turn.record, case_id, case, subject, fields, fields if turn.scored else None,
                     None, scored, known, problems,
                     not turn.scored and turn.role != "turn")  # positional: one per turn; telemetry ("turn") is never context


def join_report(lane: Lane, transcript: Transcript, cases: CaseIndex | None,
                unknown: IdSet | None = None) -> Iterator[Joined]:
    """A lane report's entries joined with cases (else with the case fields the report embeds)."""
    join = _Join(cases)
    if unknown is not None:
        join.unknown = unknown
    for entry in transcript.entries:
        case, known, problems = join.case(entry.case_id, entry.record)
        fields = report_case_fields(lane, entry, case)
        subject = report_subject(lane, entry, fields)
        yield Joined(REPORT_CASE, entry.record, entry.case_id, case, subject, fields, fields,
                     stored=entry.data, scored=entry.case_id is not None, known=known, problems=problems)


class Evaluator:
    """The one evaluation of a joined record: the lane's verdicts and the findings they give."""

    def __init__(self, lane: Lane, levels: Mapping[str, str], reference: Lane | None = None) -> None:
        self.lane = lane
        self.levels = levels  # configured severity per predicate name (config.resolve_severity)
        self.reference = reference or lane
        self._levels: dict[str, Severity | None] = {}  # configured severity per predicate, parsed once
        self.memo = EvaluationMemo(lane)  # this evaluation's plan and verdict memo (never the Lane's)
        # id(verdicts) -> (verdicts, what they fail): see `_failing`.
        self._failing_by_verdicts: dict[int, tuple[Mapping[str, Verdict], tuple[_Failing, ...]]] = {}
        # (id(failures), surface token, severities) -> (failures, their findings shifted): see `_shifted`.
        self._shifted_by_token: dict[tuple[int, str, tuple[Severity | None, ...] | None],
                                     tuple[tuple[_Failing, ...], tuple[_Shifted, ...] | None]] = {}
        self._shifted_chars = 0  # characters of the tokens held there

    def evaluate(self, joined: Joined, findings: bool = True) -> Evaluated:
        """Verdicts always; predicate findings when `findings` (scoring asks only for the first
        failing cases it shows); a report entry's stored flags are always checked. A context turn
        (one its runner does not score: priming, premise) fails nothing unless the lane says so:
        a case-driven lane's [casework] names what it judges on each turn, context turns included."""
        verdicts = lane_verdicts(self.lane, joined.subject, joined.stored, joined.fields, self.memo)
        casework = self.lane.casework
        error = None
        if casework is not None and joined.kind == TURN:  # only what the lane judges on this turn
            verdicts = {k: v for k, v in verdicts.items() if casework.judges(k, joined.record.data, joined.fields)}
        elif casework is not None and joined.kind == REPORT_CASE:
            # A case-driven lane's report entry is its per-case record, not a turn: what it fails
            # is its `check` values read back (casework.report_outcome), as `score` reads them.
            verdicts, error = report_verdicts(casework, joined.case_id, joined.stored, joined.fields,
                                             joined.case is not None)
        elif joined.context:
            findings = False  # the review shows it as context, Problems lists nothing on it
        found = self.predicate_findings(verdicts, joined.record, joined.judged, joined.case_id,
                                        shared=casework is None) if findings else []
        if error is not None:  # an expression failed on a report entry: at its case field, as a case's
            record = joined.record
            where = record.location(casework.case_field) if casework is not None and casework.case_field in \
                record.data else record.whole()
            found.append(check_finding(error.code, where, error.message, joined.case_id, record_index=record.index))
        mismatches = self.stored_mismatches(joined) if joined.kind == REPORT_CASE else []
        return Evaluated(joined, verdicts, found, mismatches)

    def severity(self, spec: PredicateSpec, case_fields: Mapping[str, Any] | None) -> Severity | None:
        """Expected -> error; informational (post-gloss) -> information; else config/default."""
        lane = self.lane
        if case_fields:
            if spec.name in expected_names(lane, case_fields):
                return Severity.ERROR
            if lane.informational_field:
                listed = case_fields.get(lane.informational_field)
                if isinstance(listed, list) and any(
                    isinstance(n, str) and lane.predicate(n) is spec for n in listed
                ):
                    return Severity.INFORMATION
        if spec.name not in self._levels:
            override = self.levels.get(spec.name)
            self._levels[spec.name] = None if override == "off" else Severity.parse(override or spec.default_severity)
        return self._levels[spec.name]

    def reported_severity(self, name: str, verdict: Verdict, case_fields: Mapping[str, Any] | None) -> Severity | None:
        """The severity of a failed predicate's finding, None when it reports none (as
        `predicate_findings` decides: severity off, `applies_if` unmet, a pattern past its limit)."""
        spec = self.lane.predicate(name)
        if spec is None or not spec.report or verdict.timed_out:
            return None
        if spec.applies_if and not (case_fields or {}).get(spec.applies_if):
            return None
        return self.severity(spec, case_fields)

    def _failing(self, verdicts: Mapping[str, Verdict], shared: bool) -> tuple[_Failing, ...]:
        """The lane's reported predicates `verdicts` fails, in the lane's order, each with its
        findings' messages (one per span, else one). `shared`: the mapping is the evaluation
        memo's (repeated subjects share one), so what it fails is remembered by its identity."""
        if shared:
            seen = self._failing_by_verdicts.get(id(verdicts))
            if seen is not None and seen[0] is verdicts:
                return seen[1]
        out: list[_Failing] = []
        for spec in self.lane.predicates:
            verdict = verdicts.get(spec.name)
            if verdict is None or verdict.passed or not spec.report:
                continue
            messages = tuple(f"{spec.name}: {verdict.span_message(index)}"  # each span its own match
                             for index in range(max(1, len(verdict.spans))))
            out.append((spec, verdict, messages))
        failing = tuple(out)
        if shared and not self.memo.paused:  # a paused memo gives every record a new mapping
            memo = self._failing_by_verdicts
            if len(memo) >= _FAILING_KEPT:
                memo.clear()
            memo[id(verdicts)] = (verdicts, failing)  # held: its id is not reused while here
        return failing

    def predicate_findings(
        self,
        verdicts: Mapping[str, Verdict],
        record: Record,
        case_fields: Mapping[str, Any] | None,
        case_id: str | None,
        shared: bool = False,
    ) -> list[Finding]:
        failing = self._failing(verdicts, shared)
        if not failing:
            return []
        if shared and not self.memo.paused:
            levels = None
            if case_fields:  # what the case changes of them: each one's severity, None when not reported
                levels = tuple([None if spec.applies_if and not case_fields.get(spec.applies_if)
                                else self.severity(spec, case_fields) for spec, _, _ in failing])
            shifted = self._shifted(failing, record, case_fields, case_id, levels)
            if shifted is not None:
                return shifted
        return self._findings(failing, record, case_fields, case_id)

    def packed_findings(self, verdicts: Mapping[str, Verdict], record: Record, case_id: str) -> list[tuple[Any, ...]]:
        """`predicate_findings(verdicts, record, None, case_id, shared=True)`, each finding as
        `packed_finding` packs it (what the spools keep): a remembered surface's findings are
        packed as they are made, no Finding built."""
        failing = self._failing(verdicts, True)
        if not failing:
            return []
        if not self.memo.paused:
            shifted = self._shifted(failing, record, None, case_id, None, True)
            if shifted is not None:
                return shifted
        return list(map(packed_finding, self._findings(failing, record, None, case_id)))

    @overload
    def _shifted(self, failing: tuple[_Failing, ...], record: Record, case_fields: Mapping[str, Any] | None,
                 case_id: str | None, levels: tuple[Severity | None, ...] | None,
                 packed: Literal[False] = ...) -> list[Finding] | None: ...

    @overload
    def _shifted(self, failing: tuple[_Failing, ...], record: Record, case_fields: Mapping[str, Any] | None,
                 case_id: str | None, levels: tuple[Severity | None, ...] | None,
                 packed: Literal[True]) -> list[tuple[Any, ...]] | None: ...

    def _shifted(self, failing: tuple[_Failing, ...], record: Record, case_fields: Mapping[str, Any] | None,
                 case_id: str | None, levels: tuple[Severity | None, ...] | None,
                 packed: bool = False) -> list[Finding] | list[tuple[Any, ...]] | None:
        """`_findings(failing, record, case_fields, case_id)` when every finding it gives sits in
        the record's one-line `surface` string (a span of it, or all of it): those findings depend
        on the surface's raw token, not on where the line puts it, and on the case fields only
        through `levels` (each failure's severity or None), so they are remembered per (failures,
        token, levels) with columns from the token's quote and only shifted here. None: not so
        (another member's location, a pattern past its limit, a record of several lines).
        `packed`: each finding as `packed_finding` gives it."""
        at = record.top_string("surface")
        if at is None:
            return None
        start, token = at
        key = (id(failing), token, levels)
        memo = self._shifted_by_token
        seen = memo.get(key)
        if seen is not None and seen[0] is failing:
            rows = seen[1]
        else:  # the old path's findings, and what they become from the quote's column
            found, rows = self._relative(failing, record, case_fields, case_id, start, token)
            if len(token) <= _SHIFTED_TOKEN:
                if len(memo) >= _FAILING_KEPT or self._shifted_chars >= _SHIFTED_CHARS:
                    memo.clear()
                    self._shifted_chars = 0
                memo[key] = (failing, rows)  # failing held: its id is not reused while here
                self._shifted_chars += len(token)
            return list(map(packed_finding, found)) if packed else found
        if rows is None:
            return None
        path, line, index, base = record.path, record.line, record.index, start + 1
        if packed:  # packed_finding's tuples: (location, code, rule, severity, message, id, related, fixes, index, extra)
            tuples: list[tuple[Any, ...]] = []
            for a, b, code, rule, severity, message, fix in rows:
                packed_fixes: tuple[Any, ...] = ()
                if fix is not None:
                    title, column, replacement = fix
                    packed_fixes = ((title, (path, line, base + column, line, base + column), replacement),)
                tuples.append(((path, line, base + a, line, base + b), code, rule, int(severity), message, case_id,
                               (), packed_fixes, index, {}))
            return tuples
        out: list[Finding] = []
        for a, b, code, rule, severity, message, fix in rows:
            fixes: tuple[Fix, ...] = ()
            if fix is not None:
                title, column, replacement = fix
                fixes = (new_fix(title, new_location(path, line, base + column, line, base + column), replacement),)
            out.append(new_finding(new_location(path, line, base + a, line, base + b), code, rule, severity, message,
                                   case_id, (), fixes, index))
        return out

    def _relative(self, failing: tuple[_Failing, ...], record: Record, case_fields: Mapping[str, Any] | None,
                  case_id: str | None, start: int, token: str) -> tuple[list[Finding], tuple[_Shifted, ...] | None]:
        """`_findings(failing, record, case_fields, case_id)` and what `_shifted` remembers of them:
        each with its columns made relative to the column of the surface token's quote (`start` +
        1), or None when one of them is not in the token (then the old path is taken each time)."""
        record.surface_at("surface", start, start + len(token))  # the search done: not done again
        found = self._findings(failing, record, case_fields, case_id)
        if "surface" not in record.data or any(verdict.timed_out or (not verdict.spans and verdict.target)
                                               for _, verdict, _ in failing):
            return found, None
        base, line = start + 1, record.line
        rows: list[_Shifted] = []
        for f in found:
            loc = f.location
            if loc.line != line or loc.end_line != line or len(f.fixes) > 1:
                return found, None
            fix = None
            if f.fixes:
                x = f.fixes[0]
                at = x.location
                if at.line != line or at.end_line != line or at.end_column != at.column:
                    return found, None
                fix = (x.title, at.column - base, x.replacement)
            rows.append((loc.column - base, loc.end_column - base, f.code, f.rule, f.severity, f.message, fix))
        return found, tuple(rows)

    def _findings(self, failing: tuple[_Failing, ...], record: Record, case_fields: Mapping[str, Any] | None,
                  case_id: str | None) -> list[Finding]:
        out: list[Finding] = []
        for spec, verdict, messages in failing:
            if spec.applies_if and not (case_fields or {}).get(spec.applies_if):
                continue
            severity = self.severity(spec, case_fields)
            if severity is None:
                continue
            if verdict.timed_out:
                out.append(check_finding(C.PATTERN_LIMIT, record.location(*SURFACE_PATH), verdict.message,
                                         case_id, record_index=record.index))
                continue
            locations: list[Location] = []
            if verdict.spans and "surface" in record.data:
                locations = record.span_locations(SURFACE_PATH, verdict.spans)
            elif verdict.target:
                if verdict.target in record.data:
                    locations = [record.location(verdict.target)]
                else:
                    locations = [record.whole()]
            elif "surface" in record.data:
                locations = [record.location(*SURFACE_PATH)]
            else:
                locations = [record.whole()]
            fixes = _ending_fix(spec, verdict, locations[-1]) if spec.kind == "ends_with" else ()
            code, rule, index = spec.code, spec.name, record.index
            for i, loc in enumerate(locations):
                message = messages[i] if i < len(messages) else f"{rule}: {verdict.span_message(i)}"
                out.append(new_finding(loc, code, rule, severity, message, case_id, (), fixes, index))
        return out

    def stored_mismatches(self, joined: Joined) -> list[Finding]:
        """Stored per-case flags that do not follow from the entry's raw fields (reference profile):
        a classic lane's derived details, a case-driven lane's bare-name details of the values
        recomputed on the entry (casework.report_mismatches)."""
        reference = self.reference
        entry, record = joined.stored or {}, joined.record
        fields = joined.fields or {}
        if reference.casework is not None:
            if joined.case_id is None:
                return []
            found = report_mismatches(reference.casework, entry, fields, joined.case is not None)
            return mismatch_findings(record, joined.case_id, [((key,), old, new) for key, old, new in found])
        subject = joined.subject  # a report entry's subject reads no lane setting
        verdicts = lane_verdicts(reference, subject, entry, fields)
        computed = build_details(reference, verdicts, subject, fields, entry, Context(subject, reference.analysis))
        pairs: list[tuple[tuple[str, ...], Any, Any]] = []
        for key, source in reference.details.items():
            if not detail_is_derived(source) or key not in entry:
                continue
            stored, ours = entry[key], computed.get(key)
            pairs += ([((key, k), stored.get(k), v) for k, v in ours.items() if k in stored]
                      if isinstance(stored, dict) and isinstance(ours, dict) else [((key,), stored, ours)])
        return mismatch_findings(record, joined.case_id, pairs)


def mismatch_findings(record: Record, case_id: str | None,
                      pairs: Iterable[tuple[tuple[str, ...], Any, Any]]) -> list[Finding]:
    """SL011 at each stored field (path) whose value the raw fields do not give: (path, stored, ours)."""
    return [check_finding(C.STORED_MISMATCH, record.location(*path),
                          f"stored `{'.'.join(map(str, path))}` is {json.dumps(old)} but the raw fields give "
                          f"{json.dumps(new)}", case_id, record_index=record.index)
            for path, old, new in pairs if old != new]


def _ending_fix(spec: PredicateSpec, verdict: Verdict, where: Location) -> tuple[Fix, ...]:
    """`complete_punctuation`-style findings: insert the first ending after the last character."""
    endings = spec.params.get("endings") or ()
    if not endings or not verdict.spans or verdict.spans[-1][1] <= verdict.spans[-1][0]:
        return ()
    at = new_location(where.path, where.end_line, where.end_column, where.end_line, where.end_column)
    return (new_fix(f"Add terminal punctuation `{endings[0]}`", at, str(endings[0])),)


__all__ = ["REPORT_CASE", "TURN", "Evaluated", "Evaluator", "Joined", "Suppressions",
           "join_report", "join_turns"]
