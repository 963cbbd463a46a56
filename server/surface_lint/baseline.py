"""The baseline ratchet: a lane's metrics must not fall below a previous run's.

A baseline is a previous `--lane --output-format json` output (a runtime lane report works too:
only `metrics`, and `lane` when present, are read). `--update-baseline` writes the new run in
that same JSON, which is deterministic (sorted keys, no timestamps).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .diff import MetricDelta, compare_metrics
from .engine import LaneResult, UsageError
from .lanes import Lane


@dataclass(frozen=True)
class BaselineReport:
    path: str
    tolerance: float
    deltas: list[MetricDelta]

    @property
    def regressions(self) -> list[MetricDelta]:
        return [d for d in self.deltas if d.regressed]

    @property
    def passed(self) -> bool:
        return not self.regressions

    def regression_lines(self) -> list[str]:
        tol = f" (tolerance {self.tolerance:g})" if self.tolerance else ""
        return [f"{d.describe()} is below the baseline {self.path}{tol}" for d in self.regressions]

    def render_text(self) -> str:
        head = f"baseline {self.path}: " + (
            "no metric below it" if self.passed else f"{len(self.regressions)} metric(s) below it")
        if self.tolerance:
            head += f" (tolerance {self.tolerance:g})"
        lines = [head]
        for d in self.deltas:
            if d.regressed or d.improved:
                lines.append(f"  {d.describe()}  {'REGRESSED' if d.regressed else 'improved'}")
        return "\n".join(lines) + "\n"


def read_baseline(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text("utf-8"))
    except OSError as exc:
        raise UsageError(f"{path}: cannot read the baseline: {exc.strerror}") from None
    except (ValueError, UnicodeDecodeError) as exc:
        raise UsageError(f"{path}: the baseline is not JSON: {exc}") from None
    if not isinstance(data, dict) or not isinstance(data.get("metrics"), dict):
        raise UsageError(f"{path}: a baseline is a `--lane --output-format json` output (no `metrics` object)")
    return data


def check_baseline(path: Path, result: LaneResult, lane: Lane, tolerance: float) -> BaselineReport:
    if tolerance < 0:
        raise UsageError("--baseline-tolerance must be 0 or more")
    data = read_baseline(path)
    if isinstance(data.get("lane"), str) and data["lane"] != result.lane:
        raise UsageError(f"{path}: the baseline is of lane {data['lane']}, this run of {result.lane}")
    deltas = compare_metrics(lane, data["metrics"], result.metrics, result.threshold_set, tolerance)
    return BaselineReport(str(path), tolerance, deltas)


def write_baseline(path: Path, result: LaneResult) -> None:
    from .reporters.json_format import render_lane

    path.write_text(render_lane(result), encoding="utf-8")
