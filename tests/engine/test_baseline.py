"""The baseline ratchet: fail when a metric falls below a previous run; --update-baseline writes it."""

from __future__ import annotations

import json
from pathlib import Path

from reporters_support import CASES, LANE, NEW, OLD, cli, lane_run


def write_run(path: Path, n: int, verbless: int) -> Path:
    """n clean fluency turns, the last `verbless` of them without a verb (a warning, not a threshold)."""
    with path.open("w", encoding="utf-8") as fh:
        for i in range(n):
            surface = "Salt and pepper, side by side." if i >= n - verbless else f"Lamp {i} gives light."
            fh.write(json.dumps({"case_id": f"b{i:02d}", "surface": surface, "grounding_source": "none"}) + "\n")
    return path


def test_a_metric_below_the_baseline_fails_even_when_thresholds_pass(tmp_path: Path) -> None:
    good = write_run(tmp_path / "good.jsonl", 20, 0)
    worse = write_run(tmp_path / "worse.jsonl", 20, 1)
    baseline = tmp_path / "baseline.json"
    assert cli("--lane", LANE, "--transcripts", str(good), "--output-format", "json", "-o", str(baseline)).code == 0
    run = cli("--lane", LANE, "--transcripts", str(worse), "--baseline", str(baseline))
    assert run.code == 1
    assert "result: PASS" in run.out  # the thresholds themselves pass (0.95 >= 0.9)
    assert run.err.splitlines() == [
        f"baseline {baseline}: 1 metric(s) below it",
        "  finite_predicate_shape_rate: 1.0000 -> 0.9500 (-0.0500)  REGRESSED",
    ]
    # Within the tolerance it passes.
    run = cli("--lane", LANE, "--transcripts", str(worse), "--baseline", str(baseline), "--baseline-tolerance", "0.05")
    assert run.code == 0
    assert run.err.splitlines()[0] == f"baseline {baseline}: no metric below it (tolerance 0.05)"
    # The same run against itself: nothing below.
    assert cli("--lane", LANE, "--transcripts", str(good), "--baseline", str(baseline)).code == 0


def test_markdown_and_junit_show_the_baseline(tmp_path: Path) -> None:
    baseline = tmp_path / "baseline.json"
    good = str(write_run(tmp_path / "good.jsonl", 20, 0))
    cli("--lane", LANE, "--transcripts", good, "--output-format", "json", "-o", str(baseline))
    worse = str(write_run(tmp_path / "worse.jsonl", 20, 1))
    md = cli("--lane", LANE, "--transcripts", worse, "--baseline", str(baseline), "--output-format", "markdown").out
    assert "| `finite_predicate_shape_rate` | 0.9500 | &gt;= 0.9 | ✅ pass | 1.0000 (-0.0500) ❌ below |" in md
    assert "| `cases` | 20 |  |  | 20 |" in md
    assert f"Baseline `{baseline}`: **1 metric(s) below it.**" in md
    xml = cli("--lane", LANE, "--transcripts", worse, "--baseline", str(baseline), "--output-format", "junit").out
    assert '<testsuite name="deterministic_fluency.baseline" tests="7" failures="1"' in xml


def test_update_baseline_writes_the_json_output_deterministically(tmp_path: Path) -> None:
    baseline = tmp_path / "baseline.json"
    run = lane_run("text", NEW, "--baseline", str(baseline), "--update-baseline")
    assert run.code == 1  # the thresholds still decide
    assert run.err == f"surface-lint: wrote the baseline {baseline}\n"
    written = baseline.read_bytes()
    assert written == lane_run("json").out.encode("utf-8")
    # Updating again from the same input: the same bytes, and no metric below.
    again = lane_run("text", NEW, "--baseline", str(baseline), "--update-baseline")
    assert baseline.read_bytes() == written
    assert again.err.splitlines()[0] == f"baseline {baseline}: no metric below it"
    # Updating is accepting: a worse run is written over it, and says what fell.
    worse = lane_run("text", OLD, "--baseline", str(baseline), "--update-baseline")
    assert worse.err.splitlines()[0] == f"baseline {baseline}: 1 metric(s) below it"
    assert baseline.read_bytes() == lane_run("json", OLD).out.encode("utf-8")


def test_the_real_runtime_run_falls_below_the_committed_report(corpus: Path) -> None:
    committed = corpus / "reports" / "symbolic_logic" / "v1_public_20260522T232200Z.json"
    runtime = corpus / "runtime" / "reports" / "symbolic_logic_public_v1.json"
    run = cli("--lane", "symbolic_logic", "--transcripts", str(runtime), "--baseline", str(committed))
    assert run.code == 1
    assert run.err.splitlines() == [
        f"baseline {committed}: 3 metric(s) below it",
        "  all_three_pass_rate: 1.0000 -> 0.6667 (-0.3333)  REGRESSED",
        "  overall_pass: true -> false  REGRESSED",
        "  proposal_storage: 1.0000 -> 0.6667 (-0.3333)  REGRESSED",
    ]
    # The older report shape (`case_details`, no `lane`) works as a baseline too.
    older = corpus / "reports" / "symbolic_logic" / "v1_public_20260516T193134Z.json"
    run = cli("--lane", "symbolic_logic", "--transcripts", str(committed), "--baseline", str(older))
    assert run.code == 0


def test_baseline_errors_are_usage_errors(tmp_path: Path) -> None:
    assert lane_run("text", NEW, "--update-baseline").code == 2
    missing = lane_run("text", NEW, "--baseline", str(tmp_path / "none.json"))
    assert missing.code == 2 and "cannot read the baseline" in missing.err
    other = tmp_path / "other.json"
    other.write_text(json.dumps({"lane": "symbolic_logic", "metrics": {}}), "utf-8")
    run = lane_run("text", NEW, "--baseline", str(other))
    assert run.code == 2 and "the baseline is of lane symbolic_logic" in run.err
    bad = tmp_path / "bad.json"
    bad.write_text("[]", "utf-8")
    assert lane_run("text", NEW, "--baseline", str(bad)).code == 2
    assert cli("--lane", LANE, "--cases", CASES, "--transcripts", NEW, "--baseline", str(other),
               "--baseline-tolerance", "-1").code == 2
