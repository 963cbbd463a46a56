"""Benchmark: peak memory and CPU of `check` as the number of findings grows.

Writes files of N `{}` lines (each line one SL002 finding: a turn needs `case_id` and
`surface`) for each N given, then runs in fresh subprocesses, in the same run and on the same
files,
  * floor: a bare loop that reads every line and json.loads it;
  * `surface-lint check FILE --lane deterministic_fluency --output-format F -o /dev/null` for
    text and json.
Peak RSS and CPU (user+sys) come from each child's rusage (bench/memory.py's wrapper). Prints a
table; what to compare is memory across N (flat: the findings are sorted on disk) and CPU per
million findings against the floor, never absolute numbers.

    python bench/check_findings_memory.py [--findings 1000000,10000000] [--formats text,json]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from memory import check_cmd, measure

FLOOR = "import json, sys\nfor line in open(sys.argv[1], 'rb'): json.loads(line)\n"
BLOCK = b"{}\n" * 100_000


def build(path: Path, lines: int) -> None:
    with path.open("wb") as fh:
        for _ in range(lines // 100_000):
            fh.write(BLOCK)
        fh.write(b"{}\n" * (lines % 100_000))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--findings", default="1000000,10000000", help="comma-separated numbers of findings")
    parser.add_argument("--formats", default="text,json")
    args = parser.parse_args()
    sizes = [int(n) for n in args.findings.split(",")]
    formats = args.formats.split(",")
    rows: list[tuple[str, int, float, float]] = []
    with tempfile.TemporaryDirectory(prefix="sl-bench-") as folder:
        for n in sizes:
            path = Path(folder) / f"empty_{n}.jsonl"
            build(path, n)
            rows.append(("floor", n, *measure([sys.executable, "-c", FLOOR, str(path)])))
            for fmt in formats:
                rows.append((f"check {fmt}", n, *measure(check_cmd(path, fmt))))
            path.unlink()
    print(f"{'run':<12} {'findings':>11} {'peak MiB':>9} {'CPU s':>8} {'CPU s per million':>18}")
    for name, n, rss, cpu in rows:
        print(f"{name:<12} {n:>11,} {rss:>9.1f} {cpu:>8.1f} {cpu / (n / 1e6):>18.1f}")


if __name__ == "__main__":
    main()
