"""The engine's front door: check a document or a line, score a lane. Front ends only call this."""

from __future__ import annotations

import io
import os
import shutil
from collections.abc import Callable, Collection, Mapping, Sequence
from typing import Any

from ..model.findings import Finding, Severity, sorted_findings
from ..rules.loader import Lane, LaneError, LaneSet, PredicateSpec, load_lanes
from ..sources.base import NumberedLines, ReadStats
from ..sources.paths import unique_paths
from ..sources.streams import open_input, read_input
from ..sources.transcripts import sniff
from .caseparts import Bucket, CasePart, finish_case_parts, score_case_part
from .casescore import score_casework
from .casework import Casework, load_casework
from .check import HEAD_BYTES, DocumentChecker, check_lines, turn_stream
from .config import Config, ConfigError, resolve_severity
from .detect import first_object
from .lanechoice import LaneChoice, choose_lane
from .partial import (
    BatchWriter,
    Overlap,
    Span,
    SpanState,
    TallyMerge,
    scratch_folder,
    split_file,
    tally_span,
)
from .pipeline import Evaluator
from .results import (
    CaseIndex,
    DocResult,
    LaneResult,
    LineCheck,
    RecordInfo,
    UsageError,
)
from .score import FileMapper, LaneScorer, Part, Scored, independent
from .views import ShownCases, reported_predicates


class Engine:
    def __init__(self, config: Config | None = None, profile: str | None = None) -> None:
        self.config = config or Config()
        self.profile = profile or self.config.profile
        self.lane_set: LaneSet = load_lanes(self.profile, self.config.lane_files)
        self._reference: LaneSet | None = None
        # `[severity]` keys (codes, names, aliases) -> predicate names: the one resolver in config.
        table = resolve_severity(self.config.severity, self.lane_set.lanes.values())
        self.severity_levels: dict[str, str] = table.levels
        self.severity_errors: list[ConfigError] = [self.config.severity_error(p) for p in table.problems]

    # --- lanes ---------------------------------------------------------------------------

    @property
    def lane_errors(self) -> list[LaneError]:
        return self.lane_set.errors

    def lane(self, name: str) -> Lane:
        lane = self.lane_set.get(name)
        if lane is None:
            known = ", ".join(sorted(self.lane_set.lanes))
            raise UsageError(f"unknown lane {name!r} (known: {known})")
        return lane

    def reference_lane(self, name: str) -> Lane | None:
        if self.profile == "reference":
            return self.lane_set.get(name)
        if self._reference is None:
            self._reference = load_lanes("reference", self.config.lane_files)
        return self._reference.get(name)

    def detect_lane(self, path: str, kind: str | None, hint: str | None = None,
                    first: Mapping[str, Any] | None = None) -> Lane | None:
        """From a report's `lane`, a path segment or file name, the record's shape, config."""
        choice = self.choose_lane(path, kind, hint, first)
        return self.lane_set.lanes[choice.lane] if choice is not None else None

    def choose_lane(self, path: str, kind: str | None, hint: str | None = None,
                    first: Mapping[str, Any] | None = None, strict: bool = False) -> LaneChoice | None:
        """`detect_lane` with the reason (lanechoice.py); `strict`: a path that disagrees with the fields is an error."""
        return choose_lane(self.lane_set.lanes, self.config.default_lane, path, kind, hint, first, strict)

    # --- findings of one evaluated subject (kept for callers; the pipeline's Evaluator does it) --

    def severity(self, lane: Lane, spec: PredicateSpec, case_fields: Mapping[str, Any] | None) -> Severity | None:
        """Expected -> error; informational (post-gloss) -> information; else config/default."""
        return Evaluator(lane, self.severity_levels).severity(spec, case_fields)

    # --- reading ---------------------------------------------------------------------------

    def read_bytes(self, path: str) -> bytes:
        try:
            return read_input(path)
        except OSError as exc:
            raise UsageError(f"{path}: cannot read: {exc.strerror}") from None

    def load_cases(self, paths: Sequence[str], lane: Lane | None = None,
                   texts: Mapping[str, bytes] | None = None,
                   memory_cases: int | None = None) -> tuple[Lane | None, CaseIndex]:
        """The case index of `paths`: each file streamed (from `texts` or disk); past
        `memory_cases` (default caseindex.MEMORY_CASES) cases it is kept on disk (caseindex.py), with the same findings."""
        index = CaseIndex(memory_cases)
        for path in unique_paths(paths):
            data = (texts or {}).get(path)
            try:
                with io.BytesIO(data) if data is not None else open_input(path) as fh:
                    first = first_object(fh.read(HEAD_BYTES)) if lane is None else None
                    if first is None and lane is None:  # no whole record in the head: as before, the whole file
                        fh.seek(0)
                        first = first_object(fh.read())
                    file_lane = lane or self.detect_lane(path, "cases", first=first)
                    if file_lane is None:
                        raise UsageError(f"{path}: cannot tell which lane this case file belongs to (use --lane)")
                    lane = lane or file_lane
                    fh.seek(0)
                    index.read(path, fh, file_lane, self.config.max_line_bytes)
            except OSError as exc:
                raise UsageError(f"{path}: cannot read: {exc.strerror}") from None
        index.finish()
        return lane, index

    # --- check: one document -------------------------------------------------------------

    def check_bytes(self, path: str, data: bytes, kind: str | None = None, lane_name: str | None = None,
                    cases: CaseIndex | None = None, siblings: bool = True) -> DocResult:
        """One document in memory (an editor buffer): its findings and what the editor keeps of
        each record. A record's `"surface_lint": {"disable": [...]}` drops its own findings."""
        return DocumentChecker(self).document(path, data, kind, lane_name, cases, siblings)

    def check_file(self, path: str, kind: str | None, lane_name: str | None, cases: CaseIndex | None,
                   sink: Callable[[Finding], None]) -> ReadStats:
        """One file from disk, streamed: each finding goes to `sink` as its record is read."""
        return DocumentChecker(self).file(path, kind, lane_name, cases, sink)

    def check_line(self, path: str, text: str, line: int, kind: str, lane_name: str,
                   cases: CaseIndex | None = None, primed: Collection[str] = ()) -> LineCheck:
        """One line of a turn or telemetry JSONL document, as `check_bytes` would see it there
        (the editor's re-checked lines). `text`: the line without its line end; `line`: its
        1-based number, its context (only line 1 is the file's start: a byte-order mark, a
        UTF-16 guess); `primed`: case ids with a priming turn earlier in the document. Findings
        the engine reports once per file and case id (SL015) and the file's CRLF count are the
        caller's to merge."""
        lane = self.lane(lane_name)
        findings: list[Finding] = []
        records: list[RecordInfo] = []
        for found, info in turn_stream(self, path, NumberedLines([(line, text)]), kind, lane, cases, True,
                                       primed=frozenset(primed)):
            findings.extend(found)
            if info is not None:
                records.append(info)
        return LineCheck(sorted_findings(findings), records)

    def check_lines(self, path: str, lines: Sequence[tuple[int, str, str | None]], kind: str, lane_name: str,
                    cases: CaseIndex | None = None) -> list[LineCheck]:
        """Many lines of one document, each as `check_line` gives it, in one read (an editor's
        first lint of a big file): (number, text without its line end, the case id primed before it)."""
        return check_lines(self, path, lines, kind, self.lane(lane_name), cases)

    # --- score: a lane ---------------------------------------------------------------------

    def score(
        self,
        lane_name: str | None,
        case_paths: Sequence[str],
        transcript_paths: Sequence[str],
        threshold_set: str | None = None,
        want_details: bool = True,
        finding_limit: int | None = None,
        texts: Mapping[str, bytes] | None = None,
        mapper: FileMapper | None = None,
        progress: Callable[[str], None] | None = None,
        row_findings: bool = True,
        light_rows: bool = False,
        status_rows: bool = False,
        shown: type[ShownCases] | None = None,
    ) -> LaneResult:
        """Score a lane from files; `texts` gives the bytes of any path not to be read from disk
        (an editor's unsaved buffers). With a `mapper` (cli.process_mapper over parallel.ordered_map), transcript files
        are scored in worker processes and merged in input order when no two share a case: the
        result is the one of a single process. `progress` is called with each transcript path
        once it is done. Case rows and findings are kept on disk: memory stays flat.
        `row_findings=False`: the case rows leave out their findings (`result.findings` has
        them all), for reports that do not list findings per case. `light_rows=True`: the case
        rows hold only what the JSON report reads (`result.case_rows`); `result.outcomes` is then
        a count that cannot be iterated (a case-driven lane, and the workers' rows, keep them whole).
        `status_rows=True`: each row holds the case's id, details, failed names and their
        severities but not its verdicts (`score.status_row`: what the JSON Lines report reads).
        `shown`: what a Markdown or HTML report counts and shows (views.MarkdownCases, HtmlCases):
        when the transcripts are read in this process without case files on a lane that is not
        case-driven, only the shown cases get a row and `result.shown` holds the count (else it
        is None and the rows are as without it)."""
        texts = texts or {}
        case_paths, transcript_paths = unique_paths(case_paths), unique_paths(transcript_paths)
        lane = self.lane(lane_name) if lane_name else None
        index: CaseIndex | None = None
        if case_paths:
            lane, index = self.load_cases(case_paths, lane, texts)
        if lane is None:
            if not transcript_paths:
                raise UsageError("give --lane, --cases or --transcripts")
            lane = self._transcript_lane(transcript_paths[0], texts)
        # One threshold model: every lane's sets (a [thresholds.*] table, a `thresholds` metric).
        set_name = self.threshold_set(lane, threshold_set)
        casework = load_casework(lane)
        if casework is not None:  # a case-driven lane: its captures grouped and judged case by case
            stats = ReadStats()
            if index is not None:
                stats.add(index.stats)
            if mapper is not None and hasattr(mapper, "stream") and not texts and index is not None and case_paths:
                return self._score_case_parts(lane, casework, index, case_paths, transcript_paths, set_name,
                                              want_details, finding_limit, row_findings, stats, mapper, progress)
            return score_casework(lane, casework, index, self.severity_levels, self.profile, case_paths,
                                  transcript_paths, texts, stats, want_details, finding_limit, row_findings,
                                  self.config.max_line_bytes, set_name, lambda: self.reference_lane(lane.name))
        stats = ReadStats()
        if index is not None:
            stats.add(index.stats)
        def new_scorer(old: LaneScorer | None = None) -> LaneScorer:
            """A scorer for this run's row kinds (a fresh fold after `old`, whose spools are closed)."""
            if old is not None:
                old.findings.close()
                old.rows.close()
            made = LaneScorer(self, lane, index, want_details, finding_limit)
            made.row_findings = row_findings
            made.light_rows = light_rows
            made.status_rows = status_rows
            return made

        scorer = new_scorer()
        if mapper is not None and hasattr(mapper, "stream") and not texts:
            # Spans scored in workers and merged here; else (one span, or spans that share a case
            # one reader must see whole) a fresh fold of everything in this process.
            if not self._score_spans(scorer, lane, case_paths, transcript_paths, mapper, progress):
                scorer = new_scorer(scorer)
                scorer.read(transcript_paths, texts, progress)
        else:
            parts = None
            if mapper is not None and len(transcript_paths) > 1:  # a mapper of whole files (results in memory)
                parts = mapper(score_file, [(p, want_details, finding_limit) for p in transcript_paths],
                               start_worker, (self.config, self.profile, lane.name, list(case_paths), dict(texts)),
                               (lambda item: progress(item[0])) if progress else None)
            if parts is not None and independent(parts):
                for part in parts:
                    scorer.absorb(part)
            else:  # one process, or files that share a case (priming, a repeat)
                if parts is None and shown is not None:
                    scorer.shown = shown(reported_predicates(lane))
                scorer.read(transcript_paths, texts, progress if parts is None else None)
                if scorer.shown_missed:  # the shown cases were not known in one pass: every row, from the start
                    scorer = new_scorer(scorer)
                    scorer.read(transcript_paths, texts)
        stats.add(scorer.stats)
        # The lane the inputs name themselves (a report's `lane`): `diff` compares it.
        declared = scorer.declared
        return scorer.result([*case_paths, *transcript_paths], set_name, stats,
                             index.findings if index is not None else (), declared,
                             transcript_paths[0] if transcript_paths else "")

    def threshold_set(self, lane: Lane, name: str | None = None) -> str | None:
        """The threshold set a run checks: `name`, else the configuration's, else the lane's default."""
        set_name = name or self.config.thresholds.get(lane.name) or lane.default_thresholds
        if set_name is not None and set_name not in lane.thresholds:
            known = ", ".join(sorted(lane.thresholds)) or "none"
            raise UsageError(f"lane {lane.name} has no threshold set {set_name!r} (known: {known})")
        return set_name

    def _score_spans(self, scorer: LaneScorer, lane: Lane, case_paths: Sequence[str],
                     transcript_paths: Sequence[str], mapper: Any,
                     progress: Callable[[str], None] | None) -> bool:
        """`--jobs N`: the transcripts as spans (whole files, large files cut at line
        boundaries) scored in the mapper's workers and merged here in order; False (nothing
        kept) when there is one span, or when two spans share a case one reader must see whole
        (`partial.Overlap`): the caller then reads everything in this process."""
        spans = plan_spans(transcript_paths, int(getattr(mapper, "jobs", 2)))
        if len(spans) < 2:
            return False
        calls = [(span, (k,), scorer.want_rows, scorer.finding_limit, scorer.row_findings)
                 for k, span in enumerate(spans)]
        last = {span.path: k for k, span in enumerate(spans)}
        # Forked workers find this engine and its lanes ready (spawned ones build them). Each
        # reads the case files itself: a case index past its memory bound is a SQLite database,
        # whose connection must not cross a fork.
        token = f"{os.getpid()}:{id(scorer)}"
        _WORKER.clear()
        _WORKER.update(engine=self, lane=lane, texts={}, token=token)
        folder = scratch_folder()
        results = mapper.stream(score_span_in_worker, calls, start_worker,
                                (self.config, self.profile, lane.name, list(case_paths), {}, token), folder)
        # The tallies' streams stay in `folder` until the result's reports are written.
        merge = TallyMerge(scorer, folder)
        try:
            for k, segment in enumerate(results):
                merge.add(segment)
                path = spans[k].path
                if last[path] == k:
                    merge.done(path)
                    if progress is not None:
                        progress(path)
        except Overlap:
            shutil.rmtree(folder, ignore_errors=True)
            return False
        finally:
            results.close()
            _WORKER.clear()
        return True

    def _score_case_parts(self, lane: Lane, casework: Casework, index: CaseIndex, case_paths: Sequence[str],
                          transcript_paths: Sequence[str], set_name: str | None, want_details: bool,
                          finding_limit: int | None, row_findings: bool, stats: ReadStats, mapper: Any,
                          progress: Callable[[str], None] | None) -> LaneResult:
        """`--jobs N` on a case-driven lane: N parts of its cases (engine/caseparts.py), each
        judged in a worker from every transcript, merged here in case-file order."""
        jobs = int(getattr(mapper, "jobs", 2))
        token = f"{os.getpid()}:{id(index)}"
        _WORKER.clear()
        _WORKER.update(engine=self, lane=lane, texts={}, token=token, index=None if index.on_disk else index)
        folder = scratch_folder()
        try:
            calls = [(Bucket(k, jobs, tuple(transcript_paths)),) for k in range(jobs)]
            results = mapper.stream(score_case_part_in_worker, calls,
                                    start_worker, (self.config, self.profile, lane.name, list(case_paths), {}, token),
                                    folder)
            try:
                parts = list(results)
            finally:
                results.close()
                _WORKER.clear()
            if progress is not None:
                for path in transcript_paths:
                    progress(path)
            # The parts' files are read while the result is made (its rows and findings are spooled).
            return finish_case_parts(parts, lane, casework, index, self.severity_levels, self.profile, case_paths,
                                     stats, want_details, finding_limit, row_findings, set_name)
        finally:
            shutil.rmtree(folder, ignore_errors=True)

    def _head(self, path: str, texts: Mapping[str, bytes]) -> bytes:
        given = texts.get(path)
        if given is not None:
            return given[:HEAD_BYTES]
        try:
            with open_input(path) as fh:
                return fh.read(HEAD_BYTES)
        except OSError as exc:
            raise UsageError(f"{path}: cannot read: {exc.strerror}") from None

    def _transcript_lane(self, path: str, texts: Mapping[str, bytes]) -> Lane:
        """The lane of a run given only transcripts: a report's `lane`, the path, the first record."""
        head = self._head(path, texts)
        kind, whole = sniff(head)
        if kind == "report" and whole is None:
            data = texts.get(path)
            kind, whole = sniff(data if data is not None else self.read_bytes(path))
        hint = whole.get("lane") if isinstance(whole, dict) else None
        lane = self.detect_lane(path, kind, hint if isinstance(hint, str) else None, first_object(head))
        if lane is None:
            raise UsageError(f"{path}: cannot tell which lane this run belongs to (use --lane)")
        return lane


# --- worker processes (started by the caller's mapper; the engine imports no pool) --------
# Here, beside the Engine each worker builds: score.py never imports the façade.

_WORKER: dict[str, Any] = {}  # per worker process: its engine, lane, case index and texts


def start_worker(config: Config, profile: str, lane_name: str, case_paths: Sequence[str],
                 texts: Mapping[str, bytes], token: str | None = None) -> None:
    forked = token is not None and _WORKER.get("token") == token  # from the process that set this run up
    if forked:
        engine, lane = _WORKER["engine"], _WORKER["lane"]
    else:
        engine = Engine(config, profile)
        lane = engine.lane(lane_name)
    shared = _WORKER.get("index") if forked else None  # in memory (an on-disk one's connection must not cross a fork)
    index = shared if shared is not None else engine.load_cases(case_paths, lane, texts)[1] if case_paths else None
    _WORKER.update(engine=engine, lane=lane, index=index, texts=texts)


def plan_spans(paths: Sequence[str], jobs: int) -> list[Span]:
    """The spans `--jobs` scores: each file whole, a large JSONL file cut in up to twice `jobs`
    ranges."""
    spans: list[Span] = []
    for path in paths:
        spans.extend(split_file(path, 2 * jobs))
    return spans


def score_span_in_worker(span: Span, key: tuple[int, ...], want_rows: bool, finding_limit: int | None,
                         row_findings: bool, folder: str) -> SpanState:
    """One span scored in a worker process and folded there (its tally, findings and rows
    streams in `folder`)."""
    return tally_span(_WORKER["engine"], _WORKER["lane"], _WORKER["index"], span, key, want_rows,
                      finding_limit, _WORKER["texts"], lambda: BatchWriter.in_folder(folder), row_findings)


def score_case_part_in_worker(bucket: Bucket, folder: str) -> CasePart:
    """A part of a case-driven lane's cases, judged in a worker process from every transcript."""
    engine: Engine = _WORKER["engine"]
    lane: Lane = _WORKER["lane"]
    casework = load_casework(lane)
    assert casework is not None
    return score_case_part(lane, casework, _WORKER["index"], engine.severity_levels, bucket.paths, _WORKER["texts"],
                           bucket.number, bucket.count, (bucket.number,), engine.config.max_line_bytes, folder)


def score_file(path: str, want_rows: bool, finding_limit: int | None) -> Part:
    """One file's scored records, in a worker process."""
    engine: Engine = _WORKER["engine"]
    # The first `finding_limit` failing cases of all files are among the first of each file.
    scorer = LaneScorer(engine, _WORKER["lane"], _WORKER["index"], want_rows, finding_limit)
    kept: list[Scored] = []
    scorer.on_scored = kept.append
    scorer.track_touched = True
    scorer.read([path], _WORKER["texts"])
    problems = [f for _, f in scorer.findings]
    scorer.findings.close()
    return Part(kept, problems, scorer.stats, set(scorer.unknown), scorer.touched, scorer.unscored, scorer.declared,
                scorer.reports_read)
