"""Every predicate documents both examples, and its failing example, written as a turn, gives a
finding with the predicate's own code through the engine. Each example's verdict is tested by
its kind's own file (`tests/rules/kinds/test_<kind>.py`)."""

from __future__ import annotations

import json

from kind_cases import ENGINES

from surface_lint.engine.lanetest import example_subject

PREDICATES = [
    (lane_name, spec.name)
    for lane_name, lane in sorted(ENGINES["contract"].lane_set.lanes.items())
    for spec in lane.predicates
]


def test_every_predicate_documents_both_examples() -> None:
    for lane_name, name in PREDICATES:
        spec = ENGINES["contract"].lane(lane_name).predicate(name)
        assert spec is not None
        assert spec.example_fail.strip() and spec.example_pass.strip(), f"{lane_name}.{name}"
        assert spec.summary and spec.what and spec.why, f"{lane_name}.{name}"


def test_examples_through_the_engine_give_the_documented_code() -> None:
    """The surface examples, written as turns, produce a finding with the predicate's own code."""
    engine = ENGINES["contract"]
    for lane_name, name in PREDICATES:
        lane = engine.lane(lane_name)
        spec = lane.predicate(name)
        assert spec is not None
        if spec.kind == "case_value" or not spec.report or spec.applies_if or spec.example_fail.startswith("{"):
            continue
        subject = example_subject(spec.example_fail, spec)
        if subject.case:  # needs a joined case (subject_lemma): covered by the predicate tests
            continue
        line = json.dumps({"case_id": "c1", "surface": subject.surface, "grounding_source": subject.grounding})
        found = engine.check_bytes("t.jsonl", (line + "\n").encode(), lane_name=lane_name).findings
        assert spec.code in [f.code for f in found], (name, [f.code for f in found])
