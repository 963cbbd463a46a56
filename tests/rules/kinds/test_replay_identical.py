"""The `replay_identical` kind: the replay gives the same trace, hits and proposals.

One file per kind (tests/support/kind_cases.py): its reference example, the shipped lanes'
predicates of this kind with their documented examples, and its own cases with exact verdicts.
"""

from __future__ import annotations

import pytest
from kind_cases import Judged, kind_tests

KIND = "replay_identical"
SHIPPED: list[tuple[str, str]] = [
    ("symbolic_logic", "replay_determinism"),
]

CASES = [
    pytest.param(
        {},
        "",
        dict(chain={"trace_hash": "ab", "trace_hash_replay": "ab", "vault_hits": 2, "vault_hits_replay": 3, "proposal_count": 0, "proposal_count_replay": 0}),
        Judged(False, "replay differs: vault_hits 2 != replay 3"),
        id="hits_differ",
    ),
    pytest.param(
        {},
        "",
        dict(chain={"trace_hash": "ab", "trace_hash_replay": "ab", "vault_hits": 2, "vault_hits_replay": 2, "proposal_count": 1, "proposal_count_replay": 1}),
        Judged(True),
        id="identical",
    ),
    pytest.param(
        {},
        "",
        dict(chain={"trace_hash": "ab", "trace_hash_replay": "cd", "vault_hits": 2, "vault_hits_replay": 2, "proposal_count": 0, "proposal_count_replay": 0}),
        Judged(False, "replay differs: trace_hash ab… != replay cd…"),
        id="trace_differs",
    ),
]

(test_the_reference_example_gives_its_declared_verdict, test_the_shipped_predicates_of_this_kind, test_documented_examples_give_their_verdicts, test_cases) = (
    kind_tests(KIND, SHIPPED, CASES)
)
