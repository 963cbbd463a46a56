"""The `terms_present` kind: every listed term occurs.

One file per kind (tests/support/kind_cases.py): its reference example, the shipped lanes'
predicates of this kind with their documented examples, and its own cases with exact verdicts.
"""

from __future__ import annotations

import pytest
from kind_cases import Judged, kind_tests

KIND = "terms_present"
SHIPPED: list[tuple[str, str]] = [
    ("classical_literature_ood", "required_words"),
    ("compositionality", "entailment_token"),
    ("conversational_thread_coherence", "topic_anchor"),
    ("discourse_paragraph", "subject_coverage"),
    ("discourse_paragraph", "discourse_marker"),
    ("discourse_paragraph", "required_terms"),
    ("elementary_mathematics_ood", "required_words"),
    ("english_fluency_ood", "required_words"),
    ("fabrication_control", "refusal"),
    ("foundational_physics_ood", "required_words"),
    ("grammatical_coverage", "required_words"),
    ("inference_closure", "entailment_token"),
    ("self_consistency_over_time", "key_terms_present"),
]

CASES = [
    pytest.param(
        {"field": "constraints.must_contain"},
        "The river flows.",
        dict(case={"constraints": {"must_contain": ["river", "valley"]}}),
        Judged(False, "`valley` is not in the surface", ((0, 16),)),
        id="one_missing",
    ),
    pytest.param(
        {"field": "constraints.must_contain"},
        "The RIVER meets the valley.",
        dict(case={"constraints": {"must_contain": ["river", "valley"]}}),
        Judged(True),
        id="case_insensitive",
    ),
]

(test_the_reference_example_gives_its_declared_verdict, test_the_shipped_predicates_of_this_kind, test_documented_examples_give_their_verdicts, test_cases) = (
    kind_tests(KIND, SHIPPED, CASES)
)
