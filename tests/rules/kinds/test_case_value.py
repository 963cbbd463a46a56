"""The `case_value` kind: a case-driven lane's check, judged by the `[[casework.values]]` entry
that names it as `check` (tests/engine/test_casework_check.py); on a turn it passes.

One file per kind (tests/support/kind_cases.py): its reference example, the shipped lanes'
predicates of this kind with their documented examples, and its own cases with exact verdicts.
"""

from __future__ import annotations

import pytest
from kind_cases import Judged, kind_tests

KIND = "case_value"
SHIPPED: list[tuple[str, str]] = [("symbolic_logic", "premise_recall"), ("symbolic_logic", "replay_determinism"),
                                   ("symbolic_logic", "proposal_storage")]

CASES = [
    pytest.param({}, "Anything.", dict(), Judged(True), id="a_turn_passes"),
    pytest.param({}, "", dict(case={"min_vault_hits": 3}), Judged(True), id="an_empty_turn_of_any_case_passes"),
]
# Its shipped predicates' examples name [[casework.examples]] entries (tests/cli/test_lane_command.py).

(test_the_reference_example_gives_its_declared_verdict, test_the_shipped_predicates_of_this_kind, test_documented_examples_give_their_verdicts, test_cases) = (
    kind_tests(KIND, SHIPPED, CASES)
)
