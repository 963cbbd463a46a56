"""The pure review module: finding runs, reading them, each case's newest outcome, a transcript
review, on our own fixtures (tests/fixtures/review)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from surface_lint.engine import Engine
from surface_lint.engine.review import (
    DEFAULT_TRANSCRIPT_GLOBS,
    find_runs,
    glob_pattern,
    latest_outcomes,
    read_run,
    review_transcript,
    turn_references,
)

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
REVIEW = FIXTURES / "review"
CASES = "evals/deterministic_fluency/public/v1/cases.jsonl"


def _stamp(path: Path, seconds: int) -> None:
    os.utime(path, ns=(seconds * 1_000_000_000, seconds * 1_000_000_000))


@pytest.mark.parametrize(("glob", "path", "matches"), [
    ("**/transcripts/**/*.jsonl", "transcripts/a.jsonl", True),
    ("**/transcripts/**/*.jsonl", "lane/transcripts/2026/a.jsonl", True),
    ("**/transcripts/**/*.jsonl", "transcripts.jsonl", False),
    ("**/*transcript*.jsonl", "runs/fluency_transcript.jsonl", True),
    ("**/*transcript*.jsonl", "transcripts/a.jsonl", False),
    ("runs/*.jsonl", "runs/deep/a.jsonl", False),
    ("runs/run_[ab].jsonl", "runs/run_b.jsonl", True),
    ("runs/run_[!a].jsonl", "runs/run_a.jsonl", False),
    ("**/*.{json,jsonl}", "reports/r.json", True),
    ("./runs/?.jsonl", "runs/x.jsonl", True),
    ("runs/a+b.jsonl", "runs/aab.jsonl", False),
])
def test_globs_match_as_vs_code_matches_them(glob: str, path: str, matches: bool) -> None:
    assert bool(glob_pattern(glob).match(path)) is matches


def test_runs_are_found_newest_first_skipping_dependency_folders(tmp_path: Path) -> None:
    for rel, when in [("transcripts/b.jsonl", 20), ("transcripts/a.jsonl", 20), ("runs/old.jsonl", 10),
                      ("node_modules/pkg/x_transcript.jsonl", 30), (".git/y_transcript.jsonl", 30),
                      ("reports/r.json", 15), ("notes/readme.jsonl", 40)]:
        path = tmp_path / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("{}\n", encoding="utf-8")
        _stamp(path, when)
    found = find_runs([tmp_path], DEFAULT_TRANSCRIPT_GLOBS)
    # Equal times: by path. Nothing from node_modules, .git or outside the globs.
    assert [(Path(r.path).relative_to(tmp_path.resolve()).as_posix(), r.stamp) for r in found] == [
        ("transcripts/a.jsonl", (20_000_000_000, 3)), ("transcripts/b.jsonl", (20_000_000_000, 3)),
        ("reports/r.json", (15_000_000_000, 3)), ("runs/old.jsonl", (10_000_000_000, 3))]


def test_a_symbolic_run_scores_the_first_chains_probe_and_keeps_the_rest_as_context() -> None:
    engine = Engine()
    root = REVIEW / "symbolic"
    run_path = str(root / "runs" / "symbolic_logic_run.jsonl")
    data = Path(run_path).read_bytes()
    run = read_run(engine, run_path, data)
    assert run is not None and (run.kind, run.lane.name) == ("turns", "symbolic_logic")
    assert [(t.role, t.scored, t.location.line) for t in run.turns] == [
        ("premise", False, 1), ("premise", False, 2), ("probe", True, 3),
        ("premise", False, 4), ("premise", False, 5), ("probe", False, 6)]
    cases = str(root / "evals" / "symbolic_logic" / "dev" / "cases.jsonl")
    review = review_transcript(engine, run_path, data, [cases], {})
    assert review is not None
    assert [(t.turn.location.line, t.status, t.category) for t in review.turns] == [
        (1, "context", "syllogism"), (2, "context", "syllogism"), (3, "fail", "syllogism"),
        (4, "context", "syllogism"), (5, "context", "syllogism"), (6, "context", "syllogism")]
    probe = review.turns[2].view
    assert probe is not None
    assert [(f.name, f.code, f.severity_label, f.message) for f in probe.failures] == [
        ("replay_determinism", "SL302", "error", "replay differs: trace_hash kp… != replay kX…")]
    assert review.select(predicate="replay_determinism") == [review.turns[2]]
    assert review.select(category="negation") == []
    # A case-driven lane's own checks (SL018-SL020) count as every case-driven lane's do.
    assert review.failing_counts() == {"premise_recall": 0, "replay_determinism": 1, "proposal_storage": 0,
                                       "case-check-failed": 0, "expression-budget": 0, "expression-failed": 0}
    # A case file's lens for the chain links to the first run's probe.
    runs = find_runs([root], ["runs/*.jsonl"])
    found = latest_outcomes(engine, run.lane, [cases], runs, {run_path: data, cases: Path(cases).read_bytes()})
    assert {k: (v.turn.location.line, v.turn.role, v.view.status, v.view.failed_names()) for k, v in found.items()} == {
        "rv_sym_001": (3, "probe", "fail", ["replay_determinism"])}


def test_each_case_takes_its_newest_run_and_other_lanes_and_case_files_are_skipped(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    shutil.copytree(REVIEW / "workspace", root)
    shutil.copytree(REVIEW / "symbolic" / "runs", root / "runs", dirs_exist_ok=True)
    (root / "runs" / "cases_copy.jsonl").write_bytes((root / CASES).read_bytes())
    for i, rel in enumerate(["runs/run_c.jsonl", "transcripts/run_b.jsonl", "transcripts/run_a.jsonl",
                             "runs/symbolic_logic_run.jsonl", "runs/cases_copy.jsonl"]):
        _stamp(root / rel, 100 + i)  # run_a is newer than run_b here
    engine = Engine()
    runs = find_runs([root], ["runs/*.jsonl", "transcripts/*.jsonl"])
    texts = {r.path: Path(r.path).read_bytes() for r in runs}
    case_path = str((root / CASES).resolve())
    texts[case_path] = Path(case_path).read_bytes()
    lane = engine.lane("deterministic_fluency")
    found = latest_outcomes(engine, lane, [case_path], runs, texts)
    assert {k: (v.run.name, v.turn.location.line, v.view.status, v.runs_with_case) for k, v in found.items()} == {
        "rv_river_001": ("run_a.jsonl", 1, "fail", 2),
        "rv_lamp_002": ("run_a.jsonl", 2, "pass", 3),
        "rv_zephyr_003": ("run_a.jsonl", 3, "pass", 2),
    }
    refs = turn_references(engine, runs, texts, lane)
    assert {k: [(Path(t.path).name, t.location.line, t.role) for t in v] for k, v in refs.items()} == {
        "rv_lamp_002": [("run_c.jsonl", 1, "priming"), ("run_c.jsonl", 2, "prompt"), ("run_a.jsonl", 2, "prompt"),
                        ("run_b.jsonl", 2, "prompt")],
        "rv_river_001": [("run_a.jsonl", 1, "prompt"), ("run_b.jsonl", 1, "prompt")],
        "rv_zephyr_003": [("run_a.jsonl", 3, "prompt"), ("run_b.jsonl", 3, "prompt")],
    }


def test_a_lane_report_is_a_run_of_report_entries() -> None:
    report = FIXTURES / "lsp" / "workspace" / "reports" / "deterministic_fluency_report.json"
    run = read_run(Engine(), str(report), report.read_bytes())
    assert run is not None and (run.kind, run.lane.name) == ("report", "deterministic_fluency")
    assert [(t.case_id, t.role, t.scored, t.location.line, t.surface) for t in run.turns] == [
        ("fl_harbor_003", "report-case", True, 10, "A harbor is a sheltered port. pack-grounded (en_core_spatial_v1)."),
        ("fl_tide_001", "report-case", True, 18, "Tides rise — and fall")]
    # Reviewed without case files, each entry judged with what it carries (its expected_predicates).
    review = review_transcript(Engine(), str(report), report.read_bytes(), [], {})
    assert review is not None
    assert [(t.turn.case_id, t.status, t.view.failed_names() if t.view else None) for t in review.turns] == [
        ("fl_harbor_003", "pass", []), ("fl_tide_001", "fail", ["complete_punctuation"])]


def test_a_one_line_report_is_told_from_its_lane_field(tmp_path: Path) -> None:
    report = tmp_path / "reports" / "r.json"
    report.parent.mkdir()
    report.write_text('{"lane": "multi_sentence_response", "metrics": {}, "cases": [{"case_id": "m1", '
                      '"surface": "One. Two."}]}\n', encoding="utf-8")
    run = read_run(Engine(), str(report), report.read_bytes())
    assert run is not None and (run.kind, run.lane.name) == ("report", "multi_sentence_response")
    assert [(t.case_id, t.location.line, t.location.column) for t in run.turns] == [("m1", 1, 62)]  # the entry starts at column 62


def test_broken_lines_are_skipped_and_the_rest_still_read(tmp_path: Path) -> None:
    run = tmp_path / "transcripts" / "broken.jsonl"
    run.parent.mkdir()
    good = (REVIEW / "workspace" / "transcripts" / "run_b.jsonl").read_text(encoding="utf-8").split("\n")
    run.write_bytes(("\ufeff" + good[0] + "\r\n{not json\r\n\xff\r\n" + good[1] + "\r\n").encode("utf-8", "surrogateescape")
                    .replace(b"\xc3\xbf", b"\xff"))
    read = read_run(Engine(), str(run), run.read_bytes())
    assert read is not None
    assert [(t.case_id, t.location.line) for t in read.turns] == [("rv_river_001", 1), ("rv_lamp_002", 4)]
