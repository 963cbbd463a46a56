"""The `words_present` kind: one of the listed words occurs.

One file per kind (tests/support/kind_cases.py): its reference example, the shipped lanes'
predicates of this kind with their documented examples, and its own cases with exact verdicts.
"""

from __future__ import annotations

import pytest
from kind_cases import Judged, kind_tests

KIND = "words_present"
SHIPPED: list[tuple[str, str]] = [
    ("deterministic_fluency", "finite_predicate_shape"),
]

CASES = [
    pytest.param({"words": ["is", "are"]}, "Light, truth, order.", dict(), Judged(False, "none of the listed words in the surface", ((0, 20),)), id="none"),
    pytest.param({"words": ["is", "are"]}, "Light is order.", dict(), Judged(True), id="one"),
]

(test_the_reference_example_gives_its_declared_verdict, test_the_shipped_predicates_of_this_kind, test_documented_examples_give_their_verdicts, test_cases) = (
    kind_tests(KIND, SHIPPED, CASES)
)
