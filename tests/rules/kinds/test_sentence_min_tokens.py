"""The `sentence_min_tokens` kind: every sentence has at least `minimum` tokens.

One file per kind (tests/support/kind_cases.py): its reference example, the shipped lanes'
predicates of this kind with their documented examples, and its own cases with exact verdicts.
"""

from __future__ import annotations

import pytest
from kind_cases import Judged, kind_tests

KIND = "sentence_min_tokens"
SHIPPED: list[tuple[str, str]] = [
    ("multi_sentence_response", "each_sentence_>=_4_tokens"),
]

CASES = [
    pytest.param(
        {"minimum": 3},
        "Light. It reveals the truth.",
        dict(analysis={"sentence_split": "[.!?]\\s+|[.!?]$"}),
        Judged(False, "1 sentence(s) with fewer than 3 alphabetic tokens (1)", ((0, 5),)),
        id="a_short_sentence",
    ),
    pytest.param(
        {"minimum": 3},
        "Light is here. It reveals the truth.",
        dict(analysis={"sentence_split": "[.!?]\\s+|[.!?]$"}),
        Judged(True),
        id="every_sentence_long_enough",
    ),
]

(test_the_reference_example_gives_its_declared_verdict, test_the_shipped_predicates_of_this_kind, test_documented_examples_give_their_verdicts, test_cases) = (
    kind_tests(KIND, SHIPPED, CASES)
)
