"""Broken rules files (LaneError with file and line) and a catastrophic user regex (SL013)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from engine_support import FIXTURES, RULES, check, fts, write

from surface_lint.cli.main import main
from surface_lint.engine import Engine
from surface_lint.engine.config import Config
from surface_lint.rules.kinds.registry import KINDS as REGISTERED
from surface_lint.rules.loader import LaneError, load_lane, load_lanes

USER_LANE = FIXTURES / "lanes" / "user_lane.toml"
BACKTRACKING = FIXTURES / "lanes" / "backtracking_lane.toml"
# The registry's names (other modules register kinds too: the list is data, not a computed result).
KINDS = ", ".join(sorted(REGISTERED))


def test_the_user_lane_fixture_loads_in_both_profiles() -> None:
    for profile, pattern in (("contract", "a+c"), ("reference", "a+b")):
        lane = load_lane(USER_LANE, profile)
        spec = lane.predicate("no_pattern")
        assert spec is not None and spec.params["pattern"].pattern == pattern


def test_every_builtin_rules_file_loads_in_both_profiles() -> None:
    for profile in ("contract", "reference"):
        lanes = load_lanes(profile)
        assert lanes.errors == []
        assert sorted(lanes.lanes) == [
            "calibration", "classical_literature_ood", "compositionality", "conversational_thread_coherence",
            "deterministic_fluency", "discourse_paragraph", "elementary_mathematics_ood", "english_fluency_ood",
            "fabrication_control", "foundational_physics_ood", "grammatical_coverage", "inference_closure",
            "multi_sentence_response", "self_consistency_over_time", "symbolic_logic",
        ]


@pytest.mark.parametrize(
    ("old", "new", "line", "column", "message"),
    [
        ("[lane]\n", "[lane\n", 2, 6,
         "invalid TOML: Expected ']' at the end of a table declaration (at line 2, column 6)"),
        ('kind = "pattern_absent"', 'kind = "pattern_absnet"', 18, 1,
         f"predicate 'no_pattern': unknown kind 'pattern_absnet' (known: {KINDS}); did you mean 'pattern_absent'?"),
        ('kind = "pattern_absent"', 'kind = "xyz"', 18, 1, f"predicate 'no_pattern': unknown kind 'xyz' (known: {KINDS})"),
        ('markers = ["<x>"]', 'markers = "<x>"', 13, 1,
         "predicate 'no_marker': parameter `markers` must be list[string], not string"),
        ("pattern = 'a+b'", "pattern = 5", 22, 1, "predicate 'no_pattern': parameter `pattern` must be string (a regex), not integer"),
        ("pattern = 'a+b'", "pattern = '(a+b'", 22, 1,
         "predicate 'no_pattern': `pattern` does not compile: missing ), unterminated subpattern at position 0"),
        ('markers = ["<x>"]', 'markers = ["<x>"]\nmarker = "y"', 14, 1,
         "predicate 'no_marker' (substring_absent): unknown parameter `marker` (did you mean `markers`?)"),
        ('markers = ["<x>"]', "", 7, 1, "predicate 'no_marker' (substring_absent): missing parameter `markers`"),
        ('code = "SL902"', 'code = "SL901"', 17, 1, "predicate 'no_pattern': code SL901 is already used by 'no_marker'"),
        ('default_severity = "error"', 'default_severity = "fatal"', 19, 1,
         'predicate \'no_pattern\': `default_severity` must be "error", "warning", "information" or "hint", not "fatal"'),
        ('passing = ["no_pattern"]', 'passing = ["no_patern"]', 29, 12,
         "metric 'no_pattern_rate': 'no_patern' is neither a predicate nor a case field"),
    ],
)
def test_a_broken_rules_file_names_its_file_and_line(tmp_path: Path, old: str, new: str, line: int, column: int,
                                                     message: str) -> None:
    text = USER_LANE.read_text("utf-8")
    assert old in text
    path = write(tmp_path / "broken.toml", text.replace(old, new, 1))
    with pytest.raises(LaneError) as info:
        load_lane(path, "reference")
    err = info.value
    assert (err.path, err.line, err.column, err.message) == (str(path), line, column, message)
    assert str(err) == f"{path}:{line}:{column}: {message}"


@pytest.mark.parametrize(
    ("new", "message"),
    [
        ("pattern = '(a+c'", "predicate 'no_pattern': `pattern` does not compile: missing ), unterminated subpattern at position 0"),
        ("pattern = 7", "predicate 'no_pattern': parameter `pattern` must be string (a regex), not integer"),
    ],
)
def test_a_broken_profile_override_points_at_the_override(tmp_path: Path, new: str, message: str) -> None:
    path = write(tmp_path / "broken.toml", USER_LANE.read_text("utf-8").replace("pattern = 'a+c'", new))
    with pytest.raises(LaneError) as info:
        load_lane(path, "contract")
    assert (info.value.line, info.value.message) == (24, message)
    assert load_lane(path, "reference").name == "user_lane"  # the other profile does not use it


def test_the_shipped_fluency_override_is_located_too(tmp_path: Path) -> None:
    lines = (RULES / "deterministic_fluency.toml").read_text("utf-8").splitlines()
    header = lines.index("[predicates.profiles.contract.params]")
    at = next(i for i in range(header, len(lines)) if lines[i].startswith("pattern = "))
    lines[at] = "pattern = '(broken'"
    path = write(tmp_path / "deterministic_fluency.toml", "\n".join(lines) + "\n")
    with pytest.raises(LaneError) as info:
        load_lane(path, "contract")
    assert info.value.line == at + 1


def test_a_rules_file_that_is_not_utf8(tmp_path: Path) -> None:
    path = write(tmp_path / "latin1.toml", b'[lane]\nname = "caf\xe9"\n')
    with pytest.raises(LaneError) as info:
        load_lane(path)
    assert (info.value.line, info.value.message) == (2, "rules file is not valid UTF-8")


def test_a_missing_lane_table_and_a_missing_file(tmp_path: Path) -> None:
    path = write(tmp_path / "nolane.toml", '[[predicates]]\nname = "x"\n')
    with pytest.raises(LaneError) as info:
        load_lane(path)
    assert (info.value.line, info.value.message) == (1, "missing [lane] table")
    with pytest.raises(LaneError) as info:
        load_lane(tmp_path / "absent.toml")
    assert info.value.message.startswith("cannot read rules file: ")


def test_the_engine_keeps_the_builtin_lanes_when_a_user_file_is_broken(tmp_path: Path) -> None:
    bad = write(tmp_path / "bad.toml", USER_LANE.read_text("utf-8").replace("'a+c'", "'(a+c'"))
    engine = Engine(Config(lane_files=[bad]))  # the contract profile: its override is broken
    assert [(e.path, e.line) for e in engine.lane_errors] == [(str(bad), 24)]
    assert "user_lane" not in engine.lane_set.lanes
    assert "deterministic_fluency" in engine.lane_set.lanes
    assert [f.code for f in check(['{"case_id": "c", "surface": "It is ..."}'], engine=engine).findings] == ["SL101"]


def test_the_cli_exits_2_on_a_broken_rules_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = write(tmp_path / "bad.toml", USER_LANE.read_text("utf-8").replace('kind = "substring_absent"', 'kind = "x"'))
    turns = write(tmp_path / "t.jsonl", ['{"case_id": "c", "surface": "It is."}'])
    assert main(["rule", "--lane-file", str(bad), "SL101"]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"surface-lint: config error: {bad}:10:1: predicate 'no_marker': unknown kind 'x'")
    assert main(["--lane", "deterministic_fluency", "--lane-file", str(bad), "--transcripts", str(turns)]) == 2
    assert f"{bad}:10:1: predicate 'no_marker': unknown kind 'x'" in capsys.readouterr().err


# --- user regexes: linear time (RE2) and a character budget, never a clock ---------------------

BUDGET = FIXTURES / "lanes" / "budget_lane.toml"
BUDGET_CHARS = 67_041  # (2**26 - 512) // 1001: a{1000} costs 1,000 positions a character, plus 1
OVER_BUDGET = "a" * (BUDGET_CHARS + 1)


def test_a_catastrophic_backtracking_pattern_runs_in_linear_time_with_a_verdict() -> None:
    """`(a+)+$` hangs a backtracking engine on `aaaa…b`; RE2 answers, the same on every run."""
    engine = Engine(Config(lane_files=[BACKTRACKING]))
    assert engine.lane_errors == []
    lines = [json.dumps({"case_id": "c1", "surface": "<x> " + "a" * 5000 + "b"}),
             json.dumps({"case_id": "c2", "surface": "a" * 5000})]
    result = check(lines, engine=engine, lane_name="backtracking_lane")
    assert fts(result.findings) == [
        ("t.jsonl", 1, 31, 1, 34, "SL912", "warning", "no_marker: `<x>` in the surface"),
        ("t.jsonl", 2, 30 + 1, 2, 30 + 1 + 5000, "SL911", "warning", "no_a_run: the surface matches `" + "a" * 5000 + "`"),
    ]


def test_a_surface_over_a_user_patterns_budget_gives_sl013_and_the_rest_still_runs() -> None:
    engine = Engine(Config(lane_files=[BUDGET]))
    assert engine.lane_errors == []
    surface = "<x> " + OVER_BUDGET[5:] + "b"
    assert len(surface) == 67_042
    line = json.dumps({"case_id": "c1", "surface": surface})
    # (a short line first: a first line over 64 KiB is the reader's issue-8 bug, not this test's subject)
    result = check(['{"case_id": "c2", "surface": "fine"}', line], engine=engine, lane_name="budget_lane")
    # SL013 covers the surface's string token (quotes included); the other predicate still ran.
    assert fts(result.findings) == [
        ("t.jsonl", 2, 30, 2, 30 + 67_042 + 2, "SL013", "error",
         "a pattern of `no_long_run` was not run: the text's 67,042 characters exceed this pattern's budget "
         "of 67,041 ((67,108,864 steps - 512 for a match) / 1001 a character)"),
        ("t.jsonl", 2, 31, 2, 34, "SL922", "warning", "no_marker: `<x>` in the surface"),
    ]


def test_a_surface_at_the_budget_is_searched() -> None:
    engine = Engine(Config(lane_files=[BUDGET]))
    line = json.dumps({"case_id": "c1", "surface": "a" * 1000 + "b" * (BUDGET_CHARS - 1000)})
    (finding,) = check(['{"case_id": "c2", "surface": "fine"}', line], engine=engine, lane_name="budget_lane").findings
    assert (finding.code, finding.location.line, finding.location.column, finding.location.end_column) == (
        "SL921", 2, 31, 1031)


def test_an_over_budget_predicate_counts_as_failed_in_the_lane_score(tmp_path: Path) -> None:
    engine = Engine(Config(lane_files=[BUDGET]))
    turns = write(tmp_path / "t.jsonl", [
        '{"case_id": "c2", "surface": "fine"}',
        json.dumps({"case_id": "c1", "surface": OVER_BUDGET}),
    ])
    results = [engine.score("budget_lane", [], [str(turns)]) for _ in range(2)]
    for result in results:  # the same on every run: the budget counts characters, not time
        assert result.metrics == {"no_long_run_rate": 0.5, "no_marker_rate": 1.0}
        assert result.passed is False
        assert [(f.record_id, f.code) for f in result.findings] == [("c1", "SL013")]


def test_a_user_pattern_with_lookaround_is_refused_at_its_line(tmp_path: Path) -> None:
    text = USER_LANE.read_text("utf-8").replace("pattern = 'a+b'", "pattern = '(?<=x)a+b'")
    path = write(tmp_path / "look.toml", text)
    with pytest.raises(LaneError) as info:
        load_lane(path, "reference")
    assert (info.value.line, info.value.message) == (
        22, "predicate 'no_pattern': `pattern` uses a lookahead `(?=...)` or lookbehind `(?<=...)` at character 1, "
            "which has no exact linear-time form: match the text itself (the match then includes it), or test it in "
            "a second predicate")


def test_a_user_file_copying_a_shipped_pattern_runs_it_the_shipped_way(tmp_path: Path) -> None:
    """multi_sentence_response's sentence split uses lookarounds: copied into a user file it is vetted."""
    path = write(tmp_path / "multi_copy.toml",
                 (RULES / "multi_sentence_response.toml").read_text("utf-8").replace(
                     'name = "multi_sentence_response"', 'name = "multi_copy"').replace('code = "SL2', 'code = "MC2'))
    lane = load_lane(path, "reference")
    assert lane.analysis.sentence_split is not None and lane.analysis.sentence_split.origin == "vetted"


def test_a_reloaded_lane_never_inherits_a_freed_lanes_cached_plan(tmp_path: Path) -> None:
    """A plan and memo belong to one evaluation of one lane object (scoring.EvaluationMemo),
    never keyed by id(lane), which a reloaded rules file may reuse: a user edits a pattern, the
    old one kept applying."""
    import gc

    from surface_lint.engine.scoring import EvaluationMemo, evaluate
    from surface_lint.rules.kinds.core import Subject

    text = USER_LANE.read_text("utf-8")
    old = load_lane(write(tmp_path / "old.toml", text), "contract")  # no_pattern: a+c
    old_memo = EvaluationMemo(old)
    assert evaluate(old, Subject("aac"), memo=old_memo)["no_pattern"].passed is False
    del old
    gc.collect()  # the old lane is freed: its id may be reused by the next one
    new = load_lane(write(tmp_path / "new.toml", text.replace("'a+c'", "'x+y'")), "contract")
    memo = EvaluationMemo(new)
    assert evaluate(new, Subject("aac"), memo=memo)["no_pattern"].passed is True
    assert evaluate(new, Subject("xxy"), memo=memo)["no_pattern"].passed is False
    assert memo.plan is not old_memo.plan


def test_a_user_lane_is_checked_in_every_profile(tmp_path: Path) -> None:
    """A broken base pattern that the contract profile overrides is still reported."""

    path = tmp_path / "mine.toml"
    path.write_text(
        '[lane]\nname = "mine"\n[[predicates]]\nname = "p"\ncode = "MY1"\nkind = "pattern_absent"\n'
        '[predicates.params]\npattern = "(unclosed"\n[predicates.profiles.contract.params]\npattern = "fine"\n'
        '[[metrics]]\nname = "p_rate"\nkind = "rate"\npassing = ["p"]\n',
        encoding="utf-8",
    )
    lanes = load_lanes("contract", [path])
    assert "mine" not in lanes.lanes
    assert [(e.path, e.line, e.message) for e in lanes.errors] == [
        (str(path), 8, "predicate 'p': `pattern` does not compile: missing ), unterminated subpattern at position 0")
    ]
