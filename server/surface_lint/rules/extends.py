"""`[lane] extends = "<lane>"`: a rules file that inherits another lane file's tables.

The merge (docs/rules.md, "Extending a lane"):

* a table merges key by key, at every depth: the extending file's value wins;
* an array of tables whose entries all have a `name` (`[[predicates]]`, `[[metrics]]`,
  `[[casework.values]]`, `[[casework.metrics]]`) merges by name: an entry naming an inherited
  entry merges into it (key by key), any other entry is added after the inherited ones;
* every other value (a string, a number, a plain array, an array of unnamed tables such as a
  threshold set's `checks`) replaces the inherited one.

Positions survive the merge: `LanePositions.locate` gives the file, line and column a key of
the merged document was written at (the extending file first, then its base, and so on).
Loading the base file and refusing cycles is lanes.py's (it owns reading rules files).
"""

from __future__ import annotations

import difflib
from collections.abc import Callable, Mapping
from typing import Any

from .schema import KeyPath, TomlPositions, Value

IndexMaps = dict[KeyPath, dict[int, int]]  # merged array path -> {merged index: this side's index}
Translate = Callable[[KeyPath], "KeyPath | None"]


def _named(value: Any) -> bool:
    """An array of tables that merges by name."""
    return (isinstance(value, list) and bool(value)
            and all(isinstance(item, dict) and isinstance(item.get("name"), str) for item in value))


class MergeProblem(ValueError):
    """An extending file's `remove` or `renames` that cannot apply; `path` is where the file wrote
    it (its own array indexes)."""

    def __init__(self, path: KeyPath, message: str) -> None:
        super().__init__(message)
        self.path = path
        self.message = message


REMOVE, RENAMES = "remove", "renames"  # the two keys only an extending file's entries take
# Their reference (docs/rules-reference.md is generated from it; `merge` applies them).
EXTENDING_KEYS = {
    REMOVE: Value("boolean", None, "`true`, with the entry's `name` and no other key: the inherited entry of that "
                  "name is deleted (a table such as `[thresholds.strict]` given only `remove = true`: the inherited "
                  "table is). References to it are not rewritten: one left is an error at the reference."),
    RENAMES: Value("string", None, "The name of an inherited entry: this entry is that one under its own `name`, "
                   "merged into it key by key (a predicate keeps the base's code unless it gives its own). "
                   "References to the old name are not rewritten."),
}


def merge(base: Mapping[str, Any], child: Mapping[str, Any]) -> tuple[dict[str, Any], IndexMaps, IndexMaps]:
    """`child` over `base`, and for each merged array of named tables where each entry came from.
    In the child, `remove = true` deletes an inherited named entry or table, `renames = "old"`
    makes an entry the inherited `old` under its own `name` (merged into it key by key).
    Raises MergeProblem for one that names nothing inherited."""
    base_maps: IndexMaps = {}
    child_maps: IndexMaps = {}

    def tables(old: Mapping[str, Any], new: Mapping[str, Any], at: KeyPath, child_at: KeyPath) -> dict[str, Any]:
        out = dict(old)
        for key, value in new.items():
            inherited = out.get(key)
            if isinstance(value, dict) and REMOVE in value:
                _removal(value, (*child_at, key), inherited is not None, f"`{key}`")
                del out[key]
            elif isinstance(inherited, dict) and isinstance(value, dict):
                out[key] = tables(inherited, value, (*at, key), (*child_at, key))
            elif isinstance(inherited, list) and _named(inherited) and _named(value):
                out[key] = named(inherited, value, (*at, key), (*child_at, key))
            elif isinstance(value, list) and _named(value) and any(REMOVE in v or RENAMES in v for v in value):
                first = next(i for i, v in enumerate(value) if REMOVE in v or RENAMES in v)
                word = REMOVE if REMOVE in value[first] else RENAMES
                raise MergeProblem((*child_at, key, first, word), f"`{word}`: no [[{key}]] entry is inherited")
            else:
                out[key] = value
        return out

    def named(old: list[dict[str, Any]], new: list[dict[str, Any]], at: KeyPath, child_at: KeyPath) -> list[dict[str, Any]]:
        # (entry, its base index, its child index), in the merged order; None: removed.
        slots: list[tuple[dict[str, Any], int | None, int | None] | None] = [(item, i, None) for i, item in enumerate(old)]
        where = {item["name"]: i for i, item in enumerate(old)}
        for index, item in enumerate(new):
            here = (*child_at, index)
            if REMOVE in item:
                _removal(item, here, item["name"] in where, f"entry {item['name']!r}", set(where))
                slots[where.pop(item["name"])] = None
                continue
            source = item.get(RENAMES, item["name"])
            if RENAMES in item:
                if not isinstance(source, str) or source not in where:
                    raise MergeProblem((*here, RENAMES), f"`renames`: no inherited entry is named {source!r}"
                                       + _close(source, set(where)))
                if item["name"] in where and item["name"] != source:
                    raise MergeProblem((*here, "name"), f"`renames`: an inherited entry is already named {item['name']!r}")
                item = {k: v for k, v in item.items() if k != RENAMES}
            merged = where.pop(source, None)
            if merged is None:
                slots.append((item, None, index))
                merged = len(slots) - 1
            else:
                entry, base_index, _ = slots[merged]  # type: ignore[misc]
                slots[merged] = (tables(entry, item, (*at, merged), here), base_index, index)
            where[item["name"]] = merged
        out: list[dict[str, Any]] = []
        base_maps[at] = {}
        child_maps[at] = {}
        for slot in slots:
            if slot is None:
                continue
            entry, base_index, child_index = slot
            if base_index is not None:
                base_maps[at][len(out)] = base_index
            if child_index is not None:
                child_maps[at][len(out)] = child_index
            out.append(entry)
        return out

    return tables(base, child, (), ()), base_maps, child_maps


def _removal(value: Mapping[str, Any], path: KeyPath, inherited: bool, what: str,
             names: set[str] | None = None) -> None:
    if value[REMOVE] is not True:
        raise MergeProblem((*path, REMOVE), "`remove` must be true (leave the key out to keep the entry)")
    others = sorted(set(value) - {REMOVE, "name"})
    if others:
        raise MergeProblem((*path, others[0]), f"`remove = true` takes no other key (`{others[0]}` given)")
    if not inherited:
        raise MergeProblem((*path, REMOVE), f"`remove`: {what} is not inherited" + _close(str(value.get("name", "")), names))


def _close(word: str, names: set[str] | None) -> str:
    close = difflib.get_close_matches(word, sorted(names or ()), n=1, cutoff=0.6)
    return f" (did you mean {close[0]!r}?)" if close else ""


def translator(maps: IndexMaps) -> Translate:
    """A merged document's path as one side wrote it (None: that side has no such entry)."""

    def translate(path: KeyPath) -> KeyPath | None:
        out: list[str | int] = []
        for i, part in enumerate(path):
            indices = maps.get(tuple(path[:i])) if isinstance(part, int) else None
            if indices is not None:
                if part not in indices:
                    return None
                part = indices[part]
            out.append(part)
        return tuple(out)

    return translate


def _same(path: KeyPath) -> KeyPath | None:
    return path


class LanePositions:
    """Where each key of a (merged) rules document was written: file, line and column."""

    def __init__(self, layers: list[tuple[str, TomlPositions, Translate]], extends_at: tuple[int, int] | None = None,
                 bases: tuple[str, ...] = ()):
        self.layers = layers  # the file itself first, then its base, its base's base, ...
        self.extends_at = extends_at  # the file's own `extends` key
        self.bases = bases  # the names of the lanes it extends: its base, its base's base, ...

    @classmethod
    def single(cls, shown: str, positions: TomlPositions) -> LanePositions:
        return cls([(shown, positions, _same)])

    @classmethod
    def extending(cls, shown: str, positions: TomlPositions, child_maps: IndexMaps, base: LanePositions,
                  base_maps: IndexMaps, extends_at: tuple[int, int], base_name: str = "") -> LanePositions:
        to_base = translator(base_maps)
        layers = [(shown, positions, translator(child_maps))]
        for base_shown, base_positions, base_translate in base.layers:
            def through(path: KeyPath, inner: Translate = base_translate) -> KeyPath | None:
                step = to_base(path)
                return None if step is None else inner(step)
            layers.append((base_shown, base_positions, through))
        return cls(layers, extends_at, (base_name, *base.bases) if base_name else base.bases)

    def locate(self, path: KeyPath) -> tuple[str, int, int]:
        """The file and position `path` was written at, else its nearest written ancestor's."""
        for shown, positions, translate in self.layers:
            own = translate(path)
            if own is not None and own in positions.where:
                return (shown, *positions.where[own])
        for shown, positions, translate in self.layers:
            own = translate(path)
            if own is not None:
                return (shown, *positions.at(own))
        shown = self.layers[0][0]
        return (shown, *(self.extends_at or (1, 1)))

    def at(self, path: KeyPath) -> tuple[int, int]:
        """A position in the file itself: where it wrote `path` (or an ancestor), or its
        `extends` key for what it inherits."""
        _, positions, translate = self.layers[0]
        own = translate(path)
        if own is None or (self.extends_at is not None and not _written(positions, own)):
            return self.extends_at or (1, 1)
        return positions.at(own)

    def line(self, path: KeyPath) -> int:
        return self.at(path)[0]


def _written(positions: TomlPositions, path: KeyPath) -> bool:
    """The file wrote `path` itself or an entry of an array of tables on its way."""
    probe = tuple(path)
    while probe:
        if probe in positions.where:
            return True
        probe = probe[:-1]
    return False


def extends_at(text: str) -> tuple[int, int]:
    """Where a rules text writes `[lane] extends` (1:1 when it does not)."""
    return TomlPositions(text).at(("lane", "extends"))
