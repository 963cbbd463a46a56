"""`--jobs N`: the same bytes as one process, for `check` and `--lane`, whatever the files share."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from reporters_support import LANE, cli

from surface_lint.cli.parallel import ordered_map
from surface_lint.engine import Engine
from surface_lint.engine.core import score_file, start_worker
from surface_lint.engine.score import Part, independent


def _parts(engine: Engine, lane: str, paths: list[str], want_rows: bool) -> list[Part]:
    return ordered_map(score_file, [(p, want_rows, None) for p in paths], 2, start_worker,
                       (engine.config, engine.profile, lane, [], {}))

SURFACES = [
    "A river carries water to the sea. pack-grounded (en_demo_nature_v1).",
    "doubt — pack-grounded (en_demo_mind_v1): mind.state.unsure; mind.state; mind.knowing. No session evidence yet.",
    "river flows valley",
    "A lamp gives ... light.",
    "Light, truth, order.",
    "Salt keeps food from spoiling. teaching-grounded (session).",
]


def write_runs(folder: Path, files: int, turns: int, shared: bool = False) -> list[str]:
    """`files` transcript files; with `shared`, every file repeats case s000 (a second scored record)."""
    rng = random.Random(5)
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for f in range(files):
        path = folder / f"run_{f:02d}.jsonl"
        with path.open("w", encoding="utf-8") as fh:
            for i in range(turns):
                case_id = "s000" if shared and i == 0 else f"c{f:02d}_{i:03d}"
                fh.write(json.dumps({"case_id": case_id, "surface": rng.choice(SURFACES),
                                     "grounding_source": rng.choice(["pack", "none"])}, ensure_ascii=False) + "\n")
        paths.append(str(path))
    return paths


@pytest.mark.parametrize("fmt", ["json", "text", "sarif", "junit"])
def test_lane_jobs_2_is_byte_identical(tmp_path: Path, fmt: str) -> None:
    paths = write_runs(tmp_path / "runs", 8, 40)
    one = cli("--lane", LANE, "--transcripts", *paths, "--output-format", fmt, "--jobs", "1")
    two = cli("--lane", LANE, "--transcripts", *paths, "--output-format", fmt, "--jobs", "2")
    assert one.code == two.code == 1
    assert one.out == two.out
    assert len(one.out) > 1000


def test_lane_text_keeps_the_show_limit_across_processes(tmp_path: Path) -> None:
    paths = write_runs(tmp_path / "runs", 6, 30)
    one = cli("--lane", LANE, "--transcripts", *paths, "--show", "7", "--jobs", "1")
    two = cli("--lane", LANE, "--transcripts", *paths, "--show", "7", "--jobs", "2")
    assert one.out == two.out
    listed = [line for line in one.out.splitlines() if line.startswith(f"  {paths[0]}:")]
    assert len(listed) >= 7 and all(paths[1] not in line for line in one.out.splitlines())  # all in the first file


def test_files_that_share_a_case_fall_back_to_one_process(tmp_path: Path) -> None:
    paths = write_runs(tmp_path / "runs", 4, 20, shared=True)
    parts = _parts(Engine(), LANE, paths, True)
    assert not independent(parts)
    one = cli("--lane", LANE, "--transcripts", *paths, "--output-format", "json", "--jobs", "1")
    two = cli("--lane", LANE, "--transcripts", *paths, "--output-format", "json", "--jobs", "2")
    assert one.out == two.out
    assert one.out.count("a second scored record for case `s000` replaces the first") == 3


def test_independent_files_are_merged(tmp_path: Path) -> None:
    paths = write_runs(tmp_path / "runs", 3, 10)
    parts = _parts(Engine(), LANE, paths, False)
    assert independent(parts)
    assert [len(p.scored) for p in parts] == [10, 10, 10]


def test_a_symbolic_chain_split_over_two_files(tmp_path: Path) -> None:
    """The first run in one file, the replay in another: scored as one chain either way."""
    cases = tmp_path / "cases.jsonl"
    cases.write_text(json.dumps({"id": "S1", "pattern": "single_premise", "premises": ["Actually salt is sweet."],
                                 "probe": "What is salt?", "expected_proposals": 1, "min_vault_hits": 1}) + "\n", "utf-8")

    def turn(chain: int, role: str, proposal: bool) -> str:
        return json.dumps({"case_id": "S1", "chain": chain, "role": role, "scored": role == "probe",
                           "surface": "Salt is salty.", "grounding_source": "pack", "vault_hits": 2,
                           "trace_hash": "abc", "pack_mutation_proposal": proposal}) + "\n"

    first, replay = tmp_path / "first.jsonl", tmp_path / "replay.jsonl"
    first.write_text(turn(0, "premise", True) + turn(0, "probe", False), "utf-8")
    replay.write_text(turn(1, "premise", True) + turn(1, "probe", False), "utf-8")
    argv = ["--lane", "symbolic_logic", "--cases", str(cases), "--transcripts", str(first), str(replay),
            "--output-format", "json"]
    one, two = cli(*argv, "--jobs", "1"), cli(*argv, "--jobs", "2")
    assert one.out == two.out
    assert json.loads(one.out)["metrics"]["all_three_pass_rate"] == 1.0


@pytest.mark.parametrize("fmt", ["json", "text"])
def test_check_jobs_2_is_byte_identical(tmp_path: Path, fmt: str) -> None:
    write_runs(tmp_path / "runs", 8, 30)
    one = cli("check", str(tmp_path / "runs"), "--lane", LANE, "--output-format", fmt, "--jobs", "1")
    two = cli("check", str(tmp_path / "runs"), "--lane", LANE, "--output-format", fmt, "--jobs", "2")
    assert one.code == two.code == 1
    assert one.out == two.out


def test_an_unreadable_file_is_a_usage_error_with_jobs(tmp_path: Path) -> None:
    paths = write_runs(tmp_path / "runs", 2, 5)
    run = cli("--lane", LANE, "--transcripts", paths[0], str(tmp_path / "missing.jsonl"), paths[1], "--jobs", "2")
    assert run.code == 2 and "missing.jsonl: cannot read" in run.err
    assert cli("--lane", LANE, "--transcripts", *paths, "--jobs", "-1").code == 2
