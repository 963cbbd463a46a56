"""The `case_field_in_surface` kind: the case field's text occurs in the surface.

One file per kind (tests/support/kind_cases.py): its reference example, the shipped lanes'
predicates of this kind with their documented examples, and its own cases with exact verdicts.
"""

from __future__ import annotations

import pytest
from kind_cases import Judged, kind_tests

KIND = "case_field_in_surface"
SHIPPED: list[tuple[str, str]] = [
    ("multi_sentence_response", "subject_named"),
]

CASES = [
    pytest.param({"field": "subject_lemma"}, "Truth is light.", dict(case={"subject_lemma": "truth"}), Judged(True), id="named_case_insensitively"),
    pytest.param(
        {"field": "subject_lemma"},
        "Light reveals meaning.",
        dict(case={"subject_lemma": "truth"}),
        Judged(False, "the surface never names `truth` (subject_lemma)", ((0, 22),)),
        id="missing",
    ),
    pytest.param(
        {"field": "names"},
        "Ada met Alan.",
        dict(case={"names": ["Ada", "Grace", "Alan", "Edsger"]}),
        Judged(False, "the surface never names `Grace` (names)", ((0, 13),)),
        id="first_missing_of_a_list",
    ),
    pytest.param({"field": "subject_lemma"}, "Anything.", dict(case={}), Judged(True), id="no_field_judged_anyway_and_nothing_missing"),
]

(test_the_reference_example_gives_its_declared_verdict, test_the_shipped_predicates_of_this_kind, test_documented_examples_give_their_verdicts, test_cases) = (
    kind_tests(KIND, SHIPPED, CASES)
)
