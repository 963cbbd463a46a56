"""Rule patterns without a clock: exact RE2 translations of the shipped patterns, user budgets."""

from __future__ import annotations

import json
import re

from engine_support import check, fts
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from surface_lint.engine import Engine
from surface_lint.engine.config import Config
from surface_lint.rules.loader import load_lanes, vetted_patterns
from surface_lint.rules.patterns import SafePattern


def test_which_shipped_patterns_have_an_exact_re2_form() -> None:
    """The one without (a lookbehind) runs on `re` at any length: it is proven linear in docs/regex.md."""
    without = sorted(p for p in vetted_patterns() if SafePattern(p, True)._re2 is None)
    assert without == [r"(?<=[.!?])\s+(?=[A-Z0-9])"]
    assert len(vetted_patterns()) == 15


_PIECES = ["a", "b", "_", "z", "x", " ", "\n", "\t", "\xa0", "\u2028", "\x1c", "\x85", "\u3000", ".", ";", "(", ")",
           "—", "×", "pack-grounded", "teaching-grounded", " (", "): ", "No session evidence yet", "No prior turn in "
           "this session to correct yet", "meta.x", "; ", "en_core_v1", "A", "7", "é", "Actually", "is defined as",
           "Means", "it's", "-", "?", "!", "I", "e\u0301", "ς"]
_TEXTS = st.lists(st.sampled_from(_PIECES), max_size=40).map("".join)


@settings(max_examples=400, derandomize=True, suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(text=_TEXTS)
def test_the_re2_form_of_each_shipped_pattern_matches_exactly_what_re_matches(text: str) -> None:
    for pattern in sorted(vetted_patterns()):
        python, linear = re.compile(pattern), SafePattern(pattern, True)
        engine = linear._re2
        if engine is None:
            continue
        assert [(m.span(), m.groups()) for m in python.finditer(text)] == \
            [(m.span(), m.groups()) for m in engine.finditer(text)], pattern
        py_match, re2_match = python.match(text), engine.match(text)
        assert (py_match and py_match.span()) == (re2_match and re2_match.span()), pattern
        assert python.sub("", text) == engine.sub("", text), pattern
        assert python.split(text) == engine.split(text), pattern


def test_a_240_kb_surface_gets_exact_verdicts_from_the_shipped_fluency_rules() -> None:
    """It raised TimeoutError from SL105's pattern; now it runs on the exact RE2 translation."""
    surface = "word " * 48_000 + "x.y; a.b; c.d tail"
    result = check([json.dumps({"case_id": "c1", "surface": surface})], engine=Engine(Config()),
                   lane_name="deterministic_fluency")
    start = 31 + len("word ") * 48_000
    assert [f for f in fts(result.findings) if f[5] == "SL105"] == [
        ("t.jsonl", 1, start, 1, start + len("x.y; a.b; c.d"), "SL105", "information",
         "no_dotted_inventory: dotted-path inventory `x.y; a.b; c.d` in the surface")]


def test_five_runs_over_long_surfaces_give_the_same_findings() -> None:
    lines = [json.dumps({"case_id": f"c{i}", "surface": ("ab " * 2700) + ("a" * i) + " (x"}) for i in range(12)]
    engine = Engine(Config())
    runs = [fts(check(lines, engine=engine, lane_name="multi_sentence_response").findings) for _ in range(5)]
    assert all(run == runs[0] for run in runs)
    assert "SL013" not in {f[5] for f in runs[0]}


def test_a_user_pattern_reads_whitespace_as_python_does() -> None:
    pattern = SafePattern(r"a\sb", trusted=False)
    assert pattern.origin == "user"
    assert [m.span() for m in pattern.finditer("a\xa0b a\u2028b a b")] == [(0, 3), (4, 7), (8, 11)]


def test_the_shipped_lanes_load_only_vetted_and_built_patterns() -> None:
    for lane in load_lanes("contract").lanes.values():
        patterns = [*lane.analysis.tail_patterns, lane.analysis.sentence_split, lane.analysis.token_pattern]
        patterns += [p.params["pattern"] for p in lane.predicates if "pattern" in p.params]
        assert all(p.origin == "vetted" for p in patterns if p is not None), lane.name
