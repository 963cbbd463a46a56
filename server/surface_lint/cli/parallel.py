"""Spreading independent work over processes, results in input order (the same as one process).

The engine starts no process: the CLI gives it `ordered_map` (see cli.process_mapper); this
module imports the engine, never the other way round.
"""

from __future__ import annotations

import gc
import multiprocessing
import os
import sys
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:
    from ..engine import CaseIndex, Engine
    from ..engine.config import Config
    from ..model.findings import Finding
    from ..sources.base import ReadStats

T = TypeVar("T")


def job_count(requested: int) -> int:
    """`--jobs N`: N processes; 0 means one per CPU."""
    if requested < 0:
        raise ValueError("--jobs must be 0 (one per CPU) or more")
    return requested or os.cpu_count() or 1


def ordered_map(
    fn: Callable[..., T],
    calls: Sequence[tuple[Any, ...]],
    jobs: int,
    initializer: Callable[..., None] | None = None,
    initargs: tuple[Any, ...] = (),
    on_done: Callable[[tuple[Any, ...]], None] | None = None,
) -> list[T]:
    """`fn(*args)` for each args in `calls`, in `jobs` processes; results in the order of `calls`.

    `on_done(args)` runs in this process as each call finishes (in any order). A worker's
    exception is raised here for the first failing call in input order, as a loop would.
    Workers are forked on Linux (nothing to re-import; the caller runs no other thread),
    spawned elsewhere.
    """
    context = multiprocessing.get_context("fork" if sys.platform == "linux" else "spawn")
    # Results are unpickled here as they arrive: many small acyclic objects, over which the
    # cyclic GC would otherwise run again and again (measured: most of the merge's time).
    paused = gc.isenabled()
    gc.disable()
    try:
        with ProcessPoolExecutor(max_workers=min(jobs, len(calls)) or 1, mp_context=context,
                                 initializer=initializer, initargs=initargs) as pool:
            futures = {pool.submit(fn, *args): args for args in calls}
            if on_done is not None:
                for future in as_completed(futures):
                    on_done(futures[future])
            return [future.result() for future in futures]
    finally:
        if paused:
            gc.enable()


# --- `surface-lint check`: one file per call ------------------------------------------------

_CHECK_WORKER: dict[str, Any] = {}  # per worker process: its engine and case index


def _start_check_worker(config: Config, profile: str, case_paths: Sequence[str], lane_name: str | None) -> None:
    from ..engine import Engine

    engine = Engine(config, profile)
    index = engine.load_cases(case_paths, engine.lane(lane_name) if lane_name else None)[1] if case_paths else None
    _CHECK_WORKER.update(engine=engine, index=index)


def _check_one(engine: Engine, index: CaseIndex | None, path: str, kind: str | None,
               lane_name: str | None) -> tuple[list[Finding], ReadStats]:
    found: list[Finding] = []
    stats = engine.check_file(path, kind, lane_name, index, found.append)
    return found, stats


def _check_in_worker(path: str, kind: str | None, lane_name: str | None) -> tuple[list[Finding], ReadStats]:
    return _check_one(_CHECK_WORKER["engine"], _CHECK_WORKER["index"], path, kind, lane_name)


def check_files(engine: Engine, index: CaseIndex | None, case_paths: Sequence[str], paths: Sequence[str],
                kind: str | None, lane_name: str | None, jobs: int = 1,
                on_done: Callable[[tuple[Any, ...]], None] | None = None,
                sink: Callable[[Finding], None] | None = None) -> ReadStats:
    """Every file's findings to `sink` and the read counts. One process streams each file from
    disk; N processes check whole files and send them back. A case-driven lane's files (given its
    cases) are one run whatever `jobs` says: a case's turns may be in several of them, so they are
    read in this process, their turns grouped by case across files (`CaseSession`), and each case
    judged once they are all read; the other files go to the workers. `sink` gets the findings
    in no promised order (the caller sorts them)."""
    from ..engine.check import CaseSession, DocumentChecker
    from ..sources.base import ReadStats

    total = ReadStats()
    give: Callable[[Finding], None] = sink or (lambda f: None)
    checker = DocumentChecker(engine)
    session = CaseSession(engine, index)
    try:
        alone = list(paths)
        if jobs > 1 and len(paths) > 1:
            alone = [p for p in paths if checker.judges_cases_of(p, kind, lane_name, index)]
            grouped = set(alone)
            spread = [p for p in paths if p not in grouped]
            if len(spread) > 1:
                for findings, stats in ordered_map(_check_in_worker, [(p, kind, lane_name) for p in spread], jobs,
                                                   _start_check_worker,
                                                   (engine.config, engine.profile, list(case_paths), lane_name),
                                                   on_done):
                    for f in findings:
                        give(f)
                    total.add(stats)
            else:
                alone = list(paths)
        for path in alone:
            total.add(checker.file(path, kind, lane_name, index, give, session))
            if on_done is not None:
                on_done((path,))
        session.finish(give)
    finally:
        session.close()
    return total
