"""The `proposal_count_equal` kind: the proposals fired equal the case's expected count.

One file per kind (tests/support/kind_cases.py): its reference example, the shipped lanes'
predicates of this kind with their documented examples, and its own cases with exact verdicts.
"""

from __future__ import annotations

import pytest
from kind_cases import Judged, kind_tests

KIND = "proposal_count_equal"
SHIPPED: list[tuple[str, str]] = [
    ("symbolic_logic", "proposal_storage"),
]

CASES = [
    pytest.param(
        {"field": "expected_proposals"},
        "",
        dict(case={"expected_proposals": 2}, chain={"proposal_count": 1}),
        Judged(False, "1 pack-mutation proposal(s) fired; expected_proposals is 2"),
        id="too_few",
    ),
    pytest.param({"field": "expected_proposals"}, "", dict(case={"expected_proposals": 1}, chain={"proposal_count": 1}), Judged(True), id="equal"),
    pytest.param({"field": "expected_proposals"}, "", dict(case={}, chain={"proposal_count": 1}), Judged(None), id="no_field_not_judged_whatever_the_default"),
]

(test_the_reference_example_gives_its_declared_verdict, test_the_shipped_predicates_of_this_kind, test_documented_examples_give_their_verdicts, test_cases) = (
    kind_tests(KIND, SHIPPED, CASES)
)
