"""Lane files in the editor: hover (a key's, a table's or a kind's reference entry) and completion
(the keys of the table at the cursor, a kind's parameters, `kind` names, a key's choices, and the
lane's case field names for a parameter that names one). Diagnostics are the loader's own
`file:line:column` messages (server.file_problem_diagnostics); everything here reads the one
declarative schema the loader validates with (`rules.loader.RULES_FILE`, the kind registry).

A line scanner, not a TOML parser: the table at the cursor is the last `[header]` above it, the
key is the one this line assigns, the kind is the `kind = "..."` of the enclosing `[[predicates]]`
entry. Quoted header keys and keys spread over lines are read as far as a line shows them."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from lsprotocol import types

from ...reporters.docs import key_markdown, kind_markdown_lines
from ...rules.kinds.registry import KINDS
from ...rules.loader import RULES_FILE
from ...rules.schema import ArrayOf, MapOf, Node, Table, Value, type_text

LANE_HEADER = re.compile(r"^\s*\[lane\]\s*(#.*)?$")
_HEADER = re.compile(r"^\s*(\[\[?)\s*([^\]]+?)\s*\]\]?\s*(#.*)?$")
_KEY = re.compile(r"^\s*([A-Za-z0-9_-]+)\s*=")
_KIND = re.compile(r"""^\s*kind\s*=\s*["']([A-Za-z0-9_]+)["']""")
_FIELD_HEADER = re.compile(r"^\s*\[case_schema\.fields\.([A-Za-z0-9_-]+)\]")
_WORD = re.compile(r"[A-Za-z0-9_.-]*$")
MAX_SCAN_LINES = 100_000  # how far up a header is looked for


def is_lane_document(path: str, lines: Sequence[str]) -> bool:
    """A TOML document that is a lane file: it has a top-level `[lane]` table."""
    return path.endswith(".toml") and any(LANE_HEADER.match(text) for text in lines)


@dataclass(frozen=True, slots=True)
class Spot:
    table: tuple[str, ...]  # the header path at the cursor (array indexes left out)
    header_line: int  # the line of that header (-1: the document's top level)
    key: str | None  # the key this line assigns
    on_key: bool  # the cursor is on that key's name (or where a key is typed)
    in_value: bool  # the cursor is after `=`
    word: str  # the word being typed before the cursor
    kind: str | None  # the `kind` of the enclosing [[predicates]] entry


def _header(text: str) -> tuple[str, ...] | None:
    m = _HEADER.match(text)
    if m is None:
        return None
    return tuple(part.strip().strip('"').strip("'") for part in m.group(2).split("."))


def spot(lines: Sequence[str], line: int, column: int) -> Spot:
    """Where the cursor (0-based line, column in code points) is in a lane file."""
    text = lines[line] if line < len(lines) else ""
    table: tuple[str, ...] = ()
    header_line = -1
    for i in range(line, max(-1, line - MAX_SCAN_LINES), -1):
        found = _header(lines[i]) if i < len(lines) else None
        if found is not None and not (i == line and column <= lines[i].index("[")):
            table, header_line = found, i
            break
    kind = None
    if table[:1] == ("predicates",):
        for i in range(line, -1, -1):
            m = _KIND.match(lines[i])
            if m is not None:
                kind = m.group(1)
                break
            if _header(lines[i]) == ("predicates",) and lines[i].lstrip().startswith("[["):
                break
    before = text[:column]
    key_m = _KEY.match(text)
    in_value = key_m is not None and column >= key_m.end()
    on_key = not in_value and _header(text) is None
    word = _WORD.search(before.split('"')[-1] if in_value else before)
    return Spot(table, header_line, key_m.group(1) if key_m else None, on_key, in_value,
                word.group(0) if word else "", kind)


def table_node(path: tuple[str, ...], kind: str | None) -> Table | None:
    """The schema of the table at a header path; a predicate's `params` are its kind's."""
    node: Node | None = RULES_FILE
    for n, part in enumerate(path):
        if isinstance(node, ArrayOf):
            node = node.table
        if isinstance(node, MapOf):  # a user-named entry (a case field, a threshold set)
            node = node.value
            continue
        if not isinstance(node, Table):
            return None
        child = node.keys.get(part)
        if part == "params" and path[0] == "predicates" and isinstance(child, Value):
            return Table(KINDS[kind].params) if kind in KINDS else None
        node = child
        if isinstance(node, MapOf) and n == len(path) - 1:
            return None  # the entries' names are the author's
    if isinstance(node, ArrayOf):
        node = node.table
    return node if isinstance(node, Table) else None


def hover_markdown(lines: Sequence[str], line: int, column: int) -> str | None:
    """The reference entry of the key, table or kind under the cursor."""
    here = spot(lines, line, column)
    text = lines[line] if line < len(lines) else ""
    header = _header(text)
    if header is not None:
        parent = table_node(header[:-1], here.kind) if len(header) > 1 else RULES_FILE
        node = parent.keys.get(header[-1]) if parent is not None else None
        return key_markdown(".".join(header), node) if node is not None else None
    if here.key is None:
        return None
    if here.in_value and here.key == "kind" and here.table == ("predicates",):
        m = _KIND.match(text)
        if m is not None and m.group(1) in KINDS:
            return "\n".join(kind_markdown_lines(m.group(1))).rstrip()
    table = table_node(here.table, here.kind)
    node = table.keys.get(here.key) if table is not None else None
    return key_markdown(here.key, node) if node is not None else None


def _written_keys(lines: Sequence[str], here: Spot, line: int) -> set[str]:
    """Keys already assigned in the table at the cursor (offered no more)."""
    keys: set[str] = set()
    for i in range(here.header_line + 1, len(lines)):
        if _header(lines[i]) is not None:
            break
        m = _KEY.match(lines[i])
        if m is not None and i != line:
            keys.add(m.group(1))
    return keys


def _case_fields(lines: Sequence[str]) -> list[str]:
    return sorted({m.group(1) for text in lines if (m := _FIELD_HEADER.match(text)) is not None})


def completion_items(lines: Sequence[str], line: int, column: int, markdown: bool) -> list[types.CompletionItem]:
    here = spot(lines, line, column)
    table = table_node(here.table, here.kind)

    def doc(text: str) -> types.MarkupContent:
        return types.MarkupContent(types.MarkupKind.Markdown if markdown else types.MarkupKind.PlainText, text)

    if here.in_value and here.key is not None:
        if here.key == "kind" and here.table == ("predicates",):
            return [types.CompletionItem(name, kind=types.CompletionItemKind.EnumMember, detail=KINDS[name].summary,
                                         documentation=doc("\n".join(kind_markdown_lines(name)).rstrip()))
                    for name in sorted(KINDS)]
        node = table.keys.get(here.key) if table is not None else None
        if isinstance(node, Value) and node.choices:
            return [types.CompletionItem(choice, kind=types.CompletionItemKind.EnumMember) for choice in node.choices]
        if (isinstance(node, Value) and here.table[-1:] == ("params",) and here.kind in KINDS
                and (here.key in KINDS[here.kind].case_params or here.key.endswith("field"))):
            return [types.CompletionItem(name, kind=types.CompletionItemKind.Field, detail="a case field")
                    for name in _case_fields(lines)]
        return []
    if not here.on_key or table is None:
        return []
    written = _written_keys(lines, here, line)
    return [types.CompletionItem(key, kind=types.CompletionItemKind.Property,
                                 detail=type_text(node.type) if isinstance(node, Value) else "a table",
                                 documentation=doc(key_markdown(key, node)), insert_text=f"{key} = ")
            for key, node in table.keys.items() if key not in written and isinstance(node, Value)]
