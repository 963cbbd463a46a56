# ruff: noqa: E501  (the expected outputs are written out line for line, as diff prints them)
"""`surface-lint diff` of two runs of every case-driven shipped lane ([casework], directly or
through `extends`): a fallen metric (a category of a `by` metric on its own) and every flipped
case (its id, pass -> FAIL, the values that failed it) are reported and exit 1; a run against
an empty run (every case vanished) exits 1, as for a classic lane.

Each "old" run is a real scored run of the lane's dev split (the corpus's cases and captures,
written as `--output-format json`); each "new" run is the same captures with one passing case's
records edited (tests/cli/casework_support.py), scored by `diff` itself.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from casework_support import CASE_DRIVEN, dev_captures, dev_cases, flipped_captures, scored_report
from cli_support import ROOT, cli

FLIPPED: dict[str, str] = {
    "calibration": """\
diff calibration: old.json -> new.jsonl · profile contract · REGRESSED (3 regression(s))
lane calibration, chosen by flag: --lane
metrics:
  class_counts.coherent                    4 -> 4              +0
  class_counts.correction_proposed         4 -> 4              +0
  class_counts.no_grounding                4 -> 4              +0
  coherent_accuracy                   1.0000 -> 1.0000    +0.0000
  correction_proposed_accuracy        0.7500 -> 0.7500    +0.0000
  no_grounding_accuracy               1.0000 -> 0.7500    -0.2500  REGRESSED
  overall_accuracy                    0.9167 -> 0.8333    -0.0834  REGRESSED
  overall_pass                         false -> false
flipped verdicts (1 case(s)):
  CAL-DEV-001  passed: pass -> FAIL: case-check-failed: `passed` is false: inferred_class == case.expected_class (inferred_class = "coherent", case.expected_class = "no_grounding")
    inferred_class: "no_grounding" -> "coherent"
    vault_hits: 0 -> 3
unchanged: 11 case(s)
""",
    "classical_literature_ood": """\
diff classical_literature_ood: old.json -> new.jsonl · profile contract · REGRESSED (4 regression(s))
lane classical_literature_ood, chosen by flag: --lane
metrics:
  accuracy               1.0000 -> 0.9231    -0.0769  REGRESSED
  by_construction.C01    1.0000 -> 0.0000    -1.0000  REGRESSED
  by_construction.C02    1.0000 -> 1.0000    +0.0000
  by_construction.C03    1.0000 -> 1.0000    +0.0000
  by_construction.C04    1.0000 -> 1.0000    +0.0000
  by_construction.C05    1.0000 -> 1.0000    +0.0000
  by_construction.C06    1.0000 -> 1.0000    +0.0000
  by_construction.C07    1.0000 -> 1.0000    +0.0000
  by_construction.C08    1.0000 -> 1.0000    +0.0000
  by_construction.C09    1.0000 -> 1.0000    +0.0000
  by_construction.C10    1.0000 -> 1.0000    +0.0000
  by_construction.C11    1.0000 -> 1.0000    +0.0000
  by_construction.C12    1.0000 -> 1.0000    +0.0000
  by_construction.C13    1.0000 -> 1.0000    +0.0000
  passed                     13 -> 12             -1
  serving_accuracy       0.3077 -> 0.2308    -0.0769  REGRESSED
  serving_passed              4 -> 3              -1
  total                      13 -> 13             +0
flipped verdicts (1 case(s)):
  CLO-PUB-DEV_C01  passed: pass -> FAIL: accepted_surface: the surface is none of the case's accept_surfaces; required_words: missing required word: hero; missing required word: leaves; missing required word: homeland; word_order: word order violated: expected ['hero', 'leaves', 'homeland']
    old: Hero leaves homeland
    new: zzz
    failure_reasons: [] -> ["missing required word: hero", "missing required word: leaves", "missing required word: homeland", "word order violated: expected ['hero', 'leaves', 'homeland']"]
unchanged: 12 case(s)
""",
    "compositionality": """\
diff compositionality: old.json -> new.jsonl · profile contract · REGRESSED (3 regression(s))
lane compositionality, chosen by flag: --lane
metrics:
  all_pass_rate                0.3333 -> 0.0000    -0.3333  REGRESSED
  case_count                        3 -> 3              +0
  compositional_recall_rate    0.3333 -> 0.0000    -0.3333  REGRESSED
  no_leakage_rate              0.3333 -> 0.3333    +0.0000
  overall_pass                  false -> false
  premises_stored_rate         0.3333 -> 0.3333    +0.0000
  replay_determinism           1.0000 -> 1.0000    +0.0000
flipped verdicts (1 case(s)):
  CMP-DEV-003  passed: pass -> FAIL: entailment_token: none of the expected tokens (structure, order) is in the answer
    compositional_hit: true -> false
unchanged: 2 case(s)
""",
    "conversational_thread_coherence": """\
diff conversational_thread_coherence: old.json -> new.jsonl · profile contract · REGRESSED (3 regression(s))
lane conversational_thread_coherence, chosen by flag: --lane
metrics:
  cases                          2 -> 2              +0
  is_grounded_rate          1.0000 -> 1.0000    +0.0000
  length_adequate_rate      1.0000 -> 0.4286    -0.5714  REGRESSED
  no_placeholder_rate       1.0000 -> 1.0000    +0.0000
  no_topic_drift_rate       1.0000 -> 1.0000    +0.0000
  not_walk_fragment_rate    1.0000 -> 0.4286    -0.5714  REGRESSED
  topic_anchor_rate         1.0000 -> 1.0000    +0.0000
  total_turns                    7 -> 7              +0
flipped verdicts (1 case(s)):
  dev_thread_oov_recovery_001  passed: pass -> FAIL: alphabetic_tokens: 1 alphabetic tokens; at least 4 required (a walk fragment); length_adequate: 3 characters; at least 20 required
unchanged: 1 case(s)
""",
    "discourse_paragraph": """\
diff discourse_paragraph: old.json -> new.jsonl · profile contract · REGRESSED (2 regression(s))
lane discourse_paragraph, chosen by flag: --lane
metrics:
  accuracy                          1.0000 -> 0.0000    -1.0000  REGRESSED
  mean_sentence_count               4.0000 -> 1.0000    -3.0000
  mean_subject_coverage             1.0000 -> 0.0000    -1.0000
  passed                                 1 -> 0              -1
  per_sentence_grammar_pass_rate    1.0000 -> 1.0000    +0.0000
  replay_determinism_rate           1.0000 -> 1.0000    +0.0000
  total                                  1 -> 1              +0
flipped verdicts (1 case(s)):
  DP-DEV_001  passed: pass -> FAIL: case-check-failed: a sentence does not start with a capital letter; subject_coverage: subject coverage 0.0 < 0.75; discourse_marker: no discourse marker (furthermore, next) in the paragraph
    old: Wisdom grounds knowledge. Next, knowledge requires evidence. Furthermore, evidence supports truth. Next, truth reveals reality.
    new: zzz
    discourse_markers_found: ["furthermore", "next"] -> []
    failure_reasons: [] -> ["sentence count 1 outside [4, 6]", "subject coverage 0.0 < 0.75", "no discourse marker (furthermore, next) in the paragraph", "a sentence does not start with a capital letter"]
    sentence_count: 4 -> 1
    subject_coverage: 1.0 -> 0.0
unchanged: 0 case(s)
""",
    "elementary_mathematics_ood": """\
diff elementary_mathematics_ood: old.json -> new.jsonl · profile contract · REGRESSED (4 regression(s))
lane elementary_mathematics_ood, chosen by flag: --lane
metrics:
  accuracy               1.0000 -> 0.9231    -0.0769  REGRESSED
  by_construction.C01    1.0000 -> 0.0000    -1.0000  REGRESSED
  by_construction.C02    1.0000 -> 1.0000    +0.0000
  by_construction.C03    1.0000 -> 1.0000    +0.0000
  by_construction.C04    1.0000 -> 1.0000    +0.0000
  by_construction.C05    1.0000 -> 1.0000    +0.0000
  by_construction.C06    1.0000 -> 1.0000    +0.0000
  by_construction.C07    1.0000 -> 1.0000    +0.0000
  by_construction.C08    1.0000 -> 1.0000    +0.0000
  by_construction.C09    1.0000 -> 1.0000    +0.0000
  by_construction.C10    1.0000 -> 1.0000    +0.0000
  by_construction.C11    1.0000 -> 1.0000    +0.0000
  by_construction.C12    1.0000 -> 1.0000    +0.0000
  by_construction.C13    1.0000 -> 1.0000    +0.0000
  passed                     13 -> 12             -1
  serving_accuracy       0.3077 -> 0.2308    -0.0769  REGRESSED
  serving_passed              4 -> 3              -1
  total                      13 -> 13             +0
flipped verdicts (1 case(s)):
  EMO-PUB-DEV_C01  passed: pass -> FAIL: accepted_surface: the surface is none of the case's accept_surfaces; required_words: missing required word: addition; missing required word: yields; missing required word: sum; word_order: word order violated: expected ['addition', 'yields', 'sum']
    old: Addition yields sum
    new: zzz
    failure_reasons: [] -> ["missing required word: addition", "missing required word: yields", "missing required word: sum", "word order violated: expected ['addition', 'yields', 'sum']"]
unchanged: 12 case(s)
""",
    "english_fluency_ood": """\
diff english_fluency_ood: old.json -> new.jsonl · profile contract · REGRESSED (4 regression(s))
lane english_fluency_ood, chosen by flag: --lane
metrics:
  accuracy               1.0000 -> 0.9231    -0.0769  REGRESSED
  by_construction.C01    1.0000 -> 0.0000    -1.0000  REGRESSED
  by_construction.C02    1.0000 -> 1.0000    +0.0000
  by_construction.C03    1.0000 -> 1.0000    +0.0000
  by_construction.C04    1.0000 -> 1.0000    +0.0000
  by_construction.C05    1.0000 -> 1.0000    +0.0000
  by_construction.C06    1.0000 -> 1.0000    +0.0000
  by_construction.C07    1.0000 -> 1.0000    +0.0000
  by_construction.C08    1.0000 -> 1.0000    +0.0000
  by_construction.C09    1.0000 -> 1.0000    +0.0000
  by_construction.C10    1.0000 -> 1.0000    +0.0000
  by_construction.C11    1.0000 -> 1.0000    +0.0000
  by_construction.C12    1.0000 -> 1.0000    +0.0000
  by_construction.C13    1.0000 -> 1.0000    +0.0000
  passed                     13 -> 12             -1
  serving_accuracy       0.3077 -> 0.2308    -0.0769  REGRESSED
  serving_passed              4 -> 3              -1
  total                      13 -> 13             +0
flipped verdicts (1 case(s)):
  EFO-DEV_C01  passed: pass -> FAIL: accepted_surface: the surface is none of the case's accept_surfaces; required_words: missing required word: river; missing required word: flows; missing required word: valley; word_order: word order violated: expected ['river', 'flows', 'valley']
    old: River flows valley
    new: zzz
    failure_reasons: [] -> ["missing required word: river", "missing required word: flows", "missing required word: valley", "word order violated: expected ['river', 'flows', 'valley']"]
unchanged: 12 case(s)
""",
    "fabrication_control": """\
diff fabrication_control: old.json -> new.jsonl · profile contract · REGRESSED (3 regression(s))
lane fabrication_control, chosen by flag: --lane
metrics:
  coincidence_rate                     0.0000 -> 0.0000    +0.0000
  fabrication_rate                     0.0000 -> 0.0833    +0.0833  REGRESSED
  grounding_source_matches_expected    1.0000 -> 1.0000    +0.0000
  n                                        12 -> 12             +0
  refusal_recall                       1.0000 -> 0.9167    -0.0833  REGRESSED
  trace_evidence_present               1.0000 -> 1.0000    +0.0000
flipped verdicts (1 case(s)):
  fab_dev_a1  passed: pass -> FAIL: refusal: the surface does not refuse (none of the refusal markers); no_fabrication_marker: relation-asserting word `means` in the surface
    old: I haven't learned 'alpha' yet (intent: verification). Mounted lexicon packs: en_core_cognition_v1, en_core_meta_v1, en_core_attitude_v1, en_core_temporal_v1, en_core_action_v1, en_core_quantitative_v1
    new: Alpha means beta.
    fabrication_marker_observed: false -> true
    outcome_matches_expected: true -> false
    refusal_observed: true -> false
unchanged: 11 case(s)
""",
    "foundational_physics_ood": """\
diff foundational_physics_ood: old.json -> new.jsonl · profile contract · REGRESSED (4 regression(s))
lane foundational_physics_ood, chosen by flag: --lane
metrics:
  accuracy               1.0000 -> 0.9231    -0.0769  REGRESSED
  by_construction.C01    1.0000 -> 0.0000    -1.0000  REGRESSED
  by_construction.C02    1.0000 -> 1.0000    +0.0000
  by_construction.C03    1.0000 -> 1.0000    +0.0000
  by_construction.C04    1.0000 -> 1.0000    +0.0000
  by_construction.C05    1.0000 -> 1.0000    +0.0000
  by_construction.C06    1.0000 -> 1.0000    +0.0000
  by_construction.C07    1.0000 -> 1.0000    +0.0000
  by_construction.C08    1.0000 -> 1.0000    +0.0000
  by_construction.C09    1.0000 -> 1.0000    +0.0000
  by_construction.C10    1.0000 -> 1.0000    +0.0000
  by_construction.C11    1.0000 -> 1.0000    +0.0000
  by_construction.C12    1.0000 -> 1.0000    +0.0000
  by_construction.C13    1.0000 -> 1.0000    +0.0000
  passed                     13 -> 12             -1
  serving_accuracy       0.3077 -> 0.2308    -0.0769  REGRESSED
  serving_passed              4 -> 3              -1
  total                      13 -> 13             +0
flipped verdicts (1 case(s)):
  FPO-PUB-DEV_C01  passed: pass -> FAIL: accepted_surface: the surface is none of the case's accept_surfaces; required_words: missing required word: force; missing required word: moves; missing required word: object; word_order: word order violated: expected ['force', 'moves', 'object']
    old: Force moves object
    new: zzz
    failure_reasons: [] -> ["missing required word: force", "missing required word: moves", "missing required word: object", "word order violated: expected ['force', 'moves', 'object']"]
unchanged: 12 case(s)
""",
    "grammatical_coverage": """\
diff grammatical_coverage: old.json -> new.jsonl · profile contract · REGRESSED (4 regression(s))
lane grammatical_coverage, chosen by flag: --lane
metrics:
  accuracy               1.0000 -> 0.9756    -0.0244  REGRESSED
  by_construction.C01    1.0000 -> 0.7500    -0.2500  REGRESSED
  by_construction.C02    1.0000 -> 1.0000    +0.0000
  by_construction.C03    1.0000 -> 1.0000    +0.0000
  by_construction.C04    1.0000 -> 1.0000    +0.0000
  by_construction.C05    1.0000 -> 1.0000    +0.0000
  by_construction.C06    1.0000 -> 1.0000    +0.0000
  by_construction.C07    1.0000 -> 1.0000    +0.0000
  by_construction.C08    1.0000 -> 1.0000    +0.0000
  by_construction.C09    1.0000 -> 1.0000    +0.0000
  by_construction.C10    1.0000 -> 1.0000    +0.0000
  by_construction.C11    1.0000 -> 1.0000    +0.0000
  by_construction.C12    1.0000 -> 1.0000    +0.0000
  by_construction.C13    1.0000 -> 1.0000    +0.0000
  passed                     41 -> 40             -1
  serving_accuracy       0.3415 -> 0.3171    -0.0244  REGRESSED
  serving_passed             14 -> 13             -1
  total                      41 -> 41             +0
flipped verdicts (1 case(s)):
  gram_C01_001  passed: pass -> FAIL: accepted_surface: the surface is none of the case's accept_surfaces; required_words: missing required word: light; missing required word: reveals; missing required word: truth; word_order: word order violated: expected ['light', 'reveals', 'truth']
    old: Light reveals truth
    new: zzz
    failure_reasons: [] -> ["missing required word: light", "missing required word: reveals", "missing required word: truth", "word order violated: expected ['light', 'reveals', 'truth']"]
unchanged: 40 case(s)
""",
    "inference_closure": """\
diff inference_closure: old.json -> new.jsonl · profile contract · REGRESSED (3 regression(s))
lane inference_closure, chosen by flag: --lane
metrics:
  all_pass_rate           0.2000 -> 0.0000    -0.2000  REGRESSED
  case_count                   5 -> 5              +0
  derived_recall_rate     0.2000 -> 0.0000    -0.2000  REGRESSED
  overall_pass             false -> false
  premises_stored_rate    0.4000 -> 0.4000    +0.0000
  replay_determinism      1.0000 -> 1.0000    +0.0000
flipped verdicts (1 case(s)):
  INF-DEV-002  passed: pass -> FAIL: entailment_token: none of the expected tokens (meaning) is in the answer
    derived_recall_pass: true -> false
    surface_hit: true -> false
unchanged: 4 case(s)
""",
    "self_consistency_over_time": """\
diff self_consistency_over_time: old.json -> new.jsonl · profile contract · REGRESSED (3 regression(s))
lane self_consistency_over_time, chosen by flag: --lane
metrics:
  byte_identical_rate             1.0000 -> 1.0000    +0.0000
  cases                                2 -> 2              +0
  grounding_source_stable_rate    1.0000 -> 1.0000    +0.0000
  key_terms_stable_rate           1.0000 -> 0.5000    -0.5000  REGRESSED
  no_walk_fragment_rate           1.0000 -> 0.5000    -0.5000  REGRESSED
flipped verdicts (1 case(s)):
  dev_consistency_long_thread_001  passed: pass -> FAIL: key_terms_present: key term `truth` is not in the probe answer; not_walk_fragment: 1 alphabetic tokens; at least 4 required (a walk fragment)
    key_terms_stable: true -> false
    no_walk_fragment: true -> false
unchanged: 1 case(s)
""",
}

EMPTY: dict[str, tuple[int, str]] = {
    "calibration": (5, "vanished cases (12): CAL-DEV-001, CAL-DEV-002, CAL-DEV-003, CAL-DEV-004, CAL-DEV-005, CAL-DEV-006, CAL-DEV-007, CAL-DEV-008, CAL-DEV-009, CAL-DEV-010, CAL-DEV-011, CAL-DEV-012"),
    "classical_literature_ood": (15, "vanished cases (13): CLO-PUB-DEV_C01, CLO-PUB-DEV_C02, CLO-PUB-DEV_C03, CLO-PUB-DEV_C04, CLO-PUB-DEV_C05, CLO-PUB-DEV_C06, CLO-PUB-DEV_C07, CLO-PUB-DEV_C08, CLO-PUB-DEV_C09, CLO-PUB-DEV_C10, CLO-PUB-DEV_C11, CLO-PUB-DEV_C12, CLO-PUB-DEV_C13"),
    "compositionality": (6, "vanished cases (3): CMP-DEV-001, CMP-DEV-002, CMP-DEV-003"),
    "conversational_thread_coherence": (6, "vanished cases (2): dev_thread_oov_recovery_001, dev_thread_correction_mid_002"),
    "discourse_paragraph": (3, "vanished cases (1): DP-DEV_001"),
    "elementary_mathematics_ood": (15, "vanished cases (13): EMO-PUB-DEV_C01, EMO-PUB-DEV_C02, EMO-PUB-DEV_C03, EMO-PUB-DEV_C04, EMO-PUB-DEV_C05, EMO-PUB-DEV_C06, EMO-PUB-DEV_C07, EMO-PUB-DEV_C08, EMO-PUB-DEV_C09, EMO-PUB-DEV_C10, EMO-PUB-DEV_C11, EMO-PUB-DEV_C12, EMO-PUB-DEV_C13"),
    "english_fluency_ood": (15, "vanished cases (13): EFO-DEV_C01, EFO-DEV_C02, EFO-DEV_C03, EFO-DEV_C04, EFO-DEV_C05, EFO-DEV_C06, EFO-DEV_C07, EFO-DEV_C08, EFO-DEV_C09, EFO-DEV_C10, EFO-DEV_C11, EFO-DEV_C12, EFO-DEV_C13"),
    "fabrication_control": (4, "vanished cases (12): fab_dev_a1, fab_dev_a2, fab_dev_a3, fab_dev_a4, fab_dev_b1, fab_dev_b2, fab_dev_b3, fab_dev_b4, fab_dev_c1, fab_dev_c2, fab_dev_c3, fab_dev_c4"),
    "foundational_physics_ood": (15, "vanished cases (13): FPO-PUB-DEV_C01, FPO-PUB-DEV_C02, FPO-PUB-DEV_C03, FPO-PUB-DEV_C04, FPO-PUB-DEV_C05, FPO-PUB-DEV_C06, FPO-PUB-DEV_C07, FPO-PUB-DEV_C08, FPO-PUB-DEV_C09, FPO-PUB-DEV_C10, FPO-PUB-DEV_C11, FPO-PUB-DEV_C12, FPO-PUB-DEV_C13"),
    "grammatical_coverage": (15, "vanished cases (41): gram_C01_001, gram_C01_002, gram_C01_003, gram_C01_004, gram_C02_001, gram_C02_002, gram_C02_003, gram_C02_004, gram_C03_001, gram_C03_002, gram_C03_003, gram_C04_001, gram_C04_002, gram_C04_003, gram_C05_001, gram_C05_002, gram_C05_003, gram_C06_001, gram_C06_002, gram_C06_003 …"),
    "inference_closure": (5, "vanished cases (5): INF-DEV-001, INF-DEV-002, INF-DEV-003, INF-DEV-004, INF-DEV-005"),
    "self_consistency_over_time": (4, "vanished cases (2): dev_consistency_long_thread_001, dev_consistency_with_anaphora_002"),
}

COMP_EMPTY = """\
diff compositionality: old.json -> empty.jsonl · profile contract · REGRESSED (6 regression(s))
lane compositionality, chosen by flag: --lane
metrics:
  all_pass_rate                0.3333 -> -                  REGRESSED
  case_count                        3 -> -
  compositional_recall_rate    0.3333 -> -                  REGRESSED
  no_leakage_rate              0.3333 -> -                  REGRESSED
  overall_pass                  false -> -                  REGRESSED
  premises_stored_rate         0.3333 -> -                  REGRESSED
  replay_determinism           1.0000 -> -                  REGRESSED
vanished cases (3): CMP-DEV-001, CMP-DEV-002, CMP-DEV-003
unchanged: 0 case(s)
"""


def test_every_case_driven_shipped_lane_is_here() -> None:
    """A lane file with [casework], or extending one that has it, is one of CASE_DRIVEN."""
    import tomllib

    files = {path.stem: tomllib.loads(path.read_text("utf-8")) for path in sorted((ROOT / "rules").glob("*.toml"))}
    found = {name for name, data in files.items() if "casework" in data}
    while grown := {n for n, d in files.items() if d["lane"].get("extends") in found} - found:
        found |= grown
    # symbolic_logic (its cases are not in ../shared/corpus/lanes) has its diff tested on the
    # runtime's own runs: tests/engine/test_diff.py, tests/reporters/test_sarif.py.
    assert sorted(found) == sorted([*CASE_DRIVEN, "symbolic_logic"])
    assert len(CASE_DRIVEN) == 12


def _runs(corpus: Path, lane: str, folder: Path) -> tuple[Path, Path]:
    lanes = corpus / "lanes"
    return (scored_report(lanes, lane, dev_captures(lanes, lane), folder / "old.json"),
            flipped_captures(lanes, lane, folder / "new.jsonl"))


@pytest.mark.parametrize("lane", CASE_DRIVEN)
def test_a_flipped_case_and_its_fallen_metrics_are_a_regression(lane: str, corpus: Path, tmp_path: Path) -> None:
    _runs(corpus, lane, tmp_path)
    run = cli("diff", "old.json", "new.jsonl", "--lane", lane, "--cases", str(dev_cases(corpus / "lanes", lane)),
              cwd=tmp_path)
    assert (run.code, run.err) == (1, "")
    assert run.out == FLIPPED[lane]


@pytest.mark.parametrize("lane", CASE_DRIVEN)
def test_two_lane_reports_are_compared_as_the_runs_they_report(lane: str, corpus: Path, tmp_path: Path) -> None:
    """The new run written as a report too: read back, the same diff (no --cases needed)."""
    _, new = _runs(corpus, lane, tmp_path)
    scored_report(corpus / "lanes", lane, new, tmp_path / "new.json")
    run = cli("diff", "old.json", "new.json", cwd=tmp_path)
    assert (run.code, run.err) == (1, "")
    assert run.out == FLIPPED[lane].replace(" -> new.jsonl · ", " -> new.json · ", 1).replace(
        f"lane {lane}, chosen by flag: --lane\n",
        f"lane {lane}, chosen by fields: the report's `lane` field of old.json\n"
        f"lane {lane}, chosen by fields: the report's `lane` field of new.json\n", 1)


@pytest.mark.parametrize("lane", CASE_DRIVEN)
def test_a_run_against_an_empty_run_is_a_regression(lane: str, corpus: Path, tmp_path: Path) -> None:
    _runs(corpus, lane, tmp_path)
    (tmp_path / "empty.jsonl").write_text("", "utf-8")
    run = cli("diff", "old.json", "empty.jsonl", "--lane", lane, "--cases", str(dev_cases(corpus / "lanes", lane)),
              cwd=tmp_path)
    regressions, vanished = EMPTY[lane]
    lines = run.out.splitlines()
    assert (run.code, run.err) == (1, "")
    assert lines[0] == f"diff {lane}: old.json -> empty.jsonl · profile contract · REGRESSED ({regressions} regression(s))"
    assert lines[1] == f"lane {lane}, chosen by flag: --lane"
    assert lines[-2:] == [vanished, "unchanged: 0 case(s)"]


def test_compositionality_against_an_empty_run_in_full(corpus: Path, tmp_path: Path) -> None:
    _runs(corpus, "compositionality", tmp_path)
    (tmp_path / "empty.jsonl").write_text("", "utf-8")
    run = cli("diff", "old.json", "empty.jsonl", "--lane", "compositionality", "--cases",
              str(dev_cases(corpus / "lanes", "compositionality")), cwd=tmp_path)
    assert (run.code, run.out, run.err) == (1, COMP_EMPTY, "")


def test_the_same_run_twice_is_no_regression(corpus: Path, tmp_path: Path) -> None:
    _runs(corpus, "grammatical_coverage", tmp_path)
    run = cli("diff", "old.json", "old.json", cwd=tmp_path)
    lines = run.out.splitlines()
    assert (run.code, run.err) == (0, "")
    assert lines[0] == "diff grammatical_coverage: old.json -> old.json · profile contract · no regression"
    assert lines[1] == "lane grammatical_coverage, chosen by fields: the report's `lane` field of old.json"
    assert lines[3] == "  accuracy               1.0000 -> 1.0000    +0.0000"
    assert lines[-1] == "unchanged: 41 case(s)"
    assert not any("REGRESSED" in line or "improved" in line for line in lines)


def test_every_case_failing_is_every_case_flipped(corpus: Path, tmp_path: Path) -> None:
    """The issue's measurement: accuracy 1.0 -> 0.0, all 41 cases fail (was: no regression, exit 0)."""
    lanes = corpus / "lanes"
    scored_report(lanes, "grammatical_coverage", dev_captures(lanes, "grammatical_coverage"), tmp_path / "old.json")
    records = [json.loads(line) for line in dev_captures(lanes, "grammatical_coverage").read_text("utf-8").splitlines()]
    (tmp_path / "new.jsonl").write_text("".join(json.dumps({**r, "surface": "zzz"}) + "\n" for r in records), "utf-8")
    run = cli("diff", "old.json", "new.jsonl", "--lane", "grammatical_coverage", "--cases",
              str(dev_cases(lanes, "grammatical_coverage")), cwd=tmp_path)
    lines = run.out.splitlines()
    assert (run.code, run.err) == (1, "")
    assert lines[0] == ("diff grammatical_coverage: old.json -> new.jsonl · profile contract · "
                        "REGRESSED (56 regression(s))")
    assert lines[1] == "lane grammatical_coverage, chosen by flag: --lane"
    assert lines[3] == "  accuracy               1.0000 -> 0.0000    -1.0000  REGRESSED"
    assert "flipped verdicts (41 case(s)):" in lines
    assert sum(1 for line in lines if "  passed: pass -> FAIL: " in line) == 41
    assert lines[-1] == "unchanged: 0 case(s)"


def test_a_case_that_passes_again_is_an_improvement(corpus: Path, tmp_path: Path) -> None:
    _, new = _runs(corpus, "compositionality", tmp_path)
    scored_report(corpus / "lanes", "compositionality", new, tmp_path / "new.json")
    run = cli("diff", "new.json", "old.json", cwd=tmp_path)
    assert (run.code, run.err) == (0, "")
    assert run.out == (
        "diff compositionality: new.json -> old.json · profile contract · no regression\n"
        "lane compositionality, chosen by fields: the report's `lane` field of new.json\n"
        "lane compositionality, chosen by fields: the report's `lane` field of old.json\n"
        "metrics:\n"
        "  all_pass_rate                0.0000 -> 0.3333    +0.3333  improved\n"
        "  case_count                        3 -> 3              +0\n"
        "  compositional_recall_rate    0.0000 -> 0.3333    +0.3333  improved\n"
        "  no_leakage_rate              0.3333 -> 0.3333    +0.0000\n"
        "  overall_pass                  false -> false\n"
        "  premises_stored_rate         0.3333 -> 0.3333    +0.0000\n"
        "  replay_determinism           1.0000 -> 1.0000    +0.0000\n"
        "flipped verdicts (1 case(s)):\n"
        "  CMP-DEV-003  passed: FAIL -> pass\n"
        "    compositional_hit: false -> true\n"
        "unchanged: 2 case(s)\n")


def _formatted(corpus: Path, folder: Path, fmt: str) -> tuple[int, str]:
    _runs(corpus, "compositionality", folder)
    run = cli("diff", "old.json", "new.jsonl", "--lane", "compositionality", "--cases",
              str(dev_cases(corpus / "lanes", "compositionality")), "--output-format", fmt, cwd=folder)
    assert run.err == ""
    return run.code, run.out


def test_the_flipped_case_in_json(corpus: Path, tmp_path: Path) -> None:
    code, out = _formatted(corpus, tmp_path, "json")
    payload = json.loads(out)
    assert (code, payload["regressed"], payload["regressions"], payload["unchanged"]) == (1, True, 3, 2)
    assert payload["changed"] == [{
        "case_id": "CMP-DEV-003", "group": "novel_relation_on_seen_pair", "regressed": True,
        "flips": [{"predicate": "passed", "code": "", "old": True, "new": False, "old_message": "",
                   "new_message": "entailment_token: none of the expected tokens (structure, order) is in the answer"}],
        "old_surface": None, "new_surface": None, "fields": {"compositional_hit": [True, False]}}]
    assert [(m["name"], m["better"], m["regressed"]) for m in payload["metrics"]] == [
        ("all_pass_rate", "higher", True), ("case_count", None, False), ("compositional_recall_rate", "higher", True),
        ("no_leakage_rate", "higher", False), ("overall_pass", "higher", False),
        ("premises_stored_rate", "higher", False), ("replay_determinism", "higher", False)]


def test_the_flipped_case_in_github_annotations(corpus: Path, tmp_path: Path) -> None:
    assert _formatted(corpus, tmp_path, "github") == (1, (
        "surface-lint: lane compositionality, chosen by flag: --lane; profile contract\n"
        "::error title=surface-lint compositionality%3A metric regressed::all_pass_rate: 0.3333 -> 0.0000 (-0.3333)\n"
        "::error title=surface-lint compositionality%3A metric regressed::compositional_recall_rate: 0.3333 -> 0.0000 "
        "(-0.3333)\n"
        "::error file=new.jsonl,line=25,col=370,endLine=25,endColumn=375,title=surface-lint compositionality%3A passed "
        "regressed (case CMP-DEV-003)::CMP-DEV-003: the case "
        "passed before and fails now: entailment_token: none of the expected tokens (structure, order) is in the answer\n"))


def test_the_flipped_case_in_junit(corpus: Path, tmp_path: Path) -> None:
    code, out = _formatted(corpus, tmp_path, "junit")
    assert code == 1
    assert '<testsuites name="surface-lint diff compositionality" tests="10" failures="3" errors="0" skipped="0">' in out
    assert (
        '    <testcase classname="compositionality" name="CMP-DEV-003">\n'
        '      <failure message="regressed: passed" type="regression">passed: pass -&gt; fail: '
        "entailment_token: none of the expected tokens (structure, order) is in the answer\n"
        "compositional_hit: True -&gt; False</failure>\n"
        "    </testcase>\n") in out


def test_the_flipped_case_in_markdown_and_html(corpus: Path, tmp_path: Path) -> None:
    code, out = _formatted(corpus, tmp_path, "markdown")
    assert code == 1
    assert "| `CMP-DEV-003` | `passed` | pass | **fail** |  |  |\n" in out
    code, out = _formatted(corpus, tmp_path, "html")
    assert code == 1
    assert ('<td class="mono">CMP-DEV-003</td><td>passed</td><td>pass</td><td class="verdict">FAIL</td></tr>\n'
            in out)
