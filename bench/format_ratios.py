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
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        environ = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        environ["PYTHONPYCACHEPREFIX"] = str(Path(tmp) / "pycache")
        environ["PYTHONPATH"] = str(ROOT / "server")
        path = Path(tmp) / "turns.jsonl"
        build_corpus(path, args.turns)
        cmds = {"floor": [sys.executable, "-c", FLOOR, str(path)]}
        for fmt in args.formats.split(","):
            cmds[fmt] = [sys.executable, "-m", "surface_lint", "--lane", "deterministic_fluency", "--transcripts",
                         str(path), "--output-format", fmt, "-o", os.devnull]
        cpu([sys.executable, "-m", "surface_lint", "--help"], environ)  # bytecode compiled once
        rows: dict[str, list[float]] = {k: [] for k in cmds}
        for r in range(args.repeat):
            for name, cmd in cmds.items():
                rows[name].append(cpu(cmd, environ))
                print(f"round {r + 1} {name}: {rows[name][-1]:.2f} s (load {load()})", file=sys.stderr, flush=True)
    print(f"python {sys.version.split()[0]} · {os.cpu_count()} cores · {args.turns} turns · {args.repeat} rounds")
    print(f"{'run':<12} {'cpu s':>7} {'/ floor':>8} {'/ text':>7}  runs")
    for name, runs in rows.items():
        floor = statistics.median(x / y for x, y in zip(runs, rows["floor"], strict=True))
        text = statistics.median(x / y for x, y in zip(runs, rows["text"], strict=True)) if "text" in rows else float("nan")
        print(f"{name:<12} {statistics.median(runs):7.2f} {floor:8.2f} {text:7.2f}  {' '.join(f'{x:.2f}' for x in runs)}")


if __name__ == "__main__":
    main()
