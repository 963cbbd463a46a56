"""`--jobs N` on one large transcript: ranges of its lines scored in worker processes and merged,
byte-identical to `--jobs 1`, where the cuts fall between cases, inside a case, across a priming
turn far from its scored turn, in a CRLF file and on the symbolic chain lane; a worker killed by
SIGKILL ends the run with exit 2 naming the file and the signal."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from reporters_support import LANE, ROOT, cli

from surface_lint.engine.partial import MIN_SPAN_BYTES, split_file

SURFACES = [
    "A river carries water to the sea. pack-grounded (en_demo_nature_v1).",
    "A lamp gives ... light.",
    "Light, truth, order.",
    "Salt keeps food from spoiling. teaching-grounded (session).",
    "river flows valley",
]
PAD = "x" * 200  # a prompt long enough that a few thousand turns pass the split size


def turn(case: str, index: int, surface: str, role: str = "user", scored: bool = True) -> str:
    return json.dumps({"case_id": case, "turn_index": index, "role": role, "scored": scored,
                       "prompt": f"{PAD} {case}", "surface": surface, "grounding_source": "pack"}) + "\n"


def write(path: Path, lines: list[str], newline: str = "\n") -> Path:
    path.write_bytes("".join(lines).replace("\n", newline).encode("utf-8"))
    assert path.stat().st_size >= 2 * MIN_SPAN_BYTES
    return path


def same_with_jobs(path: Path, lane: str = LANE, formats: tuple[str, ...] = ("json", "text"),
                   cases: tuple[str, ...] = ()) -> None:
    assert len(split_file(str(path), 4)) > 1  # the file is cut: the test is of ranges, not of files
    given = ("--cases", *cases) if cases else ()
    for fmt in formats:
        one = cli("--lane", lane, *given, "--transcripts", str(path), "--output-format", fmt, "--jobs", "1")
        two = cli("--lane", lane, *given, "--transcripts", str(path), "--output-format", fmt, "--jobs", "2")
        assert one.code in (0, 1), one.err
        assert (two.code, two.out, two.err) == (one.code, one.out, one.err), fmt


def test_cases_written_together_are_cut_between_cases(tmp_path: Path) -> None:
    lines = []
    for i in range(3500):
        case = f"c{i:05d}"
        lines.append(turn(case, 0, "Hello.", role="priming", scored=False))
        lines.append(turn(case, 1, SURFACES[i % len(SURFACES)]))
    path = write(tmp_path / "run.jsonl", lines)
    spans = split_file(str(path), 4)
    with path.open("rb") as fh:
        for span in spans[1:]:
            fh.seek(span.start)
            assert json.loads(fh.readline())["turn_index"] == 0  # each range starts with a case's first turn
            assert span.line == 1 + path.read_bytes()[:span.start].count(b"\n")
    same_with_jobs(path)


def test_a_case_primed_at_the_top_and_scored_at_the_end(tmp_path: Path) -> None:
    lines = [turn("far", 0, "Hello.", role="priming", scored=False)]
    lines += [turn(f"c{i:05d}", 0, SURFACES[i % len(SURFACES)]) for i in range(7000)]
    lines.append(turn("far", 1, "A lamp gives ... light."))
    same_with_jobs(write(tmp_path / "run.jsonl", lines))  # the ranges share a case: read in one process


def test_one_case_over_thousands_of_lines_crosses_a_cut(tmp_path: Path) -> None:
    # Every turn is a scored record of case "one": each later record replaces the one before
    # (SL005), across the cuts as in one stream.
    lines = [turn("one", i, SURFACES[i % len(SURFACES)]) for i in range(7000)]
    path = write(tmp_path / "run.jsonl", lines)
    same_with_jobs(path)
    report = json.loads(cli("--lane", LANE, "--transcripts", str(path), "--output-format", "json",
                            "--jobs", "2").out)
    assert sum(1 for f in report["findings"] if f["code"] == "SL005") == 6999


def test_a_crlf_file_broken_lines_and_unknown_cases(tmp_path: Path) -> None:
    lines = []
    for i in range(7000):
        lines.append(turn(f"c{i:05d}", 0, SURFACES[i % len(SURFACES)]) if i % 500 else "{broken\n")
    path = write(tmp_path / "run.jsonl", lines, newline="\r\n")
    same_with_jobs(path, formats=("json", "text", "sarif"))
    cases = tmp_path / "cases.jsonl"
    cases.write_text("".join(json.dumps({"id": f"c{i:05d}", "prompt": "p", "expected": []}) + "\n"
                             for i in range(0, 7000, 2)), encoding="utf-8")
    argv = ["--lane", LANE, "--cases", str(cases), "--transcripts", str(path), "--output-format", "json"]
    one, two = cli(*argv, "--jobs", "1"), cli(*argv, "--jobs", "2")
    assert one.out == two.out and '"SL015"' in one.out


def test_the_symbolic_chain_lane(tmp_path: Path) -> None:
    template = (ROOT / "examples" / "transcripts" / "symbolic_logic.jsonl").read_text(encoding="utf-8").splitlines()
    lines = []
    for k in range(700):
        for row in template:
            data = json.loads(row)
            data["case_id"] = f"{data['case_id']}-{k:04d}"
            data["prompt"] = f"{data['prompt']} {PAD}"
            lines.append(json.dumps(data) + "\n")
    # The lane reads its cases (expected_proposals): the example cases, their ids suffixed alike.
    examples = (ROOT / "examples" / "evals" / "symbolic_logic" / "public" / "v1" / "cases.jsonl").read_text("utf-8")
    cases = [json.dumps({**case, "id": f"{case['id']}-{k:04d}"}) + "\n" for k in range(700)
             for case in map(json.loads, examples.splitlines())]
    same_with_jobs(write(tmp_path / "chains.jsonl", lines), lane="symbolic_logic",
                   cases=(str(_written(tmp_path / "cases.jsonl", cases)),))


def _written(path: Path, lines: list[str]) -> Path:
    path.write_text("".join(lines), encoding="utf-8")
    return path


def _children(pid: int) -> list[int]:
    try:
        text = Path(f"/proc/{pid}/task/{pid}/children").read_text()
    except OSError:
        return []
    return [int(p) for p in text.split()]


def kill_a_worker(argv: list[str], name: str, tmp_path: Path) -> tuple[int, str]:
    """Run the CLI, SIGKILL the first worker seen reading a file called `name`: (exit, stderr)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT / "server")}
    run = subprocess.Popen([sys.executable, "-m", "surface_lint", *argv, "-o", str(tmp_path / "out.txt")],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    deadline = time.monotonic() + 60
    workers: list[int] = []
    while time.monotonic() < deadline and run.poll() is None:
        # A worker is at work once it has the input open (the pool's resource tracker never has).
        workers = [c for c in _children(run.pid) if _reading(c, name)]
        if workers:
            break
        time.sleep(0.01)
    assert workers, "no worker started"
    os.kill(workers[0], signal.SIGKILL)
    _, err = run.communicate(timeout=120)
    assert not (tmp_path / "out.txt").exists()  # nothing written for an incomplete run
    return run.returncode, err.decode().strip()


KILLED = ("surface-lint: error: the worker reading {} was killed by SIGKILL (out of memory?); "
          "the run is incomplete: run again with fewer --jobs or more memory")


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc for the worker's pid")
def test_a_lane_worker_killed_by_sigkill(tmp_path: Path) -> None:
    lines = [turn(f"c{i:06d}", 0, SURFACES[i % len(SURFACES)]) for i in range(60000)]
    path = write(tmp_path / "big.jsonl", lines)
    argv = ["--lane", LANE, "--transcripts", str(path), "--output-format", "json", "--jobs", "2"]
    assert kill_a_worker(argv, "big.jsonl", tmp_path) == (2, KILLED.format(path))


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc for the worker's pid")
def test_a_check_worker_killed_by_sigkill(tmp_path: Path) -> None:
    lines = [turn(f"c{i:06d}", 0, SURFACES[i % len(SURFACES)]) for i in range(40000)]
    paths = [write(tmp_path / name, lines) for name in ("one.jsonl", "two.jsonl")]
    code, err = kill_a_worker(["check", *map(str, paths), "--lane", LANE, "--jobs", "2"], ".jsonl", tmp_path)
    assert code == 2
    assert err in (KILLED.format(paths[0]), KILLED.format(paths[1]))


def _reading(pid: int, name: str) -> bool:
    """Whether process `pid` has a file whose name ends with `name` open (a worker reading it)."""
    try:
        return any(os.readlink(f"/proc/{pid}/fd/{fd}").endswith(name) for fd in os.listdir(f"/proc/{pid}/fd"))
    except OSError:
        return False
