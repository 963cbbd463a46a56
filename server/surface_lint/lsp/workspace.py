"""The server's workspace, without pygls: client settings, configs, engines and case files.

`ServerState` resolves a document's config (nearest `surface-lint.toml` / `pyproject.toml`,
then the client's settings), builds and caches engines, keeps the last good rules when a
lane file breaks, and finds a lane's case files.
"""

from __future__ import annotations

import dataclasses
import os
import threading
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..engine import CaseIndex, Engine, UsageError, first_object
from ..engine.config import CONFIG_FILES, SETTINGS_SOURCE, Config, ConfigError, find_config, load_config
from ..model.findings import Finding
from ..model.severity import LEVELS, normalize_level
from ..rules.loader import PROFILES, Lane, builtin_rule_files
from ..sources.lintable import HEAD_BYTES
from .documents import LineMap, Snapshot, TextDoc, uri_to_path
from .lint import Cancelled, CancelToken, DocMemo, EngineEntry, LintResult, lint_document

ENCODINGS = ("utf-16", "utf-8", "utf-32")
RUN_MODES = ("onType", "onSave")
SETTINGS_SECTION = "surfaceLint"
TRUSTED_OPTION = "trusted"  # initializationOptions.trusted: bool, absent = trusted


def parse_trusted(options: Any) -> tuple[bool, list[str]]:
    """The trust state from initializationOptions; anything but a boolean is untrusted."""
    if not isinstance(options, Mapping) or TRUSTED_OPTION not in options:
        return True, []
    value = options[TRUSTED_OPTION]
    if isinstance(value, bool):
        return value, []
    return False, [f"initializationOptions.{TRUSTED_OPTION}: {value!r} is not a boolean; the workspace is "
                   "treated as untrusted"]


def start_session(state: ServerState, folder_uris: Iterable[str], root_uri: str | None, root_path: str | None,
                  options: Any) -> None:
    """What `initialize` sets in a session: its roots, trust and settings (the server's, and the
    first lint of a cold open's, `first.py`). `options`: initializationOptions as plain JSON."""
    roots = [uri_to_path(uri) for uri in folder_uris]
    if not roots and root_uri:
        roots = [uri_to_path(root_uri)]
    elif not roots and root_path:
        roots = [root_path]
    state.roots = [Path(r) for r in roots]
    # {"settings": {...}} (the VS Code extension), {"surfaceLint": {...}} or the settings themselves.
    trusted, trust_problems = parse_trusted(options)
    state.set_trusted(trusted)
    settings, problems = parse_settings(options)
    state.set_settings(settings, trust_problems + problems)

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
    for name, given in table.items():
        level = normalize_level(given)  # the one table of levels and aliases (severity_levels.json)
        if isinstance(name, str) and level is not None:
            severity.append((name, level))
        else:
            shown = given.strip().lower() if isinstance(given, str) else given
            problems.append(f"{SETTINGS_SECTION}.severity.{name}: {shown!r} is not one of {', '.join(LEVELS)}")
    return ClientSettings(profile, tuple(sorted(severity)), run), problems


# --- engines ------------------------------------------------------------------------------------


class ServerState:
    """Configs, engines, case indexes and open documents of one server session."""

    def __init__(self) -> None:
        self.lock = threading.RLock()
        self.roots: list[Path] = []
        self.settings = ClientSettings()
        self.settings_problems: list[str] = []
        self.trusted = True  # False: no config files, so no user lane files (HELPERS.md trust contract)
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
        self._file_lines: dict[str, tuple[tuple[int, int], LineMap]] = {}

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

    def set_trusted(self, trusted: bool) -> bool:
        with self.lock:
            changed = trusted != self.trusted
            self.trusted = trusted
        if changed:
            self.invalidate()
        return changed

    def set_settings(self, settings: ClientSettings, problems: list[str]) -> bool:
        with self.lock:
            changed = settings != self.settings
            self.settings = settings
            self.settings_problems = problems
        if changed:
            self.invalidate()
        return changed

    # --- what the server may read -------------------------------------------------------

    def may_read(self, path: str) -> bool:
        """Whether the server reads this file: a document the client opened, or a file under a
        workspace folder (both sides with symlinks resolved: a link inside a folder to a file
        outside it is outside). Nothing else is read, whoever names it."""
        with self.lock:
            if any(d.path == path for d in self.docs.values()):
                return True
            roots = list(self.roots)
        if not os.path.isabs(path):
            return False  # not a file: URI (or relative): nothing on disk is meant
        real = Path(_resolve(path))
        return any(real.is_relative_to(_resolve(str(root))) for root in roots)

    def refusal(self, path: str) -> str | None:
        """Why a request may not read `path`, or None when it may (see may_read)."""
        if self.may_read(path):
            return None
        return (f"{path}: surface-lint reads only files under a workspace folder and documents open in the "
                "editor; this file is outside them")

    def readable(self, paths: Iterable[str]) -> list[str]:
        """The paths (found by a search: case files, runs) that the server may read, in order."""
        return [p for p in paths if self.may_read(p)]

    def all_settings_problems(self) -> list[str]:
        """The client's settings that cannot be used: parse_settings' problems, then each
        `surfaceLint.severity` key the config's resolver cannot map (as the config file's keys
        are checked), against the lanes of the first workspace folder's config."""
        with self.lock:
            problems = list(self.settings_problems)
            severity = self.settings.severity
        if severity:
            folder = self.roots[0] if self.roots else Path.cwd()
            entry = self.engine_for(str(folder / CONFIG_FILES[0]))  # the engine of files in that folder
            problems.extend(f"{SETTINGS_SECTION}.severity: {err.message}"
                            for err in entry.engine.severity_errors if err.path == SETTINGS_SOURCE)
        return problems

    # --- config and engines ---------------------------------------------------------------

    def config_path_for(self, path: str) -> Path | None:
        if not self.trusted:
            return None  # an untrusted workspace: built-in lanes and the client's settings only
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
        """Config `cases` globs (this lane's files), else the lane's `**/cases.jsonl` in the
        nearest folder upward that holds them (`case_roots`)."""
        config = entry.engine.config
        folder = self._folder_of(doc_path)
        key = (entry.generation, config.path, lane, folder if not config.cases else None)
        now = time.monotonic()
        with self.lock:
            cached = self._case_paths.get(key)
            if cached is not None and now - cached[0] < 5.0:
                return tuple(self.readable(cached[1]))
        found: list[str] = []
        if config.cases:
            for pattern in config.cases:
                for p in sorted(config.root.glob(pattern)):
                    if p.is_file() and self._case_file_lane(entry, p) == lane:
                        found.append(str(p.resolve()))
        else:
            for parent in [folder, *folder.parents]:
                root = next((r for r in case_roots(parent, lane) if r.is_dir()), None)
                if root is not None:
                    found = [str(p.resolve()) for p in sorted(root.glob("**/cases.jsonl")) if p.is_file()]
                    break
        paths = tuple(dict.fromkeys(found))
        with self.lock:
            self._case_paths[key] = (now, paths)
        return tuple(self.readable(paths))  # a glob or the upward search may reach outside the workspace

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
        return self.readable(dict.fromkeys(out))

    def _case_file_lane(self, entry: EngineEntry, path: Path) -> str | None:
        try:
            head = self._bytes_of(str(path))[:HEAD_BYTES]
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

    def file_lines(self, path: str) -> LineMap:
        """Lines of another file as saved (what related locations were computed from)."""
        try:
            st = Path(path).stat()
            stamp = (st.st_mtime_ns, st.st_size)
        except OSError:
            return LineMap([], {})
        with self.lock:
            cached = self._file_lines.get(path)
            if cached is not None and cached[0] == stamp:
                return cached[1]
        try:
            text = Path(path).read_bytes().decode("utf-8", "replace")
        except OSError:
            return LineMap([], {})
        if text.startswith("\ufeff"):
            text = text[1:]  # the engine's columns on line 1 do not count it
        lines = LineMap.scan(text.split("\n"))
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
            result = LintResult(snap.uri, snap.path, snap.version, snap.lines, None, None, [], [], entry, bare=snap.bare,
                                error=f"surface-lint could not check this document: {type(exc).__name__}: {exc}")
        result.seconds = time.perf_counter() - start
        result.generation = generation
        return result

    def forget(self, uri: str) -> None:
        with self.lock:
            self.docs.pop(uri, None)
            self.memos.pop(uri, None)


def case_roots(folder: Path, lane: str) -> tuple[Path, ...]:
    """Where a lane's case files are looked for from `folder`, in this order: a project's
    `evals/<lane>/`, the runtime's `cases/<lane>/` (beside `runtime/captures/`), and a lane
    folder's `cases/` (`<lane>/{cases,captures,reports}`)."""
    roots = [folder / "evals" / lane, folder / "cases" / lane]
    if folder.name == lane:
        roots.append(folder / "cases")
    return tuple(roots)


def _resolve(path: str) -> str:
    try:
        return str(Path(path).resolve())
    except (OSError, RuntimeError):
        return path
