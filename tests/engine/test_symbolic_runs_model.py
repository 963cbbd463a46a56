"""symbolic_logic, the one lane model (issue 15), on the real runtime captures: the shipped
case-driven lane (views over chain 0 and chain 1, the three checks as values, metrics folded like
every lane's) reproduces each runtime report of symbolic_logic; each check value names its
`[[predicates]]` entry (`check`), so a false one is that predicate's finding (code, severity,
name) at the probe's field (`at`, `field`). The expected findings are those the chain lane it
replaced gave on the same inputs (its kinds vault_hits_min, replay_identical,
proposal_count_equal), written out."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from surface_lint.engine import Engine
from surface_lint.engine.config import Config
from surface_lint.engine.scoring import Outcome
from surface_lint.model.findings import Finding

SPLITS = ["dev", "holdouts_v1", "holdouts_v2", "public_v1", "public_v2"]
FINDINGS = {  # per split: (case, code, line, column) of each case's findings, in position order
    'dev': [
        ('SYM-DEV-003', 'SL303', 21, 1),
        ('SYM-DEV-005', 'SL303', 39, 1),
        ('SYM-DEV-006', 'SL303', 51, 1),
    ],
    'holdouts_v1': [
        ('SYM-HLD-002', 'SL303', 11, 1),
        ('SYM-HLD-010', 'SL303', 91, 1),
    ],
    'holdouts_v2': [
        ('SYM-V2-HLD-001', 'SL303', 11, 1),
        ('SYM-V2-HLD-003', 'SL303', 47, 1),
        ('SYM-V2-HLD-008', 'SL303', 99, 1),
        ('SYM-V2-HLD-010', 'SL303', 117, 1),
        ('SYM-V2-HLD-015', 'SL303', 175, 1),
    ],
    'public_v1': [
        ('SYM-PUB-002', 'SL303', 9, 1),
        ('SYM-PUB-004', 'SL303', 27, 1),
        ('SYM-PUB-008', 'SL303', 61, 1),
        ('SYM-PUB-011', 'SL303', 91, 1),
        ('SYM-PUB-012', 'SL303', 105, 1),
        ('SYM-PUB-013', 'SL303', 121, 1),
    ],
    'public_v2': [
        ('SYM-V2-001', 'SL303', 11, 1),
        ('SYM-V2-002', 'SL303', 33, 1),
        ('SYM-V2-011', 'SL303', 145, 1),
        ('SYM-V2-012', 'SL303', 155, 1),
        ('SYM-V2-017', 'SL303', 195, 1),
        ('SYM-V2-018', 'SL303', 205, 1),
        ('SYM-V2-021', 'SL303', 247, 1),
        ('SYM-V2-023', 'SL303', 275, 1),
    ],
}


def _inputs(corpus: Path, split: str) -> tuple[dict[str, object], Path, Path]:
    stored = json.loads((corpus / "runtime" / "reports" / f"symbolic_logic_{split}.json").read_text(encoding="utf-8"))
    folder = corpus / "cases" / "symbolic_logic" / str(stored["split"])
    cases = folder / "cases.jsonl" if stored["split"] == "dev" else folder / str(stored["version"]) / "cases.jsonl"
    return stored, cases, corpus / "runtime" / "captures" / f"symbolic_logic_{split}.jsonl"


@pytest.mark.parametrize("split", SPLITS)
def test_the_lane_reproduces_the_runtime_report(corpus: Path, split: str) -> None:
    stored, cases, captures = _inputs(corpus, split)
    runs = _engine().score("symbolic_logic", [str(cases)], [str(captures)])
    assert runs.metrics == stored["metrics"]
    assert [o.details for o in runs.outcomes] == stored["cases"]
    assert (runs.missing_transcripts, runs.unknown_cases) == ([], [])
    assert [(o.case_id, f.code, f.location.line, f.location.column) for o in runs.outcomes
            for f in o.findings] == FINDINGS[split]


def _engine(config: Config | None = None) -> Engine:
    engine = Engine(config or Config(), profile="reference")
    assert engine.lane("symbolic_logic").casework is not None
    return engine


def _told(o: Outcome) -> list[tuple[str, int, int, str, str]]:
    return [(f.code, f.location.line, f.location.column, f.severity.name, f.message) for f in o.findings]


def test_a_failing_check_is_its_predicate_s_finding_at_the_probe(corpus: Path) -> None:
    _, cases, captures = _inputs(corpus, "public_v1")
    runs = {o.case_id: o for o in _engine().score("symbolic_logic", [str(cases)], [str(captures)]).outcomes}
    assert sorted(k for k, o in runs.items() if o.findings) == [
        "SYM-PUB-002", "SYM-PUB-004", "SYM-PUB-008", "SYM-PUB-011", "SYM-PUB-012", "SYM-PUB-013"]
    # SL303 (error) on the probe's whole line (the probe record has no `proposal_count` key).
    told = [("SL303", 9, 1, "ERROR", "proposal_storage: 0 pack-mutation proposal(s) fired; expected_proposals is 1")]
    assert _told(runs["SYM-PUB-002"]) == told
    assert [f.rule for f in runs["SYM-PUB-002"].findings] == ["proposal_storage"]


def test_a_severity_key_names_the_check_s_predicate(corpus: Path) -> None:
    _, cases, captures = _inputs(corpus, "public_v1")
    for key, level in (("SL303", "WARNING"), ("proposal_storage", "INFORMATION")):
        config = Config(severity={key: level.lower()})
        runs = {o.case_id: o for o in _engine(config).score(
            "symbolic_logic", [str(cases)], [str(captures)]).outcomes}
        assert [(f.code, f.severity.name) for f in runs["SYM-PUB-002"].findings] == [("SL303", level)]
    config = Config(severity={"SL303": "off"})
    runs = {o.case_id: o for o in _engine(config).score(
        "symbolic_logic", [str(cases)], [str(captures)]).outcomes}
    # Off silences the check's finding, not the verdict: the case still fails, as every
    # case-driven lane's case whose findings are all off (casescore: "case `ID` fails").
    assert _told(runs["SYM-PUB-002"]) == [("SL018", 7, 1, "WARNING", "case `SYM-PUB-002` fails")]


@pytest.mark.parametrize(("dropped", "told"), [
    # No probe in the main run: the case's first record (a premise), at its own fields.
    ("probe", [("SL302", 1, 338, "ERROR", "replay_determinism: replay differs: empty trace_hash; vault_hits 0 != replay 6"),
               ("SL301", 1, 437, "ERROR", "premise_recall: probe vault_hits 0 < min_vault_hits 1")]),
    ("replay", [("SL302", 3, 495, "ERROR", "replay_determinism: no replay run captured (chain 1)")]),
])
def test_a_missing_run_or_probe_is_told(
        corpus: Path, tmp_path: Path, dropped: str, told: list[tuple[str, int, int, str, str]]) -> None:
    rows = _case_records(corpus)
    keep = [r for r in rows if (r["chain"] == 0 and r["role"] != "probe") or r["chain"] == 1] if dropped == "probe" \
        else [r for r in rows if r["chain"] == 0]
    assert 0 < len(keep) < len(rows)
    assert _one_case(corpus, tmp_path, keep) == [told]


def test_metric_aliases_thresholds_and_a_baseline(corpus: Path) -> None:
    from surface_lint.engine.diff import compare_metrics

    _, cases, captures = _inputs(corpus, "public_v1")
    engine = _engine()
    runs = engine.score("symbolic_logic", [str(cases)], [str(captures)], threshold_set="v1")
    assert runs.metric_aliases == {"overall": "all_three_pass_rate"}
    assert (runs.threshold_set, runs.passed) == ("v1", False)
    # A case-driven lane checks (and shows) the unrounded rate (the chain lane showed 0.6667).
    assert [(t.check.metric, t.actual, t.passed) for t in runs.thresholds] == [
        ("premise_recall", 1.0, True), ("replay_determinism", 1.0, True), ("proposal_storage", 2 / 3, False)]
    # A baseline that names the metric by its alias is read as the metric.
    old = {"overall": 0.9, "premise_recall": 1.0}
    deltas = compare_metrics(engine.lane("symbolic_logic"), old, runs.metrics, "v1")
    assert [(d.name, d.old, d.new) for d in deltas if d.regressed] == [("all_three_pass_rate", 0.9, 0.6667)]


def _reports(corpus: Path) -> list[Path]:
    runtime = sorted((corpus / "runtime" / "reports").glob("symbolic_logic_*.json"))
    committed = sorted((corpus / "reports" / "symbolic_logic").glob("*.json"))
    return [*runtime, *committed]


REPORT_FINDINGS = {  # per report: (code, line, column, message), as the chain lane gave them
    'symbolic_logic_dev.json': [
        ('SL303', 38, 25, 'proposal_storage: 1 pack-mutation proposal(s) fired; expected_proposals is 2'),
        ('SL303', 66, 25, 'proposal_storage: 2 pack-mutation proposal(s) fired; expected_proposals is 3'),
        ('SL303', 80, 25, 'proposal_storage: 0 pack-mutation proposal(s) fired; expected_proposals is 2'),
    ],
    'symbolic_logic_holdouts_v1.json': [
        ('SL303', 24, 25, 'proposal_storage: 0 pack-mutation proposal(s) fired; expected_proposals is 2'),
        ('SL303', 136, 25, 'proposal_storage: 1 pack-mutation proposal(s) fired; expected_proposals is 2'),
    ],
    'symbolic_logic_holdouts_v2.json': [
        ('SL303', 10, 25, 'proposal_storage: 3 pack-mutation proposal(s) fired; expected_proposals is 5'),
        ('SL303', 38, 25, 'proposal_storage: 1 pack-mutation proposal(s) fired; expected_proposals is 3'),
        ('SL303', 108, 25, 'proposal_storage: 1 pack-mutation proposal(s) fired; expected_proposals is 2'),
        ('SL303', 136, 25, 'proposal_storage: 0 pack-mutation proposal(s) fired; expected_proposals is 1'),
        ('SL303', 206, 25, 'proposal_storage: 1 pack-mutation proposal(s) fired; expected_proposals is 3'),
    ],
    'symbolic_logic_public_v1.json': [
        ('SL303', 24, 25, 'proposal_storage: 0 pack-mutation proposal(s) fired; expected_proposals is 1'),
        ('SL303', 52, 25, 'proposal_storage: 1 pack-mutation proposal(s) fired; expected_proposals is 2'),
        ('SL303', 108, 25, 'proposal_storage: 0 pack-mutation proposal(s) fired; expected_proposals is 1'),
        ('SL303', 150, 25, 'proposal_storage: 2 pack-mutation proposal(s) fired; expected_proposals is 3'),
        ('SL303', 164, 25, 'proposal_storage: 1 pack-mutation proposal(s) fired; expected_proposals is 3'),
        ('SL303', 178, 25, 'proposal_storage: 1 pack-mutation proposal(s) fired; expected_proposals is 4'),
    ],
    'symbolic_logic_public_v2.json': [
        ('SL303', 10, 25, 'proposal_storage: 2 pack-mutation proposal(s) fired; expected_proposals is 5'),
        ('SL303', 24, 25, 'proposal_storage: 1 pack-mutation proposal(s) fired; expected_proposals is 5'),
        ('SL303', 150, 25, 'proposal_storage: 1 pack-mutation proposal(s) fired; expected_proposals is 2'),
        ('SL303', 164, 25, 'proposal_storage: 1 pack-mutation proposal(s) fired; expected_proposals is 2'),
        ('SL303', 234, 25, 'proposal_storage: 0 pack-mutation proposal(s) fired; expected_proposals is 1'),
        ('SL303', 248, 25, 'proposal_storage: 1 pack-mutation proposal(s) fired; expected_proposals is 3'),
        ('SL303', 290, 25, 'proposal_storage: 1 pack-mutation proposal(s) fired; expected_proposals is 3'),
        ('SL303', 318, 25, 'proposal_storage: 1 pack-mutation proposal(s) fired; expected_proposals is 3'),
    ],
    'v1_holdout_20260522T232327Z.json': [
    ],
    'v1_holdouts_20260516T193222Z.json': [
    ],
    'v1_public_20260516T193134Z.json': [
    ],
    'v1_public_20260522T232200Z.json': [
    ],
    'v1_structural_zero.json': [
        ('SL017', 1, 1, 'no case was scored: the lane report holds no case entry; the thresholds were not checked'),
    ],
    'v2_holdouts_20260516T201409Z.json': [
    ],
    'v2_public_20260516T201409Z.json': [
    ],
}


def test_every_symbolic_report_reads_back(corpus: Path) -> None:
    engine = _engine()
    reports = _reports(corpus)
    assert len(reports) == 12
    checked = 0
    for report in reports:
        stored = json.loads(report.read_text(encoding="utf-8"))
        runs = engine.score(None, [], [str(report)])
        assert [(f.code, f.location.line, f.location.column, f.message) for f in runs.findings] == \
            REPORT_FINDINGS[report.name], report.name
        cases = stored.get("cases") or stored.get("case_details")
        if cases:  # v1_structural_zero.json: a baseline with no cases
            assert runs.metrics == stored["metrics"], report.name
            assert [o.details for o in runs.outcomes] == cases, report.name
            checked += 1
    assert checked == 11


def _found(f: Finding) -> tuple[str, str, int, int, int, int, str, str]:
    loc = f.location
    return (f.code, f.rule, loc.line, loc.column, loc.end_line, loc.end_column, f.severity.name, f.message)


def test_a_report_s_failing_check_is_at_the_check_s_field_of_its_entry(corpus: Path) -> None:
    report = corpus / "runtime" / "reports" / "symbolic_logic_public_v1.json"
    runs = _engine().score(None, [], [str(report)])
    lines = report.read_text(encoding="utf-8").splitlines()
    first = next(f for f in runs.findings if f.code == "SL303")
    # SYM-PUB-002's entry: the finding is at its `proposal_count` (the check's `field`), not at `proposal_pass`.
    line = lines[first.location.line - 1]
    assert line[:first.location.column - 1].endswith('"proposal_count": ') and line[first.location.column - 1] == "0"
    assert _found(first)[6:] == ("ERROR", "proposal_storage: 0 pack-mutation proposal(s) fired; expected_proposals is 1")
    assert runs.passed is False and runs.case_count == 18 and runs.failing_count == 6


def test_captures_without_their_cases_are_still_refused(corpus: Path) -> None:
    from surface_lint.engine.results import UsageError

    captures = corpus / "runtime" / "captures" / "symbolic_logic_public_v1.jsonl"
    report = corpus / "runtime" / "reports" / "symbolic_logic_public_v1.json"
    with pytest.raises(UsageError) as info:
        _engine().score("symbolic_logic", [], [str(report), str(captures)])
    assert str(info.value) == ("lane symbolic_logic scores captures joined with their cases: give --cases "
                               "(or give only lane reports, which carry their cases' records)")


def test_check_on_a_report_tells_its_failing_checks(corpus: Path) -> None:
    report = corpus / "runtime" / "reports" / "symbolic_logic_public_v2.json"
    runs = _engine().check_bytes(str(report), report.read_bytes(), lane_name="symbolic_logic")
    assert [(f.code, f.location.line, f.location.column) for f in runs.findings] == [
        ("SL303", 10, 25), ("SL303", 24, 25), ("SL303", 150, 25), ("SL303", 164, 25),
        ("SL303", 234, 25), ("SL303", 248, 25), ("SL303", 290, 25), ("SL303", 318, 25)]
    assert runs.findings[0].message == "proposal_storage: 2 pack-mutation proposal(s) fired; expected_proposals is 5"


def _case_records(corpus: Path) -> list[dict[str, object]]:
    _, _, captures = _inputs(corpus, "public_v1")
    rows = [json.loads(line) for line in captures.read_text(encoding="utf-8").splitlines()]
    return [r for r in rows if r["case_id"] == "SYM-PUB-001"]


def _one_case(corpus: Path, tmp_path: Path, rows: list[dict[str, object]]) -> list[object]:
    """The findings of SYM-PUB-001 (its case alone) scored from `rows`, each as `_told` gives it."""
    _, cases, _ = _inputs(corpus, "public_v1")
    edited, one_case = tmp_path / "captures.jsonl", tmp_path / "cases.jsonl"
    edited.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    one_case.write_text(cases.read_text(encoding="utf-8").splitlines()[0] + "\n", encoding="utf-8")
    return [_told(o) for o in _engine().score("symbolic_logic", [str(one_case)], [str(edited)]).outcomes]


@pytest.mark.parametrize("marker", ["none", "run", "replay_run"])
def test_a_record_without_chain_is_in_the_run_its_other_fields_say(corpus: Path, tmp_path: Path, marker: str) -> None:
    # As the transcript reader reads `chain`: absent, chain 1 when `run` is "replay" or `replay_run`
    # is true, else chain 0. "none": the replay's records lose their marker and join the main run.
    rows = [{k: v for k, v in r.items() if k not in ("chain", "replay_run")} for r in _case_records(corpus)]
    for r in rows[3:]:  # the replay's three records (the capture writes the main run first)
        if marker == "run":
            r["run"] = "replay"
        elif marker == "replay_run":
            r["replay_run"] = True
    runs = _one_case(corpus, tmp_path, rows)
    if marker != "none":
        assert runs == [[]]
        return
    # Unmarked, the replay joins the main run: two probes, four premises (2 proposals), no replay.
    # The findings are at the view's first probe (line 3; the chain lane pointed at the last, line 6).
    assert runs == [[("SL303", 3, 1, "ERROR", "proposal_storage: 2 pack-mutation proposal(s) fired; expected_proposals is 1"),
                     ("SL302", 3, 462, "ERROR", "replay_determinism: no replay run captured (chain 1)")]]


def test_a_replay_with_premises_and_no_probe_is_no_replay(corpus: Path, tmp_path: Path) -> None:
    rows = [r for r in _case_records(corpus) if not (r["chain"] == 1 and r["role"] == "probe")]
    assert _one_case(corpus, tmp_path, rows) == [
        [("SL302", 3, 495, "ERROR", "replay_determinism: no replay run captured (chain 1)")]]
