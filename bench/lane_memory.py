"""Benchmark: is `--lane` memory flat as the input doubles, and what does it cost against a baseline tree?

Builds turn files of N/4, N/2 and N turns (bench/lane_throughput.py's generator: every turn its own
case id), then for each size, in the same run, in fresh subprocesses (bench/memory.py's `measure`):
the json.loads floor, `--lane deterministic_fluency` in every format and `check` text/json, each
with this tree and (with `--baseline DIR`, e.g. a `git archive main` of the tree before a change)
with the baseline's, one after the other. Prints peak RSS and CPU per run, MiB added per doubling,
and the CPU ratios the README states (text/floor, json/text, this tree/baseline).

    python bench/lane_memory.py [--turns 800000] [--baseline /tmp/base] [--formats text,json] [--ids K]
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from lane_throughput import FLOOR, build
from memory import CHECK_FORMATS, FORMATS, ROOT, check_cmd, lane_cmd, measure


def _repeat_ids(path: Path, ids: int) -> int:
    """Rename turn i's case `r{i % ids}` in place: each id repeats turns/ids times."""
    renamed = path.with_suffix(".ids")
    with path.open(encoding="utf-8") as src, renamed.open("w", encoding="utf-8") as out:
        for i, line in enumerate(src):
            row = json.loads(line)
            row["case_id"] = f"r{i % ids}"
            out.write(json.dumps(row, ensure_ascii=False) + "\n")
    renamed.replace(path)
    return path.stat().st_size


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--turns", type=int, default=800_000)
    ap.add_argument("--baseline", type=Path, help="a tree (with server/) to compare with")
    ap.add_argument("--formats", default=",".join(FORMATS), help="lane formats to run (comma-separated)")
    ap.add_argument("--no-check", action="store_true", help="skip the `check` runs")
    ap.add_argument("--ids", type=int, default=0, metavar="K",
                    help="turn i names case `r{i %% K}` (every id repeats: the suspects' scratch database)")
    args = ap.parse_args()
    formats = [f for f in args.formats.split(",") if f]
    trees = [("branch", ROOT)] + ([("base", args.baseline.resolve())] if args.baseline else [])
    sizes = (args.turns // 4, args.turns // 2, args.turns)
    rows: dict[tuple[str, str, int], tuple[float, float]] = {}
    floors: dict[int, float] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for turns in sizes:
            path = Path(tmp) / f"turns_{turns}.jsonl"
            size = build(path, turns)
            if args.ids:
                size = _repeat_ids(path, args.ids)
            print(f"{turns} turns: {size / 2**20:.1f} MiB", file=sys.stderr)
            floors[turns] = measure([sys.executable, "-c", FLOOR, str(path)])[1]
            runs = [(f"--lane {f}", lane_cmd(path, f)) for f in formats]
            if not args.no_check:
                runs += [(f"check {f}", check_cmd(path, f)) for f in CHECK_FORMATS]
            for name, cmd in runs:
                for tree_name, tree in trees:
                    rows[(tree_name, name, turns)] = got = measure(cmd, tree)
                    print(f"  {tree_name} {name}: {got[0]:.1f} MiB, {got[1]:.2f} s", file=sys.stderr)
            path.unlink()
    names = [f"--lane {f}" for f in formats] + ([] if args.no_check else [f"check {f}" for f in CHECK_FORMATS])
    ids = f"turn i names case r(i % {args.ids})" if args.ids else "every turn its own case id"
    print(f"python {sys.version.split()[0]} · {os.cpu_count()} cores · example surfaces, {ids}")
    print(f"{'tree':<7} {'run':<20} " + " ".join(f"{t:>8} turns" for t in sizes) + "   MiB added per doubling")
    for tree_name, _ in trees:
        for name in names:
            peaks = [rows[(tree_name, name, t)][0] for t in sizes]
            added = ", ".join(f"{b - a:+.1f}" for a, b in itertools.pairwise(peaks))
            print(f"{tree_name:<7} {name:<20} " + " ".join(f"{p:>10.1f} MiB" for p in peaks) + f"   {added}")
    print("cpu s (cpu / floor):")
    print(f"{'':<7} {'floor':<20} " + " ".join(f"{floors[t]:>9.2f} s    " for t in sizes))
    for tree_name, _ in trees:
        for name in names:
            print(f"{tree_name:<7} {name:<20} " + " ".join(
                f"{rows[(tree_name, name, t)][1]:>7.2f} ({rows[(tree_name, name, t)][1] / floors[t]:.2f})"
                for t in sizes))
    for t in sizes:
        for tree_name, _ in trees:
            if ("--lane text" in names) and ("--lane json" in names):
                text, js = rows[(tree_name, "--lane text", t)][1], rows[(tree_name, "--lane json", t)][1]
                print(f"{tree_name} at {t}: --lane text / floor {text / floors[t]:.2f}, --lane json / text {js / text:.2f}")
        if len(trees) == 2:
            print(f"branch / base CPU at {t}: " + ", ".join(
                f"{name.removeprefix('--lane ')} {rows[('branch', name, t)][1] / rows[('base', name, t)][1]:.2f}"
                for name in names))


if __name__ == "__main__":
    main()
