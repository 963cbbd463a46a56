"""Benchmark: `--jobs 2` on ONE large transcript (ranges of its lines scored in parallel) against `--jobs 1`.

Builds one turn JSONL of N turns cycling the distinct real surfaces of the corpus
(`../shared/corpus/surfaces/records.jsonl`, or the folder SURFACE_LINT_CORPUS names), each turn
with its own `case_id`, `turn_index` 0, `scored` true, its prompt and grounding_source; then, in
the same run and on the same file, times `surface-lint --lane deterministic_fluency` with
`--jobs 1` and `--jobs 2` (text and JSON output), wall-clock and CPU time of the whole process
tree, median of `--repeat` rounds (each a pair, the order alternated; the speed-up is the
median of the pairs' wall ratios, which a shared machine's load skews least), and checks that both outputs are byte-identical. Not a test:
numbers vary by machine; compare the ratio.

    python bench/jobs_split.py [--turns 400000] [--repeat 3] [--formats text,json]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def corpus() -> Path:
    given = os.environ.get("SURFACE_LINT_CORPUS")
    return Path(given) if given else ROOT.parent / "shared" / "corpus"


def distinct_surfaces() -> list[dict[str, str]]:
    seen: dict[str, dict[str, str]] = {}
    with (corpus() / "surfaces" / "records.jsonl").open(encoding="utf-8") as fh:
        for line in fh:
            row = json.loads(line)
            surface = row.get("surface")
            if isinstance(surface, str) and surface not in seen:
                seen[surface] = {"surface": surface, "prompt": row.get("prompt") or "",
                                 "grounding_source": row.get("grounding_source") or "none"}
    return list(seen.values())


def build(path: Path, turns: int) -> int:
    surfaces = distinct_surfaces()
    with path.open("w", encoding="utf-8") as fh:
        for i in range(turns):
            s = surfaces[i % len(surfaces)]
            fh.write(json.dumps({"case_id": f"t{i:07d}", "turn_index": 0, "scored": True, "role": "user",
                                 "prompt": s["prompt"], "surface": s["surface"],
                                 "grounding_source": s["grounding_source"]}, ensure_ascii=False) + "\n")
    return len(surfaces)


def run(argv: list[str]) -> tuple[float, float, bytes]:
    """(wall seconds, CPU seconds of the child and its workers, stdout)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT / "server")}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "surface_lint", *argv], capture_output=True, env=env, check=False)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode not in (0, 1):
        raise SystemExit(done.stderr.decode())
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, done.stdout


def paired(base: list[str], repeat: int) -> str:
    """`base` with `--jobs 1` and `--jobs 2`, `repeat` alternated pairs: the result line (medians,
    the pairs' wall ratios, CPU ratio, whether every output was byte-identical, the load)."""
    walls: dict[int, list[float]] = {1: [], 2: []}
    cpus: dict[int, list[float]] = {1: [], 2: []}
    outs: dict[int, bytes] = {}
    pairs: list[float] = []  # wall(--jobs 1) / wall(--jobs 2) of each alternated pair
    loads: list[float] = []
    same = True
    for round_ in range(repeat):
        order = (1, 2) if round_ % 2 == 0 else (2, 1)  # alternated: neither side always goes first
        for jobs in order:
            loads.append(os.getloadavg()[0])
            wall, cpu, out = run([*base, "--jobs", str(jobs)])
            walls[jobs].append(wall)
            cpus[jobs].append(cpu)
            same = same and outs.get(jobs, out) == out
            outs[jobs] = out
        pairs.append(walls[1][-1] / walls[2][-1])
    same = same and outs[1] == outs[2]
    w1, w2 = statistics.median(walls[1]), statistics.median(walls[2])
    c1, c2 = statistics.median(cpus[1]), statistics.median(cpus[2])
    return (f"--jobs 1: {w1:6.2f} s wall {c1:6.2f} s CPU | --jobs 2: {w2:6.2f} s wall {c2:6.2f} s CPU"
            f" | speed-up (median of the pairs' wall ratios) {statistics.median(pairs):.2f}x"
            f" [{', '.join(f'{r:.2f}' for r in pairs)}] | CPU ratio {c2 / c1:.2f} | byte-identical: {same}"
            f" | load average {min(loads):.1f}-{max(loads):.1f}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--turns", type=int, default=400_000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--formats", default="text,json", help="output formats timed, comma-separated")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "turns.jsonl"
        distinct = build(path, args.turns)
        print(f"{args.turns} turns cycling {distinct} distinct surfaces, {path.stat().st_size / 2**20:.1f} MiB; "
              f"{os.cpu_count()} CPUs", flush=True)
        for fmt in args.formats.split(","):
            base = ["--lane", "deterministic_fluency", "--transcripts", str(path), "--output-format", fmt]
            print(f"{fmt:5s} {paired(base, args.repeat)}", flush=True)

if __name__ == "__main__":
    main()
