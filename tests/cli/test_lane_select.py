"""`--select` / `--ignore` / `--extend-select` on `--lane` (issue 18): they choose the findings a
lane run shows in every format, resolved as `check`'s are; the case verdicts, metrics,
thresholds and exit code stay the lane's, and every output says how many findings it hides."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_support import TURNS, cli, write_turns

LANE = "deterministic_fluency"
NOTE = ("--ignore SL101: 1 of 2 finding(s) not shown; the metrics, thresholds, case verdicts and exit code "
        "count every finding")
SL101 = "t.jsonl:1:47: SL101 [error] no_placeholder: placeholder marker `...` in the surface"
SL103 = ("t.jsonl:3:52: SL103 [warning] complete_punctuation: the surface ends with `t`, not terminal punctuation "
         "(`.` `?` `!` `;`)")
METRICS = """\
  cases                                 3
  complete_punctuation_rate        0.6667  >= 1         FAIL
  expected_predicates_pass_rate    1.0000                     (headline metric)
  finite_predicate_shape_rate      1.0000  >= 0.9       ok
  no_dotted_inventory_rate         1.0000
  no_placeholder_rate              0.6667  >= 1         FAIL
  no_provenance_only_rate          1.0000
  surface_provenance_match_rate    1.0000
result: FAIL
"""
HEAD = f"lane {LANE} v1 · profile contract · thresholds v1 · 3 case(s)\nlane {LANE}, chosen by flag: --lane\n"
READ = "3 lines read: 3 records, 0 errors, 0 blank, 0 skipped.\n"


def _turns(folder: Path) -> None:
    """c1 fails no_placeholder (SL101, error), c3 complete_punctuation (SL103, warning)."""
    write_turns(folder / "t.jsonl", [{**TURNS[0], "surface": "A river carries ... to the sea."}, *TURNS[1:]])


def _lane(folder: Path, *argv: str) -> tuple[int, str]:
    run = cli("--lane", LANE, "--transcripts", "t.jsonl", *argv, cwd=folder)
    assert run.err == ""
    return run.code, run.out


def test_text_without_a_filter_lists_both_cases(tmp_path: Path) -> None:
    _turns(tmp_path)
    assert _lane(tmp_path) == (1, HEAD + METRICS + f"failing cases: 2\ncase c1:\n  {SL101}\ncase c3:\n  {SL103}\n" + READ)


def test_text_ignore_hides_the_findings_and_says_so_metrics_and_exit_unchanged(tmp_path: Path) -> None:
    _turns(tmp_path)
    assert _lane(tmp_path, "--ignore", "SL101") == (1, HEAD + NOTE + "\n" + METRICS + (
        "failing cases: 2\n"
        f"case c3:\n  {SL103}\n"
        "  … 1 more with no finding reported (a severity set off, or their findings not selected)\n") + READ)


def test_the_show_limit_counts_the_shown_cases_only(tmp_path: Path) -> None:
    """--show 1 with c1 hidden lists c3 (the first shown), not nothing."""
    _turns(tmp_path)
    code, out = _lane(tmp_path, "--select", "SL1", "--ignore", "no_placeholder", "--show", "1")
    assert (code, out.splitlines()[2], out.splitlines()[-5:]) == (1, (
        "--select SL1 --ignore no_placeholder: 1 of 2 finding(s) not shown; the metrics, thresholds, case verdicts "
        "and exit code count every finding"), [
        "failing cases: 2 (the first 1 listed)", "case c3:", f"  {SL103}",
        "  … 1 more (--show N lists more, or their findings are not selected)", READ.rstrip()])


@pytest.mark.parametrize(("argv", "codes"), [
    (["--ignore", "SL101"], ["SL103"]),
    (["--ignore", "no_placeholder"], ["SL103"]),  # a predicate's name
    (["--ignore", "sl101"], ["SL103"]),  # a code in any case
    (["--ignore", "no_dotted_domain_inventory"], ["SL101", "SL103"]),  # an alias (of SL105: nothing hidden)
    (["--select", "SL103"], ["SL103"]),
    (["--select", "SL10", "--ignore", "SL103"], ["SL101"]),  # a prefix
    (["--select", "SL0", "--extend-select", "complete_punctuation"], ["SL103"]),
    (["--select", "ALL", "--ignore", "SL101,SL103"], []),
])
def test_keys_resolve_as_checks_do_and_json_findings_follow(tmp_path: Path, argv: list[str], codes: list[str]) -> None:
    _turns(tmp_path)
    code, out = _lane(tmp_path, *argv, "--output-format", "json")
    report = json.loads(out)
    assert code == 1
    assert [f["code"] for f in report["findings"]] == codes
    assert (report["selection"]["findings_hidden"], report["selection"]["findings_total"]) == (2 - len(codes), 2)
    # The runner's numbers are unchanged: every case's failed predicates, every metric.
    assert report["failed_predicates"] == {"c1": ["no_placeholder"], "c3": ["complete_punctuation"]}
    assert (report["metrics"]["no_placeholder_rate"], report["metrics"]["complete_punctuation_rate"]) == (0.6667, 0.6667)


def test_json_selection_record(tmp_path: Path) -> None:
    _turns(tmp_path)
    report = json.loads(_lane(tmp_path, "--select", "SL10", "--ignore", "SL103", "--output-format", "json")[1])
    assert report["selection"] == {
        "select": ["SL101", "SL102", "SL103", "SL104", "SL105", "SL106"],
        "ignore": ["SL103"], "findings_hidden": 1, "findings_total": 2}


def test_an_unknown_key_is_exit_2_with_a_did_you_mean(tmp_path: Path) -> None:
    _turns(tmp_path)
    run = cli("--lane", LANE, "--transcripts", "t.jsonl", "--ignore", "no_placehodler", cwd=tmp_path)
    assert (run.code, run.out, run.err) == (2, "", (
        "surface-lint: error: --select/--ignore: `no_placehodler` names no code, predicate, alias or code prefix of "
        "the loaded lanes (did you mean `no_placeholder`?)\n"))


def test_the_exit_code_is_the_thresholds_whatever_is_hidden(tmp_path: Path) -> None:
    _turns(tmp_path)
    assert _lane(tmp_path, "--select", "SL0")[0] == 1  # no finding shown; two thresholds fail
    assert _lane(tmp_path, "--select", "SL0", "--exit-zero")[0] == 0


FINDING_SL103 = {"code": "SL103", "path": "t.jsonl", "line": 3, "column": 52, "record_id": "c3"}
RECORD = {"select": None, "ignore": ["SL101"], "findings_hidden": 1, "findings_total": 2}


def test_json_lines(tmp_path: Path) -> None:
    _turns(tmp_path)
    lines = [json.loads(x) for x in _lane(tmp_path, "--ignore", "SL101", "--output-format", "json-lines")[1].splitlines()]
    assert [{k: x[k] for k in FINDING_SL103} for x in lines if x["type"] == "finding"] == [FINDING_SL103]
    assert [(x["case_id"], x["failed_predicates"]) for x in lines if x["type"] == "case"] == [
        ("c1", ["no_placeholder"]), ("c2", []), ("c3", ["complete_punctuation"])]
    assert lines[-1]["type"] == "summary" and lines[-1]["selection"] == RECORD


def test_sarif(tmp_path: Path) -> None:
    _turns(tmp_path)
    run = json.loads(_lane(tmp_path, "--ignore", "SL101", "--output-format", "sarif")[1])["runs"][0]
    assert [(r["ruleId"], r["locations"][0]["physicalLocation"]["region"]["startLine"]) for r in run["results"]] == [
        ("SL103", 3)]
    assert run["properties"]["selection"] == RECORD


def test_github(tmp_path: Path) -> None:
    _turns(tmp_path)
    assert _lane(tmp_path, "--ignore", "SL101", "--output-format", "github") == (1, (
        f"surface-lint: lane {LANE}, chosen by flag: --lane; profile contract; {NOTE}\n"
        f"::error title=surface-lint {LANE}%3A threshold failed::no_placeholder_rate is 0.6667; the v1 threshold needs >= 1\n"
        f"::error title=surface-lint {LANE}%3A threshold failed::complete_punctuation_rate is 0.6667; the v1 threshold needs >= 1\n"
        "::warning file=t.jsonl,line=3,col=52,endLine=3,endColumn=53,title=SL103 complete_punctuation (case c3)::"
        "complete_punctuation: the surface ends with `t`, not terminal punctuation (`.` `?` `!` `;`)\n"))


def test_junit_keeps_the_verdict_and_lists_the_selected_failures(tmp_path: Path) -> None:
    _turns(tmp_path)
    out = _lane(tmp_path, "--ignore", "SL101", "--output-format", "junit")[1]
    assert f'      <property name="selection" value="{NOTE}" />\n' in out
    assert ('  <testsuite name="deterministic_fluency.cases" tests="3" failures="2" errors="0" skipped="0">\n') in out
    assert (
        '    <testcase classname="deterministic_fluency.uncategorised" name="c1">\n'
        '      <failure message="failed: checks not selected (--select/--ignore)" type="error" />\n'
        "      <system-out>surface: A river carries ... to the sea.</system-out>\n"
        "    </testcase>\n") in out
    assert (
        '    <testcase classname="deterministic_fluency.uncategorised" name="c3" file="t.jsonl" line="3">\n'
        '      <failure message="failed: complete_punctuation (SL103)" type="warning">complete_punctuation (SL103, '
        "warning): the surface ends with `t`, not terminal punctuation (`.` `?` `!` `;`) at t.jsonl:3:52</failure>\n") in out


def test_markdown(tmp_path: Path) -> None:
    _turns(tmp_path)
    out = _lane(tmp_path, "--ignore", "SL101", "--output-format", "markdown")[1]
    assert (
        "Profile `contract` · thresholds `v1` · 3 case(s) · 2 failing · 0 with notes only\n\n"
        "lane deterministic\\_fluency, chosen by flag: --lane  \n"
        "--ignore SL101: 1 of 2 finding(s) not shown; the metrics, thresholds, case verdicts and exit code count every "
        "finding  \n\n| Metric |") in out
    assert out.endswith(
        "### Failing cases (2)\n\n| Case | Group | Failed predicates | Surface |\n|---|---|---|---|\n"
        "| `c3` | uncategorised | `complete_punctuation` (SL103, warning): the surface ends with \\`t\\`, not terminal "
        "punctuation (\\`.\\` \\`?\\` \\`!\\` \\`;\\`) | Lamp three gives ligh**t** |\n")


def test_html_a_hidden_check_is_not_shown_as_a_pass(tmp_path: Path) -> None:
    _turns(tmp_path)
    out = _lane(tmp_path, "--ignore", "SL101", "--output-format", "html")[1]
    assert f'<p class="meta selection">{NOTE}</p>\n</header>\n' in out
    assert ('<tr data-case="c1" data-group="uncategorised" data-failed="" data-status="fail"><td class="mono">c1</td>'
            '<td>uncategorised</td><td class="cell na" title="not judged">·</td>') in out
    assert '<section id="failing"><h2>Failing surfaces (2)</h2>\n' in out
    assert 'placeholder marker' not in out


def test_a_case_driven_lanes_failing_case_hidden_still_fails(corpus: Path) -> None:
    """calibration dev: CAL-DEV-010 fails its case check (SL018); hidden, the lane still fails (exit 1)."""
    lane = corpus / "lanes" / "calibration"
    run = cli("--lane", "calibration", "--cases", str(lane / "cases" / "dev" / "cases.jsonl"), "--transcripts",
              str(lane / "captures" / "dev.jsonl"), "--ignore", "case-check-failed")
    assert (run.code, run.err) == (1, "")
    assert run.out.splitlines()[2] == ("--ignore case-check-failed: 1 of 1 finding(s) not shown; the metrics, "
                                       "thresholds, case verdicts and exit code count every finding")
    assert run.out.splitlines()[-3:] == [
        "failing cases: 1",
        "  … 1 more with no finding reported (a severity set off, or their findings not selected)",
        "36 lines read: 36 records, 0 errors, 0 blank, 0 skipped."]
