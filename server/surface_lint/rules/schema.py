"""The declarative schema of a rules file and its one validator, with exact TOML positions.

Every table of a lane file is described here as data (`Table`, `ArrayOf`, `MapOf`, `Value`);
`validate` walks the parsed document against it once: unknown tables and keys are rejected
with a did-you-mean, every value is type-checked, numbers must be finite, list items and
names non-empty. `TomlPositions` gives the line and column of any key or array item, so
every message names `file:line:column`.
"""

from __future__ import annotations

import bisect
import difflib
import math
import re
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime, time
from typing import Any

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

KeyPath = tuple[str | int, ...]
_NEWLINE = re.compile("\n")

# --- positions -------------------------------------------------------------------------------


class TomlPositions:
    """(line, column) of every key, table header and array item of a TOML text that parses.

    A small scanner, not a parser: tomllib has already accepted the text, so it only needs to
    follow headers, dotted keys, arrays, inline tables and the four kinds of string."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.line_starts = [0, *(m.end() for m in _NEWLINE.finditer(text))]  # linear, in C
        self.where: dict[KeyPath, tuple[int, int]] = {}
        self._tables: dict[KeyPath, int] = {}  # array-of-tables path -> entries seen
        self._i = 0
        try:
            self._document()
        except (IndexError, ValueError, RecursionError, tomllib.TOMLDecodeError):  # positions found so far stay
            pass

    def at(self, path: KeyPath) -> tuple[int, int]:
        """The position of `path`, else of its nearest recorded ancestor, else 1:1."""
        probe = tuple(path)
        while probe:
            found = self.where.get(probe)
            if found is not None:
                return found
            probe = probe[:-1]
        return (1, 1)

    def line(self, path: KeyPath) -> int:
        return self.at(path)[0]

    # -- scanning --

    def _pos(self, index: int) -> tuple[int, int]:
        line = bisect.bisect_right(self.line_starts, index)
        return line, index - self.line_starts[line - 1] + 1

    def _record(self, path: KeyPath, index: int) -> None:
        self.where.setdefault(path, self._pos(index))

    def _peek(self, n: int = 1) -> str:
        return self.text[self._i : self._i + n]

    def _skip(self, newlines: bool) -> None:
        text = self.text
        while self._i < len(text):
            ch = text[self._i]
            if ch in " \t\r" or (newlines and ch == "\n"):
                self._i += 1
            elif ch == "#":
                end = text.find("\n", self._i)
                self._i = len(text) if end < 0 else end
            else:
                return

    def _string(self) -> str:
        text, i = self.text, self._i
        for quote in ('"""', "'''"):
            if text.startswith(quote, i):
                end = i + 3
                while True:
                    end = text.index(quote, end)
                    if quote == '"""' and _escaped(text, end):
                        end += 1
                        continue
                    break
                while text.startswith(quote[0], end + 3):  # up to two quotes may end the content
                    end += 1
                self._i = end + 3
                return text[i + 3 : end]
        quote = text[i]
        end = i + 1
        while True:
            end = text.index(quote, end)
            if quote == '"' and _escaped(text, end):
                end += 1
                continue
            break
        self._i = end + 1
        if quote == "'" or text.find("\\", i, end) < 0:  # no escape: the content is the value
            return text[i + 1 : end]
        raw = text[i : end + 1]
        return str(tomllib.loads(f"k = {raw}")["k"])

    def _key(self) -> list[tuple[str, int]]:
        parts: list[tuple[str, int]] = []
        while True:
            self._skip(False)
            start = self._i
            if self._peek() in ('"', "'"):
                parts.append((self._string(), start))
            else:
                text = self.text
                while self._i < len(text) and (text[self._i].isalnum() or text[self._i] in "_-"):
                    self._i += 1
                parts.append((text[start : self._i], start))
            self._skip(False)
            if self._peek() != ".":
                return parts
            self._i += 1

    def _value(self, path: KeyPath) -> None:
        self._skip(False)
        ch = self._peek()
        if ch == "[":
            self._i += 1
            index = 0
            while True:
                self._skip(True)
                if self._peek() == "]":
                    self._i += 1
                    return
                self._record((*path, index), self._i)
                self._value((*path, index))
                self._skip(True)
                if self._peek() == ",":
                    self._i += 1
                index += 1
        elif ch == "{":
            self._i += 1
            while True:
                self._skip(True)
                if self._peek() == "}":
                    self._i += 1
                    return
                self._key_value(path)
                self._skip(True)
                if self._peek() == ",":
                    self._i += 1
        elif ch in ('"', "'"):
            self._string()
        else:
            text = self.text
            while self._i < len(text) and text[self._i] not in ",]}\n#":
                self._i += 1

    def _key_value(self, table: KeyPath) -> None:
        parts = self._key()
        path = table
        for name, start in parts:
            path = (*path, name)
            self._record(path, start)
        self._skip(False)
        self._i += 1  # '='
        self._value(path)

    def _document(self) -> None:
        current: KeyPath = ()
        text = self.text
        while True:
            self._skip(True)
            if self._i >= len(text):
                return
            start = self._i
            if text.startswith("[[", start):
                self._i += 2
                parts = self._key()
                self._i += 2
                current = self._resolve(parts, start, array=True)
            elif text[start] == "[":
                self._i += 1
                parts = self._key()
                self._i += 1
                current = self._resolve(parts, start, array=False)
            else:
                self._key_value(current)

    def _resolve(self, parts: list[tuple[str, int]], start: int, array: bool) -> KeyPath:
        path: KeyPath = ()
        for n, (name, _) in enumerate(parts):
            path = (*path, name)
            last = n == len(parts) - 1
            if last and array:
                count = self._tables.get(path, 0)
                self._tables[path] = count + 1
                self._record(path, start)
                path = (*path, count)
            elif path in self._tables:
                path = (*path, self._tables[path] - 1)
            self._record(path, start)
        return path


def _escaped(text: str, quote_at: int) -> bool:
    backslashes = 0
    j = quote_at - 1
    while j >= 0 and text[j] == "\\":
        backslashes += 1
        j -= 1
    return backslashes % 2 == 1


# --- the schema as data ------------------------------------------------------------------------

REQUIRED: Any = object()  # a Value's default when the key must be given

SCALAR_TYPES = ("string", "integer", "number", "boolean", "regex")
LIST_TYPES = ("list[string]", "list[integer]", "list[number]", "list[regex]")
VALUE_TYPES = (*SCALAR_TYPES, *LIST_TYPES)


# TOML's name of each value type tomllib returns, with its article; the first match wins (bool is an int).
_TOML_TYPES: tuple[tuple[type | tuple[type, ...], str], ...] = (
    (bool, "a boolean"), (int, "an integer"), (float, "a float"), (str, "a string"), (list, "an array"),
    (dict, "a table"), ((datetime, date, time), "a date-time"),
)


def toml_type_name(value: object, article: bool = False) -> str:
    """What the TOML spec calls the value's type (`integer`; `an integer` with `article`), for messages."""
    for kinds, name in _TOML_TYPES:
        if isinstance(value, kinds):
            return name if article else name.split(" ", 1)[1]
    return type(value).__name__


def _is_type(value: Any, type_name: str) -> bool:
    if type_name in ("string", "regex"):
        return isinstance(value, str)
    if type_name == "table":
        return isinstance(value, dict)
    if type_name == "expression":
        return True  # its check says what is wrong, the removed table form included
    if type_name == "integer":
        return isinstance(value, int) and not isinstance(value, bool)
    if type_name == "number":
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    if type_name == "boolean":
        return isinstance(value, bool)
    if type_name.startswith("list[") and isinstance(value, list):
        inner = type_name[5:-1]
        return all(_is_type(v, inner) for v in value)
    return False


def type_text(type_name: str) -> str:
    """A declared type as messages and the reference print it."""
    return {"regex": "string (a regex)", "list[regex]": "list[string] (regexes)", "table": "a table",
            "expression": "string (an expression)"}.get(
        type_name, type_name)


def choice_text(choices: Sequence[str]) -> str:
    """`"a"`, `"a" or "b"`, `"a", "b" or "c"`."""
    quoted = [f'"{c}"' for c in choices]
    return quoted[0] if len(quoted) == 1 else ", ".join(quoted[:-1]) + " or " + quoted[-1]


Check = Callable[[Any], str | None]  # a value -> a problem ("must ..."), or None


@dataclass(frozen=True, slots=True)
class Value:
    """One typed key: its type, default (REQUIRED when it must be given) and constraints."""

    type: str
    default: Any = None
    doc: str = ""
    choices: tuple[str, ...] = ()
    non_empty: bool = False  # a string (or every string item) must not be empty
    minimum: float | None = None
    check: Check | None = None  # a further constraint on a well-typed value
    removed: Mapping[str, str] = field(default_factory=dict)  # a choice no more accepted -> what to write instead

    @property
    def required(self) -> bool:
        return self.default is REQUIRED

    def problem(self, value: Any) -> str | None:
        """Why `value` is not acceptable here (the text after "`key` "), or None."""
        if not _is_type(value, self.type):
            if self.type.startswith("list[") and isinstance(value, list):
                inner = self.type[5:-1]
                bad = next(v for v in value if not _is_type(v, inner))
                return f"must be {type_text(self.type)}, but an item is {toml_type_name(bad)}"
            return f"must be {type_text(self.type)}, not {toml_type_name(value)}"
        items = value if isinstance(value, list) else [value]
        for item in items:
            if isinstance(item, float) and not math.isfinite(item):
                return f"must be a finite number, not {item!r}"
            if self.non_empty and isinstance(item, str) and not item:
                return "must not hold an empty string" if isinstance(value, list) else "must not be empty"
            if self.minimum is not None and isinstance(item, (int, float)) and item < self.minimum:
                return f"must be at least {self.minimum:g}, not {item!r}"
            if self.choices and item not in self.choices:
                if isinstance(item, str) and item in self.removed:
                    return f"{_show(item)} is no more accepted: {self.removed[item]}"
                return f"must be {choice_text(self.choices)}, not {_show(item)}"
        if self.check is not None:
            return self.check(value)
        return None


def _show(value: Any) -> str:
    return f'"{value}"' if isinstance(value, str) else repr(value)


@dataclass(frozen=True, slots=True)
class Table:
    """A closed table: only these keys. `label` names one entry in messages."""

    keys: Mapping[str, Node]
    doc: str = ""


@dataclass(frozen=True, slots=True)
class ArrayOf:
    """An array of tables (`[[name]]`)."""

    table: Table
    doc: str = ""


@dataclass(frozen=True, slots=True)
class MapOf:
    """A table of user-named entries (threshold sets, case fields, details)."""

    value: Node
    doc: str = ""
    key_check: Check | None = None


Node = Value | Table | ArrayOf | MapOf


# --- the validator ---------------------------------------------------------------------------


@dataclass
class Problem(Exception):
    """A rules-file problem at a path of the document."""

    path: KeyPath
    message: str
    positions_path: KeyPath = field(default=())


Label = Callable[[KeyPath], str]


def validate(document: Mapping[str, Any], root: Table, label: Label) -> None:
    """Check `document` against `root`; raises Problem at the first problem, in file order of
    the schema's walk. `label(path)` names the table a message is about."""
    _table(document, root, (), label)


def _did_you_mean(name: str, known: Sequence[str]) -> str:
    close = difflib.get_close_matches(name, list(known), n=1, cutoff=0.6)
    return f" (did you mean `{close[0]}`?)" if close else ""


def _table(data: Any, schema: Table, path: KeyPath, label: Label) -> None:
    where = label(path)
    if not isinstance(data, dict):
        raise Problem(path, f"{where} must be a table, not {toml_type_name(data)}")
    for key, value in data.items():
        node = schema.keys.get(key)
        if node is None:
            if path == ():
                array = isinstance(value, list) and bool(value) and isinstance(value[0], dict)
                close = difflib.get_close_matches(key, list(schema.keys), n=1, cutoff=0.6)
                hint = ""
                if close:
                    wrapped = f"[[{close[0]}]]" if isinstance(schema.keys[close[0]], ArrayOf) else f"[{close[0]}]"
                    hint = f" (did you mean `{wrapped}`?)"
                if isinstance(value, dict) or array:
                    raise Problem((key,), f"unknown table `{f'[[{key}]]' if array else f'[{key}]'}`{hint}")
                raise Problem((key,), f"unknown key `{key}` at the top of the file{hint}")
            raise Problem((*path, key), f"{where}: unknown key `{key}`{_did_you_mean(key, list(schema.keys))}")
    for key, node in schema.keys.items():
        sub = (*path, key)
        if key not in data:
            if isinstance(node, Value) and node.required:
                raise Problem(path, f"{where}: missing key `{key}`")
            continue
        _node(data[key], node, sub, label, key)


def _node(value: Any, node: Node, path: KeyPath, label: Label, key: str) -> None:
    if isinstance(node, Value):
        problem = node.problem(value)
        if problem is not None:
            owner = label(path[:-1])
            raise Problem(path, f"{owner}: `{key}` {problem}")
    elif isinstance(node, Table):
        _table(value, node, path, label)
    elif isinstance(node, ArrayOf):
        if not isinstance(value, list) or not all(isinstance(v, dict) for v in value):
            shown = f"[[{key}]]" if len(path) == 1 else f"{label(path[:-1])}: `{key}`"
            raise Problem(path, f"{shown} must be an array of tables, not {toml_type_name(value)}")
        for index, item in enumerate(value):
            _table(item, node.table, (*path, index), label)
    else:
        owner = label(path)
        if not isinstance(value, dict):
            raise Problem(path, f"{owner} must be a table, not {toml_type_name(value)}")
        for name, item in value.items():
            if node.key_check is not None:
                problem = node.key_check(name)
                if problem is not None:
                    raise Problem((*path, name), f"{owner}: `{name}` {problem}")
            _node(item, node.value, (*path, name), label, name)


def fill_defaults(values: Mapping[str, Any], schema: Mapping[str, Value]) -> dict[str, Any]:
    """`values` plus the declared default of every key it leaves out (REQUIRED keys excepted)."""
    out = dict(values)
    for key, spec in schema.items():
        if key not in out and not spec.required and spec.default is not None:
            out[key] = list(spec.default) if isinstance(spec.default, (list, tuple)) else spec.default
    return out
