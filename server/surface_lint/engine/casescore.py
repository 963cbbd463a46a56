"""Scoring a case-driven (`[casework]`) lane: the engine's one path from captures to a LaneResult.

The case files are read once, into the run's case index (`Engine.load_cases`). The captures
are streamed: each record is joined to its case by id and grouped with the case's other
records (`casegroup.CaseGroups`: in memory up to a bound, then on the scratch database), in
case-file order however many files and passes they come in. Each case is then judged once
(`casegroup.judge_case`: the same verdict and the same findings `check --cases` and the editor
give), folded into the metrics (`fold.MetricsFold`, the fold every lane's metrics come from) and dropped; its report row and
findings go to the spools every lane's reporters read. Memory does not grow with the cases.
"""

from __future__ import annotations

import io
import zlib
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import Any

from ..model.checks import CASE_PROBLEMS
from ..model.checks import CHECK_CODES as C
from ..model.findings import Finding, Location, Severity
from ..rules.kinds.core import Verdict
from ..rules.loader import Lane
from ..sources.base import JsonlReader, ReadStats, Record, check_finding
from ..sources.cases import Case
from ..sources.streams import open_input, read_input
from ..sources.transcripts import read_report, sniff_stream
from .casegroup import CaseGroups, judge_case, report_findings
from .caseindex import IdSet, ids_list
from .casework import CaseOutcome, Casework, CaseworkEvaluator, report_mismatches, report_outcome
from .details import report_case_fields
from .fold import MetricsFold
from .pipeline import Evaluator, mismatch_findings
from .results import CaseIndex, LaneResult, Rows, UsageError
from .score import Scored, _finding_order, _row, _row_light, _row_order, _row_outcome, _second
from .scoring import threshold_results
from .spool import Mapped, Spool, fewer_collections

# One case judged (`CaseworkScorer._judged`): its rank, id, outcome (None: not judged), the
# findings that make it fail (or say why it was not judged) and its first record's index.
Judged = tuple[int, str, CaseOutcome | None, list[Finding], int]


def id_bucket(case_id: str, count: int) -> int:
    """Which of `count` parts reports a case id no case has (the same part on every machine)."""
    return zlib.crc32(case_id.encode("utf-8", "surrogatepass")) % count


class CaseworkScorer:
    """Folds the captures of one case-driven lane run into metrics, case rows and findings."""

    def __init__(self, lane: Lane, casework: Casework, index: CaseIndex | None, levels: Mapping[str, str],
                 want_rows: bool, finding_limit: int | None, max_line_bytes: int | None = None,
                 group_memory: int | None = None, part: tuple[int, int] = (0, 1)) -> None:
        self.lane = lane
        # Which cases this scorer judges: those whose rank is `part[0]` modulo `part[1]` (a part
        # of a run scored elsewhere too; engine/caseparts.py). (0, 1): all of them.
        self.part = part
        # Cases judged by the parts of a run, merged in rank order (`Judged`): what `judge_all`
        # folds instead of judging the groups read here.
        self.entries: Iterator[Judged] | None = None
        self.part_of_run = part != (0, 1)  # judged cases kept for `judged` (engine/caseparts.py), not folded here
        self._reported: list[Judged] = []  # a part of lane reports: its entries, judged as read
        self.casework = casework
        self.index = index
        self.want_rows = want_rows
        self.row_findings = True
        self.set_name: str | None = lane.default_thresholds  # the threshold set checked
        self.finding_limit = finding_limit
        self.max_line_bytes = max_line_bytes
        self.evaluator = Evaluator(lane, levels)
        # The reference profile's lane (engine.reference_lane), asked for when a report is read.
        self.reference_of: Callable[[], Lane | None] | None = None
        self._reference: Casework | None = None
        self.cases = CaseworkEvaluator(casework)
        self._checks = [(v.name, v.check) for v in casework.values if v.check is not None]  # (value, predicate)
        self.fold = MetricsFold.for_casework(casework, self.cases.functions())
        self.groups = CaseGroups(group_memory)
        self.rows: Spool[tuple[Any, ...]] = Spool(key=_row_order)
        self.findings: Spool[tuple[int, Finding]] = Spool(key=_finding_order)
        self.unknown = IdSet()
        self.stats = ReadStats()
        self.case_count = 0
        self.failing_count = 0
        self.failing_shown = 0
        self.missing: Spool[str] = Spool()

    def reference_casework(self) -> Casework | None:
        """The reference profile's casework of this lane (SL011 on lane reports), loaded once."""
        if self._reference is None:
            lane = self.reference_of() if self.reference_of is not None else None
            self._reference = (lane.casework if lane is not None else None) or self.casework
        return self._reference

    def problem(self, finding: Finding) -> None:
        self.findings.append((-1, finding))

    # --- reading -----------------------------------------------------------------------

    def read(self, paths: Sequence[str], texts: Mapping[str, bytes]) -> None:
        """Every capture file, in order, joined to its cases and grouped by case."""
        field = self.casework.case_field
        index = self.index
        assert index is not None  # captures are joined with their cases (reports: read_reports)
        number, count = self.part
        first = number == 0  # the first part reports what is not a case's: bad lines, the counts
        for path in paths:
            reader = JsonlReader(path, self.max_line_bytes) if self.max_line_bytes else JsonlReader(path)
            given = texts.get(path)
            try:
                stream = io.BytesIO(given) if given is not None else open_input(path)
            except OSError as exc:
                raise UsageError(f"{path}: cannot read: {exc.strerror}") from None
            with stream:
                for record in reader.records(stream):
                    case_id = record.data.get(field)
                    if not isinstance(case_id, str) or not case_id:
                        if first:
                            self.problem(check_finding(
                                C.UNJOINED, record.whole(), f"record without a string `{field}`; joined to no case",
                                record_index=record.index))
                        continue
                    rank = index.rank(case_id)
                    if rank < 0:
                        if (count == 1 or id_bucket(case_id, count) == number) and self.unknown.add(case_id):
                            self.problem(check_finding(
                                C.UNJOINED, record.location(field),
                                f"case id `{case_id}` matches no case in the given case files", case_id,
                                record_index=record.index))
                        continue
                    if count == 1 or rank % count == number:
                        self.groups.add(case_id, record, rank)
            if first:
                for finding in reader.findings:
                    self.problem(finding)
                self.stats.add(reader.stats)

    # --- judging ------------------------------------------------------------------------

    def judge_all(self) -> None:
        """Each case once, in case-file order (judged here, or by the parts: `entries`), folded;
        a case without a captured record is missing."""
        if self.index is None:  # lane reports: judged as read, or by the parts
            for judged in self.entries or ():
                self._take(judged)
            return
        id_field = self.lane.schema.id_field
        with fewer_collections():
            for case, entry in self._ranked(self.entries):
                if entry is None:
                    self.missing.append(case.id)
                    self.problem(check_finding(
                        C.UNJOINED, case.record.location(id_field),
                        f"case `{case.id}` has no captured turn in the transcripts; left out of the metrics",
                        case.id, record_index=case.record.index))
                else:
                    self._take(entry)

    def judged(self) -> Iterator[Judged]:
        """This scorer's cases judged (a part's: those of its ranks), in case-file order."""
        if self.index is None:  # a part of lane reports: judged as read
            yield from self._reported
            return
        with fewer_collections():
            for _, entry in self._ranked(None):
                if entry is not None:
                    yield entry

    def _ranked(self, entries: Iterator[Judged] | None) -> Iterator[tuple[Case, Judged | None]]:
        """Every case of the case files in order, with its judgement (None: no record of it)."""
        index = self.index
        assert index is not None  # captures joined with their cases (reports: read_reports)
        groups = self.groups.ranked() if entries is None else None
        pending: Any = next(entries if entries is not None else groups, None)  # type: ignore[arg-type]
        for rank, case in enumerate(index.ordered()):
            if pending is None or pending[0] != rank:
                yield case, None
                continue
            if entries is not None:
                entry, pending = pending, next(entries, None)
            else:
                entry = self._judged(rank, case.id, case.data, pending[2])
                pending = next(groups, None)  # type: ignore[arg-type]
            yield case, entry

    def _judged(self, rank: int, case_id: str, data: Mapping[str, Any], records: list[Record]) -> Judged:
        outcome, found = judge_case(self.evaluator, self.cases, self.casework, case_id, data, records)
        return _placed(rank, case_id, outcome, found, records[0])

    def read_reports(self, paths: Sequence[str], texts: Mapping[str, bytes]) -> None:
        """Lane reports read back without their cases: each per-case record is that case's
        details and gives the values its bare-name details name (casework.report_outcome), in
        the report's order (a part: the entries of its ranks, kept for `judged`)."""
        number, count = self.part
        first = number == 0
        rank = 0
        for path in paths:
            given = texts.get(path)
            try:
                data = given if given is not None else read_input(path)
            except OSError as exc:
                raise UsageError(f"{path}: cannot read: {exc.strerror}") from None
            transcript = read_report(path, data)
            if first:
                for problem in transcript.findings:
                    self.problem(problem)
                self.stats.add(transcript.stats)
            for entry in transcript.entries:
                case_id = entry.case_id
                if case_id is None:
                    if first:
                        self.problem(check_finding(
                            C.UNJOINED, entry.record.whole(),
                            "report entry without a string `case_id` or `id`; joined to no case",
                            record_index=entry.record.index))
                    continue
                if count == 1 or rank % count == number:
                    case = report_case_fields(self.lane, entry, None)
                    outcome, blames = report_outcome(self.casework, case_id, entry.data, case)
                    found = report_findings(self.evaluator, self.casework, case_id, case, entry.record, blames)
                    reference = self.reference_casework()
                    if reference is not None:  # stored flags the raw fields contradict (SL011)
                        pairs = [((k,), old, new) for k, old, new in report_mismatches(reference, entry.data, case)]
                        for f in mismatch_findings(entry.record, case_id, pairs):
                            self.problem(f)
                    judged = _placed(rank, case_id, outcome, found, entry.record)
                    if self.part_of_run:
                        self._reported.append(judged)
                    else:
                        self._take(judged)
                rank += 1

    def _take(self, entry: Judged) -> None:
        """One judged case folded into the metrics, its row and findings spooled."""
        rank, case_id, outcome, found, first_index = entry
        if outcome is None:  # not judged (a pattern past its budget): left out of the metrics
            for f in found:
                self.problem(f)
            return
        self.fold.add_case(outcome)
        self.case_count += 1
        failed: tuple[str, ...] = ()
        failures: dict[str, Verdict] = {}
        severities: dict[str, Severity | None] = {}
        if not outcome.passed:
            self.failing_count += 1
            for f in found:
                if f.code in CASE_PROBLEMS:
                    continue
                if f.rule not in failures:  # the verdict's own words, as a classic lane's (not "rule: ..." again)
                    failures[f.rule] = Verdict(False, message=f.message.removeprefix(f"{f.rule}: "))
                    severities[f.rule] = f.severity
                elif f.severity > (severities[f.rule] or f.severity):
                    severities[f.rule] = f.severity
            failed = tuple(failures)
            if self.finding_limit is not None:
                if self.failing_shown >= self.finding_limit:
                    found = []
                else:
                    self.failing_shown += 1
        for f in found:
            self.findings.append((rank, f))
        if self.want_rows:
            # Judged: the predicates failed, and those a `check` value judged (true or false).
            judged = tuple(dict.fromkeys([*(check for name, check in self._checks
                                            if isinstance(outcome.values.get(name), bool)), *failed]))
            scored = Scored(case_id, (outcome.passed,), failed, None, first_index, "none", outcome.details,
                            judged, failures, tuple(found), severities)
            self.rows.append(_row(rank, rank, scored, self.row_findings))

    # --- the result --------------------------------------------------------------------

    def result(self, profile: str, sources: list[str], stats: ReadStats, input_findings: Iterable[Finding],
               first_capture: str) -> LaneResult:
        lane = self.lane
        for f in input_findings:
            self.problem(f)
        self.judge_all()
        raw = self.fold.finish() if self.case_count else {}
        sections = self.fold.sections(raw) if self.case_count else {}
        id_field = lane.schema.id_field
        for case_id, error in self.fold.errors:  # a metric expression that failed on a case's item
            case = self.index.get(case_id) if case_id is not None and self.index is not None else None
            where = case.record.location(id_field) if case is not None else _lane_location(error.location)
            self.problem(check_finding(error.code, where, error.message, case_id))
        metrics = dict(sections.get("metrics", {}))
        # Sections beside `metrics` (fabrication_control's `by_class`) are reported as the runner does.
        extra = {name: values for name, values in sections.items() if name != "metrics"}
        # The lane's threshold set (its first `thresholds` metric unless `--thresholds` or the
        # config names another): one check for every lane (scoring.check_thresholds).
        set_name = self.set_name
        thresholds = threshold_results(lane, raw, set_name) if self.case_count else []
        passed: bool | None = all(t.passed for t in thresholds) if thresholds else None
        nothing = None
        if not self.case_count:
            nothing = self._nothing_scored()
            if set_name is not None:
                self.problem(check_finding(C.NOTHING_SCORED, Location(first_capture, 1, 1, 1, 1),
                                           f"no case was scored: {nothing}; the thresholds were not checked"))
                passed = False
        stats.add(self.stats)
        findings: Rows[Finding] = Mapped(self.findings, len(self.findings), _second)
        outcomes = Mapped(self.rows, len(self.rows), _row_outcome)
        case_rows = Mapped(self.rows, len(self.rows), _row_light)
        return LaneResult(
            lane=lane.name, profile=profile, version=lane.version, threshold_set=set_name,
            metrics=metrics, thresholds=thresholds, passed=passed, outcomes=outcomes, findings=findings,
            missing_transcripts=ids_list(self.missing), unknown_cases=self.unknown.sorted(), remainder=[],
            stats=stats, sources=sources,
            headline=lane.headline if lane.headline in metrics else next(iter(metrics), ""),
            metric_aliases=lane.metric_aliases, case_count=self.case_count, failing_count=self.failing_count,
            nothing_scored=nothing, case_rows=case_rows, sections=extra,
        )

    def _nothing_scored(self) -> str:
        stats = self.stats
        if self.index is None:  # lane reports read back
            return "the lane report holds no case entry"
        if not stats.records:
            if stats.errors:
                return f"none of the {stats.lines} line(s) read could be parsed as a record"
            return "the captures hold no record"
        if self.unknown:
            return f"{len(self.unknown)} case id(s) that match no case"
        return "no captured record joined a case"


def _placed(rank: int, case_id: str, outcome: CaseOutcome | None, found: list[Finding], first: Record) -> Judged:
    """A judged case; one that fails with nothing to place (suppressed, or only case problems)
    fails at its first record."""
    if outcome is not None and not outcome.passed and all(f.code in CASE_PROBLEMS for f in found):
        found = [*found, check_finding(C.CASE_CHECK, first.whole(), f"case `{case_id}` fails", case_id,
                                       record_index=first.index)]
    return rank, case_id, outcome, found, first.index


def _lane_location(where: str) -> Location:
    """A lane file's `file:line:column` as a finding's location (a metric over the metrics has no
    case to be at)."""
    path, _, rest = where.rpartition(":")
    path, _, line = path.rpartition(":")
    try:
        line_no, column = int(line), int(rest)
    except ValueError:
        return Location(where, 1, 1, 1, 1)
    return Location(path, line_no, column, line_no, column)


def score_casework(lane: Lane, casework: Casework, index: CaseIndex | None, levels: Mapping[str, str],
                   profile: str, case_paths: Sequence[str], capture_paths: Sequence[str],
                   texts: Mapping[str, bytes], stats: ReadStats, want_rows: bool = True,
                   finding_limit: int | None = None, row_findings: bool = True,
                   max_line_bytes: int | None = None, set_name: str | None = None,
                   reference_of: Callable[[], Lane | None] | None = None) -> LaneResult:
    """`Engine.score` of a case-driven lane (the case index is the run's, read once); `set_name`:
    the threshold set checked (default: the lane's)."""
    reports = index is None or not case_paths
    if reports and not all_reports(capture_paths, texts):
        raise UsageError(f"lane {lane.name} scores captures joined with their cases: give --cases "
                         "(or give only lane reports, which carry their cases' records)")
    scorer = CaseworkScorer(lane, casework, None if reports else index, levels, want_rows, finding_limit,
                            max_line_bytes)
    scorer.row_findings = row_findings
    scorer.reference_of = reference_of
    if set_name is not None:
        scorer.set_name = set_name
    if reports:
        scorer.read_reports(capture_paths, texts)
    else:
        scorer.read(capture_paths, texts)
    return scorer.result(profile, [*case_paths, *capture_paths], stats, index.findings if index is not None else (),
                         capture_paths[0] if capture_paths else "")


def all_reports(paths: Sequence[str], texts: Mapping[str, bytes]) -> bool:
    """Whether `paths` (or their given bytes) are lane reports, scored without cases: a file whose
    kind cannot be told (empty, undecodable, not an object, broken at its start) is read as one,
    its problems findings at their positions; one that is another kind (captures) is not."""
    return bool(paths) and all(_sniffed(p, texts) in ("report", None) for p in paths)


def _sniffed(path: str, texts: Mapping[str, bytes]) -> str | None:
    """The kind of `path` (or its given bytes); "unreadable" when it cannot be opened."""
    given = texts.get(path)
    try:
        with io.BytesIO(given) if given is not None else open_input(path) as fh:
            return sniff_stream(fh)
    except OSError:
        return "unreadable"


__all__ = ["CaseworkScorer", "score_casework"]
