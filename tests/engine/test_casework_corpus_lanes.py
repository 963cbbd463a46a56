"""CI on the case-driven lanes of ../shared/corpus/lanes (issue 9, item 3): their real case
files are clean under their lane's [case_schema] (no SL012 for the fields they carry, nested
ones included), real type errors in them are still exact findings, `surface-lint lanes`
lists every shipped lane and `surface-lint --lane NAME` scores each one.

Expected values are written out or read from the corpus (its runner reports), never computed
by the code under test. Without the corpus these tests fail in CI (tests/conftest.py)."""

from __future__ import annotations

import io
import json
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import pytest

from surface_lint.cli.main import main

# Every lane folder of the corpus, written out: a folder lost from the corpus fails here.
CORPUS_LANES = (
    "calibration", "classical_literature_ood", "compositionality", "conversational_thread_coherence",
    "discourse_paragraph", "elementary_mathematics_ood", "english_fluency_ood", "fabrication_control",
    "foundational_physics_ood", "grammatical_coverage", "inference_closure", "self_consistency_over_time",
)
SHIPPED_BEFORE = ("deterministic_fluency", "multi_sentence_response", "symbolic_logic")
def _run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = main([*argv])
    return code, out.getvalue(), err.getvalue()


def _lanes_dir(corpus: Path) -> Path:
    return corpus / "lanes"


def _case_files(lane_dir: Path) -> list[Path]:
    return sorted(p for p in (lane_dir / "cases").rglob("*.jsonl"))


def _non_blank_lines(paths: list[Path]) -> int:
    return sum(1 for p in paths for line in p.read_text(encoding="utf-8").splitlines() if line.strip())


def test_the_corpus_has_exactly_these_lanes(corpus: Path) -> None:
    assert sorted(p.name for p in _lanes_dir(corpus).iterdir() if p.is_dir()) == list(CORPUS_LANES)


@pytest.mark.parametrize("lane", CORPUS_LANES)
def test_real_case_files_have_no_findings(corpus: Path, lane: str) -> None:
    paths = _case_files(_lanes_dir(corpus) / lane)
    assert paths, f"no case files for {lane}"
    # The lane is detected from the path (a folder named after it), as the editor does.
    code, out, err = _run("check", "--fail-on", "hint", "--output-format", "json", *map(str, paths))
    assert err == ""
    found = json.loads(out)
    assert [(f["code"], f["message"]) for f in found["findings"]] == []
    assert code == 0
    # Every line was read as a record: none skipped, none left unchecked.
    lines = _non_blank_lines(paths)
    assert (found["counts"]["records"], found["counts"]["errors"], found["counts"]["skipped"]) == (lines, 0, 0)


@pytest.mark.parametrize("lane", CORPUS_LANES)
def test_each_lane_is_detected_from_its_folder_and_reads_its_own_schema(corpus: Path, tmp_path: Path,
                                                                        lane: str) -> None:
    # A real first case with one field no schema knows: the SL012 names the lane the path gave.
    first = _case_files(_lanes_dir(corpus) / lane)[0].read_text(encoding="utf-8").splitlines()[0]
    record = json.loads(first)
    record["zz_note"] = 1
    line = json.dumps(record)
    path = tmp_path / lane / "dev" / "cases.jsonl"
    path.parent.mkdir(parents=True)
    path.write_text(line + "\n", encoding="utf-8")
    code, out, _ = _run("check", "--fail-on", "hint", "--output-format", "json", str(path))
    column = line.index('"zz_note"') + 1
    assert [(f["code"], f["line"], f["column"], f["message"]) for f in json.loads(out)["findings"]] == [
        ("SL012", 1, column, f"unknown field `zz_note` for lane {lane}")]
    assert code == 1


def _edited(corpus: Path, tmp_path: Path, lane: str, source: str, edit: dict[str, object],
            drop: str | None = None) -> tuple[Path, str]:
    """The first case of a real case file with `edit` applied (dotted paths reach inside objects
    and lists), written to tmp_path/<lane>/dev/cases.jsonl; returns (path, the line)."""
    record = json.loads((_lanes_dir(corpus) / lane / source).read_text(encoding="utf-8").splitlines()[0])
    for dotted, value in edit.items():
        *parents, last = dotted.split(".")
        target = record
        for part in parents:
            target = target[int(part)] if isinstance(target, list) else target[part]
        target[last] = value
    if drop is not None:
        del record[drop]
    line = json.dumps(record)
    path = tmp_path / lane / "dev" / "cases.jsonl"
    path.parent.mkdir(parents=True)
    path.write_text(line + "\n", encoding="utf-8")
    return path, line


def _findings(path: Path) -> list[tuple[str, int, int, int, str]]:
    code, out, _ = _run("check", "--fail-on", "hint", "--output-format", "json", str(path))
    found = json.loads(out)["findings"]
    assert code == (1 if found else 0)
    return [(f["code"], f["line"], f["column"], f["end_column"], f["message"]) for f in found]


def test_a_nested_list_where_a_string_list_belongs_is_a_type_error(corpus: Path, tmp_path: Path) -> None:
    path, line = _edited(corpus, tmp_path, "grammatical_coverage", "cases/dev/cases.jsonl",
                         {"constraints.must_contain": "light"})
    at = line.index('"must_contain": "light"') + len('"must_contain": ')
    assert _findings(path) == [
        ("SL003", 1, at + 1, at + 1 + len('"light"'), "`constraints.must_contain` must be an array of strings, not a string")]


def test_a_misspelt_top_level_field_next_to_nested_ones(corpus: Path, tmp_path: Path) -> None:
    path, line = _edited(corpus, tmp_path, "grammatical_coverage", "cases/dev/cases.jsonl",
                         {"construction_nam": "simple_declarative"}, drop="construction_name")
    at = line.index('"construction_nam"')
    assert _findings(path) == [
        ("SL012", 1, at + 1, at + 1 + len('"construction_nam"'),
         "unknown field `construction_nam` for lane grammatical_coverage; did you mean `construction_name`?")]


def test_a_wrong_type_inside_a_list_of_turn_objects(corpus: Path, tmp_path: Path) -> None:
    path, line = _edited(corpus, tmp_path, "conversational_thread_coherence", "cases/dev/cases.jsonl",
                         {"turns.1.expects_grounded": "yes"})
    at = line.index('"expects_grounded": "yes"') + len('"expects_grounded": ')
    assert _findings(path) == [
        ("SL003", 1, at + 1, at + 1 + len('"yes"'), "`turns.1.expects_grounded` must be a boolean, not a string")]


def test_a_bound_given_as_text_and_a_missing_required_field(corpus: Path, tmp_path: Path) -> None:
    path, line = _edited(corpus, tmp_path, "discourse_paragraph", "cases/dev/cases.jsonl", {"min_sentences": "4"})
    at = line.index('"min_sentences": "4"') + len('"min_sentences": ')
    assert _findings(path) == [
        ("SL003", 1, at + 1, at + 1 + len('"4"'), "`min_sentences` must be an integer, not a string")]
    other = tmp_path / "other"
    path, line = _edited(corpus, other, "compositionality", "cases/dev/cases.jsonl", {}, drop="probe")
    assert _findings(path) == [
        ("SL002", 1, 1, len(line) + 1, "missing required field `probe` (a string) for lane compositionality")]


def test_a_misspelt_field_inside_a_typed_object_is_unknown(corpus: Path, tmp_path: Path) -> None:
    # `constraints` declares its fields: a typo there would silently drop the must_contain check.
    path, line = _edited(corpus, tmp_path, "grammatical_coverage", "cases/dev/cases.jsonl",
                         {"constraints.must_contian": ["light"]})
    at = line.index('"must_contian"')
    assert _findings(path) == [
        ("SL012", 1, at + 1, at + 1 + len('"must_contian"'),
         "unknown field `constraints.must_contian` for lane grammatical_coverage; did you mean `must_contain`?")]
    # Inside a list of turn objects, with the turn's index in the path.
    other = tmp_path / "turns"
    path, line = _edited(corpus, other, "conversational_thread_coherence", "cases/dev/cases.jsonl",
                         {"turns.2.expect_grounded": True})
    at = line.index('"expect_grounded"')
    assert _findings(path) == [
        ("SL012", 1, at + 1, at + 1 + len('"expect_grounded"'),
         "unknown field `turns.2.expect_grounded` for lane conversational_thread_coherence; "
         "did you mean `expects_grounded`?")]


def test_an_object_field_that_declares_no_fields_stays_open(corpus: Path, tmp_path: Path) -> None:
    # grammatical_coverage's `proposition_graph` is typed `object` only (the checks never read it).
    path, _ = _edited(corpus, tmp_path, "grammatical_coverage", "cases/dev/cases.jsonl",
                      {"proposition_graph.layout": "tree"})
    assert _findings(path) == []


ROOT = Path(__file__).resolve().parents[2]


def test_lanes_lists_every_shipped_lane() -> None:
    code, out, err = _run("lanes")
    assert (code, err) == (0, "")
    rows = [r for r in out.splitlines() if not r.startswith("  ")]  # `  SET: checks` lines follow a lane's
    assert [r.split()[0] for r in rows] == sorted((*SHIPPED_BEFORE, *CORPUS_LANES))
    sets = [r for r in out.splitlines() if r.startswith("  ")]
    assert [r.split(":")[0] for r in sets] == [
        "  overall_pass (default)", "  overall_pass (default)", "  post_gloss", "  pre_gloss", "  v1 (default)",
        "  threshold_evaluation (default)", "  overall_pass (default)",
        # symbolic_logic: its report's `overall_pass` metric and the contract's set `v1`, the same checks.
        "  overall_pass", "  v1 (default)"]
    for row in rows:  # each from its own file in rules/
        assert row.endswith(f"({ROOT / 'rules' / (row.split()[0] + '.toml')})"), row


# The dev split's failing cases (as each runner's report says: `passed` false), by lane: the
# finding `--lane` gives for each, its code and the capture line.
DEV_FAILURES: dict[str, list[tuple[str, str, int]]] = {
    "calibration": [("CAL-DEV-010", "SL018", 19)],
    "compositionality": [("CMP-DEV-001", "SL018", 1), ("CMP-DEV-001", "SLC901", 5),
                         ("CMP-DEV-002", "SL018", 11), ("CMP-DEV-002", "SLC901", 15)],
    "inference_closure": [("INF-DEV-001", "SL018", 1), ("INF-DEV-001", "SLC951", 5), ("INF-DEV-003", "SL018", 21),
                          ("INF-DEV-003", "SLC951", 25), ("INF-DEV-004", "SL018", 31), ("INF-DEV-004", "SLC951", 35),
                          ("INF-DEV-005", "SLC951", 45)],
}


def _dev_cases(lane_dir: Path) -> Path:
    flat = lane_dir / "cases" / "cases" / "dev.jsonl"  # fabrication_control's layout
    return flat if flat.is_file() else lane_dir / "cases" / "dev" / "cases.jsonl"


@pytest.mark.parametrize("lane", CORPUS_LANES)
def test_lane_option_scores_each_new_lane_as_its_runner_did(corpus: Path, lane: str) -> None:
    lane_dir = _lanes_dir(corpus) / lane
    report = json.loads((lane_dir / "reports" / "dev.json").read_text(encoding="utf-8"))
    code, out, err = _run("--lane", lane, "--profile", "reference", "--cases", str(_dev_cases(lane_dir)),
                          "--transcripts", str(lane_dir / "captures" / "dev.jsonl"), "--output-format", "json")
    assert err == ""
    scored = json.loads(out)
    # Each case the runner failed is a finding at the capture line that decided it.
    assert scored["lane"] == lane
    assert [(f["record_id"], f["code"], f["line"]) for f in scored["findings"]] == DEV_FAILURES.get(lane, [])
    assert scored["metrics"] == report["metrics"]
    # The runner's own verdict on the run decides the exit code: 1 where it failed the lane.
    evaluation = report.get("threshold_evaluation")
    failed = report["metrics"].get("overall_pass") is False or (
        isinstance(evaluation, dict) and evaluation.get("passed") is False)
    assert code == (1 if failed else 0)


def test_a_case_driven_lanes_reports_are_read_not_re_judged(corpus: Path) -> None:
    # A report entry of these lanes is the runner's per-case record (a multi-turn case's turns
    # nested in it, no case's accept_surfaces): judged from the captures (`--lane`), never as a turn.
    reports = sorted(_lanes_dir(corpus).glob("*/reports/*.json"))
    assert len(reports) == 38
    entries = sum(len(json.loads(p.read_text(encoding="utf-8"))["cases"]) for p in reports)
    code, out, err = _run("check", "--fail-on", "hint", "--output-format", "json", *map(str, reports))
    found = json.loads(out)
    assert ([(f["code"], f["path"], f["line"]) for f in found["findings"]], err, code) == ([], "", 0)
    assert (found["counts"]["records"], found["counts"]["errors"]) == (entries, 0)
