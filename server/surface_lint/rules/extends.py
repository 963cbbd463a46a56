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

from collections.abc import Callable, Mapping
from typing import Any

from .schema import KeyPath, TomlPositions

IndexMaps = dict[KeyPath, dict[int, int]]  # merged array path -> {merged index: this side's index}
Translate = Callable[[KeyPath], "KeyPath | None"]


def _named(value: Any) -> bool:
    """An array of tables that merges by name."""
    return (isinstance(value, list) and bool(value)
            and all(isinstance(item, dict) and isinstance(item.get("name"), str) for item in value))


def merge(base: Mapping[str, Any], child: Mapping[str, Any]) -> tuple[dict[str, Any], IndexMaps, IndexMaps]:
    """`child` over `base`, and for each merged array of named tables where each entry came from."""
    base_maps: IndexMaps = {}
    child_maps: IndexMaps = {}

    def tables(old: Mapping[str, Any], new: Mapping[str, Any], at: KeyPath) -> dict[str, Any]:
        out = dict(old)
        for key, value in new.items():
            inherited = out.get(key)
            if isinstance(inherited, dict) and isinstance(value, dict):
                out[key] = tables(inherited, value, (*at, key))
            elif isinstance(inherited, list) and _named(inherited) and _named(value):
                out[key] = named(inherited, value, (*at, key))
            else:
                out[key] = value
        return out

    def named(old: list[dict[str, Any]], new: list[dict[str, Any]], at: KeyPath) -> list[dict[str, Any]]:
        out = list(old)
        where = {item["name"]: i for i, item in enumerate(out)}
        base_maps[at] = {i: i for i in range(len(old))}
        child_maps[at] = {}
        for index, item in enumerate(new):
            merged = where.get(item["name"])
            if merged is None:
                out.append(item)
                merged = where[item["name"]] = len(out) - 1
            else:
                out[merged] = tables(out[merged], item, (*at, merged))
            child_maps[at][merged] = index
        return out

    return tables(base, child, ()), base_maps, child_maps


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

    def __init__(self, layers: list[tuple[str, TomlPositions, Translate]], extends_at: tuple[int, int] | None = None):
        self.layers = layers  # the file itself first, then its base, its base's base, ...
        self.extends_at = extends_at  # the file's own `extends` key

    @classmethod
    def single(cls, shown: str, positions: TomlPositions) -> LanePositions:
        return cls([(shown, positions, _same)])

    @classmethod
    def extending(cls, shown: str, positions: TomlPositions, child_maps: IndexMaps, base: LanePositions,
                  base_maps: IndexMaps, extends_at: tuple[int, int]) -> LanePositions:
        to_base = translator(base_maps)
        layers = [(shown, positions, translator(child_maps))]
        for base_shown, base_positions, base_translate in base.layers:
            def through(path: KeyPath, inner: Translate = base_translate) -> KeyPath | None:
                step = to_base(path)
                return None if step is None else inner(step)
            layers.append((base_shown, base_positions, through))
        return cls(layers, extends_at)

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
