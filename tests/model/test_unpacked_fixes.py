"""model/findings.py `unpacked_finding`: a packed finding's one fix (the common case, read
without a generator) and several fixes come back as the Fix values they were."""

from __future__ import annotations

from surface_lint.model.findings import Fix, Location, Severity, unpacked_finding


def test_one_fix_and_two_fixes() -> None:
    one = unpacked_finding((("t.jsonl", 3, 9, 3, 12), "SL1", "p", 4, "m", "c1", (),
                            (("Add `.`", ("t.jsonl", 3, 12, 3, 12), "."),), 2, {}))
    assert one.fixes == (Fix("Add `.`", Location("t.jsonl", 3, 12, 3, 12), "."),)
    assert (one.location, one.severity, one.record_id, one.record_index) == (
        Location("t.jsonl", 3, 9, 3, 12), Severity.ERROR, "c1", 2)
    two = unpacked_finding((("t.jsonl", 1, 1, 1, 2), "SL2", "q", 3, "n", None, (),
                            (("a", ("t.jsonl", 1, 1, 1, 1), "x"), ("b", ("t.jsonl", 1, 2, 1, 2), "y")), None, {}))
    assert two.fixes == (Fix("a", Location("t.jsonl", 1, 1, 1, 1), "x"), Fix("b", Location("t.jsonl", 1, 2, 1, 2), "y"))
    assert two.severity is Severity.WARNING
    none = unpacked_finding((("t.jsonl", 1, 1, 1, 2), "SL2", "q", 1, "n", None, (), (), None, {}))
    assert none.fixes == () and none.severity is Severity.HINT
