"""The one reader of every TOML file surface-lint reads: config files (`surface-lint.toml`,
`pyproject.toml`, found or named) and lane files (shipped, `--lane-file`, `lane-files = [...]`).

Bounded whatever the file is: only a regular file is read (a device or a pipe such as
`/dev/zero` is refused before it is opened), at most MAX_TOML_BYTES of it (a bigger file is
refused unread), and arrays and inline tables nested deeper than MAX_TOML_DEPTH are refused
(tomllib recurses once per level: deeper nesting would be a RecursionError).
"""

from __future__ import annotations

import os
import re
import stat
import sys
from typing import Any

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

MAX_TOML_BYTES = 4 * 1024 * 1024  # 4 MiB: the biggest shipped lane is about 10 KB
MAX_TOML_DEPTH = 64  # tables, arrays and inline tables inside one another
TOMLDecodeError = tomllib.TOMLDecodeError


class TomlError(Exception):
    """A TOML file that cannot be read or parsed, with where (1-based line and column)."""

    def __init__(self, message: str, line: int = 1, column: int = 1) -> None:
        super().__init__(message)
        self.message = message
        self.line = line
        self.column = column


def read_toml_bytes(path: str | os.PathLike[str]) -> bytes:
    """The bytes of a TOML file: OSError as open/read raise it (IsADirectoryError for a folder);
    TomlError for a file that is not regular or is bigger than MAX_TOML_BYTES."""
    st = os.stat(path)
    if stat.S_ISDIR(st.st_mode):
        raise IsADirectoryError(21, "Is a directory", str(path))
    if not stat.S_ISREG(st.st_mode):
        raise TomlError("is not a regular file (a device or a pipe); not read")
    with open(path, "rb") as fh:
        raw = fh.read(MAX_TOML_BYTES + 1)
    if len(raw) > MAX_TOML_BYTES:
        raise TomlError(f"is larger than {MAX_TOML_BYTES // (1024 * 1024)} MiB (the limit for TOML files); not read")
    return raw


def parse_toml(text: str) -> dict[str, Any]:
    """tomllib.loads, with a TomlError (`invalid TOML: ...` at its line and column) for text that
    does not parse or nests deeper than MAX_TOML_DEPTH."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        line, column = error_position(str(exc))
        raise TomlError(f"invalid TOML: {exc}", line, column) from None
    except RecursionError:
        raise TomlError(_too_deep()) from None
    if _depth(data) > MAX_TOML_DEPTH:
        raise TomlError(_too_deep())
    return data


def read_toml(path: str | os.PathLike[str]) -> tuple[str, dict[str, Any]]:
    """(text, document) of a TOML file (UTF-8, a byte-order mark dropped). Raises OSError,
    UnicodeDecodeError or TomlError."""
    text = read_toml_bytes(path).decode("utf-8").removeprefix("\ufeff")
    return text, parse_toml(text)


def error_position(message: str) -> tuple[int, int]:
    """(line, column) that a tomllib error message names, else (1, 1)."""
    m = re.search(r"line (\d+), column (\d+)", message)
    return (int(m.group(1)), int(m.group(2))) if m else (1, 1)


def _too_deep() -> str:
    return f"invalid TOML: arrays or inline tables nested too deeply (more than {MAX_TOML_DEPTH} levels)"


def _depth(value: Any) -> int:
    """How deep tables and arrays sit inside one another (a scalar: 0), without recursion."""
    deepest = 0
    stack: list[tuple[Any, int]] = [(value, 0)]
    while stack:
        node, depth = stack.pop()
        if isinstance(node, dict):
            children: Any = node.values()
        elif isinstance(node, list):
            children = node
        else:
            continue
        depth += 1
        deepest = max(deepest, depth)
        if deepest > MAX_TOML_DEPTH:
            return deepest
        stack.extend((child, depth) for child in children if isinstance(child, (dict, list)))
    return deepest


__all__ = ["MAX_TOML_BYTES", "MAX_TOML_DEPTH", "TOMLDecodeError", "TomlError", "error_position", "parse_toml",
           "read_toml", "read_toml_bytes"]
