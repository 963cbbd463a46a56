"""GitHub workflow-command annotations: exact lines, escaping, most severe first, the limit notice."""

from __future__ import annotations

from reporters_support import check_run, lane_run

from surface_lint.model.findings import Finding, Location, Severity
from surface_lint.reporters.github import (
    Annotation,
    escape_data,
    escape_property,
    finding_annotation,
    render_annotations,
)

F = "tests/fixtures/reporters/fluency_new.jsonl"
PLACEHOLDER_1 = (f"::error file={F},line=1,col=52,endLine=1,endColumn=55,title=SL101 no_placeholder (case flu_001)::"
                 "no_placeholder: placeholder marker `...` in the surface")
PLACEHOLDER_6 = (f"::error file={F},line=6,col=43,endLine=6,endColumn=52,title=SL101 no_placeholder (case flu_007)::"
                 "no_placeholder: placeholder marker `<pending>` in the surface")
DISCLOSURE = (f"::notice file={F},line=3,col=36,endLine=3,endColumn=146,title=SL102 no_provenance_only (case flu_003)::"
              "no_provenance_only: the surface is a bare structured disclosure")
INVENTORY = (f"::notice file={F},line=3,col=77,endLine=3,endColumn=120,title=SL105 no_dotted_inventory (case flu_003)::"
             "no_dotted_inventory: dotted-path inventory `mind.state.unsure; mind.state; mind.knowing` in the surface")


def test_escaping_of_data_and_properties() -> None:
    message = "50% done: a, b\r\nnext line"
    assert escape_data(message) == "50%25 done: a, b%0D%0Anext line"
    assert escape_property(message) == "50%25 done%3A a%2C b%0D%0Anext line"
    assert escape_property("%3A") == "%253A"  # the percent is escaped first, never twice


def test_an_annotation_with_every_special_character() -> None:
    finding = Finding(Location("dir,x/a:b.jsonl", 3, 5, 3, 9), "SL101", "no_placeholder", Severity.ERROR,
                      "100% broken: a, b\nsecond line\rthird")
    line = Annotation(Severity.ERROR, finding.message, "SL101 no_placeholder: x, y", finding).command()
    assert line == ("::error file=dir%2Cx/a%3Ab.jsonl,line=3,col=5,endLine=3,endColumn=9,"
                    "title=SL101 no_placeholder%3A x%2C y::100%25 broken: a, b%0Asecond line%0Dthird")
    assert "\n" not in line and "\r" not in line


RUN_NOTE = "surface-lint: lane deterministic_fluency, chosen by flag: --lane; profile contract"


def test_check_annotations_most_severe_first() -> None:
    run = check_run("github")
    assert run.code == 1
    assert run.out.splitlines() == [
        RUN_NOTE,  # a log line, not an annotation: which lane, why, which profile
        PLACEHOLDER_1,
        PLACEHOLDER_6,
        f"::warning file={F},line=2,col=68,endLine=2,endColumn=69,title=SL103 complete_punctuation (case flu_002)::"
        "complete_punctuation: the surface ends with `m`, not terminal punctuation (`.` `?` `!` `;`)",
        DISCLOSURE,
        INVENTORY,
    ]


def test_lane_annotations_start_with_the_failed_thresholds() -> None:
    run = lane_run("github")
    assert run.code == 1
    lines = run.out.splitlines()
    assert lines.pop(0) == RUN_NOTE
    assert lines[:2] == [
        "::error title=surface-lint deterministic_fluency%3A threshold failed::"
        "no_placeholder_rate is 0.6667; the v1 threshold needs >= 1",
        "::error title=surface-lint deterministic_fluency%3A threshold failed::"
        "complete_punctuation_rate is 0.8333; the v1 threshold needs >= 1",
    ]
    # Joined to its case, the missing period is an expected predicate: an error, not a warning.
    assert lines[2:] == [
        PLACEHOLDER_1,
        f"::error file={F},line=2,col=68,endLine=2,endColumn=69,title=SL103 complete_punctuation (case flu_002)::"
        "complete_punctuation: the surface ends with `m`, not terminal punctuation (`.` `?` `!` `;`)",
        PLACEHOLDER_6,
        "::notice file=tests/fixtures/reporters/fluency_cases.jsonl,line=6,col=8,endLine=6,endColumn=17,"
        "title=SL015 unjoined-record (case flu_006)::case `flu_006` has no scored turn in the transcripts; left out of the metrics",
        DISCLOSURE,
        INVENTORY,
    ]


def test_the_limit_keeps_the_most_severe_and_says_how_many_were_left_out() -> None:
    run = check_run("github", (F,), "--annotation-limit", "2")
    assert run.out.splitlines() == [
        RUN_NOTE,
        PLACEHOLDER_1,
        PLACEHOLDER_6,
        "::notice::surface-lint: 3 more annotation(s) not shown (limit 2, --annotation-limit); "
        "the SARIF, JSON or Markdown output lists them all.",
    ]


def test_default_limit_is_50() -> None:
    findings = [Finding(Location("a.jsonl", n, 1, n, 2), "SL103", "complete_punctuation", Severity.WARNING, "m")
                for n in range(1, 61)]
    out = render_annotations([Annotation(f.severity, f.message, None, f) for f in findings], 50).splitlines()
    assert len(out) == 51
    assert out[-1].startswith("::notice::surface-lint: 10 more annotation(s) not shown (limit 50")
    assert out[49].startswith("::warning file=a.jsonl,line=50,")


def test_no_findings_no_output() -> None:
    assert render_annotations([], 50) == ""


def test_a_finding_title_names_its_case_escaped_as_a_property() -> None:
    finding = Finding(Location("a.jsonl", 2, 3, 2, 7), "SL101", "no_placeholder", Severity.ERROR, "m",
                      record_id="c:1,\n%x")
    assert finding_annotation(finding).command() == (
        "::error file=a.jsonl,line=2,col=3,endLine=2,endColumn=7,title=SL101 no_placeholder (case c%3A1%2C%0A%25x)::m")
    anonymous = Finding(Location("a.jsonl", 2, 3, 2, 7), "SL001", "invalid-json", Severity.ERROR, "m")
    assert finding_annotation(anonymous).command() == (
        "::error file=a.jsonl,line=2,col=3,endLine=2,endColumn=7,title=SL001 invalid-json::m")


def test_diff_flip_annotations_name_the_case_in_the_title() -> None:
    from reporters_support import CASES, LANE, NEW, OLD, cli

    run = cli("diff", OLD, NEW, "--lane", LANE, "--cases", CASES, "--output-format", "github")
    flips = [line for line in run.out.splitlines() if line.startswith("::error file=")]
    assert flips[0] == (f"::error file={F},line=1,col=52,endLine=1,endColumn=55,title=surface-lint deterministic_fluency"
                        "%3A SL101 no_placeholder regressed (case flu_001)::flu_001: no_placeholder passed before and "
                        "fails now: placeholder marker `...` in the surface")
    assert len(flips) == 4
