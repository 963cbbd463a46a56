"""engine/casescore.py: a case-driven lane scored with its captures grouped on disk gives the
same report as in memory (the grouping bound and the case index's bound crossed on real data)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from surface_lint.engine import Engine
from surface_lint.engine.casescore import CaseworkScorer
from surface_lint.sources.base import ReadStats

LANES = Path(__file__).resolve().parents[2].parent / "shared" / "corpus" / "lanes"


def _score(lane_name: str, cases: Path, captures: list[Path], group_memory: int | None,
           memory_cases: int | None) -> tuple[Any, ...]:
    engine = Engine(profile="reference")
    lane, index = engine.load_cases([str(cases)], engine.lane(lane_name), memory_cases=memory_cases)
    assert lane is not None and lane.casework is not None
    scorer = CaseworkScorer(lane, lane.casework, index, engine.severity_levels, True, None, group_memory=group_memory)
    scorer.read([str(p) for p in captures], {})
    result = scorer.result("reference", [], ReadStats(), index.findings, str(captures[0]))
    return (result.metrics, [(o.case_id, o.signals, o.failed, o.details) for o in result.outcomes],
            [(f.location, f.code, f.message) for f in result.findings], list(result.missing_transcripts))


@pytest.mark.parametrize(("lane", "stem"), [("compositionality", "public_v1"), ("grammatical_coverage", "holdouts_v1")])
def test_grouping_on_disk_gives_the_in_memory_report(tmp_path: Path, lane: str, stem: str) -> None:
    if not LANES.is_dir():
        pytest.fail(f"the lane corpus is not at {LANES}")
    folder = LANES / lane
    split, _, version = stem.partition("_")
    cases = folder / "cases" / split / version / "cases.jsonl"
    captures = folder / "captures" / f"{stem}.jsonl"
    report = json.loads((folder / "reports" / f"{stem}.json").read_text(encoding="utf-8"))
    # The captures cut in two files at the middle: a case's records come in both (one case however many files).
    lines = captures.read_text(encoding="utf-8").splitlines(keepends=True)
    first, second = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    first.write_text("".join(lines[: len(lines) // 2]), encoding="utf-8")
    second.write_text("".join(lines[len(lines) // 2 :]), encoding="utf-8")
    whole = _score(lane, cases, [captures], None, None)
    assert whole[0] == report["metrics"]
    assert [d for _, _, _, d in whole[1]] == report["cases"]
    on_disk = _score(lane, cases, [captures], 2, 3)
    assert on_disk == whole
    split_files = _score(lane, cases, [first, second], 2, 3)
    assert split_files[:2] == whole[:2]
    assert len(split_files[2]) == len(whole[2])
