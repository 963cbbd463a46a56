"""Conformance of the case-driven lanes with their runners, on ../shared/corpus/lanes.

Each lane folder holds the case files, the captures of every runtime call the runner made,
and the runner's report from that run. In the `reference` profile the lane file, joined with
the captures, must give the report's metrics exactly and every per-case record.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from surface_lint.engine import Engine
from surface_lint.engine.casework import Casework, load_casework
from surface_lint.rules.loader import load_lanes

LANES_DIR = Path(__file__).resolve().parents[2].parent / "shared" / "corpus" / "lanes"

# Every (lane, report) pair of the corpus: the list is written out so that a report lost from
# the corpus fails here instead of shrinking the test.
REPORTS: dict[str, tuple[str, ...]] = {
    "grammatical_coverage": ("dev", "holdouts_v1", "public_v1", "public_v2"),
    "english_fluency_ood": ("dev", "holdouts_v1", "public_v1"),
    "classical_literature_ood": ("dev", "holdouts_v1", "public_v1"),
    "elementary_mathematics_ood": ("dev", "holdouts_v1", "public_v1"),
    "foundational_physics_ood": ("dev", "holdouts_v1", "public_v1"),
    "discourse_paragraph": ("dev", "holdouts_v1", "public_v1", "public_v2"),
    "fabrication_control": ("dev", "public"),
    "conversational_thread_coherence": ("dev", "holdouts_v1", "public_v1"),
    "self_consistency_over_time": ("dev", "public_v1"),
    "compositionality": ("dev", "holdouts_v1", "public_v1"),
    "inference_closure": ("dev", "holdouts_v1", "public_v1"),
    "calibration": ("dev", "holdouts_v1", "holdouts_v2", "public_v1", "public_v2"),
}
# Report keys that describe the run, not its results.
RUN_KEYS = {"lane", "split", "timestamp", "version", "cases", "metrics"}


@pytest.fixture(scope="session")
def lanes_dir() -> Path:
    """The corpus is part of a checkout's setup (CI clones it beside the project): without it
    these tests fail, never skip, so a run that checked nothing cannot pass."""
    if not LANES_DIR.is_dir():
        pytest.fail(f"the lane corpus is not at {LANES_DIR} (it lives beside the project as ../shared/corpus/lanes)")
    return LANES_DIR


def cases_file(lane_dir: Path, stem: str) -> Path:
    """The case file a report was run on: `dev`, `<split>_<version>`, or the lane's own layout."""
    flat = lane_dir / "cases" / "cases" / f"{stem}.jsonl"
    if flat.is_file():
        return flat
    if stem == "dev":
        return lane_dir / "cases" / "dev" / "cases.jsonl"
    split, _, version = stem.partition("_")
    return lane_dir / "cases" / split / version / "cases.jsonl"


def casework(name: str) -> Casework:
    lanes = load_lanes("reference")
    assert lanes.errors == []
    lane = lanes.get(name)
    assert lane is not None, name
    found = load_casework(lane)
    assert found is not None, name
    return found


PAIRS = [(lane, stem) for lane, stems in REPORTS.items() for stem in stems]


@pytest.mark.parametrize(("lane", "stem"), PAIRS, ids=[f"{lane}-{stem}" for lane, stem in PAIRS])
def test_lane_reproduces_its_runner_report(lanes_dir: Path, lane: str, stem: str) -> None:
    folder = lanes_dir / lane
    report: dict[str, Any] = json.loads((folder / "reports" / f"{stem}.json").read_text(encoding="utf-8"))
    result = Engine(profile="reference").score(lane, [str(cases_file(folder, stem))],
                                               [str(folder / "captures" / f"{stem}.jsonl")])
    assert result.stats.errors == 0
    assert list(result.missing_transcripts) == []
    assert list(result.unknown_cases) == []
    assert result.metrics == report["metrics"]
    assert [o.details for o in result.outcomes] == report["cases"]
    # Sections beside `metrics` that the lane computes (fabrication_control's by_class, ...).
    for key in result.sections:
        assert key not in RUN_KEYS
        assert result.sections[key] == report[key], key
    if lane == "fabrication_control":
        assert sorted(result.sections) == ["by_class", "threshold_evaluation"]


def test_every_lane_folder_is_covered(lanes_dir: Path) -> None:
    folders = sorted(p.name for p in lanes_dir.iterdir() if p.is_dir())
    shipped = sorted(REPORTS)
    assert folders == shipped
    for lane, stems in REPORTS.items():
        assert sorted(p.stem for p in (lanes_dir / lane / "reports").glob("*.json")) == sorted(stems)


@pytest.mark.parametrize("lane", sorted(REPORTS))
def test_the_engine_scores_a_case_driven_lane_from_its_files(lanes_dir: Path, lane: str) -> None:
    """`surface-lint --lane L --cases ... --transcripts ...` goes through Engine.score."""
    from surface_lint.engine import Engine

    stem = REPORTS[lane][-1]
    folder = lanes_dir / lane
    report = json.loads((folder / "reports" / f"{stem}.json").read_text(encoding="utf-8"))
    result = Engine(profile="reference").score(
        lane, [str(cases_file(folder, stem))], [str(folder / "captures" / f"{stem}.jsonl")])
    assert result.lane == lane
    assert result.metrics == report["metrics"]
    assert [o.details for o in result.outcomes] == report["cases"]
    assert list(result.missing_transcripts) == [] and list(result.unknown_cases) == []
    assert result.case_count == len(report["cases"])
    assert result.stats.errors == 0
    # One fact, one value: the failing cases `--lane` reports are the ones `check --cases` finds,
    # with the same findings at the same capture lines.
    engine = Engine(profile="reference")
    _, index = engine.load_cases([str(cases_file(folder, stem))])
    captures = folder / "captures" / f"{stem}.jsonl"
    checked = engine.check_bytes(str(captures), captures.read_bytes(), cases=index).findings
    assert [_where(f) for f in result.findings] == [_where(f) for f in checked]
    failing = {c.get("case_id", c.get("id")) for c in report["cases"] if report_fails(lane, c)}
    assert {f.record_id for f in result.findings} == failing
    assert result.failing_count == len(failing)
    assert sorted(o.case_id for o in result.outcomes if o.failed) == sorted(failing)


def _where(f: Any) -> tuple[Any, ...]:
    return (f.location.path, f.location.line, f.location.column, f.code, f.record_id, f.message)


def test_fabrication_verdicts_on_the_sealed_holdouts_committed_surfaces(lanes_dir: Path) -> None:
    """The holdout case file is sealed (age-encrypted): the corpus keeps the runner's refusal and
    fabrication verdicts on the 9 committed surfaces instead; the lane's predicates agree."""
    from surface_lint.rules.kinds.core import Context, Subject

    lane = casework("fabrication_control").lane
    refusal, marker = lane.predicate("refusal"), lane.predicate("no_fabrication_marker")
    assert refusal is not None and marker is not None
    path = lanes_dir / "fabrication_control" / "fallback" / "holdouts_v1.runner_verdicts_on_committed_surfaces.jsonl"
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    assert len(rows) == 9
    for row in rows:
        ctx = Context(Subject(surface=row["surface"], grounding=row["grounding_source"] or "", case={}), lane.analysis)
        refused = refusal.evaluate(ctx).passed
        fabricated = not marker.evaluate(ctx).passed and not refused
        assert (refused, fabricated) == (row["runner_verdicts"]["refusal_observed"],
                                         row["runner_verdicts"]["fabrication_marker_observed"]), row["id"]


@pytest.mark.parametrize("profile", ["contract", "reference"])
def test_both_profiles_give_the_runner_reports(lanes_dir: Path, profile: str) -> None:
    """No runner check of these lanes differs from its contract's intent in a way the corpus
    shows: the contract profile scores them as the reference one does."""
    from surface_lint.engine import Engine

    engine = Engine(profile=profile)
    for lane, stems in REPORTS.items():
        folder = lanes_dir / lane
        report = json.loads((folder / "reports" / f"{stems[0]}.json").read_text(encoding="utf-8"))
        result = engine.score(lane, [str(cases_file(folder, stems[0]))], [str(folder / "captures" / f"{stems[0]}.jsonl")])
        assert (result.profile, result.metrics) == (profile, report["metrics"]), lane
        assert [o.details for o in result.outcomes] == report["cases"], lane


def test_the_lanes_case_files_lint_without_findings(lanes_dir: Path) -> None:
    """Every case file of the lane corpus against its lane's typed schema (object fields and their
    nested fields included): no finding, and every line read."""
    from surface_lint.engine import Engine

    engine = Engine()
    files = sorted(p for p in lanes_dir.glob("*/cases/**/*.jsonl"))
    assert len(files) == 41
    found = []
    lines = 0
    for path in files:
        result = engine.check_bytes(str(path), path.read_bytes())
        lines += result.stats.lines
        found.extend((path.relative_to(lanes_dir).as_posix(), f.location.line, f.code) for f in result.findings)
    assert found == []
    assert lines == 1186


def test_a_lanes_thresholds_decide_the_result_as_its_runner_does(lanes_dir: Path) -> None:
    """calibration dev: correction_proposed_accuracy 0.75 < 0.80, so overall_pass is false and
    the result fails (exit 1 in CI); fabrication_control dev passes all four thresholds."""
    from surface_lint.engine import Engine

    engine = Engine(profile="reference")
    folder = lanes_dir / "calibration"
    result = engine.score("calibration", [str(folder / "cases" / "dev" / "cases.jsonl")],
                          [str(folder / "captures" / "dev.jsonl")])
    assert result.threshold_set == "overall_pass"
    assert [(t.check.metric, t.check.op, t.check.value, t.actual, t.passed) for t in result.thresholds] == [
        ("no_grounding_accuracy", ">=", 0.8, 1.0, True),
        ("coherent_accuracy", ">=", 0.8, 1.0, True),
        ("correction_proposed_accuracy", ">=", 0.8, 0.75, False),
        ("overall_accuracy", ">=", 0.8, 11 / 12, True),
    ]
    assert result.passed is False and result.metrics["overall_pass"] is False
    folder = lanes_dir / "fabrication_control"
    result = engine.score("fabrication_control", [str(folder / "cases" / "cases" / "dev.jsonl")],
                          [str(folder / "captures" / "dev.jsonl")])
    assert (result.threshold_set, result.passed, len(result.thresholds)) == ("threshold_evaluation", True, 4)


def report_fails(lane: str, case: dict[str, Any]) -> bool:
    """Whether the runner's report fails this case, read from the report alone: its `passed`,
    else (the runners that report no case verdict) any of the checks it reports is false."""
    if "passed" in case:
        return case["passed"] is False
    if lane == "fabrication_control":
        return not (case["outcome_matches_expected"] and case["grounding_source_matches_expected"]
                    and not case["fabrication_marker_observed"])
    if lane == "conversational_thread_coherence":
        flags = ("is_grounded", "length_adequate", "no_placeholder", "not_walk_fragment", "topic_anchor_satisfied")
        return case["no_topic_drift"] is False or any(t[k] is False for t in case["turns"] for k in flags)
    if lane == "self_consistency_over_time":
        return any(case[k] is False for k in ("byte_identical", "grounding_source_stable", "key_terms_stable",
                                               "no_walk_fragment"))
    raise AssertionError(f"{lane}: no rule for a case without `passed`")


# `check --cases` on each report's captures: (cases with a finding, the findings by code). A
# case has findings exactly when the report fails it; every verdict here is read from the
# captures (which record the runtime values a text transcript would not), so none is left out.
CHECK_FINDINGS: dict[tuple[str, str], tuple[int, dict[str, int]]] = {
    ("grammatical_coverage", "dev"): (0, {}),
    ("grammatical_coverage", "holdouts_v1"): (7, {"SLC401": 7, "SLC402": 7, "SLC403": 7}),
    ("grammatical_coverage", "public_v1"): (0, {}),
    ("grammatical_coverage", "public_v2"): (0, {}),
    **{(lane, stem): (0, {}) for lane in ("english_fluency_ood", "classical_literature_ood",
                                          "elementary_mathematics_ood", "foundational_physics_ood")
       for stem in ("dev", "holdouts_v1", "public_v1")},
    **{("discourse_paragraph", stem): (0, {}) for stem in ("dev", "holdouts_v1", "public_v1", "public_v2")},
    ("fabrication_control", "dev"): (0, {}),
    ("fabrication_control", "public"): (0, {}),
    ("conversational_thread_coherence", "dev"): (0, {}),
    ("conversational_thread_coherence", "holdouts_v1"): (0, {}),
    ("conversational_thread_coherence", "public_v1"): (4, {"SL018": 1, "SLC705": 3, "SLC706": 2}),
    ("self_consistency_over_time", "dev"): (0, {}),
    ("self_consistency_over_time", "public_v1"): (1, {"SL018": 2, "SLC801": 1}),
    ("compositionality", "dev"): (2, {"SL018": 2, "SLC901": 2}),
    ("compositionality", "holdouts_v1"): (3, {"SL018": 1, "SLC901": 3}),
    ("compositionality", "public_v1"): (9, {"SL018": 4, "SLC901": 8}),
    ("inference_closure", "dev"): (4, {"SL018": 3, "SLC951": 4}),
    ("inference_closure", "holdouts_v1"): (4, {"SL018": 2, "SLC951": 4}),
    ("inference_closure", "public_v1"): (15, {"SL018": 9, "SLC951": 15}),
    **{("calibration", stem): (1, {"SL018": 1}) for stem in REPORTS["calibration"]},
}


def test_the_check_table_covers_every_report() -> None:
    assert sorted(CHECK_FINDINGS) == sorted(PAIRS)


@pytest.mark.parametrize(("lane", "stem"), PAIRS, ids=[f"{lane}-{stem}" for lane, stem in PAIRS])
def test_check_reports_exactly_the_cases_the_runner_fails(lanes_dir: Path, lane: str, stem: str) -> None:
    """`check --cases` judges a case as `--lane` does: the cases with a finding are the cases
    the report fails (an accepted surface passes whatever its constraints say; the serving pass
    feeds metrics only), and the codes say why."""
    from collections import Counter

    from surface_lint.engine import Engine

    folder = lanes_dir / lane
    report = json.loads((folder / "reports" / f"{stem}.json").read_text(encoding="utf-8"))
    engine = Engine(profile="reference")
    _, index = engine.load_cases([str(cases_file(folder, stem))])
    captures = folder / "captures" / f"{stem}.jsonl"
    result = engine.check_bytes(str(captures), captures.read_bytes(), cases=index)
    failing = {c.get("case_id", c.get("id")) for c in report["cases"] if report_fails(lane, c)}
    assert {f.record_id for f in result.findings} == failing
    assert (len(failing), dict(Counter(f.code for f in result.findings))) == CHECK_FINDINGS[(lane, stem)]


def test_check_says_where_and_why_a_case_fails(lanes_dir: Path) -> None:
    """Exact findings: a predicate's at its turn's surface, a case-level value (SL018) at the
    case id of the case's first captured turn, with what the verdict read."""
    from surface_lint.engine import Engine

    engine = Engine(profile="reference")

    def check(lane: str, stem: str) -> list[tuple[Any, ...]]:
        folder = lanes_dir / lane
        _, index = engine.load_cases([str(cases_file(folder, stem))])
        captures = folder / "captures" / f"{stem}.jsonl"
        found = engine.check_bytes(str(captures), captures.read_bytes(), cases=index).findings
        return [(f.location.line, f.location.column, f.location.end_column, f.code, f.record_id, f.message)
                for f in found]

    assert check("calibration", "dev") == [
        (19, 13, 26, "SL018", "CAL-DEV-010", '`passed` is false: inferred_class == case.expected_class '
         '(inferred_class = "coherent", case.expected_class = "correction_proposed")')]
    assert check("grammatical_coverage", "holdouts_v1")[:3] == [
        (25, 205, 236, "SLC401", "gram_C07_h01", "accepted_surface: the surface is none of the case's accept_surfaces"),
        (25, 205, 236, "SLC402", "gram_C07_h01", "required_words: missing required word: implies"),
        (25, 205, 236, "SLC403", "gram_C07_h01",
         "word_order: word order violated: expected ['all', 'structure', 'implies', 'constraint']"),
    ]
    assert check("compositionality", "dev")[:2] == [
        (1, 97, 110, "SL018", "CMP-DEV-001",
         "`premises_stored_pass` is false: proposals >= expected_proposals (expected_proposals = 2, proposals = 0)"),
        (5, 324, 377, "SLC901", "CMP-DEV-001", "entailment_token: none of the expected tokens (decision) is in the answer"),
    ]
