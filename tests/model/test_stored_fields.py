"""A finding's code and severity read from it or from its packed tuple alike (model/findings.py
`stored_code`, `stored_severity`: the writers that read findings as a run keeps them)."""

from __future__ import annotations

from surface_lint.model.findings import Finding, Location, Severity, packed_finding, stored_code, stored_severity


def test_code_and_severity_of_a_finding_and_of_its_packed_tuple() -> None:
    f = Finding(Location("t.jsonl", 3, 7, 3, 9), "SL103", "complete_punctuation", Severity.WARNING, "m", "c1")
    packed = packed_finding(f)
    assert (stored_code(f), stored_severity(f)) == ("SL103", 3)
    assert (stored_code(packed), stored_severity(packed)) == ("SL103", 3)
    e = Finding(Location("t.jsonl", 1, 1, 1, 2), "SL001", "invalid-json", Severity.ERROR, "bad")
    assert (stored_code(packed_finding(e)), stored_severity(packed_finding(e))) == ("SL001", 4)
