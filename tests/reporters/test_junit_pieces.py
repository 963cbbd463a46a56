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


def test_shared_failures_told_once_places_by_case() -> None:
    """Two cases sharing one failures tuple (as views.case_view gives them): the failure's line is
    made once, each case's places (and its first finding's line) its own."""
    warn = PredicateFailure("no_dash", "SL102", Severity.WARNING, "a dash", ((0, 1),))
    err = PredicateFailure("no_placeholder", "SL101", Severity.ERROR, "a <x>", ((2, 5),))
    failures = (err, warn)

    def at(line: int, column: int, rule: str, code: str) -> Finding:
        return Finding(Location("t.jsonl", line, column, line, column + 1), code, rule, Severity.ERROR, "m")

    out: list[str] = []
    writer = junit._CaseXml("lane_a", out.append)
    assert writer.case(CaseView("c1", "g", None, (), failures,
                                (at(9, 3, "no_placeholder", "SL101"), at(9, 1, "no_dash", "SL102"))))
    assert writer.case(CaseView("c2", "g", None, (), failures,
                                (at(12, 30, "no_placeholder", "SL101"), at(12, 40, "no_placeholder", "SL101"))))
    assert out == [
        '    <testcase classname="lane_a.g" name="c1" file="t.jsonl" line="9">\n'
        '      <failure message="failed: no_placeholder (SL101), no_dash (SL102)" type="error">'
        "no_placeholder (SL101, error): a &lt;x&gt; at t.jsonl:9:3\n"
        "no_dash (SL102, warning): a dash at t.jsonl:9:1</failure>\n"
        "    </testcase>\n",
        '    <testcase classname="lane_a.g" name="c2" file="t.jsonl" line="12">\n'
        '      <failure message="failed: no_placeholder (SL101), no_dash (SL102)" type="error">'
        "no_placeholder (SL101, error): a &lt;x&gt; at t.jsonl:12:30, t.jsonl:12:40\n"
        "no_dash (SL102, warning): a dash</failure>\n"
        "    </testcase>\n"]
    assert len(writer._told) == 1


def test_notes_and_a_verdict_without_failures() -> None:
    """A failure below warning is a note (after the surface's line); a case-driven case failing
    on its verdict alone says no reported check failed. The first finding is the least place."""
    hint = PredicateFailure("no_dash", "SL102", Severity.HINT, "a & b", ())
    early = Finding(Location("t.jsonl", 3, 8, 3, 9), "SL102", "no_dash", Severity.HINT, "m")
    late = Finding(Location("t.jsonl", 5, 2, 5, 3), "SL102", "no_dash", Severity.HINT, "m")
    out: list[str] = []
    writer = junit._CaseXml("lane_a", out.append)
    assert not writer.case(CaseView("n1", None, None, (), (hint,), ()))
    assert not writer.case(CaseView("n2", None, "s", (), (hint,), (late, early)))
    assert writer.case(CaseView("v", None, None, (), (), (), False))
    assert not writer.case(CaseView("p", None, None, (), (), (), True))
    assert out == [
        '    <testcase classname="lane_a" name="n1">\n'
        "      <system-out>note: no_dash (SL102) failed: a &amp; b</system-out>\n"
        "    </testcase>\n",
        '    <testcase classname="lane_a" name="n2" file="t.jsonl" line="3">\n'
        "      <system-out>surface: s\nnote: no_dash (SL102) failed: a &amp; b</system-out>\n"
        "    </testcase>\n",
        '    <testcase classname="lane_a" name="v">\n'
        '      <failure message="failed: checks not selected (--select/--ignore)" type="error" />\n'
        "    </testcase>\n",
        '    <testcase classname="lane_a" name="p" />\n']
