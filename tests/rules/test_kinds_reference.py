"""The generated reference of every kind: the committed docs/rules-reference.md is current;
`surface-lint rule --kinds` prints it (each kind's example runs in its own test file,
`tests/rules/kinds/test_<kind>.py`); every registered kind has that file."""

from __future__ import annotations

from pathlib import Path

import pytest
from engine_support import FIXTURES

from surface_lint.cli.main import main
from surface_lint.reporters.docs import reference_markdown
from surface_lint.rules.kinds.registry import KINDS

ROOT = Path(__file__).resolve().parents[2]


def test_the_committed_reference_is_current() -> None:
    committed = (ROOT / "docs" / "rules-reference.md").read_text("utf-8")
    assert committed == reference_markdown(), "run: python -m surface_lint.reporters.docs --reference docs/rules-reference.md"
    assert "docs/rules-reference.md" in (ROOT / "README.md").read_text("utf-8")


def test_rule_kinds_prints_the_reference(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["rule", "--kinds"]) == 0
    assert capsys.readouterr().out == reference_markdown()


def test_lanes_takes_lane_files(capsys: pytest.CaptureFixture[str]) -> None:
    user = FIXTURES / "lanes" / "user_lane.toml"
    assert main(["lanes", "--lane-file", str(user)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert f"user_lane v1  headline no_pattern_rate  thresholds: v1  ({user})" in out
    assert {"deterministic_fluency", "multi_sentence_response", "symbolic_logic"} <= {line.split()[0] for line in out}


def test_the_documented_recipe_for_a_new_kind_runs() -> None:
    """docs/rules.md's "Adding a kind" block, run as written (in a child: it registers a kind)."""
    import os
    import subprocess
    import sys

    text = (ROOT / "docs" / "rules.md").read_text("utf-8")
    code = text.split("```python\n", 1)[1].split("```", 1)[0]
    probe = ("\nfrom surface_lint.reporters.docs import run_example\nfrom surface_lint.rules.kinds.registry import KINDS\n"
             "kind = KINDS['not_shouting']\nverdict = run_example('not_shouting', kind, kind.example)\n"
             "print(verdict.passed, verdict.message)\n")
    env = {**os.environ, "PYTHONPATH": str(ROOT / "server")}
    out = subprocess.run([sys.executable, "-c", code + probe], capture_output=True, text=True, env=env, check=False)
    assert (out.returncode, out.stdout, out.stderr) == (0, "False 1.00 of the letters are capitals; at most 0.5\n", "")


def test_every_kind_has_its_own_test_file() -> None:
    files = {p.name for p in (ROOT / "tests" / "rules" / "kinds").glob("test_*.py")}
    assert sorted(f"test_{name}.py" for name in KINDS if f"test_{name}.py" not in files) == []
