"""The `terms_in_order` kind: the words appear in the given order.

One file per kind (tests/support/kind_cases.py): its reference example, the shipped lanes'
predicates of this kind with their documented examples, and its own cases with exact verdicts.
"""

from __future__ import annotations

import pytest
from kind_cases import Judged, kind_tests

KIND = "terms_in_order"
SHIPPED: list[tuple[str, str]] = [
    ("classical_literature_ood", "word_order"),
    ("elementary_mathematics_ood", "word_order"),
    ("english_fluency_ood", "word_order"),
    ("foundational_physics_ood", "word_order"),
    ("grammatical_coverage", "word_order"),
]

CASES = [
    pytest.param(
        {"field": "word_order", "strip_chars": ".,"},
        "Valley, river flows.",
        dict(case={"word_order": ["river", "valley"]}),
        Judged(False, "the words river, valley do not appear in this order", ((0, 20),)),
        id="out_of_order",
    ),
    pytest.param(
        {"field": "word_order", "strip_chars": ".,"}, "The river, then the valley.", dict(case={"word_order": ["river", "valley"]}), Judged(True), id="in_order"
    ),
]

(test_the_reference_example_gives_its_declared_verdict, test_the_shipped_predicates_of_this_kind, test_documented_examples_give_their_verdicts, test_cases) = (
    kind_tests(KIND, SHIPPED, CASES)
)
