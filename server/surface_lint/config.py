"""`[tool.surface-lint]` in pyproject.toml or surface-lint.toml: nearest file wins (like ruff)."""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .lanes import DEFAULT_PROFILE, PROFILES

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

CONFIG_FILES = ("surface-lint.toml", ".surface-lint.toml", "pyproject.toml")
SEVERITIES = ("error", "warning", "information", "hint", "off")


class ConfigError(Exception):
    def __init__(self, path: str, line: int, message: str) -> None:
        super().__init__(f"{path}:{line}: {message}")
        self.path = path
        self.line = line
        self.message = message


@dataclass
class Config:
    profile: str = DEFAULT_PROFILE
    lane_files: list[Path] = field(default_factory=list)
    default_lane: str | None = None
    severity: dict[str, str] = field(default_factory=dict)
    thresholds: dict[str, str] = field(default_factory=dict)  # lane -> threshold set name
    cases: list[str] = field(default_factory=list)  # globs of case files, relative to the config
    max_line_bytes: int = 32 * 1024 * 1024
    path: Path | None = None  # the file it came from

    @property
    def root(self) -> Path:
        return self.path.parent if self.path else Path.cwd()


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
                    data = tomllib.loads(candidate.read_text("utf-8"))
                except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
                    continue
                if "surface-lint" not in data.get("tool", {}):
                    continue
            return candidate
    return None


def load_config(path: Path | None) -> Config:
    if path is None:
        return Config()
    shown = str(path)
    try:
        text = path.read_text("utf-8")
        data = tomllib.loads(text)
    except OSError as exc:
        raise ConfigError(shown, 1, f"cannot read config: {exc.strerror}") from None
    except UnicodeDecodeError:
        raise ConfigError(shown, 1, "config is not valid UTF-8") from None
    except tomllib.TOMLDecodeError as exc:
        import re

        m = re.search(r"line (\d+)", str(exc))
        raise ConfigError(shown, int(m.group(1)) if m else 1, f"invalid TOML: {exc}") from None
    table: Any = data.get("tool", {}).get("surface-lint") if path.name == "pyproject.toml" else data
    if path.name != "pyproject.toml" and "tool" in data:
        table = data["tool"].get("surface-lint", table)
    if not isinstance(table, dict):
        return Config(path=path)
    return config_from_table(table, path, text)


def _line_of(text: str, key: str) -> int:
    for i, line in enumerate(text.splitlines(), 1):
        if line.strip().startswith(key):
            return i
    return 1


def config_from_table(table: dict[str, Any], path: Path | None, text: str = "") -> Config:
    shown = str(path) if path else "<settings>"
    cfg = Config(path=path)
    base = path.parent if path else Path.cwd()

    def bad(key: str, message: str) -> ConfigError:
        return ConfigError(shown, _line_of(text, key), message)

    known = {"profile", "lane-files", "default-lane", "severity", "thresholds", "cases", "max-line-bytes"}
    for key in table:
        if key not in known:
            raise bad(key, f"unknown setting `{key}` (known: {', '.join(sorted(known))})")
    profile = table.get("profile", DEFAULT_PROFILE)
    if profile not in PROFILES:
        raise bad("profile", f"`profile` must be one of {', '.join(PROFILES)}, not {profile!r}")
    cfg.profile = profile
    lane_files = table.get("lane-files", [])
    if not isinstance(lane_files, list) or not all(isinstance(x, str) for x in lane_files):
        raise bad("lane-files", "`lane-files` must be a list of paths")
    cfg.lane_files = [(base / x) for x in lane_files]
    default_lane = table.get("default-lane")
    if default_lane is not None and not isinstance(default_lane, str):
        raise bad("default-lane", "`default-lane` must be a lane name")
    cfg.default_lane = default_lane
    severity = table.get("severity", {})
    if not isinstance(severity, dict):
        raise bad("severity", "`severity` must be a table of predicate = level")
    for name, level in severity.items():
        if level not in SEVERITIES:
            raise bad("severity", f"severity of `{name}` must be one of {', '.join(SEVERITIES)}")
    cfg.severity = dict(severity)
    thresholds = table.get("thresholds", {})
    if not isinstance(thresholds, dict) or not all(isinstance(v, str) for v in thresholds.values()):
        raise bad("thresholds", "`thresholds` must be a table of lane = threshold-set name")
    cfg.thresholds = dict(thresholds)
    cases = table.get("cases", [])
    if not isinstance(cases, list) or not all(isinstance(x, str) for x in cases):
        raise bad("cases", "`cases` must be a list of globs")
    cfg.cases = list(cases)
    max_line = table.get("max-line-bytes", cfg.max_line_bytes)
    if not isinstance(max_line, int) or isinstance(max_line, bool) or max_line < 1024:
        raise bad("max-line-bytes", "`max-line-bytes` must be an integer >= 1024")
    cfg.max_line_bytes = max_line
    return cfg
