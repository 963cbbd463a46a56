"""JSON Schemas (draft-07, what taplo and Even Better TOML read) of lane files and of the config,
generated from the declarative schema the loader validates with (`rules.loader.RULES_FILE` and
the kind registry's parameters) and from the config's settings table (`engine.config.SETTINGS`).
The package ships both (`surface_lint/schemas/`); a test keeps them equal to what this module
generates, so the editor's completion and the loader can never disagree on a key.

    python -m surface_lint.reporters.jsonschema --write   # regenerate the shipped files
"""

from __future__ import annotations

import json
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ..engine.config import MIN_MAX_LINE_BYTES, SETTINGS
from ..model.severity import ALIASES, LEVELS
from ..rules.extends import REMOVE, RENAMES
from ..rules.kinds.registry import KINDS
from ..rules.loader import PROFILES, RULES_FILE
from ..rules.schema import REQUIRED, ArrayOf, Node, Table, Value

SCHEMAS = Path(__file__).resolve().parent.parent / "schemas"
DRAFT = "http://json-schema.org/draft-07/schema#"
_SCALARS = {"string": "string", "regex": "string", "expression": "string", "integer": "integer",
            "number": "number", "boolean": "boolean", "table": "object"}


def _value(value: Value) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if value.doc:
        out["description"] = value.doc
    if value.type.startswith("list["):
        inner = _SCALARS[value.type[5:-1]]
        item: dict[str, Any] = {"type": inner}
        if value.non_empty and inner == "string":
            item["minLength"] = 1
        if value.choices:
            item["enum"] = list(value.choices)
        out.update(type="array", items=item)
    else:
        out["type"] = _SCALARS[value.type]
        if value.non_empty and out["type"] == "string":
            out["minLength"] = 1
        if value.choices:
            out["enum"] = list(value.choices)
    if value.minimum is not None:
        (out["items"] if "items" in out else out)["minimum"] = value.minimum
    if value.default is not REQUIRED and value.default is not None and value.default != {}:
        out["default"] = value.default
    return out


class _Schemas:
    """Node -> JSON Schema; a table that holds itself (a case field's `fields`) becomes one entry
    of `definitions`, referred to by `$ref`, named after the key it was first met under."""

    def __init__(self, partial: bool = False) -> None:
        self.partial = partial  # no key is required (a file that extends another lane)
        self.open: dict[int, str] = {}  # tables being expanded -> their definition name
        self.definitions: dict[str, Any] = {}
        self.referred: set[str] = set()

    def node(self, node: Node, key: str) -> dict[str, Any]:
        if isinstance(node, Value):
            return _value(node)
        if isinstance(node, Table):
            name = self.open.get(id(node))
            if name is not None:
                self.referred.add(name)
                return {"$ref": f"#/definitions/{name}"}
            name = f"partial_{key}" if self.partial else key
            self.open[id(node)] = name
            out = self.table(node.keys, node.doc)
            del self.open[id(node)]
            if name in self.referred:
                self.definitions[name] = out
                return {"$ref": f"#/definitions/{name}"}
            return out
        doc = {"description": node.doc} if node.doc else {}
        if isinstance(node, ArrayOf):
            return {**doc, "type": "array", "items": self._extending(self.node(node.table, key), "name" in node.table.keys)}
        value = self.node(node.value, key)
        return {**doc, "type": "object",
                "additionalProperties": self._extending(value, False) if isinstance(node.value, Table) else value}

    def _extending(self, schema: dict[str, Any], named: bool) -> dict[str, Any]:
        """An extending file's entry may also remove the inherited one (or, named, rename it)."""
        if not self.partial or "properties" not in schema:
            return schema
        extra = {REMOVE: {"const": True, "description": "Delete the inherited entry of this name (docs/rules.md)."}}
        if named:
            extra[RENAMES] = {"type": "string", "minLength": 1,
                              "description": "This entry is the inherited one of that name, under its own `name`."}
        return {**schema, "properties": {**schema["properties"], **extra}}

    def table(self, keys: Mapping[str, Node], doc: str = "") -> dict[str, Any]:
        out: dict[str, Any] = {"type": "object"}
        if doc:
            out["description"] = doc
        out["properties"] = {key: self.node(child, key) for key, child in keys.items()}
        required = [key for key, child in keys.items() if isinstance(child, Value) and child.required]
        if required and not self.partial:
            out["required"] = required
        out["additionalProperties"] = False
        return out


def _lane_body(partial: bool) -> dict[str, Any]:
    """The rules file's tables; `partial`: as an extending file writes them (every key optional,
    an entry naming an inherited one merges into it)."""
    schemas = _Schemas(partial)
    body = schemas.table(RULES_FILE.keys)
    predicate = body["properties"]["predicates"]["items"]
    predicate["properties"]["kind"]["enum"] = sorted(KINDS)
    predicate["allOf"] = [
        {"if": {"properties": {"kind": {"const": name}}, "required": ["kind"]},
         "then": {"properties": {"params": _Schemas(partial).table(KINDS[name].params),
                                 "profiles": {"properties": {p: {"properties": {"params": _Schemas(True).table(KINDS[name].params)}}
                                                             for p in PROFILES}}}}}
        for name in sorted(KINDS)
    ]
    if schemas.definitions:
        body["definitions"] = dict(sorted(schemas.definitions.items()))
    return body


def lane_schema() -> dict[str, Any]:
    """A standalone lane file, or (when `[lane] extends` names a base) the partial form."""
    standalone, extending = _lane_body(False), _lane_body(True)
    definitions = {**standalone.pop("definitions", {}), **extending.pop("definitions", {})}
    return {"$schema": DRAFT, "title": "surface-lint lane file",
            "description": "A lane: predicates, metrics, thresholds (docs/rules.md).",
            "if": {"properties": {"lane": {"required": ["extends"]}}, "required": ["lane"]},
            "then": {"$ref": "#/definitions/extending"}, "else": {"$ref": "#/definitions/standalone"},
            "definitions": {"standalone": standalone, "extending": extending, **definitions}}


def config_schema() -> dict[str, Any]:
    levels = sorted({*LEVELS, *ALIASES})
    known: dict[str, dict[str, Any]] = {
        "profile": {"type": "string", "enum": list(PROFILES), "description": "The verdict profile."},
        "lane-files": {"type": "array", "items": {"type": "string"}, "description": "Extra lane TOML files, relative to this file."},
        "default-lane": {"type": "string", "description": "The lane `check` uses when the path and records name none."},
        "severity": {"type": "object", "additionalProperties": {"type": "string", "enum": levels},
                     "description": "Predicate (code, name or alias; a code prefix) = level."},
        "thresholds": {"type": "object", "additionalProperties": {"type": "string"},
                       "description": "Lane = the threshold set enforced by default."},
        "cases": {"type": "array", "items": {"type": "string"}, "description": "Globs of case files, relative to this file."},
        "max-line-bytes": {"type": "integer", "minimum": MIN_MAX_LINE_BYTES, "description": "The longest line read (bytes)."},
    }
    assert list(known) == list(SETTINGS), "every setting has its schema entry"
    table = {"type": "object", "properties": known, "additionalProperties": False}
    return {"$schema": DRAFT, "title": "surface-lint configuration",
            "description": "surface-lint.toml, .surface-lint.toml, or [tool.surface-lint] of pyproject.toml (docs/cli.md).",
            **table}


def _text(schema: Mapping[str, Any]) -> str:
    return json.dumps(schema, indent=2, ensure_ascii=False) + "\n"


def lane_schema_text() -> str:
    return _text(lane_schema())


def config_schema_text() -> str:
    return _text(config_schema())


def write() -> None:
    (SCHEMAS / "lane.schema.json").write_text(lane_schema_text(), "utf-8")
    (SCHEMAS / "config.schema.json").write_text(config_schema_text(), "utf-8")


if __name__ == "__main__":  # pragma: no cover
    if sys.argv[1:] == ["--write"]:
        write()
    else:
        sys.stdout.write(lane_schema_text())
