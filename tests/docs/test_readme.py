"""The README a newcomer reads, and the generated table of checks it links to.

The predicate table (docs/checks.md, moved there from the README) is generated from rules/ and
the engine's checks (one source), never hand-kept. The README keeps its two commands exactly
(`.ci/run` runs the second; the first is run here from examples/), fits in about 250 lines, and
shows the three uses on its first screen."""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
from pathlib import Path

from surface_lint.engine import Engine
from surface_lint.engine.config import Config

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
CHECKS = ROOT / "docs" / "checks.md"

INSTALL_AND_EXAMPLE = ("python3 -m venv .venv && .venv/bin/pip install -e . && (cd examples && ../.venv/bin/surface-lint "
                       "--lane deterministic_fluency --split public --transcripts transcripts/deterministic_fluency.jsonl)")
TEST_COMMAND = "python3 -m venv .venv && .venv/bin/pip install -e '.[test]' && .venv/bin/python -m pytest -q"


def surface_lint(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT / "server")}
    return subprocess.run([sys.executable, "-m", "surface_lint", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, encoding="utf-8", timeout=120)


def test_checks_table_is_current() -> None:
    """docs/checks.md says its table is `surface-lint rule --format markdown-table`: it is, byte for byte."""
    text = CHECKS.read_text(encoding="utf-8")
    table = text.split("<!-- rules-table:start -->\n", 1)[1].split("<!-- rules-table:end -->", 1)[0]
    generated = surface_lint("rule", "--format", "markdown-table")
    assert generated.returncode == 0, generated.stderr
    assert table == generated.stdout, "run: python -m surface_lint.reporters.docs docs/checks.md"
    assert "`surface-lint rule --format markdown-table`" in text
    assert "tests/docs/test_readme.py" in text


def test_every_predicate_has_the_four_doc_sections() -> None:
    engine = Engine(Config())
    for lane in engine.lane_set.lanes.values():
        for spec in lane.predicates:
            assert spec.summary and spec.what and spec.why and spec.example_fail and spec.example_pass, spec.name


def test_readme_keeps_its_two_commands_exactly() -> None:
    blocks = README.read_text(encoding="utf-8").split("```sh\n")[1:3]
    assert [block.split("\n```", 1)[0] for block in blocks] == [INSTALL_AND_EXAMPLE, TEST_COMMAND]
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert "python3 -m venv .venv\n.venv/bin/pip install -q -e '.[test]'\n.venv/bin/python -m pytest -q" in ci


def test_readme_example_runs_as_it_says() -> None:
    """'It prints the lane's metrics against the v1 thresholds and the failing surfaces with their
    positions, and exits 1: ... (a `...`, a missing full stop, a bare disclosure).'"""
    inner = INSTALL_AND_EXAMPLE.split("(cd examples && ", 1)[1].rstrip(")")
    argv = shlex.split(inner)
    assert argv[0] == "../.venv/bin/surface-lint"
    run = surface_lint(*argv[1:], cwd=ROOT / "examples")
    assert run.returncode == 1, run.stderr
    lines = run.stdout.splitlines()
    assert lines[0] == "lane deterministic_fluency v1 · profile contract · thresholds v1 · 6 case(s)"
    assert "  complete_punctuation_rate        0.6667  >= 1         FAIL" in lines
    assert "result: FAIL" in lines
    assert ("  transcripts/deterministic_fluency.jsonl:3:171: SL101 [error] no_placeholder: "
            "placeholder marker `...` in the surface") in lines
    assert ("  transcripts/deterministic_fluency.jsonl:4:151: SL103 [error: the case's `expected_predicates` names it; "
            "rules table: warning] complete_punctuation: "
            "the surface ends with `s`, not terminal punctuation (`.` `?` `!` `;`)") in lines
    assert ("  transcripts/deterministic_fluency.jsonl:2:128: SL102 [information] no_provenance_only: "
            "the surface is a bare structured disclosure") in lines
    assert run.stderr == ""


def test_readme_is_read_in_a_minute() -> None:
    """At most ~250 lines; what it is, install and the three uses on the first screen (40 lines)."""
    lines = README.read_text(encoding="utf-8").splitlines()
    assert len(lines) <= 250
    first_screen = "\n".join(lines[:40])
    for use in ("surface-lint --lane NAME", "surface-lint check PATH", "surface-lint server", "VS Code",
                "pip install -e .", "## Three ways to use it"):
        assert use in first_screen, use
    for page in ("docs/ci.md", "docs/cli.md", "docs/editor.md"):
        assert f"]({page})" in first_screen, page


def test_readme_links_every_page_that_took_its_sections() -> None:
    text = README.read_text(encoding="utf-8")
    for page in ("docs/performance.md", "docs/editor.md", "docs/decisions.md", "docs/cli.md", "docs/checks.md",
                 "docs/ci.md", "docs/lanes/README.md", "docs/rules.md", "docs/rules-reference.md", "docs/regex.md"):
        assert f"]({page})" in text, page
    assert "model <- rules <- sources <- engine <- reporters <- {cli, lsp}" in text
