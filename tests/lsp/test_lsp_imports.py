"""The language server package's import graph, read from the source (every import, also those
inside functions and under `if TYPE_CHECKING:`): no circle, no `TYPE_CHECKING` import, the
features never import the server (they are given it as a `host.Host`), and only `__init__`
imports `main`, the top. Rerun: `pytest tests/lsp/test_lsp_imports.py`."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "server" / "surface_lint" / "lsp"


def _module(path: Path) -> str:
    rel = path.relative_to(PACKAGE).with_suffix("")
    parts = rel.parts[:-1] if rel.name == "__init__" else rel.parts
    return ".".join(parts) or "__init__"


def _graph() -> tuple[dict[str, set[str]], list[str]]:
    """module -> the package's modules it imports; the modules with a TYPE_CHECKING block."""
    graph: dict[str, set[str]] = {}
    guarded: list[str] = []
    for path in sorted(PACKAGE.rglob("*.py")):
        name = _module(path)
        package = name.split(".")[:-1] if not path.name == "__init__.py" else name.split(".")
        if name == "__init__":
            package = []
        out = graph.setdefault(name, set())
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
                guarded.append(name)
            if isinstance(node, ast.ImportFrom) and node.level > 0:
                base = package[: len(package) - (node.level - 1)] if node.level > 1 else package
                if node.level - 1 > len(package):
                    continue  # above the lsp package
                target = [*base, *(node.module.split(".") if node.module else [])]
                names = [".".join([*target, a.name]) for a in node.names]
                for candidate in [".".join(target), *names]:
                    if candidate and (PACKAGE / Path(*candidate.split("."))).with_suffix(".py").is_file():
                        out.add(candidate)
                    elif candidate and (PACKAGE / Path(*candidate.split(".")) / "__init__.py").is_file():
                        out.add(candidate)
    return graph, guarded


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1 or v in graph.get(v, ()):
                out.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def test_the_lsp_package_has_no_import_circle_and_no_type_checking_import() -> None:
    graph, guarded = _graph()
    assert _cycles(graph) == []
    assert guarded == []


def test_features_receive_the_server_and_only_init_starts_it() -> None:
    graph, _ = _graph()
    assert sorted(m for m, deps in graph.items() if "server" in deps) == ["main"]
    assert sorted(m for m, deps in graph.items() if "main" in deps) == ["__init__"]
    assert sorted(m for m, deps in graph.items() if "host" in deps) == [
        "features.code_actions", "features.completion", "features.diagnostics", "features.hover",
        "features.lane_score", "features.review", "features.symbols"]
    assert graph["features"] == set()  # the package lists no feature: server.FEATURE_MODULES does
    lower = ("documents", "lint", "workspace", "wire", "diagnostic_json", "scheduler", "features.common")
    assert {m: sorted(graph[m] & {"server", "main", "host"}) for m in lower} == {m: [] for m in lower}


def test_the_checker_sees_a_circle() -> None:
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
