"""Benchmark: `--jobs 2` on a case-driven lane (parts of its cases judged in parallel) against `--jobs 1`.

The input is bench/casework_lane_memory.py's: the corpus's real splits of the lane repeated
with suffixed ids until N distinct cases (the captures in the runner's order). In the same run
and on the same files, times `surface-lint --lane LANE --cases C --transcripts T
--output-format F -o -` with `--jobs 1` and `--jobs 2`: wall-clock and CPU time of the whole
process tree (its workers included), median of `--repeat` rounds, each round a pair in
alternating order; the speed-up is the median of the pairs' wall ratios (what a shared
machine's load skews least). Checks that both outputs are byte-identical. Not a test: numbers
vary by machine; compare the ratio.

    python bench/casework_jobs.py [--cases 20000] [--lanes calibration,compositionality]
        [--formats text,json] [--repeat 3]
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from casework_lane_memory import build
from jobs_split import paired, run


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cases", type=int, default=20_000)
    ap.add_argument("--lanes", default="calibration,compositionality")
    ap.add_argument("--formats", default="text,json")
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    print(f"{os.cpu_count()} CPUs; {args.repeat} alternated pairs; PYTHONDONTWRITEBYTECODE dropped", flush=True)
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)  # bytecode cached, as an installed package's is
    with tempfile.TemporaryDirectory() as tmp:
        for lane in args.lanes.split(","):
            cases, captures = build(Path(tmp), lane, args.cases)
            n = sum(1 for _ in cases.open("rb"))
            print(f"{lane}: {n} cases, {captures.stat().st_size / 2**20:.1f} MiB of captures", flush=True)
            for fmt in args.formats.split(","):
                base = ["--lane", lane, "--profile", "reference", "--cases", str(cases), "--transcripts",
                        str(captures), "--output-format", fmt]
                run([*base, "--jobs", "1"])  # warm: bytecode written, files in the page cache
                print(f"  {fmt:5s} {paired(base, args.repeat)}", flush=True)

if __name__ == "__main__":
    main()
