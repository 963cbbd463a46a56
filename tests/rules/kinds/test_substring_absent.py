"""The `substring_absent` kind: none of the markers occurs.

One file per kind (tests/support/kind_cases.py): its reference example, the shipped lanes'
predicates of this kind with their documented examples, and its own cases with exact verdicts.
"""

from __future__ import annotations

import pytest
from kind_cases import Judged, kind_tests

KIND = "substring_absent"
SHIPPED: list[tuple[str, str]] = [
    ("conversational_thread_coherence", "no_placeholder"),
    ("deterministic_fluency", "no_placeholder"),
]

CASES = [
    pytest.param({"markers": ["<pending>"]}, "The answer is <pending>.", dict(), Judged(False, "`<pending>` in the surface", ((14, 23),)), id="present"),
    pytest.param({"markers": ["<pending>"]}, "The answer is ready.", dict(), Judged(True), id="absent"),
]

(test_the_reference_example_gives_its_declared_verdict, test_the_shipped_predicates_of_this_kind, test_documented_examples_give_their_verdicts, test_cases) = (
    kind_tests(KIND, SHIPPED, CASES)
)
