"""Value metrics (v2 mean/sum/min/max) fold into a bounded tally: a float-valued case field no
longer takes one tally entry per distinct value, and the results are exact (math.fsum)."""

from __future__ import annotations

import json
import math
from pathlib import Path

from surface_lint.engine import Engine
from surface_lint.engine.compact import CompactOutcomes
from surface_lint.engine.config import Config
from surface_lint.engine.fold import metrics_from_tally
from surface_lint.engine.scoring import lane_signals
from surface_lint.model.findings import Location
from surface_lint.rules.loader import load_lanes

LANE = """
[lane]
name = "vals"
[case_schema.fields.id]
type = "string"
[case_schema.fields.score]
type = "number"

[[predicates]]
name = "ends"
code = "VT1"
kind = "ends_with"
[predicates.params]
endings = ["."]

[[metrics]]
name = "ends_rate"
passing = ["ends"]

[[metrics]]
name = "mean_score"
kind = "mean"
value = "case.score"

[[metrics]]
name = "sum_score"
kind = "sum"
value = "case.score"

[[metrics]]
name = "min_score_when_ended"
kind = "min"
value = "case.score"
passing = ["ends"]

[[metrics]]
name = "max_score"
kind = "max"
value = "case.score"
"""


def _lane(tmp_path: Path) -> tuple[Path, Config]:
    path = tmp_path / "vals.toml"
    path.write_text(LANE, "utf-8")
    return path, Config(lane_files=[path])


def test_distinct_floats_take_a_bounded_tally_and_sum_exactly(tmp_path: Path) -> None:
    _, config = _lane(tmp_path)
    lane = load_lanes(extra_files=config.lane_files).lanes["vals"]
    names = lane_signals(lane)
    outcomes = CompactOutcomes(lane)
    at = Location("t.jsonl", 1, 1, 1, 2)
    scores = [0.1 * i + 1e-9 * (i % 13) for i in range(5000)]
    for i, x in enumerate(scores):
        signals = tuple(x if n == "=case.score" else (i % 2 == 0) for n in names)
        outcomes.add(f"c{i}", signals, (), at, i)
    summary = outcomes.summary()
    assert len(summary.tally) == 2  # ends or not: one entry each, whatever the 5,000 values
    metrics = metrics_from_tally(lane, summary.tally, summary.values)
    assert metrics == {
        "ends_rate": 0.5,
        "max_score": round(max(scores), 4),
        "mean_score": round(math.fsum(scores) / 5000, 4),
        "min_score_when_ended": 0.0,
        "sum_score": round(math.fsum(scores), 4),
    }
    assert metrics["sum_score"] == 1249750.0


def test_value_metrics_end_to_end_keep_ints_ints_and_the_last_record_of_a_case(tmp_path: Path) -> None:
    path, config = _lane(tmp_path)
    cases = tmp_path / "cases.jsonl"
    values = [3, 1, 4, 1, 5, 9, 2, 6]
    cases.write_text("".join(json.dumps({"id": f"c{i}", "score": v}) + "\n" for i, v in enumerate(values))
                     + json.dumps({"id": "f1", "score": 0.1}) + "\n" + json.dumps({"id": "f2", "score": 0.2}) + "\n",
                     "utf-8")
    turns = tmp_path / "turns.jsonl"
    lines = [{"case_id": f"c{i}", "surface": "Done." if i % 2 else "Open"} for i in range(len(values))]
    lines.append({"case_id": "c0", "surface": "Again."})  # replaces c0's first record (SL005 warning)
    turns.write_text("".join(json.dumps(t) + "\n" for t in lines), "utf-8")
    ints = Engine(config).score("vals", [str(cases)], [str(turns)])
    assert ints.metrics == {"ends_rate": 0.625, "max_score": 9, "mean_score": 3.875, "min_score_when_ended": 1,
                            "sum_score": 31}
    assert isinstance(ints.metrics["sum_score"], int) and isinstance(ints.metrics["max_score"], int)
    turns.write_text("".join(json.dumps(t) + "\n" for t in [*lines, {"case_id": "f1", "surface": "A."},
                                                             {"case_id": "f2", "surface": "B."}]), "utf-8")
    mixed = Engine(config).score("vals", [str(cases)], [str(turns)])
    # 31 + 0.1 + 0.2 summed exactly is 31.3 (a naive left-to-right float sum is too: 0.1 + 0.2 is not 0.3).
    assert mixed.metrics == {"ends_rate": 0.7, "max_score": 9, "mean_score": 3.13, "min_score_when_ended": 0.1,
                             "sum_score": 31.3}
