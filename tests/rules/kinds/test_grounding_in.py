"""The `grounding_in` kind: the turn's grounding_source is one of the accepted values.

One file per kind (tests/support/kind_cases.py): its reference example, the shipped lanes'
predicates of this kind with their documented examples, and its own cases with exact verdicts.
"""

from __future__ import annotations

import pytest
from kind_cases import Judged, kind_tests

KIND = "grounding_in"
SHIPPED: list[tuple[str, str]] = [
    ("conversational_thread_coherence", "grounded"),
    ("fabrication_control", "expected_grounding"),
    ("multi_sentence_response", "grounded"),
    ("multi_sentence_response", "disclosure_grounded"),
]

CASES = [
    pytest.param({"sources": ["pack", "teaching"]}, "From the pack.", dict(grounding="pack"), Judged(True), id="accepted"),
    pytest.param(
        {"sources_field": "allowed_sources"},
        "From the vault.",
        dict(case={"allowed_sources": ["pack", "teaching"]}, grounding="vault"),
        Judged(False, "grounding_source `vault` is not one of pack, teaching", ((0, 15),)),
        id="not_in_the_case_list",
    ),
    pytest.param({"sources_field": "allowed_sources"}, "From the vault.", dict(case={}, grounding="vault"), Judged(None), id="no_field_not_judged"),
    pytest.param(
        {"sources_field": "allowed_sources", "empty_passes": True},
        "From the vault.",
        dict(case={"allowed_sources": []}, grounding="vault"),
        Judged(True),
        id="empty_list_passes_when_asked",
    ),
]

(test_the_reference_example_gives_its_declared_verdict, test_the_shipped_predicates_of_this_kind, test_documented_examples_give_their_verdicts, test_cases) = (
    kind_tests(KIND, SHIPPED, CASES)
)
