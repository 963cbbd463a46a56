"""The `connective_present` kind: a listed connective occurs in the tail-stripped surface.

One file per kind (tests/support/kind_cases.py): its reference example, the shipped lanes'
predicates of this kind with their documented examples, and its own cases with exact verdicts.
"""

from __future__ import annotations

import pytest
from kind_cases import Judged, kind_tests

KIND = "connective_present"
SHIPPED: list[tuple[str, str]] = [
    ("multi_sentence_response", "connective_present"),
]

CASES = [
    pytest.param({"connectives": ["because"]}, "It rains because clouds form.", dict(), Judged(True), id="present"),
    pytest.param({"connectives": ["because"]}, "It is. It was.", dict(), Judged(False, "no connective in the surface", ((0, 14),)), id="absent"),
    pytest.param({"connectives": ["so that"]}, "We wait SO THAT it dries.", dict(), Judged(True), id="phrase_case_insensitive"),
    pytest.param({"connectives": ["so"]}, "It is also fine.", dict(), Judged(False, "no connective in the surface", ((0, 16),)), id="whole_words_only"),
]

(test_the_reference_example_gives_its_declared_verdict, test_the_shipped_predicates_of_this_kind, test_documented_examples_give_their_verdicts, test_cases) = (
    kind_tests(KIND, SHIPPED, CASES)
)
