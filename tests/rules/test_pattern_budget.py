"""The character budget of user patterns (docs/regex.md "The character budget"): steps a
character from the pattern's positions, not from RE2's program size, and a per-search charge for
patterns whose iteration rescans the text."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from engine_support import check, write

from surface_lint.engine import Engine
from surface_lint.engine.config import Config
from surface_lint.rules.patterns import RegexBudgetExceeded, SafePattern

STEPS = 268_435_456  # 2**28

# (pattern, steps a character worked out by hand: 1, plus each one-character atom weighted by the
# UTF-8 bytes of its widest character, a counted repetition {m,n} counting its body n times,
# `*`/`+` once, an anchor or boundary 1)
COSTS = [
    (r"a{1000}", 1 + 1000),                  # 1,000 ASCII atoms
    (r"x[a-z]{1,50}y", 1 + 1 + 50 + 1),      # ASCII class: 1 byte
    (r"x\w{1,50}y", 1 + 1 + 50 * 4 + 1),     # Unicode \w reaches 4-byte characters
    (r"\b\w+\b", 1 + 1 + 4 + 1),
    (r"\bis a\b", 1 + 1 + 4 + 1),            # four literals, two boundaries
    (r"\s+", 1 + 3),                         # \s's widest is U+3000 (3 bytes)
    (r"(?i)λόγος", 1 + 5 * 2),               # each folded Greek letter: 2 bytes
    (r"\w{1,200}z", 1 + 200 * 4 + 1),
]


@pytest.mark.parametrize(("pattern", "cost"), COSTS)
def test_a_patterns_cost_and_budget(pattern: str, cost: int) -> None:
    compiled = SafePattern(pattern, False)
    assert compiled.cost == cost
    assert compiled.budget_chars == STEPS // cost


def test_the_budgets_of_the_issue() -> None:
    # Before: 2**28 / RE2 program size (65,455 for x\w{1,50}y: 4,101 characters).
    assert SafePattern(r"x\w{1,50}y", False).budget_chars == 1_322_342
    assert SafePattern(r"\b\w+\b", False).budget_chars == 38_347_922
    assert SafePattern(r"\bis a\b", False).budget_chars == 38_347_922


def _corpus_text(corpus: Path, size: int) -> str:
    surfaces = []
    for line in (corpus / "surfaces" / "records.jsonl").read_text("utf-8").splitlines():
        surface = json.loads(line).get("surface")
        if isinstance(surface, str) and surface:
            surfaces.append(surface)
    return " ".join(surfaces)[:size]


LANE = """[lane]
name = "budget_unicode"

[[predicates]]
name = "no_xy"
code = "BU1"
kind = "pattern_absent"
[predicates.params]
pattern = 'x\\w{1,50}y'
"""


def test_a_20000_character_real_surface_gets_a_verdict_from_a_unicode_class_pattern(
        corpus: Path, tmp_path: Path) -> None:
    surface = _corpus_text(corpus, 19_994) + " xλόγy"
    assert len(surface) == 20_000
    engine = Engine(Config(lane_files=[write(tmp_path / "lane.toml", LANE)]))
    assert engine.lane_errors == []
    result = check([{"case_id": "c1", "surface": surface}], engine=engine, lane_name="budget_unicode")
    assert [(f.code, f.message) for f in result.findings] == [("BU1", "no_xy: the surface matches `xλόγy`")]


def test_a_pattern_whose_iteration_rescans_is_charged_per_search() -> None:
    # `a.*b|a` on a run of `a`: each search scans to the end for a `b` and then matches one `a`,
    # n searches of the rest of the text (quadratic); the charge stops it, the same on every run.
    pattern = SafePattern(r"a.*b|a", False)
    # Python's parser factors out the common `a`: `a(?:.*b|)`, so 1 + a + `.` (4 bytes) + b.
    assert pattern.cost == 1 + 1 + 4 + 1
    with pytest.raises(RegexBudgetExceeded) as info:
        pattern.finditer("a" * 20_000)
    assert str(info.value) == (
        "was not run to the end: each match is searched for again from where the last one ended, and this "
        "pattern (a repetition inside an alternative or an optional or repeated group) may scan the rest of "
        "the text each time: past 268,435,456 steps on this text's 20,000 characters (7 a character)")
    # A short text is searched to the end: 2,000 searches of at most 2,000 characters, 7 steps each.
    assert len(pattern.finditer("a" * 2_000)) == 2_000
    # One search is charged once: `search` finds the first match.
    assert pattern.search("a" * 20_000).span() == (0, 1)


def test_a_pattern_that_does_not_rescan_is_charged_once() -> None:
    pattern = SafePattern(r"[.!?]\s+|[.!?]$", False)  # the repetition ends the pattern
    assert len(pattern.finditer(". " * 100_000)) == 100_000
