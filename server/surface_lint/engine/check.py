"""`check`: the findings of one document, as the pipeline's evaluations stream by.

A turn or telemetry file is read record by record (from bytes or straight from disk), each
record joined and evaluated once, its findings (suppressions applied on the parsed record)
handed on and dropped. Case files and lane reports are whole documents and are read whole.
"""

from __future__ import annotations

import io
import itertools
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import IO

from ..model.findings import Finding, sorted_findings
from ..rules.loader import Lane
from ..sources.base import JsonlReader, NumberedLines, ReadStats, Record
from ..sources.cases import duplicate_findings, leak_findings, read_case_file, sibling_case_files
from ..sources.streams import open_input
from ..sources.transcripts import iter_turns, read_report, sniff, sniff_stream
from .casefile import check_case_file, split_rank
from .casegroup import CaseGroups, group_findings
from .casework import CaseworkEvaluator, judges_without_case
from .detect import first_object
from .pipeline import Evaluator, Joined, Suppressions, join_report, join_turns
from .results import SURFACE_PATH, CaseIndex, DocResult, LineCheck, RecordInfo, UsageError
from .services import EngineServices
from .spool import Spool

HEAD_BYTES = 65536  # what shape and lane detection read of a file


READER_FINDINGS = 4096  # a reader's findings held in memory before they move to disk (HeldFindings)


class HeldFindings:
    """A reader's findings while no record comes to carry them (a file of lines that are no
    turns): moved from the reader's list to a Spool as they come (on disk past its buffer),
    given back in their order and in batches, so that a file of broken lines does not fill
    memory."""

    BATCH = 1024  # findings given back at once

    def __init__(self, found: list[Finding]) -> None:
        self._found = found  # the reader's list, which it appends to
        self._held: Spool[Finding] = Spool()

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


class BoundedFindings(list[Finding]):
    """A reader's findings list that moves what it holds to `held` (a Spool) once it holds
    READER_FINDINGS: the reader appends and extends as it always did."""

    held: HeldFindings | None = None

    def append(self, finding: Finding) -> None:
        super().append(finding)
        if len(self) >= READER_FINDINGS and self.held is not None:
            self.held.move()

    def extend(self, findings: Iterable[Finding]) -> None:
        super().extend(findings)
        if len(self) >= READER_FINDINGS and self.held is not None:
            self.held.move()


class NotingReader(JsonlReader):
    """A JSONL reader that notes each parsed record's suppressions as it yields it."""

    def __init__(self, path: str, max_line_bytes: int, suppressions: Suppressions) -> None:
        super().__init__(path, max_line_bytes)
        self.suppressions = suppressions

    def records(self, source: IO[bytes] | NumberedLines) -> Iterator[Record]:
        note = self.suppressions.note
        for record in super().records(source):
            note(record)
            yield record


def record_info(joined: Joined, verdicts: object, delta: int = 0) -> RecordInfo:
    """What the editor keeps of one evaluated record (its positions located only when asked,
    `delta` lines further down than the record was read)."""
    record = joined.record
    case = joined.case.record if joined.case is not None else None
    if joined.kind == "turn":
        return RecordInfo.of_record(joined.case_id, "turn", record, _id_key(record, "case_id"), SURFACE_PATH,
                                    verdicts, case, delta)  # type: ignore[arg-type]
    key = "case_id" if "case_id" in record.data else "id"
    surface = SURFACE_PATH if "surface" in record.data else None
    return RecordInfo.of_record(joined.case_id, "report-case", record, _id_key(record, key), surface,
                                verdicts, case, delta)  # type: ignore[arg-type]


def _id_key(record: Record, key: str) -> str | None:
    return key if key in record.data else None


def turn_stream(engine: EngineServices, path: str, stream: IO[bytes] | NumberedLines, kind: str, lane: Lane,
                cases: CaseIndex | None,
                want_records: bool, primed: frozenset[str] = frozenset(),
                reader: JsonlReader | None = None, case_groups: bool = False,
                groups: CaseGroups | None = None) -> Iterator[tuple[list[Finding], RecordInfo | None]]:
    """Each record's findings (suppressions applied) and, when wanted, what the editor keeps of it.
    The reader's own findings (lines that do not parse, wrong types) come with the next record.
    A case-driven lane given its cases judges cases, not turns: with `case_groups` (a whole
    file) each case's findings come once every record is read (casegroup.py); without (the
    editor's lines, whose cases it groups itself) the turns give no predicate findings. With
    `groups` (a `check` run's, shared by its files: `CaseSession`) the turns are grouped there and
    judged by the caller once every file is read."""
    suppressions = Suppressions()
    reader = reader or NotingReader(path, engine.config.max_line_bytes, suppressions)
    if isinstance(reader, NotingReader):
        suppressions = reader.suppressions
    evaluator = Evaluator(lane, engine.severity_levels)
    # The reader's findings wait for the next record; past READER_FINDINGS of them (a file of
    # lines that are no turns) they wait on disk, so memory does not grow with them.
    pending = reader.findings = BoundedFindings(reader.findings)
    held = HeldFindings(pending)
    pending.held = held
    # A case-driven lane with its cases judges each case as `score` does, once its turns are read;
    # one with `without_case` checks groups the turns whose case is not given too (judged on those).
    by_case = judges_cases(lane, cases)
    alone = judges_alone(lane)
    grouping = by_case or alone
    shared = groups is not None and grouping
    if not shared:
        groups = CaseGroups() if grouping and case_groups else None
    turns = iter_turns(path, stream, kind, reader)
    for joined in join_turns(lane, turns, cases, primed):
        for batch in held.drain():
            yield suppressions.filter(batch), None
        if by_case and groups is not None and not want_records:  # the case findings say it all: no turn verdicts needed
            found = joined.problems
            done = None
        else:
            done = evaluator.evaluate(joined, findings=not by_case)
            found = done.all_findings()
        if groups is not None:
            if joined.case is not None:
                groups.add(joined.case.id, joined.record)
            elif alone and joined.case_id:
                groups.add(joined.case_id, joined.record)
        if pending:
            found = [*pending, *found]
            pending.clear()
        yield suppressions.filter(found), record_info(joined, done.verdicts) if want_records and done is not None else None
    # What the reader found after the last record: all there is.
    for batch in held.drain():
        yield suppressions.filter(batch), None
    if pending:
        yield suppressions.filter(list(pending)), None
        pending.clear()
    if groups is not None and not shared:
        yield from _case_findings(evaluator, lane, cases, groups)


def judges_cases(lane: Lane, cases: CaseIndex | None) -> bool:
    """A case-driven lane given its cases: its findings come from whole cases, not single turns."""
    return lane.casework is not None and cases is not None


def judges_alone(lane: Lane) -> bool:
    """A case-driven lane with `without_case` checks: the turns of a case not given (no case
    files, or an id they do not hold) are grouped by case and judged on those checks."""
    return lane.casework is not None and judges_without_case(lane.casework)


def _case_findings(evaluator: Evaluator, lane: Lane, cases: CaseIndex | None,
                   groups: CaseGroups) -> Iterator[tuple[list[Finding], RecordInfo | None]]:
    """Each grouped case's findings (what makes it fail), case by case."""
    assert lane.casework is not None
    judge = CaseworkEvaluator(lane.casework)  # one for the lane's cases, not one per case
    for case_id, records in groups.groups():
        found = group_findings(evaluator, lane.casework, cases, case_id, records, judge)
        if found:
            yield found, None


class CaseSession:
    """The case-driven judging of one `check` run over many files: a case's turns are one case
    however many files they come in (a runner's second pass written to a file of its own), so
    each case-driven lane's records of every file go to one `CaseGroups` (on disk past its
    bound), and each case is judged once, when every file is read, its findings at the capture
    lines (in whichever file) that decided it."""

    def __init__(self, engine: EngineServices, cases: CaseIndex | None) -> None:
        self.engine = engine
        self.cases = cases
        self._lanes: dict[str, tuple[Lane, CaseGroups]] = {}

    def groups(self, lane: Lane) -> CaseGroups | None:
        """Where `lane`'s turns are grouped (None when the lane does not judge cases)."""
        if not judges_cases(lane, self.cases) and not judges_alone(lane):
            return None
        if lane.name not in self._lanes:
            self._lanes[lane.name] = (lane, CaseGroups())
        return self._lanes[lane.name][1]

    def finish(self, sink: Callable[[Finding], None]) -> None:
        """Each grouped case's findings to `sink`, lane by lane (by name), case by case; then closed."""
        lanes, self._lanes = self._lanes, {}
        try:
            for name in sorted(lanes):
                lane, groups = lanes[name]
                evaluator = Evaluator(lane, self.engine.severity_levels)
                for found, _ in _case_findings(evaluator, lane, self.cases, groups):
                    for f in found:
                        sink(f)
        finally:
            for _, groups in lanes.values():
                groups.close()

    def close(self) -> None:
        """Drop what is grouped (its scratch database deleted) without judging it."""
        for _, groups in self._lanes.values():
            groups.close()
        self._lanes = {}


def check_lines(engine: EngineServices, path: str, lines: Sequence[tuple[int, str, str | None]], kind: str, lane: Lane,
                cases: CaseIndex | None) -> list[LineCheck]:
    """Lines of a turn/telemetry JSONL document, each checked as `Engine.check_line` checks it
    alone, in one read: one reader and one evaluator for them all, and each line its own join
    (its priming context, its own SL015). `lines`: (1-based number, in increasing order; text
    without its line end; the case id primed before it, if any). A line's number is its
    context (only line 1 is the file's start); the caller counts the document's line ends."""
    if not lines:
        return []
    primed_at: dict[int, str] = {}
    texts: dict[int, str] = {}
    last = 0
    for number, text, primed in lines:
        if number <= last or number < 1:
            raise ValueError(f"check_lines: line {number} out of order")
        if "\n" in text:
            raise ValueError(f"check_lines: line {number} holds a line end")
        texts[number] = text
        last = number
        if primed is not None:
            primed_at[number] = primed
    suppressions = Suppressions()
    reader = NotingReader(path, engine.config.max_line_bytes, suppressions)
    evaluator = Evaluator(lane, engine.severity_levels)
    found: dict[int, list[Finding]] = {}
    records: dict[int, list[RecordInfo]] = {}
    by_case = judges_cases(lane, cases)  # the editor adds each case's findings (casegroup.check_case_lines)
    source = NumberedLines([(number, text) for number, text, _ in lines])
    for turn in iter_turns(path, source, kind, reader):
        number = turn.record.line
        primed = primed_at.get(number)
        for joined in join_turns(lane, (turn,), cases, (primed,) if primed is not None else ()):
            done = evaluator.evaluate(joined, findings=not by_case)
            its = done.all_findings()
            if its:
                found.setdefault(number, []).extend(its)
            info = record_info(joined, done.verdicts)
            info.share_text(texts[number])  # the caller's line (the document's), not a second copy
            records.setdefault(number, []).append(info)
    for f in reader.findings:
        found.setdefault(f.location.line, []).append(f)
    return [LineCheck(sorted_findings(suppressions.filter(found.get(number, []))), records.get(number, []))
            for number, _, _ in lines]


class DocumentChecker:
    """`Engine.check_bytes` / `Engine.check_file`: one document's findings."""

    def __init__(self, engine: EngineServices) -> None:
        self.engine = engine

    def _lane(self, path: str, kind: str, lane_name: str | None, head: bytes,
              hint: str | None = None, first: dict[str, object] | None = None) -> Lane:
        if lane_name:
            return self.engine.lane(lane_name)
        lane = self.engine.detect_lane(path, kind, hint, first if first is not None else first_object(head))
        if lane is None:
            raise UsageError(f"{path}: cannot tell which lane this file belongs to (use --lane)")
        return lane

    def document(self, path: str, data: bytes, kind: str | None, lane_name: str | None,
                 cases: CaseIndex | None, siblings: bool) -> DocResult:
        sniffed, _whole = sniff(data)
        kind = kind or sniffed or "turns"
        if kind == "cases":
            return self.cases(path, data, lane_name, siblings)
        if kind == "report":
            return self.report(path, data, lane_name, cases)
        lane = self._lane(path, kind, lane_name, data)
        findings: list[Finding] = []
        records: list[RecordInfo] = []
        reader = NotingReader(path, self.engine.config.max_line_bytes, Suppressions())
        for found, info in turn_stream(self.engine, path, io.BytesIO(data), kind, lane, cases, True,
                                       reader=reader, case_groups=True):
            findings.extend(found)
            if info is not None:
                records.append(info)
        return DocResult(path, kind, lane.name, sorted_findings(findings), reader.stats, records)

    def cases(self, path: str, data: bytes, lane_name: str | None, siblings: bool) -> DocResult:
        lane = self._lane(path, "cases", lane_name, data)
        max_line = self.engine.config.max_line_bytes
        case_file = read_case_file(path, data, lane, max_line)
        findings = list(case_file.findings)
        if siblings:
            others = []
            for sib in sibling_case_files(path, lane.name):
                try:
                    others.append(read_case_file(str(sib), sib.read_bytes(), lane, max_line))
                except OSError:
                    continue
            # Canonical split order (dev, public, holdouts): the later twin is the one flagged,
            # whichever file is open.
            files = sorted([case_file, *others], key=split_rank)
            # Only findings that land in this document (the others are linted on their own).
            ours = [f for f in duplicate_findings(files) + leak_findings(files) if f.path == path]
            seen = {(f.code, f.location) for f in findings}
            findings.extend(f for f in ours if (f.code, f.location) not in seen)
        suppressions = Suppressions()
        suppressions.note_all(case_file.records)
        records = [RecordInfo(c.id, "case", c.record.whole(), c.record.location(lane.schema.id_field))
                   for c in case_file.cases]
        return DocResult(path, "cases", lane.name, sorted_findings(suppressions.filter(findings)),
                         case_file.stats, records)

    def report(self, path: str, data: bytes, lane_name: str | None, cases: CaseIndex | None) -> DocResult:
        transcript = read_report(path, data)
        first = transcript.entries[0].data if transcript.entries else None
        lane = self._lane(path, "report", lane_name, b"", transcript.lane_hint, first)
        evaluator = Evaluator(lane, self.engine.severity_levels, self.engine.reference_lane(lane.name))
        findings = list(transcript.findings)
        records: list[RecordInfo] = []
        for joined in join_report(lane, transcript, cases):
            done = evaluator.evaluate(joined)
            findings.extend(done.all_findings())
            records.append(record_info(joined, done.verdicts))
        suppressions = Suppressions()
        suppressions.note_all(e.record for e in transcript.entries)
        return DocResult(path, "report", lane.name, sorted_findings(suppressions.filter(findings)),
                         transcript.stats, records)

    def file(self, path: str, kind: str | None, lane_name: str | None, cases: CaseIndex | None,
             sink: Callable[[Finding], None], session: CaseSession | None = None) -> ReadStats:
        """A file from disk: turn and telemetry files streamed (memory does not grow with them),
        case files and reports read whole. Each finding goes to `sink`; the read counts are returned.
        With `session`, a case-driven lane's turns are grouped there, judged by `session.finish`."""
        try:
            with open_input(path) as fh:
                head = fh.read(HEAD_BYTES)
                fh.seek(0)
                # The records that parse decide the kind (never line 1 alone).
                detected = kind or sniff_stream(fh)
                if detected == "cases":  # streamed as well (casefile.py): memory does not grow with the file
                    return check_case_file(self.engine, lambda first: self._lane(path, "cases", lane_name, b"", None, first),
                                           path, fh, lane_name, sink)
                whole_document = detected in ("cases", "report")
                if not whole_document:
                    turn_kind = detected or "turns"
                    lane = self._lane(path, turn_kind, lane_name, head)
                    reader = NotingReader(path, self.engine.config.max_line_bytes, Suppressions())
                    groups = session.groups(lane) if session is not None else None
                    for found, _ in turn_stream(self.engine, path, fh, turn_kind, lane, cases, False, reader=reader,
                                                case_groups=True, groups=groups):
                        for f in found:
                            sink(f)
                    return reader.stats
        except OSError as exc:
            raise UsageError(f"{path}: cannot read: {exc.strerror}") from None
        result = self.document(path, self.engine.read_bytes(path), kind, lane_name, cases, True)
        for f in result.findings:
            sink(f)
        return result.stats


    def judges_cases_of(self, path: str, kind: str | None, lane_name: str | None, cases: CaseIndex | None) -> bool:
        """Whether `file` groups this file's turns by case (a turn or telemetry file of a case-driven
        lane, given its cases or with `without_case` checks). Unreadable or of no lane it can tell:
        False (its own check says why)."""
        try:
            with open_input(path) as fh:
                head = fh.read(HEAD_BYTES)
                fh.seek(0)
                detected = kind or sniff_stream(fh)
            if detected in ("cases", "report"):
                return False
            lane = self._lane(path, detected or "turns", lane_name, head)
            return judges_cases(lane, cases) or judges_alone(lane)
        except (OSError, UsageError):
            return False


