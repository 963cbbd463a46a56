"""A lane file compiles to one immutable `Lane`; evaluation state (the predicate plan and the
verdict memo) belongs to the evaluation (scoring.EvaluationMemo, made by engine.pipeline.Evaluator),
never to the lane: two evaluations of one lane share nothing."""

from __future__ import annotations

import dataclasses
import threading

import pytest

from surface_lint.engine import Engine
from surface_lint.engine.pipeline import Evaluator
from surface_lint.engine.scoring import EvaluationMemo, evaluate
from surface_lint.rules.kinds.core import Subject


def test_a_lane_cannot_be_mutated() -> None:
    lane = Engine().lane("deterministic_fluency")
    with pytest.raises(dataclasses.FrozenInstanceError):
        lane.name = "other"  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        lane.casework = None  # type: ignore[misc]
    assert not hasattr(lane, "_memo")
    assert [f.name for f in dataclasses.fields(lane) if f.name.startswith("_")] == ["_by_name"]


def test_casework_is_a_field_set_when_the_lane_is_built() -> None:
    engine = Engine()
    calibration, fluency = engine.lane("calibration"), engine.lane("deterministic_fluency")
    assert type(calibration.casework).__name__ == "Casework"
    assert fluency.casework is None
    assert calibration.casework.lane.name == "calibration"
    assert calibration.casework.lane.predicates == calibration.predicates


def test_two_evaluations_of_one_lane_share_no_state() -> None:
    lane = Engine().lane("deterministic_fluency")
    first, second = Evaluator(lane, {}), Evaluator(lane, {})
    assert first.memo is not second.memo
    subject = Subject("Truth is what is real.", "pack")
    evaluate(lane, subject, memo=first.memo)
    evaluate(lane, subject, memo=first.memo)
    assert (len(first.memo.entries), first.memo.hits, first.memo.lookups) == (1, 1, 2)
    assert (len(second.memo.entries), second.memo.hits, second.memo.lookups) == (0, 0, 0)
    evaluate(lane, subject)  # without a memo: nothing kept anywhere
    assert (len(first.memo.entries), first.memo.lookups) == (1, 2)


def test_a_memo_is_of_one_lane() -> None:
    engine = Engine()
    memo = EvaluationMemo(engine.lane("deterministic_fluency"))
    with pytest.raises(ValueError) as info:
        evaluate(engine.lane("multi_sentence_response"), Subject("x"), memo=memo)
    assert str(info.value) == ("an evaluation memo of lane 'deterministic_fluency' used for lane "
                               "'multi_sentence_response'")


def test_threads_evaluating_one_lane_each_with_its_memo_agree_with_a_fresh_evaluation() -> None:
    lane = Engine().lane("multi_sentence_response")
    surfaces = [f"Truth {i % 7} is real. Furthermore, it grounds knowledge." for i in range(400)]
    cases = [{"subject_lemma": "truth"} if i % 3 else {"subject_lemma": "lamp"} for i in range(400)]
    want = [{k: v.passed for k, v in evaluate(lane, Subject(s, "pack", c), None, c).items()}
            for s, c in zip(surfaces, cases, strict=True)]
    got: dict[int, list[dict[str, bool]]] = {}

    def run(n: int) -> None:
        memo = EvaluationMemo(lane)
        got[n] = [{k: v.passed for k, v in evaluate(lane, Subject(s, "pack", c), None, c, memo).items()}
                  for s, c in zip(surfaces, cases, strict=True)]

    threads = [threading.Thread(target=run, args=(n,)) for n in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert got == {0: want, 1: want, 2: want}
