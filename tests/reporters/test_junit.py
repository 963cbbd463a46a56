"""JUnit XML read back with junitparser: suites, one case per lane case, failures naming predicates."""

from __future__ import annotations

from pathlib import Path

from junitparser import Failure, JUnitXml, Skipped, TestCase, TestSuite
from reporters_support import CASES, LANE, NEW, OLD, check_run, cli, lane_run


def suites(text: str) -> dict[str, TestSuite]:
    return {s.name: s for s in JUnitXml.fromstring(text.encode("utf-8"))}


def outcome(case: TestCase) -> tuple[str, str, str] | str:
    if not case.result:
        return "pass"
    r = case.result[0]
    kind = "failure" if isinstance(r, Failure) else "skipped" if isinstance(r, Skipped) else "error"
    return (kind, r.message or "", r.type or "")


def test_lane_junit_has_a_case_per_lane_case_and_per_threshold() -> None:
    run = lane_run("junit")
    assert run.code == 1
    assert run.out.startswith('<?xml version="1.0" encoding="UTF-8"?>\n<testsuites name="surface-lint deterministic_fluency"')
    parsed = suites(run.out)
    assert list(parsed) == [f"{LANE}.thresholds", f"{LANE}.cases"]
    thresholds = parsed[f"{LANE}.thresholds"]
    assert [(c.name, outcome(c)) for c in thresholds] == [
        ("no_placeholder_rate >= 1", ("failure", "no_placeholder_rate is 0.6667; needs >= 1", "threshold")),
        ("complete_punctuation_rate >= 1", ("failure", "complete_punctuation_rate is 0.8333; needs >= 1", "threshold")),
        ("finite_predicate_shape_rate >= 0.9", "pass"),
    ]
    cases = parsed[f"{LANE}.cases"]
    assert (cases.tests, cases.failures, cases.skipped) == (7, 3, 1)
    assert [(c.classname, c.name, outcome(c)) for c in cases] == [
        (f"{LANE}.pack_definition", "flu_001", ("failure", "failed: no_placeholder (SL101)", "error")),
        (f"{LANE}.pack_definition", "flu_002", ("failure", "failed: complete_punctuation (SL103)", "error")),
        (f"{LANE}.disclosure", "flu_003", "pass"),  # information-level failures are notes
        (f"{LANE}.teaching", "flu_004", "pass"),
        (f"{LANE}.oov", "flu_005", "pass"),
        (f"{LANE}.pack_definition", "flu_007", ("failure", "failed: no_placeholder (SL101)", "error")),
        (LANE, "flu_006", ("skipped", "no transcript for this case", "")),
    ]
    first = next(iter(cases))
    assert first.result[0].text == (
        f"no_placeholder (SL101, error): placeholder marker `...` in the surface at {NEW}:1:52")
    assert first.system_out == "surface: A river carries ... to the sea. pack-grounded (en_demo_nature_v1)."
    disclosure = next(c for c in cases if c.name == "flu_003")
    assert disclosure.system_out.splitlines()[1:] == [
        "note: no_provenance_only (SL102) failed: the surface is a bare structured disclosure",
        "note: no_dotted_inventory (SL105) failed: dotted-path inventory "
        "`mind.state.unsure; mind.state; mind.knowing` in the surface",
    ]


def test_check_junit_one_case_per_finding() -> None:
    parsed = suites(check_run("junit").out)
    (suite,) = parsed.values()
    assert [(c.classname, c.name, outcome(c)) for c in suite] == [
        (NEW, "SL101 no_placeholder at 1:52", ("failure", "no_placeholder: placeholder marker `...` in the surface", "error")),
        (NEW, "SL103 complete_punctuation at 2:68",
         ("failure", "complete_punctuation: the surface ends with `m`, not terminal punctuation (`.` `?` `!` `;`)",
          "warning")),
        (NEW, "SL102 no_provenance_only at 3:36",
         ("failure", "no_provenance_only: the surface is a bare structured disclosure", "information")),
        (NEW, "SL105 no_dotted_inventory at 3:77",
         ("failure", "no_dotted_inventory: dotted-path inventory `mind.state.unsure; mind.state; mind.knowing` "
          "in the surface", "information")),
        (NEW, "SL101 no_placeholder at 6:43",
         ("failure", "no_placeholder: placeholder marker `<pending>` in the surface", "error")),
    ]


def test_clean_check_is_one_passing_case(tmp_path: Path) -> None:
    clean = tmp_path / "clean.jsonl"
    clean.write_text('{"case_id": "c1", "surface": "A lamp gives light.", "grounding_source": "none"}\n', "utf-8")
    run = check_run("junit", [str(clean)])
    assert run.code == 0
    (suite,) = suites(run.out).values()
    assert [(c.classname, c.name, outcome(c)) for c in suite] == [("surface-lint", "no findings", "pass")]
    assert (suite.tests, suite.failures) == (1, 0)


def test_diff_junit_fails_the_regressed_cases_and_metrics() -> None:
    run = cli("diff", OLD, NEW, "--lane", LANE, "--cases", CASES, "--output-format", "junit")
    assert run.code == 1
    parsed = suites(run.out)
    metrics = parsed[f"{LANE}.metrics"]
    assert [c.name for c in metrics if not c.is_passed] == [
        "expected_predicates_pass_rate", "no_dotted_inventory_rate", "no_placeholder_rate", "no_provenance_only_rate"]
    cases = parsed[f"{LANE}.cases"]
    assert [(c.name, outcome(c)) for c in cases] == [
        ("flu_001", ("failure", "regressed: no_placeholder (SL101)", "regression")),
        ("flu_002", ("failure", "regressed: complete_punctuation (SL103)", "regression")),
        ("flu_003", ("failure", "regressed: no_provenance_only (SL102), no_dotted_inventory (SL105)", "regression")),
        ("flu_004", "pass"),
        ("flu_005", "pass"),
        ("flu_007", "pass"),
        ("flu_006", ("skipped", "vanished: not in the new run", "")),
    ]
    fixed = next(c for c in cases if c.name == "flu_005")
    assert fixed.system_out.splitlines() == [
        "complete_punctuation (SL103): fail -> pass",
        "finite_predicate_shape (SL104): fail -> pass",
        "old surface: harbour: no entry yet",
        "new surface: Harbour has no entry yet.",
        "expected_pass: False -> True",
    ]


def test_control_characters_do_not_break_the_xml(tmp_path: Path) -> None:
    odd = tmp_path / "odd.jsonl"
    odd.write_text('{"case_id": "c1", "surface": "A bell \\u0007 rings ... here.", "grounding_source": "none"}\n',
                   "utf-8")
    run = cli("--lane", LANE, "--transcripts", str(odd), "--output-format", "junit")
    (case,) = suites(run.out)[f"{LANE}.cases"]
    assert outcome(case) == ("failure", "failed: no_placeholder (SL101)", "error")
    assert case.system_out == "surface: A bell \\x07 rings ... here."  # XML 1.0 cannot hold U+0007


def test_a_lane_with_thresholds_that_scored_nothing_is_a_failing_junit_run(tmp_path: Path) -> None:
    empty = tmp_path / "empty.jsonl"
    empty.write_bytes(b"")
    run = cli("--lane", "deterministic_fluency", "--transcripts", str(empty), "--output-format", "junit")
    assert run.code == 1
    assert run.out == (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        '<testsuites name="surface-lint deterministic_fluency" tests="1" failures="1" errors="0" skipped="0">\n'
        '  <testsuite name="deterministic_fluency.run" tests="1" failures="1" errors="0" skipped="0">\n'
        '    <testcase classname="deterministic_fluency.run" name="cases scored">\n'
        '      <failure message="no case was scored: the transcripts hold no record" type="nothing-scored" />\n'
        '    </testcase>\n'
        '  </testsuite>\n'
        '  <testsuite name="deterministic_fluency.cases" tests="0" failures="0" errors="0" skipped="0">\n'
        '    <properties>\n'
        '      <property name="lane" value="deterministic_fluency" />\n'
        '      <property name="lane_choice" value="lane deterministic_fluency, chosen by flag: --lane" />\n'
        '      <property name="version" value="v1" />\n'
        '      <property name="profile" value="contract" />\n'
        '      <property name="threshold_set" value="v1" />\n'
        '    </properties>\n'
        '  </testsuite>\n'
        '</testsuites>\n'
    )
