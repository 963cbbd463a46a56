"""Benchmark: peak memory and CPU of `check --cases` on a case-driven lane as its input doubles.

Builds, from our own surfaces, grammatical_coverage cases (N/4, N/2 and N) and their captures (a
target pass over every case, then a serving pass over every case, as the runner makes: a
case's records are far apart, so `check` must hold them until the file is read). Runs, in
fresh subprocesses in the same run, `surface-lint check CAPTURES --cases CASES` (text, to
a scratch file) and a bare json.loads loop over the captures. Peak RSS and CPU come from each
child's rusage (bench/memory.py's `measure`). Not a test: compare within one run.

    python bench/casework_check_memory.py [--cases 100000] [--before TREE]
"""

from __future__ import annotations

import argparse
import itertools
import json
import random
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from lane_throughput import FLOOR
from memory import measure

LANE = "grammatical_coverage"
SURFACES = ["River flows valley.", "The river meets a valley.", "Valley and river.",
            "River flows through the wide green valley.", "Stone \u2014 caf\u00e9 \U0001f30a."]


def build(folder: Path, cases: int) -> tuple[Path, Path]:
    rng = random.Random(cases)
    case_path, capture_path = folder / f"cases_{cases}.jsonl", folder / f"captures_{cases}.jsonl"
    with case_path.open("w", encoding="utf-8") as fh:
        for i in range(cases):
            row: dict[str, object] = {"id": f"g{i:07d}", "construction": f"C{i % 12:02d}",
                                      "accept_surfaces": ["River flows valley."]}
            if i % 3:
                row["constraints"] = {"must_contain": ["river", "valley"], "word_order": ["river", "valley"],
                                      "max_words": 4}
            fh.write(json.dumps(row) + "\n")
    with capture_path.open("w", encoding="utf-8") as fh:
        for path in ("generate.realizer.realize_target", "generate.realizer.realize_semantic"):
            for i in range(cases):
                fh.write(json.dumps({"case_id": f"g{i:07d}", "turn_index": 0, "role": "prompt", "path": path,
                                     "surface": rng.choice(SURFACES)}) + "\n")
    return case_path, capture_path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--cases", type=int, default=100000, help="the largest size (N/4, N/2 and N are run)")
    parser.add_argument("--before", type=Path, help="another checkout (e.g. main's) run beside this one, "
                        "its output compared byte for byte")
    args = parser.parse_args()
    trees: list[tuple[str, Path | None]] = [("after", None)]
    if args.before is not None:
        trees.insert(0, ("before", args.before.resolve()))
    with tempfile.TemporaryDirectory() as tmp:
        rows = []
        for cases in (args.cases // 4, args.cases // 2, args.cases):
            case_path, capture_path = build(Path(tmp), cases)
            floor = measure([sys.executable, "-c", FLOOR, str(capture_path)])
            outputs = []
            for name, tree in trees:
                out = Path(tmp) / f"{name}_{cases}.txt"
                check = measure([sys.executable, "-m", "surface_lint", "check", str(capture_path), "--cases",
                                 str(case_path), "--lane", LANE, "-o", str(out)], tree)
                outputs.append(out.read_bytes())
                out.unlink()
                rows.append((name, cases, 2 * cases, floor, check))
            if len(outputs) == 2 and outputs[0] != outputs[1]:
                raise SystemExit(f"before and after differ at {cases} cases")
        print(f"{'tree':>6} {'cases':>8} {'records':>8} {'floor MiB':>10} {'floor s':>8} {'check MiB':>10} {'check s':>8}")
        for name, cases, records, floor, check in rows:
            print(f"{name:>6} {cases:>8} {records:>8} {floor[0]:>10.1f} {floor[1]:>8.2f} {check[0]:>10.1f}"
                  f" {check[1]:>8.2f}")
        for name, _ in trees:
            mine = [check for n, _, _, _, check in rows if n == name]
            steps = ", ".join(f"x{b[1] / a[1]:.2f}" for a, b in itertools.pairwise(mine))
            print(f"{name}: +{mine[-1][0] - mine[0][0]:.1f} MiB from N/4 to N; CPU per doubling {steps}")
        if len(trees) == 2:
            print("before and after: byte-identical output at every size")


if __name__ == "__main__":
    main()
