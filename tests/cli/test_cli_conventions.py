"""Issue 18: no silent green (the lane named, and why), output that reads itself, ruff's conventions."""

from __future__ import annotations

import io
import json
import shutil
import sys
from pathlib import Path

import pytest
from cli_support import TURNS, cli, write_turns

from surface_lint.cli.watch import signature, watch, without_watch

DEFAULT = "lane deterministic_fluency, chosen by default: nothing in the path or the fields names a lane"
SL103 = ("t.jsonl:3:52: SL103 [warning] complete_punctuation: the surface ends with `t`, not terminal punctuation "
         "(`.` `?` `!` `;`)")
COUNTS = "3 lines read: 3 records, 0 errors, 0 blank, 0 skipped."


def _grammatical(tmp_path: Path, corpus: Path) -> Path:
    """A lane folder as the runtime lays it out: captures/ and cases/ under grammatical_coverage/."""
    lane = corpus / "lanes" / "grammatical_coverage"
    root = tmp_path / "grammatical_coverage"
    (root / "captures").mkdir(parents=True)
    (root / "cases").mkdir()
    shutil.copy(lane / "captures" / "holdouts_v1.jsonl", root / "captures" / "h.jsonl")
    shutil.copy(lane / "cases" / "holdouts" / "v1" / "cases.jsonl", root / "cases" / "c.jsonl")
    return root


def test_inside_a_lane_folder_the_lane_is_the_folders_and_says_so(tmp_path: Path, corpus: Path) -> None:
    """The issue's repro: from inside the lane's folder a relative path found 0 findings, exit 0."""
    root = _grammatical(tmp_path, corpus)
    run = cli("check", "captures/h.jsonl", "--cases", "cases/c.jsonl", cwd=root)
    assert run.code == 1
    assert run.out.splitlines()[-3:] == [
        "Found 21 finding(s) (21 warning) in 1 file(s); profile: contract.",
        "104 lines read: 104 records, 0 errors, 0 blank, 0 skipped.",
        "lane grammatical_coverage, chosen by path: the folder grammatical_coverage in the path"]


def test_a_path_naming_another_lane_than_the_cases_is_an_error_naming_both(tmp_path: Path, corpus: Path) -> None:
    root = _grammatical(tmp_path, corpus)
    (tmp_path / "deterministic_fluency").mkdir()
    shutil.copy(root / "captures" / "h.jsonl", tmp_path / "deterministic_fluency" / "h.jsonl")
    run = cli("check", "deterministic_fluency/h.jsonl", "--cases", "grammatical_coverage/cases/c.jsonl", cwd=tmp_path)
    assert (run.code, run.out) == (2, "")
    assert run.err == (
        "surface-lint: error: deterministic_fluency/h.jsonl: the folder deterministic_fluency in the path says lane "
        "deterministic_fluency, but the cases it is joined to are of lane grammatical_coverage (the folder "
        "grammatical_coverage in the path of the case file grammatical_coverage/cases/c.jsonl); give --lane to choose\n")
    shutil.copy(root / "cases" / "c.jsonl", tmp_path / "deterministic_fluency" / "c.jsonl")
    run = cli("check", "deterministic_fluency/c.jsonl", cwd=tmp_path)
    assert run.code == 2
    assert run.err == (
        "surface-lint: error: deterministic_fluency/c.jsonl: the folder deterministic_fluency in the path says lane "
        "deterministic_fluency, but the first record's fields (construction) say lane classical_literature_ood or "
        "elementary_mathematics_ood or english_fluency_ood or foundational_physics_ood or grammatical_coverage; "
        "give --lane to choose\n")


def test_a_lane_whose_checks_read_case_fields_is_not_scored_without_cases(tmp_path: Path) -> None:
    write_turns(tmp_path / "t.jsonl")
    run = cli("--lane", "symbolic_logic", "--transcripts", "t.jsonl", cwd=tmp_path)
    assert (run.code, run.out) == (2, "")
    assert run.err == (
        "surface-lint: error: lane symbolic_logic scores captures joined with their cases: give --cases "
        "(or give only lane reports, which carry their cases' records)\n")


@pytest.mark.parametrize(("fmt", "expected"), [
    ("json", {"chosen_by": "flag", "how": "--lane", "lane": "deterministic_fluency"}),
    ("json-lines", {"chosen_by": "flag", "how": "--lane", "lane": "deterministic_fluency"}),
    ("sarif", {"chosen_by": "flag", "how": "--lane", "lane": "deterministic_fluency"}),
    ("junit", '<property name="lane_choice" value="lane deterministic_fluency, chosen by flag: --lane" />'),
    ("github", "surface-lint: lane deterministic_fluency, chosen by flag: --lane; profile contract\n"),
    ("markdown", "lane deterministic\\_fluency, chosen by flag: --lane  \n"),
    ("html", '<p class="meta lane">lane deterministic_fluency, chosen by flag: --lane</p>'),
    ("text", "lane deterministic_fluency v1 · profile contract · thresholds v1 · 3 case(s)\n"
             "lane deterministic_fluency, chosen by flag: --lane\n"),
])
def test_every_format_names_the_lane_and_how_it_was_chosen(tmp_path: Path, fmt: str, expected: object) -> None:
    write_turns(tmp_path / "t.jsonl")
    out = cli("--lane", "deterministic_fluency", "--transcripts", "t.jsonl", "--output-format", fmt, cwd=tmp_path).out
    if fmt == "json":
        assert json.loads(out)["lane_choice"] == expected
    elif fmt == "json-lines":
        assert json.loads(out.splitlines()[-1])["lane_choice"] == expected
    elif fmt == "sarif":
        assert json.loads(out)["runs"][0]["properties"]["laneChoice"] == expected
    else:
        assert isinstance(expected, str) and expected in out


def _two_runs(folder: Path) -> None:
    """old.jsonl (TURNS) and new.jsonl, whose c1 now has a placeholder (SL101 flips to fail)."""
    write_turns(folder / "old.jsonl")
    write_turns(folder / "new.jsonl", [{**TURNS[0], "surface": "A river carries ... to the sea."}, *TURNS[1:]])


def test_diff_names_each_runs_lane_and_how_it_was_chosen_in_text(tmp_path: Path) -> None:
    """Without --lane each run's lane is chosen as a `--lane` run's is, and each says why."""
    _two_runs(tmp_path)
    run = cli("diff", "old.jsonl", "new.jsonl", cwd=tmp_path)
    assert (run.code, run.err) == (1, "")
    assert run.out == (
        "diff deterministic_fluency: old.jsonl -> new.jsonl · profile contract · REGRESSED (2 regression(s))\n"
        "lane deterministic_fluency, chosen by default: nothing in the path or the fields names a lane of old.jsonl\n"
        "lane deterministic_fluency, chosen by default: nothing in the path or the fields names a lane of new.jsonl\n"
        "metrics:\n"
        "  cases                                 3 -> 3              +0\n"
        "  complete_punctuation_rate        0.6667 -> 0.6667    +0.0000\n"
        "  expected_predicates_pass_rate    1.0000 -> 1.0000    +0.0000\n"
        "  finite_predicate_shape_rate      1.0000 -> 1.0000    +0.0000\n"
        "  no_dotted_inventory_rate         1.0000 -> 1.0000    +0.0000\n"
        "  no_placeholder_rate              1.0000 -> 0.6667    -0.3333  REGRESSED\n"
        "  no_provenance_only_rate          1.0000 -> 1.0000    +0.0000\n"
        "  surface_provenance_match_rate    1.0000 -> 1.0000    +0.0000\n"
        "flipped verdicts (1 case(s)):\n"
        "  c1  no_placeholder (SL101): pass -> FAIL: placeholder marker `...` in the surface\n"
        "    old: Lamp one gives light.\n"
        "    new: A river carries ... to the sea.\n"
        "unchanged: 2 case(s)\n")


FLAG_RECORD = {"chosen_by": "flag", "files": ["old.jsonl", "new.jsonl"], "how": "--lane",
               "lane": "deterministic_fluency"}
FLAG_NOTE = "lane deterministic_fluency, chosen by flag: --lane"


@pytest.mark.parametrize(("fmt", "expected"), [
    ("text", "diff deterministic_fluency: old.jsonl -> new.jsonl · profile contract · REGRESSED (2 regression(s))\n"
             f"{FLAG_NOTE}\nmetrics:\n"),
    ("json", [FLAG_RECORD]),
    ("json-lines", [FLAG_RECORD]),
    ("sarif", [FLAG_RECORD]),
    ("junit", f'      <property name="lane_choice" value="{FLAG_NOTE}" />\n'
              '      <property name="profile" value="contract" />\n'),
    ("github", f"surface-lint: {FLAG_NOTE}; profile contract\n"),
    ("markdown", "`old.jsonl` → `new.jsonl` · profile `contract` · 1 case(s) with flipped verdicts, 0 new, "
                 "0 vanished, 2 unchanged  \nlane deterministic\\_fluency, chosen by flag: --lane  \n\n| Metric |"),
    ("html", '<p class="meta"><code>old.jsonl</code> → <code>new.jsonl</code> · profile <code>contract</code> · '
             "1 case(s) with flipped verdicts, 0 new, 0 vanished, 2 unchanged</p>\n"
             f'<p class="meta lane">{FLAG_NOTE}</p>\n</header>\n'),
])
def test_every_diff_format_names_the_lane_how_it_was_chosen_and_the_profile(
        tmp_path: Path, fmt: str, expected: object) -> None:
    _two_runs(tmp_path)
    run = cli("diff", "old.jsonl", "new.jsonl", "--lane", "deterministic_fluency", "--output-format", fmt,
              cwd=tmp_path)
    assert (run.code, run.err) == (1, "")
    if fmt == "json":
        assert (json.loads(run.out)["lanes"], json.loads(run.out)["profile"]) == (expected, "contract")
    elif fmt == "json-lines":
        summary = json.loads(run.out.splitlines()[-1])
        assert (summary["type"], summary["lanes"], summary["profile"]) == ("summary", expected, "contract")
    elif fmt == "sarif":
        properties = json.loads(run.out)["runs"][0]["properties"]
        assert (properties["lanes"], properties["profile"]) == (expected, "contract")
    elif fmt in ("text", "github"):
        assert isinstance(expected, str) and run.out.startswith(expected)
    else:
        assert isinstance(expected, str) and expected in run.out


def test_diff_of_a_run_in_another_lanes_folder_than_its_cases_is_an_error_naming_both(
        tmp_path: Path, corpus: Path) -> None:
    """The silent green of `--lane` runs, refused for diff alike: the cases' lane and the path's differ."""
    root = _grammatical(tmp_path, corpus)
    (tmp_path / "deterministic_fluency").mkdir()
    shutil.copy(root / "captures" / "h.jsonl", tmp_path / "deterministic_fluency" / "h.jsonl")
    run = cli("diff", "grammatical_coverage/captures/h.jsonl", "deterministic_fluency/h.jsonl", "--cases",
              "grammatical_coverage/cases/c.jsonl", cwd=tmp_path)
    assert (run.code, run.out) == (2, "")
    assert run.err == (
        "surface-lint: error: deterministic_fluency/h.jsonl: the folder deterministic_fluency in the path says lane "
        "deterministic_fluency, but the cases it is joined to are of lane grammatical_coverage (the folder "
        "grammatical_coverage in the path of the case file grammatical_coverage/cases/c.jsonl); give --lane to choose\n")


def test_text_reads_itself(tmp_path: Path) -> None:
    """The headline in words, categories as rows would be below; every failing case by its id, the
    first --show of them and how many more; a severity a case raised, with its reason."""
    (tmp_path / "cases.jsonl").write_text("".join(json.dumps(
        {"id": f"c{i}", "prompt": f"What is lamp {i}?", "category": "pack_definition",
         "expected_predicates": ["complete_punctuation"]}) + "\n" for i in (1, 2, 3)), "utf-8")
    write_turns(tmp_path / "t.jsonl", [{"case_id": f"c{i}", "surface": f"Lamp {i} gives light",
                                        "grounding_source": "none"} for i in (1, 2, 3)])
    run = cli("--lane", "deterministic_fluency", "--cases", "cases.jsonl", "--transcripts", "t.jsonl", "--show", "2",
              cwd=tmp_path)
    assert run.code == 1
    raised = "[error: the case's `expected_predicates` names it; rules table: warning]"
    assert run.out.splitlines() == [
        "lane deterministic_fluency v1 · profile contract · thresholds v1 · 3 case(s)",
        "lane deterministic_fluency, chosen by flag: --lane",
        "  cases                                 3",
        "  complete_punctuation_rate        0.0000  >= 1         FAIL",
        "  expected_predicates_pass_rate    0.0000                     (headline metric)",
        "  finite_predicate_shape_rate      1.0000  >= 0.9       ok",
        "  no_dotted_inventory_rate         1.0000",
        "  no_placeholder_rate              1.0000  >= 1         ok",
        "  no_provenance_only_rate          1.0000",
        "  surface_provenance_match_rate    1.0000",
        "result: FAIL",
        "failing cases: 3 (the first 2 listed)",
        "case c1:",
        f"  t.jsonl:1:48: SL103 {raised} complete_punctuation: the surface ends with `t`, not terminal "
        "punctuation (`.` `?` `!` `;`)",
        "case c2:",
        f"  t.jsonl:2:48: SL103 {raised} complete_punctuation: the surface ends with `t`, not terminal "
        "punctuation (`.` `?` `!` `;`)",
        "  … 1 more (--show N lists more)",
        "6 lines read: 6 records, 0 errors, 0 blank, 0 skipped.",
    ]


def test_per_category_metrics_are_aligned_rows(corpus: Path) -> None:
    lane = corpus / "lanes" / "grammatical_coverage"
    run = cli("--cases", str(lane / "cases" / "holdouts" / "v1" / "cases.jsonl"),
              "--transcripts", str(lane / "captures" / "holdouts_v1.jsonl"), "--show", "0")
    lines = run.out.splitlines()
    start = lines.index("  by_construction")
    assert lines[start - 1:start + 3] == ["  accuracy            0.8654                     (headline metric)",
                                          "  by_construction", "    C01               1.0000",
                                          "    C02               1.0000"]
    assert lines[start + 7:start + 9] == ["    C07               0.0000", "    C08               0.2500"]


def test_help_lists_every_subcommand(capsys: pytest.CaptureFixture[str]) -> None:
    from surface_lint.cli.main import main

    with pytest.raises(SystemExit):
        main(["--help"])
    out = capsys.readouterr().out
    assert "Subcommands: check, diff, rule, lanes, lane (test, schema), server." in " ".join(out.split())


def test_select_ignore_extend_select_resolve_codes_names_aliases_prefixes(tmp_path: Path) -> None:
    write_turns(tmp_path / "t.jsonl")
    for argv in (["--ignore", "SL103"], ["--ignore", "complete_punctuation"], ["--ignore", "sl1"],
                 ["--select", "SL101,SL102"], ["--select", "SL0", "--extend-select", "no_placeholder"]):
        run = cli("check", "t.jsonl", *argv, cwd=tmp_path)
        assert (run.code, run.out.splitlines()[0]) == (0, "Found 0 finding(s) (no findings) in 1 file(s); "
                                                       "profile: contract."), argv
    for argv in (["--select", "SL1"], ["--select", "ALL"], ["--select", "SL0", "--extend-select", "SL103"]):
        run = cli("check", "t.jsonl", *argv, cwd=tmp_path)
        assert (run.code, run.out.splitlines()[0]) == (1, SL103), argv
    run = cli("check", "t.jsonl", "--select", "complete_punctuaton", cwd=tmp_path)
    assert (run.code, run.err) == (2, "surface-lint: error: --select/--ignore: `complete_punctuaton` names no code, "
                                      "predicate, alias or code prefix of the loaded lanes (did you mean "
                                      "`complete_punctuation`?)\n")


def test_statistics_and_exit_zero(tmp_path: Path) -> None:
    write_turns(tmp_path / "t.jsonl")
    run = cli("check", "t.jsonl", "--statistics", "--exit-zero", cwd=tmp_path)
    assert (run.code, run.out.splitlines()) == (0, [
        "1  SL103  complete_punctuation  [warning]",
        "Found 1 finding(s) (1 warning) in 1 file(s); profile: contract.", COUNTS, DEFAULT])


def test_full_format_puts_a_caret_under_the_exact_code_points_escapes_as_written(tmp_path: Path) -> None:
    (tmp_path / "e.jsonl").write_text(
        '{"case_id": "c1", "surface": "Lamp \\u2014 gives ... light.", "grounding_source": "none"}\n', "utf-8")
    run = cli("check", "e.jsonl", "--output-format", "full", cwd=tmp_path)
    assert run.out.splitlines()[:5] == [
        "e.jsonl:1:49: SL101 [error] no_placeholder: placeholder marker `...` in the surface",
        "  |",
        '1 | …d": "c1", "surface": "Lamp \\u2014 gives ... light.", "grounding_source": "none"}',
        "  |                                          ^^^",
        "",
    ]
    # `concise` is the one-line form, as `text`.
    concise = cli("check", "e.jsonl", "--output-format", "concise", cwd=tmp_path).out
    assert concise == cli("check", "e.jsonl", cwd=tmp_path).out
    assert concise.splitlines()[0] == "e.jsonl:1:49: SL101 [error] no_placeholder: placeholder marker `...` in the surface"


def test_stdin_is_read_under_its_stdin_filename(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    data = write_turns(tmp_path / "t.jsonl").read_bytes()
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))
    run = cli("check", "-", "--stdin-filename", "t.jsonl", "--output-format", "full", cwd=tmp_path)
    assert (run.code, run.out.splitlines()) == (1, [
        SL103, "  |", '3 | … "c3", "surface": "Lamp three gives light", "grounding_source": "none"}',
        "  |                                          ^", "",
        "Found 1 finding(s) (1 warning) in 1 file(s); profile: contract.", COUNTS, DEFAULT])
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))
    run = cli("--lane", "deterministic_fluency", "--transcripts", "-", "--output-format", "json", cwd=tmp_path)
    assert (run.code, json.loads(run.out)["metrics"]["complete_punctuation_rate"]) == (1, 0.6667)


def test_show_settings_says_which_config_lane_and_profile_and_why(tmp_path: Path) -> None:
    write_turns(tmp_path / "t.jsonl")
    (tmp_path / "surface-lint.toml").write_text('profile = "reference"\n', "utf-8")
    run = cli("check", "t.jsonl", "--ignore", "SL103", "--show-settings", cwd=tmp_path)
    assert (run.code, run.out.splitlines()) == (0, [
        f"config: {tmp_path / 'surface-lint.toml'} (the nearest at or above the input)",
        "profile: reference (the config's `profile`)",
        DEFAULT, "  t.jsonl",
        "lane files: none beyond the shipped lanes",
        "select: every code",
        "ignore: SL103",
    ])


def test_watch_runs_again_on_a_change_and_holds_nothing_between_runs(tmp_path: Path) -> None:
    """1,000 runs, each after a change of an input: the paths watched do not pile up."""
    path = tmp_path / "t.jsonl"
    write_turns(path)
    seen_sizes: list[int] = []

    def run(inputs: list[str]) -> int:
        inputs.append(str(path))
        seen_sizes.append(len(inputs))
        return 0

    touches = iter(range(10_000))

    def touch(_: float) -> None:  # each poll changes the file: the next run starts
        path.write_text(f"{next(touches)}\n", "utf-8")

    out = io.StringIO()
    real = sys.stdout
    sys.stdout = out
    try:
        assert watch(run, runs=1000, sleep=touch) == 0
    finally:
        sys.stdout = real
    assert seen_sizes == [1] * 1000
    assert out.getvalue().count("\x1b[2J\x1b[H") == 1000
    assert signature([str(tmp_path / "gone")]) == ((str(tmp_path / "gone"), -1, -1),)
    assert without_watch(["check", "--watch", "--watch-runs", "3", "t.jsonl"]) == ["check", "t.jsonl"]
