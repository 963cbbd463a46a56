"""Text output keeps no Outcome per case (a compact store): it must score exactly alike."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from surface_lint.engine import Engine


def _turns(path: Path, rows: list[dict[str, object]]) -> str:
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    return str(path)


def test_compact_and_detailed_scoring_agree(tmp_path: Path) -> None:
    rows: list[dict[str, object]] = [
        {"case_id": "a", "surface": "Truth is what is real.", "grounding_source": "teaching"},
        {"case_id": "b", "surface": "river flows valley", "grounding_source": "pack"},
        {"case_id": "a", "surface": "Truth is ... unfinished.", "grounding_source": "pack"},  # replaces a
        {"case_id": "c", "surface": "You said so. You said it twice.", "grounding_source": "vault"},
        {"case_id": "é😀", "surface": "  Light reveals truth. It grounds knowledge.  ", "grounding_source": "pack"},
        {"case_id": "c", "surface": "You said so. You said it twice.", "grounding_source": "vault"},  # again
    ]
    path = _turns(tmp_path / "t.jsonl", rows)
    for lane in ("deterministic_fluency", "multi_sentence_response"):
        engine = Engine()
        detailed = engine.score(lane, [], [path], want_details=True, finding_limit=None)
        compact = engine.score(lane, [], [path], want_details=False, finding_limit=None)
        assert list(compact.outcomes) == [] and len(detailed.outcomes) == 4
        assert compact.metrics == detailed.metrics
        assert (compact.case_count, compact.failing_count) == (detailed.case_count, detailed.failing_count) == (
            4, detailed.failing_count)
        assert compact.remainder == detailed.remainder
        assert [f.to_dict() for f in compact.findings] == [f.to_dict() for f in detailed.findings]
        dups = [(f.location.line, f.location.column, f.location.end_column, f.message)
                for f in compact.findings if f.code == "SL005"]
        assert dups == [
            (3, 1, 84, "a second scored record for case `a` replaces the first"),
            (6, 1, 92, "a second scored record for case `c` replaces the first"),
        ]
    multi = Engine().score("multi_sentence_response", [], [path], want_details=False)
    assert multi.remainder == ["c"]


def test_a_saturated_filter_only_costs_exact_checks(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """With an 8-bit filter nearly every id is a suspect; the exact check keeps results right."""
    import surface_lint.engine.compact as engine_module

    monkeypatch.setattr(engine_module.CompactOutcomes, "_FILTER_MASK", 7)
    rows: list[dict[str, object]] = [
        {"case_id": f"id{i % 40}", "surface": "Truth is what is real." if i % 3 else "no verb here",
         "grounding_source": "pack"}
        for i in range(100)
    ]
    path = _turns(tmp_path / "t.jsonl", rows)
    detailed = Engine().score("deterministic_fluency", [], [path], want_details=True, finding_limit=None)
    compact = Engine().score("deterministic_fluency", [], [path], want_details=False, finding_limit=None)
    assert compact.case_count == detailed.case_count == 40
    assert compact.metrics == detailed.metrics
    assert [f.to_dict() for f in compact.findings] == [f.to_dict() for f in detailed.findings]
    assert sum(1 for f in compact.findings if f.code == "SL005") == 60
