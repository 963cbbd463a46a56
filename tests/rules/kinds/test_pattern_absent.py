"""The `pattern_absent` kind: the pattern does not match.

One file per kind (tests/support/kind_cases.py): its reference example, the shipped lanes'
predicates of this kind with their documented examples, and its own cases with exact verdicts.
"""

from __future__ import annotations

import pytest
from kind_cases import Judged, kind_tests

KIND = "pattern_absent"
SHIPPED: list[tuple[str, str]] = [
    ("deterministic_fluency", "no_provenance_only"),
    ("deterministic_fluency", "no_dotted_inventory"),
    ("fabrication_control", "no_fabrication_marker"),
]

CASES = [
    pytest.param({"pattern": "\\bTODO\\b"}, "Done. TODO: check.", dict(), Judged(False, "the surface matches `TODO`", ((6, 10),)), id="matches"),
    pytest.param({"pattern": "\\bTODO\\b"}, "Done. TODOS later.", dict(), Judged(True), id="word_boundary"),
    pytest.param(
        {"pattern": "x+", "mode": "match", "strip": True}, "  xxx  ", dict(), Judged(False, "the surface matches `xxx`", ((2, 5),)), id="whole_stripped_surface"
    ),
    pytest.param({"pattern": "x+", "mode": "match"}, "axxx", dict(), Judged(True), id="match_mode_is_anchored"),
]

(test_the_reference_example_gives_its_declared_verdict, test_the_shipped_predicates_of_this_kind, test_documented_examples_give_their_verdicts, test_cases) = (
    kind_tests(KIND, SHIPPED, CASES)
)
