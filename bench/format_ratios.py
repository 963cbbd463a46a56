"""Benchmark: CPU of `--lane deterministic_fluency` in each format against text and the floor, on
issue 17's input, rounds alternated (issue 17, point 4).

Builds N turns cycling the corpus's 866 distinct real surfaces (`lane_throughput.build_corpus`:
each turn its own case id, turn_index 0, scored, its prompt and grounding_source), then runs
`--repeat` rounds, each of: the floor (a bare `json.loads` loop over the file) and `--lane
deterministic_fluency --transcripts F --output-format X -o /dev/null` for every format, each in
a fresh process with bytecode cached (a private PYTHONPYCACHEPREFIX, warmed by the first round's
run being compiled once before). CPU is user + sys of the child. Every ratio is the median of
the per-round ratios (both sides measured in the same round), so a machine shared with other
jobs moves seconds, not ratios.

    PYTHONPATH=server python bench/format_ratios.py [--turns 200000] [--repeat 3]

`--against DIR`: another checkout (its `server/`, e.g. `git archive` of the base commit), each
format run from it too in the same rounds (rows `FORMAT@base`, and `/ base`: this tree's CPU over
the base's, the median of the rounds' ratios).
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from lane_throughput import FLOOR, build_corpus

FORMATS = ("text", "json", "json-lines", "sarif", "junit", "github", "markdown", "html", "full")
ROOT = Path(__file__).resolve().parent.parent


def cpu(cmd: list[str], environ: dict[str, str]) -> float:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(cmd, env=environ, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def load() -> str:
    try:
        return Path("/proc/loadavg").read_text().split()[0]
    except OSError:
        return "?"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--turns", type=int, default=200_000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--formats", default=",".join(FORMATS))
    ap.add_argument("--against", type=Path, help="another checkout whose server runs the same formats in the same rounds")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        environ = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        environ["PYTHONPYCACHEPREFIX"] = str(Path(tmp) / "pycache")
        environ["PYTHONPATH"] = str(ROOT / "server")
        path = Path(tmp) / "turns.jsonl"
        build_corpus(path, args.turns)
        base = {**environ, "PYTHONPATH": str(args.against.resolve() / "server")} if args.against else None
        cmds: dict[str, tuple[list[str], dict[str, str]]] = {"floor": ([sys.executable, "-c", FLOOR, str(path)], environ)}
        for fmt in args.formats.split(","):
            run = [sys.executable, "-m", "surface_lint", "--lane", "deterministic_fluency", "--transcripts",
                   str(path), "--output-format", fmt, "-o", os.devnull]
            if base is not None:
                cmds[f"{fmt}@base"] = (run, base)
            cmds[fmt] = (run, environ)
        for env in (environ, base) if base is not None else (environ,):
            cpu([sys.executable, "-m", "surface_lint", "--help"], env)  # bytecode compiled once
        rows: dict[str, list[float]] = {k: [] for k in cmds}
        for r in range(args.repeat):
            for name, (cmd, env) in cmds.items():
                rows[name].append(cpu(cmd, env))
                print(f"round {r + 1} {name}: {rows[name][-1]:.2f} s (load {load()})", file=sys.stderr, flush=True)
    print(f"python {sys.version.split()[0]} · {os.cpu_count()} cores · {args.turns} turns · {args.repeat} rounds")
    print(f"{'run':<12} {'cpu s':>7} {'/ floor':>8} {'/ text':>7} {'/ base':>7}  runs")

    def ratio(runs: list[float], other: str) -> float:
        return statistics.median(x / y for x, y in zip(runs, rows[other], strict=True)) if other in rows else float("nan")

    for name, runs in rows.items():
        text = "text@base" if name.endswith("@base") else "text"
        print(f"{name:<12} {statistics.median(runs):7.2f} {ratio(runs, 'floor'):8.2f} {ratio(runs, text):7.2f} "
              f"{ratio(runs, name + '@base'):7.2f}  {' '.join(f'{x:.2f}' for x in runs)}")


if __name__ == "__main__":
    main()
