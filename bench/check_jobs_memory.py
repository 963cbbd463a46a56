"""Benchmark: `check --jobs 2` memory on two files of many findings, against `--jobs 1`.

Writes two files of N `{}` lines each (one SL002 finding per line), then runs
`surface-lint check A B --output-format json -o OUT` with `--jobs 1` and `--jobs 2` in fresh
subprocesses; prints wall time and the peak RSS of the largest process of each run (rusage of
the children, which covers the workers), and whether the two outputs are byte-identical.
Workers write their findings to scratch files a batch at a time; the parent reads them back a
batch at a time, so memory does not follow the number of findings. Not a test.

    python bench/check_jobs_memory.py [--lines 500000]
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def run(argv: list[str]) -> tuple[float, float]:
    """(wall seconds, peak RSS in MiB of the largest process), each run in its own interpreter."""
    code = ("import resource, subprocess, sys, time; t = time.perf_counter(); "
            "subprocess.run(sys.argv[1:], check=False, stdout=subprocess.DEVNULL); "
            "print(time.perf_counter() - t, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)")
    env = {**os.environ, "PYTHONPATH": str(ROOT / "server")}
    done = subprocess.run([sys.executable, "-c", code, sys.executable, "-m", "surface_lint", *argv],
                          capture_output=True, text=True, env=env, check=True)
    wall, rss = done.stdout.split()
    return float(wall), int(rss) / 1024


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--lines", type=int, default=500_000)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        files = []
        for name in ("a.jsonl", "b.jsonl"):
            path = Path(tmp) / name
            path.write_bytes(b"{}\n" * args.lines)
            files.append(str(path))
        outs = {}
        for jobs in (1, 2):
            out = Path(tmp) / f"out{jobs}.json"
            wall, rss = run(["check", *files, "--output-format", "json", "-o", str(out), "--jobs", str(jobs)])
            outs[jobs] = out.read_bytes()
            print(f"check --jobs {jobs}: {2 * args.lines} findings, {wall:6.1f} s, peak RSS {rss:6.1f} MiB")
        print(f"byte-identical: {outs[1] == outs[2]}; {time.strftime('%H:%M')} load {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
