"""The language server's state, without pygls: open documents, settings, engines, lint memo.

Everything here is plain Python over the engine, so it is tested directly (tests/lsp/) and
the pygls layer (lsp.py) only schedules work and translates messages.

* `TextDoc` holds an open document as lines split on "\\n" (a line may keep a trailing
  "\\r"), exactly as the engine reads files, and applies LSP edits in client units.
* `ServerState` resolves a document's config (nearest `surface-lint.toml` / `pyproject.toml`,
  then the client's settings), builds and caches engines, keeps the last good rules when a
  lane file breaks, and finds a lane's case files.
* `lint_document` checks one document. A turn or telemetry JSONL of a surface lane is
  checked line by line with a memo keyed by the line's text, so an edit re-evaluates only
  the lines it touched; every other document goes to `Engine.check_bytes` whole.
"""

from __future__ import annotations

import bisect
import dataclasses
import json
import os
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlparse

from .config import Config, ConfigError, find_config, load_config
from .engine import CaseIndex, DocResult, Engine, RecordInfo, UsageError, first_object
from .findings import Finding, Fix, Location, Related
from .lanes import PROFILES, Lane, LaneError, builtin_rule_files
from .sources.base import check_finding
from .sources.lintable import HEAD_BYTES as _HEAD_BYTES
from .sources.lintable import document_kind

ENCODINGS = ("utf-16", "utf-8", "utf-32")
RUN_MODES = ("onType", "onSave")
SEVERITY_LEVELS = ("error", "warning", "information", "hint", "off")
SETTINGS_SECTION = "surfaceLint"
_CHECK_EVERY = 128  # lines between cancellation checks in the line-by-line path


class Cancelled(Exception):
    """A lint was abandoned because a newer version of its document arrived."""


class CancelToken:
    __slots__ = ("_event",)

    def __init__(self) -> None:
        self._event = threading.Event()

    def cancel(self) -> None:
        self._event.set()

    @property
    def cancelled(self) -> bool:
        return self._event.is_set()


# --- positions: client units <-> code points ------------------------------------------------


def to_client_units(line: str, column: int, encoding: str) -> int:
    """0-based code-point column on `line` -> 0-based column in the negotiated encoding."""
    if column <= 0:
        return 0
    prefix = line[:column]
    if encoding == "utf-32" or prefix.isascii():
        return len(prefix)
    if encoding == "utf-8":
        return len(prefix.encode("utf-8", "surrogatepass"))
    return len(prefix) + sum(1 for ch in prefix if ord(ch) > 0xFFFF)


def from_client_units(line: str, units: int, encoding: str) -> int:
    """0-based column in client units -> 0-based code-point column (clamped to the line)."""
    if units <= 0:
        return 0
    if encoding == "utf-32" or line.isascii():
        return min(units, len(line))
    count = 0
    for index, ch in enumerate(line):
        if count >= units:
            return index
        code = ord(ch)
        if encoding == "utf-8":
            count += 1 if code < 0x80 else 2 if code < 0x800 else 3 if code < 0x10000 else 4
        else:
            count += 2 if code > 0xFFFF else 1
    return len(line)


# --- documents --------------------------------------------------------------------------------


def uri_to_path(uri: str) -> str:
    """A file: URI's path; any other URI is used as its own path (lane detection still works)."""
    parsed = urlparse(uri)
    if parsed.scheme == "file":
        return unquote(parsed.path)
    return uri


def path_to_uri(path: str) -> str:
    if "://" in path or path.startswith("untitled:"):
        return path
    return Path(path).absolute().as_uri()


class TextDoc:
    """An open document: lines split on "\\n" as the engine reads them (a trailing "\\r" stays)."""

    __slots__ = ("language_id", "lines", "path", "saved_version", "uri", "version")

    def __init__(self, uri: str, text: str, version: int | None = 0, language_id: str = "") -> None:
        self.uri = uri
        self.path = uri_to_path(uri)
        self.version = version
        self.language_id = language_id
        self.lines: list[str] = text.split("\n")
        self.saved_version = version

    @property
    def text(self) -> str:
        return "\n".join(self.lines)

    def line(self, index: int) -> str:
        """Line `index` (0-based) without its "\\r"; "" past the end."""
        if 0 <= index < len(self.lines):
            text = self.lines[index]
            return text[:-1] if text.endswith("\r") else text
        return ""

    def point(self, line: int, units: int, encoding: str) -> tuple[int, int]:
        """A client position -> (line, code-point column), clamped into the document."""
        if line < 0:
            return 0, 0
        if line >= len(self.lines):
            last = len(self.lines) - 1
            return last, len(self.line(last))
        return line, from_client_units(self.line(line), units, encoding)

    def apply_change(self, change_range: tuple[int, int, int, int] | None, text: str, encoding: str) -> None:
        """Apply one LSP content change (range in client units, or None for the whole text)."""
        if change_range is None:
            self.lines = text.split("\n")
            return
        sl, sc, el, ec = change_range
        (sl, sc), (el, ec) = self.point(sl, sc, encoding), self.point(el, ec, encoding)
        if (el, ec) < (sl, sc):
            (sl, sc), (el, ec) = (el, ec), (sl, sc)
        # A "\r" ending the end line stays: the client's columns never include it.
        new = (self.lines[sl][:sc] + text + self.lines[el][ec:]).split("\n")
        self.lines[sl : el + 1] = new


@dataclass(frozen=True, slots=True)
class Snapshot:
    """What a lint reads: an immutable view of one version of a document."""

    uri: str
    path: str
    version: int | None
    lines: tuple[str, ...]
    language_id: str = ""

    @classmethod
    def of(cls, doc: TextDoc) -> Snapshot:
        return cls(doc.uri, doc.path, doc.version, tuple(doc.lines), doc.language_id)

    def line(self, index: int) -> str:
        if 0 <= index < len(self.lines):
            text = self.lines[index]
            return text[:-1] if text.endswith("\r") else text
        return ""

    def data(self) -> bytes:
        return "\n".join(self.lines).encode("utf-8", "surrogatepass")


# --- settings -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class ClientSettings:
    """`surfaceLint.*` settings sent by the client (initializationOptions or workspace/configuration)."""

    profile: str | None = None
    severity: tuple[tuple[str, str], ...] = ()
    run: str = "onType"


def parse_settings(raw: Any) -> tuple[ClientSettings, list[str]]:
    """Client settings from any JSON value; values that cannot be used are reported and ignored."""
    problems: list[str] = []
    if isinstance(raw, Mapping) and SETTINGS_SECTION in raw and isinstance(raw[SETTINGS_SECTION], Mapping):
        raw = raw[SETTINGS_SECTION]
    if isinstance(raw, Mapping) and "settings" in raw and isinstance(raw["settings"], Mapping):
        raw = raw["settings"]
    if not isinstance(raw, Mapping):
        return ClientSettings(), problems if raw is None else [f"settings must be an object, not {raw!r}"]
    profile = raw.get("profile")
    if profile in ("", "auto"):  # the editor leaves the profile to the project's config
        profile = None
    if profile is not None and profile not in PROFILES:
        problems.append(f"{SETTINGS_SECTION}.profile: {profile!r} is not one of {', '.join(PROFILES)}")
        profile = None
    run = raw.get("run", "onType")
    if run not in RUN_MODES:
        problems.append(f"{SETTINGS_SECTION}.run: {run!r} is not one of {', '.join(RUN_MODES)}")
        run = "onType"
    severity: list[tuple[str, str]] = []
    table = raw.get("severity") or {}
    if not isinstance(table, Mapping):
        problems.append(f"{SETTINGS_SECTION}.severity must be an object of predicate -> level")
        table = {}
    for name, level in table.items():
        level = level.strip().lower() if isinstance(level, str) else level
        level = {"info": "information", "warn": "warning"}.get(level, level)
        if isinstance(name, str) and level in SEVERITY_LEVELS:
            severity.append((name, level))
        else:
            problems.append(f"{SETTINGS_SECTION}.severity.{name}: {level!r} is not one of {', '.join(SEVERITY_LEVELS)}")
    return ClientSettings(profile, tuple(sorted(severity)), run), problems


# --- engines ------------------------------------------------------------------------------------


@dataclass
class EngineEntry:
    """An engine for one config file + client settings, and what went wrong building it."""

    engine: Engine
    config_path: Path | None
    config_error: ConfigError | None
    lane_errors: list[LaneError]
    kept: dict[str, str]  # rules path -> lane name kept from the last good load
    generation: int
    hrefs: dict[tuple[str, str], str] = field(default_factory=dict)  # (lane, code) -> docs URL


@dataclass
class LintResult:
    """One lint of one document version, with the engine's records for the editor features.

    In the line-by-line path a record may still carry a pending line shift (`_pairs`):
    shifting every record below an inserted line would cost more than the lint itself.
    """

    uri: str
    path: str
    version: int | None
    lines: tuple[str, ...]
    kind: str | None
    lane: str | None
    findings: list[Finding]
    _records: list[RecordInfo] | None
    entry: EngineEntry | None
    case_paths: tuple[str, ...] = ()
    error: str | None = None
    line_mode: bool = False
    seconds: float = 0.0
    rechecked: int = 0  # lines given to the engine (the rest came from the memo)
    generation: int = 0  # ServerState.generation when the lint started
    _pairs: list[tuple[int, RecordInfo]] | None = None

    @property
    def records(self) -> list[RecordInfo]:
        if self._records is None:
            pairs = self._pairs or []
            self._records = [_shift_record(r, self.path, d) if d else r for d, r in pairs]
        return self._records

    def records_at(self, line: int) -> list[RecordInfo]:
        """Records whose range covers 1-based `line`."""
        if self.line_mode and self._pairs is not None:
            pairs = self._pairs
            i = bisect.bisect_left(pairs, line, key=lambda p: p[1].location.line + p[0])
            out = []
            while i < len(pairs) and pairs[i][1].location.line + pairs[i][0] == line:
                d, r = pairs[i]
                out.append(_shift_record(r, self.path, d) if d else r)
                i += 1
            return out
        return [r for r in self.records if r.location.line <= line <= r.location.end_line]

    def line(self, index: int) -> str:
        if 0 <= index < len(self.lines):
            text = self.lines[index]
            return text[:-1] if text.endswith("\r") else text
        return ""


@dataclass
class _LineResult:
    line: int  # where `findings` are
    findings: list[Finding]
    records: list[RecordInfo]
    records_line: int  # where `records` are (shifted lazily)


@dataclass
class _LineEntry:
    turn: tuple[str | None, bool] | None = None  # (case id, is a priming turn), parsed lazily
    results: dict[tuple[bool, bool], _LineResult] = field(default_factory=dict)


@dataclass
class _LinePass:
    """The previous line-by-line lint of a document: what the next one reuses around an edit."""

    lines: tuple[str, ...]
    findings: list[Finding]  # sorted, without the CRLF notice
    pairs: list[tuple[int, RecordInfo]]
    crlf_lines: list[int]
    priming: list[tuple[int, str]]  # (line, case id) of priming turns


@dataclass
class DocMemo:
    """Per-document memo of line results, valid for one engine, lane, kind and case index."""

    key: tuple[Any, ...] = ()
    lines: dict[str, _LineEntry] = field(default_factory=dict)
    last: _LinePass | None = None
    whole: tuple[bytes, int, LintResult] | None = None  # (text, state generation, result)
    hits: int = 0
    misses: int = 0

    def reset(self, key: tuple[Any, ...]) -> None:
        if key != self.key:
            self.key = key
            self.lines = {}
            self.last = None
            self.whole = None


class ServerState:
    """Configs, engines, case indexes and open documents of one server session."""

    def __init__(self) -> None:
        self.lock = threading.RLock()
        self.roots: list[Path] = []
        self.settings = ClientSettings()
        self.settings_problems: list[str] = []
        self.encoding = "utf-16"
        self.docs: dict[str, TextDoc] = {}
        self.memos: dict[str, DocMemo] = {}
        self.generation = 0  # bumped by every invalidation: older lint results are stale
        self.config_generation = 0  # bumped when configs, rules or settings may have changed
        self._config_paths: dict[Path, Path | None] = {}
        self._engines: dict[tuple[Any, ...], EngineEntry] = {}
        self._configs: dict[Path, Config] = {}  # last good config per file
        self._last_good: dict[tuple[str, str], Lane] = {}  # (profile, rules path) -> lane
        self._case_paths: dict[tuple[Any, ...], tuple[float, tuple[str, ...]]] = {}
        self._case_index: dict[tuple[Any, ...], tuple[Lane, CaseIndex]] = {}
        self._file_lines: dict[str, tuple[tuple[int, int], list[str]]] = {}

    # --- invalidation ---------------------------------------------------------------------

    def invalidate(self, what: str = "all") -> None:
        """Drop cached configs/engines ("all") or only the case-file caches ("cases")."""
        with self.lock:
            self.generation += 1
            self._case_paths.clear()
            self._file_lines.clear()
            if what == "all":
                self.config_generation += 1
                self._case_index.clear()
                self._config_paths.clear()
                self._engines.clear()

    def set_settings(self, settings: ClientSettings, problems: list[str]) -> bool:
        with self.lock:
            changed = settings != self.settings
            self.settings = settings
            self.settings_problems = problems
        if changed:
            self.invalidate()
        return changed

    # --- config and engines ---------------------------------------------------------------

    def config_path_for(self, path: str) -> Path | None:
        folder = self._folder_of(path)
        with self.lock:
            if folder in self._config_paths:
                return self._config_paths[folder]
        try:
            found = find_config(folder) if folder.is_dir() else None
        except OSError:
            found = None
        with self.lock:
            self._config_paths[folder] = found
        return found

    def _folder_of(self, path: str) -> Path:
        """A file's folder; for a document that is not a file, the first workspace root."""
        if os.path.isabs(path):
            return Path(path).parent
        return self.roots[0] if self.roots else Path.cwd()

    def engine_for(self, path: str) -> EngineEntry:
        config_path = self.config_path_for(path)
        with self.lock:
            key = (config_path, self.settings, self.config_generation)
            entry = self._engines.get(key)
            if entry is not None:
                return entry
            entry = self._build_engine(config_path)
            self._engines[key] = entry
            return entry

    def _build_engine(self, config_path: Path | None) -> EngineEntry:
        error: ConfigError | None = None
        try:
            config = load_config(config_path)
            if config_path is not None:
                self._configs[config_path] = config
        except ConfigError as exc:
            error = exc
            # Keep the last good config of that file (or defaults) while it is broken.
            kept = self._configs.get(config_path) if config_path is not None else None
            config = dataclasses.replace(kept) if kept is not None else Config(path=config_path)
        settings = self.settings
        # Client severities override the file's; the engine resolves codes, names and aliases of both.
        client = dict(settings.severity)
        config = dataclasses.replace(config, severity={
            **{k: v for k, v in config.severity.items() if k not in client}, **client})
        profile = settings.profile or config.profile
        engine = Engine(config, profile)
        lanes = engine.lane_set.lanes
        kept_lanes: dict[str, str] = {}
        errors = list(engine.lane_errors)
        for err in errors:
            last = self._last_good.get((profile, err.path))
            if last is not None:
                lanes[last.name] = last
                kept_lanes[err.path] = last.name
        for lane in list(lanes.values()):
            if lane.path not in kept_lanes:
                self._last_good[(profile, lane.path)] = lane
        return EngineEntry(engine, config_path, error, errors, kept_lanes, self.config_generation)

    def rules_files(self, entry: EngineEntry) -> list[str]:
        """The lane files an engine reads (the user's first, then the built-in ones)."""
        return [str(p) for p in entry.engine.config.lane_files] + [str(p) for p in builtin_rule_files()]

    def is_rules_file(self, path: str) -> bool:
        if not path.endswith(".toml"):
            return False
        entry = self.engine_for(path)
        resolved = _resolve(path)
        return any(_resolve(p) == resolved for p in self.rules_files(entry))

    # --- case files ---------------------------------------------------------------------

    def case_paths_for(self, entry: EngineEntry, lane: str, doc_path: str) -> tuple[str, ...]:
        """Config `cases` globs (this lane's files), else evals/<lane>/**/cases.jsonl upward."""
        config = entry.engine.config
        folder = self._folder_of(doc_path)
        key = (entry.generation, config.path, lane, folder if not config.cases else None)
        now = time.monotonic()
        with self.lock:
            cached = self._case_paths.get(key)
            if cached is not None and now - cached[0] < 5.0:
                return cached[1]
        found: list[str] = []
        if config.cases:
            for pattern in config.cases:
                for p in sorted(config.root.glob(pattern)):
                    if p.is_file() and self._case_file_lane(entry, p) == lane:
                        found.append(str(p.resolve()))
        else:
            for parent in [folder, *folder.parents]:
                root = parent / "evals" / lane
                if root.is_dir():
                    found = [str(p.resolve()) for p in sorted(root.glob("**/cases.jsonl")) if p.is_file()]
                    break
        paths = tuple(dict.fromkeys(found))
        with self.lock:
            self._case_paths[key] = (now, paths)
        return paths

    def all_case_files(self, entry: EngineEntry, root: Path) -> list[str]:
        """Every case file of every lane under a workspace root (for workspace diagnostics)."""
        out: list[str] = []
        config = entry.engine.config
        for pattern in config.cases:
            out.extend(str(p.resolve()) for p in sorted(config.root.glob(pattern)) if p.is_file())
        for lane in sorted(entry.engine.lane_set.lanes):
            for evals in [root / "evals", *sorted(root.glob("*/evals"))]:
                folder = evals / lane
                if folder.is_dir():
                    out.extend(str(p.resolve()) for p in sorted(folder.glob("**/cases.jsonl")) if p.is_file())
        return list(dict.fromkeys(out))

    def _case_file_lane(self, entry: EngineEntry, path: Path) -> str | None:
        try:
            head = self._bytes_of(str(path))[:_HEAD_BYTES]
        except OSError:
            return None
        lane = entry.engine.detect_lane(str(path), "cases", first=first_object(head))
        return lane.name if lane else None

    def _bytes_of(self, path: str) -> bytes:
        return Path(path).read_bytes()

    def _stamp(self, path: str) -> tuple[Any, ...]:
        try:
            st = Path(path).stat()
        except OSError:
            return ("missing",)
        return (st.st_mtime_ns, st.st_size)

    def case_index(self, entry: EngineEntry, lane: Lane,
                   paths: tuple[str, ...]) -> tuple[CaseIndex | None, tuple[Any, ...]]:
        """The lane's case files as saved on disk (transcripts join to them), and a key of
        their state: it changes only when a case file does."""
        if not paths:
            return None, ()
        key = (id(entry.engine), lane.name, tuple((p, self._stamp(p)) for p in paths))
        with self.lock:
            cached = self._case_index.get(key)
            if cached is not None:
                return cached[1], key
        texts: dict[str, bytes] = {}
        readable: list[str] = []
        for p in paths:
            try:
                texts[p] = self._bytes_of(p)
                readable.append(p)
            except OSError:
                continue
        try:
            _, index = entry.engine.load_cases(readable, lane, texts)
        except UsageError:
            return None, key
        with self.lock:
            # One index per lane and engine: older ones can go.
            for old in [k for k in self._case_index if k[:2] == key[:2]]:
                del self._case_index[old]
            self._case_index[key] = (lane, index)
        return index, key

    def file_lines(self, path: str) -> list[str]:
        """Lines of another file as saved (what related locations were computed from)."""
        try:
            st = Path(path).stat()
            stamp = (st.st_mtime_ns, st.st_size)
        except OSError:
            return []
        with self.lock:
            cached = self._file_lines.get(path)
            if cached is not None and cached[0] == stamp:
                return cached[1]
        try:
            text = Path(path).read_bytes().decode("utf-8", "replace")
        except OSError:
            return []
        lines = [line[:-1] if line.endswith("\r") else line for line in text.split("\n")]
        if lines and lines[0].startswith("\ufeff"):
            lines[0] = lines[0][1:]
        with self.lock:
            self._file_lines[path] = (stamp, lines)
        return lines

    # --- lint ---------------------------------------------------------------------------

    def lint(self, snap: Snapshot, token: CancelToken | None = None,
             progress: Callable[[list[Finding]], None] | None = None) -> LintResult:
        start = time.perf_counter()
        generation = self.generation
        entry = self.engine_for(snap.path)
        with self.lock:
            memo = self.memos.setdefault(snap.uri, DocMemo())
        try:
            result = lint_document(self, entry, snap, memo, token, progress)
        except Cancelled:
            raise
        except Exception as exc:  # an engine bug must not silence the document
            result = LintResult(snap.uri, snap.path, snap.version, snap.lines, None, None, [], [], entry,
                                error=f"surface-lint could not check this document: {type(exc).__name__}: {exc}")
        result.seconds = time.perf_counter() - start
        result.generation = generation
        return result

    def forget(self, uri: str) -> None:
        with self.lock:
            self.docs.pop(uri, None)
            self.memos.pop(uri, None)


def _resolve(path: str) -> str:
    try:
        return str(Path(path).resolve())
    except (OSError, RuntimeError):
        return path


def _head(snap: Snapshot) -> bytes:
    parts: list[str] = []
    size = 0
    for line in snap.lines:
        parts.append(line)
        size += len(line) + 1
        if size >= _HEAD_BYTES:
            break
    return "\n".join(parts).encode("utf-8", "surrogatepass")[:_HEAD_BYTES]


# --- linting ------------------------------------------------------------------------------------


def lint_document(state: ServerState, entry: EngineEntry, snap: Snapshot, memo: DocMemo,
                  token: CancelToken | None,
                  progress: Callable[[list[Finding]], None] | None) -> LintResult:
    engine = entry.engine
    head = _head(snap)
    kind = document_kind(snap.path, head, snap.language_id)
    if kind is None:
        return LintResult(snap.uri, snap.path, snap.version, snap.lines, None, None, [], [], entry)
    lane: Lane | None = None
    if kind in ("turns", "telemetry"):
        lane = engine.detect_lane(snap.path, kind, first=first_object(head))
    elif kind == "report":
        lane = _report_lane(engine, snap)
    cases: CaseIndex | None = None
    case_paths: tuple[str, ...] = ()
    cases_key: tuple[Any, ...] = ()
    if lane is not None:
        case_paths = state.case_paths_for(entry, lane.name, snap.path)
        cases, cases_key = state.case_index(entry, lane, case_paths)
    memo_key = (id(engine), lane.name if lane else None, kind, cases_key)
    if lane is not None and kind in ("turns", "telemetry") and lane.unit != "chain":
        memo.reset(memo_key)
        before = memo.misses
        findings, pairs = lint_lines(engine, snap, lane, kind, cases, memo, token, progress)
        return LintResult(snap.uri, snap.path, snap.version, snap.lines, kind, lane.name, findings, None,
                          entry, case_paths, line_mode=True, rechecked=memo.misses - before, _pairs=pairs)
    data = snap.data()
    memo.reset(memo_key)
    if memo.whole is not None and memo.whole[1] == state.generation and memo.whole[0] == data:
        old = memo.whole[2]
        memo.hits += 1
        return dataclasses.replace(old, uri=snap.uri, version=snap.version, lines=snap.lines, rechecked=0)
    memo.misses += 1
    result: DocResult = engine.check_bytes(snap.path, data, None, lane.name if lane else None, cases)
    out = LintResult(snap.uri, snap.path, snap.version, snap.lines, result.kind, result.lane,
                     result.findings, result.records, entry, case_paths, rechecked=len(snap.lines))
    memo.whole = (data, state.generation, out)
    return out


def _report_lane(engine: Engine, snap: Snapshot) -> Lane | None:
    """The lane `check_bytes` would pick for a report (its `lane`, the path, its first entry)."""
    try:
        obj = json.loads(snap.data())
    except (ValueError, RecursionError):
        obj = None
    hint = None
    first = None
    if isinstance(obj, dict):
        hint = obj.get("lane") if isinstance(obj.get("lane"), str) else None
        entries = obj.get("cases") if "cases" in obj else obj.get("case_details")
        if isinstance(entries, list):
            first = next((e for e in entries if isinstance(e, dict)), None)
    return engine.detect_lane(snap.path, "report", hint, first)


def lint_lines(engine: Engine, snap: Snapshot, lane: Lane, kind: str, cases: CaseIndex | None,
               memo: DocMemo, token: CancelToken | None,
               progress: Callable[[list[Finding]], None] | None,
               ) -> tuple[list[Finding], list[tuple[int, RecordInfo]]]:
    """Check a turn/telemetry JSONL line by line; unchanged lines come from the memo.

    Each line is checked by `Engine.check_bytes` on that line alone. The two things a line
    can take from the lines before it are given back as context: a priming turn of the same
    case earlier in the file (prepended), and not being the first line (a BOM is not
    stripped). The file-level CRLF notice is added once, as the engine does.

    When the previous pass used the same memo, only the lines between the unchanged head
    and tail of the document are looked at; the rest of its results are reused (the tail
    shifted by the number of lines added or removed).
    """
    path = snap.path
    track_primed = any(p.kind == "primed" for p in lane.predicates)
    new = snap.lines
    last = memo.last
    lo, old_hi, new_hi = 0, 0, len(new)
    if last is not None:
        old = last.lines
        lo = _common_prefix(old, new)
        tail = _common_suffix(old, new, lo)
        old_hi, new_hi = len(old) - tail, len(new) - tail
        if lo == 0 and (old_hi == 0 or new_hi == 0) and tail > 0:
            old_hi, new_hi = old_hi + 1, new_hi + 1  # a line moved to or from line 1 (BOM context)
        if track_primed and (_has_priming(memo, old[lo:old_hi], kind) or _has_priming(memo, new[lo:new_hi], kind)):
            last = None  # primed context below the edit may change: walk every line
    if last is None:
        lo, old_hi, new_hi = 0, 0, len(new)
        head_findings: list[Finding] = []
        head_pairs: list[tuple[int, RecordInfo]] = []
        head_crlf: list[int] = []
        head_priming: list[tuple[int, str]] = []
        tail_findings: list[Finding] = []
        tail_pairs: list[tuple[int, RecordInfo]] = []
        tail_crlf: list[int] = []
        tail_priming: list[tuple[int, str]] = []
    else:
        delta = new_hi - old_hi
        f_lo = bisect.bisect_right(last.findings, lo, key=_finding_line)
        f_hi = bisect.bisect_right(last.findings, old_hi, key=_finding_line)
        head_findings = last.findings[:f_lo]
        tail_findings = last.findings[f_hi:]
        if delta:
            tail_findings = [_shift_finding(f, path, delta) for f in tail_findings]
        r_lo = bisect.bisect_right(last.pairs, lo, key=_pair_line)
        r_hi = bisect.bisect_right(last.pairs, old_hi, key=_pair_line)
        head_pairs = last.pairs[:r_lo]
        tail_pairs = [(d + delta, r) for d, r in last.pairs[r_hi:]] if delta else last.pairs[r_hi:]
        head_crlf = [n for n in last.crlf_lines if n <= lo]
        tail_crlf = [n + delta for n in last.crlf_lines if n > old_hi]
        head_priming = [(n, c) for n, c in last.priming if n <= lo]
        tail_priming = [(n + delta, c) for n, c in last.priming if n > old_hi]

    limit = engine.config.max_line_bytes
    primed_ids = {c for _, c in head_priming}
    findings: list[Finding] = []
    pairs: list[tuple[int, RecordInfo]] = []
    crlf_lines: list[int] = []
    priming: list[tuple[int, str]] = []
    table = memo.lines
    next_report = time.perf_counter() + 0.25
    for i in range(lo, new_hi):
        if (i - lo) % _CHECK_EVERY == 0 and i > lo:
            if token is not None and token.cancelled:
                raise Cancelled()
            if progress is not None and time.perf_counter() >= next_report:
                progress(head_findings + findings)
                next_report = time.perf_counter() + 1.0
        number = i + 1
        text = new[i]
        if text.endswith("\r"):
            text = text[:-1]
            # The engine counts CRLF only on lines it reads (not on lines over the size limit).
            if 4 * len(text) + 1 <= limit or len(text.encode("utf-8", "surrogatepass")) + 1 <= limit:
                crlf_lines.append(number)
        if not text.strip():
            continue
        entry = table.get(text)
        if entry is None:
            entry = table[text] = _LineEntry()
        case_id: str | None = None
        prefix_primed = False
        if track_primed:
            if entry.turn is None:
                entry.turn = _turn_info(text, kind)
            case_id, is_priming = entry.turn
            if is_priming and case_id:
                primed_ids.add(case_id)
                priming.append((number, case_id))
            prefix_primed = bool(case_id) and case_id in primed_ids and not is_priming
        not_first = number != 1 and text.startswith("\ufeff")
        key = (prefix_primed, not_first)
        result = entry.results.get(key)
        if result is None:
            memo.misses += 1
            result = _check_line(engine, path, text, kind, lane, cases, number,
                                 case_id if prefix_primed else None, not_first)
            entry.results[key] = result
        else:
            memo.hits += 1
            if result.line != number:
                result = _LineResult(number, [_shift_finding(f, path, number - result.line) for f in result.findings],
                                     result.records, result.records_line)
                entry.results[key] = result
        findings.extend(result.findings)
        if result.records:
            d = number - result.records_line
            pairs.extend((d, r) for r in result.records)
    if len(table) > 2 * len(new) + 1024:
        # Every version of an edited line stays in the memo; drop the lines no longer there.
        current = {raw[:-1] if raw.endswith("\r") else raw for raw in new}
        memo.lines = {text: entry for text, entry in table.items() if text in current}
    all_findings = head_findings + findings + tail_findings
    all_pairs = head_pairs + pairs + tail_pairs
    all_crlf = head_crlf + crlf_lines + tail_crlf
    memo.last = _LinePass(new, all_findings, all_pairs, all_crlf, head_priming + priming + tail_priming)
    all_findings = _once_per_file(all_findings)
    if all_crlf:
        first = all_crlf[0]
        notice = check_finding("SL009", Location(path, first, 1, first, 1),
                               f"CRLF line endings on {len(all_crlf)} line(s) (read as LF)")
        all_findings = list(all_findings)
        bisect.insort(all_findings, notice, key=Finding.sort_key)
    return all_findings, all_pairs


# Findings the engine reports once per file and case id, at the first record (SL015: a
# case id that matches no case); each line checked alone reports its own.
_ONCE_PER_FILE = frozenset({"SL015"})


def _once_per_file(findings: list[Finding]) -> list[Finding]:
    if not any(f.code in _ONCE_PER_FILE for f in findings):
        return findings
    seen: set[tuple[str, str | None]] = set()
    out = []
    for f in findings:
        if f.code in _ONCE_PER_FILE:
            key = (f.code, f.record_id)
            if key in seen:
                continue
            seen.add(key)
        out.append(f)
    return out


def _common_prefix(a: tuple[str, ...], b: tuple[str, ...]) -> int:
    """Length of the common head of two line tuples (tuple slices compare in C)."""
    lo, hi = 0, min(len(a), len(b))
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if a[lo:mid] == b[lo:mid]:
            lo = mid
        else:
            hi = mid - 1
    return lo


def _common_suffix(a: tuple[str, ...], b: tuple[str, ...], prefix: int) -> int:
    """Length of the common tail, not overlapping a common head of `prefix` lines."""
    lo, hi = 0, min(len(a), len(b)) - prefix
    na, nb = len(a), len(b)
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if a[na - mid : na - lo] == b[nb - mid : nb - lo]:
            lo = mid
        else:
            hi = mid - 1
    return lo


def _has_priming(memo: DocMemo, lines: tuple[str, ...], kind: str) -> bool:
    for raw in lines:
        text = raw[:-1] if raw.endswith("\r") else raw
        entry = memo.lines.get(text)
        info = entry.turn if entry is not None and entry.turn is not None else _turn_info(text, kind)
        if info[1]:
            return True
    return False


def _finding_line(f: Finding) -> int:
    return f.location.line


def _pair_line(pair: tuple[int, RecordInfo]) -> int:
    return pair[1].location.line + pair[0]


def _turn_info(text: str, kind: str) -> tuple[str | None, bool]:
    """(case id, is a priming turn) as the engine's turn reader would see this line."""
    try:
        data = json.loads(text)
    except (ValueError, RecursionError):
        return None, False
    if not isinstance(data, dict) or not isinstance(data.get("surface"), str):
        return None, False
    case_id = data.get("case_id")
    case_id = case_id if isinstance(case_id, str) and case_id else None
    role = data.get("role")
    return case_id, role == "priming" and case_id is not None


def _check_line(engine: Engine, path: str, text: str, kind: str, lane: Lane, cases: CaseIndex | None,
                number: int, primed_case: str | None, not_first: bool) -> _LineResult:
    prefix: list[str] = []
    if not_first:
        prefix.append("")
    if primed_case is not None:
        prefix.append(json.dumps({"case_id": primed_case, "role": "priming", "surface": ""}))
    data = "\n".join([*prefix, text, ""]).encode("utf-8", "surrogatepass")
    result = engine.check_bytes(path, data, kind, lane.name, cases, siblings=False)
    at = len(prefix) + 1
    findings = [f for f in result.findings if f.location.line == at]
    records = [r for r in result.records if r.location.line == at]
    if at != number:
        findings = [_shift_finding(f, path, number - at) for f in findings]
    return _LineResult(number, findings, records, at)


def _shift_location(location: Location, path: str, delta: int) -> Location:
    if location.path != path:
        return location
    return Location(path, location.line + delta, location.column, location.end_line + delta, location.end_column)


def _shift_finding(f: Finding, path: str, delta: int) -> Finding:
    return Finding(
        _shift_location(f.location, path, delta), f.code, f.rule, f.severity, f.message, f.record_id,
        tuple(Related(_shift_location(r.location, path, delta), r.message) for r in f.related),
        tuple(Fix(x.title, _shift_location(x.location, path, delta), x.replacement) for x in f.fixes),
        f.record_index, f.extra,
    )


def _shift_record(r: RecordInfo, path: str, delta: int) -> RecordInfo:
    def opt(location: Location | None) -> Location | None:
        return _shift_location(location, path, delta) if location is not None else None

    return RecordInfo(r.id, r.kind, _shift_location(r.location, path, delta), opt(r.id_location),
                      opt(r.surface), r.verdicts, r.case_location)
