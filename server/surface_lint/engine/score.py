"""Scoring a lane: the pipeline's joined records folded into outcomes, metrics and thresholds.

Every scored record is evaluated once (`pipeline.Evaluator`) and counted in bounded flat
arrays (`compact.CompactOutcomes`: the tally the metrics read, the last record of a case
wins). What reports list is kept on disk (`spool.Spool`): a row per scored case when a format
needs them, and the findings, sorted. Memory does not grow with the number of turns.
"""

from __future__ import annotations

import ast
import io
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from operator import itemgetter
from types import MappingProxyType
from typing import Any, cast

from ..model.checks import CHECK_CODES as C
from ..model.findings import Finding, Location, Severity, packed_finding, unpacked_finding
from ..rules.kinds.core import Context, Subject, Verdict
from ..rules.loader import EXPECTED, Lane, detail_expression
from ..sources.base import JsonlReader, ReadStats, Record, check_finding
from ..sources.streams import open_input
from ..sources.transcripts import Turn, iter_turns, read_report, sniff_stream
from .caseindex import IdSet, ids_list
from .compact import CompactOutcomes, Summary, whole_record
from .details import DetailsPlan, SharedDetails
from .fold import metrics_from_tally
from .pipeline import TURN, Evaluated, Evaluator, Joined, join_report, join_turns
from .results import CaseIndex, LaneResult, Rows, UsageError
from .scoring import (
    VALUE_SLOTS,
    Outcome,
    evaluate_turn,
    lane_signals,
    reported_metrics,
    signal_values,
    threshold_results,
)
from .services import EngineServices
from .spool import Mapped, Spool, fewer_collections
from .views import GROUP_FIELDS, ShownCases

# A mapper runs `fn(*args)` for each args in `calls` (in worker processes) and returns the
# results in input order: parallel.ordered_map, given by the caller (the engine starts no process).
FileMapper = Callable[..., list[Any]]


@dataclass(slots=True)
class Scored:
    """One evaluated scored record, as the fold keeps it (also what a worker process sends back)."""

    case_id: str
    signals: tuple[bool, ...]
    failed: tuple[str, ...]
    where: Location | None  # the record's whole range (a second record of a case is flagged there)
    record_index: int | None
    grounding: str
    details: dict[str, Any] | SharedDetails | None  # light rows: shared by repeats (DetailsPlan.shared)
    judged: tuple[str, ...]
    failures: Mapping[str, Verdict]  # the failed predicates' verdicts
    findings: tuple[Finding, ...]
    levels: Mapping[str, Severity | None] = field(default_factory=dict)  # each failure's finding severity

    def __reduce__(self) -> tuple[Any, ...]:
        # Spooled by the hundred thousand: builtins only (verdicts as message and spans, severities
        # as numbers) pickle several times faster than the objects.
        failures = {n: (v.message, v.spans, v.target, v.timed_out, v.span_messages) for n, v in self.failures.items()}
        levels = {n: int(v) if v is not None else None for n, v in self.levels.items()}
        return (_scored, (self.case_id, self.signals, self.failed, self.where, self.record_index, self.grounding,
                          self.details, self.judged, failures, self.findings, levels))


def _scored(case_id: str, signals: tuple[bool, ...], failed: tuple[str, ...], where: Location | None,
            record_index: int | None, grounding: str, details: dict[str, Any] | None, judged: tuple[str, ...],
            failures: dict[str, tuple[str, tuple[tuple[int, int], ...], str | None, bool, tuple[str, ...] | None]],
            findings: tuple[Finding, ...], levels: dict[str, int | None]) -> Scored:
    return Scored(case_id, signals, failed, where, record_index, grounding, details, judged,
                  {n: Verdict(False, spans, message, target, timed_out, span_messages=span_messages)
                   for n, (message, spans, target, timed_out, span_messages) in failures.items()},
                  findings, {n: Severity(v) if v is not None else None for n, v in levels.items()})


@dataclass
class Part:
    """One transcript file scored on its own (in a worker process)."""

    scored: list[Scored]
    problems: list[Finding]  # reading findings and the join's (SL015, stored flags)
    stats: ReadStats
    unknown: set[str]
    touched: set[str]
    unscored: dict[str, int] = field(default_factory=dict)
    declared: str | None = None  # the lane the file names itself (a report's `lane`)
    reports_read: int = 0


# A passing record's failures and levels: one shared read-only mapping each (no dict per record).
_NO_FAILURES: Mapping[str, Verdict] = MappingProxyType({})
_NO_LEVELS: Mapping[str, Severity | None] = MappingProxyType({})

# What a row holds of a verdicts mapping (`LaneScorer._new_row_parts`): judged names, failures, levels.
_RowParts = tuple[tuple[str, ...], tuple[Any, ...], tuple[Any, ...]]

_BY_VERDICTS_SIZE = 4096  # verdict mappings whose signals are remembered (cleared when full: a few MiB at most)

# Why-nothing-scored counters, in the order the message names them.
NO_CASE_ID, UNKNOWN_ID, NOT_SCORED = "no_case_id", "unknown_id", "not_scored"


class LaneScorer:
    """Folds the joined records of one lane run into a tally, case rows and findings."""

    def __init__(self, engine: EngineServices, lane: Lane, index: CaseIndex | None, want_rows: bool,
                 finding_limit: int | None) -> None:
        self.engine = engine
        self.lane = lane
        self.index = index
        self.want_rows = want_rows
        self.row_findings = True  # rows carry their case's findings (JUnit and HTML show them)
        # Rows hold only what the JSON report reads of a case (its id, failed names, details):
        # `result.outcomes` is then a count, not iterable (see `light_row`).
        self.light_rows = False
        # Rows hold a case's id, details, failed names and their severities, none of its
        # verdicts: what a JSON Lines case line reads (see `status_row`).
        self.status_rows = False
        self.finding_limit = finding_limit
        # The reference profile's lane checks a lane report's stored flags: loaded when one is read.
        self.evaluator = Evaluator(lane, engine.severity_levels)
        self._reference_loaded = False
        self.details = DetailsPlan(lane)
        self.signals = lane_signals(lane)
        # Without case fields a signal is its verdict's `passed` (True for `@expected`, False for a
        # predicate not judged or a case field): when no signal is a v2 value slot.
        self.plain_signals: tuple[tuple[str, bool], ...] | None = (
            None if any(n[0] in VALUE_SLOTS for n in self.signals) else tuple((n, n == EXPECTED) for n in self.signals))
        self.reported = {p.name for p in lane.predicates if p.report}
        self.report_order = [p.name for p in lane.predicates if p.report]
        self._judged: dict[tuple[str, ...], tuple[str, ...]] = {}  # verdict names -> reported ones judged
        self._by_verdicts: dict[int, tuple[Mapping[str, Verdict], tuple[bool, ...], tuple[str, ...]]] = {}
        self._row_parts: dict[int, tuple[Mapping[str, Verdict], _RowParts]] = {}  # see _new_row_parts
        self.compact = CompactOutcomes(lane)
        # One byte per distinct case: whether it was scored (its rank: caseindex.CaseIndex.rank).
        self.scored_ranks = bytearray(len(index) if index is not None else 0)
        # Case rows: (order, position, Scored); sorted by case-file rank when cases are given.
        # A row is a tuple of builtins (see _row), its findings packed too: marshalled to disk.
        self.rows: Spool[tuple[Any, ...]] = Spool(key=_row_order if index is not None else None,
                                                  pack=_pack_row, unpack=_unpack_row)
        # Findings: (position or -1 for input problems, finding), sorted as every report lists them.
        # (A caseless rows run appends them packed already: `_fold_caseless_rows`.)
        self.findings: Spool[tuple[int, Finding]] = Spool(key=_stored_order, pack=_pack_kept, unpack=_unpack_kept)
        self.unknown = IdSet()  # transcript case ids without a case (on disk past a few thousand)
        self.failing_shown = 0
        # Case ids this scorer's records touch: kept only in a worker process (one file), where
        # they decide whether files may be merged (a whole run's would grow with it).
        self.touched: set[str] = set()
        self.track_touched = False
        self.unscored: dict[str, int] = {NO_CASE_ID: 0, UNKNOWN_ID: 0, NOT_SCORED: 0}
        self.stats = ReadStats()
        self.progress: Callable[[str], None] | None = None
        self._pending_progress: str | None = None
        self.on_scored: Callable[[Scored], None] | None = None  # a worker sends its records back instead
        self.reports_read = 0
        self.declared: str | None = None  # the lane the first lane report names itself
        # A Markdown or HTML run's cases shown (`Engine.score`'s `shown`): when the caseless fold
        # can count them (`_caseless_tally`), rows are made only for the cases it shows and
        # `result.shown` is this; `shown_missed`: it could not know them in one pass (a case id
        # that repeats, a lane report read): the run must be scored again without it.
        self.shown: ShownCases | None = None
        self.shown_missed = False
        self._shown_folded = False
        self._summary: Summary | None = None  # the tally's summary when `read` made it (`_repeats`)

    # --- evaluation (here or in a worker) ----------------------------------------------

    def judge(self, joined: Joined) -> tuple[Evaluated, tuple[Any, ...], tuple[str, ...]] | None:
        """A joined record's evaluation, signals and failed reported predicates; None when it is
        not scored (counted by why)."""
        if joined.problems:
            for problem in joined.problems:
                self.problem(problem)
        case_id = joined.case_id
        if not case_id:
            self.unscored[NO_CASE_ID] += 1
            return None
        if self.track_touched:
            self.touched.add(case_id)
        if not joined.known:
            self.unknown.add(case_id)
            self.unscored[UNKNOWN_ID] += 1
            return None
        if not joined.scored:
            self.unscored[NOT_SCORED] += 1
            return None
        limit = self.finding_limit
        done = self.evaluator.evaluate(joined, findings=limit is None or self.failing_shown < limit)
        if done.mismatches:
            for problem in done.mismatches:
                self.problem(problem)
        verdicts = done.verdicts
        fields = joined.fields
        # The lane memoises verdict sets (repeated surfaces share one mapping): without case
        # fields, its signals and failures are a function of that mapping alone.
        if fields:
            signals = signal_values(self.lane, self.signals, verdicts, fields)
            reported = self.reported
            failed = tuple([n for n, v in verdicts.items() if not v.passed and n in reported])
        else:
            seen = self._by_verdicts.get(id(verdicts))
            if seen is not None and seen[0] is verdicts:
                signals, failed = seen[1], seen[2]
            else:
                signals, failed = self._caseless_signals(verdicts)
        if failed and done.findings:
            self.failing_shown += 1
        return done, signals, failed

    def _caseless_signals(self, verdicts: Mapping[str, Verdict]) -> tuple[tuple[Any, ...], tuple[str, ...]]:
        """The signals and failed reported predicates of verdicts read without case fields
        (a function of the mapping alone: remembered by its identity)."""
        if self.plain_signals is not None:  # signal_values without case fields, inlined
            get = verdicts.get
            signals = tuple([expected or ((v := get(n)) is not None and v.passed)
                             for n, expected in self.plain_signals])
        else:
            signals = signal_values(self.lane, self.signals, verdicts, None)
        reported = self.reported
        failed = tuple([n for n, v in verdicts.items() if not v.passed and n in reported])
        if not self.evaluator.memo.paused:  # a paused memo gives every record a new mapping
            by_verdicts = self._by_verdicts
            if len(by_verdicts) >= _BY_VERDICTS_SIZE:
                by_verdicts.clear()
            # The mapping is held, so its id cannot be reused while it is here.
            by_verdicts[id(verdicts)] = (verdicts, signals, failed)
        return signals, failed

    def evaluate(self, joined: Joined) -> Scored | None:
        """A joined record's Scored, or None when it is not scored (counted by why)."""
        judged_record = self.judge(joined)
        if judged_record is None:
            return None
        done, signals, failed = judged_record
        verdicts = done.verdicts
        case_id = joined.case_id
        assert case_id is not None
        details: dict[str, Any] | SharedDetails | None = None
        judged: tuple[str, ...] = ()
        failures: Mapping[str, Verdict] = _NO_FAILURES
        levels: Mapping[str, Severity | None] = _NO_LEVELS
        if self.want_rows:
            subject = joined.subject
            data = joined.stored if joined.stored is not None else joined.record.data
            plan = self.details
            ctx = Context(subject, self.lane.analysis) if plan.needs_context else None
            if self.light_rows or self.status_rows:  # one dict for repeated cases (light_row, status_row)
                details = plan.shared(verdicts, subject, joined.fields, data, ctx, case_id)
            else:
                details = plan.build(verdicts, subject, joined.fields, data, ctx, case_id)
            if not self.light_rows:  # what the other reports read of a case (light_row keeps none of it)
                # The reported predicates judged, in the lane's order: one tuple per set of judged names.
                names = tuple(verdicts)
                known = self._judged.get(names)
                if known is None:
                    known = self._judged[names] = tuple(n for n in self.report_order if n in verdicts)
                judged = known
                if failed:
                    if not self.status_rows:
                        failures = {n: verdicts[n] for n in failed}
                    severity = self.evaluator.reported_severity
                    levels = {n: severity(n, verdicts[n], joined.judged) for n in failed}
        # Only a record that repeats a case needs its range: computed then (or here, for a worker).
        where = whole_record(joined.record) if self.on_scored is not None else None
        return Scored(case_id, signals, failed, where, joined.record.index, joined.subject.grounding, details,
                      judged, failures, tuple(done.findings), levels)

    def problem(self, finding: Finding) -> None:
        self.findings.append((-1, finding))

    # --- the fold ----------------------------------------------------------------------

    def keep(self, scored: Scored, record: Record | None = None) -> None:
        where = scored.where if scored.where is not None else record
        assert where is not None
        position, rank = self.count(scored.case_id, scored.signals, scored.failed, where, scored.record_index,
                                    scored.findings)
        if self.want_rows:
            self.rows.append(light_row(rank, position, scored) if self.light_rows else
                             status_row(rank, position, scored) if self.status_rows else
                             _row(rank, position, scored, self.row_findings))

    def count(self, case_id: str, signals: tuple[Any, ...], failed: tuple[str, ...], where: Record | Location,
              record_index: int | None, findings: Iterable[Finding]) -> tuple[int, int]:
        """One scored record in the tally and its findings in the spool: its position and rank
        (its case's rank in the case files when they are given, else its position)."""
        position = self.compact.add(case_id, signals, failed, where, record_index)
        rank = position
        if self.index is not None:
            rank = self.index.rank(case_id)
            if rank >= 0:
                self.scored_ranks[rank] = 1
        for f in findings:
            self.findings.append((position, f))
        return position, rank

    def fold(self, joined: Iterable[Joined]) -> None:
        sink = self.on_scored
        keep = self.keep
        with fewer_collections():
            if sink is None and not self.want_rows:  # only the tally and findings: no Scored needed
                judge, count = self.judge, self.count
                for item in joined:
                    got = judge(item)
                    if got is not None:
                        record = item.record
                        count(item.case_id or "", got[1], got[2], record, record.index, got[0].findings)
                return
            for item in joined:
                scored = self.evaluate(item)
                if scored is None:
                    continue
                if sink is not None:
                    sink(scored)
                else:
                    keep(scored, item.record)

    def _caseless_tally(self) -> bool:
        """Whether `_fold_caseless` folds this run's turns as `fold(join_turns(...))` would: only
        the tally and findings kept, no case files, not a case-driven lane, this class's own
        judging and counting (a subclass's are honoured by the general path)."""
        return (self.on_scored is None and (not self.want_rows or self._shown_probe() is not None)
                and self.index is None and self.lane.casework is None
                and type(self).judge is LaneScorer.judge and type(self).count is LaneScorer.count)

    def _shown_probe(self) -> Callable[[Turn], tuple[str | None, bool]] | None:
        """With `shown`: a turn's case view's group and whether it has a surface, read from the
        turn as its details would hold them (`shown_probe`); None without `shown`, for rows
        other than `_row`'s, or when a detail they read is not a constant or a turn field."""
        if self.shown is None or self.light_rows or self.status_rows:
            return None
        return shown_probe(self.lane, self.details)

    def _fold_caseless(self, turns: Iterable[Turn]) -> None:
        """`fold(join_turns(lane, turns, None))` without a Joined, an Evaluated or a Subject per
        turn (the text report's run): what `join_turns`, `judge`, `Evaluator.evaluate` and `count`
        do for a turn without case files, in one loop. Keep the two in step.

        With `shown` (a Markdown or HTML run): no predicate finding is made (those reports read
        none of them: Markdown no finding, HTML only the others), each case is counted in
        `shown` from its failed names, their severities and its details' group and surface
        (`shown_probe`), and the cases it shows get their row from the general path (`_shown_row`).
        The cases are the records in order only when no case id repeats: `read` checks."""
        lane = self.lane
        memo = self.evaluator.memo
        predicate_findings = self.evaluator.predicate_findings
        add = self.compact.add
        found_spool = self.findings
        limit = self.finding_limit
        shown = self.shown if self.want_rows else None
        if shown is not None:
            limit = 0  # no predicate finding (see above)
            found_probe = self._shown_probe()
            assert found_probe is not None
            probe: Callable[[Turn], tuple[str | None, bool]] = found_probe
            keys = tuple(lane.details)  # a row's details hold every key (DetailsPlan.build)
            severity = self.evaluator.reported_severity
            standing = shown.standing
            counted = shown.count
            by_standing: dict[int, tuple[Mapping[str, Verdict], tuple[str, tuple[str, ...], tuple[str, ...]]]] = {}
            self._shown_folded = True
        with fewer_collections():
            for turn, case_id, verdicts, signals, failed, primed in self._caseless_turns(turns):
                record = turn.record
                if limit is None or self.failing_shown < limit:
                    found = predicate_findings(verdicts, record, None, case_id, shared=True)
                    if failed and found:
                        self.failing_shown += 1
                    position = add(case_id, signals, failed, record, record.index)
                    for f in found:
                        found_spool.append((position, f))
                else:
                    position = add(case_id, signals, failed, record, record.index)
                if shown is not None:
                    # What `evaluate` keeps of a failed name's severity, the view's standing of it.
                    if failed:
                        known = by_standing.get(id(verdicts))
                        if known is not None and known[0] is verdicts:
                            case_standing = known[1]
                        else:
                            case_standing = standing(failed, {n: severity(n, verdicts[n], None) for n in failed})
                            if not memo.paused:  # as `_caseless_signals`: the mapping held, its id not reused
                                if len(by_standing) >= _BY_VERDICTS_SIZE:
                                    by_standing.clear()
                                by_standing[id(verdicts)] = (verdicts, case_standing)
                    else:
                        case_standing = _PASSING
                    group, surface = probe(turn)
                    if counted(*case_standing, group, surface, keys):
                        # Only when no case id repeats is the record's position its place among the cases.
                        shown.keep(position, self._shown_row(turn, case_id, position, primed))

    def _shown_row(self, turn: Turn, case_id: str, position: int, primed: bool) -> Outcome:
        """A shown case's outcome as the general path makes it: the turn as `join_turns` joins it
        without case files, `evaluate`d, its `_row` read back (`result.outcomes`'s items)."""
        joined = Joined(TURN, turn.record, case_id, None, Subject(turn.surface or "", turn.grounding, None, primed),
                        None, None, None, True, True, [], False)
        scored = self.evaluate(joined)
        assert scored is not None
        return _row_outcome(_row(position, position, scored, self.row_findings))

    def _caseless_rows(self) -> bool:
        """Whether `_fold_caseless_rows` folds this run's turns as `fold(join_turns(...))` would:
        rows kept here (no worker sink), no case files, not a case-driven lane, this class's own
        evaluation, judging, keeping and counting."""
        cls = type(self)
        return (self.on_scored is None and self.want_rows and self.index is None and self.lane.casework is None
                and cls.judge is LaneScorer.judge and cls.count is LaneScorer.count
                and cls.evaluate is LaneScorer.evaluate and cls.keep is LaneScorer.keep)

    def _fold_caseless_rows(self, turns: Iterable[Turn]) -> None:
        """`fold(join_turns(lane, turns, None))` for a run that keeps rows, without a Joined, an
        Evaluated, a Subject or a Scored per turn: each row (`light_row`, `status_row`, `_row`)
        built from the turn and what its verdicts mapping gives (`_row_parts`), its findings
        packed as they are made (`Evaluator.packed_findings`). Keep in step with `evaluate` and
        `keep` (the rows' layout is theirs); tests/engine/test_caseless_rows.py holds the two paths equal."""
        packed_findings = self.evaluator.packed_findings
        add = self.compact.add
        found_spool = cast("Spool[tuple[int, Any]]", self.findings)  # packed findings (see _second)
        append_row = self.rows.append
        limit = self.finding_limit
        plan = self.details
        by_inputs = plan.by_inputs if plan.plain_inputs and not plan.needs_context else None
        light, status, with_findings = self.light_rows, self.status_rows, self.row_findings
        shared_details = light or status
        row_parts = self._row_parts
        with fewer_collections():
            for turn, case_id, verdicts, signals, failed, primed in self._caseless_turns(turns):
                record = turn.record
                found: list[tuple[Any, ...]] | tuple[()] = ()
                if limit is None or self.failing_shown < limit:
                    found = packed_findings(verdicts, record, case_id)
                    if failed and found:
                        self.failing_shown += 1
                position = add(case_id, signals, failed, record, record.index)
                for f in found:
                    found_spool.append((position, f))
                details: Any = None
                if by_inputs is not None:
                    details = by_inputs(verdicts, turn.surface or "", turn.grounding, primed, record.data, case_id)
                if details is None:  # details keyed by their values, or read through a Subject
                    subject = Subject(turn.surface or "", turn.grounding, None, primed)
                    ctx = Context(subject, self.lane.analysis) if plan.needs_context else None
                    details = (plan.shared(verdicts, subject, None, record.data, ctx, case_id) if shared_details
                               else plan.build(verdicts, subject, None, record.data, ctx, case_id))
                elif not shared_details:  # the case's own dict, as `build` gives it
                    _, template, id_key, id_value = details
                    details = template.copy()
                    if id_key:
                        details[id_key] = id_value
                if light:
                    append_row((position, position, case_id, (), "", details, failed, (), (), (), ()))
                    continue
                seen = row_parts.get(id(verdicts))
                parts = seen[1] if seen is not None and seen[0] is verdicts else self._new_row_parts(verdicts, failed)
                if status:
                    append_row((position, position, case_id, (), "", details, failed, (), (), (), parts[2]))
                else:
                    append_row((position, position, case_id, signals, turn.grounding, details, failed, parts[0],
                                parts[1], tuple(found) if with_findings else (), parts[2]))

    def _new_row_parts(self, verdicts: Mapping[str, Verdict], failed: tuple[str, ...]) -> _RowParts:
        """What a row holds of a verdicts mapping read without case fields (a function of the
        mapping: remembered by its identity): the reported predicates judged, the failures as
        `_row` packs them and their severities as `status_row` and `_row` do."""
        names = tuple(verdicts)
        judged = self._judged.get(names)
        if judged is None:
            judged = self._judged[names] = tuple(n for n in self.report_order if n in verdicts)
        failures: tuple[Any, ...] = ()
        levels: tuple[Any, ...] = ()
        if failed:
            severity = self.evaluator.reported_severity
            failures = tuple((n, v.message, v.spans, v.target, v.timed_out, v.span_messages)
                             for n in failed for v in (verdicts[n],))
            levels = tuple((n, int(level) if level is not None else None)
                           for n in failed for level in (severity(n, verdicts[n], None),))
        parts = (judged, failures, levels)
        if not self.evaluator.memo.paused:  # a paused memo gives every record a new mapping
            if len(self._row_parts) >= _BY_VERDICTS_SIZE:
                self._row_parts.clear()
            self._row_parts[id(verdicts)] = (verdicts, parts)  # held: its id is not reused while here
        return parts

    def _caseless_turns(self, turns: Iterable[Turn]) -> Iterator[
            tuple[Turn, str, Mapping[str, Verdict], tuple[Any, ...], tuple[str, ...], bool]]:
        """The scored turns of a run without case files, each with its case id, verdicts, signals,
        failed reported predicates and whether its case was primed: what `join_turns` and `judge`
        give for such a turn (the turns not scored counted by why, as `judge` counts them). The
        one per-turn step of `_fold_caseless` and `_fold_caseless_rows`."""
        lane = self.lane
        memo = self.evaluator.memo
        unscored = self.unscored
        by_verdicts = self._by_verdicts
        primed_ids = IdSet()  # bounded, as join_turns's
        any_primed = False
        touched = self.touched if self.track_touched else None
        for turn in turns:
            case_id = turn.case_id
            if turn.role == "priming" and case_id:
                primed_ids.add(case_id)
                any_primed = True
            if not case_id:
                unscored[NO_CASE_ID] += 1
                continue
            if touched is not None:
                touched.add(case_id)
            if not turn.scored or turn.chain != 0:
                unscored[NOT_SCORED] += 1
                continue
            primed = any_primed and case_id in primed_ids
            verdicts = evaluate_turn(lane, memo, turn.surface or "", turn.grounding, primed)
            seen = by_verdicts.get(id(verdicts))
            if seen is not None and seen[0] is verdicts:
                signals, failed = seen[1], seen[2]
            else:
                signals, failed = self._caseless_signals(verdicts)
            yield turn, case_id, verdicts, signals, failed, primed

    def absorb(self, part: Part) -> None:
        """One file scored in another process, as if it had been read here."""
        self.unknown |= part.unknown
        self.stats.add(part.stats)
        self.reports_read += part.reports_read
        if self.declared is None:
            self.declared = part.declared
        for key, n in part.unscored.items():
            self.unscored[key] += n
        for problem in part.problems:
            self.problem(problem)
        for scored in part.scored:
            if scored.findings:  # the other process counted only its own file: apply the limit to all
                if self.finding_limit is not None and self.failing_shown >= self.finding_limit:
                    scored.findings = ()
                else:
                    self.failing_shown += 1
            self.keep(scored)

    # --- reading -----------------------------------------------------------------------

    def turns(self, paths: Sequence[str], texts: Mapping[str, bytes]) -> Iterator[Turn]:
        """The turns of every transcript file in order (reports are folded as they come), so that
        priming and chains join across files as in one stream."""
        self._pending_progress = None
        for path in paths:
            if self.progress is not None and self._pending_progress is not None:
                self.progress(self._pending_progress)
            self._pending_progress = path
            given = texts.get(path)
            try:
                if given is not None:
                    kind = sniff_stream(io.BytesIO(given))
                else:
                    with open_input(path) as fh:
                        kind = sniff_stream(fh)
            except OSError as exc:
                raise UsageError(f"{path}: cannot read: {exc.strerror}") from None
            # The records that parse decide (a compact one-line report is a report).
            if kind == "report":
                if not self._reference_loaded:
                    self.evaluator.reference = self.engine.reference_lane(self.lane.name) or self.lane
                    self._reference_loaded = True
                transcript = read_report(path, given if given is not None else self.engine.read_bytes(path))
                self.reports_read += 1
                if self.declared is None:
                    self.declared = transcript.lane_hint
                for problem in transcript.findings:
                    self.problem(problem)
                self.stats.add(transcript.stats)
                self.fold(join_report(self.lane, transcript, self.index, self.unknown_reported))
                continue
            if kind == "cases":
                raise UsageError(f"{path}: this is a case file; pass it with --cases")
            reader = JsonlReader(path, self.engine.config.max_line_bytes)
            with io.BytesIO(given) if given is not None else open_input(path) as fh:
                for turn in iter_turns(path, fh, kind or "turns", reader):
                    if reader.findings:
                        for problem in reader.findings:
                            self.problem(problem)
                        reader.findings.clear()
                    yield turn
            for problem in reader.findings:
                self.problem(problem)
            self.stats.add(reader.stats)

    def read(self, paths: Sequence[str], texts: Mapping[str, bytes],
             progress: Callable[[str], None] | None = None) -> None:
        """Fold every transcript file, in order, as one stream."""
        self.unknown_reported = IdSet()
        self.progress = progress
        turns = self.turns(paths, texts)
        if self._caseless_tally():
            self._fold_caseless(turns)
            if self._shown_folded and (self.reports_read or self._repeats()):
                # A lane report went the general fold; a repeated id moves its case to its last
                # record and drops the first: which cases exist, and their order, were not known.
                self.shown_missed = True
        elif self._caseless_rows():
            self._fold_caseless_rows(turns)
        else:
            self.fold(join_turns(self.lane, turns, self.index, unknown=self.unknown_reported))
        if progress is not None and self._pending_progress is not None:
            progress(self._pending_progress)

    def _repeats(self) -> bool:
        """Whether a later record of a case replaced an earlier one (only ids the tally's
        filter suspects are checked, exactly)."""
        if not self.compact.suspect_count:
            return False
        self._summary = self.compact.summary()  # the result's, read once there
        return bool(self._summary.replaced)

    # --- the result --------------------------------------------------------------------

    def result(self, sources: list[str], set_name: str | None, stats: ReadStats,
               input_findings: Iterable[Finding], declared_lane: str | None,
               first_transcript: str = "") -> LaneResult:
        lane = self.lane
        summary, self._summary = self._summary or self.compact.summary(), None
        replaced = summary.replaced
        for f in input_findings:
            self.problem(f)
        for f in summary.findings:
            self.problem(f)
        missing: Spool[str] = Spool()
        if self.index is not None:
            for case in self.index.missing(self.scored_ranks):
                missing.append(case.id)
                self.problem(check_finding(
                    C.UNJOINED, case.record.location(lane.schema.id_field),
                    f"case `{case.id}` has no scored turn in the transcripts; left out of the metrics",
                    case.id, record_index=case.record.index))
        nothing = None
        if not summary.case_count:
            nothing = self.nothing_scored(self.stats)  # what the transcripts held, not the cases
        metrics = metrics_from_tally(lane, summary.tally, summary.values)
        thresholds = threshold_results(lane, metrics, set_name) if summary.case_count else []
        metrics = reported_metrics(lane.metrics, metrics)  # helpers (`report = false`) were seen, not shown
        has_thresholds = set_name is not None and set_name in lane.thresholds and bool(lane.thresholds[set_name].checks)
        if nothing is not None and has_thresholds:
            self.problem(check_finding(C.NOTHING_SCORED, Location(first_transcript, 1, 1, 1, 1),
                                       f"no case was scored: {nothing}; the thresholds were not checked"))
        passed: bool | None = all(t.passed for t in thresholds) if thresholds else None
        if nothing is not None and has_thresholds:
            passed = False
        count = _count_kept(self.findings, replaced) if replaced else len(self.findings)
        findings: Rows[Finding] = KeptFindings(self.findings, replaced, count)
        outcomes: Rows[Outcome]
        case_rows: Rows[tuple[str, tuple[str, ...], dict[str, Any] | SharedDetails | None]]
        shown = None
        if self._shown_folded and not self.shown_missed:
            # Only the shown cases' rows were made (`result.shown`): the outcomes are a count.
            shown = self.shown
            outcomes = Mapped(_NotKept(), summary.case_count, _row_outcome)
            case_rows = Mapped(_NotKept(), summary.case_count, _row_light)
        elif self.want_rows:
            kept = _Kept(self.rows, replaced, position_at=1)
            outcomes = Mapped(_NotKept() if self.light_rows else kept, summary.case_count, _row_outcome)
            case_rows = Mapped(kept, summary.case_count, _row_light)
        else:
            outcomes = Mapped((), 0, _row_outcome)
            case_rows = Mapped((), 0, _row_light)
        return LaneResult(
            lane=lane.name, profile=self.engine.profile, version=lane.version, threshold_set=set_name,
            metrics=metrics, thresholds=thresholds, passed=passed, outcomes=outcomes, findings=findings,
            missing_transcripts=ids_list(missing), unknown_cases=self.unknown.sorted(), remainder=summary.remainder,
            stats=stats, sources=sources, headline=lane.headline, metric_aliases=lane.metric_aliases,
            case_count=summary.case_count, failing_count=summary.failing_count,
            declared_lane=declared_lane, nothing_scored=nothing, case_rows=case_rows, shown=shown,
        )

    def nothing_scored(self, stats: ReadStats) -> str:
        """Why no case was scored, from what was read and left out."""
        reasons = []
        if not stats.records:
            if stats.errors:
                reasons.append(f"none of the {stats.lines} line(s) read could be parsed as a record")
            else:
                if stats.lines == stats.blank:
                    reasons.append("the transcripts hold no record")
                elif self.reports_read and not stats.skipped:
                    reasons.append("the lane report holds no case entry")
                else:
                    reasons.append(f"the transcripts hold no record with a surface ({stats.skipped} line(s) "
                                   "without one skipped)")
        if self.unscored[NO_CASE_ID]:
            reasons.append(f"{self.unscored[NO_CASE_ID]} turn(s) without `case_id`")
        if self.unscored[UNKNOWN_ID]:
            reasons.append(f"{len(self.unknown)} case id(s) that match no case")
        if self.unscored[NOT_SCORED] and not reasons:
            reasons.append(f"{self.unscored[NOT_SCORED]} turn(s), none of them a scored turn")
        return "; ".join(reasons) or "no transcript record reached the lane"


def _row_order(row: tuple[Any, ...]) -> tuple[int, int]:
    return row[0], row[1]


def _finding_order(item: tuple[int, Finding]) -> tuple[str, int, int, int, int, str, str]:
    return item[1].sort_key()


def _pack_kept(item: tuple[int, Finding | tuple[Any, ...]]) -> tuple[int, tuple[Any, ...]]:
    f = item[1]
    return item if type(f) is tuple else (item[0], packed_finding(f))  # type: ignore[arg-type,return-value]


def _unpack_kept(item: tuple[int, tuple[Any, ...]]) -> tuple[int, Finding]:
    return item[0], unpacked_finding(item[1])


_ROW_FINDINGS = 9  # where a row (see _row) holds its findings


def _pack_row(row: tuple[Any, ...]) -> tuple[Any, ...]:
    found = row[_ROW_FINDINGS]
    if not found or type(found[0]) is tuple:  # none, or packed already (`_fold_caseless_rows`)
        return row
    return (*row[:_ROW_FINDINGS], tuple(map(packed_finding, found)), *row[_ROW_FINDINGS + 1:])


def _unpack_row(row: tuple[Any, ...]) -> tuple[Any, ...]:
    found = row[_ROW_FINDINGS]
    if not found:
        return row
    return (*row[:_ROW_FINDINGS], tuple(map(unpacked_finding, found)), *row[_ROW_FINDINGS + 1:])


def _second(item: tuple[int, Finding | tuple[Any, ...]]) -> Finding:
    """The finding of a spool's item: a packed one (appended packed and not marshalled since:
    still in the buffer, or in a pickled batch) unpacked."""
    f = item[1]
    return unpacked_finding(f) if type(f) is tuple else f  # type: ignore[return-value]


def _stored_order(item: tuple[int, Any]) -> tuple[Any, ...]:
    """`_finding_order` of a finding or of its packed tuple (model/findings.py packed_finding)."""
    f = item[1]
    if type(f) is tuple:
        return (*f[0], f[1], f[4])
    return f.sort_key()  # type: ignore[no-any-return]


_item_finding: Callable[[tuple[int, Any]], Any] = itemgetter(1)


class KeptFindings(Mapped[Finding]):
    """A run's findings, sorted (those of a replaced record left out); `stored_items()` gives
    each as the spool holds it, a Finding or its packed tuple, for a writer that reads both
    (reporters/records.py) and need not rebuild every Finding. Findings merged from `--jobs`
    workers (partial.MergedFindings, not a Spool) come as Findings."""

    def __init__(self, spool: Iterable[tuple[int, Finding]], replaced: Collection[int], count: int) -> None:
        super().__init__(_Kept(spool, replaced), count, _second)
        self.spool = spool
        self.replaced = replaced

    def stored_items(self) -> Iterator[Finding | tuple[Any, ...]]:
        replaced = self.replaced
        spool = self.spool
        with fewer_collections():
            items = spool.stored(_stored_order) if isinstance(spool, Spool) else iter(spool)
            if not replaced:  # no record replaced (a run of distinct ids): every item, as stored
                yield from map(_item_finding, items)
                return
            for position, f in items:
                if position not in replaced:
                    yield f


class _Kept:
    """The items of a spool whose position a later record did not replace."""

    def __init__(self, source: Iterable[Any], replaced: Collection[int], position_at: int = 0) -> None:
        self.source = source
        self.replaced = replaced
        self.position_at = position_at

    def __iter__(self) -> Iterator[Any]:
        replaced, at = self.replaced, self.position_at
        if not replaced:
            return iter(self.source)
        return (item for item in self.source if item[at] not in replaced)


def _count_kept(spool: Iterable[tuple[int, Finding]], replaced: Collection[int]) -> int:
    return sum(1 for position, _ in spool if position not in replaced)


def _row(rank: int, position: int, scored: Scored, findings: bool = True) -> tuple[Any, ...]:
    """What a report needs of a scored case, as builtins (verdicts as message and spans,
    severities as numbers; a passing case's are empty)."""
    failures: tuple[Any, ...] = ()
    levels: tuple[Any, ...] = ()
    if scored.failures:
        failures = tuple((n, v.message, v.spans, v.target, v.timed_out, v.span_messages)
                         for n, v in scored.failures.items())
        levels = tuple((n, int(v) if v is not None else None) for n, v in scored.levels.items())
    return (rank, position, scored.case_id, scored.signals, scored.grounding, scored.details, scored.failed,
            scored.judged, failures, scored.findings if findings else (), levels)


def light_row(rank: int, position: int, scored: Scored) -> tuple[Any, ...]:
    """`_row`'s shape with only what the JSON report reads of a case (its id, failed names and
    details; the rest empty): a JSON run marshals and reads back a third of a row's bytes. The
    details are shared by repeated cases when the scorer made them (`DetailsPlan.shared`: one
    dict, marshalled once a batch, and a serial by which the writer encodes it once), else (a
    worker's, through `absorb`) the case's own dict."""
    return (rank, position, scored.case_id, (), "", scored.details, scored.failed, (), (), (), ())


def status_row(rank: int, position: int, scored: Scored) -> tuple[Any, ...]:
    """`_row`'s shape with a case's id, details, failed names and their severities (what the
    JSON Lines report reads of a case: its line's status, failed names and details), none of its
    verdicts, judged names, signals or findings. Its outcome is an `Outcome` whose `verdicts` and
    `judged` are empty: a run keeps these rows only for that report (`Engine.score`'s
    `status_rows`)."""
    levels: tuple[Any, ...] = ()
    if scored.levels:
        levels = tuple((n, int(v) if v is not None else None) for n, v in scored.levels.items())
    return (rank, position, scored.case_id, (), "", scored.details, scored.failed, (), (), (), levels)


class _NotKept:
    """A light run's outcomes (`LaneScorer.light_rows`), a shown run's (`LaneScorer.shown`):
    counted, never iterated."""

    def __iter__(self) -> Iterator[Any]:
        raise RuntimeError("this run kept light case rows (case_rows) or its shown cases (shown): "
                           "its outcomes were not kept")


# A row's (case_id, failed, details): what the JSON writer reads of a case (see _row).
_row_light: Callable[[tuple[Any, ...]], tuple[str, tuple[str, ...], dict[str, Any] | SharedDetails | None]] = (
    itemgetter(2, 6, 5))


_SEVERITY = {int(s): s for s in Severity}  # `Severity(n)`, looked up (an enum's call costs more than the row's read)


def _row_outcome(row: tuple[Any, ...]) -> Outcome:
    (_, _, case_id, signals, grounding, details, failed, judged, failures, findings, levels) = row
    if findings and type(findings[0]) is tuple:  # appended packed and not marshalled since (see _second)
        findings = tuple(map(unpacked_finding, findings))
    verdicts = {n: Verdict(False, spans, message, target, timed_out, span_messages=span_messages)
                for n, message, spans, target, timed_out, span_messages in failures} if failures else {}
    severities = {n: _SEVERITY[v] if v is not None else None for n, v in levels} if levels else {}
    return Outcome(case_id, signals, grounding, details, failed, findings, verdicts, judged, severities)


def independent(parts: Sequence[Part]) -> bool:
    """Whether no two files touch the same case: only then is merging them exact."""
    seen: set[str] = set()
    for part in parts:
        if seen & part.touched:
            return False
        seen |= part.touched
    return True


_PASSING: tuple[str, tuple[str, ...], tuple[str, ...]] = ("pass", (), ())
_SHOWN_FIELDS = (*GROUP_FIELDS, "surface")  # what a shown report reads of every case's details (views)


def shown_probe(lane: Lane, plan: DetailsPlan) -> Callable[[Turn], tuple[str | None, bool]] | None:
    """A turn's `case_group` and whether its `case_surface` is a string, as its details without
    case fields would give them (`DetailsPlan.build`: the fields views read), from the turn
    alone; None when one of those details is neither a constant without case fields nor
    `turn.surface`, `turn.grounding` or `turn.prompt` (the general path then builds them)."""
    computed = dict(plan.empty_getters)
    constants: dict[str, Any] = {}  # a detail's value without case fields, when it is a constant
    reads: dict[str, Callable[[Turn], Any]] = {}  # else how the turn gives it
    for key in _SHOWN_FIELDS:
        if key not in lane.details:
            constants[key] = None  # views read an absent detail as None
            continue
        if key in plan.empty_template and key not in computed:
            constants[key] = plan.empty_template[key]
            continue
        tree = detail_expression(lane.details[key]).tree
        if not (isinstance(tree, ast.Attribute) and isinstance(tree.value, ast.Name) and tree.value.id == "turn"):
            return None
        read = _TURN_READS.get(tree.attr)
        if read is None:
            return None
        reads[key] = read
    if all(k in constants for k in GROUP_FIELDS):
        group_value = _group(*(constants[k] for k in GROUP_FIELDS))
        group_of: Callable[[Turn], str | None] = lambda turn: group_value  # noqa: E731
    else:
        parts = [reads[k] if k in reads else (lambda turn, v=constants[k]: v) for k in GROUP_FIELDS]
        group_of = lambda turn: _group(*(part(turn) for part in parts))  # noqa: E731
    surface_read = reads.get("surface")
    if surface_read is None or surface_read is _turn_surface:  # a constant, or always a str
        has_surface = surface_read is _turn_surface or isinstance(constants.get("surface"), str)
        return lambda turn: (group_of(turn), has_surface)
    return lambda turn: (group_of(turn), isinstance(surface_read(turn), str))


def _group(*values: Any) -> str | None:
    """views.case_group of the GROUP_FIELDS' values."""
    for value in values:
        if isinstance(value, str) and value:
            return value
    return None


def _turn_surface(turn: Turn) -> str:
    return turn.surface or ""


def _turn_grounding(turn: Turn) -> str:
    return turn.grounding


def _turn_prompt(turn: Turn) -> Any:
    return turn.record.data.get("prompt")


_TURN_READS: dict[str, Callable[[Turn], Any]] = {"surface": _turn_surface, "grounding": _turn_grounding,
                                                 "prompt": _turn_prompt}
