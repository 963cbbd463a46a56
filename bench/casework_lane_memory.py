"""Benchmark: peak memory and CPU of `--lane` on case-driven lanes at N and 2N distinct cases.

The inputs are the corpus's real splits (`../shared/corpus/lanes/<lane>/{cases,captures}`;
symbolic_logic's `cases/symbolic_logic/` and `runtime/captures/symbolic_logic_*.jsonl`)
repeated with suffixed ids (`CAL-DEV-001~000017`), each copy's captures in the order the runner
made them, so a case's records sit where the runner's sit. Runs, in fresh subprocesses in the
same run, `surface-lint --lane LANE --cases C --transcripts T --output-format F -o /dev/null`
for each format, and a bare json.loads loop over cases and captures (the floor). Peak RSS and
CPU come from each child's rusage (bench/memory.py's `measure`). Not a test: compare within
one run; `--before TREE` runs another checkout beside this one. With `--repeat R` (and
`--before`), each (lane, N, format) runs R times, the two trees alternated (before, after,
before, after, ...) so drift in the machine's speed hits both alike; the row gives each tree's
median CPU and the median of the R per-pair ratios (after / before). With `--instructions` (and
`--before`), each (lane, N, format) instead runs once per tree under valgrind's cachegrind and the
row gives the instructions each tree executed and their ratio: a count, not a time, the same
on a loaded machine as on a quiet one (it leaves out what costs time but no instructions, such
as cache misses and the kernel's share), so it is the number to compare when the load is high.

    python bench/casework_lane_memory.py [--cases 20000] [--lanes calibration,compositionality]
        [--formats text,json] [--before TREE --repeat 3 | --instructions] [--only-n]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from memory import FORMATS, measure

ROOT = Path(__file__).resolve().parent.parent
CORPUS = Path(os.environ.get("SURFACE_LINT_CORPUS", ROOT.parent / "shared" / "corpus"))
FLOOR = ("import json, sys\n"
         "for p in sys.argv[1:]:\n"
         "    with open(p, 'rb') as fh:\n"
         "        for line in fh:\n"
         "            json.loads(line)\n")


def split_files(lane: str) -> list[tuple[Path, Path]]:
    """Every (case file, capture file) pair of a lane's corpus folder (symbolic_logic, the
    runtime's own lane: `cases/symbolic_logic/...` and `runtime/captures/symbolic_logic_*.jsonl`)."""
    folder = CORPUS / "lanes" / lane
    if folder.is_dir():
        cases_dir, prefix = folder / "cases", ""
        captures = sorted((folder / "captures").glob("*.jsonl"))
    else:
        cases_dir, prefix = CORPUS / "cases" / lane, f"{lane}_"
        captures = sorted((CORPUS / "runtime" / "captures").glob(f"{prefix}*.jsonl"))
    out = []
    for capture in captures:
        stem = capture.stem.removeprefix(prefix)
        flat = cases_dir / "cases" / f"{stem}.jsonl"
        if flat.is_file():
            out.append((flat, capture))
            continue
        if stem == "dev":
            cases = cases_dir / "dev" / "cases.jsonl"
        else:
            split, _, version = stem.partition("_")
            cases = cases_dir / split / version / "cases.jsonl"
        if cases.is_file():
            out.append((cases, capture))
    return out


def build(folder: Path, lane: str, cases: int) -> tuple[Path, Path]:
    """At least `cases` distinct cases: the lane's splits repeated, ids suffixed per copy."""
    pairs = [([json.loads(x) for x in c.read_text(encoding="utf-8").splitlines() if x.strip()],
              [json.loads(x) for x in t.read_text(encoding="utf-8").splitlines() if x.strip()])
             for c, t in split_files(lane)]
    id_field = "id"
    case_path, capture_path = folder / f"{lane}_cases_{cases}.jsonl", folder / f"{lane}_captures_{cases}.jsonl"
    written = copy = 0
    with case_path.open("w", encoding="utf-8") as cf, capture_path.open("w", encoding="utf-8") as tf:
        while written < cases:
            for rows, captures in pairs:
                suffix = f"~{copy:06d}"
                for row in rows:
                    cf.write(json.dumps({**row, id_field: f"{row[id_field]}{suffix}"}, ensure_ascii=False) + "\n")
                for rec in captures:
                    cid = rec.get("case_id")
                    out = {**rec, "case_id": f"{cid}{suffix}"} if isinstance(cid, str) else rec
                    tf.write(json.dumps(out, ensure_ascii=False) + "\n")
                written += len(rows)
                copy += 1
    return case_path, capture_path


def lane_cmd(lane: str, cases: Path, captures: Path, fmt: str) -> list[str]:
    return [sys.executable, "-m", "surface_lint", "--lane", lane, "--profile", "reference", "--cases", str(cases),
            "--transcripts", str(captures), "--output-format", fmt, "-o", os.devnull]


def inputs(args: argparse.Namespace) -> Iterator[tuple[str, Path, Path, int]]:
    """Each lane's inputs at N (and 2N) distinct cases: (lane, cases, captures, distinct cases),
    written to a scratch folder and deleted once the caller has measured them."""
    with tempfile.TemporaryDirectory() as tmp:
        for lane in [x for x in args.lanes.split(",") if x]:
            for n in (args.cases,) if args.only_n else (args.cases, 2 * args.cases):
                cases, captures = build(Path(tmp), lane, n)
                yield lane, cases, captures, sum(1 for _ in cases.open("rb"))
                cases.unlink()
                captures.unlink()


def formats(args: argparse.Namespace) -> list[str]:
    return [f for f in args.formats.split(",") if f]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cases", type=int, default=20_000, help="N: runs N and 2N distinct cases")
    ap.add_argument("--lanes", default="calibration,compositionality")
    ap.add_argument("--formats", default=",".join(FORMATS))
    ap.add_argument("--before", type=Path, help="another checkout run beside this one")
    ap.add_argument("--repeat", type=int, default=1, help="alternated runs of both trees per row (with --before)")
    ap.add_argument("--only-n", action="store_true", help="run N distinct cases only, not also 2N")
    ap.add_argument("--instructions", action="store_true",
                    help="with --before: instructions executed (valgrind cachegrind), once per tree")
    args = ap.parse_args()
    if args.before is not None and args.instructions:
        counted(args)
        return
    if args.before is not None and args.repeat > 1:
        paired(args)
        return
    trees: list[tuple[str, Path | None]] = [("after", None)]
    if args.before is not None:
        trees.insert(0, ("before", args.before.resolve()))
    print("| lane | tree | format | cases | peak RSS MiB | CPU s | CPU µs/case |")
    print("|---|---|---|---:|---:|---:|---:|")
    for lane, cases, captures, distinct in inputs(args):
        rss, cpu = measure([sys.executable, "-c", FLOOR, str(cases), str(captures)])
        print(f"| {lane} | floor | json.loads | {distinct} | {rss:.1f} | {cpu:.2f} | {cpu / distinct * 1e6:.0f} |",
              flush=True)
        for name, tree in trees:
            for fmt in formats(args):
                rss, cpu = measure(lane_cmd(lane, cases, captures, fmt), tree)
                print(f"| {lane} | {name} | {fmt} | {distinct} | {rss:.1f} | {cpu:.2f} | "
                      f"{cpu / distinct * 1e6:.0f} |", flush=True)


def paired(args: argparse.Namespace) -> None:
    """`--before` with `--repeat`: both trees alternated per row, medians and the median ratio."""
    before = args.before.resolve()
    print("| lane | format | cases | before MiB | after MiB | before CPU µs/case | after CPU µs/case | after / before |")
    print("|---|---|---:|---:|---:|---:|---:|---:|")
    for lane, cases, captures, distinct in inputs(args):
        for fmt in formats(args):
            cmd = lane_cmd(lane, cases, captures, fmt)
            measure(cmd, before), measure(cmd, None)  # warm-up, untimed: each tree's bytecode written
            runs = [(measure(cmd, before), measure(cmd, None)) for _ in range(args.repeat)]
            b_rss = max(b[0] for b, _ in runs)
            a_rss = max(a[0] for _, a in runs)
            b_cpu = statistics.median(b[1] for b, _ in runs)
            a_cpu = statistics.median(a[1] for _, a in runs)
            ratio = statistics.median(a[1] / b[1] for b, a in runs)
            print(f"| {lane} | {fmt} | {distinct} | {b_rss:.1f} | {a_rss:.1f} | {b_cpu / distinct * 1e6:.0f} | "
                  f"{a_cpu / distinct * 1e6:.0f} | {ratio:.2f} |", flush=True)


def instructions(cmd: list[str], tree: Path | None) -> int:
    """Instructions one child running `cmd` with `tree`'s server executes (valgrind cachegrind),
    with bytecode cached as `measure` runs it (one untimed run first writes it)."""
    env = dict(os.environ)
    env["PYTHONPATH"] = str((tree or ROOT) / "server")
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    subprocess.run(cmd, capture_output=True, env=env, check=False)
    out = subprocess.run(["valgrind", "--tool=cachegrind", "--cache-sim=no", "--cachegrind-out-file=/dev/null", *cmd],
                         capture_output=True, text=True, env=env, check=False)
    found = re.search(r"I\s+refs:\s+([\d,]+)", out.stderr)
    if out.returncode not in (0, 1) or found is None or "Traceback" in out.stderr:
        raise SystemExit(f"failed ({out.returncode}): {' '.join(cmd)}\n{out.stderr[-2000:]}")
    return int(found.group(1).replace(",", ""))


def counted(args: argparse.Namespace) -> None:
    """`--before` with `--instructions`: each tree's instructions per case and their ratio."""
    before = args.before.resolve()
    print("| lane | format | cases | before instructions / case (whole run) | after instructions / case (whole run) | after / before |")
    print("|---|---|---:|---:|---:|---:|")
    for lane, cases, captures, distinct in inputs(args):
        for fmt in formats(args):
            cmd = lane_cmd(lane, cases, captures, fmt)
            b, a = instructions(cmd, before), instructions(cmd, None)
            print(f"| {lane} | {fmt} | {distinct} | {b / distinct:,.0f} | {a / distinct:,.0f} | {a / b:.3f} |",
                  flush=True)


if __name__ == "__main__":
    main()
