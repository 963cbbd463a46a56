"""When to lint: one worker pool, one lint in flight per document, always the newest version.

A change schedules a lint of the newest version; a lint overtaken by a newer version is
cancelled and its result is never shown. Finished lints are published (push) or kept for
the next pull, and wake the feature requests waiting for the current version.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import json
import logging
import os
import threading
import time
import traceback
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from ..model.findings import Finding
from .diagnostic_json import DiagnosticBuilder, error_diagnostic
from .documents import Snapshot, TextDoc
from .lint import Cancelled, CancelToken, LintResult
from .workspace import ServerState

log = logging.getLogger("surface_lint.lsp")

class SchedulerHost(Protocol):
    """What the scheduler asks of its server (`server.SurfaceLintServer` is one)."""

    state: ServerState
    pull: bool

    def publish(self, uri: str, version: int | None, items: list[str]) -> None: ...

    def log_error(self, message: str) -> None: ...

    def file_problem_diagnostics(self, snap: Snapshot) -> list[dict[str, Any]]: ...

    def is_settings_file(self, path: str) -> bool: ...


FEATURE_WAIT_S = 30.0
FREEZE_AFTER_LINES = 2000
TRACE_TIMING = bool(os.environ.get("SURFACE_LINT_TRACE_TIMING"))  # log change->publish times to stderr


@dataclass
class Run:
    """Scheduling state of one open document."""

    builder: DiagnosticBuilder
    task: asyncio.Task[None] | None = None
    token: CancelToken | None = None
    dirty: bool = False
    result: LintResult | None = None  # the newest finished lint
    items: list[str] = field(default_factory=list)  # its diagnostics as JSON
    shown: tuple[LintResult, list[str]] | None = None  # what the client was last given
    waiters: list[tuple[int, asyncio.Future[LintResult]]] = field(default_factory=list)
    score: tuple[int | None, int, float, dict[str, Any] | None] | None = None
    score_task: asyncio.Future[dict[str, Any] | None] | None = None
    changed_at: float = 0.0  # perf_counter of the latest didChange (timing trace)
    # (version, diagnostics) first.py published for this document before the server was
    # imported, until the server's own first complete lint is out.
    early: tuple[int, list[str]] | None = None


class Scheduler:
    """The lint runs of one session's open documents."""

    def __init__(self, server: SchedulerHost) -> None:
        self.server = server
        self.pool = ThreadPoolExecutor(max_workers=2, thread_name_prefix="surface-lint-lint")
        self.runs: dict[str, Run] = {}
        # uri -> (version, diagnostics JSON) of the open first.py published (a push client's cold
        # open, main.Handover); taken by the document's next open.
        self.early: dict[str, tuple[int, list[str]]] = {}

    def open(self, uri: str, builder: DiagnosticBuilder) -> None:
        self.runs[uri] = Run(builder, early=self.early.pop(uri, None))
        self.request_lint(uri, 0.0)

    def close(self, uri: str) -> None:
        run = self.runs.pop(uri, None)
        if run is not None and run.token is not None:
            run.token.cancel()

    def stop(self) -> None:
        for run in self.runs.values():
            if run.token is not None:
                run.token.cancel()
        self.pool.shutdown(wait=False, cancel_futures=True)

    def request_lint(self, uri: str, delay: float) -> None:
        run = self.runs.get(uri)
        if run is None:
            return
        if run.task is not None and not run.task.done():
            run.dirty = True
            if run.token is not None:
                run.token.cancel()  # the running lint restarts on the newest version
            return
        run.task = asyncio.ensure_future(self._lint_loop(uri, run, delay))

    async def _lint_loop(self, uri: str, run: Run, delay: float) -> None:
        try:
            await self._lint_until_current(uri, run, delay)
        except Exception as exc:  # a bug: say so on the document rather than fall silent
            self.server.log_error(f"{uri}: {type(exc).__name__}: {exc}\n{''.join(traceback.format_exception(exc))}")
            if not self.server.pull and uri in self.server.state.docs:
                doc = self.server.state.docs[uri]
                message = f"surface-lint could not check this document: {type(exc).__name__}: {exc}"
                self.server.publish(uri, doc.version, [json.dumps(error_diagnostic(message))])

    async def _lint_until_current(self, uri: str, run: Run, delay: float) -> None:
        if delay:
            await asyncio.sleep(delay)
        loop = asyncio.get_running_loop()
        while True:
            doc = self.server.state.docs.get(uri)
            if doc is None or self.runs.get(uri) is not run:
                return
            run.dirty = False
            if self.is_current(run.result, doc):
                self._finish(uri, run)
                return
            snap = Snapshot.of(doc)
            token = run.token = CancelToken()
            progress = None
            # No partial picture after first.py's complete one of the same version (a flicker).
            if not self.server.pull and self.should_show(doc, snap.version) and not (
                    run.early is not None and run.early[0] == snap.version):
                progress = self._progress_publisher(uri, run, snap, loop)
            try:
                result, items = await loop.run_in_executor(self.pool, self._lint_job, run, snap, token, progress)
            except Cancelled:
                continue
            except RuntimeError as exc:
                if "shutdown" in str(exc):  # the pool is shut down: the server is stopping
                    return
                raise
            opened, run.result, run.items = run.result is None, result, items
            if result.rechecked >= FREEZE_AFTER_LINES or (opened and len(snap.lines) >= FREEZE_AFTER_LINES):
                # A big document's results live as long as it is open: keep the cyclic GC from
                # walking them again and again on every later keystroke (pauses of 50+ ms). Its
                # first lint may re-check no line: first.py's lint left every line in the memo.
                gc.freeze()
            if run.dirty or doc.version != snap.version:
                continue  # a newer version arrived while linting: this one is never shown
            self._finish(uri, run)
            return

    def _lint_job(self, run: Run, snap: Snapshot, token: CancelToken,
                  progress: Any) -> tuple[LintResult, list[str]]:
        """In a worker thread: lint, then build the diagnostics' JSON."""
        return lint_items(self.server.state, run.builder, snap, token, progress,
                          self.server.file_problem_diagnostics, self.server.log_error)

    def _progress_publisher(self, uri: str, run: Run, snap: Snapshot, loop: asyncio.AbstractEventLoop) -> Any:
        """Publish the findings of the lines checked so far while a long first lint runs."""
        def progress(findings: list[Finding]) -> None:
            partial = LintResult(snap.uri, snap.path, snap.version, snap.lines, None, None, findings, [],
                                 self.server.state.engine_for(snap.path), bare=snap.bare)
            if run.result is not None and run.result.lane is not None:
                partial.lane = run.result.lane
            items = run.builder.json_items(partial, (), keep=True)
            loop.call_soon_threadsafe(self._publish_partial, uri, run, snap.version, items)
        return progress

    def _publish_partial(self, uri: str, run: Run, version: int | None, items: list[str]) -> None:
        doc = self.server.state.docs.get(uri)
        if doc is None or doc.version != version or run.dirty or self.runs.get(uri) is not run:
            return
        if run.result is not None and run.result.version == version:
            return  # the full result is out already
        self.server.publish(uri, version, items)

    def is_current(self, result: LintResult | None, doc: TextDoc) -> bool:
        return (result is not None and result.version == doc.version
                and result.generation == self.server.state.generation)

    def should_show(self, doc: TextDoc, version: int | None) -> bool:
        return self.server.state.settings.run == "onType" or version == doc.saved_version \
            or self.server.is_settings_file(doc.path)

    def _finish(self, uri: str, run: Run) -> None:
        result = run.result
        doc = self.server.state.docs.get(uri)
        if result is None or doc is None:
            return
        version = result.version or 0
        keep = []
        for wanted, fut in run.waiters:
            if version >= wanted and not fut.done():
                fut.set_result(result)
            elif not fut.done():
                keep.append((wanted, fut))
        run.waiters = keep
        early, run.early = run.early, None
        if self.should_show(doc, result.version):
            run.shown = (result, run.items)
            # first.py published this version's diagnostics already: the client is not sent the
            # same again, and is sent the server's when they differ (the server is the authority).
            if not self.server.pull and (early is None or early != (result.version, run.items)):
                self.server.publish(uri, result.version, run.items)
            if TRACE_TIMING:
                since = (time.perf_counter() - run.changed_at) * 1000 if run.changed_at else float("nan")
                log.warning("timing %s v%s: change->shown %.1f ms; lint %.1f ms, %d line(s) re-checked, "
                            "%d diagnostic(s)", Path(result.path).name, result.version, since,
                            result.seconds * 1000, result.rechecked, len(run.items))

    async def current_result(self, uri: str) -> LintResult | None:
        """The lint of the document's current version (waiting for it when needed)."""
        doc = self.server.state.docs.get(uri)
        run = self.runs.get(uri)
        if doc is None or run is None:
            return None
        if self.is_current(run.result, doc):
            return run.result
        fut: asyncio.Future[LintResult] = asyncio.get_running_loop().create_future()
        run.waiters.append((doc.version or 0, fut))
        self.request_lint(uri, 0.0)
        try:
            return await asyncio.wait_for(asyncio.shield(fut), FEATURE_WAIT_S)
        except asyncio.TimeoutError:
            return run.result


def lint_items(state: ServerState, builder: DiagnosticBuilder, snap: Snapshot, token: CancelToken | None,
               progress: Any, file_problems: Callable[[Snapshot], list[dict[str, Any]]],
               log_error: Callable[[str], None]) -> tuple[LintResult, list[str]]:
    """One snapshot's lint and its diagnostics as JSON: the scheduler's (in a worker thread), and
    the first lint of a cold open (`first.py`), so both give the same bytes."""
    with gc_paused():
        result = state.lint(snap, token, progress)
    extra: list[dict[str, Any]] = []
    if result.error is not None:
        log_error(f"{snap.path}: {result.error}")
        extra.append(error_diagnostic(result.error))
    extra.extend(file_problems(snap))
    return result, builder.json_items(result, extra)


_gc_lock = threading.Lock()
_gc_pausers = 0


@contextlib.contextmanager
def gc_paused() -> Iterator[None]:
    """No cyclic GC while a lint runs: it allocates many long-lived objects, and each GC pass
    would walk all of them again (it doubles a big file's first lint). Refcounting still frees."""
    global _gc_pausers
    with _gc_lock:
        _gc_pausers += 1
        if _gc_pausers == 1:
            gc.disable()
    try:
        yield
    finally:
        with _gc_lock:
            _gc_pausers -= 1
            if _gc_pausers == 0:
                gc.enable()
