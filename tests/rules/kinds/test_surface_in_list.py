"""The `surface_in_list` kind: the surface is (or is not) one of a list.

One file per kind (tests/support/kind_cases.py): its reference example, the shipped lanes'
predicates of this kind with their documented examples, and its own cases with exact verdicts.
"""

from __future__ import annotations

import pytest
from kind_cases import Judged, kind_tests

KIND = "surface_in_list"
SHIPPED: list[tuple[str, str]] = [
    ("classical_literature_ood", "accepted_surface"),
    ("classical_literature_ood", "not_rejected"),
    ("elementary_mathematics_ood", "accepted_surface"),
    ("elementary_mathematics_ood", "not_rejected"),
    ("english_fluency_ood", "accepted_surface"),
    ("english_fluency_ood", "not_rejected"),
    ("foundational_physics_ood", "accepted_surface"),
    ("foundational_physics_ood", "not_rejected"),
    ("grammatical_coverage", "accepted_surface"),
    ("grammatical_coverage", "not_rejected"),
]

CASES = [
    pytest.param(
        {"field": "accept_surfaces"},
        "Valley flows river",
        dict(case={"accept_surfaces": ["river flows valley"]}),
        Judged(False, "the surface is none of `accept_surfaces`", ((0, 18),)),
        id="not_listed",
    ),
    pytest.param(
        {"field": "accept_surfaces"}, "  River Flows Valley ", dict(case={"accept_surfaces": ["river flows valley"]}), Judged(True), id="lower_strip_by_default"
    ),
    pytest.param({"terms": ["no"], "mode": "reject"}, "No", dict(), Judged(False, "the surface is listed in `terms`", ((0, 2),)), id="rejected"),
]

(test_the_reference_example_gives_its_declared_verdict, test_the_shipped_predicates_of_this_kind, test_documented_examples_give_their_verdicts, test_cases) = (
    kind_tests(KIND, SHIPPED, CASES)
)
