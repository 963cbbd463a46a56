"""The library API: lanes, findings, partial lane scores that merge exactly, reports.

    from surface_lint import api

    linter = api.Linter()                                  # the shipped lanes (or lane_files=[...])
    findings = linter.check([{"case_id": "c1", "surface": "A lamp gives ... light."}])
    part = linter.score(records, lane="deterministic_fluency", key=0)
    whole = part.merge(other)                              # associative; any order
    result = linter.finish(whole)                          # the LaneResult every reporter renders
    print(linter.render(result, "json"))

Everything here is covered by the project's semver promise (docs/api.md); anything imported from
elsewhere in the package is not. A `Linter` and a `PartialScore` pickle (a Dask, Spark or Ray
task sends them to workers and back); a `PartialScore` holds its records as pickled batches,
read a batch at a time when merged, and `finish` folds them in key order, as one process
reading the parts in that order would: the same bytes in every format.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, cast

from .engine import Engine, LaneResult, UsageError
from .engine.caseparts import CasePart, finish_case_parts, score_case_part
from .engine.casescore import all_reports
from .engine.casework import load_casework
from .engine.config import Config, find_config, load_config
from .engine.lanechoice import flag_choice
from .engine.partial import (
    BatchWriter,
    Overlap,
    Span,
    SpanState,
    TallyMerge,
    split_file,
    tally_span,
)
from .engine.results import CaseIndex
from .engine.score import LaneScorer
from .model.findings import Finding, Location, Severity
from .reporters import LANE_FORMATS
from .reporters.options import lane_options
from .rules.loader import Lane
from .sources.base import ReadStats
from .sources.paths import unique_paths

__all__ = ["Finding", "LaneResult", "Linter", "Location", "PartialScore", "ScoreOptions", "Severity", "Span",
           "UsageError"]

@dataclass(frozen=True)
class ScoreOptions:
    """What a partial score keeps, by the report it is for (as the CLI decides it):
    `details` the per-case rows (every format but text, SARIF and GitHub annotations),
    `finding_limit` the failing cases that keep their positions (text: `--show`, 20),
    `row_findings` each row's findings (JUnit and HTML)."""

    details: bool = True
    finding_limit: int | None = None
    row_findings: bool = False

    @classmethod
    def for_format(cls, fmt: str, show: int = 20) -> ScoreOptions:
        if fmt not in LANE_FORMATS:
            raise UsageError(f"unknown output format {fmt!r} (known: {', '.join(LANE_FORMATS)})")
        return cls(details=fmt not in ("text", "sarif", "github"), finding_limit=show if fmt == "text" else None,
                   row_findings=fmt in ("junit", "html"))


@dataclass(frozen=True)
class PartialScore:
    """Part of a lane run: the scored records of some spans of its input, mergeable exactly.

    `merge` is associative and commutative: the parts are kept in `key` order, whatever order
    they are merged in, so `finish` gives the same result (case order, float sums, which
    failing cases keep their positions) as one process reading the parts in key order. The
    object is small (counts per part); the records travel as pickled batches, about the size of
    the rows the reports list (`nbytes`)."""

    lane: str
    profile: str
    cases: tuple[str, ...]
    options: ScoreOptions
    segments: tuple[SpanState | CasePart, ...] = ()

    def merge(self, other: PartialScore) -> PartialScore:
        """Both parts as one (neither is changed). Raises ValueError for parts of different
        runs (lane, profile, cases, options) or two parts with the same key."""
        mine = (self.lane, self.profile, self.cases, self.options)
        theirs = (other.lane, other.profile, other.cases, other.options)
        if mine != theirs:
            raise ValueError(f"cannot merge parts of different runs: {mine} and {theirs}")
        segments = sorted([*self.segments, *other.segments], key=lambda s: s.key)
        for a, b in itertools.pairwise(segments):
            if a.key == b.key:
                raise ValueError(f"two parts have the key {a.key}: give each part its own key")
        return replace(self, segments=tuple(segments))

    @property
    def keys(self) -> tuple[tuple[int, ...], ...]:
        return tuple(s.key for s in self.segments)

    @property
    def records(self) -> int:
        """Lines read in every part (records, errors, blank and skipped lines)."""
        return sum(s.stats.lines for s in self.segments)

    @property
    def nbytes(self) -> int:
        """Bytes of pickled batches the parts carry."""
        return sum(s.nbytes for s in self.segments)


def _key(key: int | Sequence[int]) -> tuple[int, ...]:
    return (key,) if isinstance(key, int) else tuple(int(k) for k in key)


def jsonl(records: Iterable[Mapping[str, Any]] | bytes) -> bytes:
    """Records as the JSON Lines bytes positions refer to: the n-th record on line n."""
    if isinstance(records, (bytes, bytearray, memoryview)):
        return bytes(records)
    return b"".join(json.dumps(dict(r), ensure_ascii=False).encode("utf-8", "surrogatepass") + b"\n"
                    for r in records)


class Linter:
    """Lanes loaded once (shipped, plus `lane_files`), with a profile and a configuration.

    `config` is a `pyproject.toml` or `surface-lint.toml` path, a folder to discover one from
    (as the CLI does), or None for the defaults. Picklable: what is sent is the configuration;
    a worker loads the lanes again on first use."""

    def __init__(self, profile: str | None = None, lane_files: Sequence[str | Path] = (),
                 config: str | Path | None = None) -> None:
        base = Config()
        if config is not None:
            where = Path(config)
            found = find_config(where) if where.is_dir() else where
            if found is not None:
                base = load_config(found)
        if lane_files:
            base = replace(base, lane_files=[*base.lane_files, *(Path(p) for p in lane_files)])
        self._config = base
        self._profile = profile
        self._engine: Engine | None = None
        self._indexes: dict[tuple[str, tuple[str, ...]], CaseIndex] = {}

    def __getstate__(self) -> dict[str, Any]:
        return {"config": self._config, "profile": self._profile}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self._config, self._profile = state["config"], state["profile"]
        self._engine = None
        self._indexes = {}

    @property
    def engine(self) -> Engine:
        if self._engine is None:
            self._engine = Engine(self._config, self._profile)
            if self._engine.lane_errors:
                raise UsageError(str(self._engine.lane_errors[0]))
        return self._engine

    @property
    def profile(self) -> str:
        return self.engine.profile

    @property
    def lanes(self) -> tuple[str, ...]:
        """The names of the lanes loaded, sorted."""
        return tuple(sorted(self.engine.lane_set.lanes))

    def lane(self, name: str) -> Lane:
        """A lane by name (UsageError naming the known ones)."""
        return self.engine.lane(name)

    def _index(self, lane: Lane, cases: Sequence[str | Path]) -> CaseIndex | None:
        if not cases:
            return None
        key = (lane.name, tuple(str(c) for c in cases))
        if key not in self._indexes:
            self._indexes[key] = self.engine.load_cases(list(key[1]), lane)[1]
        return self._indexes[key]

    # --- findings ------------------------------------------------------------------------

    def check(self, records: Iterable[Mapping[str, Any]] | bytes, lane: str | None = None, kind: str = "turns",
              cases: Sequence[str | Path] = (), path: str = "<records>") -> list[Finding]:
        """The findings of records (dicts, or JSON Lines bytes), sorted, each at its
        `path:line:column` (a dict's line is its place in `records`, counted from 1).
        `kind`: turns, telemetry or cases."""
        lane_obj = self.lane(lane) if lane else None
        index = self._index(lane_obj, cases) if lane_obj is not None else None
        return self.engine.check_bytes(path, jsonl(records), kind, lane, index).findings

    def check_file(self, path: str | Path, lane: str | None = None, cases: Sequence[str | Path] = ()) -> list[Finding]:
        """The findings of one file (its kind detected), sorted."""
        lane_obj = self.lane(lane) if lane else None
        index = self._index(lane_obj, cases) if lane_obj is not None else None
        found: list[Finding] = []
        self.engine.check_file(str(path), None, lane, index, found.append)
        return sorted(found, key=Finding.sort_key)

    # --- partial scores --------------------------------------------------------------------

    def _empty(self, lane: str, cases: Sequence[str | Path], options: ScoreOptions | None) -> PartialScore:
        self.lane(lane)
        return PartialScore(lane, self.profile, tuple(str(c) for c in cases), options or ScoreOptions())

    def _spans(self, lane: str, cases: Sequence[str | Path], options: ScoreOptions | None) -> PartialScore:
        if load_casework(self.lane(lane)) is not None:
            raise UsageError(f"lane {lane} is case-driven: a case is judged from all its records, wherever they "
                             "are; score it in parts of its cases with Linter.score_cases")
        return self._empty(lane, cases, options)

    def empty(self, lane: str, cases: Sequence[str | Path] = (), options: ScoreOptions | None = None) -> PartialScore:
        """A part with nothing in it (the identity of `merge`: a fold's start)."""
        return self._empty(lane, cases, options)

    def score_cases(self, transcripts: Sequence[str | Path], lane: str, part: int = 0, parts: int = 1,
                    cases: Sequence[str | Path] = (), options: ScoreOptions | None = None) -> PartialScore:
        """A case-driven lane's part `part` of `parts`: every transcript read, and the cases
        whose place in the case files is `part` modulo `parts` judged, each from all its
        records. `finish` needs the parts 0 to `parts - 1` of the same transcripts, each once."""
        lane_obj = self.lane(lane)
        casework = load_casework(lane_obj)
        if casework is None:
            raise UsageError(f"lane {lane} is not case-driven: score its transcripts (or spans of them) "
                             "with Linter.score_file")
        index = self._index(lane_obj, cases)
        paths = unique_paths([str(t) for t in transcripts])
        if index is None and not all_reports(paths, {}):
            raise UsageError(f"lane {lane} scores captures joined with their cases: give cases "
                             "(or only lane reports, which carry their cases' records)")
        engine = self.engine
        found = score_case_part(lane_obj, casework, index, engine.severity_levels, paths, {}, part, parts, (part,),
                                engine.config.max_line_bytes)
        return replace(self._empty(lane, cases, options), segments=(found,))

    def score(self, records: Iterable[Mapping[str, Any]] | bytes, lane: str, key: int | Sequence[int] = 0,
              cases: Sequence[str | Path] = (), options: ScoreOptions | None = None,
              path: str = "<records>", line: int = 1) -> PartialScore:
        """Records (dicts, or JSON Lines bytes: turns or telemetry) scored as one part. `key`
        places the part among the others (the order one process would read them in); `path`
        and `line` say where its first record is, for positions (a range of a file read
        elsewhere: its path and first line number)."""
        part = self._spans(lane, cases, options)
        data = jsonl(records)
        span = Span(path) if line == 1 else Span(path, 0, len(data), line)
        return self._scored(part, span, _key(key), {path: data})

    def score_file(self, span: str | Path | Span, lane: str, key: int | Sequence[int] = 0,
                   cases: Sequence[str | Path] = (), options: ScoreOptions | None = None) -> PartialScore:
        """A transcript file, or a `Span` of its lines (`split`), scored as one part."""
        part = self._spans(lane, cases, options)
        return self._scored(part, span if isinstance(span, Span) else Span(str(span)), _key(key), {})

    def _scored(self, part: PartialScore, span: Span, key: tuple[int, ...], texts: Mapping[str, bytes]) -> PartialScore:
        lane = self.lane(part.lane)
        o = part.options
        index = self._index(lane, part.cases)
        # Folded here: a tally of 18 bytes or so a record, the findings and rows reports list.
        segment = tally_span(self.engine, lane, index, span, key, o.details, o.finding_limit, texts,
                             BatchWriter.packed, o.row_findings)
        return replace(part, segments=(segment,))

    @staticmethod
    def split(path: str | Path, parts: int, min_bytes: int = 1 << 20) -> list[Span]:
        """A JSON Lines file cut into up to `parts` spans of whole lines (each at least
        `min_bytes`), where the case id changes; the whole file as one span otherwise."""
        return split_file(str(path), parts, min_bytes)

    # --- results -----------------------------------------------------------------------------

    def finish(self, part: PartialScore, threshold_set: str | None = None) -> LaneResult:
        """The lane result of the merged parts: metrics, thresholds, case rows, findings.
        UsageError when two parts share a case that one reader must see whole (a case primed in
        one part and scored in another): partition by case (whole transcripts, or `split`)."""
        engine = self.engine
        lane = self.lane(part.lane)
        set_name = engine.threshold_set(lane, threshold_set)
        index = self._index(lane, part.cases)
        o = part.options
        casework = load_casework(lane)
        if casework is not None:
            stats = ReadStats()
            if index is not None:
                stats.add(index.stats)
            return finish_case_parts(cast(Sequence[CasePart], part.segments), lane, casework, index,
                                     engine.severity_levels, self.profile, part.cases, stats, o.details,
                                     o.finding_limit, o.row_findings, set_name)
        scorer = LaneScorer(engine, lane, index, o.details, o.finding_limit)
        scorer.row_findings = o.row_findings
        merge = TallyMerge(scorer)
        last = {s.path: k for k, s in enumerate(part.segments)}
        try:
            for k, segment in enumerate(part.segments):
                merge.add(segment)  # type: ignore[arg-type]
                if last[segment.path] == k:
                    merge.done(segment.path)
        except Overlap as exc:
            raise UsageError(f"{exc}: score the parts that share it as one part") from None
        stats = ReadStats()
        if index is not None:
            stats.add(index.stats)
        stats.add(scorer.stats)
        paths = list(dict.fromkeys(s.path for s in part.segments))
        return scorer.result([*part.cases, *paths], set_name, stats, index.findings if index is not None else (),
                             scorer.declared, paths[0] if paths else "")

    def score_paths(self, lane: str | None, transcripts: Sequence[str | Path], cases: Sequence[str | Path] = (),
                    threshold_set: str | None = None, options: ScoreOptions | None = None) -> LaneResult:
        """A whole run in this process (what `surface-lint --lane` does): any lane, case-driven ones too."""
        o = options or ScoreOptions()
        return self.engine.score(lane, [str(c) for c in cases], [str(t) for t in transcripts], threshold_set,
                                 o.details, o.finding_limit, row_findings=o.row_findings)

    def render(self, result: LaneResult, fmt: str = "json") -> str:
        """A lane result in an output format (text, json, json-lines, sarif, junit, github,
        markdown, html), as `surface-lint --lane ... --output-format FMT` prints it."""
        render = LANE_FORMATS.get(fmt)
        if render is None:
            raise UsageError(f"unknown output format {fmt!r} (known: {', '.join(LANE_FORMATS)})")
        # The lane is named by the caller, as `--lane` names it: the outputs say so, byte for byte.
        options = lane_options(self.engine, result.lane, lanes=((flag_choice(result.lane), ()),))
        return render(result, options)
