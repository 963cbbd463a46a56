"""The `vault_hits_min` kind: the probe's vault hits reach the case's minimum.

One file per kind (tests/support/kind_cases.py): its reference example, the shipped lanes'
predicates of this kind with their documented examples, and its own cases with exact verdicts.
"""

from __future__ import annotations

import pytest
from kind_cases import Judged, kind_tests

KIND = "vault_hits_min"
SHIPPED: list[tuple[str, str]] = [
    ("symbolic_logic", "premise_recall"),
]

CASES = [
    pytest.param(
        {"field": "min_vault_hits", "default": 1},
        "",
        dict(case={"min_vault_hits": 2}, chain={"vault_hits": 0}),
        Judged(False, "probe vault_hits 0 < min_vault_hits 2"),
        id="below",
    ),
    pytest.param({"field": "min_vault_hits", "default": 1}, "", dict(case={"min_vault_hits": 2}, chain={"vault_hits": 2}), Judged(True), id="at_the_minimum"),
    pytest.param(
        {"field": "min_vault_hits", "default": 1},
        "",
        dict(case={}, chain={"vault_hits": 0}),
        Judged(False, "probe vault_hits 0 < min_vault_hits 1"),
        id="default",
    ),
]

(test_the_reference_example_gives_its_declared_verdict, test_the_shipped_predicates_of_this_kind, test_documented_examples_give_their_verdicts, test_cases) = (
    kind_tests(KIND, SHIPPED, CASES)
)
