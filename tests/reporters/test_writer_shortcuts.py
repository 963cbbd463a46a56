"""The writers' shortcuts, each against what the writer wrote before it, as literal text: JUnit's
one-string `<testcase>`, GitHub's annotations made only for the findings shown, HTML's other
findings read from packed tuples, JSON Lines' case line by template, case views built slot by slot."""

from __future__ import annotations

import io
from types import SimpleNamespace
from typing import Any

from surface_lint.engine.scoring import Outcome
from surface_lint.engine.views import CaseView, PredicateFailure, case_standing, case_view
from surface_lint.model.findings import Finding, Location, Severity, packed_finding
from surface_lint.reporters import github, html, jsonl, junit
from surface_lint.rules.kinds.core import Verdict


def _finding(code: str, rule: str, severity: Severity, line: int, column: int, message: str,
             record_id: str | None = "c1") -> Finding:
    return Finding(Location("t.jsonl", line, column, line, column + 3), code, rule, severity, message, record_id)


PLACEHOLDER = _finding("SL101", "no_placeholder", Severity.ERROR, 4, 12, "placeholder marker `...`")
PUNCTUATION = _finding("SL103", "complete_punctuation", Severity.WARNING, 4, 30, "ends with `)`")
EARLIER = _finding("SL101", "no_placeholder", Severity.ERROR, 2, 7, "placeholder marker `<x>`")
UNJOINED = _finding("SL015", "unjoined-record", Severity.INFORMATION, 9, 1, "case `c9` has no scored turn", "c9")


def _xml(view: CaseView, lane: str = "lane_a") -> tuple[str, bool]:
    out: list[str] = []
    failing = junit._CaseXml(lane, out.append).case(view)
    return "".join(out), failing


def test_junit_a_passing_case_without_a_surface_is_one_empty_element() -> None:
    view = CaseView("c<1>", None, None, ("no_placeholder",), (), ())
    assert _xml(view) == ('    <testcase classname="lane_a" name="c&lt;1&gt;" />\n', False)


def test_junit_a_note_only_case_writes_its_notes_to_system_out() -> None:
    note = PredicateFailure("no_dotted_inventory", "SL105", Severity.INFORMATION, "dotted & inventory", ())
    view = CaseView("c2", "teaching", "a \"quoted\" surface", ("no_dotted_inventory",), (note,), ())
    assert _xml(view) == (
        '    <testcase classname="lane_a.teaching" name="c2">\n'
        '      <system-out>surface: a "quoted" surface\n'
        "note: no_dotted_inventory (SL105) failed: dotted &amp; inventory</system-out>\n"
        "    </testcase>\n", False)


def test_junit_a_failing_case_names_its_deciding_failures_and_the_first_finding() -> None:
    failures = (PredicateFailure("no_placeholder", "SL101", Severity.ERROR, "placeholder marker", ((3, 6),)),
                PredicateFailure("complete_punctuation", "SL103", Severity.WARNING, "ends with `)`", ()),
                PredicateFailure("no_dotted_inventory", "SL105", Severity.INFORMATION, "a note", ()))
    # The first finding by position is the earlier placeholder, wherever it is in the tuple.
    view = CaseView("c1", "pack", "Truth is ...", ("no_placeholder", "complete_punctuation"), failures,
                    (PLACEHOLDER, PUNCTUATION, EARLIER))
    assert _xml(view) == (
        '    <testcase classname="lane_a.pack" name="c1" file="t.jsonl" line="2">\n'
        '      <failure message="failed: no_placeholder (SL101), complete_punctuation (SL103)" type="error">'
        "no_placeholder (SL101, error): placeholder marker at t.jsonl:4:12, t.jsonl:2:7\n"
        "complete_punctuation (SL103, warning): ends with `)` at t.jsonl:4:30\n"
        "no_dotted_inventory (SL105, information): a note</failure>\n"
        "      <system-out>surface: Truth is ...</system-out>\n"
        "    </testcase>\n", True)


def test_junit_a_case_driven_case_failing_on_its_verdict_alone() -> None:
    view = CaseView("c3", None, None, (), (), (), verdict=False)
    assert _xml(view) == (
        '    <testcase classname="lane_a" name="c3">\n'
        '      <failure message="failed: checks not selected (--select/--ignore)" type="error" />\n'
        "    </testcase>\n", True)
    # A passing verdict passes, whatever failed beneath it (those are notes).
    off = PredicateFailure("p", "SL900", None, "m\tn", ())
    assert _xml(CaseView("c4", None, None, ("p",), (off,), (), verdict=True)) == (
        '    <testcase classname="lane_a" name="c4">\n'
        "      <system-out>note: p (SL900) failed: m\tn</system-out>\n"
        "    </testcase>\n", False)


def test_github_annotates_packed_findings_as_it_does_findings() -> None:
    result = SimpleNamespace(lane="lane_a", profile="contract", thresholds=[], nothing_scored=None, passed=None,
                             findings=SimpleNamespace(stored_items=lambda: iter(
                                 [packed_finding(PUNCTUATION), UNJOINED, packed_finding(PLACEHOLDER)])))
    options = SimpleNamespace(baseline=None, findings_filter=None, lanes=(), annotation_limit=2)
    out = io.StringIO()
    github.write_lane(result, options, out)  # type: ignore[arg-type]
    assert out.getvalue().splitlines() == [
        "surface-lint: profile contract",
        "::error file=t.jsonl,line=4,col=12,endLine=4,endColumn=15,title=SL101 no_placeholder (case c1)::"
        "placeholder marker `...`",
        "::warning file=t.jsonl,line=4,col=30,endLine=4,endColumn=33,title=SL103 complete_punctuation (case c1)::"
        "ends with `)`",
        "::notice::surface-lint: 1 more annotation(s) not shown (limit 2, --annotation-limit); "
        "the SARIF, JSON or Markdown output lists them all.",
    ]


def test_html_other_findings_from_packed_tuples_and_findings() -> None:
    stored = SimpleNamespace(stored_items=lambda: iter(
        [packed_finding(PLACEHOLDER), UNJOINED, packed_finding(EARLIER), PUNCTUATION,
         packed_finding(_finding("SL001", "invalid-json", Severity.ERROR, 7, 1, "invalid JSON", None))]))
    others = list(html._other_findings(stored, {"SL101", "SL103"}))  # type: ignore[arg-type]
    assert others == [UNJOINED, Finding(Location("t.jsonl", 7, 1, 7, 4), "SL001", "invalid-json", Severity.ERROR,
                                        "invalid JSON", None)]
    # Findings without a packed form (`--select`, a merged run) are read as they are.
    assert list(html._other_findings([PLACEHOLDER, UNJOINED], {"SL101"})) == [UNJOINED]


def test_json_lines_case_line_by_template() -> None:
    details = {"surface": "é \u2028 \"q\"", "case_id": "c1", "n": 1.5, "predicates": {"b": True, "a": None}}
    assert jsonl._case_line("c1", details, ["no_placeholder"], "fail") == (
        '{"case_id":"c1","details":{"case_id":"c1","n":1.5,"predicates":{"a":null,"b":true},'
        '"surface":"é \u2028 \\"q\\""},"failed_predicates":["no_placeholder"],"status":"fail","type":"case"}')
    assert jsonl._case_line("c2", None, [], "pass") == (
        '{"case_id":"c2","details":null,"failed_predicates":[],"status":"pass","type":"case"}')


def test_a_case_view_built_slot_by_slot_is_the_dataclass() -> None:
    predicates = [("no_placeholder", "SL101"), ("complete_punctuation", "SL103")]
    outcome = Outcome("c1", (False,), "none", {"category": "pack", "surface": "Truth is ..."},
                      ("complete_punctuation", "no_placeholder"), (PLACEHOLDER,),
                      {"no_placeholder": Verdict(False, ((9, 12),), "placeholder marker"),
                       "complete_punctuation": Verdict(False, (), "ends with `.`")},
                      ("no_placeholder", "complete_punctuation"),
                      {"no_placeholder": Severity.ERROR, "complete_punctuation": None})
    view = case_view(outcome, predicates, {})
    assert view == CaseView(
        "c1", "pack", "Truth is ...", ("no_placeholder", "complete_punctuation"),
        (PredicateFailure("no_placeholder", "SL101", Severity.ERROR, "placeholder marker", ((9, 12),)),
         PredicateFailure("complete_punctuation", "SL103", None, "ends with `.`", ())),
        (PLACEHOLDER,), None)
    assert (view.status, view.failing, view.worst) == ("fail", True, Severity.ERROR)
    passing = case_view(Outcome("c2", (True,), details=None, judged=("no_placeholder",)), predicates, None, True)
    assert passing == CaseView("c2", None, None, ("no_placeholder",), (), (), True)
    assert repr(passing) == ("CaseView(case_id='c2', group=None, surface=None, judged=('no_placeholder',), "
                             "failures=(), findings=(), verdict=True)")


def test_case_standing_is_the_views_status_failures_and_deciding_names() -> None:
    predicates = [("no_placeholder", "SL101"), ("complete_punctuation", "SL103"), ("no_dotted_inventory", "SL105")]
    names: dict[tuple[str, ...], tuple[str, ...]] = {}
    passing = Outcome("c0", (True,))
    assert case_standing(passing, predicates, names) == ("pass", (), ())
    # Failed names in lane order; only those at warning or above decide.
    both = Outcome("c1", (False,), failed=("no_dotted_inventory", "complete_punctuation"),
                   levels={"no_dotted_inventory": Severity.INFORMATION, "complete_punctuation": Severity.WARNING})
    assert case_standing(both, predicates, names) == (
        "fail", ("complete_punctuation", "no_dotted_inventory"), ("complete_punctuation",))
    assert names == {("no_dotted_inventory", "complete_punctuation"): ("complete_punctuation", "no_dotted_inventory")}
    note = Outcome("c2", (False,), failed=("no_dotted_inventory", "complete_punctuation"),
                   levels={"no_dotted_inventory": Severity.INFORMATION, "complete_punctuation": None})
    assert case_standing(note, predicates, names) == ("note", ("complete_punctuation", "no_dotted_inventory"), ())
    # Without levels, the severities are the findings' (the most severe of each rule).
    by_findings = Outcome("c3", (False,), failed=("no_placeholder",), findings=(PLACEHOLDER,))
    assert case_standing(by_findings, predicates) == ("fail", ("no_placeholder",), ("no_placeholder",))
    # A failed name the report does not list is no failure.
    assert case_standing(Outcome("c4", (False,), failed=("unlisted",), levels={"unlisted": Severity.ERROR}),
                         predicates, names) == ("pass", (), ())
    for outcome in (passing, both, note, by_findings):
        view = case_view(outcome, predicates)
        assert case_standing(outcome, predicates)[:2] == (view.status, tuple(view.failed_names()))
        assert case_standing(outcome, predicates)[2] == tuple(f.name for f in view.deciding)


def test_junit_class_names_remembered_up_to_a_bound(monkeypatch: Any) -> None:
    monkeypatch.setattr(junit, "_MEMO_SIZE", 2)
    out: list[str] = []
    writer = junit._CaseXml("lane_a", out.append)
    for group in ("g1", "g2", "g3", "g1"):
        writer.case(CaseView("c", group, None, (), (), ()))
    assert writer._classnames == {"g3": "lane_a.g3", "g1": "lane_a.g1"}  # cleared when the third came
    assert out == [f'    <testcase classname="lane_a.{g}" name="c" />\n' for g in ("g1", "g2", "g3", "g1")]
