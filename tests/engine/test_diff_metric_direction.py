"""Lower-is-better metrics (declared `better = "lower"` in the lane file) regress when they rise."""

from __future__ import annotations

import pytest

from surface_lint.engine import Engine
from surface_lint.engine.diff import compare_metrics
from surface_lint.rules.loader import LaneError, parse_lane


def test_unarticulate_rate_falling_is_an_improvement_and_rising_a_regression() -> None:
    lane = Engine().lane("multi_sentence_response")
    old = {"articulate_sentence_rate": 0.5, "unarticulate_rate": 0.5, "unbucketed_sentence_rate": 0.0}
    new = {"articulate_sentence_rate": 0.75, "unarticulate_rate": 0.25, "unbucketed_sentence_rate": 0.25}
    deltas = {d.name: (d.better, d.regressed, d.improved) for d in compare_metrics(lane, old, new, None)}
    assert deltas == {
        "articulate_sentence_rate": ("higher", False, True),
        "unarticulate_rate": ("lower", False, True),
        "unbucketed_sentence_rate": ("lower", True, False),
    }


def test_better_must_be_higher_or_lower() -> None:
    text = (
        '[lane]\nname = "x"\n[[predicates]]\nname = "p"\ncode = "X1"\nkind = "not_only_tail"\n'
        '[[metrics]]\nname = "m"\nkind = "rate"\npassing = ["p"]\nbetter = "sideways"\n'
    )
    with pytest.raises(LaneError) as err:
        parse_lane(text, "x.toml")
    assert (err.value.line, err.value.message) == (11, "metric 'm': `better` must be \"higher\" or \"lower\", not \"sideways\"")
