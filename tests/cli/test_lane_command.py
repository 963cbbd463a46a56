"""`surface-lint lane test FILE...`: every predicate's documented examples, judged as a test would."""

from __future__ import annotations

from pathlib import Path

import pytest

from surface_lint.cli.main import main

ROOT = Path(__file__).resolve().parents[2]
SHIPPED = sorted(str(p.relative_to(ROOT)) for p in (ROOT / "rules").glob("*.toml"))

LANE = '''[lane]
name = "demo_examples"

[[predicates]]
name = "ends"
code = "DX1"
kind = "ends_with"
example_pass = "It flows."
example_fail = "It flows!"
[predicates.params]
endings = ["."]

[[predicates]]
name = "grounded"
code = "DX2"
kind = "grounding_in"
example_pass = "From the pack.  [grounding_source: pack]"
example_fail = "From the pack.  [grounding_source: pack]"
[predicates.params]
sources = ["pack"]

[[predicates]]
name = "no_todo"
code = "DX3"
kind = "substring_absent"
[predicates.params]
markers = ["TODO"]
'''


def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(argv)
    out = capsys.readouterr()
    return code, out.out, out.err


def test_the_shipped_lanes_pass(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    assert run(["lane", "test", *SHIPPED], capsys) == (
        0, "all 124 example(s) give their stated verdicts (15 lane file(s), contract profile)\n", "")


def test_the_reference_profile_names_its_one_documented_divergence(capsys: pytest.CaptureFixture[str],
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    code, out, err = run(["lane", "test", "--profile", "reference", "rules/deterministic_fluency.toml"], capsys)
    assert (code, err) == (1, "")
    assert out.splitlines() == [
        'rules/deterministic_fluency.toml:57:1: deterministic_fluency.no_provenance_only: example_fail passes; it must '
        'fail: "doubt — pack-grounded (en_core_meta_v1): meta.mental_state.uncertainty; meta.mental_state; '
        'cognition.epistemic. No session evidence yet."',
        "1 of 12 example(s) failed, 0 file(s) did not load (1 lane file(s), reference profile)",
    ]


def test_a_wrong_example_fails_at_its_line_and_an_undocumented_predicate_is_named(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    lane = tmp_path / "demo.toml"
    lane.write_text(LANE, "utf-8")
    code, out, err = run(["lane", "test", str(lane)], capsys)
    assert (code, err) == (1, "")
    assert out.splitlines() == [
        f'{lane}:18:1: demo_examples.grounded: example_fail passes; it must fail: "From the pack.  [grounding_source: pack]"',
        f"{lane}: demo_examples.no_todo: documents no example_pass and example_fail (not tested)",
        "1 of 4 example(s) failed, 0 file(s) did not load (1 lane file(s), contract profile)",
    ]


def test_a_lane_file_that_does_not_load_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    lane = tmp_path / "broken.toml"
    lane.write_text('[lane]\nname = "broken"\n[[predicates]]\nname = "p"\ncode = "BX1"\nkind = "ends_wth"\n', "utf-8")
    code, out, err = run(["lane", "test", str(lane)], capsys)
    assert code == 2
    assert err == (f"{lane}:6:1: predicate 'p': unknown kind 'ends_wth' (known: case_field_in_surface, case_value, condition, "
                   "connective_present, count_between, ends_with, first_letter_upper, grounding_in, "
                   "grounding_marker_consistent, not_only_tail, pattern_absent, pattern_present, primed, "
                   "sentence_count_min, sentence_min_tokens, substring_absent, "
                   "surface_in_list, terms_in_order, terms_present, words_present); did you mean "
                   "'ends_with'?\n")
    assert out == "0 of 0 example(s) failed, 1 file(s) did not load (0 lane file(s), contract profile)\n"


def test_nothing_tested_is_no_pass(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    lane = tmp_path / "bare.toml"
    lane.write_text('[lane]\nname = "bare"\n[[predicates]]\nname = "p"\ncode = "BA1"\nkind = "not_only_tail"\n', "utf-8")
    assert run(["lane", "test", str(lane)], capsys) == (1, (
        f"{lane}: bare.p: documents no example_pass and example_fail (not tested)\n"
        "nothing tested: no predicate documents an example (1 lane file(s), contract profile)\n"), "")


def test_a_chain_lane_is_a_load_error_and_a_json_case_example(tmp_path: Path,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    chains = tmp_path / "chains.toml"
    chains.write_text('[lane]\nname = "chains_demo"\nunit = "chain"\n', "utf-8")
    code, out, err = run(["lane", "test", str(chains)], capsys)
    assert (code, out) == (2, "0 of 0 example(s) failed, 1 file(s) did not load (0 lane file(s), contract profile)\n")
    assert err == (f'{chains}:3:1: [lane]: `unit` "chain" is no more accepted: write the runs of a case as '
                   "[casework.views] over its capture records and the checks as [[casework.values]] (docs/rules.md, "
                   '"Replay chains"; rules/symbolic_logic.toml)\n')
    primed = tmp_path / "primed.toml"
    primed.write_text('''[lane]
name = "primed_demo"

[[predicates]]
name = "primed"
code = "PR1"
kind = "primed"
example_pass = '{"prompt": "And then?", "priming_prompts": ["Tell me of light."]}'
example_fail = '{prompt: "And then?"}'
''', "utf-8")
    code, out, _ = run(["lane", "test", str(primed)], capsys)
    assert (code, out.splitlines()) == (1, [
        f"{primed}:9:1: primed_demo.primed: example_fail is not a JSON object: Expecting property name enclosed in "
        "double quotes: line 1 column 2 (char 1): " + '"{prompt: \\"And then?\\"}"',
        "1 of 2 example(s) failed, 0 file(s) did not load (1 lane file(s), contract profile)",
    ])


# The shared small case-driven lane (tests/engine/test_casework_no_verdict.py runs it) with a
# verdict and two examples appended.
CASEWORK = (ROOT / "tests" / "fixtures" / "engine" / "lanes" / "answer_words.toml").read_text("utf-8") + '''
[[casework.values]]
name = "passed"
expr = "words >= 2"

[[casework.examples]]
name = "two words pass"
case = { id = "c1" }
records = [{ role = "prompt", surface = "Say it." }, { role = "answer", surface = "Light shines." }]
expect = { words = 2, passed = true }

[[casework.examples]]
name = "one word fails"
case = { id = "c2" }
records = [{ role = "answer", surface = "Light." }]
expect = { words = 2, passed = true }
'''


def test_the_examples_of_a_case_driven_lane_give_their_values(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    lane = tmp_path / "answer_words.toml"
    lane.write_text(CASEWORK, "utf-8")
    assert run(["lane", "test", str(lane)], capsys) == (1, (
        f"{lane}:49:1: answer_words.examples['one word fails']: `words` is 1, it must be 2; `passed` is false, it must "
        'be true: {"passed": true, "words": 2}\n'
        "1 of 2 example(s) failed, 0 file(s) did not load (1 lane file(s), contract profile)\n"), "")


def test_an_example_expecting_an_unknown_value_does_not_load(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    lane = tmp_path / "answer_words.toml"
    lane.write_text(CASEWORK.replace("expect = { words = 2, passed = true }\n\n[[casework.examples]]",
                                     "expect = { word = 2 }\n\n[[casework.examples]]"), "utf-8")
    code, out, err = run(["lane", "test", str(lane)], capsys)
    assert (code, err) == (2, f"{lane}:46:1: example 'two words pass': `expect` names 'word', not a value of this lane "
                              "(its values: words, passed)\n")


def test_a_check_judged_by_a_value_names_its_casework_example(tmp_path: Path,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    # symbolic_logic's checks are `case_value` predicates: each example names a [[casework.examples]]
    # entry that expects the check's value true (example_pass) or false (example_fail).
    text = (ROOT / "rules" / "symbolic_logic.toml").read_text("utf-8")
    text = text.replace('example_fail = "the replay differs"', 'example_fail = "no such example"', 1)
    text = text.replace('example_fail = "the probe recalls nothing"', 'example_fail = "the replay differs"', 1)
    lane = tmp_path / "symbolic_logic.toml"
    lane.write_text(text, "utf-8")
    lines = text.splitlines()
    recall = next(i for i, l in enumerate(lines) if l.startswith('example_fail = "the replay differs"')) + 1
    replay = next(i for i, l in enumerate(lines) if l.startswith('example_fail = "no such example"')) + 1
    code, out, err = run(["lane", "test", str(lane)], capsys)
    assert (code, err) == (1, "")
    assert out.splitlines() == [
        f"{lane}:{recall}:1: symbolic_logic.premise_recall: example_fail: [[casework.examples]] 'the replay differs' "
        'must expect `premise_recall = false`: "the replay differs"',
        f"{lane}:{replay}:1: symbolic_logic.replay_determinism: example_fail names no [[casework.examples]] entry "
        "(known: 'both runs agree and recall enough', 'the probe recalls nothing', 'the replay differs', "
        "'no replay captured, and a proposal missing'): \"no such example\"",
        "2 of 10 example(s) failed, 0 file(s) did not load (1 lane file(s), contract profile)",
    ]
