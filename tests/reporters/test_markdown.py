"""Markdown: the exact metric and failing-case rows; the step summary stays under 1 MiB."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from reporters_support import CASES, LANE, NEW, OLD, check_run, cli, lane_run

from surface_lint.engine import Engine
from surface_lint.reporters import STEP_SUMMARY_LIMIT, RenderOptions, markdown
from surface_lint.reporters.markdown import md_code, md_surface, md_text


def test_lane_markdown_metric_table_and_failing_cases() -> None:
    lines = lane_run("markdown").out.splitlines()
    assert lines[:2] == ["## surface-lint · `deterministic_fluency` v1 · FAIL", ""]
    assert lines[2] == "Profile `contract` · thresholds `v1` · 6 case(s) · 3 failing · 1 with notes only"
    table = lines[lines.index("| Metric | Value | Threshold | Result |"):][:10]
    assert table == [
        "| Metric | Value | Threshold | Result |",
        "|---|---:|---|---|",
        "| `cases` | 6 |  |  |",
        "| `complete_punctuation_rate` | 0.8333 | &gt;= 1 | ❌ fail |",
        "| **`expected_predicates_pass_rate`** (headline) | 0.5000 |  |  |",
        "| `finite_predicate_shape_rate` | 1.0000 | &gt;= 0.9 | ✅ pass |",
        "| `no_dotted_inventory_rate` | 0.8333 |  |  |",
        "| `no_placeholder_rate` | 0.6667 | &gt;= 1 | ❌ fail |",
        "| `no_provenance_only_rate` | 0.8333 |  |  |",
        "| `surface_provenance_match_rate` | 1.0000 |  |  |",
    ]
    assert "- 1 case(s) without a transcript: `flu_006`" in lines
    failing = lines[lines.index("### Failing cases (3)") + 2:]
    assert failing == [
        "| Case | Group | Failed predicates | Surface |",
        "|---|---|---|---|",
        "| `flu_001` | pack\\_definition | `no_placeholder` (SL101, error): placeholder marker \\`...\\` in the surface"
        " | A river carries **...** to the sea. pack-grounded (en\\_demo\\_nature\\_v1). |",
        "| `flu_002` | pack\\_definition | `complete_punctuation` (SL103, error): the surface ends with \\`m\\`, not"
        " terminal punctuation (\\`.\\` \\`?\\` \\`!\\` \\`;\\`) | A lamp gives light in a dark roo**m** |",
        "| `flu_007` | pack\\_definition | `no_placeholder` (SL101, error): placeholder marker \\`&lt;pending&gt;\\`"
        " in the surface | Café 🌊 **&lt;pending&gt;** \\| a café serves coffee. |",
    ]


def test_check_markdown_rows() -> None:
    lines = check_run("markdown").out.splitlines()
    assert lines[:5] == ["## surface-lint check · 5 finding(s)", "",
                         "2 error, 2 information, 1 warning in 1 file(s) · profile `contract` · 6 record(s) read",
                         "", "lane deterministic\\_fluency, chosen by flag: --lane  "]
    assert lines[6:9] == [
        "| Location | Code | Severity | Message |",
        "|---|---|---|---|",
        f"| `{NEW}:1:52` | SL101 `no_placeholder` | error | "
        "no\\_placeholder: placeholder marker \\`...\\` in the surface |",
    ]
    assert len(lines) == 6 + 2 + 5  # the header with its lane note, the table's head, 5 rows


def test_diff_markdown_rows() -> None:
    run = cli("diff", OLD, NEW, "--lane", LANE, "--cases", CASES, "--output-format", "markdown")
    lines = run.out.splitlines()
    assert lines[0] == "## surface-lint diff · `deterministic_fluency` · REGRESSED"
    assert lines[2:4] == [f"`{OLD}` → `{NEW}` · profile `contract` · 4 case(s) with flipped verdicts, 1 new, "
                          "1 vanished, 1 unchanged  ",
                          "lane deterministic\\_fluency, chosen by flag: --lane  "]
    assert "| `cases` | 6 | 6 | +0 |  |" in lines
    assert "| `no_placeholder_rate` | 1.0000 | 0.6667 | -0.3333 | ❌ regressed |" in lines
    assert "| `finite_predicate_shape_rate` | 0.8333 | 1.0000 | +0.1667 | ✅ improved |" in lines
    assert ("| `flu_002` | `complete_punctuation` (SL103) | pass | **fail** | A lamp gives light in a dark room."
            " pack-grounded (en\\_demo\\_home\\_v1). | A lamp gives light in a dark roo**m** |") in lines
    assert ("| `flu_005` | `finite_predicate_shape` (SL104) | **fail** | pass | **harbour: no entry yet** |"
            " Harbour has no entry yet. |") in lines
    assert lines[-5:] == ["### Vanished cases (1)", "", "| Case | Failed predicates |", "|---|---|",
                          "| `flu_006` | none |"]


@pytest.mark.parametrize("text,cell", [
    ("a|b", "a\\|b"),
    ("<pending> & *x* _y_ `z` [l](u)", "&lt;pending&gt; &amp; \\*x\\* \\_y\\_ \\`z\\` \\[l\\](u)"),
    ("two\nlines\r\nhere", "two<br>lines<br>here"),
])
def test_md_text_escapes_table_cells(text: str, cell: str) -> None:
    assert md_text(text) == cell


def test_md_code_and_surface_highlight() -> None:
    assert md_code("a|b") == "`a\\|b`"
    assert md_code("a`b") == "`` a`b ``"
    from surface_lint.reporters.common import PredicateFailure

    fail = PredicateFailure("p", "SL1", None, "", ((2, 9),))
    # Spaces stay outside the bold markers so CommonMark still sees emphasis.
    assert md_surface("a  bad one", [fail]) == "a  **bad on**e"
    assert md_surface("", []) == "_(empty)_"
    assert md_surface("x" * 300, []) == "x" * 240 + " …"


def _many_failures(tmp_path: Path, n: int) -> Path:
    path = tmp_path / "many.jsonl"
    with path.open("w", encoding="utf-8") as fh:
        for i in range(n):
            surface = f"Case {i} says " + "word " * 40 + "and then ..."
            fh.write(json.dumps({"case_id": f"m{i:05d}", "surface": surface, "grounding_source": "none"}) + "\n")
    return path


QUOTA_NOTE = ("_… {n} more failing case(s) of `no_placeholder` not shown (the first 20 of each predicate "
              "are listed). The JSON, SARIF or HTML output lists them all._")


def test_the_first_20_failing_cases_of_each_predicate_and_a_count_of_the_rest(tmp_path: Path) -> None:
    path = _many_failures(tmp_path, 60)
    engine = Engine()
    result = engine.score(LANE, [], [str(path)])
    full = markdown.render_lane(result, RenderOptions(lane=engine.lane(LANE))).splitlines()
    rows = [line for line in full if line.startswith("| `m")]
    assert [row.split(" | ")[0] for row in rows] == [f"| `m{i:05d}`" for i in range(20)]
    assert "### Failing cases (60)" in full
    assert full[-2:] == ["", QUOTA_NOTE.format(n=40)]
    # Every metric is shown, whatever the number of cases.
    assert [line.split(" | ")[0] for line in full if line.startswith("| `") and "_rate" in line] == [
        "| `complete_punctuation_rate`", "| `finite_predicate_shape_rate`", "| `no_dotted_inventory_rate`",
        "| `no_placeholder_rate`", "| `no_provenance_only_rate`", "| `surface_provenance_match_rate`"]


def test_byte_limit_cuts_the_failing_cases_with_a_note(tmp_path: Path) -> None:
    path = _many_failures(tmp_path, 60)
    engine = Engine()
    result = engine.score(LANE, [], [str(path)])
    cut = markdown.render_lane(result, RenderOptions(lane=engine.lane(LANE), byte_limit=4000))
    assert len(cut.encode()) <= 4000
    rows = [line for line in cut.splitlines() if line.startswith("| `m")]
    assert 0 < len(rows) < 20
    assert cut.splitlines()[-4:] == [
        "", QUOTA_NOTE.format(n=40), "",
        f"_… {20 - len(rows)} more failing case(s) not shown: this summary is kept under 3 KiB. "
        "The JSON, SARIF or HTML output lists them all._"]


def test_github_summary_appends_and_stays_under_one_mebibyte(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = _many_failures(tmp_path, 3000)
    summary = tmp_path / "summary.md"
    summary.write_text("# Earlier step output\n\n" + "x" * 100_000 + "\n", "utf-8")
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    run = cli("--lane", LANE, "--transcripts", str(path), "--github-summary")
    assert run.code == 1  # no_placeholder_rate 0.0 fails its threshold
    text = summary.read_text("utf-8")
    assert text.startswith("# Earlier step output\n")
    assert len(text.encode()) <= STEP_SUMMARY_LIMIT
    assert "## surface-lint · `deterministic_fluency` v1 · FAIL" in text
    assert len([line for line in text.splitlines() if line.startswith("| `m")]) == 20
    assert text.rstrip().splitlines()[-1] == QUOTA_NOTE.format(n=2980)
    assert run.out.startswith("lane deterministic_fluency v1")  # stdout keeps the chosen format


def test_github_summary_without_the_variable_warns(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)
    run = lane_run("text", NEW, "--github-summary")
    assert "GITHUB_STEP_SUMMARY is not set" in run.err


def test_check_and_diff_write_their_own_summaries(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    summary = tmp_path / "summary.md"
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    check = check_run("github", (NEW,), "--github-summary")
    assert check.out.startswith("surface-lint: lane deterministic_fluency, chosen by flag: --lane; profile contract\n::error ")  # stdout keeps the chosen format
    diff = cli("diff", OLD, NEW, "--lane", LANE, "--cases", CASES, "--github-summary")
    assert diff.code == 1
    text = summary.read_text("utf-8")
    assert text.startswith("## surface-lint check · 5 finding(s)\n")
    assert "\n## surface-lint diff · `deterministic_fluency` · REGRESSED\n" in text
