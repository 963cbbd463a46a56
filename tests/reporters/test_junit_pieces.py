"""JUnit's testcase text with its repeated pieces escaped once (reporters/junit.py
`_CaseXml._text`): a failure's message and a surface's line escaped apart from the finding
places, the same text as escaping the whole. Expected XML written by hand."""

from __future__ import annotations

from surface_lint.engine.views import CaseView, PredicateFailure
from surface_lint.model.findings import Finding, Location, Severity
from surface_lint.reporters import junit


def test_escaped_pieces_of_a_failing_case_twice() -> None:
    found = Finding(Location("d&r/t.jsonl", 4, 12, 4, 15), "SL101", "no_placeholder", Severity.ERROR, "m", "c<1>")
    failure = PredicateFailure("no_placeholder", "SL101", Severity.ERROR, "a<b & \x1b", ((3, 6),))
    out: list[str] = []
    writer = junit._CaseXml("lane_a", out.append)
    for case_id in ("c<1>", "c2"):
        assert writer.case(CaseView(case_id, None, "x < y", ("no_placeholder",), (failure,), (found,)))
    name = ["c&lt;1&gt;", "c2"]
    assert out == [
        f'    <testcase classname="lane_a" name="{n}" file="d&amp;r/t.jsonl" line="4">\n'
        '      <failure message="failed: no_placeholder (SL101)" type="error">'
        "no_placeholder (SL101, error): a&lt;b &amp; \\x1b at d&amp;r/t.jsonl:4:12</failure>\n"
        "      <system-out>surface: x &lt; y</system-out>\n"
        "    </testcase>\n" for n in name]
    assert writer._escaped["surface: x < y"] == "surface: x &lt; y"  # made once, for both cases
