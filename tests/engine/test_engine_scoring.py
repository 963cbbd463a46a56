"""Lane scoring: metrics on small transcripts with failing cases, thresholds and exit codes,
joins, SL011, split discovery, determinism. Fixtures: tests/fixtures/engine/scoring/."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from engine_support import FIXTURES, fts, snapshot, write

from surface_lint.cli.main import main
from surface_lint.engine import Engine

D = FIXTURES / "scoring"
FLU_CASES, FLU_TURNS = str(D / "fluency_cases.jsonl"), str(D / "fluency_turns.jsonl")
MSR_CASES, MSR_TURNS = str(D / "multi_cases.jsonl"), str(D / "multi_turns.jsonl")
SYM_CASES, SYM_TURNS = str(D / "symbolic_cases.jsonl"), str(D / "symbolic_turns.jsonl")
FLU, MSR, SYM = "deterministic_fluency", "multi_sentence_response", "symbolic_logic"


def json_run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, dict]:
    code = main([*argv, "--output-format", "json"])
    return code, json.loads(capsys.readouterr().out)


# --- deterministic_fluency ---------------------------------------------------------------------


def test_fluency_metrics_findings_and_joins_contract_profile() -> None:
    result = Engine(profile="contract").score(FLU, [FLU_CASES], [FLU_TURNS])
    assert result.metrics == {
        "cases": 5,
        "complete_punctuation_rate": 0.8,
        "expected_predicates_pass_rate": 0.4,
        "finite_predicate_shape_rate": 0.8,
        "no_dotted_inventory_rate": 0.8,
        "no_placeholder_rate": 0.8,
        "no_provenance_only_rate": 0.8,
        "surface_provenance_match_rate": 0.8,
    }
    assert [(t.check.metric, t.actual, t.passed) for t in result.thresholds] == [
        ("no_placeholder_rate", 0.8, False),
        ("complete_punctuation_rate", 0.8, False),
        ("finite_predicate_shape_rate", 0.8, False),
    ]
    assert result.passed is False
    assert (result.threshold_set, result.profile, result.headline) == ("v1", "contract", "expected_predicates_pass_rate")
    assert result.missing_transcripts == ["f6"]
    assert result.unknown_cases == ["zz"]
    assert [o.case_id for o in result.outcomes] == ["f1", "f2", "f3", "f4", "f5"]
    assert result.metric_aliases["finite_predicate_rate"] == "finite_predicate_shape_rate"
    p = FLU_TURNS
    inventory = "meta.mental_state.uncertainty; meta.mental_state; cognition.epistemic"
    assert fts(result.findings) == [
        (FLU_CASES, 6, 8, 6, 12, "SL015", "information",
         "case `f6` has no scored turn in the transcripts; left out of the metrics"),
        (p, 2, 110, 2, 246, "SL102", "information", "no_provenance_only: the surface is a bare structured disclosure"),
        (p, 2, 151, 2, 220, "SL105", "information",
         f"no_dotted_inventory: dotted-path inventory `{inventory}` in the surface"),
        (p, 3, 137, 3, 138, "SL103", "error",
         "complete_punctuation: the surface ends with `y`, not terminal punctuation (`.` `?` `!` `;`)"),
        (p, 4, 119, 4, 122, "SL101", "error", "no_placeholder: placeholder marker `...` in the surface"),
        (p, 4, 123, 4, 136, "SL106", "warning",
         "surface_provenance_match: the surface says `pack-grounded` but grounding_source is `none`"),
        (p, 5, 114, 5, 134, "SL104", "error",
         "finite_predicate_shape: no finite verb or inflected verb form in the surface"),
        (p, 6, 13, 6, 17, "SL015", "information", "case id `zz` matches no case in the given case files"),
    ]


def test_fluency_reference_profile_differs_only_in_no_provenance_only() -> None:
    contract = Engine(profile="contract").score(FLU, [FLU_CASES], [FLU_TURNS])
    reference = Engine(profile="reference").score(FLU, [FLU_CASES], [FLU_TURNS])
    diff = {k: (contract.metrics[k], reference.metrics[k]) for k in contract.metrics
            if contract.metrics[k] != reference.metrics[k]}
    assert diff == {"no_provenance_only_rate": (0.8, 1.0)}
    assert [f.code for f in reference.findings] == ["SL015", "SL105", "SL103", "SL101", "SL106", "SL104", "SL015"]


def test_fluency_details_match_the_runners_case_details() -> None:
    result = Engine().score(FLU, [FLU_CASES], [FLU_TURNS])
    by_id = {o.case_id: o.details for o in result.outcomes}
    assert by_id["f3"] == {
        "case_id": "f3",
        "category": "composition",
        "prompt": "Where does the river go?",
        "surface": "river flows valley",
        "grounding_source": "pack",
        "predicates": {
            "no_placeholder": True,
            "no_provenance_only": True,
            "complete_punctuation": False,
            "finite_predicate_shape": True,
            "no_dotted_inventory": True,
            "surface_provenance_match": True,
        },
        "expected_predicates": ["complete_punctuation"],
        "expected_pass": False,
    }
    assert by_id["f4"] is not None and by_id["f4"]["category"] == "uncategorised"
    assert by_id["f2"] is not None and by_id["f2"]["expected_pass"] is True


# --- multi_sentence_response ---------------------------------------------------------------------


def test_multi_sentence_metrics_with_the_unbucketed_remainder() -> None:
    result = Engine().score(MSR, [MSR_CASES], [MSR_TURNS])
    assert result.metrics == {
        "articulate_sentence_rate": 0.4,  # m1 (pack), m5 (teaching)
        "cases": 5,
        "connective_present_rate": 0.5,  # m1 yes, m4 no (the two that expect one)
        "disclosure_sentence_rate": 0.2,  # m2 (oov)
        "grounded_rate": 0.6,
        "multi_sentence_rate": 0.8,
        "non_fragment_rate": 0.8,  # m5's `Proof.`
        "primed_cases": 1,
        "primed_multi_sentence_rate": 1.0,
        "subject_named_rate": 0.8,  # m4 never names `light`; cases without a subject pass
        "unarticulate_rate": 0.2,  # m4
        "unbucketed_sentence_rate": 0.2,  # m3: 2 sentences, grounded in `vault`
    }
    m = result.metrics
    assert m["articulate_sentence_rate"] + m["disclosure_sentence_rate"] + m["unarticulate_rate"] == pytest.approx(0.8)
    assert m["articulate_sentence_rate"] + m["disclosure_sentence_rate"] + m["unarticulate_rate"] + \
        m["unbucketed_sentence_rate"] == pytest.approx(1.0)
    assert result.remainder == ["m3"]
    assert result.thresholds == [] and result.passed is None
    assert [(f.record_id, f.code, f.location.line, f.location.column) for f in result.findings] == [
        ("m2", "SL205", 2, 111),
        ("m3", "SL205", 3, 132),
        ("m4", "SL201", 4, 111),
        ("m4", "SL203", 4, 111),
        ("m4", "SL207", 4, 111),
        ("m5", "SL202", 6, 156),
    ]
    details = {o.case_id: o.details for o in result.outcomes}
    assert details["m3"] == {
        "case_id": "m3", "category": "vault", "prompt": "Tell me what you recall about truth.",
        "surface": "Truth is what is real. In turn, it grounds knowledge.", "grounding_source": "vault",
        "sentence_count": 2, "each_sentence_long_enough": True, "connective_present": True, "grounded": False,
        "subject_named": True, "expects_connective": False, "primed": False,
    }
    assert details["m5"] is not None and (details["m5"]["primed"], details["m5"]["sentence_count"]) == (True, 3)


def test_multi_sentence_without_case_files() -> None:
    """No case joined: subject_named passes (no subject), connective_present is unmeasured (1.0)."""
    result = Engine().score(MSR, [], [MSR_TURNS])
    assert result.metrics["cases"] == 5
    assert result.metrics["subject_named_rate"] == 1.0
    assert result.metrics["connective_present_rate"] == 1.0
    assert result.metrics["primed_cases"] == 1  # m5's priming turn in the transcript
    assert result.missing_transcripts == [] and result.unknown_cases == []


# --- symbolic_logic ------------------------------------------------------------------------------


def test_symbolic_metrics_with_a_replay_mismatch_and_a_missing_replay() -> None:
    result = Engine().score(SYM, [SYM_CASES], [SYM_TURNS])
    assert result.metrics == {
        "all_three_pass_rate": 0.25,
        "case_count": 4,
        "overall_pass": False,
        "premise_recall": 0.75,
        "proposal_storage": 0.75,
        "replay_determinism": 0.5,
    }
    assert [(t.check.metric, t.actual, t.passed) for t in result.thresholds] == [
        ("premise_recall", 0.75, False),
        ("replay_determinism", 0.5, False),
        ("proposal_storage", 0.75, False),
    ]
    assert result.passed is False
    p = SYM_TURNS
    assert fts(result.findings) == [
        (p, 9, 175, 9, 179, "SL302", "error", "replay_determinism: replay differs: trace_hash b1… != replay b2…"),
        (p, 15, 175, 15, 179, "SL302", "error",
         "replay_determinism: no replay run captured (chain 1)"),
        (p, 18, 1, 18, 225, "SL303", "error",
         "proposal_storage: 0 pack-mutation proposal(s) fired; expected_proposals is 1"),
        (p, 18, 158, 18, 159, "SL301", "error", "premise_recall: probe vault_hits 0 < min_vault_hits 1"),
    ]
    details = {o.case_id: o.details for o in result.outcomes}
    assert details["S3"] == {
        "id": "S3", "pattern": "chain_recall", "vault_hits": 2, "trace_hash": "c1", "trace_hash_replay": "",
        "proposal_count": 1, "expected_proposals": 1, "min_vault_hits": 1, "premise_recall_pass": True,
        "replay_pass": False, "proposal_pass": True, "passed": False,
    }
    assert details["S1"] is not None and details["S1"]["passed"] is True


# --- exit codes of `surface-lint --lane` ---------------------------------------------------------


def test_exit_1_when_a_threshold_fails(capsys: pytest.CaptureFixture[str]) -> None:
    code, out = json_run(["--lane", FLU, "--cases", FLU_CASES, "--transcripts", FLU_TURNS], capsys)
    assert code == 1
    assert out["passed"] is False
    assert out["missing_transcripts"] == ["f6"] and out["unknown_cases"] == ["zz"]
    assert out["metrics"]["no_placeholder_rate"] == 0.8
    code, out = json_run(["--lane", SYM, "--cases", SYM_CASES, "--transcripts", SYM_TURNS], capsys)
    assert (code, out["passed"]) == (1, False)


def test_exit_0_when_every_threshold_passes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    turns = write(tmp_path / "f1.jsonl", Path(FLU_TURNS).read_text("utf-8").splitlines()[:1])
    code, out = json_run(["--lane", FLU, "--cases", FLU_CASES, "--transcripts", str(turns)], capsys)
    assert (code, out["passed"]) == (0, True)
    assert out["missing_transcripts"] == ["f2", "f3", "f4", "f5", "f6"]
    # No threshold set (multi-sentence is red on creation by design): nothing can fail.
    code, out = json_run(["--lane", MSR, "--cases", MSR_CASES, "--transcripts", MSR_TURNS], capsys)
    assert (code, out["passed"], out["unbucketed_cases"]) == (0, None, ["m3"])


def test_a_named_threshold_set(capsys: pytest.CaptureFixture[str]) -> None:
    code, out = json_run(["--lane", FLU, "--cases", FLU_CASES, "--transcripts", FLU_TURNS,
                          "--thresholds", "post_gloss"], capsys)
    assert code == 1
    assert out["threshold_set"] == "post_gloss"
    assert [(t["metric"], t["passed"]) for t in out["thresholds"]][-2:] == [
        ("no_provenance_only_rate", False), ("no_dotted_inventory_rate", False)]


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--lane", "no_such_lane", "--transcripts", FLU_TURNS], "unknown lane 'no_such_lane'"),
        (["--lane", FLU, "--transcripts", "/nonexistent/turns.jsonl"], "/nonexistent/turns.jsonl: cannot read"),
        (["--lane", FLU, "--cases", "/nonexistent/cases.jsonl", "--transcripts", FLU_TURNS],
         "/nonexistent/cases.jsonl: cannot read"),
        (["--lane", FLU, "--cases", FLU_CASES], "no transcripts"),
        (["--lane", FLU, "--transcripts", FLU_TURNS, "--thresholds", "nope"], "has no threshold set 'nope'"),
        (["--split", "public", "--transcripts", FLU_TURNS], "--split needs --lane"),
        (["--lane", FLU, "--transcripts", FLU_CASES], "this is a case file; pass it with --cases"),
        ([], "nothing to do"),
    ],
)
def test_exit_2_on_usage_and_unreadable_input(argv: list[str], message: str,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    assert main(argv) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.startswith("surface-lint: error: ")
    assert message in captured.err


def test_exit_2_on_an_unknown_option(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        main(["--lane", FLU, "--no-such-option"])
    assert info.value.code == 2


# --- SL011: a report's stored flag that its raw fields contradict ---------------------------------

REPORT = """{
  "lane": "deterministic_fluency",
  "version": "v1",
  "split": "dev",
  "metrics": {"cases": 1, "complete_punctuation_rate": 1.0},
  "cases": [
    {"case_id": "f3", "expected_predicates": ["complete_punctuation"], "expected_pass": true,
     "grounding_source": "pack", "surface": "river flows valley",
     "predicates": {"complete_punctuation": true, "finite_predicate_shape": true, "no_placeholder": true}}
  ]
}
"""
SL011 = [
    ("report.json", 7, 89, 7, 93, "SL011", "warning", "stored `expected_pass` is true but the raw fields give false"),
    ("report.json", 9, 45, 9, 49, "SL011", "warning",
     "stored `predicates.complete_punctuation` is true but the raw fields give false"),
]


def test_sl011_when_checking_a_report(tmp_path: Path) -> None:
    result = Engine().check_bytes("report.json", REPORT.encode())
    assert fts(result.findings, {"SL011"}) == SL011
    assert [f.code for f in result.findings] == ["SL011", "SL103", "SL011"]


def test_sl011_when_scoring_a_report(tmp_path: Path) -> None:
    path = write(tmp_path / "report.json", REPORT)
    result = Engine().score(None, [], [str(path)])
    assert result.lane == FLU
    assert result.metrics["complete_punctuation_rate"] == 0.0  # recomputed, not the stored 1.0
    assert fts(result.findings, {"SL011"}) == [(str(path), *f[1:]) for f in SL011]


def test_sl011_symbolic_report_flags(tmp_path: Path) -> None:
    text = """{
  "lane": "symbolic_logic",
  "case_details": [
    {"id": "S1", "vault_hits": 0, "trace_hash": "a", "trace_hash_replay": "a", "proposal_count": 1,
     "expected_proposals": 1, "min_vault_hits": 1,
     "premise_recall_pass": true, "replay_pass": true, "proposal_pass": true, "passed": true}
  ]
}
"""
    found = Engine().check_bytes("sym.json", text.encode()).findings
    assert fts(found, {"SL011"}) == [
        ("sym.json", 6, 29, 6, 33, "SL011", "warning", "stored `premise_recall_pass` is true but the raw fields give false"),
        ("sym.json", 6, 89, 6, 93, "SL011", "warning", "stored `passed` is true but the raw fields give false"),
    ]


# --- --split / --version-dir discovery ----------------------------------------------------------


def test_split_discovery_inside_an_evals_tree(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    cases = Path(FLU_CASES).read_text("utf-8").splitlines()
    base = tmp_path / "evals" / FLU
    v1 = write(base / "public" / "v1" / "cases.jsonl", cases[:2])
    v2 = write(base / "public" / "v2" / "cases.jsonl", cases[:3])
    dev = write(base / "dev" / "cases.jsonl", cases[3:])
    work = tmp_path / "work" / "deeper"
    work.mkdir(parents=True)
    monkeypatch.chdir(work)  # found by searching upward
    argv = ["--lane", FLU, "--transcripts", FLU_TURNS]
    code, out = json_run([*argv, "--split", "public", "--version-dir", "v1"], capsys)
    assert out["sources"] == [str(v1), FLU_TURNS]
    assert [c["case_id"] for c in out["cases"]] == ["f1", "f2"]
    assert out["unknown_cases"] == ["f3", "f4", "f5", "zz"]
    assert code == 0
    code, out = json_run([*argv, "--split", "public"], capsys)  # the newest version
    assert out["sources"] == [str(v2), FLU_TURNS]
    assert code == 1  # f3 fails complete_punctuation
    code, out = json_run([*argv, "--split", "dev"], capsys)
    assert out["sources"] == [str(dev), FLU_TURNS]
    assert main([*argv, "--split", "public", "--version-dir", "v9"]) == 2
    assert "v9/cases.jsonl: no such case file" in capsys.readouterr().err
    assert main([*argv, "--split", "holdouts"]) == 2
    capsys.readouterr()
    # The spelling: `--version v1` names the version folder when it has a value.
    code, out = json_run([*argv, "--split", "public", "--version", "v1"], capsys)
    assert out["sources"] == [str(v1), FLU_TURNS]
    assert main([*argv, "--version", "v1"]) == 2
    assert "use it with --split" in capsys.readouterr().err
    assert main([*argv, "--split", "public", "--version", "v1", "--version-dir", "v2"]) == 2
    assert "name different version folders" in capsys.readouterr().err


def test_version_alone_prints_the_tools_version(capsys: pytest.CaptureFixture[str]) -> None:
    from surface_lint import __version__

    assert main(["--version"]) == 0
    assert capsys.readouterr().out == f"surface-lint {__version__}\n"


def test_split_discovery_without_an_evals_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["--lane", FLU, "--split", "dev", "--transcripts", FLU_TURNS]) == 2
    assert f"no evals/{FLU}/ folder at or above" in capsys.readouterr().err


# --- determinism ---------------------------------------------------------------------------------


@pytest.mark.parametrize("fmt", ["text", "json"])
@pytest.mark.parametrize(
    "argv",
    [
        ["--lane", FLU, "--cases", FLU_CASES, "--transcripts", FLU_TURNS],
        ["--lane", MSR, "--cases", MSR_CASES, "--transcripts", MSR_TURNS],
        ["--lane", SYM, "--cases", SYM_CASES, "--transcripts", SYM_TURNS],
        ["check", FLU_TURNS, MSR_TURNS, "--cases", FLU_CASES],
    ],
)
def test_same_input_twice_gives_byte_identical_output(argv: list[str], fmt: str, tmp_path: Path,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    inputs = [Path(a) for a in argv if a.endswith(".jsonl")]
    before = snapshot(inputs)
    outputs = []
    codes = []
    for i in range(2):
        out = tmp_path / f"out{i}"
        codes.append(main([*argv, "--output-format", fmt, "-o", str(out)]))
        outputs.append(out.read_bytes())
    assert codes[0] == codes[1]
    assert outputs[0] == outputs[1]
    assert len(outputs[0]) > 100
    assert snapshot(inputs) == before
    capsys.readouterr()


# --- a case scored twice; `check` exit codes ------------------------------------------------------


def test_a_second_scored_record_for_a_case_is_a_warning(tmp_path: Path) -> None:
    lines = Path(FLU_TURNS).read_text("utf-8").splitlines()
    again = write(tmp_path / "again.jsonl", [lines[2], lines[0]])  # f3, then f1
    result = Engine().score(FLU, [FLU_CASES], [FLU_TURNS, str(again)])
    assert result.metrics["cases"] == 5
    assert [(f.path, f.location.line, f.location.column, f.location.end_column, f.severity.label, f.message)
            for f in result.findings if f.code == "SL005"] == [
        (str(again), 1, 1, len(lines[2]) + 1, "warning", "a second scored record for case `f3` replaces the first"),
        (str(again), 2, 1, len(lines[0]) + 1, "warning", "a second scored record for case `f1` replaces the first"),
    ]


def test_check_exit_codes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    clean = write(tmp_path / "clean.jsonl", ['{"case_id": "c1", "surface": "It is fine."}'])
    info = write(tmp_path / "info.jsonl", ['{"case_id": "c1", "surface": "It is listed as a.b; c.d; e.f today."}'])
    assert main(["check", str(clean)]) == 0
    assert main(["check", str(info)]) == 0  # information is below the default --fail-on warning
    assert main(["check", str(info), "--fail-on", "information"]) == 1
    assert main(["check", FLU_TURNS]) == 1
    assert main(["check", str(tmp_path / "absent.jsonl")]) == 2
    out = capsys.readouterr()
    assert "absent.jsonl: cannot read" in out.err
