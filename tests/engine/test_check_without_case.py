"""`without_case` (docs/rules.md, "Checks judged without their case"): a case-driven lane's
`check` value with `without_case = true` is judged on captures whose case is not given (no case
file, or an id the given case files do not hold), on a case of its id alone (every other
`case.X` null); a false one is its predicate's finding at the capture line its `at`/`field`
name; `passed` and the other values give nothing. Run on the case-driven symbolic_logic lane
(rules/symbolic_logic.toml, given as a lane file), which replaces the shipped lane of that
name in an engine given it as a lane file."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from engine_support import cases_index, check, fts, write

from surface_lint.engine import Engine
from surface_lint.engine.config import Config
from surface_lint.rules.loader import LaneError, parse_lane

ROOT = Path(__file__).resolve().parents[2]
LANE_FILE = ROOT / "rules" / "symbolic_logic.toml"
LANE = "symbolic_logic"
P = "t.jsonl"


def premise(chain: int, proposal: bool = True, case_id: str = "SYM-1") -> str:
    return (f'{{"case_id": "{case_id}", "role": "premise", "chain": {chain}, "surface": "Noted.", '
            f'"pack_mutation_proposal": {json.dumps(proposal)}}}')


def probe(chain: int, vault_hits: int = 2, trace_hash: str = "h1", case_id: str = "SYM-1") -> str:
    # For case_id "SYM-1": vault_hits' value sits at column 96; trace_hash's `"h1"` at 113-117.
    return (f'{{"case_id": "{case_id}", "role": "probe", "chain": {chain}, "surface": "Truth is wisdom.", '
            f'"vault_hits": {vault_hits}, "trace_hash": "{trace_hash}"}}')


@pytest.fixture(scope="module")
def engine() -> Engine:
    engine = Engine(Config(lane_files=[LANE_FILE]))
    assert engine.lane(LANE).casework is not None  # the case-driven lane
    return engine


def run(lines: list[str], engine: Engine, cases: object = None) -> list[tuple[str, int, int, int, int, str, str, str]]:
    return fts(check(lines, engine=engine, lane_name=LANE, cases=cases).findings)


def test_sl301_min_vault_hits_defaults_to_one_without_a_case(engine: Engine) -> None:
    lines = [premise(0), probe(0, vault_hits=0), premise(1), probe(1, vault_hits=0)]
    assert run(lines, engine) == [
        (P, 2, 96, 2, 97, "SL301", "error", "premise_recall: probe vault_hits 0 < min_vault_hits 1"),
    ]


def test_sl303_is_not_judged_without_a_case(engine: Engine) -> None:
    # Two proposals fired and `expected_proposals` unknown (0 by default): proposal_storage is
    # false, but it is not `without_case`; `passed` is false and gives nothing either.
    lines = [premise(0), premise(0), probe(0), premise(1), premise(1), probe(1)]
    assert run(lines, engine) == []


def test_sl302_a_missing_replay_run_without_a_case(engine: Engine) -> None:
    assert run([premise(0), probe(0)], engine) == [
        (P, 2, 113, 2, 117, "SL302", "error", "replay_determinism: no replay run captured (chain 1)"),
    ]


def test_each_case_is_judged_on_its_own_turns(engine: Engine) -> None:
    # SYM-2's turns come between SYM-1's: SYM-1 replays (no finding), SYM-2 has no replay.
    lines = [premise(0), probe(0), premise(0, case_id="SYM-2"), probe(0, case_id="SYM-2"), premise(1), probe(1)]
    assert run(lines, engine) == [
        (P, 4, 113, 4, 117, "SL302", "error", "replay_determinism: no replay run captured (chain 1)"),
    ]


def test_an_id_the_case_file_does_not_hold_is_judged_without_its_case(engine: Engine, tmp_path: Path) -> None:
    cases = write(tmp_path / "cases.jsonl", [
        {"id": "SYM-9", "pattern": "syllogism", "premises": ["What is truth?"], "probe": "What is truth?",
         "expected_proposals": 5, "min_vault_hits": 3},
    ])
    index = cases_index(engine, cases, LANE)
    lines = [premise(0), probe(0, vault_hits=0), premise(1), probe(1, vault_hits=0)]
    assert run(lines, engine, index) == [
        (P, 1, 13, 1, 20, "SL015", "information", "case id `SYM-1` matches no case in the given case files"),
        (P, 2, 96, 2, 97, "SL301", "error", "premise_recall: probe vault_hits 0 < min_vault_hits 1"),
    ]


def test_a_given_case_is_judged_with_it_not_without(engine: Engine, tmp_path: Path) -> None:
    # min_vault_hits 3 from the case (not the default 1), and SL303 is judged.
    cases = write(tmp_path / "cases.jsonl", [
        {"id": "SYM-1", "pattern": "syllogism", "premises": ["What is truth?"], "probe": "What is truth?",
         "expected_proposals": 2, "min_vault_hits": 3},
    ])
    index = cases_index(engine, cases, LANE)
    lines = [premise(0), probe(0, vault_hits=2), premise(1), probe(1, vault_hits=2)]
    assert run(lines, engine, index) == [
        (P, 2, 1, 2, 118, "SL303", "error", "proposal_storage: 1 pack-mutation proposal(s) fired; expected_proposals is 2"),
        (P, 2, 96, 2, 97, "SL301", "error", "premise_recall: probe vault_hits 2 < min_vault_hits 3"),
    ]


def test_a_lane_without_the_key_judges_no_case_without_its_case(tmp_path: Path) -> None:
    text = LANE_FILE.read_text("utf-8")
    assert text.count("without_case = true\n") == 2
    lane_file = tmp_path / "symbolic_logic.toml"
    lane_file.write_text(text.replace("without_case = true\n", ""), "utf-8")
    engine = Engine(Config(lane_files=[lane_file]))
    assert engine.lane_set.errors == []
    lines = [premise(0), probe(0, vault_hits=0)]
    assert run(lines, engine) == []


def test_check_on_files_groups_a_case_s_turns_across_them(tmp_path: Path) -> None:
    # The CLI's `check` (CaseSession): chain 0 in one file, its replay in another: one case.
    main, replay = tmp_path / "main.jsonl", tmp_path / "replay.jsonl"
    main.write_text(premise(0) + "\n" + probe(0, vault_hits=0) + "\n", "utf-8")
    replay.write_text(premise(1) + "\n" + probe(1, vault_hits=0) + "\n", "utf-8")

    def found(*paths: Path) -> list[tuple[str, str, int, int]]:
        env = {**os.environ, "PYTHONPATH": str(ROOT / "server")}
        proc = subprocess.run([sys.executable, "-m", "surface_lint", "check", *map(str, paths), "--lane", LANE,
                               "--lane-file", str(LANE_FILE), "--output-format", "json"],
                              capture_output=True, text=True, env=env, check=False, cwd=tmp_path)
        assert proc.returncode == 1, proc.stderr
        return [(Path(f["path"]).name, f["code"], f["line"], f["column"]) for f in json.loads(proc.stdout)["findings"]]

    assert found(main, replay) == [("main.jsonl", "SL301", 2, 96)]
    assert found(main) == [("main.jsonl", "SL301", 2, 96), ("main.jsonl", "SL302", 2, 113)]


def test_check_many_broken_lines_in_a_fresh_process(tmp_path: Path) -> None:
    # tests/cli/test_chains_scale.py's case on the case-driven lane: past the Spool's buffer the
    # reader's findings go to disk and come back in order; the one case has no replay.
    n = 5000
    path = tmp_path / "many.jsonl"
    with path.open("w", encoding="utf-8") as fh:
        for i in range(n):
            fh.write('{"case_id": ' + f'"b_{i}",, "x": 1}}\n')  # the second comma is column 12 + len(id) + 2
        fh.write(json.dumps({"case_id": "b_0", "chain": 0, "role": "probe", "surface": "A lamp is light.",
                             "grounding_source": "pack", "vault_hits": 1, "trace_hash": "t",
                             "pack_mutation_proposal": False}) + "\n")
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    env = {**os.environ, "TMPDIR": str(scratch), "PYTHONPATH": str(ROOT / "server")}
    proc = subprocess.run([sys.executable, "-m", "surface_lint", "check", str(path), "--lane", LANE,
                           "--lane-file", str(LANE_FILE), "--output-format", "json"],
                          capture_output=True, text=True, env=env, check=False)
    assert proc.returncode == 1, proc.stderr
    assert sorted(os.listdir(scratch)) == []
    found = [(f["code"], f["line"], f["column"]) for f in json.loads(proc.stdout)["findings"]]
    assert found[:2] == [("SL001", 1, 19), ("SL001", 2, 19)]
    assert found[n - 1:] == [("SL001", n, 12 + len(f'"b_{n - 1}"') + 2), ("SL302", n + 1, 139)]
    assert len(found) == n + 1


# --- a small lane: the failure path and the loader -----------------------------------------

DEMO = '''[lane]
name = "alone_demo"
unit = "surface"

[case_schema]
id_field = "id"
[case_schema.fields.id]
type = "string"
required = true
[case_schema.fields.min_hits]
type = "integer"

[[predicates]]
name = "enough_hits"
code = "CD901"
kind = "case_value"
default_severity = "error"
summary = "The answer's hits are at least the case's min_hits."

[casework]
[casework.views.answer]
where = "record.role == 'answer'"

[[casework.values]]
name = "hits"
expr = "default(first(answer).record.hits, 0)"

[[casework.values]]
name = "enough"
expr = "hits >= default(case.min_hits, 1)"
message = "hits {hits} < min_hits {case.min_hits}"
check = "enough_hits"
at = "answer"
field = "hits"
without_case = true

[[casework.values]]
name = "passed"
expr = "enough"

[[metrics]]
name = "pass_rate"
value = "passed"
'''
ANSWER = '{"case_id": "C1", "role": "answer", "surface": "Because.", "hits": 0}'  # hits' value at column 68


def _demo(tmp_path: Path, lane: str, lines: list[str]) -> list[tuple[str, int, int, int, int, str, str, str]]:
    lane_file = tmp_path / "demo.toml"
    lane_file.write_text(lane, "utf-8")
    engine = Engine(Config(lane_files=[lane_file]))
    assert engine.lane_set.errors == []
    return fts(check(lines, engine=engine, lane_name="alone_demo").findings)


def test_the_message_reads_a_null_case_field_as_empty(tmp_path: Path) -> None:
    assert _demo(tmp_path, DEMO, [ANSWER]) == [
        (P, 1, 68, 1, 69, "CD901", "error", "enough_hits: hits 0 < min_hits "),
    ]


def test_an_expression_that_fails_before_the_check_is_its_finding(tmp_path: Path) -> None:
    # `case.min_hits + 1` is null + 1 without the case: the case is not judged (SL019), at its case id.
    lane = DEMO.replace('expr = "hits >= default(case.min_hits, 1)"', 'expr = "hits >= case.min_hits + 1"')
    assert _demo(tmp_path, lane, [ANSWER]) == [
        (P, 1, 13, 1, 17, "SL019", "error", f"expression `hits >= case.min_hits + 1` ({tmp_path / 'demo.toml'}:30:1) "
                                            "failed: unsupported operand type(s) for +: 'NoneType' and 'int'"),
    ]


def test_a_gated_check_gives_nothing(tmp_path: Path) -> None:
    lane = DEMO.replace("without_case = true\n", "without_case = true\nwhen = \"case.min_hits != None\"\n")
    assert _demo(tmp_path, lane, [ANSWER]) == []


@pytest.mark.parametrize(("old", "new", "where", "message"), [
    ('check = "enough_hits"\nat = "answer"\nfield = "hits"\n', "", (32, 1),
     "value 'enough': `without_case` judges a `check` without its case; give `check` (a predicate of this lane) "
     "or leave `without_case` out"),
    ("without_case = true", 'without_case = "yes"', (35, 1),
     "[casework.values.1]: `without_case` must be boolean, not string"),
])
def test_a_wrong_without_case_is_a_load_error_at_its_key(old: str, new: str, where: tuple[int, int],
                                                         message: str) -> None:
    assert old in DEMO
    with pytest.raises(LaneError) as info:
        parse_lane(DEMO.replace(old, new, 1), "demo.toml", "reference")
    assert (info.value.path, info.value.line, info.value.column, info.value.message) == ("demo.toml", *where, message)
