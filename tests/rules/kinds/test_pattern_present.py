"""The `pattern_present` kind: the pattern matches somewhere.

One file per kind (tests/support/kind_cases.py): its reference example, the shipped lanes'
predicates of this kind with their documented examples, and its own cases with exact verdicts.
"""

from __future__ import annotations

import pytest
from kind_cases import Judged, kind_tests

KIND = "pattern_present"
SHIPPED: list[tuple[str, str]] = [
    ("conversational_thread_coherence", "verb_form"),
]

CASES = [
    pytest.param({"pattern": "(?i)\\bis\\b"}, "Truth, order.", dict(), Judged(False, "the surface does not match `(?i)\\bis\\b`", ((0, 13),)), id="absent"),
    pytest.param({"pattern": "(?i)\\bis\\b"}, "Truth IS order.", dict(), Judged(True), id="present"),
    pytest.param({"pattern": "order", "lowercase": True}, "ORDER.", dict(), Judged(True), id="lowercased_surface"),
]

(test_the_reference_example_gives_its_declared_verdict, test_the_shipped_predicates_of_this_kind, test_documented_examples_give_their_verdicts, test_cases) = (
    kind_tests(KIND, SHIPPED, CASES)
)
