"""The `ends_with` kind: the right-stripped surface ends with one of the endings.

One file per kind (tests/support/kind_cases.py): its reference example, the shipped lanes'
predicates of this kind with their documented examples, and its own cases with exact verdicts.
"""

from __future__ import annotations

import pytest
from kind_cases import Judged, kind_tests

KIND = "ends_with"
SHIPPED: list[tuple[str, str]] = [
    ("deterministic_fluency", "complete_punctuation"),
]

CASES = [
    pytest.param(
        {"endings": ["."]},
        "river flows valley",
        dict(),
        Judged(False, "the surface ends with `y`, not terminal punctuation (`.`)", ((17, 18),)),
        id="wrong_last_character",
    ),
    pytest.param({"endings": [".", "!"]}, "It flows!  ", dict(), Judged(True), id="trailing_whitespace_stripped"),
    pytest.param({"endings": ["."]}, "", dict(), Judged(False, "the surface is empty; it must end with `.`", ((0, 0),)), id="empty"),
]

(test_the_reference_example_gives_its_declared_verdict, test_the_shipped_predicates_of_this_kind, test_documented_examples_give_their_verdicts, test_cases) = (
    kind_tests(KIND, SHIPPED, CASES)
)
