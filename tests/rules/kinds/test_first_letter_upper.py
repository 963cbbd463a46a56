"""The `first_letter_upper` kind: the first alphabetic character is upper-case.

One file per kind (tests/support/kind_cases.py): its reference example, the shipped lanes'
predicates of this kind with their documented examples, and its own cases with exact verdicts.
"""

from __future__ import annotations

import pytest
from kind_cases import Judged, kind_tests

KIND = "first_letter_upper"
SHIPPED: list[tuple[str, str]] = [
    ("discourse_paragraph", "capitalised_sentences"),
    ("discourse_paragraph", "capitalised_start"),
]

CASES = [
    pytest.param(
        {"per_sentence": True},
        "Wisdom grounds. next, it rests.",
        dict(analysis={"sentence_split": "[.!?]\\s+|[.!?]$"}),
        Judged(False, "`next, it rests` does not start with a capital letter", ((16, 17),)),
        id="a_lower_sentence",
    ),
    pytest.param({}, '  "Light" is here.', dict(), Judged(True), id="first_alphabetic_after_quotes"),
    pytest.param({}, "light is here.", dict(), Judged(False, "`light is here.` does not start with a capital letter", ((0, 1),)), id="lower_start"),
]

(test_the_reference_example_gives_its_declared_verdict, test_the_shipped_predicates_of_this_kind, test_documented_examples_give_their_verdicts, test_cases) = (
    kind_tests(KIND, SHIPPED, CASES)
)
