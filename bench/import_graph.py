"""The package's import graph: circles and upward imports, against the layer order.

Reads every module of server/surface_lint with `ast` (no import is executed): `import a.b`,
`from a import b`, relative imports at any depth, imports inside functions and under
`if TYPE_CHECKING:` (those count like any other: a circle hidden behind TYPE_CHECKING is still a
circle). An import names a module when `from pkg import name` names a submodule, else the
package (its `__init__`). Implicit parent-package imports are not edges.

Layers, bottom to top (docs/decisions.md, issue 15 item 5):

    model <- rules <- sources <- engine <- reporters <- {cli, lsp}

A module's layer is its first package under surface_lint. The package face (`__init__`,
`__main__`, `api`) sits above everything; the package itself (`surface_lint/__init__.py`, the
version only) below everything, so any module may read `__version__`, and it may import nothing. A loose module (any other top-level module) is
reported as such; `--assign name=layer` places one for a count on a tree not yet moved (e.g.
`--assign lanes=rules`).

Prints, then exits 1 if there is any:

* each circle: a strongly connected component of more than one module (or a self-import);
* each circle between layers (a strongly connected component of the layer graph);
* each upward import (a module importing a higher layer, or cli and lsp importing each other);
* each loose module.

    python bench/import_graph.py [--root server/surface_lint] [--assign MOD=LAYER ...] [--json]
"""

from __future__ import annotations

import argparse
import ast
import json
import sys
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

PACKAGE = "surface_lint"
LAYERS: tuple[str, ...] = ("model", "rules", "sources", "engine", "reporters", "cli", "lsp")
RANK: dict[str, int] = {"model": 0, "rules": 1, "sources": 2, "engine": 3, "reporters": 4, "cli": 5, "lsp": 5}
FACE = frozenset({"__init__", "__main__", "api"})
FACE_RANK = 9


@dataclass(frozen=True)
class Edge:
    source: str
    target: str
    line: int
    type_checking: bool


def module_names(root: Path) -> dict[str, Path]:
    """Dotted module name -> file, for every .py under root (a package's name is its __init__)."""
    names: dict[str, Path] = {}
    for path in sorted(root.rglob("*.py")):
        parts = list(path.relative_to(root).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        names[".".join([PACKAGE, *parts])] = path
    return names


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _imports(tree: ast.AST) -> Iterator[tuple[ast.Import | ast.ImportFrom, bool]]:
    """Every import statement in the tree, with whether it sits under `if TYPE_CHECKING:`."""
    stack: list[tuple[ast.AST, bool]] = [(tree, False)]
    while stack:
        node, guarded = stack.pop()
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            yield node, guarded
            continue
        if isinstance(node, ast.If) and _is_type_checking(node.test):
            stack.extend((child, True) for child in node.body)
            stack.extend((child, guarded) for child in node.orelse)
            continue
        stack.extend((child, guarded) for child in ast.iter_child_nodes(node))


def edges_of(name: str, path: Path, modules: dict[str, Path]) -> list[Edge]:
    tree = ast.parse(path.read_bytes(), filename=str(path))
    is_package = path.name == "__init__.py"
    package = name if is_package else name.rpartition(".")[0]
    found: list[Edge] = []

    def add(target: str, node: ast.stmt, guarded: bool) -> None:
        while target and target not in modules:
            target = target.rpartition(".")[0]
        if target and target != name:
            edge = Edge(name, target, node.lineno, guarded)
            if edge not in found:
                found.append(edge)

    for node, guarded in _imports(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name == PACKAGE or alias.name.startswith(PACKAGE + "."):
                    add(alias.name, node, guarded)
            continue
        if node.level:
            base_parts = package.split(".")
            if node.level > 1:
                base_parts = base_parts[: len(base_parts) - (node.level - 1)]
            base = ".".join(base_parts)
            base = f"{base}.{node.module}" if node.module else base
        else:
            base = node.module or ""
            if base != PACKAGE and not base.startswith(PACKAGE + "."):
                continue
        for alias in node.names:
            candidate = f"{base}.{alias.name}"
            add(candidate if candidate in modules else base, node, guarded)
    return found


def layer_of(module: str, assigned: dict[str, str]) -> str:
    parts = module.split(".")[1:]
    if not parts:
        return "root"
    head = parts[0]
    if head in assigned:
        return assigned[head]
    if head in RANK:
        return head
    if head in FACE:
        return "face"
    return "loose"


def rank_of(layer: str) -> int | None:
    if layer == "face":
        return FACE_RANK
    if layer == "root":
        return -1
    return RANK.get(layer)


def strongly_connected(nodes: Iterable[str], graph: dict[str, set[str]]) -> list[list[str]]:
    """Tarjan's algorithm, iterative; components of one node only when it imports itself."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    components: list[list[str]] = []
    counter = 0
    for start in sorted(nodes):
        if start in index:
            continue
        work: list[tuple[str, Iterator[str]]] = [(start, iter(sorted(graph.get(start, ()))))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                component: list[str] = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1 or node in graph.get(node, ()):
                    components.append(sorted(component))
    return sorted(components)


@dataclass(frozen=True)
class Report:
    modules: int
    module_circles: list[list[str]]
    layer_circles: list[list[str]]
    upward: list[Edge]
    loose: list[str]
    type_checking: list[Edge]

    def failed(self) -> bool:
        return bool(self.module_circles or self.layer_circles or self.upward or self.loose)


def analyse(root: Path, assigned: dict[str, str]) -> Report:
    modules = module_names(root)
    edges: list[Edge] = []
    for name, path in modules.items():
        edges.extend(edges_of(name, path, modules))
    graph: dict[str, set[str]] = {}
    for edge in edges:
        graph.setdefault(edge.source, set()).add(edge.target)
    module_circles = strongly_connected(modules, graph)

    layer_graph: dict[str, set[str]] = {}
    upward: list[Edge] = []
    for edge in edges:
        source, target = layer_of(edge.source, assigned), layer_of(edge.target, assigned)
        if source != target:
            layer_graph.setdefault(source, set()).add(target)
        source_rank, target_rank = rank_of(source), rank_of(target)
        if source_rank is None or target_rank is None:
            continue  # a loose module: reported as loose
        if target_rank > source_rank or (source != target and source_rank == target_rank):
            upward.append(edge)
    layers = {layer_of(m, assigned) for m in modules}
    layer_circles = strongly_connected(layers, layer_graph)
    loose = sorted(m for m in modules if layer_of(m, assigned) == "loose")
    type_checking = [e for e in edges if e.type_checking]
    key = lambda e: (e.source, e.line, e.target)  # noqa: E731
    return Report(len(modules), module_circles, layer_circles, sorted(upward, key=key), loose, sorted(type_checking, key=key))


def _short(module: str) -> str:
    return module.removeprefix(PACKAGE + ".") or PACKAGE


def render(report: Report, assigned: dict[str, str]) -> str:
    out: list[str] = [f"{report.modules} modules"]
    out.append(f"circles between modules: {len(report.module_circles)}")
    for component in report.module_circles:
        out.append("  " + " <-> ".join(_short(m) for m in component))
    out.append(f"circles between layers: {len(report.layer_circles)}")
    for component in report.layer_circles:
        out.append("  " + " <-> ".join(component))
    out.append(f"upward imports: {len(report.upward)}")
    for edge in report.upward:
        guard = " (under TYPE_CHECKING)" if edge.type_checking else ""
        out.append(
            f"  {_short(edge.source)}:{edge.line} [{layer_of(edge.source, assigned)}] imports "
            f"{_short(edge.target)} [{layer_of(edge.target, assigned)}]{guard}"
        )
    out.append(f"loose modules: {len(report.loose)}")
    for module in report.loose:
        out.append(f"  {_short(module)}")
    out.append(f"imports under TYPE_CHECKING: {len(report.type_checking)}")
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="import_graph.py", description=__doc__.split("\n")[0])
    parser.add_argument("--root", type=Path, default=Path(__file__).resolve().parents[1] / "server" / PACKAGE)
    parser.add_argument("--assign", action="append", default=[], metavar="MODULE=LAYER",
                        help="place a loose top-level module in a layer (for a tree not yet moved)")
    parser.add_argument("--json", action="store_true", help="print the counts as one JSON object")
    args = parser.parse_args(argv)
    assigned: dict[str, str] = {}
    for item in args.assign:
        name, sep, layer = item.partition("=")
        if not sep or (layer not in RANK and layer != "face"):
            parser.error(f"--assign {item!r}: expected MODULE=LAYER with LAYER one of {', '.join(LAYERS)}, face")
        assigned[name] = layer
    if not args.root.is_dir():
        parser.error(f"{args.root}: not a directory")
    report = analyse(args.root, assigned)
    if args.json:
        print(json.dumps({
            "modules": report.modules,
            "module_circles": len(report.module_circles),
            "layer_circles": len(report.layer_circles),
            "upward_imports": len(report.upward),
            "loose_modules": len(report.loose),
            "type_checking_imports": len(report.type_checking),
        }, sort_keys=True))
    else:
        print(render(report, assigned))
    return 1 if report.failed() else 0


if __name__ == "__main__":
    sys.exit(main())
