"""Benchmark: peak memory and CPU of `--lane --cases C --transcripts T` (and `diff`) as the case file grows.

Builds, for each size N (100k, 200k, 400k by default), a deterministic_fluency case file of N
cases in the lane's own case format (`id`, `prompt`, `category`, `expected_predicates`, as in
../shared/corpus/cases) and a turn file of N turns joined to them (the generator of
bench/lane_throughput.py: `bench_0000000`...). One case in 1,000 has no turn (SL015 "no
scored turn") and one turn in 1,000 names no case (SL015 "matches no case"), so the unjoined-id
tracking is measured too. Then, in the same run and on the same files, each in a fresh
subprocess:
  * floor: a bare loop that reads every line of both files and json.loads it;
  * `surface-lint --lane deterministic_fluency --cases C --transcripts T --output-format F -o /dev/null`
    for text and json;
  * `surface-lint diff T T --cases C --lane deterministic_fluency -o /dev/null` (with --diff);
each for the tree under test and, with `--baseline DIR` (a checkout of main, e.g.
`git archive main | tar -x -C /tmp/base`), for that tree too. Peak RSS and CPU (user+sys) come
from each child's rusage. Prints a table, the MiB added per doubling of the input and the CPU
ratio against the baseline. Not a test: absolute numbers vary by machine; compare within a run.

    python bench/case_memory.py [--sizes 100000,200000,400000] [--baseline /tmp/base] [--diff] [--repeat 3]
        [--diff-in-memory "old run,all"] [--jobs 4]
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import statistics
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from lane_throughput import build
from memory import measure

ROOT = Path(__file__).resolve().parents[1]
LANE = "deterministic_fluency"
FORMATS = ("text", "json")
CATEGORIES = (("pack_definition", ["no_placeholder", "complete_punctuation", "finite_predicate_shape"]),
              ("oov_invitation", ["no_placeholder", "complete_punctuation"]))
FLOOR = """
import json, sys
n = 0
for path in sys.argv[1:]:
    with open(path, 'rb') as fh:
        for line in fh:
            if line.strip():
                json.loads(line)
                n += 1
print(n)
"""
def build_cases(path: Path, cases: int) -> int:
    """`cases` cases named as lane_throughput.build names its turns; every 1,000th has no turn."""
    with path.open("w", encoding="utf-8") as fh:
        for i in range(cases):
            category, expected = CATEGORIES[i % len(CATEGORIES)]
            case_id = f"bench_{i:07d}" if i % 1000 != 999 else f"bench_unused_{i:07d}"
            row = {"id": case_id, "prompt": "What is it?", "category": category, "expected_predicates": expected}
            fh.write(json.dumps(row, separators=(",", ":")) + "\n")
    return path.stat().st_size


def build_turns(path: Path, turns: int) -> int:
    """lane_throughput.build's turns; every 1,000th (from the 500th) names no case."""
    build(path, turns)
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    with path.open("w", encoding="utf-8") as fh:
        for i, line in enumerate(lines):
            fh.write(line.replace('"bench_', '"bench_stray_', 1) if i % 1000 == 499 else line)
    return path.stat().st_size


def lane_cmd(cases: Path, turns: Path, fmt: str) -> list[str]:
    return [sys.executable, "-m", "surface_lint", "--lane", LANE, "--cases", str(cases), "--transcripts", str(turns),
            "--output-format", fmt, "-o", os.devnull]


def diff_cmd(cases: Path, turns: Path, in_memory: str = "") -> list[str]:
    """`diff T T`; `in_memory`: "old run" keeps diff's index of the old run (KeyedRows) in memory
    whatever its size, "all" every case index and id set (MEMORY_CASES): the baselines of the spill."""
    run = ([sys.executable, "-c", IN_MEMORY[in_memory]] if in_memory else [sys.executable, "-m", "surface_lint"])
    return [*run, "diff", str(turns), str(turns), "--cases", str(cases), "--lane", LANE, "-o", os.devnull]


_MAIN = "from surface_lint.cli.main import main; sys.exit(main(sys.argv[1:]))"
IN_MEMORY = {
    "old run": "import functools, sys, surface_lint.engine.diff as d, surface_lint.engine.caseindex as c; "
               f"d.KeyedRows = functools.partial(c.KeyedRows, memory=1 << 62); {_MAIN}",
    "all": f"import sys, surface_lint.engine.caseindex as c; c.MEMORY_CASES = 1 << 62; {_MAIN}",
}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", default="100000,200000,400000", help="case counts (comma-separated)")
    ap.add_argument("--baseline", type=Path, help="a checkout of the baseline (main) to measure in the same run")
    ap.add_argument("--formats", default=",".join(FORMATS))
    ap.add_argument("--diff", action="store_true", help="also measure `diff T T --cases C`")
    ap.add_argument("--diff-in-memory", default="", metavar="WHAT",
                    help="with --diff, also measure it with nothing spilled: 'old run' (diff's index of it), 'all' "
                         "(every case index too), or both comma-separated")
    ap.add_argument("--jobs", type=int, default=1, help="children measured at once (default 1: one at a time)")
    ap.add_argument("--repeat", type=int, default=1,
                    help="runs per command and tree, alternated: median CPU, largest peak RSS")
    args = ap.parse_args()
    sizes = [int(s) for s in args.sizes.split(",") if s]
    formats = [f for f in args.formats.split(",") if f]
    trees: list[tuple[str, Path | None]] = [("branch", None)]
    if args.baseline is not None:
        trees.append(("main", args.baseline.resolve()))
    rows: list[tuple[str, str, int, float, float]] = []
    with tempfile.TemporaryDirectory() as tmp:
        jobs: list[tuple[str, str, int, list[str], Path | None]] = []  # (tree, run, size, command, tree path)
        for n in sizes:
            cases, turns = Path(tmp) / f"cases_{n}.jsonl", Path(tmp) / f"turns_{n}.jsonl"
            size = build_cases(cases, n) + build_turns(turns, n)
            print(f"{n} cases + {n} turns: {size / 2**20:.1f} MiB", file=sys.stderr)
            jobs.append(("-", "floor (json.loads both files)", n, [sys.executable, "-c", FLOOR, str(cases), str(turns)],
                         None))
            runs = [(f"--lane {fmt}", lane_cmd(cases, turns, fmt)) for fmt in formats]
            if args.diff:
                runs.append(("diff T T", diff_cmd(cases, turns)))
                runs.extend((f"diff T T, {what} in memory", diff_cmd(cases, turns, what))
                            for what in args.diff_in_memory.split(",") if what)
            for _ in range(args.repeat):
                for name, cmd in runs:
                    for label, tree in trees:  # alternated, so drift in machine speed hits both alike
                        jobs.append((label, name, n, cmd, tree))
        # --jobs N: the children run N at a time (on a busy machine; CPU is each child's own rusage).
        with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
            measured = list(pool.map(lambda job: measure(job[3], job[4]), jobs))
        got: dict[tuple[str, str, int], list[tuple[float, float]]] = {}
        for (label, name, n, _, _), result in zip(jobs, measured, strict=True):
            got.setdefault((label, name, n), []).append(result)
        for (label, name, n), results in got.items():
            rss = max(r for r, _ in results)
            cpu = statistics.median(c for _, c in results)
            rows.append((label, name, n, rss, cpu))
            print(f"  {label} {name} {n}: {rss:.1f} MiB, {cpu:.2f} s", file=sys.stderr)
    by = {(label, name, n): (rss, cpu) for label, name, n, rss, cpu in rows}
    floors = {n: by[("-", "floor (json.loads both files)", n)][1] for n in sizes}
    print(f"python {sys.version.split()[0]} · {os.cpu_count()} cores · lane {LANE}")
    print(f"{'tree':<7} {'run':<30} {'cases':>7} {'peak MiB':>9} {'cpu s':>7} {'cpu/floor':>9}")
    for label, name, n, rss, cpu in rows:
        print(f"{label:<7} {name:<30} {n:>7} {rss:>9.1f} {cpu:>7.2f} {cpu / floors[n]:>9.2f}")
    names = sorted({(label, name) for label, name, *_ in rows if label != "-"})
    print("peak RSS per doubling of the input (MiB added):")
    for label, name in names:
        steps = [f"{by[(label, name, a)][0]:.1f} -> {by[(label, name, b)][0]:.1f} ({by[(label, name, b)][0] - by[(label, name, a)][0]:+.1f})"
                 for a, b in itertools.pairwise(sizes) if b == 2 * a]
        print(f"  {label:<7} {name:<30} {'; '.join(steps) or 'no doubling in --sizes'}")
    for what in [w for w in args.diff_in_memory.split(",") if w and args.diff]:
        print(f"CPU diff T T / diff T T with {what} in memory (the spill's cost):")
        for label, _ in trees:
            ratios = [f"{n}: {by[(label, 'diff T T', n)][1] / by[(label, f'diff T T, {what} in memory', n)][1]:.3f}"
                      for n in sizes]
            print(f"  {label:<7} {', '.join(ratios)}")
    if args.baseline is not None:
        print("CPU branch / main:")
        for name in sorted({name for label, name in names}):
            ratios = [f"{n}: {by[('branch', name, n)][1] / by[('main', name, n)][1]:.2f}" for n in sizes]
            print(f"  {name:<30} {', '.join(ratios)}")


if __name__ == "__main__":
    main()
