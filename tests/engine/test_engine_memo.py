"""The verdict memo never changes a verdict: its key holds everything a predicate reads."""

from __future__ import annotations

from surface_lint.engine import Engine
from surface_lint.engine.scoring import EvaluationMemo, _evaluate, _plan, evaluate
from surface_lint.rules.kinds.core import Subject

SURFACES = [
    "Truth is what is real. Furthermore, it belongs to cognition.truth. In turn, it grounds knowledge.",
    "lamp — pack-grounded (en_core_objects_v1): object.light_source; home.fixture; craft.tool. No session evidence yet.",
    "river flows valley",
    "A harbor shelters boats ...",
]


def test_memoised_verdicts_equal_fresh_ones_whatever_the_case_fields() -> None:
    engine = Engine()
    for lane_name in ("deterministic_fluency", "multi_sentence_response"):
        lane = engine.lane(lane_name)
        plan = _plan(lane)
        memo = EvaluationMemo(lane)
        for _ in range(2):  # the second pass is served from the memo
            for surface in SURFACES:
                for grounding in ("pack", "none", "vault"):
                    for primed in (False, True):
                        for fields in (None, {"subject_lemma": "truth"}, {"subject_lemma": "lamp"},
                                       {"expected_predicates": ["no_placeholder"]}):
                            subject = Subject(surface, grounding, fields, primed=primed)
                            got = evaluate(lane, subject, None, fields, memo)
                            want = _evaluate(lane, plan, subject, None, fields)
                            assert {k: (v.passed, v.spans, v.message) for k, v in got.items()} == {
                                k: (v.passed, v.spans, v.message) for k, v in want.items()}
        assert memo.entries  # it was used


def test_subject_named_follows_the_case_not_the_memo() -> None:
    lane = Engine().lane("multi_sentence_response")
    surface = SURFACES[0]
    truth, lamp = {"subject_lemma": "truth"}, {"subject_lemma": "lamp"}
    memo = EvaluationMemo(lane)
    named = evaluate(lane, Subject(surface, "teaching", truth), None, truth, memo)
    unnamed = evaluate(lane, Subject(surface, "teaching", lamp), None, lamp, memo)
    assert (named["subject_named"].passed, unnamed["subject_named"].passed) == (True, False)


def test_the_memo_stands_aside_on_distinct_surfaces_and_verdicts_stay_right() -> None:
    lane = Engine().lane("deterministic_fluency")
    plan = _plan(lane)
    memo = EvaluationMemo(lane)
    for i in range(memo.WINDOW + 10):
        surface = f"[{i}] lamp — pack-grounded (en_demo_v1): a.b; c.d; e.f. No session evidence yet."
        subject = Subject(surface, "pack")
        got = evaluate(lane, subject, memo=memo)
        want = _evaluate(lane, plan, subject, None, None)
        assert {k: (v.passed, v.spans) for k, v in got.items()} == {k: (v.passed, v.spans) for k, v in want.items()}
    assert memo.paused == memo.PAUSE - 10
    assert memo.entries == {}
