"""`[tool.surface-lint]` in pyproject.toml or surface-lint.toml: nearest file wins (like ruff).

Every key is type-checked here, at `file:line:column`; unknown keys are errors with a
did-you-mean. Severity keys (predicate codes, names, aliases) are resolved against the loaded
lanes by `resolve_severity`, the one resolver the CLI and the editor share.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..model.checks import CHECKS
from ..model.severity import LEVELS, normalize_level
from ..rules.loader import DEFAULT_PROFILE, PROFILES
from ..rules.schema import toml_type_name
from ..rules.toml_reader import TomlError, parse_toml, read_toml, read_toml_bytes

if TYPE_CHECKING:
    from ..rules.loader import Lane

CONFIG_FILES = ("surface-lint.toml", ".surface-lint.toml", "pyproject.toml")
SEVERITIES = LEVELS
TABLE = ("tool", "surface-lint")
# The settings and the TOML type each takes: one list (unknown keys, did-you-mean, the docs).
SETTINGS: dict[str, str] = {
    "profile": "string", "lane-files": "array", "default-lane": "string", "severity": "table",
    "thresholds": "table", "cases": "array", "max-line-bytes": "integer",
}
MIN_MAX_LINE_BYTES = 1024
SETTINGS_SOURCE = "<settings>"  # where problems of settings that come from no file are reported


class ConfigError(Exception):
    def __init__(self, path: str, line: int, message: str, column: int | None = None) -> None:
        where = f"{path}:{line}:{column}" if column is not None else f"{path}:{line}"
        super().__init__(f"{where}: {message}")
        self.path = path
        self.line = line
        self.column = column or 1
        self.message = message


@dataclass
class Config:
    profile: str = DEFAULT_PROFILE
    lane_files: list[Path] = field(default_factory=list)
    default_lane: str | None = None
    # key as written (code, name or alias) -> level; `resolve_severity` maps keys to predicates.
    severity: dict[str, str] = field(default_factory=dict)
    thresholds: dict[str, str] = field(default_factory=dict)  # lane -> threshold set name
    cases: list[str] = field(default_factory=list)  # globs of case files, relative to the config
    max_line_bytes: int = 32 * 1024 * 1024
    path: Path | None = None  # the file it came from
    severity_at: dict[str, tuple[int, int]] = field(default_factory=dict)  # key -> (line, column)

    @property
    def root(self) -> Path:
        return self.path.parent if self.path else Path.cwd()

    def severity_error(self, problem: SeverityProblem) -> ConfigError:
        """A severity key's problem at the key's place in the config file; a key the file does not
        hold (an editor's `surfaceLint.severity` setting merged in) is reported at `<settings>`."""
        where = self.severity_at.get(problem.key)
        if where is None or self.path is None:
            return ConfigError(SETTINGS_SOURCE, 1, problem.message, 1)
        return ConfigError(str(self.path), where[0], problem.message, where[1])


def did_you_mean(word: str, known: Iterable[str]) -> str:
    """` (did you mean `x`?)` for the closest known word, or nothing."""
    close = difflib.get_close_matches(word, sorted(set(known)), n=1, cutoff=0.6)
    if not close:
        close = [k for k in sorted(set(known)) if k.lower() == word.lower()][:1]
    return f" (did you mean `{close[0]}`?)" if close else ""


def _our_table(data: dict[str, Any], name: str) -> tuple[Any, tuple[str, ...]] | None:
    """The surface-lint table of a parsed config file and where it sits; None when the file has
    none (a pyproject.toml without `[tool.surface-lint]`). Raises on a wrong-typed table."""
    tool = data.get("tool")
    if name == "pyproject.toml":
        if not isinstance(tool, dict) or "surface-lint" not in tool:
            return None
        return tool["surface-lint"], TABLE
    if isinstance(tool, dict) and "surface-lint" in tool:
        return tool["surface-lint"], TABLE
    return data, ()


def find_config(start: Path) -> Path | None:
    """The nearest config file at or above `start` (a pyproject.toml counts only with our table)."""
    here = start if start.is_dir() else start.parent
    for folder in [here, *here.parents]:
        for name in CONFIG_FILES:
            candidate = folder / name
            if not candidate.is_file():
                continue
            if name == "pyproject.toml":
                try:
                    data = read_toml(candidate)[1]  # bounded, its depth limited: never a RecursionError
                except (OSError, UnicodeDecodeError, TomlError):
                    continue
                if _our_table(data, name) is None:
                    continue
            return candidate
    return None


def load_config(path: Path | None) -> Config:
    if path is None:
        return Config()
    shown = str(path)
    try:
        text = read_toml_bytes(path).decode("utf-8")  # bounded: a device, a pipe, a huge file refused
    except IsADirectoryError:
        raise ConfigError(shown, 1, "cannot read config: is a folder") from None
    except OSError as exc:
        raise ConfigError(shown, 1, f"cannot read config: {exc.strerror}") from None
    except TomlError as exc:
        raise ConfigError(shown, 1, f"config {exc.message}") from None
    except UnicodeDecodeError:
        raise ConfigError(shown, 1, "config is not valid UTF-8") from None
    return parse_config(text, path)


def parse_config(text: str, path: Path) -> Config:
    """A config file's text (from disk or an editor's buffer) -> Config; ConfigError at file:line:column."""
    shown = str(path)
    text = text.removeprefix("\ufeff")  # a BOM (Windows editors write one) is not TOML content
    try:
        data = parse_toml(text)
    except TomlError as exc:
        raise ConfigError(shown, exc.line, exc.message, exc.column) from None
    found = _our_table(data, path.name)
    if found is None:
        if path.name == "pyproject.toml" and "tool" in data and not isinstance(data["tool"], dict):
            line, column = key_positions(text).get(("tool",), (1, 1))
            raise ConfigError(shown, line, f"`tool` must be a table, not {toml_type_name(data['tool'], article=True)}", column)
        return Config(path=path)
    table, prefix = found
    if not isinstance(table, dict):
        line, column = key_positions(text).get(prefix, (1, 1))
        raise ConfigError(shown, line, f"`{'.'.join(prefix)}` must be a table, not {toml_type_name(table, article=True)}", column)
    return config_from_table(table, path, text, prefix)


def config_from_table(table: dict[str, Any], path: Path | None, text: str = "",
                      prefix: tuple[str, ...] | None = None) -> Config:
    shown = str(path) if path else SETTINGS_SOURCE
    cfg = Config(path=path)
    base = path.parent if path else Path.cwd()
    positions = key_positions(text)
    if prefix is None:
        prefix = TABLE if path is not None and path.name == "pyproject.toml" else ()

    def where(*keys: str) -> tuple[int, int]:
        full = (*prefix, *keys)
        while full:
            if full in positions:
                return positions[full]
            full = full[:-1]
        return (1, 1)

    def bad(message: str, *keys: str) -> ConfigError:
        line, column = where(*keys)
        return ConfigError(shown, line, message, column)

    for key in table:
        if key not in SETTINGS:
            raise bad(f"unknown setting `{key}`{did_you_mean(key, SETTINGS)} (known: {', '.join(sorted(SETTINGS))})",
                      key)
    profile = table.get("profile", DEFAULT_PROFILE)
    if not isinstance(profile, str):
        raise bad(f"`profile` must be a string (one of {', '.join(PROFILES)}), not {toml_type_name(profile, article=True)}", "profile")
    if profile not in PROFILES:
        raise bad(f"`profile` must be one of {', '.join(PROFILES)}, not {profile!r}", "profile")
    cfg.profile = profile
    lane_files = table.get("lane-files", [])
    if not isinstance(lane_files, list) or not all(isinstance(x, str) for x in lane_files):
        raise bad(f"`lane-files` must be an array of paths (strings), not {_shape(lane_files)}", "lane-files")
    cfg.lane_files = [(base / x) for x in lane_files]
    default_lane = table.get("default-lane")
    if default_lane is not None and not isinstance(default_lane, str):
        raise bad(f"`default-lane` must be a lane name (a string), not {toml_type_name(default_lane, article=True)}", "default-lane")
    cfg.default_lane = default_lane
    severity = table.get("severity", {})
    if not isinstance(severity, dict):
        raise bad(f"`severity` must be a table of predicate = level, not {toml_type_name(severity, article=True)}", "severity")
    for name, level in severity.items():
        normal = normalize_level(level)
        if normal is None:
            raise bad(f"severity of `{name}` must be one of {', '.join(SEVERITIES)}", "severity", name)
        cfg.severity[name] = normal
        cfg.severity_at[name] = where("severity", name)
    thresholds = table.get("thresholds", {})
    if not isinstance(thresholds, dict):
        raise bad(f"`thresholds` must be a table of lane = threshold-set name, not {toml_type_name(thresholds, article=True)}",
                  "thresholds")
    for lane_name, set_name in thresholds.items():
        if not isinstance(set_name, str):
            raise bad(f"`thresholds.{lane_name}` must be a threshold-set name (a string), not {toml_type_name(set_name, article=True)}",
                      "thresholds", lane_name)
    cfg.thresholds = dict(thresholds)
    cases = table.get("cases", [])
    if not isinstance(cases, list) or not all(isinstance(x, str) for x in cases):
        raise bad(f"`cases` must be an array of globs (strings), not {_shape(cases)}", "cases")
    cfg.cases = list(cases)
    max_line = table.get("max-line-bytes", cfg.max_line_bytes)
    if not isinstance(max_line, int) or isinstance(max_line, bool):
        raise bad(f"`max-line-bytes` must be an integer >= {MIN_MAX_LINE_BYTES}, not {toml_type_name(max_line, article=True)}",
                  "max-line-bytes")
    if max_line < MIN_MAX_LINE_BYTES:
        raise bad(f"`max-line-bytes` must be an integer >= {MIN_MAX_LINE_BYTES}, not {max_line}", "max-line-bytes")
    cfg.max_line_bytes = max_line
    return cfg


def _shape(value: object) -> str:
    if isinstance(value, list):
        wrong = next((x for x in value if not isinstance(x, str)), None)
        return f"an array holding {toml_type_name(wrong, article=True)}"
    return toml_type_name(value, article=True)


# --- severity keys ------------------------------------------------------------------------------


@dataclass(frozen=True)
class SeverityProblem:
    key: str
    message: str


@dataclass(frozen=True)
class SeverityTable:
    """Predicate name -> level (`off` included), and the keys that could not be used."""

    levels: dict[str, str]
    problems: tuple[SeverityProblem, ...]


def resolve_severity(levels: Mapping[str, object], lanes: Iterable[Lane]) -> SeverityTable:
    """Map `[severity]` keys to predicate names: a code (`SL103`, any case), a name or an alias,
    in any loaded lane. Levels are normalised (`info` -> `information`). Later keys win when two
    name one predicate. Unknown keys, file checks and bad levels are problems (with a did-you-mean)."""
    by_key: dict[str, str] = {}
    for lane in lanes:
        for spec in lane.predicates:
            by_key.setdefault(spec.code.upper(), spec.name)
            by_key.setdefault(spec.name, spec.name)
            for alias in spec.aliases:
                by_key.setdefault(alias, spec.name)
    checks = {c.code: c for c in CHECKS.values()} | {c.name: c for c in CHECKS.values()}
    resolved: dict[str, str] = {}
    problems: list[SeverityProblem] = []
    for key, level in levels.items():
        normal = normalize_level(level)
        if normal is None:
            problems.append(SeverityProblem(key, f"severity of `{key}` must be one of {', '.join(SEVERITIES)}"))
            continue
        name = by_key.get(key) or by_key.get(key.upper())
        if name is not None:
            resolved[name] = normal
            continue
        check = checks.get(key) or checks.get(key.upper())
        if check is not None:
            problems.append(SeverityProblem(
                key, f"severity key `{key}`: {check.code} ({check.name}) is a file check, not a predicate; "
                "its severity is fixed"))
            continue
        problems.append(SeverityProblem(
            key, f"severity key `{key}` names no predicate of the loaded lanes{did_you_mean(key, by_key)}"))
    return SeverityTable(resolved, tuple(problems))


# --- where keys are in the TOML text ----------------------------------------------------------


_BARE = re.compile(r"[A-Za-z0-9_-]+")


def _dotted(text: str) -> tuple[tuple[str, ...], int] | None:
    """`a."b c".d` -> (("a", "b c", "d"), characters read); None when it is not a key."""
    parts: list[str] = []
    i = 0
    while True:
        while i < len(text) and text[i] in " \t":
            i += 1
        if i < len(text) and text[i] in "\"'":
            quote = text[i]
            end = i + 1
            while end < len(text) and text[end] != quote:
                end += 2 if text[end] == "\\" and quote == '"' else 1
            if end >= len(text):
                return None
            raw = text[i + 1:end]
            parts.append(raw.encode("utf-8").decode("unicode_escape") if quote == '"' and "\\" in raw else raw)
            i = end + 1
        else:
            m = _BARE.match(text, i)
            if not m:
                return None
            parts.append(m.group())
            i = m.end()
        while i < len(text) and text[i] in " \t":
            i += 1
        if i < len(text) and text[i] == ".":
            i += 1
            continue
        return tuple(parts), i


def key_positions(text: str) -> dict[tuple[str, ...], tuple[int, int]]:
    """Each table header and `key =` line's full dotted path -> (line, column of the key), 1-based.

    A line-based reading (tomllib keeps no positions): multi-line strings and arrays are skipped
    well enough for messages; a key that is not found is reported at its table or line 1.
    """
    out: dict[tuple[str, ...], tuple[int, int]] = {}
    table: tuple[str, ...] = ()
    for number, line in enumerate(text.splitlines(), 1):
        stripped = line.lstrip()
        column = len(line) - len(stripped) + 1
        if not stripped or stripped.startswith("#"):
            continue
        if stripped.startswith("["):
            inner = stripped[2:] if stripped.startswith("[[") else stripped[1:]
            parsed = _dotted(inner)
            if parsed is not None:
                table = parsed[0]
                for n in range(1, len(table) + 1):
                    out.setdefault(table[:n], (number, column))
            continue
        parsed = _dotted(stripped)
        if parsed is None or not stripped[parsed[1]:].startswith("="):
            continue
        keys = (*table, *parsed[0])
        for n in range(len(table) + 1, len(keys) + 1):
            out.setdefault(keys[:n], (number, column))
    return out


# --- `--select` / `--ignore` / `--extend-select`: which findings are reported -----------------


@dataclass(frozen=True)
class Selection:
    """The codes a run reports: `selected` None for every code; `ignored` never."""

    selected: frozenset[str] | None = None
    ignored: frozenset[str] = frozenset()

    def allows(self, code: str) -> bool:
        return (self.selected is None or code in self.selected) and code not in self.ignored


def selection_codes(key: str, lanes: Iterable[Lane]) -> set[str]:
    """The codes a key names, resolved as `[severity]` keys are (a code in any case, a predicate's
    name or alias, in any loaded lane) and also a file check's code or name, a code prefix
    (`SL1`, `SLC4`) or `ALL`. An unknown key is a ValueError with a did-you-mean."""
    codes: dict[str, set[str]] = {}
    every: set[str] = set()
    for lane in lanes:
        for spec in lane.predicates:
            every.add(spec.code.upper())
            for name in (spec.code.upper(), spec.name, *spec.aliases):
                codes.setdefault(name, set()).add(spec.code.upper())
    for check in CHECKS.values():
        every.add(check.code.upper())
        for name in (check.code.upper(), check.name):
            codes.setdefault(name, set()).add(check.code.upper())
    if key.upper() == "ALL":
        return every
    found = codes.get(key) or codes.get(key.upper())
    if found:
        return set(found)
    prefixed = {c for c in every if c.startswith(key.upper())} if key[:1].isalpha() else set()
    if prefixed:
        return prefixed
    raise ValueError(f"`{key}` names no code, predicate, alias or code prefix of the loaded lanes"
                     f"{did_you_mean(key, list(codes))}")


def resolve_selection(select: Sequence[str] | None, extend_select: Sequence[str], ignore: Sequence[str],
                      lanes: Iterable[Lane]) -> Selection:
    """ruff's rule: `--select` replaces the default (every code), `--extend-select` adds to it,
    `--ignore` removes; each key resolved by `selection_codes`."""
    lanes = list(lanes)

    def codes(keys: Sequence[str]) -> set[str]:
        return {c for key in keys for part in key.split(",") if part.strip()
                for c in selection_codes(part.strip(), lanes)}

    selected = None if select is None else frozenset(codes(select) | codes(extend_select))
    return Selection(selected, frozenset(codes(ignore)))
