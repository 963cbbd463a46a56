"""The generated part of docs/lanes/README.md: every [casework] key and the expression
functions, from their one source in code (the kinds are in docs/rules-reference.md).

`python -m surface_lint.rules.casework_docs docs/lanes/README.md` rewrites the block between
`<!-- casework-reference:start -->` and `<!-- casework-reference:end -->`.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from .casework_schema import CASEWORK_TABLE
from .expressions import FUNCTION_TABLE
from .loader import LANE_FUNCTION_DOCS
from .schema import REQUIRED, ArrayOf, MapOf, Table, Value, type_text

START = "<!-- casework-reference:start -->\n"
END = "<!-- casework-reference:end -->"


def _default(value: Value) -> str:
    if value.default is REQUIRED:
        return "required"
    if value.default is None:
        return "—"
    shown: Any = value.default
    if isinstance(shown, bool):
        return "`true`" if shown else "`false`"
    if isinstance(shown, str):
        return f'`"{shown}"`'
    return f"`{shown}`"


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def _value_row(key: str, value: Value) -> str:
    doc = value.doc
    if value.choices:
        doc += " One of " + ", ".join(f"`{c}`" for c in value.choices) + "."
    return f"| `{key}` | {type_text(value.type)} | {_default(value)} | {_cell(doc)} |"


def _table(title: str, table: Table, out: list[str]) -> None:
    rows = [(k, v) for k, v in table.keys.items() if isinstance(v, Value)]
    out.append(f"#### `{title}`\n")
    if table.doc:
        out.append(table.doc + "\n")
    if rows:
        out.append("| key | type | default | meaning |")
        out.append("|---|---|---|---|")
        out.extend(_value_row(k, v) for k, v in rows)
        out.append("")
    for key, node in table.keys.items():
        if isinstance(node, Table):
            _table(f"{title}.{key}", node, out)
        elif isinstance(node, ArrayOf):
            out.append(f"`[[{title}.{key}]]`: {node.doc}\n")
            _table(f"[[{title}.{key}]]", node.table, out)
        elif isinstance(node, MapOf):
            if isinstance(node.value, Table):
                out.append(f"`[{title}.{key}.NAME]`: {node.doc}\n")
                _table(f"{title}.{key}.NAME", node.value, out)
            else:
                out.append(f"`[{title}.{key}]`: {node.doc} (NAME = string)\n")


def render_reference() -> str:
    out: list[str] = [
        "The case-driven kinds (`terms_present`, `terms_in_order`, `surface_in_list`, "
        "`pattern_present`, `first_letter_upper`, `grounding_in`) are in the kinds reference with every "
        "other kind: [docs/rules-reference.md](../rules-reference.md) (`surface-lint rule --kinds`).\n",
    ]
    out.append("### `[casework]` keys\n")
    _table("casework", CASEWORK_TABLE, out)
    out.append("### Expression functions\n")
    out.append("| function | what it gives |")
    out.append("|---|---|")
    out.extend(f"| `{name}` | {_cell(doc)} |" for name, (_, doc) in FUNCTION_TABLE.items())
    out.extend(f"| `{name}` | {_cell(doc)} |" for name, doc in LANE_FUNCTION_DOCS.items())
    out.append("")
    return "\n".join(out)


def update(path: Path) -> bool:
    """Rewrite the generated block of `path`; True when it changed."""
    text = path.read_text(encoding="utf-8")
    head, start, rest = text.partition(START)
    if not start:
        raise SystemExit(f"{path}: no {START.strip()} marker")
    _, end, tail = rest.partition(END)
    if not end:
        raise SystemExit(f"{path}: no {END} marker")
    new = head + START + render_reference() + END + tail
    if new == text:
        return False
    path.write_text(new, encoding="utf-8")
    return True


if __name__ == "__main__":  # pragma: no cover
    for arg in sys.argv[1:]:
        print(f"{arg} {'updated' if update(Path(arg)) else 'already current'}")
