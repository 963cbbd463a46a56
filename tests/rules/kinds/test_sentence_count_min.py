"""The `sentence_count_min` kind: at least `minimum` substantive sentences.

One file per kind (tests/support/kind_cases.py): its reference example, the shipped lanes'
predicates of this kind with their documented examples, and its own cases with exact verdicts.
"""

from __future__ import annotations

import pytest
from kind_cases import Judged, kind_tests

KIND = "sentence_count_min"
SHIPPED: list[tuple[str, str]] = [
    ("multi_sentence_response", "sentence_count_>=_2"),
]

CASES = [
    pytest.param(
        {"minimum": 2},
        "One sentence.",
        dict(analysis={"sentence_split": "[.!?]\\s+|[.!?]$"}),
        Judged(False, "1 substantive sentence (tails stripped); at least 2 required", ((0, 13),)),
        id="one",
    ),
    pytest.param({"minimum": 2}, "One. Two.", dict(analysis={"sentence_split": "[.!?]\\s+|[.!?]$"}), Judged(True), id="two"),
]

(test_the_reference_example_gives_its_declared_verdict, test_the_shipped_predicates_of_this_kind, test_documented_examples_give_their_verdicts, test_cases) = (
    kind_tests(KIND, SHIPPED, CASES)
)
