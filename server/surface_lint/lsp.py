"""The language server: a thin pygls 2.x layer over the engine.

Handlers translate LSP messages; `lsp_state` holds documents, configs and the lint memo;
`lsp_features` builds the payloads. Linting runs in a worker thread, never on the message
loop: a change schedules a lint of the newest version (at once after a pause, 50 ms into a
burst of keystrokes), a lint overtaken by a newer version is cancelled and its result is
never shown. Diagnostics go out by push (publishDiagnostics) unless the client pulls
(`textDocument.diagnostic` in its capabilities).

Started by `surface-lint server [--tcp HOST:PORT]` through `start()`.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import inspect
import json
import logging
import os
import re
import sys
import threading
import time
import traceback
from collections.abc import Iterator, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

from lsprotocol import types
from pygls.lsp.server import LanguageServer
from pygls.protocol import LanguageServerProtocol, lsp_method

from . import __version__, lsp_review
from .config import CONFIG_FILES, ConfigError, config_from_table
from .findings import Finding
from .lanes import LaneError, parse_lane
from .lsp_features import (
    SCORE_COMMAND,
    DiagnosticBuilder,
    Positions,
    code_actions,
    completion,
    definition,
    document_symbols,
    error_diagnostic,
    hover,
    items_json,
    lane_score,
    lens_title,
    lsp_range,
)
from .lsp_state import (
    Cancelled,
    CancelToken,
    LintResult,
    ServerState,
    Snapshot,
    TextDoc,
    parse_settings,
    path_to_uri,
    to_client_units,
    uri_to_path,
)

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

log = logging.getLogger("surface_lint.lsp")

LANE_SCORE_METHOD = "surfaceLint/laneScore"
BURST_GAP_S = 0.1  # a change within this long of the previous one is part of a burst
BURST_DELAY_S = 0.05  # how long a burst waits before its lint starts
FEATURE_WAIT_S = 30.0
WATCH_GLOBS = ("**/*.toml", "**/cases*.jsonl")
FREEZE_AFTER_LINES = 2000
TRACE_TIMING = bool(os.environ.get("SURFACE_LINT_TRACE_TIMING"))  # log change->publish times to stderr


class RawResult(str):
    """A handler result that is already JSON text (sent as is, without cattrs)."""


class _Protocol(LanguageServerProtocol):
    """pygls's protocol, with our own document store and pre-serialised results.

    Open documents live in `ServerState.docs` (lines split as the engine reads files, edits
    applied in O(edit)); pygls's workspace copy of them is not kept.
    """

    @lsp_method(types.TEXT_DOCUMENT_DID_OPEN)
    def lsp_text_document__did_open(self, params: types.DidOpenTextDocumentParams) -> Any:
        if (handler := self.fm.features.get(types.TEXT_DOCUMENT_DID_OPEN)) is not None:
            yield handler, (params,), None

    @lsp_method(types.TEXT_DOCUMENT_DID_CHANGE)
    def lsp_text_document__did_change(self, params: types.DidChangeTextDocumentParams) -> Any:
        if (handler := self.fm.features.get(types.TEXT_DOCUMENT_DID_CHANGE)) is not None:
            yield handler, (params,), None

    @lsp_method(types.TEXT_DOCUMENT_DID_CLOSE)
    def lsp_text_document__did_close(self, params: types.DidCloseTextDocumentParams) -> Any:
        if (handler := self.fm.features.get(types.TEXT_DOCUMENT_DID_CLOSE)) is not None:
            yield handler, (params,), None

    _writes: ClassVar[set[asyncio.Future[Any]]] = set()  # pending async writes, kept alive until done

    def _send_response(self, msg_id: Any, result: Any | None = None, error: Any = None) -> None:
        if error is None and isinstance(result, RawResult):
            self.send_raw('{"jsonrpc":"2.0","id":' + json.dumps(msg_id) + ',"result":' + result + "}")
            return
        super()._send_response(msg_id, result, error)

    def send_raw(self, body: str) -> None:
        """Write one JSON-RPC message that is already JSON text."""
        if self.writer is None:
            return
        data = body.encode("utf-8")
        if self._include_headers:
            data = (f"Content-Length: {len(data)}\r\n"
                    f"Content-Type: {self.CONTENT_TYPE}; charset={self.CHARSET}\r\n\r\n").encode() + data
        written = self.writer.write(data)
        if inspect.isawaitable(written):
            task = asyncio.ensure_future(written)
            self._writes.add(task)
            task.add_done_callback(self._writes.discard)


@dataclass
class _Run:
    """Scheduling state of one open document."""

    builder: DiagnosticBuilder
    task: asyncio.Task[None] | None = None
    token: CancelToken | None = None
    dirty: bool = False
    last_change: float = 0.0
    result: LintResult | None = None  # the newest finished lint
    items: list[str] = field(default_factory=list)  # its diagnostics as JSON
    shown: tuple[LintResult, list[str]] | None = None  # what the client was last given
    waiters: list[tuple[int, asyncio.Future[LintResult]]] = field(default_factory=list)
    score: tuple[int | None, int, float, dict[str, Any] | None] | None = None
    score_task: asyncio.Future[dict[str, Any] | None] | None = None
    changed_at: float = 0.0  # perf_counter of the latest didChange (timing trace)


class SurfaceLintServer(LanguageServer):
    def __init__(self) -> None:
        super().__init__("surface-lint", __version__, protocol_cls=_Protocol,
                         text_document_sync_kind=types.TextDocumentSyncKind.Incremental)
        self.state = ServerState()
        self.pool = ThreadPoolExecutor(max_workers=2, thread_name_prefix="surface-lint-lint")
        self.score_pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="surface-lint-score")
        self.runs: dict[str, _Run] = {}
        self.pull = False
        self.related = False
        self.code_description = True
        self.diagnostic_data = True
        self.markdown_hover = True
        self.markdown_completion = True
        self.can_configure = False
        self.can_refresh_diagnostics = False
        self.can_refresh_lenses = False
        self.problem_uris: set[str] = set()  # rules/config files we published problems to
        self.loop: asyncio.AbstractEventLoop | None = None
        _register(self)

    @property
    def raw(self) -> _Protocol:
        assert isinstance(self.protocol, _Protocol)
        return self.protocol

    # --- lifecycle ------------------------------------------------------------------------

    def on_initialize(self, params: types.InitializeParams) -> None:
        state = self.state
        roots = [uri_to_path(f.uri) for f in params.workspace_folders or []]
        if not roots and params.root_uri:
            roots = [uri_to_path(params.root_uri)]
        elif not roots and params.root_path:
            roots = [params.root_path]
        state.roots = [Path(r) for r in roots]
        # {"settings": {...}} (the VS Code extension), {"surfaceLint": {...}} or the settings themselves.
        settings, problems = parse_settings(_plain(params.initialization_options))
        state.set_settings(settings, problems)
        caps = params.capabilities
        text = caps.text_document
        self.pull = text is not None and text.diagnostic is not None
        # What diagnostics may carry: the pull capabilities (LSP 3.18) when they say, else the
        # publishDiagnostics ones (VS Code declares them there only).
        pulled: Any = text.diagnostic if self.pull and text is not None else None
        pushed: Any = text.publish_diagnostics if text is not None else None

        def supports(name: str) -> bool:
            for caps in (pulled, pushed):
                value = getattr(caps, name, None) if caps is not None else None
                if value is not None:
                    return bool(value)
            return False

        self.related = supports("related_information")
        self.code_description = supports("code_description_support")
        self.diagnostic_data = supports("data_support")
        hover_caps = text.hover if text else None
        self.markdown_hover = bool(hover_caps and hover_caps.content_format
                                   and types.MarkupKind.Markdown in hover_caps.content_format)
        item_caps = text.completion.completion_item if text and text.completion else None
        self.markdown_completion = bool(item_caps and item_caps.documentation_format
                                        and types.MarkupKind.Markdown in item_caps.documentation_format)
        ws = caps.workspace
        self.can_configure = bool(ws and ws.configuration)
        self.can_refresh_diagnostics = bool(ws and ws.diagnostics and ws.diagnostics.refresh_support)
        self.can_refresh_lenses = bool(ws and ws.code_lens and ws.code_lens.refresh_support)
        encoding = self.workspace.position_encoding
        state.encoding = str(getattr(encoding, "value", encoding) or "utf-16")

    async def on_initialized(self, params: types.InitializedParams) -> None:
        self.loop = asyncio.get_running_loop()
        caps = self.client_capabilities.workspace
        watch = caps.did_change_watched_files if caps else None
        if watch is not None and watch.dynamic_registration:
            options = types.DidChangeWatchedFilesRegistrationOptions(
                watchers=[types.FileSystemWatcher(glob_pattern=g) for g in WATCH_GLOBS])
            try:
                await self.client_register_capability_async(types.RegistrationParams(registrations=[
                    types.Registration(id="surface-lint-watch", method=types.WORKSPACE_DID_CHANGE_WATCHED_FILES,
                                       register_options=options)]))
            except Exception as exc:  # a client that refuses only loses file watching
                self.log_warning(f"could not register file watchers: {exc}")
        if await self.pull_configuration():
            self.relint_all()  # documents opened before the answer came were linted without it
        self.report_settings_problems()

    def on_shutdown(self, params: Any) -> None:
        for run in self.runs.values():
            if run.token is not None:
                run.token.cancel()
        self.pool.shutdown(wait=False, cancel_futures=True)
        self.score_pool.shutdown(wait=False, cancel_futures=True)

    # --- settings and config ----------------------------------------------------------------

    async def pull_configuration(self) -> bool:
        if not self.can_configure:
            return False
        scope = path_to_uri(str(self.state.roots[0])) if self.state.roots else None
        try:
            answer = await self.workspace_configuration_async(types.ConfigurationParams(
                items=[types.ConfigurationItem(section="surfaceLint", scope_uri=scope)]))
        except Exception as exc:
            self.log_warning(f"workspace/configuration failed: {exc}")
            return False
        raw = answer[0] if isinstance(answer, (list, tuple)) and answer else None
        if raw is None:
            return False
        settings, problems = parse_settings(_plain(raw))
        return self.state.set_settings(settings, problems)

    def report_settings_problems(self) -> None:
        for problem in self.state.settings_problems:
            self.log_warning(f"setting ignored: {problem}")

    async def on_did_change_configuration(self, params: types.DidChangeConfigurationParams) -> None:
        raw = _plain(params.settings)
        changed = False
        if isinstance(raw, Mapping) and ("surfaceLint" in raw or "settings" in raw):
            settings, problems = parse_settings(raw)
            changed = self.state.set_settings(settings, problems)
        else:
            changed = await self.pull_configuration()
        self.report_settings_problems()
        if changed:
            self.relint_all()
            self.publish_file_problems()

    def on_did_change_watched_files(self, params: types.DidChangeWatchedFilesParams) -> None:
        what = None
        for change in params.changes:
            path = uri_to_path(change.uri)
            if path.endswith(".toml"):
                what = "all"
            elif what is None and path.endswith(".jsonl"):
                what = "cases"
        if what is not None:
            self.state.invalidate(what)
            self.relint_all()
            if what == "all":
                self.publish_file_problems()

    def relint_all(self) -> None:
        for uri in list(self.state.docs):
            self.request_lint(uri, 0.0)
        if self.pull and self.can_refresh_diagnostics:
            self.workspace_diagnostic_refresh(None)
        if self.can_refresh_lenses:
            self.workspace_code_lens_refresh(None)

    # --- documents ------------------------------------------------------------------------

    def on_did_open(self, params: types.DidOpenTextDocumentParams) -> None:
        item = params.text_document
        doc = TextDoc(item.uri, item.text, item.version, item.language_id)
        self.state.docs[item.uri] = doc
        self.runs[item.uri] = _Run(self._builder())
        self.request_lint(item.uri, 0.0)

    def on_did_change(self, params: types.DidChangeTextDocumentParams) -> None:
        uri = params.text_document.uri
        doc = self.state.docs.get(uri)
        if doc is None:
            return
        encoding = self.state.encoding
        for change in params.content_changes:
            if isinstance(change, types.TextDocumentContentChangePartial):
                r = change.range
                doc.apply_change((r.start.line, r.start.character, r.end.line, r.end.character), change.text,
                                 encoding)
            else:
                doc.apply_change(None, change.text, encoding)
        doc.version = params.text_document.version
        run = self.runs[uri]
        now = time.monotonic()
        delay = BURST_DELAY_S if now - run.last_change < BURST_GAP_S else 0.0
        run.last_change = now
        run.changed_at = time.perf_counter()
        if self.state.settings.run == "onType" or self._is_settings_file(doc.path):
            self.request_lint(uri, delay)

    def on_did_save(self, params: types.DidSaveTextDocumentParams) -> None:
        uri = params.text_document.uri
        doc = self.state.docs.get(uri)
        path = doc.path if doc is not None else uri_to_path(uri)
        if doc is not None:
            doc.saved_version = doc.version
        if self._is_settings_file(path):
            self.state.invalidate("all")
            self.relint_all()
            self.publish_file_problems()
            return
        run = self.runs.get(uri)
        if run is not None and run.result is not None and run.result.kind == "cases":
            # Transcripts join to case files as saved: re-check the other open documents.
            self.state.invalidate("cases")
            for other in list(self.state.docs):
                if other != uri:
                    self.request_lint(other, 0.0)
        if doc is not None:
            self.request_lint(uri, 0.0)

    def on_did_close(self, params: types.DidCloseTextDocumentParams) -> None:
        uri = params.text_document.uri
        run = self.runs.pop(uri, None)
        if run is not None and run.token is not None:
            run.token.cancel()
        doc = self.state.docs.get(uri)
        self.state.forget(uri)
        if doc is not None and not self.pull:
            self.publish(uri, None, [])

    def _is_settings_file(self, path: str) -> bool:
        return Path(path).name in CONFIG_FILES or (path.endswith(".toml") and self.state.is_rules_file(path))

    # --- scheduling -----------------------------------------------------------------------

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

    async def _lint_loop(self, uri: str, run: _Run, delay: float) -> None:
        try:
            await self._lint_until_current(uri, run, delay)
        except Exception as exc:  # a bug: say so on the document rather than fall silent
            self.log_error(f"{uri}: {type(exc).__name__}: {exc}\n{''.join(traceback.format_exception(exc))}")
            if not self.pull and uri in self.state.docs:
                doc = self.state.docs[uri]
                message = f"surface-lint could not check this document: {type(exc).__name__}: {exc}"
                self.publish(uri, doc.version, [json.dumps(error_diagnostic(message))])

    async def _lint_until_current(self, uri: str, run: _Run, delay: float) -> None:
        if delay:
            await asyncio.sleep(delay)
        loop = asyncio.get_running_loop()
        while True:
            doc = self.state.docs.get(uri)
            if doc is None or self.runs.get(uri) is not run:
                return
            run.dirty = False
            if self._is_current(run.result, doc):
                self._finish(uri, run)
                return
            snap = Snapshot.of(doc)
            token = run.token = CancelToken()
            progress = None
            if not self.pull and self._should_show(doc, snap.version):
                progress = self._progress_publisher(uri, run, snap, loop)
            try:
                result, items = await loop.run_in_executor(self.pool, self._lint_job, run, snap, token, progress)
            except Cancelled:
                continue
            except RuntimeError as exc:
                if "shutdown" in str(exc):  # the pool is shut down: the server is stopping
                    return
                raise
            run.result, run.items = result, items
            if result.rechecked >= FREEZE_AFTER_LINES:
                # A big document's results live as long as it is open: keep the cyclic GC from
                # walking them again and again on every later keystroke (pauses of 50+ ms).
                gc.freeze()
            if run.dirty or doc.version != snap.version:
                continue  # a newer version arrived while linting: this one is never shown
            self._finish(uri, run)
            return

    def _lint_job(self, run: _Run, snap: Snapshot, token: CancelToken,
                  progress: Any) -> tuple[LintResult, list[str]]:
        """In a worker thread: lint, then build the diagnostics' JSON."""
        with _gc_paused():
            result = self.state.lint(snap, token, progress)
        extra: list[dict[str, Any]] = []
        if result.error is not None:
            self.log_error(f"{snap.path}: {result.error}")
            extra.append(error_diagnostic(result.error))
        extra.extend(self._file_problem_diagnostics(snap))
        return result, run.builder.json_items(result, extra)

    def _progress_publisher(self, uri: str, run: _Run, snap: Snapshot, loop: asyncio.AbstractEventLoop) -> Any:
        """Publish the findings of the lines checked so far while a long first lint runs."""
        def progress(findings: list[Finding]) -> None:
            partial = LintResult(snap.uri, snap.path, snap.version, snap.lines, None, None, findings, [],
                                 self.state.engine_for(snap.path))
            if run.result is not None and run.result.lane is not None:
                partial.lane = run.result.lane
            items = run.builder.json_items(partial, (), keep=True)
            loop.call_soon_threadsafe(self._publish_partial, uri, run, snap.version, items)
        return progress

    def _publish_partial(self, uri: str, run: _Run, version: int | None, items: list[str]) -> None:
        doc = self.state.docs.get(uri)
        if doc is None or doc.version != version or run.dirty or self.runs.get(uri) is not run:
            return
        if run.result is not None and run.result.version == version:
            return  # the full result is out already
        self.publish(uri, version, items)

    def _is_current(self, result: LintResult | None, doc: TextDoc) -> bool:
        return (result is not None and result.version == doc.version
                and result.generation == self.state.generation)

    def _should_show(self, doc: TextDoc, version: int | None) -> bool:
        return self.state.settings.run == "onType" or version == doc.saved_version \
            or self._is_settings_file(doc.path)

    def _finish(self, uri: str, run: _Run) -> None:
        result = run.result
        doc = self.state.docs.get(uri)
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
        if self._should_show(doc, result.version):
            run.shown = (result, run.items)
            if not self.pull:
                self.publish(uri, result.version, run.items)
            if TRACE_TIMING:
                since = (time.perf_counter() - run.changed_at) * 1000 if run.changed_at else float("nan")
                log.warning("timing %s v%s: change->shown %.1f ms; lint %.1f ms, %d line(s) re-checked, "
                            "%d diagnostic(s)", Path(result.path).name, result.version, since,
                            result.seconds * 1000, result.rechecked, len(run.items))

    async def current_result(self, uri: str) -> LintResult | None:
        """The lint of the document's current version (waiting for it when needed)."""
        doc = self.state.docs.get(uri)
        run = self.runs.get(uri)
        if doc is None or run is None:
            return None
        if self._is_current(run.result, doc):
            return run.result
        fut: asyncio.Future[LintResult] = asyncio.get_running_loop().create_future()
        run.waiters.append((doc.version or 0, fut))
        self.request_lint(uri, 0.0)
        try:
            return await asyncio.wait_for(asyncio.shield(fut), FEATURE_WAIT_S)
        except asyncio.TimeoutError:
            return run.result

    # --- output -----------------------------------------------------------------------------

    def publish(self, uri: str, version: int | None, items: list[str]) -> None:
        params = '{"uri":' + json.dumps(uri)
        if version is not None:
            params += ',"version":' + json.dumps(version)
        params += ',"diagnostics":' + items_json(items) + "}"
        self.raw.send_raw('{"jsonrpc":"2.0","method":"textDocument/publishDiagnostics","params":' + params + "}")

    def log_error(self, message: str) -> None:
        log.error("%s", message)
        self._log(types.MessageType.Error, message)

    def log_warning(self, message: str) -> None:
        self._log(types.MessageType.Warning, message)

    def _log(self, kind: types.MessageType, message: str) -> None:
        params = types.LogMessageParams(type=kind, message=f"surface-lint: {message}")
        try:
            asyncio.get_running_loop()
        except RuntimeError:  # a worker thread: hand the message to the loop
            if self.loop is not None:
                self.loop.call_soon_threadsafe(self.window_log_message, params)
            return
        self.window_log_message(params)

    # --- rules and config files ---------------------------------------------------------------

    def _file_problem_diagnostics(self, snap: Snapshot) -> list[dict[str, Any]]:
        """Problems of an open rules file (validated from the buffer) or config file."""
        path = snap.path
        name = Path(path).name
        text = "\n".join(snap.lines)
        if name in CONFIG_FILES:
            try:
                data = tomllib.loads(text)
                table = data.get("tool", {}).get("surface-lint") if name == "pyproject.toml" else data
                if name != "pyproject.toml" and isinstance(data.get("tool"), dict):
                    table = data["tool"].get("surface-lint", table)
                if isinstance(table, dict):
                    config_from_table(table, Path(path), text)
            except tomllib.TOMLDecodeError as exc:
                where = re.search(r"line (\d+), column (\d+)", str(exc))
                line, column = (int(where.group(1)), int(where.group(2))) if where else (1, 1)
                return [self._line_diagnostic(snap, line, column, f"invalid TOML: {exc}", "config")]
            except ConfigError as exc:
                return [self._line_diagnostic(snap, exc.line, 1, exc.message, "config")]
            return []
        if path.endswith(".toml") and self.state.is_rules_file(path):
            entry = self.state.engine_for(path)
            try:
                parse_lane(text, path, entry.engine.profile)
            except LaneError as exc:
                return [self._line_diagnostic(snap, exc.line, exc.column, self._lane_message(exc, entry.kept),
                                              "SL014")]
        return []

    def _lane_message(self, exc: LaneError, kept: Mapping[str, str]) -> str:
        lane = kept.get(exc.path)
        tail = f"; lane `{lane}` keeps its last good rules until this file loads" if lane else ""
        return f"{exc.message}{tail}"

    def _line_diagnostic(self, snap: Snapshot | None, line: int, column: int, message: str,
                         code: str, lines: list[str] | None = None) -> dict[str, Any]:
        index = max(line - 1, 0)
        text = snap.line(index) if snap is not None else (lines[index] if lines and index < len(lines) else "")
        start = to_client_units(text, max(column - 1, 0), self.state.encoding)
        end = to_client_units(text, len(text), self.state.encoding)
        return error_diagnostic(message, code, rng=lsp_range(index, min(start, end), index, end))

    def publish_file_problems(self) -> None:
        """Push the load errors of rules and config files that are not open (both modes)."""
        problems: dict[str, list[dict[str, Any]]] = {}
        seen_entries = {id(e): e for e in (self.state.engine_for(d.path) for d in list(self.state.docs.values()))}
        for entry in seen_entries.values():
            for err in entry.lane_errors:
                lines = self.state.file_lines(err.path)
                problems.setdefault(path_to_uri(err.path), []).append(
                    self._line_diagnostic(None, err.line, err.column, self._lane_message(err, entry.kept), "SL014",
                                          lines))
            if entry.config_error is not None and entry.config_path is not None:
                err_c = entry.config_error
                problems.setdefault(path_to_uri(str(entry.config_path)), []).append(
                    self._line_diagnostic(None, err_c.line, 1, err_c.message, "config",
                                          self.state.file_lines(str(entry.config_path))))
        open_uris = set(self.state.docs)
        for uri in self.problem_uris - set(problems):
            if uri not in open_uris:
                self.publish(uri, None, [])
        for uri, diags in problems.items():
            if uri not in open_uris:
                self.publish(uri, None, [json.dumps(d) for d in diags])
        self.problem_uris = set(problems)

    # --- pull diagnostics ---------------------------------------------------------------------

    async def on_document_diagnostic(self, params: types.DocumentDiagnosticParams) -> RawResult:
        uri = params.text_document.uri
        run = self.runs.get(uri)
        doc = self.state.docs.get(uri)
        if run is None or doc is None:
            return RawResult('{"kind":"full","items":[]}')
        if self._should_show(doc, doc.version):
            await self.current_result(uri)
        shown = run.shown
        if shown is None:
            await self.current_result(uri)
            shown = (run.result, run.items) if run.result is not None else None
        if shown is None:
            return RawResult('{"kind":"full","items":[]}')
        result, items = shown
        result_id = f"{result.generation}:{result.version}:{id(result)}"
        if params.previous_result_id == result_id:
            return RawResult(json.dumps({"kind": "unchanged", "resultId": result_id}))
        return RawResult('{"kind":"full","resultId":' + json.dumps(result_id) + ',"items":' + items_json(items) + "}")

    async def on_workspace_diagnostic(self, params: types.WorkspaceDiagnosticParams) -> RawResult:
        """Every case file under the workspace roots that is not open (open ones are pulled)."""
        previous = {p.uri: p.value for p in params.previous_result_ids or []}
        loop = asyncio.get_running_loop()
        reports = await loop.run_in_executor(self.pool, self._workspace_reports, previous)
        return RawResult('{"items":[' + ",".join(reports) + "]}")

    def _workspace_reports(self, previous: Mapping[str, str]) -> list[str]:
        out: list[str] = []
        open_paths = {d.path for d in list(self.state.docs.values())}
        for root in self.state.roots:
            entry = self.state.engine_for(str(root / "_"))
            for path in self.state.all_case_files(entry, root)[:1000]:
                if path in open_paths:
                    continue
                uri = path_to_uri(path)
                try:
                    data = Path(path).read_bytes()
                except OSError:
                    continue
                result_id = f"{self.state.generation}:{hash(data)}"
                if previous.get(uri) == result_id:
                    out.append(json.dumps({"kind": "unchanged", "uri": uri, "resultId": result_id, "version": None}))
                    continue
                doc = TextDoc(uri, data.decode("utf-8", "replace"), None)
                snap = Snapshot.of(doc)
                result = self.state.lint(snap)
                self.state.memos.pop(uri, None)
                builder = self._builder()
                extra = [error_diagnostic(result.error)] if result.error else []
                items = builder.json_items(result, extra)
                out.append('{"kind":"full","uri":' + json.dumps(uri) + ',"version":null,"resultId":'
                           + json.dumps(result_id) + ',"items":' + items_json(items) + "}")
        return out

    # --- features -----------------------------------------------------------------------------

    def _builder(self) -> DiagnosticBuilder:
        return DiagnosticBuilder(self._positions(), self.related, self.code_description, self.diagnostic_data)

    def _positions(self) -> Positions:
        return Positions(self.state.encoding, self.state.file_lines)

    async def _at(self, uri: str, position: types.Position) -> tuple[LintResult, int, int] | None:
        doc = self.state.docs.get(uri)
        if doc is None:
            return None
        result = await self.current_result(uri)
        if result is None:
            return None
        line, column = doc.point(position.line, position.character, self.state.encoding)
        if line >= len(result.lines):
            return None
        return result, line, column

    async def on_hover(self, params: types.HoverParams) -> RawResult | None:
        at = await self._at(params.text_document.uri, params.position)
        if at is None:
            return None
        found = hover(at[0], at[1], at[2], self._positions(), self.markdown_hover)
        return RawResult(json.dumps(found)) if found is not None else None

    async def on_completion(self, params: types.CompletionParams) -> RawResult | None:
        at = await self._at(params.text_document.uri, params.position)
        if at is None:
            return None
        result, line, column = at
        lane = None
        if result.entry is not None:
            name = result.lane or _lane_of_path(result)
            lane = result.entry.engine.lane_set.get(name) if name else None
        items = completion(result, lane, line, column, self._positions(), self.markdown_completion)
        return RawResult(json.dumps({"isIncomplete": False, "items": items}))

    async def on_code_action(self, params: types.CodeActionParams) -> RawResult | None:
        uri = params.text_document.uri
        doc = self.state.docs.get(uri)
        result = await self.current_result(uri) if doc is not None else None
        if result is None or doc is None:
            return None
        r = params.range
        sl, sc = doc.point(r.start.line, r.start.character, self.state.encoding)
        el, ec = doc.point(r.end.line, r.end.character, self.state.encoding)
        run = self.runs[uri]
        enc = self.state.encoding
        requested = lsp_range(sl, to_client_units(doc.line(sl), sc, enc), el, to_client_units(doc.line(el), ec, enc))
        only = [str(getattr(k, "value", k)) for k in (params.context.only or [])]
        actions = code_actions(result, requested, run.builder, only or None)
        return RawResult(json.dumps(actions))

    async def on_document_symbol(self, params: types.DocumentSymbolParams) -> RawResult | None:
        result = await self.current_result(params.text_document.uri)
        if result is None:
            return None
        return RawResult(json.dumps(document_symbols(result, self._positions())))

    async def on_definition(self, params: types.DefinitionParams) -> RawResult | None:
        at = await self._at(params.text_document.uri, params.position)
        if at is None:
            return None
        found = definition(at[0], at[1], at[2], self._positions())
        return RawResult(json.dumps(found)) if found is not None else None

    async def on_code_lens(self, params: types.CodeLensParams) -> RawResult | None:
        uri = params.text_document.uri
        score = await self.score_of(uri)
        if score is None:
            return RawResult("[]")
        lens = {"range": lsp_range(0, 0, 0, 0),
                "command": {"title": lens_title(score), "command": SCORE_COMMAND, "arguments": [uri]}}
        return RawResult(json.dumps([lens]))

    async def on_lane_score(self, params: Any) -> RawResult:
        uri = params.get("uri") if isinstance(params, Mapping) else getattr(params, "uri", None)
        if not isinstance(uri, str):
            return RawResult("null")
        score = await self.score_of(uri)
        return RawResult(json.dumps(score))

    async def score_of(self, uri: str) -> dict[str, Any] | None:
        """The lane score of a transcript or report buffer (cached per version)."""
        result = await self.current_result(uri)
        run = self.runs.get(uri)
        if result is None or run is None or result.lane is None or result.entry is None \
                or result.kind not in ("turns", "telemetry", "report"):
            return None
        generation = self.state.generation
        cached = run.score
        if cached is not None and cached[1] == generation:
            fresh = cached[0] == result.version
            # A big transcript is rescored at most every few seconds while it is being edited.
            if fresh or (len(result.lines) > 5000 and time.monotonic() - cached[2] < 5.0):
                return cached[3]
        if run.score_task is None or run.score_task.done():
            loop = asyncio.get_running_loop()
            run.score_task = loop.run_in_executor(self.score_pool, self._score_job, result)
        task = run.score_task
        try:
            score = await asyncio.shield(task)
        except Exception as exc:
            self.log_error(f"{result.path}: could not score the lane: {type(exc).__name__}: {exc}")
            return None
        run.score = (result.version, generation, time.monotonic(), score)
        return score

    def _score_job(self, result: LintResult) -> dict[str, Any] | None:
        assert result.entry is not None and result.lane is not None
        engine = result.entry.engine
        texts = {result.path: "\n".join(result.lines).encode("utf-8", "surrogatepass")}
        for path in result.case_paths:
            doc = next((d for d in list(self.state.docs.values()) if d.path == path), None)
            if doc is not None:
                texts[path] = doc.text.encode("utf-8", "surrogatepass")
        lane_result = engine.score(result.lane, list(result.case_paths), [result.path], None, False, 0, texts)
        return lane_score(lane_result, Path(result.path).name)


_gc_lock = threading.Lock()
_gc_pausers = 0


@contextlib.contextmanager
def _gc_paused() -> Iterator[None]:
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


def _lane_of_path(result: LintResult) -> str | None:
    if result.entry is None:
        return None
    lane = result.entry.engine.detect_lane(result.path, "cases")
    return lane.name if lane else None


def _plain(value: Any) -> Any:
    """pygls hands untyped JSON over as namedtuples: back to dicts and lists."""
    if hasattr(value, "_asdict"):
        return {k: _plain(v) for k, v in value._asdict().items()}
    if isinstance(value, Mapping):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value


def _handler(server: SurfaceLintServer, method: Any) -> Any:
    """A plain function around a bound method (pygls sets attributes on handlers). A bug in a
    handler is logged (with its traceback) and answered with nothing, never a dead request."""
    def failed(exc: Exception) -> None:
        detail = "".join(traceback.format_exception(exc)).rstrip()
        server.log_error(f"{method.__name__} failed: {type(exc).__name__}: {exc}\n{detail}")

    if inspect.iscoroutinefunction(method):
        async def handle_async(params: Any) -> Any:
            try:
                return await method(params)
            except Exception as exc:
                failed(exc)
                return None
        return handle_async

    def handle(params: Any) -> Any:
        try:
            return method(params)
        except Exception as exc:
            failed(exc)
            return None
    return handle


def _register(server: SurfaceLintServer) -> None:
    def f(name: str, options: Any = None) -> Any:
        return lambda method: server.feature(name, options)(_handler(server, method))
    f(types.INITIALIZE)(server.on_initialize)
    f(types.INITIALIZED)(server.on_initialized)
    f(types.SHUTDOWN)(server.on_shutdown)
    f(types.TEXT_DOCUMENT_DID_OPEN)(server.on_did_open)
    f(types.TEXT_DOCUMENT_DID_CHANGE)(server.on_did_change)
    f(types.TEXT_DOCUMENT_DID_SAVE, types.SaveOptions(include_text=False))(server.on_did_save)
    f(types.TEXT_DOCUMENT_DID_CLOSE)(server.on_did_close)
    f(types.WORKSPACE_DID_CHANGE_CONFIGURATION)(server.on_did_change_configuration)
    f(types.WORKSPACE_DID_CHANGE_WATCHED_FILES)(server.on_did_change_watched_files)
    f(types.TEXT_DOCUMENT_DIAGNOSTIC, types.DiagnosticOptions(
        identifier="surface-lint", inter_file_dependencies=True, workspace_diagnostics=True))(
        server.on_document_diagnostic)
    f(types.WORKSPACE_DIAGNOSTIC)(server.on_workspace_diagnostic)
    f(types.TEXT_DOCUMENT_HOVER)(server.on_hover)
    f(types.TEXT_DOCUMENT_COMPLETION, types.CompletionOptions(trigger_characters=['"', "[", ",", "{"]))(
        server.on_completion)
    f(types.TEXT_DOCUMENT_CODE_ACTION, types.CodeActionOptions(
        code_action_kinds=[types.CodeActionKind.QuickFix]))(server.on_code_action)
    f(types.TEXT_DOCUMENT_DOCUMENT_SYMBOL)(server.on_document_symbol)
    f(types.TEXT_DOCUMENT_DEFINITION)(server.on_definition)
    f(types.TEXT_DOCUMENT_CODE_LENS, types.CodeLensOptions(resolve_provider=False))(server.on_code_lens)
    f(LANE_SCORE_METHOD)(server.on_lane_score)
    lsp_review.register(server)  # review: case lenses, references, surfaceLint/review, runDiff


def create_server() -> SurfaceLintServer:
    return SurfaceLintServer()


def start(tcp: str | None = None) -> None:
    """Run the server on stdio, or on TCP when given HOST:PORT."""
    logging.basicConfig(level=logging.WARNING, stream=sys.stderr,
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    server = create_server()
    if tcp:
        host, _, port = tcp.rpartition(":")
        server.start_tcp(host or "127.0.0.1", int(port))
    else:
        server.start_io()
