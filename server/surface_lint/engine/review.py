"""Review: cases linked to the runs that scored them. Pure, engine-facing, no LSP.

Given case files and transcript files (bytes: an editor passes its unsaved buffers), it
answers: how each case fared in the newest run that scored it (`latest_outcomes`), which
turns of every transcript belong to a case (`turn_references`), a transcript's turns as a
reviewer reads them with their verdicts (`review_transcript`), and what changed between
two runs of one lane (`diff_runs`, the same `LaneDiff` as `surface-lint diff`).

"Newest" is the run file's modification time (then its path, so ties are deterministic);
no verdict depends on it, only which run a case file shows.
"""

from __future__ import annotations

import io
import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from ..model.findings import Location
from ..rules.loader import Lane
from ..sources.base import JsonlReader, Record
from ..sources.paths import walk
from ..sources.transcripts import iter_turns, read_report, sniff
from . import Engine, LaneResult, UsageError, first_object
from .diff import LaneDiff, diff_results
from .views import CaseView, iter_outcome_views, reported_predicates

# Where the editor looks for runs when the user configures nothing (workspace-relative globs; the
# runtime's own layout: <lane>/captures, telemetry, reports, committed/results).
DEFAULT_TRANSCRIPT_GLOBS = (
    "**/transcripts/**/*.jsonl",
    "**/runs/**/*.jsonl",
    "**/captures/**/*.jsonl",
    "**/telemetry/**/*.jsonl",
    "**/*transcript*.jsonl",
    "**/reports/**/*.json",
    "**/results/**/*.json",
)
RUN_KINDS = ("turns", "telemetry", "report")
SKIPPED_DIRS = frozenset({".git", "node_modules", ".venv", "venv", "__pycache__", ".tox"})


@dataclass(frozen=True, slots=True)
class RunFile:
    """A transcript or lane report on disk (or in an editor buffer), with what orders runs."""

    path: str
    stamp: tuple[int, int]  # (modification time in ns, size); (0, 0) for a file that vanished
    relative: str = ""  # its path under the workspace folder it was found in (POSIX), "" unknown

    @property
    def name(self) -> str:
        return Path(self.path).name

    @property
    def shown_as(self) -> str:
        """How a picker names it: the workspace-relative path (the file name when unknown)."""
        return self.relative or self.name


def _glob_regex(glob: str) -> str:
    out = []
    i = 0
    while i < len(glob):
        if glob.startswith("**/", i):
            out.append("(?:[^/]+/)*")
            i += 3
        elif glob.startswith("**", i):
            out.append(".*")
            i += 2
        elif glob[i] == "*":
            out.append("[^/]*")
            i += 1
        elif glob[i] == "?":
            out.append("[^/]")
            i += 1
        elif glob[i] == "[" and (close := glob.find("]", i + 2)) > 0:
            body = glob[i + 1:close].replace("\\", "\\\\")
            out.append("[^" + body[1:] + "]" if body[:1] in "!^" else "[" + body + "]")
            i = close + 1
        elif glob[i] == "{" and (close := glob.find("}", i)) > 0:
            out.append("(?:" + "|".join(_glob_regex(alt) for alt in glob[i + 1:close].split(",")) + ")")
            i = close + 1
        else:
            out.append(re.escape(glob[i]))
            i += 1
    return "".join(out)


def glob_pattern(glob: str) -> re.Pattern[str]:
    """A workspace glob (`**` any folders, `*` `?` within a name, `[...]` a class, `{a,b}` either)
    as a regex over '/'-separated relative paths, as VS Code's globs match them."""
    return re.compile(_glob_regex(glob.removeprefix("./")) + r"\Z")


def find_runs(roots: Iterable[Path], globs: Sequence[str]) -> list[RunFile]:
    """Files under the roots matching any glob, newest first, then by path. Folders such as
    .git and node_modules are not entered (a workspace may hold a big one)."""
    patterns = [glob_pattern(g) for g in globs]
    found: dict[str, RunFile] = {}
    for root in roots:
        for folder, dirs, files in walk(root):
            dirs[:] = sorted(d for d in dirs if d not in SKIPPED_DIRS)
            rel_folder = Path(folder).relative_to(root).as_posix()
            prefix = "" if rel_folder == "." else rel_folder + "/"
            for name in files:
                rel = prefix + name
                if not any(p.match(rel) for p in patterns):
                    continue
                p = Path(folder, name)
                try:
                    st = p.stat()
                except OSError:
                    continue
                resolved = str(p.resolve())
                found.setdefault(resolved, RunFile(resolved, (st.st_mtime_ns, st.st_size), rel))
    return sorted(found.values(), key=lambda r: (-r.stamp[0], r.path))


# --- turns of one run ------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class TurnRef:
    """One turn (or report entry) of a run: where it is and whose case it is."""

    path: str
    case_id: str
    location: Location  # the whole record
    id_location: Location | None  # its `case_id` (or report `id`) value
    role: str
    scored: bool  # the turn the lane measures for its case
    prompt: str | None
    surface: str | None


@dataclass(frozen=True, slots=True)
class RunRead:
    """A run file read for review: its lane and its turns in file order."""

    path: str
    kind: str
    lane: Lane
    turns: tuple[TurnRef, ...]
    _scored: dict[str, TurnRef] | None = field(default=None, compare=False, repr=False)

    def scored_turn(self, case_id: str) -> TurnRef | None:
        """The turn the lane scored for a case: the last scored one (a repeat replaces the first)."""
        return self.scored_turns().get(case_id)

    def scored_turns(self) -> dict[str, TurnRef]:
        found = self._scored
        if found is None:
            found = {t.case_id: t for t in self.turns if t.scored}
            object.__setattr__(self, "_scored", found)  # computed once; the run itself is immutable
        return found


def _text(value: object) -> str | None:
    return value if isinstance(value, str) else None


def _id_location(record: Record, key: str) -> Location | None:
    return record.location(key) if key in record.data else None


def run_lane(engine: Engine, path: str, data: bytes) -> tuple[str, Lane] | None:
    """(kind, lane) of a run from its first records, without reading it all; None for a case file."""
    kind, whole = sniff(data)
    if kind == "cases":
        return None
    if kind == "report":
        doc = whole if isinstance(whole, dict) else first_object(data)
        hint = doc.get("lane") if doc is not None else None
        entries = (doc.get("cases") or doc.get("case_details")) if doc is not None else None
        first = entries[0] if isinstance(entries, list) and entries and isinstance(entries[0], dict) else None
        lane = engine.detect_lane(path, "report", hint if isinstance(hint, str) else None, first)
    else:
        kind = kind or "turns"
        lane = engine.detect_lane(path, kind, first=first_object(data))
    return (kind, lane) if lane is not None else None


def read_run(engine: Engine, path: str, data: bytes) -> RunRead | None:
    """The turns of a transcript or lane report; None for a case file or a lane the engine lacks."""
    found = run_lane(engine, path, data)
    if found is None:
        return None
    kind, lane = found
    if kind == "report":
        transcript = read_report(path, data)
        refs = []
        for entry in transcript.entries:
            if entry.case_id is None:
                continue
            key = "case_id" if "case_id" in entry.data else "id"
            refs.append(TurnRef(path, entry.case_id, entry.record.whole(), _id_location(entry.record, key),
                                "report-case", True, _text(entry.data.get("prompt")),
                                _text(entry.data.get("surface"))))
        return RunRead(path, "report", lane, tuple(refs))
    reader = JsonlReader(path, engine.config.max_line_bytes)
    refs = []
    for turn in iter_turns(path, io.BytesIO(data), kind, reader):
        if turn.case_id is None:
            continue
        # What the engine scores: the chain-0 scored turn (a replay's turns are its chain 1).
        scored = turn.chain == 0 and turn.scored
        refs.append(TurnRef(path, turn.case_id, turn.record.whole(), _id_location(turn.record, "case_id"),
                            turn.role, scored, turn.prompt, turn.surface))
    return RunRead(path, kind, lane, tuple(refs))


def score_run(engine: Engine, run: RunRead, case_paths: Sequence[str],
              texts: Mapping[str, bytes]) -> LaneResult:
    """The lane result of one run joined to the given case files (every verdict kept)."""
    return engine.score(run.lane.name, list(case_paths), [run.path], want_details=True,
                        finding_limit=None, texts=texts)


# --- cases -> their newest run -----------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class CaseRun:
    """How one case fared in one run: the run's turn and the report's view of the case."""

    case_id: str
    run: RunFile
    turn: TurnRef
    view: CaseView
    runs_with_case: int  # runs of the lane that scored this case (this one is the newest)
    failed: tuple[str, ...] = ()  # what `Engine.score` says the case failed (`Outcome.failed`)


def latest_outcomes(engine: Engine, lane: Lane, case_paths: Sequence[str], runs: Sequence[RunFile],
                    texts: Mapping[str, bytes]) -> dict[str, CaseRun]:
    """Per case id, its outcome in the newest run (of `runs`, newest first) that scored it.

    `texts` holds every file's bytes (run files and case files); a run missing from it is skipped."""
    out: dict[str, CaseRun] = {}
    counts: dict[str, int] = {}
    for run_file in runs:
        data = texts.get(run_file.path)
        if data is None or (found := run_lane(engine, run_file.path, data)) is None or found[1].name != lane.name:
            continue
        run = read_run(engine, run_file.path, data)
        if run is None:
            continue
        try:
            result = score_run(engine, run, case_paths, texts)
        except UsageError:
            continue
        for outcome, view in iter_outcome_views(result, lane):
            counts[view.case_id] = counts.get(view.case_id, 0) + 1
            if view.case_id in out:
                continue
            turn = run.scored_turn(view.case_id)
            if turn is not None:
                out[view.case_id] = CaseRun(view.case_id, run_file, turn, view, 0, tuple(outcome.failed))
    return {k: CaseRun(v.case_id, v.run, v.turn, v.view, counts[k], v.failed) for k, v in out.items()}


def turn_references(engine: Engine, runs: Sequence[RunFile], texts: Mapping[str, bytes],
                    lane: Lane | None = None) -> dict[str, list[TurnRef]]:
    """Every turn of every run, by case id; runs in path order, turns in file order."""
    out: dict[str, list[TurnRef]] = {}
    for run_file in sorted(runs, key=lambda r: r.path):
        data = texts.get(run_file.path)
        if data is None or (found := run_lane(engine, run_file.path, data)) is None:
            continue
        if lane is not None and found[1].name != lane.name:
            continue
        run = read_run(engine, run_file.path, data)
        if run is None:
            continue
        for turn in run.turns:
            out.setdefault(turn.case_id, []).append(turn)
    return out


# --- one transcript as a reviewer reads it ----------------------------------------------------


@dataclass(frozen=True, slots=True)
class ReviewTurn:
    turn: TurnRef
    view: CaseView | None  # the scored turn's verdicts; None for context turns (priming, premises)
    category: str | None  # its case's group (category or pattern), for context turns too
    failed: tuple[str, ...] = ()  # of the scored turn: what `Engine.score` says its case failed

    @property
    def status(self) -> str:
        """pass | fail | note for a scored turn; `context` for the turns around it."""
        return self.view.status if self.view is not None else "context"


@dataclass(frozen=True, slots=True)
class Review:
    path: str
    lane: str
    profile: str
    predicates: tuple[tuple[str, str], ...]  # (name, code) of the lane's reported predicates
    turns: tuple[ReviewTurn, ...]

    def categories(self) -> list[str]:
        return sorted({t.category for t in self.turns if t.category})

    def failing_counts(self) -> dict[str, int]:
        """Per predicate, the scored turns failing it."""
        counts = {name: 0 for name, _ in self.predicates}
        for t in self.turns:
            if t.view is not None:
                for name in t.view.failed_names():
                    counts[name] = counts.get(name, 0) + 1
        return counts

    def select(self, predicate: str | None = None, category: str | None = None,
               failing_only: bool = False) -> list[ReviewTurn]:
        """The turns a filter shows: failing `predicate` (scored turns only), of `category`,
        with a failing predicate only."""
        out = []
        for t in self.turns:
            if category and t.category != category:
                continue
            if predicate and (t.view is None or predicate not in t.view.failed_names()):
                continue
            if failing_only and (t.view is None or not t.view.failures):
                continue
            out.append(t)
        return out


class _Overlay(Mapping[str, bytes]):
    """`texts` with one more file, without reading (or copying) the others."""

    def __init__(self, texts: Mapping[str, bytes], path: str, data: bytes) -> None:
        self.texts, self.path, self.data = texts, path, data

    def __getitem__(self, key: str) -> bytes:
        return self.data if key == self.path else self.texts[key]

    def __contains__(self, key: object) -> bool:
        return key == self.path or key in self.texts

    def __iter__(self) -> Iterator[str]:
        yield self.path
        yield from (k for k in self.texts if k != self.path)

    def __len__(self) -> int:
        return len(self.texts) + (0 if self.path in self.texts else 1)


def review_transcript(engine: Engine, path: str, data: bytes, case_paths: Sequence[str],
                      texts: Mapping[str, bytes]) -> Review | None:
    """A transcript's turns in file order, each scored turn with its case's verdicts."""
    run = read_run(engine, path, data)
    if run is None:
        return None
    result = score_run(engine, run, case_paths, _Overlay(texts, path, data))
    views: dict[str, CaseView] = {}
    failed: dict[str, tuple[str, ...]] = {}
    for outcome, case_view in iter_outcome_views(result, run.lane):
        views[case_view.case_id] = case_view
        failed[case_view.case_id] = tuple(outcome.failed)
    scored = {cid: run.scored_turn(cid) for cid in views}
    turns = []
    for turn in run.turns:
        view = views.get(turn.case_id)
        group = view.group if view is not None else None
        judged = view if view is not None and scored.get(turn.case_id) is turn else None
        turns.append(ReviewTurn(turn, judged, group, failed.get(turn.case_id, ()) if judged is not None else ()))
    predicates = tuple(reported_predicates(run.lane))
    return Review(path, run.lane.name, result.profile, predicates, tuple(turns))


# --- two runs of one lane ---------------------------------------------------------------------


def diff_runs(engine: Engine, old_path: str, new_path: str, case_paths: Sequence[str],
              texts: Mapping[str, bytes]) -> LaneDiff:
    """What `surface-lint diff OLD NEW` reports, from the editor's view of both files."""
    old_run = read_run(engine, old_path, texts[old_path])
    new_run = read_run(engine, new_path, texts[new_path])
    if old_run is None or new_run is None:
        bad = old_path if old_run is None else new_path
        raise UsageError(f"{bad}: not a transcript or lane report")
    if old_run.lane.name != new_run.lane.name:
        raise UsageError(f"{old_path} is a run of {old_run.lane.name} but {new_path} one of {new_run.lane.name}")
    old = score_run(engine, old_run, case_paths, texts)
    new = score_run(engine, new_run, case_paths, texts)
    return diff_results(old, new, new_run.lane, old_path, new_path)
