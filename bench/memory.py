"""Benchmark: peak memory and CPU of `--lane` in every output format and of `check` text/json.

Builds turn JSONL files of N/2 and N turns from the project's own example surfaces (the
generator of bench/lane_throughput.py: every turn its own case id), then, in the same run
and on the same files, runs in fresh subprocesses
  * floor: a bare loop that reads every line and json.loads it;
  * `surface-lint --lane deterministic_fluency --transcripts FILE --output-format F -o /dev/null`
    for each of the eight formats;
  * `surface-lint check FILE --output-format F -o /dev/null` for text and json.
Peak RSS and CPU (user+sys) come from each child's rusage. Prints a table and the ratios the
README states: json/text CPU, text/floor CPU, and whether memory stays flat as the input
doubles. Not a test: absolute numbers vary by machine; ratios within one run are what to compare.

    python bench/memory.py [--turns 400000] [--distinct] [--formats text,json]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from lane_throughput import FLOOR, build, build_corpus

LANE = "deterministic_fluency"
FORMATS = ("text", "json", "json-lines", "sarif", "junit", "github", "markdown", "html")
CHECK_FORMATS = ("text", "json")
# The child reports its own peak RSS: ru_maxrss of RUSAGE_CHILDREN is a maximum over every child.
WRAPPER = (
    "import resource, subprocess, sys; p = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, "
    "stderr=subprocess.PIPE); r = resource.getrusage(resource.RUSAGE_CHILDREN); "
    "print(p.returncode, r.ru_maxrss, r.ru_utime + r.ru_stime); "
    "e = p.stderr.decode(errors='replace'); "
    "sys.stderr.write(e[-2000:] if p.returncode not in (0, 1) or 'Traceback' in e else '')"
)
ROOT = Path(__file__).resolve().parent.parent


def measure(cmd: list[str], tree: Path | None = None) -> tuple[float, float]:
    """(peak RSS MiB, CPU seconds) of one fresh child running `cmd` with `tree`'s server on the path."""
    env = dict(os.environ)
    env["PYTHONPATH"] = str((tree or ROOT) / "server")
    # Bytecode cached, as an installed package's is: without this every child recompiles the
    # package, a fixed cost that differs between trees of different sizes.
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    out = subprocess.run([sys.executable, "-c", WRAPPER, *cmd], capture_output=True, text=True, check=True, env=env)
    code, rss_kib, cpu = out.stdout.split()
    if int(code) not in (0, 1) or "Traceback" in out.stderr:  # exit 1 is findings, never a crash
        raise SystemExit(f"failed ({code}): {' '.join(cmd)}\n{out.stderr}")
    return int(rss_kib) / 1024, float(cpu)


def lane_cmd(path: Path, fmt: str, lane: str = LANE) -> list[str]:
    return [sys.executable, "-m", "surface_lint", "--lane", lane, "--transcripts", str(path),
            "--output-format", fmt, "-o", os.devnull]


def check_cmd(path: Path, fmt: str, lane: str = LANE) -> list[str]:
    return [sys.executable, "-m", "surface_lint", "check", str(path), "--lane", lane,
            "--output-format", fmt, "-o", os.devnull]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--turns", type=int, default=400_000)
    ap.add_argument("--distinct", action="store_true", help="every surface distinct (no verdict reused)")
    ap.add_argument("--formats", default=",".join(FORMATS), help="lane formats to run (comma-separated)")
    ap.add_argument("--no-check", action="store_true", help="skip the `check` runs")
    ap.add_argument("--surfaces", choices=("example", "corpus"), default="example",
                    help="corpus: issue 17's input (the corpus's 866 distinct surfaces, cycled)")
    args = ap.parse_args()
    formats = [f for f in args.formats.split(",") if f]
    rows: list[tuple[str, int, float, float]] = []
    floors: dict[int, float] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for turns in (args.turns // 2, args.turns):
            path = Path(tmp) / f"turns_{turns}.jsonl"
            size = build_corpus(path, turns) if args.surfaces == "corpus" else build(path, turns, args.distinct)
            print(f"{turns} turns: {size / 2**20:.1f} MiB", file=sys.stderr)
            rss, cpu = measure([sys.executable, "-c", FLOOR, str(path)])
            floors[turns] = cpu
            rows.append(("floor (json.loads loop)", turns, rss, cpu))
            for fmt in formats:
                rss, cpu = measure(lane_cmd(path, fmt))
                rows.append((f"--lane {fmt}", turns, rss, cpu))
                print(f"  --lane {fmt}: {rss:.1f} MiB, {cpu:.2f} s", file=sys.stderr)
            if not args.no_check:
                for fmt in CHECK_FORMATS:
                    rss, cpu = measure(check_cmd(path, fmt))
                    rows.append((f"check {fmt}", turns, rss, cpu))
                    print(f"  check {fmt}: {rss:.1f} MiB, {cpu:.2f} s", file=sys.stderr)
    print(f"python {sys.version.split()[0]} · {os.cpu_count()} cores · "
          f"{'all-distinct' if args.distinct else args.surfaces} surfaces")
    print(f"{'run':<26} {'turns':>8} {'peak MiB':>9} {'cpu s':>7} {'cpu / floor':>11}")
    for name, turns, rss, cpu in rows:
        print(f"{name:<26} {turns:>8} {rss:>9.1f} {cpu:>7.2f} {cpu / floors[turns]:>11.2f}")
    by = {(n, t): (r, c) for n, t, r, c in rows}
    n = args.turns
    if "--lane text" in {r[0] for r in rows}:
        text_cpu = by[("--lane text", n)][1]
        print(f"--lane text / floor CPU at {n}: {text_cpu / floors[n]:.2f}")
        if ("--lane json", n) in by:
            print(f"--lane json / text CPU at {n}: {by[('--lane json', n)][1] / text_cpu:.2f}")
    worst = max((r for name, t, r, _ in rows if t == n and not name.startswith("floor")), default=0.0)
    print(f"largest peak RSS at {n} turns: {worst:.1f} MiB")
    for name in sorted({r[0] for r in rows if not r[0].startswith("floor")}):
        small, big = by[(name, n // 2)][0], by[(name, n)][0]
        print(f"{name:<26} peak {small:.1f} -> {big:.1f} MiB as the input doubles ({big / small:.2f}x)")


if __name__ == "__main__":
    main()
