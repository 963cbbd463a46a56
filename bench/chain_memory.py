"""Benchmark: peak memory and CPU of symbolic_logic's runs and of `check <case file>` as the input doubles.

Builds, from the real shapes in ../shared/corpus (read at run time, never copied):
  * symbolic_logic turn files of N, 2N, 4N turns (default N = 100,000): the corpus captures'
    cases (premises and probe, chain 0 then chain 1) repeated under new case ids
    `chain_0000000`...; one case in 1,000 has its replay run (chain 1) written at the end of the
    file, so its id comes back after every other case (its records past the case groups'
    bound are on disk and read back whole), with a case file holding each of those ids once;
  * symbolic_logic case files of N, 2N, 4N cases: the corpus case files' cases under the same
    ids; one case in 1,000 repeats an earlier id (SL005, with its renumbering fix).
Then, in the same run and on the same files, each in a fresh subprocess (bench/memory.py's
`measure`: peak RSS and user+sys CPU from the child's rusage):
  * floor: a bare loop that reads every line and json.loads it;
  * `surface-lint --lane symbolic_logic --cases TC --transcripts T --output-format F -o /dev/null` (text, json);
  * `surface-lint check T --cases TC --lane symbolic_logic --output-format F -o /dev/null` (text, json);
  * `surface-lint check C --lane symbolic_logic --output-format F -o /dev/null` (text, json);
each for the tree under test and, with `--baseline DIR` (a checkout of main, e.g.
`git archive main | tar -x -C /tmp/base`), for that tree too, alternated. Prints a table, the
MiB added per doubling and the CPU ratio branch / baseline. Not a test: absolute numbers vary by
machine; compare within one run.

    python bench/chain_memory.py [--turns 100000] [--cases 100000] [--baseline /tmp/base] [--repeat 1]
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import statistics
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import memory
from case_memory import FLOOR
from memory import measure

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT.parent / "shared" / "corpus"
LANE = "symbolic_logic"
FORMATS = ("text", "json")


def _corpus_root(given: Path | None) -> Path:
    for root in (given, CORPUS):
        if root is not None and (root / "runtime" / "captures").is_dir():
            return root
    raise SystemExit("the corpus (../shared/corpus) is missing: give --corpus")


def chain_templates(corpus: Path) -> list[list[dict[str, object]]]:
    """Each captured case's turns, in capture order, from every symbolic_logic capture."""
    out: list[list[dict[str, object]]] = []
    for path in sorted((corpus / "runtime" / "captures").glob(f"{LANE}_*.jsonl")):
        by_case: dict[str, list[dict[str, object]]] = {}
        for line in path.read_text("utf-8").splitlines():
            if line.strip():
                turn = json.loads(line)
                by_case.setdefault(str(turn["case_id"]), []).append(turn)
        out.extend(by_case.values())
    return out


def case_templates(corpus: Path) -> list[dict[str, object]]:
    out = []
    for path in sorted((corpus / "cases" / LANE).rglob("cases.jsonl")):
        out.extend(json.loads(line) for line in path.read_text("utf-8").splitlines() if line.strip())
    return out


def build_turns(path: Path, turns: int, templates: list[list[dict[str, object]]]) -> int:
    """About `turns` turns; every 1,000th case's replay run is held back to the end of the file.
    Returns the number of cases (ids `chain_0000000`...)."""
    written = 0
    held: list[str] = []
    dump: Callable[[dict[str, object]], str] = json.dumps
    with path.open("w", encoding="utf-8") as fh:
        cases = 0
        for i in itertools.count():
            if written >= turns:
                break
            cases += 1
            case_id = f"chain_{i:07d}"
            for turn in templates[i % len(templates)]:
                line = dump({**turn, "case_id": case_id}) + "\n"
                if i % 1000 == 999 and turn.get("chain") == 1:
                    held.append(line)
                else:
                    fh.write(line)
                written += 1
        fh.writelines(held)
    return cases


def build_cases(path: Path, cases: int, templates: list[dict[str, object]], duplicates: bool = True) -> int:
    """`cases` cases with ids `chain_0000000`...; with `duplicates`, 1 in 1,000 repeats an earlier id."""
    with path.open("w", encoding="utf-8") as fh:
        for i in range(cases):
            case_id = f"chain_{i:07d}" if i % 1000 != 999 or not duplicates else f"chain_{i - 500:07d}"
            fh.write(json.dumps({**templates[i % len(templates)], "id": case_id}) + "\n")
    return path.stat().st_size


def lane_cmd(turns: Path, fmt: str, cases: Path) -> list[str]:
    return [*memory.lane_cmd(turns, fmt, LANE), "--cases", str(cases)]


def check_cmd(path: Path, fmt: str, cases: Path | None = None) -> list[str]:
    return [*memory.check_cmd(path, fmt, LANE), *(("--cases", str(cases)) if cases is not None else ())]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--turns", type=int, default=100_000, help="N for the turn files (N, 2N, 4N)")
    ap.add_argument("--cases", type=int, default=100_000, help="N for the case files (N, 2N, 4N)")
    ap.add_argument("--baseline", type=Path, help="a checkout of the baseline (main) to measure in the same run")
    ap.add_argument("--corpus", type=Path, help="the corpus folder (default ../shared/corpus)")
    ap.add_argument("--formats", default=",".join(FORMATS))
    ap.add_argument("--only", choices=("turns", "cases"), help="measure only the turn files or the case files")
    ap.add_argument("--repeat", type=int, default=1, help="runs per command and tree, alternated: median CPU")
    args = ap.parse_args()
    corpus = _corpus_root(args.corpus)
    formats = [f for f in args.formats.split(",") if f]
    trees: list[tuple[str, Path | None]] = [("branch", None)]
    if args.baseline is not None:
        trees.append(("main", args.baseline.resolve()))
    chains, cases = chain_templates(corpus), case_templates(corpus)
    rows: list[tuple[str, str, int, float, float]] = []
    with tempfile.TemporaryDirectory() as tmp:
        plans: list[tuple[str, int, Path, list[tuple[str, list[str]]]]] = []
        for k in (1, 2, 4):
            if args.only != "cases":
                n = args.turns * k
                path = Path(tmp) / f"turns_{n}.jsonl"
                count = build_turns(path, n, chains)
                turn_cases = Path(tmp) / f"turn_cases_{n}.jsonl"
                build_cases(turn_cases, count, cases, duplicates=False)
                print(f"{n} turns: {path.stat().st_size / 2**20:.1f} MiB, {count} cases", file=sys.stderr)
                plans.append(("turns", n, path, [(f"--lane {f}", lane_cmd(path, f, turn_cases)) for f in formats]
                              + [(f"check turns {f}", check_cmd(path, f, turn_cases)) for f in formats]))
            if args.only != "turns":
                n = args.cases * k
                path = Path(tmp) / f"cases_{n}.jsonl"
                size = build_cases(path, n, cases)
                print(f"{n} cases: {size / 2**20:.1f} MiB", file=sys.stderr)
                plans.append(("cases", n, path, [(f"check cases {f}", check_cmd(path, f)) for f in formats]))
        for unit, n, path, runs in plans:
            rss, cpu = measure([sys.executable, "-c", FLOOR, str(path)], None)
            rows.append(("-", f"floor {unit}", n, rss, cpu))
            for name, cmd in runs:
                got: dict[str, list[tuple[float, float]]] = {label: [] for label, _ in trees}
                for _ in range(args.repeat):
                    for label, tree in trees:  # alternated, so drift in machine speed hits both alike
                        got[label].append(measure(cmd, tree))
                for label, _ in trees:
                    peak = max(r for r, _ in got[label])
                    median = statistics.median(c for _, c in got[label])
                    rows.append((label, name, n, peak, median))
                    print(f"  {label} {name} {n}: {peak:.1f} MiB, {median:.2f} s", file=sys.stderr)
    by = {(label, name, n): (rss, cpu) for label, name, n, rss, cpu in rows}
    floors = {(name.split()[1], n): cpu for label, name, n, _, cpu in rows if label == "-"}
    print(f"python {sys.version.split()[0]} · {os.cpu_count()} cores · lane {LANE}")
    print(f"{'tree':<7} {'run':<22} {'size':>8} {'peak MiB':>9} {'cpu s':>7} {'cpu/floor':>9}")
    for label, name, n, rss, cpu in rows:
        unit = "cases" if "cases" in name else "turns"
        print(f"{label:<7} {name:<22} {n:>8} {rss:>9.1f} {cpu:>7.2f} {cpu / floors[(unit, n)]:>9.2f}")
    print("peak RSS as the input doubles (MiB):")
    for label, name in sorted({(label, name) for label, name, *_ in rows if label != "-"}):
        sizes = sorted(n for lb, nm, n, *_ in rows if (lb, nm) == (label, name))
        steps = " -> ".join(f"{by[(label, name, n)][0]:.1f}" for n in sizes)
        print(f"  {label:<7} {name:<22} {steps}")
    if args.baseline is not None:
        print("CPU branch / main:")
        for name in sorted({name for label, name, *_ in rows if label == "branch"}):
            sizes = sorted(n for lb, nm, n, *_ in rows if (lb, nm) == ("branch", name))
            ratios = [f"{n}: {by[('branch', name, n)][1] / by[('main', name, n)][1]:.2f}" for n in sizes]
            print(f"  {name:<22} {', '.join(ratios)}")


if __name__ == "__main__":
    main()
