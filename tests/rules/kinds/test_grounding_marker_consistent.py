"""The `grounding_marker_consistent` kind: a grounding marker appears only when grounding allows it.

One file per kind (tests/support/kind_cases.py): its reference example, the shipped lanes'
predicates of this kind with their documented examples, and its own cases with exact verdicts.
"""

from __future__ import annotations

import pytest
from kind_cases import Judged, kind_tests

KIND = "grounding_marker_consistent"
SHIPPED: list[tuple[str, str]] = [
    ("deterministic_fluency", "surface_provenance_match"),
]

CASES = [
    pytest.param(
        {"grounded_sources": ["pack"], "markers": ["pack-grounded"]},
        "Truth is real. pack-grounded (p).",
        dict(grounding="none"),
        Judged(False, "the surface says `pack-grounded` but grounding_source is `none`", ((15, 28),)),
        id="marker_without_grounding",
    ),
    pytest.param(
        {"grounded_sources": ["pack"], "markers": ["pack-grounded"]},
        "Truth is real. pack-grounded (p).",
        dict(grounding="pack"),
        Judged(True),
        id="marker_with_grounding",
    ),
    pytest.param({"grounded_sources": ["pack"], "markers": ["pack-grounded"]}, "Truth is real.", dict(grounding="none"), Judged(True), id="no_marker"),
]

(test_the_reference_example_gives_its_declared_verdict, test_the_shipped_predicates_of_this_kind, test_documented_examples_give_their_verdicts, test_cases) = (
    kind_tests(KIND, SHIPPED, CASES)
)
