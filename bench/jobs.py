"""Benchmark: `--jobs N` on many transcript files, against one process, same output required.

Builds FILES turn-JSONL files (TURNS turns each, every turn its own case id) from the
project's example surfaces, then times the real CLI in fresh subprocesses, for
  * `--lane deterministic_fluency --transcripts FILES... --output-format json` and text;
  * `check DIR --output-format json`;
at `--jobs 1` and each other N given. Wall-clock time is what `--jobs` buys, so wall time
(median of REPEAT) is reported, with the speed-up over `--jobs 1`; every run's stdout must
be byte-identical to the `--jobs 1` run's, or the benchmark fails. Not a test: numbers vary
by machine and load, so it first measures the ceiling, what N processes that only burn CPU
gain on this machine right now (N on idle cores, less when other work holds them).

    python bench/jobs.py [--files 40] [--turns 2000] [--jobs 2] [--repeat 3]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from lane_throughput import example_surfaces  # bench/ is on sys.path when run as a script

LANE = "deterministic_fluency"


def build(folder: Path, files: int, turns: int) -> list[str]:
    surfaces = example_surfaces()
    paths = []
    for f in range(files):
        path = folder / f"run_{f:03d}.jsonl"
        with path.open("w", encoding="utf-8") as fh:
            for i in range(turns):
                surface, grounding = surfaces[(f * turns + i) % len(surfaces)]
                fh.write(json.dumps({"case_id": f"f{f:03d}_{i:06d}", "role": "prompt", "scored": True,
                                     "surface": surface, "grounding_source": grounding},
                                    ensure_ascii=False) + "\n")
        paths.append(str(path))
    return paths


def timed(cmd: list[str]) -> tuple[float, float, str]:
    """Wall seconds, CPU seconds of the process and its workers, and a hash of stdout."""
    env = {**os.environ, "CI": "true"}  # no progress bar, like CI
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, check=False, env=env)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode not in (0, 1) or not proc.stdout:
        raise SystemExit(f"failed ({proc.returncode}): {' '.join(cmd[:6])} ...\n{proc.stderr.decode()}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, hashlib.sha256(proc.stdout).hexdigest()


def _burn(seconds: float) -> None:
    start = time.process_time()
    while time.process_time() - start < seconds:
        pass


def machine_parallelism(jobs: int, seconds: float = 1.0) -> float:
    """What N processes can gain on this machine right now: wall of 1 burner / wall of N burners
    doing the same CPU work each (N on idle cores; less when others use them)."""
    from concurrent.futures import ProcessPoolExecutor

    start = time.perf_counter()
    _burn(seconds)
    one = time.perf_counter() - start
    with ProcessPoolExecutor(jobs) as pool:
        start = time.perf_counter()
        list(pool.map(_burn, [seconds] * jobs))
        many = time.perf_counter() - start
    return jobs * one / many


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--files", type=int, default=40)
    ap.add_argument("--turns", type=int, default=2000)
    ap.add_argument("--jobs", type=int, nargs="+", default=[2])
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    cli = [sys.executable, "-m", "surface_lint"]
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "runs"
        folder.mkdir()
        paths = build(folder, args.files, args.turns)
        size = sum(Path(p).stat().st_size for p in paths)
        runs = {
            "--lane json": [*cli, "--lane", LANE, "--transcripts", *paths, "--output-format", "json"],
            "--lane text": [*cli, "--lane", LANE, "--transcripts", *paths],
            "check json": [*cli, "check", str(folder), "--lane", LANE, "--output-format", "json"],
        }
        print(f"python {sys.version.split()[0]} · {os.cpu_count()} cores · load {os.getloadavg()[0]:.2f} · "
              f"{args.files} files x {args.turns} turns ({size / 2**20:.1f} MiB) · median of {args.repeat} (wall s)")
        ceiling = ", ".join(f"{j} -> {machine_parallelism(j):.2f}x" for j in args.jobs)
        print(f"what the machine gives N CPU-bound processes now (the ceiling): {ceiling}")
        print(f"{'run':<12} {'jobs':>4} {'wall s':>8} {'cpu s':>7} {'speed-up':>9}  same output")
        for name, cmd in runs.items():
            base_hash = ""
            measured: dict[int, list[tuple[float, float]]] = {}
            for _ in range(args.repeat):  # interleaved, so a change of load hits every N alike
                for jobs in [1, *args.jobs]:
                    wall, cpu, digest = timed([*cmd, "--jobs", str(jobs)])
                    if jobs == 1:
                        base_hash = digest
                    elif digest != base_hash:
                        raise SystemExit(f"{name} --jobs {jobs}: output differs from --jobs 1")
                    measured.setdefault(jobs, []).append((wall, cpu))
            base = statistics.median(w for w, _ in measured[1])
            for jobs, values in measured.items():
                wall = statistics.median(w for w, _ in values)
                cpu = statistics.median(c for _, c in values)
                same = "-" if jobs == 1 else "yes"
                print(f"{name:<12} {jobs:>4} {wall:>8.2f} {cpu:>7.2f} {base / wall:>9.2f}  {same}")


if __name__ == "__main__":
    main()
