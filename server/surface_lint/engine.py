"""The engine's front door: check a document, score a lane. Front ends only call this."""

from __future__ import annotations

import io
import json
from array import array
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from .config import Config, ConfigError, resolve_severity
from .findings import Finding, Fix, Location, Severity, sorted_findings
from .lanes import EXPECTED, Lane, LaneError, LaneSet, PredicateSpec, load_lanes
from .predicates import PASS, Context, Subject, Verdict
from .scoring import (
    Outcome,
    ThresholdResult,
    evaluate,
    expected_names,
    lane_signals,
    metrics_from_tally,
    signal,
    signal_values,
    threshold_results,
)
from .sources.base import JsonlReader, ReadStats, Record, check_finding
from .sources.cases import (
    Case,
    CaseFile,
    duplicate_findings,
    leak_findings,
    read_case_file,
    sibling_case_files,
)
from .sources.transcripts import ReportEntry, Transcript, Turn, iter_turns, read_report, sniff
from .suppress import apply_suppressions

SURFACE_PATH = ("surface",)


class UsageError(Exception):
    """Bad arguments or unreadable input: exit code 2."""


@dataclass(slots=True)
class RecordInfo:
    """What the editor needs of one record: id, range, and (for surfaces) the verdicts."""

    id: str | None
    kind: str  # case | turn | report-case
    location: Location
    id_location: Location | None = None
    surface: Location | None = None
    verdicts: Mapping[str, Verdict] | None = None
    case_location: Location | None = None  # the joined case, for go-to-definition


@dataclass
class DocResult:
    path: str
    kind: str | None
    lane: str | None
    findings: list[Finding]
    stats: ReadStats
    records: list[RecordInfo] = field(default_factory=list)


@dataclass
class CaseIndex:
    """Case files of one lane, by id (the first of duplicates wins)."""

    files: list[CaseFile] = field(default_factory=list)
    by_id: dict[str, Case] = field(default_factory=dict)
    findings: list[Finding] = field(default_factory=list)
    stats: ReadStats = field(default_factory=ReadStats)

    def add(self, case_file: CaseFile) -> None:
        self.files.append(case_file)
        self.stats.add(case_file.stats)
        for case in case_file.cases:
            self.by_id.setdefault(case.id, case)

    def ordered(self) -> list[Case]:
        seen: set[str] = set()
        out = []
        for f in self.files:
            for c in f.cases:
                if c.id not in seen:
                    seen.add(c.id)
                    out.append(c)
        return out


@dataclass
class LaneResult:
    lane: str
    profile: str
    version: str
    threshold_set: str | None
    metrics: dict[str, Any]
    thresholds: list[ThresholdResult]
    passed: bool | None
    outcomes: list[Outcome]
    findings: list[Finding]  # input problems + per-case failures (positioned)
    missing_transcripts: list[str]
    unknown_cases: list[str]
    remainder: list[str]  # multi-sentence cases outside the three buckets
    stats: ReadStats
    sources: list[str]
    headline: str
    metric_aliases: dict[str, str]
    case_count: int = 0  # cases scored (also when `outcomes` is not kept: text output)
    failing_count: int = 0  # of those, cases with a failing predicate


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
        lanes = self.lane_set.lanes
        if hint and hint in lanes:
            return lanes[hint]
        p = Path(path)
        for part in reversed(p.parts[:-1]):
            if part in lanes:
                return lanes[part]
        for name in sorted(lanes, key=len, reverse=True):
            if p.name.startswith(name) or f"_{name}" in p.name or f"{name}_" in p.name:
                return lanes[name]
        if first is not None:
            for lane in lanes.values():
                required = [n for n, f in lane.schema.fields.items() if f.required and n != "id"]
                if kind == "cases" and required and all(n in first for n in required):
                    return lane
            if any(k in first for k in ("trace_hash_replay", "premises", "chain")) and "symbolic_logic" in lanes:
                if first.get("role") in ("premise", "probe") or "trace_hash_replay" in first or "premises" in first:
                    return lanes["symbolic_logic"]
        if self.config.default_lane and self.config.default_lane in lanes:
            return lanes[self.config.default_lane]
        return lanes.get("deterministic_fluency")

    # --- severities ----------------------------------------------------------------------

    def severity(self, lane: Lane, spec: PredicateSpec, case_fields: Mapping[str, Any] | None) -> Severity | None:
        """Expected -> error; informational (post-gloss) -> information; else config/default."""
        if case_fields:
            if spec.name in expected_names(lane, case_fields):
                return Severity.ERROR
            if lane.informational_field:
                listed = case_fields.get(lane.informational_field)
                if isinstance(listed, list) and any(
                    isinstance(n, str) and lane.predicate(n) is spec for n in listed
                ):
                    return Severity.INFORMATION
        override = self.severity_levels.get(spec.name)
        if override == "off":
            return None
        return Severity.parse(override or spec.default_severity)

    # --- findings of one evaluated subject ----------------------------------------------

    def predicate_findings(
        self,
        lane: Lane,
        verdicts: Mapping[str, Verdict],
        record: Record,
        case_fields: Mapping[str, Any] | None,
        case_id: str | None,
        targets: Mapping[str, Record] | None = None,
    ) -> list[Finding]:
        out: list[Finding] = []
        for spec in lane.predicates:
            verdict = verdicts.get(spec.name)
            if verdict is None or verdict.passed or not spec.report:
                continue
            if spec.applies_if and not (case_fields or {}).get(spec.applies_if):
                continue
            severity = self.severity(lane, spec, case_fields)
            if severity is None:
                continue
            if verdict.timed_out:
                out.append(check_finding("SL013", record.location(*SURFACE_PATH), verdict.message, case_id,
                                         record_index=record.index))
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
            for loc in locations:
                out.append(
                    Finding(
                        location=loc,
                        code=spec.code,
                        rule=spec.name,
                        severity=severity,
                        message=f"{spec.name}: {verdict.message}",
                        record_id=case_id,
                        record_index=record.index,
                        fixes=fixes,
                    )
                )
        return out

    # --- reading ---------------------------------------------------------------------------

    def read_bytes(self, path: str) -> bytes:
        try:
            return Path(path).read_bytes()
        except OSError as exc:
            raise UsageError(f"{path}: cannot read: {exc.strerror}") from None

    def load_cases(self, paths: Sequence[str], lane: Lane | None = None,
                   texts: Mapping[str, bytes] | None = None) -> tuple[Lane | None, CaseIndex]:
        index = CaseIndex()
        for path in paths:
            data = (texts or {}).get(path)
            if data is None:
                data = self.read_bytes(path)
            file_lane = lane or self.detect_lane(path, "cases", first=first_object(data))
            if file_lane is None:
                raise UsageError(f"{path}: cannot tell which lane this case file belongs to (use --lane)")
            lane = lane or file_lane
            index.add(read_case_file(path, data, file_lane, self.config.max_line_bytes))
        for case_file in index.files:
            index.findings.extend(case_file.findings)
        index.findings.extend(_cross_file(duplicate_findings(index.files), len(index.files)))
        index.findings.extend(leak_findings(index.files))
        return lane, index

    # --- check: one document -------------------------------------------------------------

    def check_bytes(
        self,
        path: str,
        data: bytes,
        kind: str | None = None,
        lane_name: str | None = None,
        cases: CaseIndex | None = None,
        siblings: bool = True,
    ) -> DocResult:
        result = self._check_document(path, data, kind, lane_name, cases, siblings)
        # A record's `"surface_lint": {"disable": [...]}` drops its findings of those rules.
        result.findings = apply_suppressions(result.findings, data, result.kind)
        return result

    def _check_document(
        self,
        path: str,
        data: bytes,
        kind: str | None,
        lane_name: str | None,
        cases: CaseIndex | None,
        siblings: bool,
    ) -> DocResult:
        sniffed, _whole = sniff(data)
        kind = kind or sniffed or "turns"
        hint_lane = self.lane(lane_name) if lane_name else None
        if kind == "cases":
            return self._check_cases(path, data, hint_lane, siblings)
        if kind == "report":
            transcript = read_report(path, data)
            lane = hint_lane or self.detect_lane(path, kind, transcript.lane_hint,
                                                 transcript.entries[0].data if transcript.entries else None)
            assert lane is not None
            return self._check_report(path, lane, transcript, cases)
        lane = hint_lane or self.detect_lane(path, kind, first=first_object(data))
        assert lane is not None
        return self._check_turns(path, data, kind, lane, cases)

    def _check_cases(self, path: str, data: bytes, lane: Lane | None, siblings: bool) -> DocResult:
        lane = lane or self.detect_lane(path, "cases", first=first_object(data))
        assert lane is not None
        case_file = read_case_file(path, data, lane, self.config.max_line_bytes)
        findings = list(case_file.findings)
        if siblings:
            others = []
            for sib in sibling_case_files(path, lane.name):
                try:
                    others.append(read_case_file(str(sib), sib.read_bytes(), lane, self.config.max_line_bytes))
                except OSError:
                    continue
            # Canonical split order (dev, public, holdouts): the later twin is the one flagged,
            # whichever file is open.
            files = sorted([case_file, *others], key=_split_rank)
            # Only findings that land in this document (the others are linted on their own).
            ours = [f for f in duplicate_findings(files) + leak_findings(files) if f.path == path]
            seen = {(f.code, f.location) for f in findings}
            findings.extend(f for f in ours if (f.code, f.location) not in seen)
        records = [
            RecordInfo(
                c.id, "case", c.record.whole(), c.record.location(lane.schema.id_field)
            )
            for c in case_file.cases
        ]
        return DocResult(path, "cases", lane.name, sorted_findings(findings), case_file.stats, records)

    def _check_turns(self, path: str, data: bytes, kind: str, lane: Lane, cases: CaseIndex | None) -> DocResult:
        reader = JsonlReader(path, self.config.max_line_bytes)
        findings: list[Finding] = []
        records: list[RecordInfo] = []
        turns = iter_turns(path, io.BytesIO(data), kind, reader)
        unknown: set[str] = set()
        if lane.unit == "chain":
            for item in _chains(turns):
                case = cases.by_id.get(item.case_id) if cases else None
                case_fields = case.data if case else None
                verdicts = evaluate(lane, item.subject(case_fields), None, case_fields)
                probe = item.probe_record()
                findings.extend(self._unjoined(probe, item.case_id, cases, unknown))
                findings.extend(self.predicate_findings(lane, verdicts, probe, case_fields, item.case_id,
                                                        {"proposal_count": probe}))
                records.append(RecordInfo(item.case_id, "turn", probe.whole(), _id_loc(probe, "case_id"),
                                          verdicts=verdicts,
                                          case_location=case.record.whole() if case else None))
        else:
            primed: set[str] = set()
            for turn in turns:
                if turn.role == "priming" and turn.case_id:
                    primed.add(turn.case_id)
                case = cases.by_id.get(turn.case_id) if cases and turn.case_id else None
                case_fields = case.data if case else None
                findings.extend(self._unjoined(turn.record, turn.case_id, cases, unknown))
                subject = Subject(turn.surface or "", turn.grounding, case_fields,
                                  primed=_is_primed(case_fields, turn.case_id in primed))
                verdicts = evaluate(lane, subject, None, case_fields)
                # Only the scored turn is held to the case's expectations.
                judged_fields = case_fields if turn.scored else None
                findings.extend(self.predicate_findings(lane, verdicts, turn.record, judged_fields, turn.case_id))
                records.append(RecordInfo(turn.case_id, "turn", turn.record.whole(),
                                          _id_loc(turn.record, "case_id"),
                                          turn.record.location(*SURFACE_PATH), verdicts,
                                          case.record.whole() if case else None))
        findings.extend(reader.findings)
        return DocResult(path, kind, lane.name, sorted_findings(findings), reader.stats, records)

    @staticmethod
    def _unjoined(record: Record, case_id: str | None, cases: CaseIndex | None, seen: set[str]) -> list[Finding]:
        """SL015 once per unknown case id, at its first record (only when cases were given)."""
        if cases is None or not case_id or case_id in cases.by_id or case_id in seen:
            return []
        seen.add(case_id)
        where = record.location("case_id") if "case_id" in record.data else (
            record.location("id") if "id" in record.data else record.whole())
        return [check_finding("SL015", where, f"case id `{case_id}` matches no case in the given case files",
                              case_id, record_index=record.index)]

    def _check_report(self, path: str, lane: Lane, transcript: Transcript, cases: CaseIndex | None) -> DocResult:
        findings = list(transcript.findings)
        records: list[RecordInfo] = []
        reference = self.reference_lane(lane.name) or lane
        unknown: set[str] = set()
        for entry in transcript.entries:
            case = cases.by_id.get(entry.case_id) if cases and entry.case_id else None
            findings.extend(self._unjoined(entry.record, entry.case_id, cases, unknown))
            fields = _report_case_fields(lane, entry, case)
            subject = _report_subject(lane, entry, fields)
            verdicts = evaluate(lane, subject, entry.data, fields)
            findings.extend(self.predicate_findings(lane, verdicts, entry.record, fields, entry.case_id))
            findings.extend(self._stored_mismatches(reference, entry, fields))
            surface_loc = entry.record.location("surface") if "surface" in entry.data else None
            records.append(RecordInfo(entry.case_id, "report-case", entry.record.whole(),
                                      _id_loc(entry.record, "case_id" if "case_id" in entry.data else "id"),
                                      surface_loc, verdicts, case.record.whole() if case else None))
        return DocResult(path, "report", lane.name, sorted_findings(findings), transcript.stats, records)

    def _stored_mismatches(self, reference: Lane, entry: ReportEntry, fields: Mapping[str, Any]) -> list[Finding]:
        """Stored per-case flags that do not follow from the entry's raw fields (reference profile)."""
        subject = _report_subject(reference, entry, fields)
        verdicts = evaluate(reference, subject, entry.data, fields)
        computed = build_details(reference, verdicts, subject, fields, entry.data, Context(subject, reference.analysis))
        out = []
        for key, source in reference.details.items():
            if not source.startswith(("signal.", "verdicts", "analysis.")) or key not in entry.data:
                continue
            stored, ours = entry.data[key], computed.get(key)
            pairs = ([((key, k), stored.get(k), v) for k, v in ours.items() if k in stored]
                     if isinstance(stored, dict) and isinstance(ours, dict) else [((key,), stored, ours)])
            for path, old, new in pairs:
                if old != new:
                    out.append(check_finding(
                        "SL011", entry.record.location(*path),
                        f"stored `{'.'.join(map(str, path))}` is {json.dumps(old)} but the raw fields give {json.dumps(new)}",
                        entry.case_id, record_index=entry.record.index))
        return out

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
        jobs: int = 1,
        progress: Callable[[str], None] | None = None,
    ) -> LaneResult:
        """Score a lane from files; `texts` gives the bytes of any path not to be read from disk
        (an editor's unsaved buffers). With `jobs` > 1, transcript files are read and scored in
        that many processes and merged in input order: the result is the one of a single process.
        `progress` is called with each transcript path once it is done."""
        texts = texts or {}
        lane = self.lane(lane_name) if lane_name else None
        index: CaseIndex | None = None
        if case_paths:
            lane, index = self.load_cases(case_paths, lane, texts)
        if lane is None:
            if not transcript_paths:
                raise UsageError("give --lane, --cases or --transcripts")
            first = texts.get(transcript_paths[0]) or self.read_bytes(transcript_paths[0])
            kind, whole = sniff(first)
            hint = whole.get("lane") if isinstance(whole, dict) else None
            lane = self.detect_lane(transcript_paths[0], kind, hint if isinstance(hint, str) else None,
                                    first_object(first))
            assert lane is not None
        set_name = threshold_set or self.config.thresholds.get(lane.name) or lane.default_thresholds
        if set_name is not None and set_name not in lane.thresholds:
            known = ", ".join(sorted(lane.thresholds)) or "none"
            raise UsageError(f"lane {lane.name} has no threshold set {set_name!r} (known: {known})")
        stats = ReadStats()
        findings: list[Finding] = []
        if index is not None:
            findings.extend(index.findings)
            stats.add(index.stats)
        parts = None
        if jobs > 1 and len(transcript_paths) > 1:
            parts = _score_in_processes(self, lane, case_paths, transcript_paths, texts, want_details,
                                        finding_limit, jobs, progress)
        absorb = parts is not None and _independent(parts)
        # Outcomes absorbed from worker processes arrive as objects: no compact store then.
        scorer = _Scorer(self, lane, index, want_details, finding_limit, compact=not absorb)
        if parts is not None and absorb:
            for part in parts:
                findings.extend(part.read_findings)
                stats.add(part.stats)
                scorer.absorb(part)
        else:  # one process, or files that share a case (priming, a split chain, a repeat)
            for path in transcript_paths:
                read_findings, read_stats = self._read_transcript(scorer, path, texts)
                findings.extend(read_findings)
                stats.add(read_stats)
                if progress is not None and parts is None:
                    progress(path)
        outcomes = scorer.finish()
        summary = scorer.summary(outcomes)
        findings.extend(scorer.findings)
        findings.extend(summary.findings)
        missing = scorer.missing()
        if index is not None:
            for case_id in missing:
                case = index.by_id[case_id]
                findings.append(check_finding(
                    "SL015", case.record.location(lane.schema.id_field),
                    f"case `{case_id}` has no scored turn in the transcripts; left out of the metrics",
                    case_id, record_index=case.record.index))
        metrics = metrics_from_tally(lane, summary.tally)
        thresholds = threshold_results(lane, metrics, set_name) if summary.case_count else []
        passed = all(t.passed for t in thresholds) if thresholds else None
        aliases = {a: m.name for m in lane.metrics for a in m.aliases}
        return LaneResult(
            lane=lane.name, profile=self.profile, version=lane.version, threshold_set=set_name,
            metrics=metrics, thresholds=thresholds, passed=passed, outcomes=outcomes,
            findings=sorted_findings(findings),
            missing_transcripts=missing, unknown_cases=sorted(scorer.unknown),
            remainder=summary.remainder, stats=stats, sources=[*case_paths, *transcript_paths],
            headline=lane.headline, metric_aliases=aliases,
            case_count=summary.case_count, failing_count=summary.failing_count,
        )


    def _read_transcript(self, scorer: _Scorer, path: str,
                         texts: Mapping[str, bytes]) -> tuple[list[Finding], ReadStats]:
        """Feed one transcript file to the scorer; its reading findings and counts."""
        data_path = Path(path)
        given = texts.get(path)
        try:
            if given is not None:
                head = given[:65536]
            else:
                with data_path.open("rb") as fh:
                    head = fh.read(65536)
        except OSError as exc:
            raise UsageError(f"{path}: cannot read: {exc.strerror}") from None
        kind, _ = sniff(head)
        # A report may be one compact line: its shape decides, not its line count.
        if kind == "report" or (kind is None and not _looks_jsonl(head)):
            transcript = read_report(path, given if given is not None else self.read_bytes(path))
            scorer.add_report(transcript)
            return list(transcript.findings), transcript.stats
        if kind == "cases":
            raise UsageError(f"{path}: this is a case file; pass it with --cases")
        reader = JsonlReader(path, self.config.max_line_bytes)
        with io.BytesIO(given) if given is not None else data_path.open("rb") as fh:
            scorer.add_turns(iter_turns(path, fh, kind or "turns", reader))
        return reader.findings, reader.stats


def _ending_fix(spec: PredicateSpec, verdict: Verdict, where: Location) -> tuple[Fix, ...]:
    """`complete_punctuation`-style findings: insert the first ending after the last character."""
    endings = spec.params.get("endings") or ()
    if not endings or not verdict.spans or verdict.spans[-1][1] <= verdict.spans[-1][0]:
        return ()
    at = Location(where.path, where.end_line, where.end_column, where.end_line, where.end_column)
    return (Fix(f"Add terminal punctuation `{endings[0]}`", at, str(endings[0])),)


def _looks_jsonl(head: bytes) -> bool:
    first = head.lstrip(b"\xef\xbb\xbf").split(b"\n", 1)[0].strip()
    if not first.startswith(b"{"):
        return False
    try:
        json.loads(first)
    except (ValueError, RecursionError):
        return False
    return True


def first_object(data: bytes) -> dict[str, Any] | None:
    """The first JSON object of a JSONL text (its first 64 KiB), for guessing shape and lane."""
    for line in data[:65536].lstrip(b"\xef\xbb\xbf").split(b"\n"):
        if line.strip():
            try:
                obj = json.loads(line)
            except (ValueError, RecursionError):
                return None
            return obj if isinstance(obj, dict) else None
    return None


def _split_rank(case_file: CaseFile) -> int:
    return {"dev": 0, "public": 1, "holdouts": 2}.get(case_file.split or "", 3)


def _cross_file(found: list[Finding], n_files: int) -> list[Finding]:
    """Duplicates across files only (each file's own were found when it was read)."""
    return [f for f in found if n_files > 1 and "this file" not in f.message]


def _id_loc(record: Record, key: str) -> Location | None:
    return record.location(key) if key in record.data else None


def _is_primed(case_fields: Mapping[str, Any] | None, transcript_primed: bool) -> bool:
    if case_fields is not None and "priming_prompts" in case_fields:
        prompts = case_fields.get("priming_prompts") or ()
        return any(isinstance(p, str) and p.strip() for p in prompts)
    return transcript_primed


def _report_case_fields(lane: Lane, entry: ReportEntry, case: Case | None) -> dict[str, Any]:
    """The case as far as it is known: the case file's fields, else those the report embeds."""
    if case is not None:
        return dict(case.data)
    fields = {k: v for k, v in entry.data.items() if k in lane.schema.fields}
    if entry.case_id is not None:
        fields[lane.schema.id_field] = entry.case_id
    return fields


def _report_subject(lane: Lane, entry: ReportEntry, fields: Mapping[str, Any]) -> Subject:
    d = entry.data
    surface: str = d["surface"] if isinstance(d.get("surface"), str) else ""
    grounding = d.get("grounding_source") if isinstance(d.get("grounding_source"), str) else "none"
    primed = _is_primed(fields if "priming_prompts" in fields else None, d.get("primed") is True)
    vh = d.get("vault_hits") if isinstance(d.get("vault_hits"), int) else None
    pc = d.get("proposal_count") if isinstance(d.get("proposal_count"), int) else None
    # Reports store no replay vault_hits / proposal count: the replay check compares hashes only.
    return Subject(
        surface=surface, grounding=grounding or "none", case=fields, primed=primed,
        vault_hits=vh, trace_hash=d.get("trace_hash") if isinstance(d.get("trace_hash"), str) else None,
        proposal_count=pc, vault_hits_replay=vh,
        trace_hash_replay=d.get("trace_hash_replay") if isinstance(d.get("trace_hash_replay"), str) else None,
        proposal_count_replay=pc,
    )


def build_details(
    lane: Lane,
    verdicts: Mapping[str, Verdict],
    subject: Subject,
    case_fields: Mapping[str, Any] | None,
    turn: Mapping[str, Any] | None,
    ctx: Context,
) -> dict[str, Any]:
    """One case's details, field for field as the runner writes them (from the lane's [details])."""
    out: dict[str, Any] = {}
    fields = case_fields or {}
    for key, source in lane.details.items():
        expr, _, default_text = source.partition("|")
        default = json.loads(default_text) if default_text else None
        kind, _, name = expr.partition(".")
        value: Any
        if kind == "case":
            value = fields.get(name, default)
            if name == lane.schema.id_field and value is None:
                value = default if default is not None else ""
            if isinstance(default, bool):
                value = bool(value)
            elif isinstance(default, int) and not isinstance(default, bool):
                try:
                    value = int(value)
                except (TypeError, ValueError):
                    value = default
        elif kind == "turn":
            if name == "prompt":
                value = fields.get("prompt", (turn or {}).get("prompt"))
            elif name == "surface":
                value = subject.surface
            else:
                value = subject.grounding
        elif kind == "chain":
            value = getattr(subject, name, None)
            if name in ("vault_hits", "proposal_count") and value is None:
                value = 0
            if name.startswith("trace_hash") and value is None:
                value = ""
        elif kind == "signal":
            value = all(signal(n, lane, verdicts, case_fields) for n in name.split("&"))
        elif kind == "analysis":
            value = len(ctx.analysis.sentences) if name == "sentence_count" else None
        else:  # verdicts
            value = {spec.name: verdicts[spec.name].passed for spec in lane.predicates
                     if spec.report and spec.name in verdicts}
        out[key] = value
    return out


@dataclass
class _Chain:
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


def _chains(turns: Iterable[Turn]) -> Iterator[_Chain]:
    chains: dict[str, _Chain] = {}
    for turn in turns:
        if not turn.case_id:
            continue
        chain = chains.get(turn.case_id)
        if chain is None:
            chain = chains[turn.case_id] = _Chain(turn.case_id, first=turn)
        if turn.role == "premise" and turn.proposal:
            chain.proposals[turn.chain] = chain.proposals.get(turn.chain, 0) + 1
        if turn.scored or turn.role == "probe":
            chain.probes[turn.chain] = turn
    yield from chains.values()


class _Scorer:
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
        self.chains: dict[str, _Chain] = {}
        # Every recorded outcome in order, replaced ones too: only a worker's scorer keeps them.
        self.keep_events = keep_events
        self.events: list[Outcome] = []
        # Text output of a transcript-only run keeps no Outcome per case: a few bytes a case.
        use_compact = compact and not want_details and index is None and not keep_events
        self.compact = _CompactOutcomes(lane) if use_compact else None

    def _case(self, case_id: str | None, record: Record | None = None) -> tuple[bool, Case | None]:
        if self.index is None:
            return True, None
        case = self.index.by_id.get(case_id) if case_id else None
        if case is None:
            if case_id and case_id not in self.unknown:
                self.unknown.add(case_id)
                if record is not None:
                    self.findings.extend(Engine._unjoined(record, case_id, self.index, set()))
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
            self.findings.append(_second_record(case_id, record.whole(), record.index))
        outcome = Outcome(case_id, signals, subject.grounding, details, failed, tuple(findings),
                          dict(verdicts) if self.want_details else None)
        self.outcomes[case_id] = outcome
        if self.keep_events:
            self.events.append(outcome)

    def absorb(self, part: _Part) -> None:
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
                    chain = self.chains[turn.case_id] = _Chain(turn.case_id, first=turn)
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
                              primed=_is_primed(fields, turn.case_id in self.primed))
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
            fields = _report_case_fields(self.lane, entry, case)
            subject = _report_subject(self.lane, entry, fields)
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

    def summary(self, outcomes: Sequence[Outcome]) -> _Summary:
        """What the metrics and text output need of the scored cases."""
        if self.compact is not None:
            return self.compact.summary()
        names = lane_signals(self.lane)
        unbucketed = _unbucketed(self.lane, names)
        return _Summary(
            tally=Counter(o.signals for o in outcomes),
            case_count=len(outcomes),
            failing_count=sum(1 for o in outcomes if o.failed),
            remainder=[o.case_id for o in outcomes if unbucketed(o.signals)],
            findings=[f for o in outcomes for f in o.findings],
        )

    def missing(self) -> list[str]:
        if self.index is None:
            return []
        return [c.id for c in self.index.ordered() if c.id not in self.outcomes]


def _second_record(case_id: str, where: Location, index: int | None) -> Finding:
    return check_finding("SL005", where, f"a second scored record for case `{case_id}` replaces the first",
                         case_id, severity=Severity.WARNING, record_index=index)


def _unbucketed(lane: Lane, names: tuple[str, ...]) -> Callable[[tuple[bool, ...]], bool]:
    """Whether a signal tuple falls outside the lane's buckets (its `unbucketed_*` metric)."""
    spec = next((m for m in lane.metrics if m.name.startswith("unbucketed_")), None)
    if spec is None:
        return lambda signals: False
    idx = {n: i for i, n in enumerate(names)}
    checks = [(idx[s.lstrip("!")], s.startswith("!")) for s in spec.passing]
    return lambda signals: all(signals[i] != negate for i, negate in checks)


@dataclass
class _Summary:
    tally: Counter[tuple[bool, ...]]
    case_count: int
    failing_count: int
    remainder: list[str]
    findings: list[Finding]


class _CompactOutcomes:
    """Scored cases in flat arrays: 18 bytes a case and a fixed 8 MiB filter, no object per case.

    The last scored record of a case wins, as with Outcome objects, and each later record of
    an id already seen is an SL005 warning at that record. A case is known by two 64-bit hashes
    (of its id and of the id reversed; only compared within this run, so the hash seed cannot
    change a result); a Bloom filter sends the (rare) ids that may repeat to an exact check,
    so only those keep their id and position."""

    _FILTER_MASK = (1 << 26) - 1

    def __init__(self, lane: Lane) -> None:
        self.names = lane_signals(lane)
        self.unbucketed = _unbucketed(lane, self.names)
        self.keys: dict[tuple[tuple[bool, ...], bool], int] = {}
        self.key_list: list[tuple[tuple[bool, ...], bool]] = []
        self.key_unbucketed: list[bool] = []
        self.high = array("q")
        self.low = array("q")
        self.key = array("H")
        self.filter = bytearray((self._FILTER_MASK + 1) // 8)
        # Positions that may repeat an earlier id: position -> (case id, where it is).
        self.suspects: dict[int, tuple[str, Location, int | None]] = {}
        self.suspect_digests: set[tuple[int, int]] = set()
        self.named: dict[int, str] = {}  # ids kept for the unbucketed remainder
        self.findings: dict[int, tuple[Finding, ...]] = {}

    def add(self, case_id: str, signals: tuple[bool, ...], failed: tuple[str, ...], record: Record,
            findings: tuple[Finding, ...]) -> None:
        k = (signals, bool(failed))
        key = self.keys.get(k)
        if key is None:
            key = self.keys[k] = len(self.key_list)
            self.key_list.append(k)
            self.key_unbucketed.append(self.unbucketed(signals))
        high, low = hash(case_id), hash(case_id[::-1])
        position = len(self.key)
        self.high.append(high)
        self.low.append(low)
        self.key.append(key)
        bit1, bit2 = high & self._FILTER_MASK, low & self._FILTER_MASK
        i1, m1, i2, m2 = bit1 >> 3, 1 << (bit1 & 7), bit2 >> 3, 1 << (bit2 & 7)
        f = self.filter
        if f[i1] & m1 and f[i2] & m2:
            self.suspects[position] = (case_id, _whole_record(record), record.index)
            self.suspect_digests.add((high, low))
        else:
            f[i1] |= m1
            f[i2] |= m2
        if self.key_unbucketed[key]:
            self.named[position] = case_id
        if findings:  # kept only if this record stays its case's scored one (see summary)
            self.findings[position] = findings

    def summary(self) -> _Summary:
        # Exact check of the suspects: every position whose digest a suspect has.
        groups: dict[tuple[int, int], list[int]] = {}
        if self.suspect_digests:
            for position, pair in enumerate(zip(self.high, self.low, strict=True)):
                if pair in self.suspect_digests:
                    groups.setdefault(pair, []).append(position)
        replaced: set[int] = set()
        duplicates: list[Finding] = []
        for positions in groups.values():
            replaced.update(positions[:-1])
            for position in positions[1:]:
                case_id, where, index = self.suspects[position]
                duplicates.append(_second_record(case_id, where, index))
        tally: Counter[tuple[bool, ...]] = Counter()
        failing = 0
        for key, count in Counter(self.key).items():
            signals, failed = self.key_list[key]
            tally[signals] += count
            failing += count if failed else 0
        for position in replaced:
            signals, failed = self.key_list[self.key[position]]
            tally[signals] -= 1
            failing -= 1 if failed else 0
        tally = +tally  # drop zero counts
        cases = len(self.key) - len(replaced)
        remainder = [case_id for p, case_id in sorted(self.named.items()) if p not in replaced]
        kept = [f for p in sorted(self.findings) if p not in replaced for f in self.findings[p]]
        return _Summary(tally, cases, failing, remainder, kept + duplicates)


def _whole_record(record: Record) -> Location:
    """The record's whole range; for a JSONL line, without asking its locator to parse it."""
    if record.prefix:
        return record.whole()
    text = record.text
    lead = len(text) - len(text.lstrip())
    end = max(lead, len(text.rstrip()))
    return Location(record.path, record.line, lead + 1, record.line, end + 1)


@dataclass
class _Part:
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
    engine = Engine(config, profile)
    lane = engine.lane(lane_name)
    index = engine.load_cases(case_paths, lane, texts)[1] if case_paths else None
    _WORKER.update(engine=engine, lane=lane, index=index, texts=texts)


def _score_file(path: str, want_details: bool, finding_limit: int | None) -> _Part:
    engine: Engine = _WORKER["engine"]
    # The first `finding_limit` failing cases of all files are among the first of each file.
    scorer = _Scorer(engine, _WORKER["lane"], _WORKER["index"], want_details, finding_limit, keep_events=True)
    read_findings, stats = engine._read_transcript(scorer, path, _WORKER["texts"])
    scorer.finish()  # a chain lane scores its chains here
    return _Part(scorer.events, scorer.findings, read_findings, stats, scorer.unknown, scorer.touched())


def _score_in_processes(engine: Engine, lane: Lane, case_paths: Sequence[str], paths: Sequence[str],
                        texts: Mapping[str, bytes], want_details: bool, finding_limit: int | None,
                        jobs: int, progress: Callable[[str], None] | None) -> list[_Part]:
    from .parallel import ordered_map

    return ordered_map(_score_file, [(p, want_details, finding_limit) for p in paths], jobs,
                       _start_worker, (engine.config, engine.profile, lane.name, list(case_paths), dict(texts)),
                       on_done=(lambda item: progress(item[0])) if progress else None)


def _independent(parts: Sequence[_Part]) -> bool:
    """Whether no two files touch the same case: only then is merging them exact."""
    seen: set[str] = set()
    for part in parts:
        if seen & part.touched:
            return False
        seen |= part.touched
    return True


__all__ = ["EXPECTED", "CaseIndex", "DocResult", "Engine", "LaneResult", "RecordInfo", "UsageError"]
