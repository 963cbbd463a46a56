"""Benchmark: the pickled size of a `surface_lint.api.PartialScore` by the number of turns.

Builds N turns as `bench/jobs_split.py` does (the distinct real surfaces of the corpus cycled,
each turn its own `case_id`), scores them as one part of `--lane deterministic_fluency` with the
options of each output format named, and prints the part's pickled bytes (total and per turn)
and the peak memory the scoring took. Not a test: compare the numbers between versions.

    python bench/partial_size.py [--turns 10000,100000] [--formats text,json]
"""

from __future__ import annotations

import argparse
import pickle
import resource
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from jobs_split import build

from surface_lint import api


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--turns", default="10000,100000")
    ap.add_argument("--formats", default="text,json")
    args = ap.parse_args()
    linter = api.Linter()
    with tempfile.TemporaryDirectory() as tmp:
        for turns in (int(n) for n in args.turns.split(",")):
            path = Path(tmp) / f"turns-{turns}.jsonl"
            build(path, turns)
            for fmt in args.formats.split(","):
                start = time.perf_counter()
                part = linter.score_file(path, "deterministic_fluency", options=api.ScoreOptions.for_format(fmt))
                took = time.perf_counter() - start
                size = len(pickle.dumps(part, pickle.HIGHEST_PROTOCOL))
                peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
                print(f"{turns:>7} turns {fmt:5s}: pickled {size:>11,} bytes ({size / turns:6.1f} a turn) "
                      f"| scored in {took:5.1f} s | peak RSS so far {peak:.0f} MiB", flush=True)


if __name__ == "__main__":
    main()
