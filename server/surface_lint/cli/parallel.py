"""Spreading independent work over processes, results in input order (the same as one process).

The engine starts no process: the CLI gives it a `ProcessMapper` (see cli.process_mapper); this
module imports the engine, never the other way round. What a worker produces in bulk (findings,
scored records) it writes to a file in the run's scratch folder a batch at a time, and this
process reads it back a batch at a time (`engine.partial.read_batches`): memory stays bounded
whatever a file holds. A worker killed by a signal (the OOM killer's SIGKILL) ends the run with
exit 2 naming the file it was working on and the signal (`WorkerDied`).
"""

from __future__ import annotations

import gc
import multiprocessing
import os
import shutil
import signal
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from concurrent.futures import Future, ProcessPoolExecutor, as_completed
from concurrent.futures.process import BrokenProcessPool
from typing import TYPE_CHECKING, Any, TypeVar

from ..engine.results import UsageError

if TYPE_CHECKING:
    from ..engine import CaseIndex, Engine
    from ..engine.config import Config
    from ..model.findings import Finding
    from ..sources.base import ReadStats

T = TypeVar("T")


class WorkerDied(UsageError):
    """A worker process ended by a signal or a crash: the run cannot be completed (exit 2)."""


def job_count(requested: int) -> int:
    """`--jobs N`: N processes; 0 means one per CPU."""
    if requested < 0:
        raise ValueError("--jobs must be 0 (one per CPU) or more")
    return requested or os.cpu_count() or 1


def scratch_folder() -> str:
    """A private folder for one run's worker output (removed when the run ends)."""
    try:
        return tempfile.mkdtemp(prefix="surface-lint-jobs-")
    except OSError as exc:
        raise UsageError(f"cannot write scratch data to {tempfile.gettempdir()}: "
                         f"{(exc.strerror or str(exc)).lower()} (set TMPDIR)") from None


def _call(fn: Callable[..., T], index: int, folder: str, args: tuple[Any, ...]) -> T:
    """In a worker: say which call it runs (read back if it dies), then run it."""
    with open(os.path.join(folder, f"{os.getpid()}.task"), "w", encoding="ascii") as fh:
        fh.write(str(index))
    return fn(*args, folder)


def _describe(calls: Sequence[tuple[Any, ...]], index: int | None) -> str:
    if index is None:
        return "a worker"
    first = calls[index][0]
    name = getattr(first, "path", first)
    return f"the worker reading {name}"


def _died(processes: Mapping[int, Any], calls: Sequence[tuple[Any, ...]], folder: str) -> WorkerDied:
    """Which worker died, how, and what it was reading (from the note it left at the start)."""
    # The pool's own thread reaps the workers as we look: wait (briefly) until each exit is known.
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline and any(p.exitcode is None for p in processes.values()):
        time.sleep(0.01)
    # The pool ends the other workers with SIGTERM once one is gone: the one that died first is
    # the one ended otherwise.
    ended = sorted(processes.items(), key=lambda item: (item[1].exitcode == -signal.SIGTERM, item[0]))
    for pid, process in ended:
        code = process.exitcode
        if code is None or code == 0:
            continue
        index = None
        try:
            with open(os.path.join(folder, f"{pid}.task"), encoding="ascii") as fh:
                index = int(fh.read() or "-1")
        except (OSError, ValueError):
            pass
        who = _describe(calls, index if index is not None and 0 <= index < len(calls) else None)
        if code < 0:
            try:
                how = f"was killed by {signal.Signals(-code).name}"
            except ValueError:
                how = f"was killed by signal {-code}"
            hint = " (out of memory?)" if -code == signal.SIGKILL else ""
        else:
            how, hint = f"exited with status {code}", ""
        return WorkerDied(f"{who} {how}{hint}; the run is incomplete: run again with fewer --jobs "
                          "or more memory")
    return WorkerDied("a worker process ended abruptly; the run is incomplete: run again with --jobs 1")


def ordered_stream(
    fn: Callable[..., T],
    calls: Sequence[tuple[Any, ...]],
    jobs: int,
    initializer: Callable[..., None] | None = None,
    initargs: tuple[Any, ...] = (),
    folder: str | None = None,
) -> Iterator[T]:
    """`fn(*args, folder)` for each args in `calls`, in `jobs` processes; results yielded in the
    order of `calls`, each as soon as it and those before it are done. `folder`: the run's
    scratch folder (made and removed here when not given), where workers write what they send
    back in bulk. A worker's exception is raised here for the first failing call in input order,
    as a loop would; a worker killed by a signal raises `WorkerDied`. Workers are forked on Linux
    (nothing to re-import; the caller runs no other thread), spawned elsewhere."""
    context = multiprocessing.get_context("fork" if sys.platform == "linux" else "spawn")
    own = folder is None
    where = scratch_folder() if folder is None else folder
    # Results are unpickled here as they arrive: many small acyclic objects, over which the
    # cyclic GC would otherwise run again and again (measured: most of the merge's time).
    paused = gc.isenabled()
    gc.disable()
    try:
        with ProcessPoolExecutor(max_workers=min(jobs, len(calls)) or 1, mp_context=context,
                                 initializer=initializer, initargs=initargs) as pool:
            futures: list[Future[T]] = [pool.submit(_call, fn, i, where, args) for i, args in enumerate(calls)]
            processes: Mapping[int, Any] = pool._processes or {}  # kept: the pool drops it on shutdown
            try:
                for future in futures:
                    yield future.result()
            except BrokenProcessPool:
                raise _died(dict(processes), calls, where) from None
            finally:
                for future in futures:
                    future.cancel()
    finally:
        if paused:
            gc.enable()
        if own:
            shutil.rmtree(where, ignore_errors=True)


def ordered_map(
    fn: Callable[..., T],
    calls: Sequence[tuple[Any, ...]],
    jobs: int,
    initializer: Callable[..., None] | None = None,
    initargs: tuple[Any, ...] = (),
    on_done: Callable[[tuple[Any, ...]], None] | None = None,
) -> list[T]:
    """`fn(*args)` for each args in `calls`, in `jobs` processes; results in the order of `calls`
    (small results only: bulk goes through `ordered_stream`'s folder). `on_done(args)` runs in
    this process as each call finishes (in any order)."""
    context = multiprocessing.get_context("fork" if sys.platform == "linux" else "spawn")
    folder = scratch_folder()
    paused = gc.isenabled()
    gc.disable()
    try:
        with ProcessPoolExecutor(max_workers=min(jobs, len(calls)) or 1, mp_context=context,
                                 initializer=initializer, initargs=initargs) as pool:
            futures = {pool.submit(_call, _plain, i, folder, (fn, *args)): args for i, args in enumerate(calls)}
            processes: Mapping[int, Any] = pool._processes or {}
            try:
                if on_done is not None:
                    for future in as_completed(futures):
                        on_done(futures[future])
                return [future.result() for future in futures]
            except BrokenProcessPool:
                raise _died(dict(processes), calls, folder) from None
    finally:
        if paused:
            gc.enable()
        shutil.rmtree(folder, ignore_errors=True)


def _plain(fn: Callable[..., T], *args: Any) -> T:
    """A call that takes no scratch folder (the folder `_call` appends is dropped)."""
    return fn(*args[:-1])


class ProcessMapper:
    """`--jobs N` for the engine: `jobs` processes, `__call__` (whole results, in order) and
    `stream` (bulk through a scratch folder, results as they come in order)."""

    def __init__(self, jobs: int) -> None:
        self.jobs = jobs

    def __call__(self, fn: Callable[..., T], calls: Sequence[tuple[Any, ...]], initializer: Callable[..., None] | None,
                 initargs: tuple[Any, ...], on_done: Callable[[tuple[Any, ...]], None] | None) -> list[T]:
        return ordered_map(fn, calls, self.jobs, initializer, initargs, on_done)

    def stream(self, fn: Callable[..., T], calls: Sequence[tuple[Any, ...]], initializer: Callable[..., None] | None,
               initargs: tuple[Any, ...], folder: str | None = None) -> Iterator[T]:
        return ordered_stream(fn, calls, self.jobs, initializer, initargs, folder)


# --- `surface-lint check`: one file per call ------------------------------------------------

_CHECK_WORKER: dict[str, Any] = {}  # per worker process: its engine and case index


def _start_check_worker(config: Config, profile: str, case_paths: Sequence[str], lane_name: str | None) -> None:
    from ..engine import Engine

    engine = Engine(config, profile)
    index = engine.load_cases(case_paths, engine.lane(lane_name) if lane_name else None)[1] if case_paths else None
    _CHECK_WORKER.update(engine=engine, index=index)


def _check_in_worker(path: str, kind: str | None, lane_name: str | None, folder: str) -> tuple[str, ReadStats]:
    """One file's findings written to a batch file in `folder` as they come; its name and counts."""
    from ..engine.partial import BatchWriter

    with BatchWriter.in_folder(folder) as out:
        stats = _CHECK_WORKER["engine"].check_file(path, kind, lane_name, _CHECK_WORKER["index"], out.add)
    return out.path, stats


def check_files(engine: Engine, index: CaseIndex | None, case_paths: Sequence[str], paths: Sequence[str],
                kind: str | None, lane_name: str | None, jobs: int = 1,
                on_done: Callable[[tuple[Any, ...]], None] | None = None,
                sink: Callable[[Finding], None] | None = None) -> ReadStats:
    """Every file's findings to `sink` and the read counts. One process streams each file from
    disk; N processes check whole files, each writing its findings to a scratch file read back
    here a batch at a time. A case-driven lane's files (given its cases) are one run whatever
    `jobs` says: a case's turns may be in several of them, so they are read in this process,
    their turns grouped by case across files (`CaseSession`), and each case judged once they are
    all read; the other files go to the workers. `sink` gets the findings in no promised order
    (the caller sorts them)."""
    from ..engine.check import CaseSession, DocumentChecker
    from ..engine.partial import read_batches
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
                calls = [(p, kind, lane_name) for p in spread]
                results = ordered_stream(_check_in_worker, calls, jobs, _start_check_worker,
                                         (engine.config, engine.profile, list(case_paths), lane_name))
                for (path, _, _), (batch_file, stats) in zip(calls, results, strict=True):
                    for batch in read_batches(batch_file, remove=True):
                        for f in batch:
                            give(f)
                    total.add(stats)
                    if on_done is not None:
                        on_done((path,))
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
