"""The review features of the language server: a thin layer over `review`.

* code lenses on a case file: how each case fared in the newest run found in the workspace
  (per predicate ✓/✗, the surface), a click opens the turn;
* textDocument/references from a case (or a transcript's turn): its turns in every run;
* `surfaceLint/review` {uri, text?, predicate?, category?, failingOnly?}: a transcript's turns
  as a reviewer reads them (payload + HTML); `text` is the client's buffer of a file it does
  not sync to the server (outside its document selector), else the server's copy is used;
* `surfaceLint/runs` {uri?}: the run files found with a turn of a case, newest first (of the
  document's lane), each named by its workspace-relative path;
* `surfaceLint/runDiff` {old, new, oldText?, newText?}: what `surface-lint diff` reports
  (payload + HTML);
* notification `surfaceLint/reviewSettings` {transcripts: [globs]}: where runs are looked for.

`register(server)` adds them; `server.register_features` calls it (the one place feature
modules are listed). Work runs in a worker thread; results are cached by file stamps and versions.
"""

from __future__ import annotations

import asyncio
import hashlib
import inspect
import json
import traceback
from collections.abc import Awaitable, Callable, Iterator, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from lsprotocol import types

from ...engine import Engine, UsageError, first_object
from ...engine.review import (
    DEFAULT_TRANSCRIPT_GLOBS,
    CaseRun,
    Review,
    RunFile,
    find_runs,
    latest_outcomes,
    read_run,
    review_transcript,
    run_lane,
    turn_references,
)
from ...engine.review import diff_runs as review_diff_runs
from ...model.findings import Location
from ...reporters import RenderOptions
from ...reporters.common import PredicateFailure, rule_index
from ...reporters.diff_text import render_json as diff_json
from ...reporters.review_html import OPEN_TURN_COMMAND, REVIEW_TURN_LIMIT, diff_page, page_css, review_html
from ...rules.loader import Lane
from ...sources.cases import read_case_file
from ...sources.transcripts import sniff
from ..documents import TextDoc, path_to_uri, to_client_units, uri_to_path
from ..host import Host
from ..wire import ParamField, plain_json

REVIEW_METHOD = "surfaceLint/review"
RUNS_METHOD = "surfaceLint/runs"
RUN_DIFF_METHOD = "surfaceLint/runDiff"
SETTINGS_METHOD = "surfaceLint/reviewSettings"
REVIEW_PARAMS = {"uri": ParamField(str, required=True), "text": ParamField(str), "predicate": ParamField(str),
                 "category": ParamField(str), "failingOnly": ParamField(bool)}
RUNS_PARAMS = {"uri": ParamField(str)}
SETTINGS_PARAMS = {"transcripts": ParamField(list, required=True, items=str, non_empty=True)}  # [] means the defaults
RUN_DIFF_PARAMS = {"old": ParamField(str, required=True), "new": ParamField(str, required=True),
                   "oldText": ParamField(str), "newText": ParamField(str)}
SURFACE_CHARS = 72  # of a surface shown in a code lens


def _lines(text: str) -> list[str]:
    return [line[:-1] if line.endswith("\r") else line for line in text.split("\n")]


def location_range(loc: Location, lines: Sequence[str], encoding: str) -> dict[str, Any]:
    """An engine Location (1-based, code points) -> an LSP range in the negotiated encoding."""
    def point(line: int, column: int) -> dict[str, int]:
        index = min(max(line - 1, 0), max(len(lines) - 1, 0))
        text = lines[index] if lines else ""
        bom = index == 0 and text.startswith("\ufeff")  # the engine read line 1 without its BOM
        col = min(max(column - 1 + (1 if bom else 0), 0), len(text))
        return {"line": index, "character": to_client_units(text, col, encoding)}
    return {"start": point(loc.line, loc.column), "end": point(loc.end_line, loc.end_column)}


def lens_titles(case_run: CaseRun | None, searched: int, lane: Lane) -> list[tuple[str, str | None]]:
    """The code lenses of one case, (title, tooltip): its verdicts in its newest run (failing
    predicates by name, passing ones by code; the tooltip names every one), then its surface."""
    if case_run is None:
        return [(f"surface-lint: no run of this case found ({searched} run file(s) of {lane.name} searched)", None)]
    view = case_run.view
    mark = {"pass": "✓ pass", "fail": "✗ fail", "note": "• notes"}[view.status]
    failures = {f.name: f for f in view.failures}
    codes = {p.name: p.code for p in lane.predicates}
    passed = [codes.get(n, n) for n in view.judged if n not in failures]
    parts = [f"✗ {f.name}" for f in view.failures]
    if passed:
        parts.append("✓ " + " ".join(passed))
    if lane.casework is not None:  # a case-driven lane's reason is its check's message: shown on the lens
        parts = [f"✗ {_reason(f)}" for f in view.failures]
    more = f" (newest of {case_run.runs_with_case} runs)" if case_run.runs_with_case > 1 else ""
    title = f"{mark} in {case_run.run.name}:{case_run.turn.location.line}{more}" + "".join(f" · {p}" for p in parts)
    tooltip = "\n".join(
        f"✗ {n} ({failures[n].code}, {failures[n].severity_label}): {failures[n].message}" if n in failures
        else f"✓ {n}" for n in view.judged)
    out: list[tuple[str, str | None]] = [(title, tooltip)]
    surface = case_run.turn.surface
    if surface is not None:
        flat = " ".join(surface.split())
        shown = flat if len(flat) <= SURFACE_CHARS else flat[:SURFACE_CHARS - 1] + "…"
        out.append((f"surface: “{shown}”", surface))
    return out


def _reason(f: PredicateFailure) -> str:
    """A failure as `name: message` (a predicate's message already starts with its name)."""
    if not f.message:
        return f.name
    return f.message if f.message.startswith(f"{f.name}: ") else f"{f.name}: {f.message}"


def _digest(data: bytes) -> str:
    return hashlib.blake2b(data, digest_size=16).hexdigest()


class ReviewFeatures:
    """The review handlers of one server, with their settings and caches."""

    def __init__(self, server: Host) -> None:
        self.server = server
        self.globs: tuple[str, ...] = DEFAULT_TRANSCRIPT_GLOBS
        self.pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="surface-lint-review")
        self._outcomes: dict[tuple[Any, ...], tuple[dict[str, CaseRun], int]] = {}
        self._latest: dict[tuple[str, str], int] = {}  # (job, uri) -> the newest request's number

    # --- what the server knows (the only place this module reads its state) ------------------

    @property
    def encoding(self) -> str:
        return self.server.state.encoding

    def roots(self) -> list[Path]:
        return list(self.server.state.roots)

    def engine_for(self, path: str) -> Engine:
        return self.server.state.engine_for(path).engine

    def doc(self, uri: str) -> TextDoc | None:
        return self.server.state.docs.get(uri)

    def buffers(self) -> dict[str, bytes]:
        """Open documents by path (what the editor shows, saved or not)."""
        return {d.path: d.text.encode("utf-8", "surrogatepass") for d in list(self.server.state.docs.values())}

    def case_paths(self, path: str, lane: str) -> list[str]:
        entry = self.server.state.engine_for(path)
        return list(self.server.state.case_paths_for(entry, lane, path))

    def worker(self, fn: Callable[..., Any], superseded: Any = None) -> Callable[..., Awaitable[Any]]:
        """`fn` as a handler run in the review thread. A request overtaken by a newer one of the
        same kind for the same document before it starts answers `superseded`, so a burst of
        requests costs one run."""
        def job(key: tuple[str, str], number: int, params: Any) -> Any:
            if self._latest.get(key) != number:
                return superseded
            return fn(params)

        async def run(params: Any) -> Any:
            loop = asyncio.get_running_loop()
            plain = plain_json(params)
            uri = plain.get("uri") if isinstance(plain, Mapping) else None
            if isinstance(plain, Mapping) and isinstance(plain.get("text_document"), Mapping):
                uri = plain["text_document"].get("uri")
            key = (fn.__name__, uri if isinstance(uri, str) else "")
            number = self._latest[key] = self._latest.get(key, 0) + 1
            try:
                return await loop.run_in_executor(self.pool, job, key, number, plain)
            except UsageError as exc:
                self.server.log_warning(str(exc))
                return None
            except Exception as exc:  # a bug is logged with its traceback, never a dead request
                detail = "".join(traceback.format_exception(exc)).rstrip()
                self.server.log_error(f"{fn.__name__} failed: {type(exc).__name__}: {exc}\n{detail}")
                return None
        return run

    # --- files ------------------------------------------------------------------------------

    def runs(self) -> list[RunFile]:
        return find_runs(self.roots(), self.globs)

    def bytes_of(self, path: str, buffers: Mapping[str, bytes]) -> bytes | None:
        given = buffers.get(path)
        if given is not None:
            return given
        try:
            return Path(path).read_bytes()
        except OSError:
            return None

    def texts(self, paths: Sequence[str], buffers: Mapping[str, bytes]) -> Files:
        return Files(paths, buffers)

    # --- case files: code lenses and their outcomes -------------------------------------------

    def outcomes(self, engine: Engine, path: str,
                 data: bytes) -> list[tuple[Location, list[tuple[str, str | None]], CaseRun | None]]:
        """Per case of a case file (in file order): where its lenses go, their titles, its outcome."""
        lane = engine.detect_lane(path, "cases", first=first_object(data))
        if lane is None:
            return []
        case_file = read_case_file(path, data, lane, engine.config.max_line_bytes)
        buffers = self.buffers()
        runs = [r for r in self.runs() if r.path != path]
        texts = Files([r.path for r in runs], {**buffers, path: data})
        key = (id(engine), lane.name, path, _digest(data), self.globs,
               tuple((r.path, r.stamp, _digest(buffers[r.path]) if r.path in buffers else "") for r in runs))
        cached = self._outcomes.get(key)
        if cached is None:
            found = latest_outcomes(engine, lane, [path], runs, texts)
            searched = sum(1 for r in runs if self._run_lane(engine, r.path, texts) == lane.name)
            cached = (found, searched)
            self._outcomes = {key: cached}  # one case file's answer kept: the one being looked at
        found, searched = cached
        out = []
        for case in case_file.cases:
            where = case.record.location(lane.schema.id_field) if lane.schema.id_field in case.record.data \
                else case.record.whole()
            case_run = found.get(case.id)
            out.append((where, lens_titles(case_run, searched, lane), case_run))
        return out

    def _run_lane(self, engine: Engine, path: str, texts: Mapping[str, bytes]) -> str | None:
        data = texts.get(path)
        if data is None:
            return None
        found = run_lane(engine, path, data)
        return found[1].name if found is not None else None

    def code_lenses(self, uri: str) -> list[dict[str, Any]]:
        doc = self.doc(uri)
        if doc is None:
            return []
        data = doc.text.encode("utf-8", "surrogatepass")
        if sniff(data)[0] != "cases":
            return []
        lines = _lines(doc.text)
        lenses = []
        for where, titles, case_run in self.outcomes(self.engine_for(doc.path), doc.path, data):
            at = Location(where.path, where.line, where.column, where.line, where.column)
            rng = location_range(at, lines, self.encoding)
            for title, tooltip in titles:
                if case_run is None:
                    command: dict[str, Any] = {"title": title, "command": ""}
                else:
                    command = {"title": title, "command": OPEN_TURN_COMMAND,
                               "arguments": [path_to_uri(case_run.turn.path), case_run.turn.location.line - 1]}
                if tooltip is not None:
                    command["tooltip"] = tooltip
                lenses.append({"range": rng, "command": command})
        return lenses

    # --- references ---------------------------------------------------------------------------

    def references(self, uri: str, line: int, include_declaration: bool) -> list[dict[str, Any]] | None:
        doc = self.doc(uri)
        if doc is None:
            return None
        data = doc.text.encode("utf-8", "surrogatepass")
        engine = self.engine_for(doc.path)
        kind = sniff(data)[0]
        case_id: str | None = None
        declaration: tuple[Location, list[str]] | None = None
        lane_name: str | None = None
        if kind == "cases":
            lane = engine.detect_lane(doc.path, "cases", first=first_object(data))
            if lane is None:
                return None
            lane_name = lane.name
            for case in read_case_file(doc.path, data, lane, engine.config.max_line_bytes).cases:
                whole = case.record.whole()
                if whole.line <= line + 1 <= whole.end_line:
                    case_id = case.id
                    if lane.schema.id_field in case.record.data:
                        declaration = (case.record.location(lane.schema.id_field), _lines(doc.text))
                    break
        else:
            run = read_run(engine, doc.path, data)
            if run is None:
                return None
            lane_name = run.lane.name
            for turn in run.turns:
                if turn.location.line <= line + 1 <= turn.location.end_line:
                    case_id = turn.case_id
                    break
            if case_id is not None and include_declaration:
                declaration = self._case_declaration(engine, doc.path, lane_name, case_id)
        if case_id is None or lane_name is None:
            return None
        buffers = self.buffers()
        runs = [r for r in self.runs()]
        if kind != "cases" and all(r.path != doc.path for r in runs):
            runs.append(RunFile(doc.path, (0, 0)))  # the transcript asked from, even outside the globs
        texts = Files([r.path for r in runs], {**buffers, doc.path: data})
        lane = engine.lane_set.get(lane_name)
        refs = turn_references(engine, runs, texts, lane).get(case_id, [])
        out = []
        if include_declaration and declaration is not None:
            out.append({"uri": path_to_uri(declaration[0].path),
                        "range": location_range(declaration[0], declaration[1], self.encoding)})
        line_cache: dict[str, list[str]] = {}
        for ref in refs:
            lines = line_cache.get(ref.path)
            if lines is None:
                lines = line_cache[ref.path] = _lines(texts[ref.path].decode("utf-8", "replace"))
            loc = ref.id_location or ref.location
            out.append({"uri": path_to_uri(ref.path), "range": location_range(loc, lines, self.encoding)})
        return out

    def _case_declaration(self, engine: Engine, path: str, lane_name: str,
                          case_id: str) -> tuple[Location, list[str]] | None:
        buffers = self.buffers()
        lane = engine.lane_set.get(lane_name)
        if lane is None:
            return None
        for case_path in self.case_paths(path, lane_name):
            data = self.bytes_of(case_path, buffers)
            if data is None:
                continue
            for case in read_case_file(case_path, data, lane, engine.config.max_line_bytes).cases:
                if case.id == case_id and lane.schema.id_field in case.record.data:
                    return case.record.location(lane.schema.id_field), _lines(data.decode("utf-8", "replace"))
        return None

    # --- review of one transcript ----------------------------------------------------------

    def review(self, params: Mapping[str, Any]) -> dict[str, Any] | None:
        uri = params.get("uri")
        if not isinstance(uri, str):
            raise UsageError("surfaceLint/review needs {\"uri\": ...}")
        predicate = params.get("predicate") if isinstance(params.get("predicate"), str) else None
        category = params.get("category") if isinstance(params.get("category"), str) else None
        failing_only = params.get("failingOnly") is True
        path = uri_to_path(uri)
        buffers = self.buffers()
        text = params.get("text")
        # The client's copy when it sends one (a file outside the documents it syncs), else ours.
        data = text.encode("utf-8", "surrogatepass") if isinstance(text, str) else self.bytes_of(path, buffers)
        if data is None:
            return None
        engine = self.engine_for(path)
        run = read_run(engine, path, data)
        if run is None:
            return None
        case_paths = self.case_paths(path, run.lane.name)
        texts = self.texts(case_paths, buffers)
        joined = [p for p in case_paths if p in texts]
        review = review_transcript(engine, path, data, joined, texts)
        if review is None:
            return None
        shown = review.select(predicate, category, failing_only)
        return review_payload(review, uri, shown, predicate, category, failing_only)

    def run_list(self, params: Mapping[str, Any]) -> list[dict[str, Any]]:
        uri = params.get("uri")
        want: str | None = None
        buffers = self.buffers()
        if isinstance(uri, str):
            path = uri_to_path(uri)
            data = self.bytes_of(path, buffers)
            found = run_lane(self.engine_for(path), path, data) if data is not None else None
            want = found[1].name if found is not None else None
        out = []
        for r in self.runs():
            data = self.bytes_of(r.path, buffers)
            if data is None:
                continue
            engine = self.engine_for(r.path)
            found = run_lane(engine, r.path, data)
            if found is None or (want is not None and found[1].name != want):
                continue
            run = read_run(engine, r.path, data)
            if run is None or not run.turns:  # no turn of a case (telemetry of no case): nothing to compare
                continue
            out.append({"uri": path_to_uri(r.path), "name": r.shown_as, "lane": run.lane.name, "kind": run.kind,
                        "turns": len(run.turns), "modified": r.stamp[0]})
        return out  # newest first (find_runs' order), then by path

    def run_diff(self, params: Mapping[str, Any]) -> dict[str, Any]:
        old, new = params.get("old"), params.get("new")
        if not isinstance(old, str) or not isinstance(new, str):
            raise UsageError("surfaceLint/runDiff needs {\"old\": uri, \"new\": uri}")
        old_path, new_path = uri_to_path(old), uri_to_path(new)
        buffers = self.buffers()
        for key, p in (("oldText", old_path), ("newText", new_path)):
            if isinstance(params.get(key), str):
                buffers[p] = params[key].encode("utf-8", "surrogatepass")
        engine = self.engine_for(new_path)
        new_data = self.bytes_of(new_path, buffers)
        for p in (old_path, new_path):
            if p not in buffers and not Path(p).is_file():
                raise UsageError(f"{p}: cannot read")
        new_run = read_run(engine, new_path, new_data) if new_data is not None else None
        case_paths = self.case_paths(new_path, new_run.lane.name) if new_run is not None else []
        texts = Files([old_path, new_path, *case_paths], buffers)
        diff = review_diff_runs(engine, old_path, new_path, [p for p in case_paths if p in texts], texts)
        options = RenderOptions(rules=rule_index(engine), lane=engine.lane_set.get(diff.new.lane))
        return {"lane": diff.new.lane, "old": old, "new": new, "regressed": diff.regressed,
                "report": json.loads(diff_json(diff, options)), "html": diff_page(diff, options),
                "title": f"{Path(old_path).name} → {Path(new_path).name}"}

    def set_settings(self, params: Any) -> None:
        """The wire has checked SETTINGS_PARAMS (a bad notification never gets here)."""
        globs = plain_json(params)["transcripts"]
        self.globs = tuple(globs) if globs else DEFAULT_TRANSCRIPT_GLOBS
        self._outcomes.clear()


class Files(Mapping[str, bytes]):
    """The bytes of some files, read when asked (an editor buffer first, else the disk) and not
    kept: memory holds one run at a time, however many runs the workspace has."""

    def __init__(self, paths: Sequence[str], buffers: Mapping[str, bytes]) -> None:
        self.paths = list(dict.fromkeys([*paths, *buffers]))
        self.buffers = buffers

    def __getitem__(self, path: str) -> bytes:
        given = self.buffers.get(path)
        if given is not None:
            return given
        if path not in self.paths:
            raise KeyError(path)
        try:
            return Path(path).read_bytes()
        except OSError:
            raise KeyError(path) from None

    def __contains__(self, path: object) -> bool:
        return isinstance(path, str) and (path in self.buffers or (path in self.paths and Path(path).is_file()))

    def __iter__(self) -> Iterator[str]:
        return iter(self.paths)

    def __len__(self) -> int:
        return len(self.paths)


def review_payload(review: Review, uri: str, shown: Sequence[Any], predicate: str | None,
                   category: str | None, failing_only: bool) -> dict[str, Any]:
    """What `surfaceLint/review` answers: the filters, counts, the shown turns (the first
    REVIEW_TURN_LIMIT of them, as drawn) and their HTML."""
    counts = review.failing_counts()
    turns = []
    for item in shown[:REVIEW_TURN_LIMIT]:
        view = item.view
        turns.append({
            "caseId": item.turn.case_id, "line": item.turn.location.line - 1, "role": item.turn.role,
            "category": item.category, "status": item.status,
            "judged": list(view.judged) if view is not None else [],
            "failed": view.failed_names() if view is not None else [],
            "prompt": item.turn.prompt, "surface": item.turn.surface,
        })
    return {
        "uri": uri, "lane": review.lane, "profile": review.profile,
        "filters": {"predicate": predicate, "category": category, "failingOnly": failing_only},
        "predicates": [{"name": n, "code": c, "failing": counts.get(n, 0)} for n, c in review.predicates],
        "categories": review.categories(),
        "counts": {"turns": len(review.turns), "scored": sum(1 for t in review.turns if t.view is not None),
                   "shown": len(shown)},
        "turns": turns,
        "css": page_css(),
        "html": review_html(review, uri, shown, predicate, category, failing_only),
    }


# --- registration -----------------------------------------------------------------------------


def register(server: Host) -> None:
    """Add the review features to a server (called once, where feature modules are registered)."""
    features = ReviewFeatures(server)

    worker = features.worker

    def lens_job(params: Mapping[str, Any]) -> list[dict[str, Any]]:
        return features.code_lenses(params["text_document"]["uri"])

    def references_job(params: Mapping[str, Any]) -> list[dict[str, Any]] | None:
        context = params.get("context") or {}
        return features.references(params["text_document"]["uri"], int(params["position"]["line"]),
                                   bool(context.get("include_declaration", False)))

    review_handler = worker(features.review)
    runs_handler = worker(features.run_list)
    diff_handler = worker(features.run_diff)
    case_lenses = worker(lens_job, superseded=[])
    references_handler = worker(references_job)

    async def on_review(params: Any) -> Any:
        return await review_handler(params)

    async def on_runs(params: Any) -> Any:
        return await runs_handler(params or {})

    async def on_run_diff(params: Any) -> Any:
        return await diff_handler(params)

    async def on_references(params: types.ReferenceParams) -> Any:
        return await references_handler(_typed(params))

    def on_settings(params: Any) -> None:
        features.set_settings(params)

    server.handle(REVIEW_METHOD, params=REVIEW_PARAMS)(on_review)
    server.handle(RUNS_METHOD, params=RUNS_PARAMS)(on_runs)
    server.handle(RUN_DIFF_METHOD, params=RUN_DIFF_PARAMS)(on_run_diff)
    server.handle(SETTINGS_METHOD, params=SETTINGS_PARAMS)(on_settings)
    server.handle(types.TEXT_DOCUMENT_REFERENCES)(on_references)
    _add_code_lenses(server, lambda params: case_lenses(_typed(params)))


def _typed(params: Any) -> dict[str, Any]:
    """A typed lsprotocol params object as the plain dict the jobs read (snake_case keys)."""
    if isinstance(params, Mapping):
        return dict(params)
    out: dict[str, Any] = {}
    for name in ("text_document", "position", "context"):
        value = getattr(params, name, None)
        if value is None:
            continue
        out[name] = {k: getattr(value, k) for k in ("uri", "line", "character", "include_declaration")
                     if hasattr(value, k)}
    return out


def _add_code_lenses(server: Host,
                     extra: Callable[[Any], Awaitable[list[dict[str, Any]] | None]]) -> None:
    """Our lenses after those of the code lens handler already registered (the lane score)."""
    features = server.protocol.fm.features
    previous = features.get(types.TEXT_DOCUMENT_CODE_LENS)

    async def combined(params: types.CodeLensParams) -> list[Any]:
        lenses: list[Any] = []
        if previous is not None:
            got = previous(params)
            if inspect.isawaitable(got):
                got = await got
            if isinstance(got, str):  # a pre-serialised result
                got = json.loads(got)
            lenses.extend(got or [])
        lenses.extend(await extra(params) or [])
        return lenses

    if previous is None:
        server.handle(types.TEXT_DOCUMENT_CODE_LENS, types.CodeLensOptions(resolve_provider=False))(combined)
    else:
        features[types.TEXT_DOCUMENT_CODE_LENS] = combined
