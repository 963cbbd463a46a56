"""Scoring a lane: joining transcripts to cases, folding records into outcomes."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from ..config import Config
from ..findings import Finding
from ..lanes import Lane
from ..predicates import PASS, Context, Subject, Verdict
from ..scoring import (
    Outcome,
    evaluate,
    lane_signals,
    signal_values,
)
from ..sources.base import ReadStats, Record
from ..sources.cases import (
    Case,
)
from ..sources.transcripts import Transcript, Turn
from .compact import CompactOutcomes, Summary, second_record, unbucketed, whole_record  # noqa: F401
from .details import build_details, is_primed, report_case_fields, report_subject
from .results import CaseIndex, LaneResult, UsageError, unjoined  # noqa: F401

if TYPE_CHECKING:
    from .core import Engine


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


def chains(turns: Iterable[Turn]) -> Iterator[Chain]:
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
    yield from by_id.values()


class Scorer:
    """Joins transcripts to cases and turns each scored case into an Outcome."""

    def __init__(self, engine: Engine, lane: Lane, index: CaseIndex | None,
                 want_details: bool, finding_limit: int | None, keep_events: bool = False,
                 compact: bool = True) -> None:
        self.engine = engine
        self.lane = lane
        self.index = index
        self.want_details = want_details
        self.finding_limit = finding_limit
        self.signals = lane_signals(lane)
        self.reported = {p.name for p in lane.predicates if p.report}
        self._interned: dict[tuple[bool, ...], tuple[bool, ...]] = {}
        self.outcomes: dict[str, Outcome] = {}
        self.unknown: set[str] = set()
        self.findings: list[Finding] = []
        self.failing_shown = 0
        self.primed: set[str] = set()
        self.chains: dict[str, Chain] = {}
        # Every recorded outcome in order, replaced ones too: only a worker's scorer keeps them.
        self.keep_events = keep_events
        self.events: list[Outcome] = []
        # Text output of a transcript-only run keeps no Outcome per case: a few bytes a case.
        use_compact = compact and not want_details and index is None and not keep_events
        self.compact = CompactOutcomes(lane) if use_compact else None

    def _case(self, case_id: str | None, record: Record | None = None) -> tuple[bool, Case | None]:
        if self.index is None:
            return True, None
        case = self.index.by_id.get(case_id) if case_id else None
        if case is None:
            if case_id and case_id not in self.unknown:
                self.unknown.add(case_id)
                if record is not None:
                    self.findings.extend(unjoined(record, case_id, self.index, set()))
            return False, None
        return True, case

    def _record(self, case_id: str, subject: Subject, verdicts: Mapping[str, Verdict],
                fields: Mapping[str, Any] | None, record: Record, turn_data: Mapping[str, Any] | None,
                targets: Mapping[str, Record] | None = None) -> None:
        signals = signal_values(self.lane, self.signals, verdicts, fields)
        if self.compact is None:  # many Outcomes share their signal values: keep one tuple each
            signals = self._interned.setdefault(signals, signals)
        details = None
        if self.want_details:
            details = build_details(self.lane, verdicts, subject, fields, turn_data,
                                    Context(subject, self.lane.analysis))
        failed = tuple(n for n, v in verdicts.items() if v is not PASS and not v.passed and n in self.reported)
        findings: list[Finding] = []
        if failed and (self.finding_limit is None or self.failing_shown < self.finding_limit):
            findings = self.engine.predicate_findings(self.lane, verdicts, record, fields, case_id, targets)
            if findings:
                self.failing_shown += 1
        if self.compact is not None:
            self.compact.add(case_id, signals, failed, record, tuple(findings))
            return
        if case_id in self.outcomes:
            self.findings.append(second_record(case_id, record.whole(), record.index))
        outcome = Outcome(case_id, signals, subject.grounding, details, failed, tuple(findings),
                          dict(verdicts) if self.want_details else None)
        self.outcomes[case_id] = outcome
        if self.keep_events:
            self.events.append(outcome)

    def absorb(self, part: Part) -> None:
        """Take one file's outcomes scored in another process, as if it had been read here."""
        self.unknown |= part.unknown
        self.findings.extend(part.scorer_findings)
        for outcome in part.events:
            if outcome.findings:  # the other process counted only its own file: apply the limit to all
                if self.finding_limit is not None and self.failing_shown >= self.finding_limit:
                    outcome = replace(outcome, findings=())
                else:
                    self.failing_shown += 1
            self.outcomes[outcome.case_id] = outcome
            if self.keep_events:
                self.events.append(outcome)

    def touched(self) -> set[str]:
        """Case ids whose scoring state this scorer holds (primed, chained or scored)."""
        return self.primed | set(self.chains) | {o.case_id for o in self.events}

    def add_turns(self, turns: Iterable[Turn]) -> None:
        chain_unit = self.lane.unit == "chain"
        for turn in turns:
            if turn.case_id is None:
                continue
            if chain_unit:
                chain = self.chains.get(turn.case_id)
                if chain is None:
                    chain = self.chains[turn.case_id] = Chain(turn.case_id, first=turn)
                if turn.role == "premise" and turn.proposal:
                    chain.proposals[turn.chain] = chain.proposals.get(turn.chain, 0) + 1
                if turn.scored or turn.role == "probe":
                    chain.probes[turn.chain] = turn
                continue
            if turn.role == "priming":
                self.primed.add(turn.case_id)
            if not turn.scored or turn.chain != 0:
                continue
            ok, case = self._case(turn.case_id, turn.record)
            if not ok:
                continue
            fields = case.data if case else None
            subject = Subject(turn.surface or "", turn.grounding, fields,
                              primed=is_primed(fields, turn.case_id in self.primed))
            verdicts = evaluate(self.lane, subject, None, fields)
            self._record(turn.case_id, subject, verdicts, fields, turn.record, turn.record.data)

    def add_report(self, transcript: Transcript) -> None:
        reference = self.engine.reference_lane(self.lane.name) or self.lane
        for entry in transcript.entries:
            case_id = entry.case_id
            if case_id is None:
                continue
            ok, case = self._case(case_id, entry.record)
            if not ok:
                continue
            fields = report_case_fields(self.lane, entry, case)
            subject = report_subject(self.lane, entry, fields)
            verdicts = evaluate(self.lane, subject, entry.data, fields)
            self._record(case_id, subject, verdicts, fields, entry.record, entry.data)
            # A CI run over a runner's report must say when its stored flags do not add up.
            self.findings.extend(self.engine._stored_mismatches(reference, entry, fields))

    def finish(self) -> list[Outcome]:
        for chain in self.chains.values():
            ok, case = self._case(chain.case_id, chain.probe_record())
            if not ok:
                continue
            fields = case.data if case else None
            subject = chain.subject(fields)
            verdicts = evaluate(self.lane, subject, None, fields)
            probe = chain.probe_record()
            self._record(chain.case_id, subject, verdicts, fields, probe, probe.data, {"proposal_count": probe})
        if self.index is None:
            return list(self.outcomes.values())
        ordered = [self.outcomes[c.id] for c in self.index.ordered() if c.id in self.outcomes]
        return ordered

    def summary(self, outcomes: Sequence[Outcome]) -> Summary:
        """What the metrics and text output need of the scored cases."""
        if self.compact is not None:
            return self.compact.summary()
        names = lane_signals(self.lane)
        outside = unbucketed(self.lane, names)
        return Summary(
            tally=Counter(o.signals for o in outcomes),
            case_count=len(outcomes),
            failing_count=sum(1 for o in outcomes if o.failed),
            remainder=[o.case_id for o in outcomes if outside(o.signals)],
            findings=[f for o in outcomes for f in o.findings],
        )

    def missing(self) -> list[str]:
        if self.index is None:
            return []
        return [c.id for c in self.index.ordered() if c.id not in self.outcomes]


@dataclass
class Part:
    """One transcript file scored on its own (in a worker process)."""

    events: list[Outcome]
    scorer_findings: list[Finding]
    read_findings: list[Finding]
    stats: ReadStats
    unknown: set[str]
    touched: set[str]


_WORKER: dict[str, Any] = {}  # per worker process: its engine, lane, case index and texts


def _start_worker(config: Config, profile: str, lane_name: str, case_paths: Sequence[str],
                  texts: Mapping[str, bytes]) -> None:
    from .core import Engine

    engine = Engine(config, profile)
    lane = engine.lane(lane_name)
    index = engine.load_cases(case_paths, lane, texts)[1] if case_paths else None
    _WORKER.update(engine=engine, lane=lane, index=index, texts=texts)


def _score_file(path: str, want_details: bool, finding_limit: int | None) -> Part:
    engine: Engine = _WORKER["engine"]
    # The first `finding_limit` failing cases of all files are among the first of each file.
    scorer = Scorer(engine, _WORKER["lane"], _WORKER["index"], want_details, finding_limit, keep_events=True)
    read_findings, stats = engine._read_transcript(scorer, path, _WORKER["texts"])
    scorer.finish()  # a chain lane scores its chains here
    return Part(scorer.events, scorer.findings, read_findings, stats, scorer.unknown, scorer.touched())


def score_in_processes(engine: Engine, lane: Lane, case_paths: Sequence[str], paths: Sequence[str],
                        texts: Mapping[str, bytes], want_details: bool, finding_limit: int | None,
                        jobs: int, progress: Callable[[str], None] | None) -> list[Part]:
    from ..parallel import ordered_map

    return ordered_map(_score_file, [(p, want_details, finding_limit) for p in paths], jobs,
                       _start_worker, (engine.config, engine.profile, lane.name, list(case_paths), dict(texts)),
                       on_done=(lambda item: progress(item[0])) if progress else None)


def independent(parts: Sequence[Part]) -> bool:
    """Whether no two files touch the same case: only then is merging them exact."""
    seen: set[str] = set()
    for part in parts:
        if seen & part.touched:
            return False
        seen |= part.touched
    return True

