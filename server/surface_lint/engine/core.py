"""The engine's front door: check a document, score a lane. Front ends only call this."""

from __future__ import annotations

import io
import json
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from ..config import Config, ConfigError, resolve_severity
from ..findings import Finding, Fix, Location, Severity, sorted_findings
from ..lanes import Lane, LaneError, LaneSet, PredicateSpec, load_lanes
from ..predicates import Context, Subject, Verdict
from ..scoring import (
    evaluate,
    expected_names,
    metrics_from_tally,
    threshold_results,
)
from ..sources.base import JsonlReader, ReadStats, Record, check_finding
from ..sources.cases import (
    CaseFile,
    duplicate_findings,
    leak_findings,
    read_case_file,
    sibling_case_files,
)
from ..sources.paths import unique_paths
from ..sources.transcripts import ReportEntry, Transcript, iter_turns, read_report, sniff, sniff_stream
from ..suppress import apply_suppressions
from .details import build_details, is_primed, report_case_fields, report_subject
from .detect import first_object
from .results import SURFACE_PATH, CaseIndex, DocResult, LaneResult, RecordInfo, UsageError, unjoined
from .score import Scorer, chains, independent, score_in_processes


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
            for index, loc in enumerate(locations):
                out.append(
                    Finding(
                        location=loc,
                        code=spec.code,
                        rule=spec.name,
                        severity=severity,
                        message=f"{spec.name}: {verdict.span_message(index)}",  # each span its own match
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
        for path in unique_paths(paths):
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
            for item in chains(turns):
                case = cases.by_id.get(item.case_id) if cases else None
                case_fields = case.data if case else None
                verdicts = evaluate(lane, item.subject(case_fields), None, case_fields)
                probe = item.probe_record()
                findings.extend(unjoined(probe, item.case_id, cases, unknown))
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
                findings.extend(unjoined(turn.record, turn.case_id, cases, unknown))
                subject = Subject(turn.surface or "", turn.grounding, case_fields,
                                  primed=is_primed(case_fields, turn.case_id in primed))
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

    def _check_report(self, path: str, lane: Lane, transcript: Transcript, cases: CaseIndex | None) -> DocResult:
        findings = list(transcript.findings)
        records: list[RecordInfo] = []
        reference = self.reference_lane(lane.name) or lane
        unknown: set[str] = set()
        for entry in transcript.entries:
            case = cases.by_id.get(entry.case_id) if cases and entry.case_id else None
            findings.extend(unjoined(entry.record, entry.case_id, cases, unknown))
            fields = report_case_fields(lane, entry, case)
            subject = report_subject(lane, entry, fields)
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
        subject = report_subject(reference, entry, fields)
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
        case_paths, transcript_paths = unique_paths(case_paths), unique_paths(transcript_paths)
        lane = self.lane(lane_name) if lane_name else None
        index: CaseIndex | None = None
        if case_paths:
            lane, index = self.load_cases(case_paths, lane, texts)
        if lane is None:
            if not transcript_paths:
                raise UsageError("give --lane, --cases or --transcripts")
            path0 = transcript_paths[0]  # an empty buffer is a text too: never read from disk then
            first = texts[path0] if path0 in texts else self.read_bytes(path0)
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
            parts = score_in_processes(self, lane, case_paths, transcript_paths, texts, want_details,
                                        finding_limit, jobs, progress)
        absorb = parts is not None and independent(parts)
        # Outcomes absorbed from worker processes arrive as objects: no compact store then.
        scorer = Scorer(self, lane, index, want_details, finding_limit, compact=not absorb)
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


    def _read_transcript(self, scorer: Scorer, path: str,
                         texts: Mapping[str, bytes]) -> tuple[list[Finding], ReadStats]:
        """Feed one transcript file to the scorer; its reading findings and counts."""
        data_path = Path(path)
        given = texts.get(path)
        try:
            if given is not None:
                kind = sniff_stream(io.BytesIO(given))
            else:
                with data_path.open("rb") as fh:
                    kind = sniff_stream(fh)
        except OSError as exc:
            raise UsageError(f"{path}: cannot read: {exc.strerror}") from None
        # The records that parse decide (a compact one-line report is a report).
        if kind == "report":
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


def _split_rank(case_file: CaseFile) -> int:
    return {"dev": 0, "public": 1, "holdouts": 2}.get(case_file.split or "", 3)


def _cross_file(found: list[Finding], n_files: int) -> list[Finding]:
    """Duplicates across files only (each file's own were found when it was read)."""
    return [f for f in found if n_files > 1 and "this file" not in f.message]


def _id_loc(record: Record, key: str) -> Location | None:
    return record.location(key) if key in record.data else None

