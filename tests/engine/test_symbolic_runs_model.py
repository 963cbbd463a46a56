"""symbolic_logic modelled the one way (issue 15, point 1), on the real runtime captures: the
case-driven lane tests/fixtures/engine/lanes/symbolic_logic_runs.toml (views over chain 0 and
chain 1, the three checks as values, metrics folded like every lane's) reproduces each runtime
report of symbolic_logic and agrees with the shipped chain lane case by case, findings included:
each check value names its `[[predicates]]` entry (`check`), so a false one is that predicate's
finding (code, severity, name) at the probe's field (`at`, `field`). The fixture is named
`symbolic_logic`: given as a lane file it replaces the shipped lane, so the two are compared
from two engines."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from surface_lint.engine import Engine
from surface_lint.engine.config import Config
from surface_lint.engine.scoring import Outcome
from surface_lint.model.findings import Finding

LANE_FILE = Path(__file__).resolve().parents[1] / "fixtures" / "engine" / "lanes" / "symbolic_logic_runs.toml"
SPLITS = ["dev", "holdouts_v1", "holdouts_v2", "public_v1", "public_v2"]


def _inputs(corpus: Path, split: str) -> tuple[dict[str, object], Path, Path]:
    stored = json.loads((corpus / "runtime" / "reports" / f"symbolic_logic_{split}.json").read_text(encoding="utf-8"))
    folder = corpus / "cases" / "symbolic_logic" / str(stored["split"])
    cases = folder / "cases.jsonl" if stored["split"] == "dev" else folder / str(stored["version"]) / "cases.jsonl"
    return stored, cases, corpus / "runtime" / "captures" / f"symbolic_logic_{split}.jsonl"


@pytest.mark.parametrize("split", SPLITS)
def test_the_runs_model_reproduces_the_runtime_report(corpus: Path, split: str) -> None:
    stored, cases, captures = _inputs(corpus, split)
    runs = _runs_engine().score("symbolic_logic", [str(cases)], [str(captures)])
    assert runs.metrics == stored["metrics"]
    assert [o.details for o in runs.outcomes] == stored["cases"]
    assert (runs.missing_transcripts, runs.unknown_cases) == ([], [])
    chain = _chain_engine().score("symbolic_logic", [str(cases)], [str(captures)])
    assert chain.metrics == runs.metrics
    assert [o.details for o in chain.outcomes] == [o.details for o in runs.outcomes]
    # The same findings, each case's in position order (the chain lane's are in predicate order).
    assert [[repr(f) for f in sorted(o.findings, key=Finding.sort_key)] for o in chain.outcomes] == [
        [repr(f) for f in o.findings] for o in runs.outcomes]


def _runs_engine() -> Engine:
    engine = Engine(Config(lane_files=[LANE_FILE]), profile="reference")
    assert engine.lane("symbolic_logic").unit == "surface"  # the fixture, not the shipped chain lane
    return engine


def _chain_engine() -> Engine:
    engine = Engine(Config(), profile="reference")
    assert engine.lane("symbolic_logic").unit == "chain"
    return engine


def _told(o: Outcome) -> list[tuple[str, int, int, str, str]]:
    return [(f.code, f.location.line, f.location.column, f.severity.name, f.message) for f in o.findings]


def test_a_failing_check_is_its_predicate_s_finding_at_the_probe(corpus: Path) -> None:
    _, cases, captures = _inputs(corpus, "public_v1")
    runs = {o.case_id: o for o in _runs_engine().score("symbolic_logic", [str(cases)], [str(captures)]).outcomes}
    chain = {o.case_id: o for o in _chain_engine().score("symbolic_logic", [str(cases)], [str(captures)]).outcomes}
    assert runs.keys() == chain.keys()
    assert sorted(k for k, o in runs.items() if o.findings) == sorted(k for k, o in chain.items() if o.findings)
    # SL303 (error) on the probe's whole line (the probe record has no `proposal_count` key).
    told = [("SL303", 9, 1, "ERROR", "proposal_storage: 0 pack-mutation proposal(s) fired; expected_proposals is 1")]
    assert _told(runs["SYM-PUB-002"]) == told
    assert _told(chain["SYM-PUB-002"]) == told
    assert [f.rule for f in runs["SYM-PUB-002"].findings] == ["proposal_storage"]


def test_a_severity_key_names_the_check_s_predicate(corpus: Path) -> None:
    _, cases, captures = _inputs(corpus, "public_v1")
    for key, level in (("SL303", "WARNING"), ("proposal_storage", "INFORMATION")):
        config = Config(lane_files=[LANE_FILE], severity={key: level.lower()})
        runs = {o.case_id: o for o in Engine(config, profile="reference").score(
            "symbolic_logic", [str(cases)], [str(captures)]).outcomes}
        assert [(f.code, f.severity.name) for f in runs["SYM-PUB-002"].findings] == [("SL303", level)]
    config = Config(lane_files=[LANE_FILE], severity={"SL303": "off"})
    runs = {o.case_id: o for o in Engine(config, profile="reference").score(
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
def test_a_missing_run_or_probe_is_told_as_the_chain_kinds_tell_it(
        corpus: Path, tmp_path: Path, dropped: str, told: list[tuple[str, int, int, str, str]]) -> None:
    rows = _case_records(corpus)
    keep = [r for r in rows if (r["chain"] == 0 and r["role"] != "probe") or r["chain"] == 1] if dropped == "probe" \
        else [r for r in rows if r["chain"] == 0]
    assert 0 < len(keep) < len(rows)
    runs, chain = _both(corpus, tmp_path, keep)
    assert runs == chain == [told]


def test_metric_aliases_thresholds_and_a_baseline_read_as_the_chain_lane_s(corpus: Path) -> None:
    from surface_lint.engine.diff import compare_metrics

    _, cases, captures = _inputs(corpus, "public_v1")
    runs_engine, chain_engine = _runs_engine(), _chain_engine()
    runs = runs_engine.score("symbolic_logic", [str(cases)], [str(captures)], threshold_set="v1")
    chain = chain_engine.score("symbolic_logic", [str(cases)], [str(captures)], threshold_set="v1")
    assert runs.metric_aliases == chain.metric_aliases == {"overall": "all_three_pass_rate"}
    assert (runs.threshold_set, runs.passed) == (chain.threshold_set, chain.passed) == ("v1", False)
    told = [("premise_recall", 1.0, True), ("replay_determinism", 1.0, True), ("proposal_storage", 0.6667, False)]
    assert [(t.check.metric, t.actual, t.passed) for t in chain.thresholds] == told
    # The one difference left: a case-driven lane checks (and shows) the unrounded rate.
    assert [(t.check.metric, t.actual, t.passed) for t in runs.thresholds] == [
        *told[:2], ("proposal_storage", 2 / 3, False)]
    # A baseline that names the metric by its alias is read as the metric, in both lanes.
    old = {"overall": 0.9, "premise_recall": 1.0}
    for engine, result in ((runs_engine, runs), (chain_engine, chain)):
        deltas = compare_metrics(engine.lane("symbolic_logic"), old, result.metrics, "v1")
        regressed = [(d.name, d.old, d.new) for d in deltas if d.regressed]
        assert regressed == [("all_three_pass_rate", 0.9, 0.6667)]


def _reports(corpus: Path) -> list[Path]:
    runtime = sorted((corpus / "runtime" / "reports").glob("symbolic_logic_*.json"))
    committed = sorted((corpus / "reports" / "symbolic_logic").glob("*.json"))
    return [*runtime, *committed]


def test_every_symbolic_report_reads_back_as_the_chain_lane_reads_it(corpus: Path) -> None:
    runs_engine, chain_engine = _runs_engine(), _chain_engine()
    reports = _reports(corpus)
    assert len(reports) == 12
    checked = 0
    for report in reports:
        stored = json.loads(report.read_text(encoding="utf-8"))
        runs = runs_engine.score(None, [], [str(report)])
        chain = chain_engine.score(None, [], [str(report)])
        assert runs.metrics == chain.metrics, report.name
        assert [o.details for o in runs.outcomes] == [o.details for o in chain.outcomes], report.name
        assert [_found(f) for f in runs.findings] == [_found(f) for f in chain.findings], report.name
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
    runs = _runs_engine().score(None, [], [str(report)])
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
        _runs_engine().score("symbolic_logic", [], [str(report), str(captures)])
    assert str(info.value) == ("lane symbolic_logic scores captures joined with their cases: give --cases "
                               "(or give only lane reports, which carry their cases' records)")


def test_check_on_a_report_tells_its_failing_checks_as_the_chain_lane_does(corpus: Path) -> None:
    report = corpus / "runtime" / "reports" / "symbolic_logic_public_v2.json"
    data = report.read_bytes()
    runs = _runs_engine().check_bytes(str(report), data, lane_name="symbolic_logic")
    chain = _chain_engine().check_bytes(str(report), data, lane_name="symbolic_logic")
    assert [_found(f) for f in runs.findings] == [_found(f) for f in chain.findings]
    assert [(f.code, f.location.line, f.location.column) for f in runs.findings] == [
        ("SL303", 10, 25), ("SL303", 24, 25), ("SL303", 150, 25), ("SL303", 164, 25),
        ("SL303", 234, 25), ("SL303", 248, 25), ("SL303", 290, 25), ("SL303", 318, 25)]
    assert runs.findings[0].message == "proposal_storage: 2 pack-mutation proposal(s) fired; expected_proposals is 5"


def _case_records(corpus: Path) -> list[dict[str, object]]:
    _, _, captures = _inputs(corpus, "public_v1")
    rows = [json.loads(line) for line in captures.read_text(encoding="utf-8").splitlines()]
    return [r for r in rows if r["case_id"] == "SYM-PUB-001"]


def _both(corpus: Path, tmp_path: Path, rows: list[dict[str, object]]) -> tuple[list[object], list[object]]:
    _, cases, _ = _inputs(corpus, "public_v1")
    edited, one_case = tmp_path / "captures.jsonl", tmp_path / "cases.jsonl"
    edited.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    one_case.write_text(cases.read_text(encoding="utf-8").splitlines()[0] + "\n", encoding="utf-8")
    runs = _runs_engine().score("symbolic_logic", [str(one_case)], [str(edited)])
    chain = _chain_engine().score("symbolic_logic", [str(one_case)], [str(edited)])
    assert chain.metrics == runs.metrics
    assert [o.details for o in chain.outcomes] == [o.details for o in runs.outcomes]
    return [_told(o) for o in runs.outcomes], [sorted(_told(o), key=lambda f: f[1:3]) for o in chain.outcomes]


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
    runs, chain = _both(corpus, tmp_path, rows)
    if marker != "none":
        assert runs == chain == [[]]
        return
    # Unmarked, the replay joins the main run: two probes, four premises (2 proposals), no replay.
    # The one difference left: the chain lane points at the last chain-0 probe (line 6), a value's
    # `at` at its view's first record (line 3); the values agree (the two probes are equal here).
    told = [("SL303", 1, "ERROR", "proposal_storage: 2 pack-mutation proposal(s) fired; expected_proposals is 1"),
            ("SL302", 462, "ERROR", "replay_determinism: no replay run captured (chain 1)")]
    assert runs == [[(code, 3, col, sev, msg) for code, col, sev, msg in told]]
    assert chain == [[(code, 6, col, sev, msg) for code, col, sev, msg in told]]


def test_a_replay_with_premises_and_no_probe_is_no_replay(corpus: Path, tmp_path: Path) -> None:
    rows = [r for r in _case_records(corpus) if not (r["chain"] == 1 and r["role"] == "probe")]
    runs, chain = _both(corpus, tmp_path, rows)
    assert runs == chain == [[("SL302", 3, 495, "ERROR", "replay_determinism: no replay run captured (chain 1)")]]
