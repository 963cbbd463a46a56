"""JSON output: sorted keys, no timestamps; the lane's per-case details match the runner's."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from ..engine import LaneResult

if TYPE_CHECKING:
    from . import CheckRun


def dumps(obj: Any) -> str:
    return json.dumps(obj, sort_keys=True, indent=2, ensure_ascii=False) + "\n"


def check_payload(run: CheckRun) -> dict[str, Any]:
    return {
        "tool": "surface-lint",
        "profile": run.profile,
        "files": run.files,
        "counts": {
            "lines": run.lines,
            "records": run.records,
            "errors": run.errors,
            "blank": run.blank,
            "skipped": run.skipped,
            "findings": len(run.findings),
        },
        "findings": [f.to_dict() for f in run.findings],
    }


def render_check(run: CheckRun, colour: bool = False) -> str:
    return dumps(check_payload(run))


def lane_payload(result: LaneResult) -> dict[str, Any]:
    return {
        "tool": "surface-lint",
        "lane": result.lane,
        "version": result.version,
        "profile": result.profile,
        "threshold_set": result.threshold_set,
        "headline": result.headline,
        "metrics": result.metrics,
        "metric_aliases": result.metric_aliases,
        "thresholds": [
            {
                "metric": t.check.metric,
                "op": t.check.op,
                "value": t.check.value,
                "tolerance": t.check.tolerance,
                "actual": t.actual,
                "passed": t.passed,
            }
            for t in result.thresholds
        ],
        "passed": result.passed,
        "cases": [o.details for o in result.outcomes if o.details is not None],
        "failed_predicates": {o.case_id: list(o.failed) for o in result.outcomes if o.failed},
        "missing_transcripts": result.missing_transcripts,
        "unknown_cases": result.unknown_cases,
        "unbucketed_cases": result.remainder,
        "counts": {
            "cases": len(result.outcomes),
            "lines": result.stats.lines,
            "records": result.stats.records,
            "errors": result.stats.errors,
            "blank": result.stats.blank,
            "skipped": result.stats.skipped,
        },
        "findings": [f.to_dict() for f in result.findings],
        "sources": result.sources,
    }


def render_lane(result: LaneResult, colour: bool = False) -> str:
    return dumps(lane_payload(result))
