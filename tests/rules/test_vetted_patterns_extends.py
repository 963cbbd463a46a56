"""`vetted_patterns()` reads a shipped lane as it loads: with its `[lane] extends` merged, so a
pattern an extending lane writes for an inherited predicate (whose `kind` it does not repeat)
is vetted like any other shipped pattern."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from surface_lint.rules import loader as lanes

BASE = """\
[lane]
name = "base_lane"
title = "Base"

[[predicates]]
name = "no_marker"
code = "SLX101"
kind = "pattern_absent"
message = "a marker"
[predicates.params]
pattern = 'base-[a-z]+'
"""

CHILD = """\
[lane]
extends = "base_lane"
name = "child_lane"
title = "Child"

[[predicates]]
name = "no_marker"
code = "SLX201"
[predicates.params]
pattern = 'child-[0-9]+'
"""


@pytest.fixture
def shipped(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A rules folder standing in for the shipped one (vetted_patterns is cached: cleared around)."""
    (tmp_path / "base_lane.toml").write_text(BASE, "utf-8")
    (tmp_path / "child_lane.toml").write_text(CHILD, "utf-8")
    monkeypatch.setattr(lanes, "builtin_rules_dir", lambda: tmp_path)
    lanes.vetted_patterns.cache_clear()
    yield tmp_path
    lanes.vetted_patterns.cache_clear()


def test_an_extending_lanes_own_pattern_for_an_inherited_predicate_is_vetted(shipped: Path) -> None:
    assert lanes.vetted_patterns() == frozenset({"base-[a-z]+", "child-[0-9]+"})


def test_a_shipped_lane_whose_base_is_missing_is_left_out_not_a_crash(shipped: Path) -> None:
    (shipped / "base_lane.toml").unlink()
    assert lanes.vetted_patterns() == frozenset()
