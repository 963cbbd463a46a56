"""`surface-lint diff`: our fixtures (verdicts that flip both ways) and real reports from the corpus."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from reporters_support import CASES, LANE, NEW, OLD, ROOT, cli

from surface_lint.engine import Engine
from surface_lint.engine.diff import compare_metrics, metric_direction

SYMBOLIC = "symbolic_logic"


def diff_json(*argv: str) -> tuple[int, dict[str, Any]]:
    run = cli("diff", *argv, "--output-format", "json")
    return run.code, json.loads(run.out)


def test_fixture_diff_json() -> None:
    code, out = diff_json(OLD, NEW, "--lane", LANE, "--cases", CASES)
    assert code == 1
    assert out["regressed"] is True and out["regressions"] == 8
    assert [(m["name"], m["old"], m["new"], m["delta"], m["regressed"], m["improved"]) for m in out["metrics"]] == [
        ("cases", 6, 6, 0.0, False, False),
        ("complete_punctuation_rate", 0.8333, 0.8333, 0.0, False, False),
        ("expected_predicates_pass_rate", 0.8333, 0.5, -0.3333, True, False),
        ("finite_predicate_shape_rate", 0.8333, 1.0, 0.1667, False, True),
        ("no_dotted_inventory_rate", 1.0, 0.8333, -0.1667, True, False),
        ("no_placeholder_rate", 1.0, 0.6667, -0.3333, True, False),
        ("no_provenance_only_rate", 1.0, 0.8333, -0.1667, True, False),
        ("surface_provenance_match_rate", 1.0, 1.0, 0.0, False, False),
    ]
    changed = {c["case_id"]: c for c in out["changed"]}
    assert list(changed) == ["flu_001", "flu_002", "flu_003", "flu_005"]
    assert [(f["predicate"], f["old"], f["new"]) for f in changed["flu_003"]["flips"]] == [
        ("no_provenance_only", True, False), ("no_dotted_inventory", True, False)]
    assert changed["flu_005"]["regressed"] is False
    assert [(f["predicate"], f["code"], f["old"], f["new"], f["old_message"], f["new_message"])
            for f in changed["flu_005"]["flips"]] == [
        ("complete_punctuation", "SL103", False, True,
         "the surface ends with `t`, not terminal punctuation (`.` `?` `!` `;`)", ""),
        ("finite_predicate_shape", "SL104", False, True, "no finite verb or inflected verb form in the surface", ""),
    ]
    assert (changed["flu_005"]["old_surface"], changed["flu_005"]["new_surface"]) == (
        "harbour: no entry yet", "Harbour has no entry yet.")
    assert changed["flu_005"]["fields"] == {"expected_pass": [False, True]}
    assert out["new_cases"] == [{"case_id": "flu_007", "failed_predicates": ["no_placeholder"]}]
    assert out["vanished_cases"] == [{"case_id": "flu_006", "failed_predicates": []}]
    assert out["unchanged"] == 1


def test_fixture_diff_text() -> None:
    run = cli("diff", OLD, NEW, "--lane", LANE, "--cases", CASES)
    lines = run.out.splitlines()
    assert lines[0] == (f"diff {LANE}: {OLD} -> {NEW} · profile contract · REGRESSED (8 regression(s))")
    assert "  no_placeholder_rate              1.0000 -> 0.6667    -0.3333  REGRESSED" in lines
    assert "  cases                                 6 -> 6              +0" in lines
    i = lines.index("  flu_002  complete_punctuation (SL103): pass -> FAIL: the surface ends with `m`, "
                    "not terminal punctuation (`.` `?` `!` `;`)")
    assert lines[i + 1:i + 4] == [
        "    old: A lamp gives light in a dark room. pack-grounded (en_demo_home_v1).",
        "    new: A lamp gives light in a dark room",
        "    expected_pass: true -> false",
    ]
    assert lines[-3:] == ["new cases (1): flu_007", "vanished cases (1): flu_006", "unchanged: 1 case(s)"]


def test_a_run_against_itself_is_no_regression() -> None:
    code, out = diff_json(NEW, NEW, "--lane", LANE, "--cases", CASES)
    assert code == 0
    assert out["changed"] == [] and out["regressed"] is False and out["unchanged"] == 6


def test_the_other_way_round_only_the_fixes_regress() -> None:
    code, out = diff_json(NEW, OLD, "--lane", LANE, "--cases", CASES)
    assert code == 1
    regressed = [(c["case_id"], f["predicate"]) for c in out["changed"] for f in c["flips"] if not f["new"]]
    assert regressed == [("flu_005", "complete_punctuation"), ("flu_005", "finite_predicate_shape")]


def test_metric_direction_follows_the_threshold_in_force() -> None:
    lane = Engine().lane(LANE)
    assert metric_direction(lane, "cases", "v1") == (None, None)
    assert metric_direction(lane, "no_placeholder_rate", "v1") == ("higher", None)
    assert metric_direction(lane, "no_provenance_only_rate", "pre_gloss") == ("target", 0.10)
    # The contract's alias resolves to the runner's name.
    assert metric_direction(lane, "finite_predicate_rate", "v1") == ("higher", None)
    moved = compare_metrics(lane, {"no_provenance_only_rate": 0.15}, {"no_provenance_only_rate": 0.4}, "pre_gloss")
    assert moved[0].regressed and not moved[0].improved
    closer = compare_metrics(lane, {"no_provenance_only_rate": 0.4}, {"no_provenance_only_rate": 0.12}, "pre_gloss")
    assert closer[0].improved and not closer[0].regressed
    gone = compare_metrics(lane, {"no_placeholder_rate": 1.0}, {}, "v1")
    assert gone[0].regressed


def test_lanes_must_match(tmp_path: Path) -> None:
    run = cli("diff", OLD, "tests/fixtures/reporters/does-not-exist.jsonl", "--lane", LANE)
    assert run.code == 2


# --- the real corpus ----------------------------------------------------------------------


@pytest.mark.parametrize("old,new,cases", [
    ("v1_public_20260516T193134Z.json", "v1_public_20260522T232200Z.json", 18),
    ("v1_holdouts_20260516T193222Z.json", "v1_holdout_20260522T232327Z.json", 12),
])
def test_committed_reports_of_two_dates_do_not_regress(corpus: Path, old: str, new: str, cases: int) -> None:
    folder = corpus / "reports" / SYMBOLIC
    code, out = diff_json(str(folder / old), str(folder / new))
    assert code == 0
    assert out["lane"] == SYMBOLIC and out["regressed"] is False
    assert out["changed"] == [] and out["new_cases"] == [] and out["vanished_cases"] == []
    assert out["unchanged"] == cases
    assert all(m["delta"] in (0.0, None) for m in out["metrics"])


def test_the_real_runtime_run_regresses_against_the_committed_report(corpus: Path) -> None:
    committed = corpus / "reports" / SYMBOLIC / "v1_public_20260522T232200Z.json"
    runtime = corpus / "runtime" / "reports" / "symbolic_logic_public_v1.json"
    code, out = diff_json(str(committed), str(runtime))
    assert code == 1
    metrics = {m["name"]: m for m in out["metrics"]}
    assert (metrics["proposal_storage"]["old"], metrics["proposal_storage"]["new"]) == (1.0, 0.6667)
    assert metrics["proposal_storage"]["regressed"] and metrics["all_three_pass_rate"]["regressed"]
    assert metrics["overall_pass"]["regressed"] and not metrics["premise_recall"]["regressed"]
    assert [c["case_id"] for c in out["changed"]] == [
        "SYM-PUB-002", "SYM-PUB-004", "SYM-PUB-008", "SYM-PUB-011", "SYM-PUB-012", "SYM-PUB-013"]
    first = out["changed"][0]
    assert [(f["predicate"], f["old"], f["new"]) for f in first["flips"]] == [("proposal_storage", True, False)]
    assert first["fields"]["proposal_count"] == [1, 0]
    assert first["flips"][0]["new_message"] == "0 pack-mutation proposal(s) fired; expected_proposals is 1"
    # The other way round: the committed report fixes what the runtime run broke.
    code, back = diff_json(str(runtime), str(committed))
    assert code == 0
    assert [(f["old"], f["new"]) for c in back["changed"] for f in c["flips"]] == [(False, True)] * 6
    assert [m["name"] for m in back["metrics"] if m["improved"]] == [
        "all_three_pass_rate", "overall_pass", "proposal_storage"]


def test_runtime_reports_against_their_own_captures_do_not_regress(corpus: Path) -> None:
    report = corpus / "runtime" / "reports" / "deterministic_fluency_public_v1.json"
    capture = corpus / "runtime" / "captures" / "deterministic_fluency_public_v1.jsonl"
    cases = corpus / "cases" / "deterministic_fluency" / "public" / "v1" / "cases.jsonl"
    code, out = diff_json(str(report), str(capture), "--cases", str(cases), "--profile", "reference")
    assert code == 0
    assert out["changed"] == [] and out["unchanged"] == 15


def test_the_results_model_refuses_two_lanes(tmp_path: Path) -> None:
    from surface_lint.engine import UsageError
    from surface_lint.engine.diff import diff_results

    report = tmp_path / "multi.json"
    report.write_text(json.dumps({"lane": "multi_sentence_response", "metrics": {}, "cases": []}), encoding="utf-8")
    engine = Engine()
    fluency = engine.score(LANE, [], [str(ROOT / NEW)], None, True, None)
    other = engine.score(LANE, [], [str(report)], None, True, None)  # scored as fluency, names multi
    assert other.declared_lane == "multi_sentence_response" and fluency.declared_lane is None
    with pytest.raises(UsageError) as raised:
        diff_results(fluency, other, engine.lane(LANE), "a.jsonl", "multi.json")
    assert str(raised.value) == ("a.jsonl is a run of deterministic_fluency but multi.json one of "
                                 "multi_sentence_response: diff compares two runs of one lane")
