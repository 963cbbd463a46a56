"""The character budget of user patterns (docs/regex.md "The character budget"): steps a
character from the pattern's positions, not from RE2's program size, and a per-search charge for
patterns whose iteration rescans the text."""
# ruff: noqa: RUF001  (Greek and Hebrew letters are the subject)

from __future__ import annotations

import json
from pathlib import Path

import pytest
from engine_support import check, write

from surface_lint.engine import Engine
from surface_lint.engine.config import Config
from surface_lint.rules.patterns import RegexBudgetExceeded, SafePattern

STEPS = 67_108_864  # 2**26
MATCH = 512  # steps a match

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
    assert compiled.budget_chars == (STEPS - MATCH) // cost


def test_the_budgets_of_the_issue() -> None:
    # Before: 2**28 / RE2 program size (65,455 for x\w{1,50}y: 4,101 characters).
    assert SafePattern(r"x\w{1,50}y", False).budget_chars == 330_583
    assert SafePattern(r"\b\w+\b", False).budget_chars == 9_586_907
    assert SafePattern(r"\bis a\b", False).budget_chars == 9_586_907


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
    # 20,000 * 7 first, then 512 a match and 7 * (20,000 - j) for the search after the j-th match:
    # 140,000 + 512 k + 7 * (19,999 + ... + (20,000 - k)) first passes 2**26 at k = 483 (67,189,094).
    assert str(info.value) == (
        "was not run to the end: after 483 matches it passed the budget of 67,108,864 steps (the text's 20,000 "
        "characters at 7 a character, 512 a match; this pattern has a repetition inside an alternative or an "
        "optional or repeated group, so each search may scan the rest of the text again, and is charged for it)")
    # A short text is searched to the end: 2,000 searches of at most 2,000 characters.
    assert len(pattern.finditer("a" * 2_000)) == 2_000
    # One search is charged once: `search` finds the first match.
    assert pattern.search("a" * 20_000).span() == (0, 1)


def test_a_pattern_that_does_not_rescan_is_charged_once_and_per_match() -> None:
    pattern = SafePattern(r"[.!?]\s+|[.!?]$", False)  # the repetition ends the pattern
    # 200,000 characters * 6 + 100,000 matches * 512 = 52,400,000 steps: within 2**26.
    assert len(pattern.finditer(". " * 100_000)) == 100_000
    # 260,000 * 6 + 512 k passes 2**26 once k > (67,108,864 - 1,560,000) / 512 = 128,025.2.
    with pytest.raises(RegexBudgetExceeded) as info:
        pattern.finditer(". " * 130_000)
    assert str(info.value) == (
        "was not run to the end: after 128,026 matches it passed the budget of 67,108,864 steps (the text's "
        "260,000 characters at 6 a character, 512 a match)")
