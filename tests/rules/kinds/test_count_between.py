"""The `count_between` kind: the count of words, tokens, sentences or characters is within bounds.

One file per kind (tests/support/kind_cases.py): its reference example, the shipped lanes'
predicates of this kind with their documented examples, and its own cases with exact verdicts.
"""

from __future__ import annotations

import pytest
from kind_cases import Judged, kind_tests

KIND = "count_between"
SHIPPED: list[tuple[str, str]] = [
    ("classical_literature_ood", "max_words"),
    ("conversational_thread_coherence", "alphabetic_tokens"),
    ("conversational_thread_coherence", "length_adequate"),
    ("elementary_mathematics_ood", "max_words"),
    ("english_fluency_ood", "max_words"),
    ("foundational_physics_ood", "max_words"),
    ("grammatical_coverage", "max_words"),
    ("self_consistency_over_time", "not_walk_fragment"),
]

CASES = [
    pytest.param(
        {"unit": "words", "max_field": "max_words"},
        "Truth is what is real and lasting.",
        dict(case={"max_words": 5}),
        Judged(False, "7 words; at most 5 allowed", ((0, 34),)),
        id="over_a_case_bound",
    ),
    pytest.param({"unit": "words", "min": 2, "max": 4}, "Truth is real.", dict(), Judged(True), id="within_constants"),
    pytest.param({"unit": "words", "min": 2}, "Truth.", dict(), Judged(False, "1 words; at least 2 required", ((0, 6),)), id="under_a_constant"),
    pytest.param({"unit": "characters", "max": 3}, "  abcd  ", dict(), Judged(False, "4 characters; at most 3 allowed", ((2, 6),)), id="characters_stripped"),
    pytest.param({"unit": "words", "max_field": "max_words"}, "Truth.", dict(case={}), Judged(None), id="no_field_not_judged"),
]

(test_the_reference_example_gives_its_declared_verdict, test_the_shipped_predicates_of_this_kind, test_documented_examples_give_their_verdicts, test_cases) = (
    kind_tests(KIND, SHIPPED, CASES)
)
