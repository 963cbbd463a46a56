"""The `not_only_tail` kind: the surface is more than the lane's tails.

One file per kind (tests/support/kind_cases.py): its reference example, the shipped lanes'
predicates of this kind with their documented examples, and its own cases with exact verdicts.
"""

from __future__ import annotations

import pytest
from kind_cases import Judged, kind_tests

KIND = "not_only_tail"
SHIPPED: list[tuple[str, str]] = [
    ("multi_sentence_response", "not_just_provenance_tag"),
]

CASES = [
    pytest.param({}, "Some words.", dict(), Judged(True), id="words"),
    pytest.param(
        {},
        "(pack-grounded)",
        dict(analysis={"tail_patterns": ["\\s*\\(pack-grounded\\)$"]}),
        Judged(False, "the surface is only a provenance / trust tail", ((0, 15),)),
        id="only_a_tail",
    ),
    pytest.param({}, "Truth. (pack-grounded)", dict(analysis={"tail_patterns": ["\\s*\\(pack-grounded\\)$"]}), Judged(True), id="words_before_the_tail"),
]

(test_the_reference_example_gives_its_declared_verdict, test_the_shipped_predicates_of_this_kind, test_documented_examples_give_their_verdicts, test_cases) = (
    kind_tests(KIND, SHIPPED, CASES)
)
