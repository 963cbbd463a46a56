"""`check` on a case-driven lane: a case's captured turns seen together, judged as `score` judges them.

A `[casework]` lane's runner judges a case, not a turn (an accepted surface passes the case
whatever its constraints say; a runner comes back to a case in a second pass). So `check
--cases` groups the records of every capture file it is given by case id as they are read
(`CaseGroups`, one per case-driven lane of the run: check.py `CaseSession`; in memory up to
`MEMORY_RECORDS` records, then in the same private scratch SQLite database the case index
spills to, `caseindex.scratch_db`), and once the files are read, gives each case's findings from
`CaseworkEvaluator.case_findings`: nothing for a case that passes, else each reason it fails,
at the turn it came from (a case-level value at the case id of the case's first captured turn).
The editor calls `case_findings` with the records of one case's lines.
"""

from __future__ import annotations

import marshal
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from ..model.checks import CHECK_CODES as C
from ..model.findings import Finding, sorted_findings
from ..rules.kinds.core import RegexTimeout, Verdict
from ..rules.loader import Lane
from ..sources.base import JsonlReader, NumberedLines, Record, check_finding
from ..sources.cases import Case
from ..sources.suppress import SUPPRESSION_KEY, disabled_rules
from ..sources.transcripts import iter_turns
from .caseindex import scratch_db
from .casework import Blame, CaseOutcome, Casework, CaseworkEvaluator, judges_without_case
from .pipeline import Evaluator
from .results import CaseIndex
from .services import EngineServices
from .spool import Spool

MEMORY_RECORDS = 4096  # records held in memory before the groups move to disk
_BATCH = 1024  # rows written per executemany


class CaseGroups:
    """Records by case id, each case's in reading order, the cases in first-seen order: in memory
    up to `memory` records, then in a scratch database (deleted when closed, even after a kill).
    On disk, records are only appended (a case's records are far apart: a runner's second pass
    comes back to every case, and a keyed insert would land all over the table); the grouping
    is one index built and one ordered read at the end, so the statements run do not grow with
    the records but with their batches."""

    def __init__(self, memory: int | None = None) -> None:
        self._memory = MEMORY_RECORDS if memory is None else memory
        self._groups: dict[str, list[Record]] = {}
        self._ranks: dict[str, int] = {}  # a case's rank (its place in the case files), when given
        self._held = 0
        self._db: Any = None  # sqlite3.Connection once spilled
        # Ranked records past the bound: (rank, n, the marshalled (case id, data, line, index, path,
        # text)), sorted on disk by (rank, n) (spool.Spool's external merge sort: records that come
        # in rank order, as a runner's pass over its cases does, only append to a run). One marshal
        # blob is written and read several times faster than pickle writes the tuple it holds.
        self._sorted: Spool[tuple[Any, ...]] | None = None
        self._n = 0
        self._pending: list[tuple[bytes, int, bytes]] = []

    @property
    def spilled(self) -> bool:
        return self._db is not None

    def add(self, case_id: str, record: Record, rank: int = -1) -> None:
        """One record of a case; `rank` (the case's place in the case files) orders `ranked()`
        (give every record its rank, or none)."""
        if self._sorted is not None:
            fields = (case_id, record.data, record.line, record.index, record.path, record.text)
            try:
                packed: Any = marshal.dumps(fields)
            except ValueError:  # not JSON's builtins only (never from a JSONL file): pickled as it is
                packed = fields
            self._sorted.append((rank, self._n, packed))
            self._n += 1
            return
        if self._db is None:
            self._groups.setdefault(case_id, []).append(record)
            if rank >= 0:
                self._ranks[case_id] = rank
            self._held += 1
            if self._held > self._memory:
                if rank >= 0:
                    self._spill_sorted()
                else:
                    self._spill()
            return
        self._put(case_id, record, rank)

    def _spill_sorted(self) -> None:
        self._sorted = Spool(key=_rank_order)
        groups, self._groups = self._groups, {}
        ranks, self._ranks = self._ranks, {}
        for case_id, records in groups.items():
            for record in records:
                self.add(case_id, record, ranks[case_id])

    def _spill(self) -> None:
        self._db = scratch_db()
        # n (the rowid) is the reading order: appends only, never a keyed insert.
        self._db.execute("CREATE TABLE records (n INTEGER PRIMARY KEY, id BLOB NOT NULL, rank INTEGER NOT NULL,"
                         " blob BLOB NOT NULL)")
        groups, self._groups = self._groups, {}
        ranks, self._ranks = self._ranks, {}
        # The cases' first-seen order is each one's least n: written case by case, it is kept.
        for case_id, records in groups.items():
            for record in records:
                self._put(case_id, record, ranks.get(case_id, -1))

    def _put(self, case_id: str, record: Record, rank: int = -1) -> None:
        # marshal: a record's data is JSON's builtins, written several times faster than by pickle.
        blob = marshal.dumps((record.data, record.line, record.index, record.path, record.text))
        self._pending.append((case_id.encode("utf-8", "surrogatepass"), rank, blob))
        if len(self._pending) >= _BATCH:
            self._flush()

    def _flush(self) -> None:
        if self._pending:
            self._db.execute("BEGIN")
            self._db.executemany("INSERT INTO records (id, rank, blob) VALUES (?, ?, ?)", self._pending)
            self._db.execute("COMMIT")
            self._pending = []

    def groups(self) -> Iterator[tuple[str, list[Record]]]:
        """Each case id with its records (one case held at a time once on disk); then closed."""
        if self._db is None:
            groups, self._groups = self._groups, {}
            yield from groups.items()
            return
        self._flush()
        db = self._db
        try:
            # One sort each (in SQLite, spilling to its scratch file), then one read in case order.
            db.execute("CREATE INDEX records_by_case ON records (id, n)")
            db.execute("CREATE TABLE cases (rank INTEGER PRIMARY KEY, id BLOB NOT NULL)")
            db.execute("INSERT INTO cases (id) SELECT id FROM records GROUP BY id ORDER BY min(n)")
            key: bytes | None = None
            records: list[Record] = []
            for raw, blob in db.execute("SELECT c.id, r.blob FROM cases c JOIN records r ON r.id = c.id"
                                        " ORDER BY c.rank, r.n"):
                if raw != key:
                    if key is not None:
                        yield key.decode("utf-8", "surrogatepass"), records
                    key, records = raw, []
                data, line, index, path, text = marshal.loads(blob)
                records.append(Record(data, line, index, None, (), path, text))
            if key is not None:
                yield key.decode("utf-8", "surrogatepass"), records
        finally:
            self.close()

    def ranked(self) -> Iterator[tuple[int, str, list[Record]]]:
        """Each ranked case as (rank, id, its records in reading order), in rank order (one case
        held at a time once on disk); then closed."""
        if self._sorted is None:
            groups, ranks = self._groups, self._ranks
            self._groups, self._ranks = {}, {}
            for case_id in sorted(ranks, key=ranks.__getitem__):
                yield ranks[case_id], case_id, groups[case_id]
            return
        spool, self._sorted = self._sorted, None
        try:
            rank, case = -1, ""
            records: list[Record] = []
            for got, _, packed in spool:
                case_id, data, line, index, path, text = marshal.loads(packed) if type(packed) is bytes else packed
                if got != rank:
                    if records:
                        yield rank, case, records
                    rank, case, records = got, case_id, []
                records.append(Record(data, line, index, None, (), path, text))
            if records:
                yield rank, case, records
        finally:
            spool.close()

    def close(self) -> None:
        if self._db is not None:
            self._db.close()
            self._db = None
        self._groups = {}
        self._ranks = {}
        self._pending = []
        if self._sorted is not None:
            self._sorted.close()
            self._sorted = None


def case_findings(evaluator: Evaluator, casework: Casework, case: Case, records: Sequence[Record],
                  judge: CaseworkEvaluator | None = None) -> list[Finding]:
    """What makes one case fail (nothing when it passes), as findings on its records. `judge`:
    the lane's evaluator, one for the cases of a run (its set-up is not repeated per case);
    none given, one of the case's own."""
    if not records:
        return []
    judge = judge if judge is not None else CaseworkEvaluator(casework)
    return judge_case(evaluator, judge, casework, case.id, case.data, records)[1]


def group_findings(evaluator: Evaluator, casework: Casework, cases: CaseIndex | None, case_id: str,
                   records: Sequence[Record], judge: CaseworkEvaluator | None = None) -> list[Finding]:
    """One grouped case's findings: judged with its case when the case files hold it, else (no
    case files, or an id they do not hold) on its `without_case` checks alone, when it has any
    (`judge` as `case_findings` takes it)."""
    case = cases.get(case_id) if cases is not None else None
    if case is not None:
        return case_findings(evaluator, casework, case, records, judge)
    if not records or not judges_without_case(casework):
        return []
    data = {casework.lane.schema.id_field: case_id}
    judge = judge if judge is not None else CaseworkEvaluator(casework)
    return judge_case(evaluator, judge, casework, case_id, data, records, without_case=True)[1]


def judge_case(evaluator: Evaluator, cases: CaseworkEvaluator, casework: Casework, case_id: str,
               data: Mapping[str, Any], records: Sequence[Record],
               without_case: bool = False) -> tuple[CaseOutcome | None, list[Finding]]:
    """One case judged once: its outcome (metrics and details read it; None when it could not be
    judged) and what makes it fail, as findings on its records (nothing when it passes). `--lane`,
    `check` and the editor all judge a case here. `without_case`: the case is not given (`data`
    holds its id alone), only its `without_case` checks are judged."""
    first = records[0]
    try:
        if without_case:
            outcome, blames = cases.without_case_findings(case_id, [r.data for r in records])
        else:
            outcome, blames = cases.case_findings(data, [r.data for r in records])
    except RegexTimeout as exc:  # a user pattern's character budget: the case is not judged
        return None, [check_finding(C.PATTERN_LIMIT, first.whole(), f"case `{case_id}` was not judged: a pattern {exc}",
                                    case_id, record_index=first.index)]
    if not blames:  # it passes, and its evaluation met no problem: nothing to place
        return outcome, []
    by_data = {id(r.data): r for r in records}
    out: list[Finding] = []
    seen: set[tuple[Any, ...]] = set()
    for blame in blames:
        record = by_data.get(id(blame.record), first) if blame.record is not None else first
        for finding in _findings_of(evaluator, casework, case_id, data, record, blame):
            key = (finding.location, finding.code, finding.message)
            if key not in seen and _kept(record.data, finding):
                seen.add(key)
                out.append(finding)
    return outcome, sorted_findings(out)


def report_findings(evaluator: Evaluator, casework: Casework, case_id: str, data: Mapping[str, Any], record: Record,
                    blames: Sequence[Blame]) -> list[Finding]:
    """A lane report's case read back (casework.report_outcome): its blames as findings on its entry."""
    out = [f for blame in blames for f in _findings_of(evaluator, casework, case_id, data, record, blame)]
    return sorted_findings(out)


def check_case_lines(engine: EngineServices, path: str, lines: Sequence[tuple[int, str]], kind: str, lane: Lane,
                     cases: CaseIndex | None) -> list[Finding]:
    """The case findings of a document's lines (the editor gives one case's lines): (number, text
    without its line end), read as the whole-file check reads them at those numbers (the
    reader's own findings are the line path's, not these), grouped by case and judged as
    `check_bytes` judges them (a case not given: on its `without_case` checks, `group_findings`)."""
    casework = lane.casework
    if casework is None:
        return []
    groups: dict[str, list[Record]] = {}
    reader = JsonlReader(path, engine.config.max_line_bytes)
    for turn in iter_turns(path, NumberedLines(lines), kind, reader):
        case_id = turn.case_id
        if case_id:
            number = turn.record.line
            groups.setdefault(case_id, []).append(
                Record(turn.record.data, number, number - 1, None, (), path, turn.record.text))
    evaluator = Evaluator(lane, engine.severity_levels)
    judge = CaseworkEvaluator(casework)
    out: list[Finding] = []
    for case_id, records in groups.items():
        out.extend(group_findings(evaluator, casework, cases, case_id, records, judge))
    return sorted_findings(out)


def _findings_of(evaluator: Evaluator, casework: Casework, case_id: str, data: Mapping[str, Any], record: Record,
                 blame: Blame) -> list[Finding]:
    if blame.predicate is not None and blame.verdict is not None:
        verdict = _on_record(blame.verdict, blame.surface, record.data)
        return evaluator.predicate_findings({blame.predicate: verdict}, record, data, case_id)
    if blame.field is not None and blame.field in record.data:  # a wrong-typed field: at the field
        where = record.location(blame.field)
    else:
        where = record.location(casework.case_field) if casework.case_field in record.data else record.whole()
    return [check_finding(blame.code or C.CASE_CHECK, where, blame.message, case_id, record_index=record.index)]


def _on_record(verdict: Verdict, judged: str | None, record: Mapping[str, Any]) -> Verdict:
    """The verdict's spans are in the text its view judged; they point into the record's
    surface only when that text is the surface's start (a view that strips trailing periods)."""
    surface = record.get("surface")
    if not verdict.spans or judged is None or (isinstance(surface, str) and surface.startswith(judged)):
        return verdict
    return Verdict(verdict.passed, (), verdict.message, verdict.target, verdict.timed_out, verdict.facts)


def _kept(data: Mapping[str, Any], finding: Finding) -> bool:
    """A record's `"surface_lint": {"disable": [...]}` drops the case findings placed on it."""
    if SUPPRESSION_KEY not in data:
        return True
    disabled = disabled_rules(data)
    return finding.code not in disabled and finding.rule not in disabled


def _rank_order(item: tuple[Any, ...]) -> tuple[int, int]:
    return item[0], item[1]


__all__ = ["MEMORY_RECORDS", "CaseGroups", "case_findings", "check_case_lines", "group_findings", "judge_case",
           "report_findings"]
