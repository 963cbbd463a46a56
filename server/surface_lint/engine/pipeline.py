"""The one record pipeline: each record joined with its case and context once, evaluated by one function.

`join_turns` / `join_report` turn what a reader yields into `Joined` records (the case, the
subject predicates read, priming, replay chains, unjoined ids); `Evaluator.evaluate` gives a
joined record's verdicts and findings. `check` maps over the stream, scoring folds it, the
language server calls `Engine.check_line` for the lines it re-checks (the same path).
"""

from __future__ import annotations

import itertools
import json
import pickle
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, cast

from ..model.checks import CHECK_CODES as C
from ..model.findings import Finding, Fix, Location, Severity
from ..rules.kinds.core import Context, Subject, Verdict
from ..rules.loader import Lane, PredicateSpec, detail_is_derived
from ..sources.base import Record, check_finding, has_surrogate_escape, repair_surrogates
from ..sources.cases import Case
from ..sources.suppress import Suppressions
from ..sources.transcripts import Transcript, Turn
from .caseindex import IdSet, scratch_db
from .casework import report_mismatches, report_verdicts
from .details import build_details, is_primed, report_case_fields, report_subject
from .results import SURFACE_PATH, CaseIndex
from .scoring import EvaluationMemo, expected_names
from .scoring import evaluate as lane_verdicts
from .spool import Spool

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
                     None, None, scored, known, problems,
                     not turn.scored and turn.role != "turn")  # positional: one per turn; telemetry ("turn") is never context


CHAIN_WINDOW = 2048  # chains held in memory (in first-seen order) before the oldest move to a scratch store
STORED_FILTER_BITS = 1 << 23  # the filter of stored case ids: 1 MiB, whatever the number of ids


@dataclass(slots=True)
class Chain:
    """What both runs of one symbolic case leave for its evaluation, accumulated from its turns:
    the record its findings point at (its last chain-0 probe, else its first turn), the probe
    fields the subject reads and the premise proposals of each run (no Turn is kept)."""

    case_id: str
    record: Record  # the last chain-0 probe, else the chain's first turn
    probed: bool = False  # `record` is a chain-0 probe: the fields below are its
    surface: str = ""
    grounding: str = "none"
    vault_hits: int = 0
    trace_hash: str = ""
    replay: tuple[int, str] | None = None  # the last chain-1 probe's (vault_hits, trace_hash)
    proposals: int = 0  # premise turns of chain 0 with a pack mutation proposal
    proposals_replay: int = 0  # the same in chain 1

    def take(self, turn: Turn) -> None:
        """One more turn of this case (any order, any file)."""
        if turn.role == "premise" and turn.proposal:
            if turn.chain == 0:
                self.proposals += 1
            elif turn.chain == 1:
                self.proposals_replay += 1
        if not (turn.scored or turn.role == "probe"):
            return
        if turn.chain == 0:
            self.record, self.probed = turn.record, True
            self.surface, self.grounding = turn.surface or "", turn.grounding
            self.vault_hits, self.trace_hash = turn.vault_hits or 0, turn.trace_hash or ""
        elif turn.chain == 1:
            self.replay = (turn.vault_hits or 0, turn.trace_hash or "")

    def subject(self, case_fields: Mapping[str, Any] | None = None) -> Subject:
        replay = self.replay
        return Subject(
            surface=self.surface,
            grounding=self.grounding,
            case=case_fields,
            vault_hits=self.vault_hits,
            trace_hash=self.trace_hash,
            proposal_count=self.proposals,
            vault_hits_replay=replay[0] if replay is not None else None,
            trace_hash_replay=replay[1] if replay is not None else None,
            proposal_count_replay=self.proposals_replay if replay is not None else None,
        )

    def probe_record(self) -> Record:
        return self.record


class _StoredIds:
    """A fixed-size filter (two bits per id) of the case ids written to the chain store: "not
    stored" is certain, so a new id (most are: a runner writes a case's turns together) costs no
    lookup. A false "maybe" costs one lookup that finds nothing; no result depends on it."""

    def __init__(self, bits: int | None = None) -> None:
        self._mask = (STORED_FILTER_BITS if bits is None else bits) - 1
        self._bits = bytearray((self._mask >> 3) + 1)

    def add(self, case_id: str) -> None:
        h, mask, bits = hash(case_id), self._mask, self._bits
        for bit in (h & mask, (h >> 32) & mask):
            bits[bit >> 3] |= 1 << (bit & 7)

    def __contains__(self, case_id: str) -> bool:
        h, mask, bits = hash(case_id), self._mask, self._bits
        return all(bits[bit >> 3] & (1 << (bit & 7)) for bit in (h & mask, (h >> 32) & mask))


class _ChainStore:
    """Chains out of the window by case id, in the order first written (a chain written again
    keeps its place): one table of a scratch database (caseindex.scratch_db: unlinked, gone
    when closed), written in batches."""

    BATCH = 1024  # chains written per transaction
    _UPSERT = "INSERT INTO chains (key, row) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET row = excluded.row"

    def __init__(self) -> None:
        self._db = scratch_db()
        self._db.execute("CREATE TABLE chains (n INTEGER PRIMARY KEY, key BLOB NOT NULL UNIQUE, row BLOB NOT NULL)")
        self._buffer: dict[str, tuple[Any, ...]] = {}  # not yet written (newer than the table's)

    def put(self, case_id: str, row: tuple[Any, ...]) -> None:
        self._buffer[case_id] = row
        if len(self._buffer) >= self.BATCH:
            self._flush()

    def _flush(self) -> None:
        if not self._buffer:
            return
        rows = [(k.encode("utf-8", "surrogatepass"), pickle.dumps(v, pickle.HIGHEST_PROTOCOL))
                for k, v in self._buffer.items()]
        self._buffer = {}
        self._db.execute("BEGIN")
        self._db.executemany(self._UPSERT, rows)
        self._db.execute("COMMIT")

    def get(self, case_id: str) -> tuple[Any, ...] | None:
        row = self._buffer.get(case_id)
        if row is not None:
            return row
        found = self._db.execute("SELECT row FROM chains WHERE key = ?",
                                 (case_id.encode("utf-8", "surrogatepass"),)).fetchone()
        return pickle.loads(found[0]) if found is not None else None

    def items(self) -> Iterator[tuple[str, tuple[Any, ...]]]:
        """Every chain once, in the order first written; the store is closed after."""
        self._flush()
        cur = self._db.execute("SELECT key, row FROM chains ORDER BY n")
        while rows := cur.fetchmany(self.BATCH):
            for key, row in rows:
                yield key.decode("utf-8", "surrogatepass"), pickle.loads(row)
        self._db.close()


class _Chains:
    """Every case's Chain until the turns end, yielded in first-seen order. At most `window`
    chains are held in memory; past it the oldest to enter is written to a scratch store
    (`_ChainStore`: on disk, unlinked, in first-written order) and read back if its case
    id comes again. A runner writes a case's turns together, so a chain is mostly complete
    when it leaves; correctness does not depend on it."""

    def __init__(self, window: int | None = None) -> None:
        self._window = CHAIN_WINDOW if window is None else window
        self._open: dict[str, Chain] = {}  # in the order they entered the window
        self._store: _ChainStore | None = None
        self._stored: _StoredIds | None = None  # made with the store (most runs never need it)
        self._paths: list[str] = []  # a stored record's file, by number
        self._path_numbers: dict[str, int] = {}

    def add(self, case_id: str, turn: Turn) -> None:
        chain = self._open.get(case_id)
        if chain is None:
            chain = self._reopen(case_id) or Chain(case_id, turn.record)
            self._open[case_id] = chain
        chain.take(turn)
        if len(self._open) > self._window:
            oldest = next(iter(self._open))
            self._put(oldest, self._open.pop(oldest))

    def _reopen(self, case_id: str) -> Chain | None:
        if self._store is None or self._stored is None or case_id not in self._stored:
            return None
        row = self._store.get(case_id)
        return self._unpack(case_id, row) if row is not None else None

    def _put(self, case_id: str, chain: Chain) -> None:
        if self._store is None or self._stored is None:
            self._store, self._stored = _ChainStore(), _StoredIds()
        self._store.put(case_id, self._pack(chain))
        self._stored.add(case_id)

    def _pack(self, chain: Chain) -> tuple[Any, ...]:
        """A chain as builtins: its record as its line (read again when the chain is yielded)."""
        record = chain.record
        number = self._path_numbers.get(record.path)
        if number is None:
            number = self._path_numbers[record.path] = len(self._paths)
            self._paths.append(record.path)
        return (number, record.line, record.index, record.text, chain.probed, chain.grounding,
                chain.vault_hits, chain.trace_hash, chain.replay, chain.proposals, chain.proposals_replay)

    def _unpack(self, case_id: str, row: tuple[Any, ...]) -> Chain:
        number, line, index, text, probed, grounding, vault_hits, trace_hash, replay, proposals, replayed = row
        data = json.loads(text)  # the reader parsed this line: it parses again, to the same value
        if has_surrogate_escape(text):
            repair_surrogates(data)  # as the reader did
        record = Record(data, line, index, None, (), self._paths[number], text)
        surface = data["surface"] if probed else ""  # a probe turn's surface is its record's (a string)
        return Chain(case_id, record, probed, surface, grounding, vault_hits, trace_hash, replay, proposals,
                     replayed)

    def first_seen(self) -> Iterator[Chain]:
        """Every chain once, in the order its case id was first seen."""
        if self._store is None:
            yield from self._open.values()
            return
        # A chain first enters the store in first-seen order (the oldest leaves first; a chain
        # read back keeps its place): the chains still open go after those stored, in order.
        for case_id, chain in self._open.items():
            self._store.put(case_id, self._pack(chain))
        self._open = {}
        for case_id, row in self._store.items():
            yield self._unpack(case_id, row)


def _join_chains(lane: Lane, turns: Iterable[Turn], join: _Join) -> Iterator[Joined]:
    chains = _Chains()
    for turn in turns:
        if turn.case_id:
            chains.add(turn.case_id, turn)
    for chain in chains.first_seen():
        probe = chain.probe_record()
        case, known, problems = join.case(chain.case_id, probe)
        fields = case.data if case is not None else None
        yield Joined(CHAIN, probe, chain.case_id, case, chain.subject(fields), fields, fields,
                     targets={"proposal_count": probe}, known=known, problems=problems)


class HeldFindings:
    """A reader's findings while a chain lane reads every turn before its first chain: moved
    from the reader's list to a Spool as they come (on disk past its buffer), given back in
    their order and in batches, so that a file of broken lines does not fill memory."""

    BATCH = 1024  # findings given back at once

    def __init__(self, found: list[Finding]) -> None:
        self._found = found  # the reader's list, which it appends to
        self._held: Spool[Finding] = Spool()

    def watch(self, turns: Iterable[Turn]) -> Iterator[Turn]:
        for turn in turns:
            self.move()
            yield turn
        self.move()  # the reader's last findings (its file-level notices) come after its last turn

    def move(self) -> None:
        """What the reader's list holds, to the spool (in order)."""
        if self._found:
            self._held.extend(self._found)
            self._found.clear()

    def drain(self) -> Iterator[list[Finding]]:
        """The findings held so far, in order, and forgotten."""
        if not len(self._held):
            return
        items = iter(self._held)
        while batch := list(itertools.islice(items, self.BATCH)):
            yield batch
        self._held.close()
        self._held = Spool()


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
                                        joined.targets) if findings else []
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
                locations = record.span_locations(SURFACE_PATH, verdict.spans)
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
    at = Location(where.path, where.end_line, where.end_column, where.end_line, where.end_column)
    return (Fix(f"Add terminal punctuation `{endings[0]}`", at, str(endings[0])),)


__all__ = ["CHAIN", "REPORT_CASE", "TURN", "Evaluated", "Evaluator", "HeldFindings", "Joined", "Suppressions",
           "join_report", "join_turns"]
