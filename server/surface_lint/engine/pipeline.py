"""The one record pipeline: each record joined with its case and context once, evaluated by one function.

`join_turns` / `join_report` turn what a reader yields into `Joined` records (the case, the
subject predicates read, priming, replay chains, unjoined ids); `Evaluator.evaluate` gives a
joined record's verdicts and findings. `check` maps over the stream, scoring folds it, the
language server calls `Engine.check_line` for the lines it re-checks (the same path).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, cast

from ..checks import CHECK_CODES as C
from ..findings import Finding, Fix, Location, Severity
from ..lanes import Lane, PredicateSpec
from ..predicates import Context, Subject, Verdict
from ..scoring import evaluate as lane_verdicts
from ..scoring import expected_names
from ..sources.base import Record, check_finding
from ..sources.cases import Case
from ..sources.transcripts import Transcript, Turn
from ..suppress import Suppressions
from .caseindex import IdSet
from .details import build_details, is_primed, report_case_fields, report_subject
from .results import SURFACE_PATH, CaseIndex

TURN, CHAIN, REPORT_CASE = "turn", "chain", "report-case"


@dataclass(slots=True)
class Joined:
    """One record with everything its evaluation reads, computed once."""

    kind: str  # TURN | CHAIN | REPORT_CASE
    record: Record  # where its findings point
    case_id: str | None
    case: Case | None
    subject: Subject
    fields: Mapping[str, Any] | None  # case fields predicates read
    judged: Mapping[str, Any] | None  # case fields the record is held to (its expectations)
    stored: Mapping[str, Any] | None = None  # a report entry: its stored verdicts and fields
    targets: Mapping[str, Record] | None = None  # chain predicates: which record a field is on
    scored: bool = True  # the record a lane scores for its case
    known: bool = True  # its case id names a given case (True when no case files were given)
    problems: list[Finding] = field(default_factory=list)  # SL015 for an unjoined id, once per id


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
    """Turn JSONL / telemetry joined with cases. A surface lane yields each turn as it comes (a
    priming turn primes the later turns of its case); a chain lane yields each case's chain
    (both runs, premise proposals counted) once every turn is read. `primed`: case ids primed
    before these turns (the editor's re-checked lines); `unknown`: ids already reported."""
    join = _Join(cases)
    if unknown is not None:
        join.unknown = unknown
    if lane.unit == "chain":
        yield from _join_chains(lane, turns, join)
        return
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
            case, known, problems = None, True, cast("list[Finding]", [])
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
                     None, None, scored, known, problems)  # positional: one per turn


@dataclass
class Chain:
    """Both runs of one symbolic case, accumulated from its turns."""

    case_id: str
    probes: dict[int, Turn] = field(default_factory=dict)
    proposals: dict[int, int] = field(default_factory=dict)
    first: Turn | None = None

    def subject(self, case_fields: Mapping[str, Any] | None = None) -> Subject:
        p0, p1 = self.probes.get(0), self.probes.get(1)
        return Subject(
            surface=p0.surface or "" if p0 else "",
            grounding=p0.grounding if p0 else "none",
            case=case_fields,
            vault_hits=p0.vault_hits or 0 if p0 else 0,
            trace_hash=(p0.trace_hash or "") if p0 else "",
            proposal_count=self.proposals.get(0, 0),
            vault_hits_replay=(p1.vault_hits or 0) if p1 else None,
            trace_hash_replay=(p1.trace_hash or "") if p1 else None,
            proposal_count_replay=self.proposals.get(1, 0) if p1 else None,
        )

    def probe_record(self) -> Record:
        turn = self.probes.get(0) or self.first
        assert turn is not None
        return turn.record


def _join_chains(lane: Lane, turns: Iterable[Turn], join: _Join) -> Iterator[Joined]:
    by_id: dict[str, Chain] = {}
    for turn in turns:
        if not turn.case_id:
            continue
        chain = by_id.get(turn.case_id)
        if chain is None:
            chain = by_id[turn.case_id] = Chain(turn.case_id, first=turn)
        if turn.role == "premise" and turn.proposal:
            chain.proposals[turn.chain] = chain.proposals.get(turn.chain, 0) + 1
        if turn.scored or turn.role == "probe":
            chain.probes[turn.chain] = turn
    for chain in by_id.values():
        probe = chain.probe_record()
        case, known, problems = join.case(chain.case_id, probe)
        fields = case.data if case is not None else None
        yield Joined(CHAIN, probe, chain.case_id, case, chain.subject(fields), fields, fields,
                     targets={"proposal_count": probe}, known=known, problems=problems)


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

    def evaluate(self, joined: Joined, findings: bool = True) -> Evaluated:
        """Verdicts always; predicate findings when `findings` (scoring asks only for the first
        failing cases it shows); a report entry's stored flags are always checked."""
        verdicts = lane_verdicts(self.lane, joined.subject, joined.stored, joined.fields)
        casework = self.lane.casework
        if casework is not None and joined.kind == TURN:  # only what the lane judges on this turn
            verdicts = {k: v for k, v in verdicts.items() if casework.judges(k, joined.record.data, joined.fields)}
        elif casework is not None and joined.kind == REPORT_CASE:
            verdicts = {}  # a case-driven lane's report entry is its per-case record, not a turn: judged from captures
        found = self.predicate_findings(verdicts, joined.record, joined.judged, joined.case_id,
                                        joined.targets) if findings else []
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

    def predicate_findings(
        self,
        verdicts: Mapping[str, Verdict],
        record: Record,
        case_fields: Mapping[str, Any] | None,
        case_id: str | None,
        targets: Mapping[str, Record] | None = None,
    ) -> list[Finding]:
        out: list[Finding] = []
        for spec in self.lane.predicates:
            verdict = verdicts.get(spec.name)
            if verdict is None or verdict.passed or not spec.report:
                continue
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
                locations = [record.location(*SURFACE_PATH, inner=span) for span in verdict.spans]
            elif verdict.target:
                target = (targets or {}).get(verdict.target, record)
                if verdict.target in target.data:
                    locations = [target.location(verdict.target)]
                else:
                    locations = [target.whole()]
            elif "surface" in record.data:
                locations = [record.location(*SURFACE_PATH)]
            else:
                locations = [record.whole()]
            fixes = _ending_fix(spec, verdict, locations[-1]) if spec.kind == "ends_with" else ()
            for index, loc in enumerate(locations):
                out.append(Finding(location=loc, code=spec.code, rule=spec.name, severity=severity,
                                   message=f"{spec.name}: {verdict.span_message(index)}",  # each span its own match
                                   record_id=case_id, record_index=record.index, fixes=fixes))
        return out

    def stored_mismatches(self, joined: Joined) -> list[Finding]:
        """Stored per-case flags that do not follow from the entry's raw fields (reference profile)."""
        reference = self.reference
        entry, record = joined.stored or {}, joined.record
        fields = joined.fields or {}
        subject = joined.subject  # a report entry's subject reads no lane setting
        verdicts = lane_verdicts(reference, subject, entry, fields)
        computed = build_details(reference, verdicts, subject, fields, entry, Context(subject, reference.analysis))
        out = []
        for key, source in reference.details.items():
            if not source.startswith(("signal.", "verdicts", "analysis.")) or key not in entry:
                continue
            stored, ours = entry[key], computed.get(key)
            pairs = ([((key, k), stored.get(k), v) for k, v in ours.items() if k in stored]
                     if isinstance(stored, dict) and isinstance(ours, dict) else [((key,), stored, ours)])
            for path, old, new in pairs:
                if old != new:
                    out.append(check_finding(
                        C.STORED_MISMATCH, record.location(*path),
                        f"stored `{'.'.join(map(str, path))}` is {json.dumps(old)} but the raw fields give "
                        f"{json.dumps(new)}", joined.case_id, record_index=record.index))
        return out


def _ending_fix(spec: PredicateSpec, verdict: Verdict, where: Location) -> tuple[Fix, ...]:
    """`complete_punctuation`-style findings: insert the first ending after the last character."""
    endings = spec.params.get("endings") or ()
    if not endings or not verdict.spans or verdict.spans[-1][1] <= verdict.spans[-1][0]:
        return ()
    at = Location(where.path, where.end_line, where.end_column, where.end_line, where.end_column)
    return (Fix(f"Add terminal punctuation `{endings[0]}`", at, str(endings[0])),)


__all__ = ["CHAIN", "REPORT_CASE", "TURN", "Evaluated", "Evaluator", "Joined", "Suppressions",
           "join_report", "join_turns"]
