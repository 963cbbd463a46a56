"""The `primed` kind: the case ran priming prompts.

One file per kind (tests/support/kind_cases.py): its reference example, the shipped lanes'
predicates of this kind with their documented examples, and its own cases with exact verdicts.
"""

from __future__ import annotations

import pytest
from kind_cases import Judged, kind_tests

KIND = "primed"
SHIPPED: list[tuple[str, str]] = [
    ("multi_sentence_response", "primed"),
]

CASES = [
    pytest.param({}, "Anything.", dict(), Judged(False), id="no_priming"),
]

(test_the_reference_example_gives_its_declared_verdict, test_the_shipped_predicates_of_this_kind, test_documented_examples_give_their_verdicts, test_cases) = (
    kind_tests(KIND, SHIPPED, CASES)
)
