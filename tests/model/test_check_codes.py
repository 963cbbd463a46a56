"""Check codes are the typed constants of `checks.CheckCode`, never `"SL0.."` string literals."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "server" / "surface_lint"
# Every module but checks.py, the table that defines the codes.
TYPED_MODULES = tuple(sorted(str(p.relative_to(PACKAGE)) for p in PACKAGE.rglob("*.py") if p.name != "checks.py"
                             or p.parent != PACKAGE / "model"))
CODE = re.compile(r"SL0\d\d")


def code_literals(source: str) -> list[tuple[int, str]]:
    """(line, text) of each string constant that is a whole check code, docstrings left out."""
    tree = ast.parse(source)
    docstrings = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                docstrings.add(id(first.value))
    return sorted((n.lineno, n.value) for n in ast.walk(tree)
                  if isinstance(n, ast.Constant) and isinstance(n.value, str) and id(n) not in docstrings
                  and CODE.fullmatch(n.value))


def test_the_scan_finds_a_literal() -> None:
    assert code_literals('"""SL001 in a docstring."""\nx = "SL014"\ny = f"{x} SL002"\n') == [(2, "SL014")]


@pytest.mark.parametrize("module", TYPED_MODULES)
def test_module_uses_the_typed_check_codes(module: str) -> None:
    assert code_literals((PACKAGE / module).read_text(encoding="utf-8")) == []
