"""A case-driven lane's `thresholds` metric: one threshold record per check, and per category
for a check on a `by` metric (named `metric.category`), on the real grammatical_coverage holdouts."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from surface_lint.cli.main import main as cli_main

ROOT = Path(__file__).resolve().parents[2]
LANE = ROOT.parent / "shared" / "corpus" / "lanes" / "grammatical_coverage"


def test_a_check_on_a_by_metric_gives_one_record_per_category(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    if not LANE.is_dir():
        pytest.fail(f"the lane corpus is not at {LANE}")
    text = (ROOT / "rules" / "grammatical_coverage.toml").read_text(encoding="utf-8")
    text = text.replace('name = "grammatical_coverage"', 'name = "gc_gate"', 1).replace('code = "SLC4', 'code = "SLX4')
    text += ('\n[[metrics]]\nname = "gate"\nkind = "thresholds"\nchecks = [\n'
             '  { metric = "by_construction", op = ">=", value = 0.5 },\n'
             '  { metric = "accuracy", op = ">=", value = 0.8 },\n]\n')
    lane_file = tmp_path / "gc_gate.toml"
    lane_file.write_text(text, encoding="utf-8")
    code = cli_main(["--lane", "gc_gate", "--lane-file", str(lane_file),
                     "--cases", str(LANE / "cases" / "holdouts" / "v1" / "cases.jsonl"),
                     "--transcripts", str(LANE / "captures" / "holdouts_v1.jsonl"), "--output-format", "json"])
    report = json.loads(capsys.readouterr().out)
    assert code == 1
    assert (report["threshold_set"], report["passed"], report["metrics"]["gate"]) == ("gate", False, False)
    assert [(t["metric"], t["actual"], t["passed"]) for t in report["thresholds"]] == [
        *[(f"by_construction.C{i:02d}", 1.0, True) for i in range(1, 7)],
        ("by_construction.C07", 0.0, False),
        ("by_construction.C08", 0.25, False),
        *[(f"by_construction.C{i:02d}", 1.0, True) for i in range(9, 14)],
        ("accuracy", 45 / 52, True),
    ]
