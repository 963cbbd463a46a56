"""symbolic_logic's runs (chain 0 and its replay, chain 1) past the in-memory bound of the case
groups (engine/casegroup.py `MEMORY_RECORDS`): a case's records past the bound go to a scratch
database and come back, whole, when the case is judged, however its ids come back and in however
many files; `--lane` and `check` give the same findings, at the same positions, in the same
order, byte for byte in every format; no temporary file is left behind. (These were the chain
lane's window tests: the same inputs, the same expected findings.)"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from cli_support import ROOT, cli

from surface_lint.engine import casegroup, check

LANE = "symbolic_logic"
FORMATS = ("text", "json", "json-lines", "sarif", "junit", "github", "markdown", "html")
CHECK_FORMATS = ("text", "json", "json-lines", "sarif", "junit", "github", "markdown", "html")

CASES = [
    {"id": "sym_a", "pattern": "single_premise", "premises": ["What is a lamp?", "Actually a lamp is light."],
     "probe": "What is a lamp?", "expected_proposals": 2, "min_vault_hits": 1},
    {"id": "sym_b", "pattern": "single_premise", "premises": ["What is a river?", "Actually a river is water."],
     "probe": "What is a river?", "expected_proposals": 1, "min_vault_hits": 3},
    {"id": "sym_c", "pattern": "single_premise", "premises": ["What is a stone?", "Actually a stone is rock."],
     "probe": "What is a stone?", "expected_proposals": 1, "min_vault_hits": 1},
]


def _turn(case_id: str, chain: int, role: str, surface: str, hits: int, trace: str, proposal: bool = False) -> str:
    return json.dumps({"case_id": case_id, "chain": chain, "role": role, "surface": surface,
                       "grounding_source": "pack", "vault_hits": hits, "trace_hash": trace,
                       "pack_mutation_proposal": proposal}) + "\n"


# Case ids come back after others (a, b, a, c, a, b, a): never contiguous, so a window of 1 or 2
# writes chains out and reads them back. sym_a's probe (the record its findings point at) holds
# an unpaired surrogate: a chain read back parses its line again and repairs it as the reader did.
TURNS = [
    _turn("sym_a", 0, "premise", "A lamp is light.", 0, "a0", True),     # 1
    _turn("sym_b", 0, "premise", "A river is water.", 0, "b0", True),    # 2
    _turn("sym_b", 0, "probe", "A river is water.", 2, "b1"),            # 3
    _turn("sym_a", 0, "probe", "A lamp \ud83d is light.", 4, "a1"),      # 4
    _turn("sym_c", 1, "premise", "A stone is rock.", 0, "c0", True),     # 5: sym_c has no chain-0 probe
    _turn("sym_a", 1, "probe", "A lamp is light.", 4, "a1"),             # 6
    _turn("sym_b", 1, "probe", "A river is water.", 2, "bX"),            # 7
    _turn("sym_a", 0, "premise", "A lamp is light.", 0, "a2", True),     # 8: sym_a's second proposal
    _turn("sym_d", 0, "probe", "Stray.", 1, "d1"),                       # 9: no case
]


@pytest.fixture
def files(tmp_path: Path) -> dict[str, Path]:
    cases = tmp_path / "cases.jsonl"
    turns = tmp_path / "turns.jsonl"
    cases.write_text("".join(json.dumps(c) + "\n" for c in CASES), "utf-8")
    turns.write_text("".join(TURNS), "utf-8")
    first, second = tmp_path / "part1.jsonl", tmp_path / "part2.jsonl"
    first.write_text("".join(TURNS[:5]), "utf-8")
    second.write_text("".join(TURNS[5:]), "utf-8")
    return {"cases": cases, "turns": turns, "part1": first, "part2": second}


FLAG_NOTE = "lane symbolic_logic, chosen by flag: --lane"


def _lane(files: dict[str, Path], fmt: str, *transcripts: str) -> str:
    got = cli("--lane", LANE, "--cases", str(files["cases"]), "--transcripts",
              *(transcripts or (str(files["turns"]),)), "--output-format", fmt)
    assert got.code == 1, got.err
    return got.out


def _check(files: dict[str, Path], fmt: str) -> str:
    got = cli("check", str(files["turns"]), "--cases", str(files["cases"]), "--lane", LANE, "--output-format", fmt)
    assert got.code == 1, got.err
    return got.out


def _expected_check(t: str) -> list[str]:
    return [
        f"{t}:3:125: SL301 [error] premise_recall: probe vault_hits 2 < min_vault_hits 3",
        f"{t}:3:142: SL302 [error] replay_determinism: replay differs: trace_hash b1… != replay bX…; "
        "proposal_count 1 != replay 0",
        f"{t}:4:70: SL016 [warning] unpaired UTF-16 surrogate in `surface` (half of a character); read as U+FFFD",
        f"{t}:4:148: SL302 [error] replay_determinism: replay differs: proposal_count 2 != replay 0",
        f"{t}:5:1: SL303 [error] proposal_storage: 0 pack-mutation proposal(s) fired; expected_proposals is 1",
        f"{t}:5:126: SL301 [error] premise_recall: probe vault_hits 0 < min_vault_hits 1",
        f"{t}:5:143: SL302 [error] replay_determinism: no replay run captured (chain 1)",
        f"{t}:9:13: SL015 [information] case id `sym_d` matches no case in the given case files",
    ]


def _expected_lane(cases: str, one: str, two: str) -> list[str]:
    """The text report's failures: the input problems, then each failing case by id."""
    return [
        "input problems:",
        f"  {cases}:1:158: SL007 [error] `expected_proposals` is 2 but 1 premise(s) are correction-intent "
        "(match `^\\s*Actually\\b`)",
        f"  {one}:4:70: SL016 [warning] unpaired UTF-16 surrogate in `surface` (half of a character); read as U+FFFD",
        f"  {two}:{9 if one == two else 4}:13: SL015 [information] case id `sym_d` matches no case in the given case files",
        "failing cases: 3",
        "case sym_b:",
        f"  {one}:3:125: SL301 [error] premise_recall: probe vault_hits 2 < min_vault_hits 3",
        f"  {one}:3:142: SL302 [error] replay_determinism: replay differs: trace_hash b1… != replay bX…; "
        "proposal_count 1 != replay 0",
        "case sym_a:",
        f"  {one}:4:148: SL302 [error] replay_determinism: replay differs: proposal_count 2 != replay 0",
        "case sym_c:",
        f"  {one}:5:1: SL303 [error] proposal_storage: 0 pack-mutation proposal(s) fired; expected_proposals is 1",
        f"  {one}:5:126: SL301 [error] premise_recall: probe vault_hits 0 < min_vault_hits 1",
        f"  {one}:5:143: SL302 [error] replay_determinism: no replay run captured (chain 1)",
    ]


@pytest.mark.parametrize("window", [4096, 2, 1, 0])
def test_lane_findings_at_exact_positions_whatever_the_window(files: dict[str, Path], window: int,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(casegroup, "MEMORY_RECORDS", window)
    out = _lane(files, "text").splitlines()
    assert out[:9] == [
        "lane symbolic_logic v1 · profile contract · thresholds v1 · 3 case(s)",
        "lane symbolic_logic, chosen by flag: --lane",
        "  all_three_pass_rate    0.0000                     (headline metric)",
        "  case_count                  3",
        "  overall_pass            false",
        "  premise_recall         0.3333  >= 0.8       FAIL",
        "  proposal_storage       0.6667  >= 0.8       FAIL",
        "  replay_determinism     0.0000  >= 0.95      FAIL",
        "result: FAIL",
    ]
    cases = str(files["cases"])
    t = str(files["turns"])
    assert out[9:] == [
        "transcripts without a case (1): sym_d",
        *_expected_lane(cases, t, t),
        "12 lines read: 12 records, 0 errors, 0 blank, 0 skipped.",
    ]


@pytest.mark.parametrize("window", [2048, 1])
def test_check_findings_at_exact_positions_whatever_the_window(files: dict[str, Path], window: int,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(casegroup, "MEMORY_RECORDS", window)
    t = str(files["turns"])
    assert _check(files, "text").splitlines() == _expected_check(t) + [
        f"{t}:9:131: SL302 [error] replay_determinism: no replay run captured (chain 1)",
        "Found 9 finding(s) (7 error, 1 information, 1 warning) in 1 file(s); profile: contract.",
        "9 lines read: 9 records, 0 errors, 0 blank, 0 skipped.",
        FLAG_NOTE,
    ]


def test_rows_in_first_seen_order_with_the_case_read_back(files: dict[str, Path],
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(casegroup, "MEMORY_RECORDS", 1)
    got = json.loads(_lane(files, "json"))
    rows = [(c["id"], c["proposal_count"], c["vault_hits"], c["trace_hash"], c["trace_hash_replay"], c["passed"])
            for c in got["cases"]]
    # sym_a left the window and came back three times: both its proposals (lines 1 and 8) counted,
    # its chain-0 probe (line 4) and its replay (line 6) kept; sym_c has neither probe.
    assert rows == [("sym_a", 2, 4, "a1", "a1", False), ("sym_b", 1, 2, "b1", "bX", False),
                    ("sym_c", 0, 0, "", "", False)]


@pytest.mark.parametrize("fmt", FORMATS)
def test_lane_every_format_byte_identical_either_side_of_the_window(files: dict[str, Path], fmt: str,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    in_memory = _lane(files, fmt)
    split = _lane(files, fmt, str(files["part1"]), str(files["part2"]))
    for window in (2, 1):
        monkeypatch.setattr(casegroup, "MEMORY_RECORDS", window)
        assert _lane(files, fmt) == in_memory
        # A chain split over two transcript files (read as one stream) is joined the same way.
        assert _lane(files, fmt, str(files["part1"]), str(files["part2"])) == split


def test_a_chain_split_over_two_files_points_into_each(files: dict[str, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(casegroup, "MEMORY_RECORDS", 1)
    one, two = str(files["part1"]), str(files["part2"])
    out = _lane(files, "text", one, two).splitlines()
    assert out[10:-1] == _expected_lane(str(files["cases"]), one, two)


@pytest.mark.parametrize("fmt", CHECK_FORMATS)
def test_check_every_format_byte_identical_either_side_of_the_window(files: dict[str, Path], fmt: str,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    in_memory = _check(files, fmt)
    monkeypatch.setattr(casegroup, "MEMORY_RECORDS", 1)
    assert _check(files, fmt) == in_memory


def _many(path: Path, n: int) -> None:
    """n chains, each case's turns together, then every case's replay run at the end
    (each id comes back after n others: every chain is read back from the store)."""
    with path.open("w", encoding="utf-8") as fh:
        for i in range(n):
            fh.write(_turn(f"m_{i:05d}", 0, "premise", "A lamp is light.", 0, "p", True))
            fh.write(_turn(f"m_{i:05d}", 0, "probe", "A lamp is light.", i % 3, f"t{i}"))
        for i in range(n):
            fh.write(_turn(f"m_{i:05d}", 1, "premise", "A lamp is light.", 0, "p", True))
            fh.write(_turn(f"m_{i:05d}", 1, "probe", "A lamp is light.", i % 3, f"t{i}" if i % 2 else "x"))


def test_past_the_window_in_a_fresh_process_no_file_is_left(tmp_path: Path) -> None:
    n = casegroup.MEMORY_RECORDS // 4 + 500  # four records a case: past the bound
    turns = tmp_path / "many.jsonl"
    _many(turns, n)
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    env = {**os.environ, "TMPDIR": str(scratch), "PYTHONPATH": str(ROOT / "server")}
    out = tmp_path / "out.json"
    # The lane reads case fields (expected_proposals): it is scored only with its cases.
    cases = tmp_path / "many_cases.jsonl"
    cases.write_text("".join(json.dumps({"id": f"m_{i:05d}", "premises": ["A lamp is light."], "probe": "A lamp?",
                                         "expected_proposals": 1, "min_vault_hits": 0}) + "\n" for i in range(n)),
                     "utf-8")
    proc = subprocess.run([sys.executable, "-m", "surface_lint", "--lane", LANE, "--cases", str(cases),
                           "--transcripts", str(turns),
                           "--output-format", "json", "-o", str(out)],
                          capture_output=True, text=True, env=env, check=False)
    assert proc.returncode == 1, proc.stderr
    assert sorted(os.listdir(scratch)) == []
    got = json.loads(out.read_text("utf-8"))
    rows = got["cases"]
    assert len(rows) == n and [r["id"] for r in rows[:3]] == ["m_00000", "m_00001", "m_00002"]
    assert rows[-1]["id"] == f"m_{n - 1:05d}"
    # Even cases replay with another trace hash: half of them fail replay determinism.
    assert got["metrics"]["replay_determinism"] == pytest.approx((n // 2) / n)
    first = rows[0]
    assert (first["proposal_count"], first["trace_hash"], first["trace_hash_replay"]) == (1, "t0", "x")


# The reader's findings (a broken line, a wrong type, the last line) wait while every turn is read.
BROKEN = ['{"case_id": "sym_z",\n', *TURNS[:3],
          '{"case_id": "sym_b", "chain": 0, "role": "premise", "surface": "x", "vault_hits": "many"}\n',
          *TURNS[3:], "not json\n"]


@pytest.mark.parametrize(("window", "batch"), [(2048, 1024), (1, 1)])
def test_check_reader_findings_of_a_chain_lane_in_order(files: dict[str, Path], window: int, batch: int,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(casegroup, "MEMORY_RECORDS", window)
    monkeypatch.setattr(check.HeldFindings, "BATCH", batch)
    files["turns"].write_text("".join(BROKEN), "utf-8")
    t = str(files["turns"])
    assert _check(files, "text").splitlines() == [
        f"{t}:1:21: SL001 [error] invalid JSON: Expecting property name enclosed in double quotes",
        f"{t}:4:125: SL301 [error] premise_recall: probe vault_hits 2 < min_vault_hits 3",
        f"{t}:4:142: SL302 [error] replay_determinism: replay differs: trace_hash b1… != replay bX…; "
        "proposal_count 1 != replay 0",
        f"{t}:5:83: SL003 [error] `vault_hits` must be an integer or null, not a string",
        f"{t}:6:70: SL016 [warning] unpaired UTF-16 surrogate in `surface` (half of a character); read as U+FFFD",
        f"{t}:6:148: SL302 [error] replay_determinism: replay differs: proposal_count 2 != replay 0",
        f"{t}:7:1: SL303 [error] proposal_storage: 0 pack-mutation proposal(s) fired; expected_proposals is 1",
        f"{t}:7:126: SL301 [error] premise_recall: probe vault_hits 0 < min_vault_hits 1",
        f"{t}:7:143: SL302 [error] replay_determinism: no replay run captured (chain 1)",
        f"{t}:11:13: SL015 [information] case id `sym_d` matches no case in the given case files",
        f"{t}:11:131: SL302 [error] replay_determinism: no replay run captured (chain 1)",
        f"{t}:12:1: SL001 [error] invalid JSON: Expecting value",
        "Found 12 finding(s) (10 error, 1 information, 1 warning) in 1 file(s); profile: contract.",
        "12 lines read: 10 records, 2 errors, 0 blank, 0 skipped.",
        FLAG_NOTE,
    ]


def test_check_a_chain_lane_file_of_broken_lines_only(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(check.HeldFindings, "BATCH", 2)
    path = tmp_path / "broken.jsonl"
    path.write_text('{"case_id": "b_0",, "x": 1}\n[1]\n{"a": 1,,}\n', "utf-8")  # no turn: no chain, every finding given
    got = cli("check", str(path), "--lane", LANE)
    assert got.code == 1, got.err
    p = str(path)
    assert got.out.splitlines() == [
        f"{p}:1:19: SL001 [error] invalid JSON: Expecting property name enclosed in double quotes",
        f"{p}:2:1: SL001 [error] expected a JSON object, found an array",
        f"{p}:3:9: SL001 [error] invalid JSON: Expecting property name enclosed in double quotes",
        "Found 3 finding(s) (3 error) in 1 file(s); profile: contract.",
        "3 lines read: 0 records, 3 errors, 0 blank, 0 skipped.",
        FLAG_NOTE,
    ]


def test_check_many_broken_lines_in_a_fresh_process(tmp_path: Path) -> None:
    n = 5000  # past the Spool's buffer: the held findings go to disk and come back in order
    path = tmp_path / "many.jsonl"
    with path.open("w", encoding="utf-8") as fh:
        for i in range(n):
            fh.write('{"case_id": ' + f'"b_{i}",, "x": 1}}\n')  # the second comma is column 12 + len(id) + 2
        fh.write(_turn("b_0", 0, "probe", "A lamp is light.", 1, "t"))
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    env = {**os.environ, "TMPDIR": str(scratch), "PYTHONPATH": str(ROOT / "server")}
    proc = subprocess.run([sys.executable, "-m", "surface_lint", "check", str(path), "--lane", LANE,
                           "--output-format", "json"], capture_output=True, text=True, env=env, check=False)
    assert proc.returncode == 1, proc.stderr
    assert sorted(os.listdir(scratch)) == []
    found = [(f["code"], f["line"], f["column"]) for f in json.loads(proc.stdout)["findings"]]
    assert found[:2] == [("SL001", 1, 19), ("SL001", 2, 19)]
    assert found[n - 1:] == [("SL001", n, 12 + len(f'"b_{n - 1}"') + 2), ("SL302", n + 1, 139)]  # at its trace_hash: no replay
    assert len(found) == n + 1

