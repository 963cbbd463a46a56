"""bench/import_graph.py, the layering check: on small packages written here, each kind of import it
must see (relative at any depth, inside a function, under TYPE_CHECKING, `from pkg import module`)
and each thing it must report (a circle between modules and between layers, an upward import,
cli and lsp importing each other, a loose module), with its exact output and exit status."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _tool() -> ModuleType:
    spec = importlib.util.spec_from_file_location("import_graph", ROOT / "bench" / "import_graph.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["import_graph"] = module  # dataclasses resolve their module by name
    spec.loader.exec_module(module)
    return module


GRAPH = _tool()


def package(tmp_path: Path, files: dict[str, str]) -> Path:
    root = tmp_path / "surface_lint"
    for name, text in {"__init__.py": '__version__ = "0"\n', **files}.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    for folder in {p.parent for p in root.rglob("*.py")}:
        (folder / "__init__.py").touch()
    return root


def run(root: Path, capsys: pytest.CaptureFixture[str], *extra: str) -> tuple[int, str]:
    code = GRAPH.main(["--root", str(root), *extra])
    return code, capsys.readouterr().out


def test_a_layered_package_passes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = package(tmp_path, {
        "model/findings.py": "",
        "rules/loader.py": "from ..model import findings\nfrom .. import __version__\n",
        "engine/core.py": "from ..rules.loader import x\n",
        "reporters/text.py": "from surface_lint.engine import core\n",
        "cli/main.py": "from ..reporters import text\n",
        "lsp/server.py": "from ..engine.core import Engine\n",
        "__main__.py": "from .cli.main import main\nfrom .lsp import server\n",
    })
    assert run(root, capsys) == (0, (
        "14 modules\n"
        "circles between modules: 0\n"
        "circles between layers: 0\n"
        "upward imports: 0\n"
        "loose modules: 0\n"
        "imports under TYPE_CHECKING: 0\n"))


def test_circles_upward_imports_and_loose_modules(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = package(tmp_path, {
        "model/findings.py": "def f():\n    from ..rules import loader\n",  # inside a function: still an import
        "rules/loader.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from ..model.findings import F\n",
        "engine/core.py": "from . import check\n",
        "engine/check.py": "import surface_lint.engine.core\n",
        "cli/main.py": "from ..lsp.server import start\n",
        "lsp/server.py": "",
        "helpers.py": "from .model.findings import F\n",
    })
    assert run(root, capsys) == (1, (
        "13 modules\n"
        "circles between modules: 2\n"
        "  engine.check <-> engine.core\n"
        "  model.findings <-> rules.loader\n"
        "circles between layers: 1\n"
        "  model <-> rules\n"
        "upward imports: 2\n"
        "  cli.main:1 [cli] imports lsp.server [lsp]\n"
        "  model.findings:2 [model] imports rules.loader [rules]\n"
        "loose modules: 1\n"
        "  helpers\n"
        "imports under TYPE_CHECKING: 1\n"))


def test_assign_places_a_loose_module_and_json_counts(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = package(tmp_path, {
        "lanes.py": "from .reporters import text\n",
        "reporters/text.py": "",
    })
    code, out = run(root, capsys, "--assign", "lanes=rules", "--json")
    assert (code, out) == (1, '{"layer_circles": 0, "loose_modules": 0, "module_circles": 0, "modules": 4, '
                              '"type_checking_imports": 0, "upward_imports": 1}\n')


def test_a_bad_assign_is_a_usage_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = package(tmp_path, {})
    with pytest.raises(SystemExit) as exc:
        GRAPH.main(["--root", str(root), "--assign", "lanes"])
    assert exc.value.code == 2
    assert capsys.readouterr().err.splitlines()[-1] == (
        "import_graph.py: error: --assign 'lanes': expected MODULE=LAYER with LAYER one of "
        "model, rules, sources, engine, reporters, cli, lsp, face")


def test_the_package_shows_its_layers(capsys: pytest.CaptureFixture[str]) -> None:
    """The real package: every module in a layer, imports
    pointing down only, cli and lsp apart, no circle."""
    code, out = run(ROOT / "server" / "surface_lint", capsys)
    assert out.splitlines()[1:5] == [
        "circles between modules: 0",
        "circles between layers: 0",
        "upward imports: 0",
        "loose modules: 0",
    ], out
    assert code == 0
