"""docs/api.md's examples run as written: every ```python block, in order, in one namespace,
from the examples/ folder (each `assert` in them is a checked fact); the `py` blocks (Spark,
Ray) are shown, not run, and at least compile."""

from __future__ import annotations

import contextlib
import io
import os
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "api.md"


def blocks(language: str) -> list[str]:
    return re.findall(rf"^```{language}\n(.*?)^```$", DOC.read_text(encoding="utf-8"), re.S | re.M)


def test_the_examples_run_as_written() -> None:
    pytest.importorskip("dask.bag", reason="the dask extra: pip install 'surface-lint[dask]'")
    code = blocks("python")
    assert len(code) == 5
    namespace: dict[str, object] = {"__name__": "api_examples"}
    out = io.StringIO()
    before = Path.cwd()
    os.chdir(ROOT / "examples")
    try:
        with contextlib.redirect_stdout(out):
            for block in code:
                exec(compile(block, str(DOC), "exec"), namespace)  # the doc's own examples
    finally:
        os.chdir(before)
    assert out.getvalue() == "lane deterministic_fluency v1 · profile contract · thresholds v1 · 6 case(s)\n"
    assert "prints `lane deterministic_fluency v1 · profile contract · thresholds v1 · 6 case(s)`." in DOC.read_text(
        encoding="utf-8")


def test_the_recipes_not_run_compile() -> None:
    recipes = blocks("py")
    assert len(recipes) == 3
    for block in recipes:
        compile(block, str(DOC), "exec")
