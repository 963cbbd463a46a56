"""The language server session: lifecycle, settings, document sync and output.

Handlers translate LSP messages; `workspace.ServerState` holds documents, configs and the
lint memo; `scheduler` decides when to lint; `features` builds the payloads and registers
their handlers (in one place). Diagnostics go out by push (publishDiagnostics) unless the
client pulls (`textDocument.diagnostic` in its capabilities).
"""

from __future__ import annotations

import asyncio
import inspect
import json
import logging
import sys
import time
import traceback
from collections.abc import Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from lsprotocol import types
from pygls.exceptions import JsonRpcInvalidParams
from pygls.lsp.server import LanguageServer

from .. import __version__
from ..engine.config import CONFIG_FILES, SETTINGS_SOURCE, ConfigError, parse_config, resolve_severity
from ..model.checks import CheckCode
from ..rules.extends import extends_at
from ..rules.loader import PROFILES, LaneError, _check_codes_free, builtin_rule_files, parse_lane
from .diagnostic_json import DiagnosticBuilder, diagnostic_support, error_diagnostic, publish_message
from .documents import LineMap, Snapshot, TextDoc, path_to_uri, uri_to_path
from .features import code_actions, completion, diagnostics, hover, lane_score, review, symbols
from .features.common import Positions, lsp_range
from .features.lane_toml import is_lane_document
from .lint import EngineEntry, LintResult
from .scheduler import Scheduler
from .wire import ParamField, Protocol, RequestFailed, plain_json, strict_converter
from .workspace import ServerState, _resolve, parse_settings, start_session

log = logging.getLogger("surface_lint.lsp")

DID_GRANT_TRUST = "surfaceLint/didGrantTrust"  # notification, no params (HELPERS.md trust contract)
WATCH_GLOBS = ("**/*.toml", "**/cases*.jsonl")


# Every feature module, registered in this order (the code lens handlers combine in it).
FEATURE_MODULES = (diagnostics, hover, completion, code_actions, symbols, lane_score, review)


def register_features(server: SurfaceLintServer) -> None:
    for module in FEATURE_MODULES:
        module.register(server)


class SurfaceLintServer(LanguageServer):
    def __init__(self) -> None:
        super().__init__("surface-lint", __version__, protocol_cls=Protocol, converter_factory=strict_converter,
                         text_document_sync_kind=types.TextDocumentSyncKind.Incremental)
        self.state = ServerState()
        self.score_pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="surface-lint-score")
        self.scheduler = Scheduler(self)
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
        # uri -> (resultId, items) of the first pull first.py answered: a pull that gives that
        # resultId while the server's items are the same is answered unchanged (features.diagnostics).
        self.first_reports: dict[str, tuple[str, Any]] = {}
        self.loop: asyncio.AbstractEventLoop | None = None
        self._register_lifecycle()
        register_features(self)

    @property
    def raw(self) -> Protocol:
        assert isinstance(self.protocol, Protocol)
        return self.protocol

    # --- lifecycle ------------------------------------------------------------------------

    def on_initialize(self, params: types.InitializeParams) -> None:
        state = self.state
        start_session(state, [f.uri for f in params.workspace_folders or []], params.root_uri, params.root_path,
                      plain_json(params.initialization_options))
        caps = params.capabilities
        text = caps.text_document
        plain = strict_converter().unstructure(text) if text is not None else None
        self.pull, self.related, self.code_description, self.diagnostic_data = diagnostic_support(plain)
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
        self.preload_engine()
        await self.report_settings_problems()

    def preload_engine(self) -> None:
        """Load the lanes of the first workspace folder's files now, on the lint pool, so that the
        first document opened finds them loaded (its lint waits for this load, never repeats it)."""
        if not self.state.roots or self.loop is None:
            return
        path = str(self.state.roots[0] / CONFIG_FILES[0])

        def load() -> None:
            try:
                self.state.engine_for(path)
            except Exception:  # the first lint builds it again and reports what is wrong
                log.exception("could not load the lanes before the first lint")

        try:
            self.loop.run_in_executor(self.scheduler.pool, load)
        except RuntimeError:  # the session is already shutting down
            pass

    def on_shutdown(self, params: Any) -> None:
        self.close_session()

    def close_session(self) -> None:
        """Stop this session's lint work (shutdown, exit, or its connection closed)."""
        self.scheduler.stop()
        self.score_pool.shutdown(wait=False, cancel_futures=True)

    def report_server_error(self, error: Exception, source: Any) -> None:
        """A notification with invalid params is said to the client (there is no response to
        carry it, and pygls only logs it); anything else is logged as pygls does."""
        if isinstance(error, JsonRpcInvalidParams):
            self.log_error(error.message)
            return
        super().report_server_error(error, source)

    def shutdown(self) -> None:
        """pygls's shutdown without waiting on its pool: its stdin reader may block forever."""
        if self._stop_event is not None:
            self._stop_event.set()
        if self._thread_pool is not None:
            self._thread_pool.shutdown(wait=False, cancel_futures=True)
        if self._server is not None:
            self._server.close()

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
        settings, problems = parse_settings(plain_json(raw))
        return self.state.set_settings(settings, problems)

    def on_did_grant_trust(self, params: Any) -> None:
        """The client's workspace became trusted: load its config and lane files now."""
        if self.state.set_trusted(True):
            self.relint_all()
            self.publish_file_problems()

    async def report_settings_problems(self) -> None:
        """Each setting that cannot be used, as a log message and a notification: the values
        parse_settings rejects, and the severity keys the config's resolver cannot map (a typo
        in a code or a name, with its did-you-mean). The resolver needs the lanes: off the loop."""
        problems = await asyncio.to_thread(self.state.all_settings_problems)
        for problem in problems:
            self.log_warning(f"setting ignored: {problem}")
            self.window_show_message(types.ShowMessageParams(
                type=types.MessageType.Warning, message=f"surface-lint: setting ignored: {problem}"))

    async def on_did_change_configuration(self, params: types.DidChangeConfigurationParams) -> None:
        raw = plain_json(params.settings)
        changed = False
        if isinstance(raw, Mapping) and ("surfaceLint" in raw or "settings" in raw):
            settings, problems = parse_settings(raw)
            changed = self.state.set_settings(settings, problems)
        else:
            changed = await self.pull_configuration()
        await self.report_settings_problems()
        if changed:
            self.relint_all()
            self.publish_file_problems()

    def on_did_change_workspace_folders(self, params: types.DidChangeWorkspaceFoldersParams) -> None:
        """The folders the server reads from follow the client's (see ServerState.may_read)."""
        removed = {Path(uri_to_path(f.uri)) for f in params.event.removed}
        roots = [r for r in self.state.roots if r not in removed]
        roots += [p for p in (Path(uri_to_path(f.uri)) for f in params.event.added) if p not in roots]
        with self.state.lock:
            self.state.roots = roots
        self.state.invalidate("cases")
        self.relint_all()

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
            self.scheduler.request_lint(uri, 0.0)
        self.refresh_diagnostics()
        if self.can_refresh_lenses:
            self.workspace_code_lens_refresh(None)

    def refresh_diagnostics(self) -> None:
        """A pulling client is asked to pull every document's diagnostics again."""
        if self.pull and self.can_refresh_diagnostics:
            self.workspace_diagnostic_refresh(None)

    # --- documents ------------------------------------------------------------------------

    def on_did_open(self, params: types.DidOpenTextDocumentParams) -> None:
        item = params.text_document
        doc = TextDoc(item.uri, item.text, item.version, item.language_id)
        self.state.docs[item.uri] = doc
        self.scheduler.open(item.uri, self.diagnostic_builder())

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
        self.scheduler.runs[uri].changed_at = time.perf_counter()
        if self.state.settings.run == "onType" or self.is_settings_file(doc.path):
            # At once: a change during a lint cancels it, and the newest version is linted next
            # (a burst coalesces into the lints it overtakes, never waits on a timer).
            self.scheduler.request_lint(uri, 0.0)

    def on_did_save(self, params: types.DidSaveTextDocumentParams) -> None:
        uri = params.text_document.uri
        doc = self.state.docs.get(uri)
        path = doc.path if doc is not None else uri_to_path(uri)
        if doc is not None:
            doc.saved_version = doc.version
        if self.is_settings_file(path):
            self.state.invalidate("all")
            self.relint_all()
            self.publish_file_problems()
            return
        run = self.scheduler.runs.get(uri)
        if run is not None and run.result is not None and run.result.kind == "cases":
            # Transcripts join to case files as saved: re-check the other open documents.
            self.state.invalidate("cases")
            for other in list(self.state.docs):
                if other != uri:
                    self.scheduler.request_lint(other, 0.0)
        if doc is not None:
            self.scheduler.request_lint(uri, 0.0)

    def on_did_close(self, params: types.DidCloseTextDocumentParams) -> None:
        uri = params.text_document.uri
        self.scheduler.close(uri)
        doc = self.state.docs.get(uri)
        self.state.forget(uri)
        if doc is not None and not self.pull:
            self.publish(uri, None, [])

    def is_settings_file(self, path: str) -> bool:
        return Path(path).name in CONFIG_FILES or (path.endswith(".toml") and self.state.is_rules_file(path))


    def publish(self, uri: str, version: int | None, items: list[str]) -> None:
        self.raw.send_raw(publish_message(uri, version, items))

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

    def file_problem_diagnostics(self, snap: Snapshot) -> list[dict[str, Any]]:
        """Problems of an open rules file (validated from the buffer) or config file."""
        path = snap.path
        name = Path(path).name
        text = "\n".join(snap.lines)
        if name in CONFIG_FILES:
            try:
                config = parse_config(text, Path(path))  # the CLI's validation: TOML, table types, every key
            except ConfigError as exc:
                return [self._line_diagnostic(snap, exc.line, exc.column, exc.message, "config")]
            # Its severity keys, through the resolver the CLI uses (against the lanes it loads).
            lanes = self.state.engine_for(path).engine.lane_set.lanes.values()
            return [self._line_diagnostic(snap, err.line, err.column, err.message, "config")
                    for err in (config.severity_error(p) for p in resolve_severity(config.severity, lanes).problems)]
        if path.endswith(".toml") and (self.state.is_rules_file(path) or is_lane_document(path, snap.lines)):
            entry = self.state.engine_for(path)
            try:
                self._validate_lane_buffer(text, path, entry)
            except LaneError as exc:
                if _resolve(exc.path) != _resolve(path):  # in a file it extends: at its `extends` key, naming where
                    line, column = extends_at(text)
                    inherited = LaneError(path, line, f"{exc.path}:{exc.line}:{exc.column}: {exc.message}", column)
                    return [self._line_diagnostic(snap, line, column, self._lane_message(inherited, entry.kept),
                                                  CheckCode.RULES_FILE)]
                return [self._line_diagnostic(snap, exc.line, exc.column, self._lane_message(exc, entry.kept),
                                              CheckCode.RULES_FILE)]
        return []

    def _validate_lane_buffer(self, text: str, path: str, entry: EngineEntry) -> None:
        """What `load_lanes` checks of one file, on the buffer: the file in the profile in use,
        a user's file in every profile, and its codes against the lanes loaded before it."""
        engine = entry.engine
        lane = parse_lane(text, path, engine.profile)
        builtin = [_resolve(str(p)) for p in builtin_rule_files()]
        order = [*builtin, *(_resolve(str(p)) for p in engine.config.lane_files)]
        here = _resolve(path)
        if here not in builtin:
            for other in PROFILES:
                if other != engine.profile:
                    parse_lane(text, path, other)
        earlier = set(order[:order.index(here)]) if here in order else set(order)
        _check_codes_free(lane, {name: other for name, other in engine.lane_set.lanes.items()
                                 if _resolve(other.path) in earlier})

    def _lane_message(self, exc: LaneError, kept: Mapping[str, str]) -> str:
        lane = kept.get(exc.path)
        tail = f"; lane `{lane}` keeps its last good rules until this file loads" if lane else ""
        return f"{exc.message}{tail}"

    def _line_diagnostic(self, snap: Snapshot | None, line: int, column: int, message: str,
                         code: str, lines: LineMap | None = None) -> dict[str, Any]:
        """From (1-based line, column) to the end of that line."""
        linemap = snap.linemap if snap is not None else lines if lines is not None else LineMap([], {})
        index = max(line - 1, 0)
        start = linemap.to_client(index, max(column - 1, 0), self.state.encoding)
        end = linemap.to_client(index, sys.maxsize, self.state.encoding)
        return error_diagnostic(message, code, rng=lsp_range(*min(start, end), *end))

    def publish_file_problems(self) -> None:
        """Push the load errors of rules and config files that are not open (both modes)."""
        problems: dict[str, list[dict[str, Any]]] = {}
        seen_entries = {id(e): e for e in (self.state.engine_for(d.path) for d in list(self.state.docs.values()))}
        for entry in seen_entries.values():
            for err in entry.lane_errors:
                lines = self.state.file_lines(err.path)
                problems.setdefault(path_to_uri(err.path), []).append(
                    self._line_diagnostic(None, err.line, err.column, self._lane_message(err, entry.kept), CheckCode.RULES_FILE,
                                          lines))
            for err_s in entry.engine.severity_errors:
                if err_s.path != SETTINGS_SOURCE:  # a config file's key (the settings' are logged)
                    problems.setdefault(path_to_uri(err_s.path), []).append(self._line_diagnostic(
                        None, err_s.line, err_s.column, err_s.message, "config", self.state.file_lines(err_s.path)))
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

    # --- what features share ------------------------------------------------------------------

    def diagnostic_builder(self) -> DiagnosticBuilder:
        return DiagnosticBuilder(self.positions(), self.related, self.code_description, self.diagnostic_data)

    def positions(self) -> Positions:
        return Positions(self.state.encoding, self.state.file_lines)

    async def at(self, uri: str, position: types.Position) -> tuple[LintResult, int, int] | None:
        doc = self.state.docs.get(uri)
        if doc is None:
            return None
        result = await self.scheduler.current_result(uri)
        if result is None:
            return None
        line, column = doc.point(position.line, position.character, self.state.encoding)
        if line >= len(result.lines):
            return None
        return result, line, column

    async def current_result(self, uri: str) -> LintResult | None:
        """The lint of the document's current version (waiting for it when needed)."""
        return await self.scheduler.current_result(uri)

    def handle(self, method: str, options: Any = None,
               params: Mapping[str, ParamField] | None = None) -> Callable[[Any], Any]:
        """Register a handler; a bug in it is logged (with its traceback) and answered with
        nothing, never a dead request. `params`: the fields of a custom request's params, checked
        before the handler runs (-32602 otherwise), as lsprotocol's types are for standard ones."""
        if params is not None:
            self.raw.custom_params[method] = params

        def register(function: Any) -> Any:
            return self.feature(method, options)(_guarded(self, function))
        return register

    def _register_lifecycle(self) -> None:
        self.handle(types.INITIALIZE)(self.on_initialize)
        self.handle(types.INITIALIZED)(self.on_initialized)
        self.handle(types.SHUTDOWN)(self.on_shutdown)
        self.handle(types.TEXT_DOCUMENT_DID_OPEN)(self.on_did_open)
        self.handle(types.TEXT_DOCUMENT_DID_CHANGE)(self.on_did_change)
        self.handle(types.TEXT_DOCUMENT_DID_SAVE, types.SaveOptions(include_text=False))(self.on_did_save)
        self.handle(types.TEXT_DOCUMENT_DID_CLOSE)(self.on_did_close)
        self.handle(types.WORKSPACE_DID_CHANGE_CONFIGURATION)(self.on_did_change_configuration)
        self.handle(types.WORKSPACE_DID_CHANGE_WATCHED_FILES)(self.on_did_change_watched_files)
        self.handle(types.WORKSPACE_DID_CHANGE_WORKSPACE_FOLDERS)(self.on_did_change_workspace_folders)
        self.handle(DID_GRANT_TRUST, params={})(self.on_did_grant_trust)  # no fields; params absent, null or an object


def _guarded(server: SurfaceLintServer, method: Any) -> Any:
    """A plain function around a handler (pygls sets attributes on handlers), logging its bugs."""
    def failed(exc: Exception) -> None:
        detail = "".join(traceback.format_exception(exc)).rstrip()
        server.log_error(f"{method.__name__} failed: {type(exc).__name__}: {exc}\n{detail}")

    if inspect.iscoroutinefunction(method):
        async def handle_async(params: Any) -> Any:
            try:
                return await method(params)
            except RequestFailed:
                raise  # the request's answer: an LSP error with its message (wire.Protocol sends it)
            except Exception as exc:
                failed(exc)
                return None
        return handle_async

    def handle(params: Any) -> Any:
        try:
            return method(params)
        except RequestFailed:
            raise
        except Exception as exc:
            failed(exc)
            return None
    return handle


def create_server() -> SurfaceLintServer:
    return SurfaceLintServer()
