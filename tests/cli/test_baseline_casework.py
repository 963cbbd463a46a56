"""`--lane --baseline` on every case-driven shipped lane: a metric of the lane's
[[casework.metrics]] (a category of a `by` metric on its own) that fell below the baseline is
named and the run exits 1.

The baseline is a real scored run of the lane's dev split (`--update-baseline`); the run
checked against it is the same captures with one passing case's records edited
(tests/cli/casework_support.py).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from casework_support import CASE_DRIVEN, dev_captures, dev_cases, flipped_captures
from cli_support import cli

BELOW: dict[str, str] = {
    "calibration": (
        "baseline base.json: 2 metric(s) below it\n"
        "  no_grounding_accuracy: 1.0000 -> 0.7500 (-0.2500)  REGRESSED\n"
        "  overall_accuracy: 0.9167 -> 0.8333 (-0.0834)  REGRESSED\n"),
    "compositionality": (
        "baseline base.json: 2 metric(s) below it\n"
        "  all_pass_rate: 0.3333 -> 0.0000 (-0.3333)  REGRESSED\n"
        "  compositional_recall_rate: 0.3333 -> 0.0000 (-0.3333)  REGRESSED\n"),
    "conversational_thread_coherence": (
        "baseline base.json: 2 metric(s) below it\n"
        "  length_adequate_rate: 1.0000 -> 0.4286 (-0.5714)  REGRESSED\n"
        "  not_walk_fragment_rate: 1.0000 -> 0.4286 (-0.5714)  REGRESSED\n"),
    "discourse_paragraph": (
        "baseline base.json: 1 metric(s) below it\n"
        "  accuracy: 1.0000 -> 0.0000 (-1.0000)  REGRESSED\n"),
    # fabrication_rate is checked with `<=` in the lane's thresholds: up is the wrong way.
    "fabrication_control": (
        "baseline base.json: 2 metric(s) below it\n"
        "  fabrication_rate: 0.0000 -> 0.0833 (+0.0833)  REGRESSED\n"
        "  refusal_recall: 1.0000 -> 0.9167 (-0.0833)  REGRESSED\n"),
    "grammatical_coverage": (
        "baseline base.json: 3 metric(s) below it\n"
        "  accuracy: 1.0000 -> 0.9756 (-0.0244)  REGRESSED\n"
        "  by_construction.C01: 1.0000 -> 0.7500 (-0.2500)  REGRESSED\n"
        "  serving_accuracy: 0.3415 -> 0.3171 (-0.0244)  REGRESSED\n"),
    "inference_closure": (
        "baseline base.json: 2 metric(s) below it\n"
        "  all_pass_rate: 0.2000 -> 0.0000 (-0.2000)  REGRESSED\n"
        "  derived_recall_rate: 0.2000 -> 0.0000 (-0.2000)  REGRESSED\n"),
    "self_consistency_over_time": (
        "baseline base.json: 2 metric(s) below it\n"
        "  key_terms_stable_rate: 1.0000 -> 0.5000 (-0.5000)  REGRESSED\n"
        "  no_walk_fragment_rate: 1.0000 -> 0.5000 (-0.5000)  REGRESSED\n"),
}
# The four lanes extending grammatical_coverage: 13 cases of 13 constructions, the first one flipped.
for _lane in ("classical_literature_ood", "elementary_mathematics_ood", "english_fluency_ood", "foundational_physics_ood"):
    BELOW[_lane] = (
        "baseline base.json: 3 metric(s) below it\n"
        "  accuracy: 1.0000 -> 0.9231 (-0.0769)  REGRESSED\n"
        "  by_construction.C01: 1.0000 -> 0.0000 (-1.0000)  REGRESSED\n"
        "  serving_accuracy: 0.3077 -> 0.2308 (-0.0769)  REGRESSED\n")
# Lanes whose dev split already fails their own thresholds: exit 1 with or without a baseline.
FAILING_THRESHOLDS = {"calibration", "compositionality", "inference_closure"}


def _baseline(corpus: Path, lane: str, folder: Path) -> list[str]:
    """Writes base.json from the real dev run; the arguments that score the edited captures."""
    lanes = corpus / "lanes"
    cases = str(dev_cases(lanes, lane))
    wrote = cli("--lane", lane, "--cases", cases, "--transcripts", str(dev_captures(lanes, lane)),
                "--baseline", "base.json", "--update-baseline", "-o", "report.txt", cwd=folder)
    assert wrote.err == "surface-lint: wrote the baseline base.json\n"
    flipped_captures(lanes, lane, folder / "new.jsonl")
    return ["--lane", lane, "--cases", cases, "--transcripts", "new.jsonl", "--baseline", "base.json",
            "-o", "report.txt"]


def test_every_case_driven_lane_has_its_expected_message() -> None:
    assert sorted(BELOW) == CASE_DRIVEN


@pytest.mark.parametrize("lane", CASE_DRIVEN)
def test_a_fallen_metric_is_below_the_baseline(lane: str, corpus: Path, tmp_path: Path) -> None:
    run = cli(*_baseline(corpus, lane, tmp_path), cwd=tmp_path)
    assert (run.code, run.out, run.err) == (1, "", BELOW[lane])


@pytest.mark.parametrize("lane", CASE_DRIVEN)
def test_the_baseline_run_itself_is_not_below_it(lane: str, corpus: Path, tmp_path: Path) -> None:
    _baseline(corpus, lane, tmp_path)
    run = cli("--lane", lane, "--cases", str(dev_cases(corpus / "lanes", lane)), "--transcripts",
              str(dev_captures(corpus / "lanes", lane)), "--baseline", "base.json", "-o", "report.txt", cwd=tmp_path)
    assert (run.code, run.out, run.err) == (1 if lane in FAILING_THRESHOLDS else 0, "",
                                            "baseline base.json: no metric below it\n")


def test_a_tolerance_lets_a_small_fall_pass_and_names_the_category_that_fell_further(
        corpus: Path, tmp_path: Path) -> None:
    run = cli(*_baseline(corpus, "grammatical_coverage", tmp_path), "--baseline-tolerance", "0.03", cwd=tmp_path)
    assert (run.code, run.out, run.err) == (1, "", (
        "baseline base.json: 1 metric(s) below it (tolerance 0.03)\n"
        "  by_construction.C01: 1.0000 -> 0.7500 (-0.2500)  REGRESSED\n"))
