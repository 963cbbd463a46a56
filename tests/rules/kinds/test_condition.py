"""The `condition` kind: a signal: the expression holds for the case and turn.

One file per kind (tests/support/kind_cases.py): its reference example, the shipped lanes'
predicates of this kind with their documented examples, and its own cases with exact verdicts.
"""

from __future__ import annotations

import pytest
from kind_cases import Judged, kind_tests

KIND = "condition"
SHIPPED: list[tuple[str, str]] = []

CASES = [
    pytest.param({"when": "case.kind == 'refusal'"}, "No.", dict(case={"kind": "refusal"}), Judged(True), id="holds"),
    pytest.param({"when": "case.kind == 'refusal'"}, "No.", dict(case={"kind": "answer"}), Judged(False, "the condition does not hold"), id="does_not_hold"),
    pytest.param(
        {"when": "turn.grounding_source != 'none'"}, "From the pack.", dict(grounding="none"), Judged(False, "the condition does not hold"), id="reads_the_turn"
    ),
]

(test_the_reference_example_gives_its_declared_verdict, test_the_shipped_predicates_of_this_kind, test_documented_examples_give_their_verdicts, test_cases) = (
    kind_tests(KIND, SHIPPED, CASES)
)
