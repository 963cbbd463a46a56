"""A case-driven lane scored in parts and merged exactly (`surface_lint.api`, `--jobs`).

A case-driven lane judges a case from all its records at once, and a case's records may be
anywhere in the captures (a runner's second pass, a replay written at the end, another file).
So its parts are not ranges of lines but *buckets of cases*: part `i` of `k` reads every capture
file and judges the cases whose rank (place in the case files) is `i` modulo `k`, each from all
its records. Judging is the costly part; reading is a JSON decode per line. Part 0 alone reports
what belongs to no case (lines that are no record, records without an id, the read counts); a
case id that matches no case is reported by the part `id_bucket` names, once, as one reader does.

A part keeps each judged case (its outcome, findings and first record's index) as compressed
pickled batches in rank order. `finish` merges the parts' cases in rank order and folds them
with one `CaseworkScorer`, exactly as one process judging and folding them in that order does
(`judge_all`): the metrics (sums in case order), the rows, the first failing cases that keep
their positions, the missing cases. The parts must be all `k` buckets of one run, each once.
"""

from __future__ import annotations

import heapq
import os
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, replace

from ..model.findings import Finding
from ..rules.loader import Lane
from ..sources.base import ReadStats
from .casescore import CaseworkScorer, Judged
from .casework import CaseOutcome, Casework
from .fold import casework_metrics
from .partial import BatchWriter, read_batches
from .results import CaseIndex, LaneResult, UsageError


@dataclass(frozen=True)
class CasePart:
    """Bucket `number` of `count` of a case-driven lane run over `paths` (picklable)."""

    key: tuple[int, ...]
    number: int
    count: int
    paths: tuple[str, ...]
    stats: ReadStats  # the read counts (part 0's; the others read the same lines)
    problems: tuple[Finding, ...]  # findings of no judged case: bad lines, unjoined records
    unknown: tuple[str, ...]  # case ids of this bucket that match no case
    judged: bytes | str  # `Judged` cases in rank order: `BatchWriter.packed` batches, or their file
    cases: int

    @property
    def path(self) -> str:
        return self.paths[0] if self.paths else ""

    @property
    def nbytes(self) -> int:
        return len(self.judged) if isinstance(self.judged, bytes) else os.path.getsize(self.judged)

    def entries(self) -> Iterator[Judged]:
        for batch in read_batches(self.judged):
            yield from batch


@dataclass(frozen=True)
class Bucket:
    """Which cases a `--jobs` worker judges, and from which transcripts (`path` names it when
    the worker dies)."""

    number: int
    count: int
    paths: tuple[str, ...]

    @property
    def path(self) -> str:
        return f"{', '.join(self.paths)} (the cases of part {self.number + 1} of {self.count})"


def score_case_part(lane: Lane, casework: Casework, index: CaseIndex | None, levels: Mapping[str, str],
                    paths: Sequence[str], texts: Mapping[str, bytes], number: int, count: int,
                    key: tuple[int, ...], max_line_bytes: int | None = None, folder: str | None = None) -> CasePart:
    """Bucket `number` of `count`: every capture of `paths` read, the bucket's cases judged (kept
    compressed in memory, or in a file of `folder`: a `--jobs` worker's)."""
    if not 0 <= number < count:
        raise UsageError(f"part {number} of {count}: a part's number is 0 to {count - 1}")
    scorer = CaseworkScorer(lane, casework, index, levels, False, None, max_line_bytes, part=(number, count))
    scorer.part_of_run = True
    if index is None:  # lane reports, which carry their cases' records
        scorer.read_reports(paths, texts)
    else:
        scorer.read(paths, texts)
    writer = BatchWriter.in_folder(folder) if folder is not None else BatchWriter.packed()
    read = fold_reads(casework)
    with writer:
        for rank, case_id, outcome, found, first_index in scorer.judged():
            writer.add((rank, case_id, _slim(outcome, read) if outcome is not None else None, found, first_index))
    judged: bytes | str = writer.close() if folder is None else writer.path  # type: ignore[assignment]
    problems = tuple(f for _, f in scorer.findings)
    return CasePart(key, number, count, tuple(paths), scorer.stats, problems, tuple(scorer.unknown.sorted()),
                    judged, writer.count)


def fold_reads(casework: Casework) -> frozenset[str]:
    """The names the lane's metrics read of a case's scope (its views, `case`, `runs`, values)."""
    names: set[str] = set()
    for metric in casework_metrics(casework):
        names.add(metric.spec.per)
        for expr in (metric.where, metric.value, metric.by, *metric.spec.fields.values()):
            if expr is not None:
                names.update(expr.names)
    return frozenset(names)


def _slim(outcome: CaseOutcome, read: frozenset[str]) -> CaseOutcome:
    """A judged case as the fold reads it: the views (each turn's record, often most of a part's
    size), `case` and `runs` only when a metric names them. The fold's scope is otherwise the
    same, so every metric is (`fold.MetricsFold.add_case`)."""
    return replace(outcome, views={k: v for k, v in outcome.views.items() if k in read},
                   case=outcome.case if "case" in read else {}, runs=outcome.runs if "runs" in read else {})


def finish_case_parts(parts: Sequence[CasePart], lane: Lane, casework: Casework, index: CaseIndex | None,
                      levels: Mapping[str, str], profile: str, case_paths: Sequence[str], stats: ReadStats,
                      want_rows: bool, finding_limit: int | None, row_findings: bool,
                      set_name: str | None) -> LaneResult:
    """The lane result of all the buckets of one run, as one process scoring it gives it."""
    if not parts:
        raise UsageError(f"lane {lane.name}: no part to finish")
    count = parts[0].count
    numbers = sorted(p.number for p in parts)
    if numbers != list(range(count)) or any(p.count != count for p in parts):
        have = ", ".join(f"{p.number} of {p.count}" for p in sorted(parts, key=lambda p: (p.count, p.number)))
        raise UsageError(f"lane {lane.name} is case-driven: finish needs each of its parts 0 to {count - 1} of "
                         f"{count} once (have {have})")
    paths = parts[0].paths
    for p in parts:
        if p.paths != paths:
            raise UsageError(f"lane {lane.name}: parts of different captures: {list(paths)} and {list(p.paths)}")
    scorer = CaseworkScorer(lane, casework, index, levels, want_rows, finding_limit)
    scorer.row_findings = row_findings
    scorer.set_name = set_name
    for p in sorted(parts, key=lambda p: p.number):
        for finding in p.problems:
            scorer.problem(finding)
        scorer.stats.add(p.stats)
        scorer.unknown.update(p.unknown)
    merged = heapq.merge(*(p.entries() for p in parts), key=_rank)
    scorer.entries = _distinct(merged)
    return scorer.result(profile, [*case_paths, *paths], stats, index.findings if index is not None else (),
                         paths[0] if paths else "")


def _rank(entry: Judged) -> int:
    return entry[0]


def _distinct(entries: Iterator[Judged]) -> Iterator[Judged]:
    """The merged cases; a rank twice would mean two parts judged one case."""
    last = -1
    for entry in entries:
        if entry[0] == last:
            raise UsageError(f"case `{entry[1]}` was judged by two parts (rank {last})")
        last = entry[0]
        yield entry


__all__ = ["Bucket", "CasePart", "finish_case_parts", "score_case_part"]
