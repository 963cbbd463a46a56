"""Benchmark: `surface-lint --lane deterministic_fluency` against a json.loads floor.

Builds a large turn JSONL from the project's own example surfaces (examples/transcripts),
each turn with its own case id — once as the examples repeat (as a deterministic runtime's
surfaces do), once with every surface made distinct (no verdict can be reused) — then, in
the same run and on the same file, times
  * floor: a plain loop that reads every line and json.loads it;
  * lane:  the real CLI (`surface-lint --lane deterministic_fluency --transcripts FILE`).
Each runs in a fresh subprocess; CPU time (user+sys) and peak RSS are read from the
child's rusage. Prints the ratio (lane / floor) and peak memory at two file sizes, so
flatness in file size is visible. Not a test: numbers vary by machine; ratios are what
to compare.

    python bench/lane_throughput.py [--turns 200000] [--repeat 3]
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
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples" / "transcripts"

FLOOR = """
import json, sys
n = 0
with open(sys.argv[1], 'rb') as fh:
    for line in fh:
        if line.strip():
            json.loads(line)
            n += 1
print(n)
"""


def example_surfaces() -> list[tuple[str, str]]:
    out = []
    for path in sorted(EXAMPLES.glob("*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            row = json.loads(line)
            if isinstance(row.get("surface"), str):
                out.append((row["surface"], row.get("grounding_source") or "none"))
    return out


CORPUS_SURFACES = Path(os.environ.get("SURFACE_LINT_CORPUS", ROOT.parent / "shared" / "corpus")) / "surfaces" / "records.jsonl"


def build_corpus(path: Path, turns: int) -> int:
    """Issue 17's input: `turns` turns cycling the distinct real surfaces of the corpus's
    `surfaces/records.jsonl` (866), each turn its own `case_id`, `turn_index` 0, `scored` true,
    with its record's `prompt` and `grounding_source`."""
    distinct: dict[str, dict[str, object]] = {}
    for line in CORPUS_SURFACES.read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        if isinstance(row.get("surface"), str):
            distinct.setdefault(row["surface"], row)
    rows = list(distinct.values())
    with path.open("w", encoding="utf-8") as fh:
        for i in range(turns):
            r = rows[i % len(rows)]
            fh.write(json.dumps({"case_id": f"bench_{i:07d}", "turn_index": 0, "scored": True, "prompt": r.get("prompt"),
                                 "surface": r["surface"], "grounding_source": r.get("grounding_source")},
                                ensure_ascii=False) + "\n")
    return path.stat().st_size


def build(path: Path, turns: int, unique: bool = False) -> int:
    """`unique`: every surface distinct (a numbered prefix), so no verdict is ever reused."""
    surfaces = example_surfaces()
    with path.open("w", encoding="utf-8") as fh:
        for i in range(turns):
            surface, grounding = surfaces[i % len(surfaces)]
            # Vary each surface a little so no two consecutive lines are identical.
            surface = surface.replace(" is ", f" is ({i % 97}) ", 1) if i % 3 == 0 else surface
            if unique:
                surface = f"[{i}] {surface}"
            row = {
                "case_id": f"bench_{i:07d}",
                "turn_index": 0,
                "role": "prompt",
                "scored": True,
                "prompt": "What is it?",
                "surface": surface,
                "grounding_source": grounding,
                "vault_hits": i % 7,
                "trace_hash": None,
                "pack_mutation_proposal": None,
                "chain": 0,
            }
            fh.write(json.dumps(row, ensure_ascii=False) + "\n")
    return path.stat().st_size


def run(cmd: list[str]) -> tuple[float, int]:
    """CPU seconds (user+sys) and peak RSS (KiB) of one child process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    proc = subprocess.run(cmd, capture_output=True, check=False)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode not in (0, 1) or not proc.stdout:
        raise SystemExit(f"failed ({proc.returncode}): {' '.join(cmd)}\n{proc.stderr.decode()}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return cpu, _peak_rss(cmd)


def _peak_rss(cmd: list[str]) -> int:
    # ru_maxrss of RUSAGE_CHILDREN is a running maximum; measure peak in a wrapper instead.
    wrapper = (
        "import resource, subprocess, sys; subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, "
        "stderr=subprocess.DEVNULL); print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)"
    )
    out = subprocess.run([sys.executable, "-c", wrapper, *cmd], capture_output=True, text=True, check=True)
    return int(out.stdout.strip())


def measure(path: Path, repeat: int) -> dict[str, float]:
    floor_cmd = [sys.executable, "-c", FLOOR, str(path)]
    lane_cmd = [sys.executable, "-m", "surface_lint", "--lane", "deterministic_fluency",
                "--transcripts", str(path)]
    # Alternate the two so that drift in the machine's speed hits both alike; the ratio is the
    # median of the per-pair ratios.
    floor, lane = [], []
    for _ in range(repeat):
        floor.append(run(floor_cmd))
        lane.append(run(lane_cmd))
    f_cpu = statistics.median(c for c, _ in floor)
    l_cpu = statistics.median(c for c, _ in lane)
    return {
        "floor_cpu_s": f_cpu,
        "lane_cpu_s": l_cpu,
        "ratio": statistics.median(lc / fc for (fc, _), (lc, _) in zip(floor, lane, strict=True)),
        "floor_peak_mib": max(m for _, m in floor) / 1024,
        "lane_peak_mib": max(m for _, m in lane) / 1024,
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--turns", type=int, default=200_000)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        rows = []
        for unique in (False, True):
            for turns in (args.turns // 2, args.turns):
                path = Path(tmp) / f"turns_{turns}_{unique}.jsonl"
                size = build(path, turns, unique)
                result = measure(path, args.repeat)
                rows.append(("all distinct" if unique else "examples", turns, size, result))
        print(f"python {sys.version.split()[0]} · {os.cpu_count()} cores · median of {args.repeat} alternated pairs")
        print(f"{'surfaces':>12} {'turns':>8} {'MiB':>7} {'floor cpu s':>12} {'lane cpu s':>11} {'ratio':>6} "
              f"{'floor peak MiB':>15} {'lane peak MiB':>14}")
        for kind, turns, size, r in rows:
            print(f"{kind:>12} {turns:>8} {size / 2**20:>7.1f} {r['floor_cpu_s']:>12.2f} {r['lane_cpu_s']:>11.2f} "
                  f"{r['ratio']:>6.2f} {r['floor_peak_mib']:>15.1f} {r['lane_peak_mib']:>14.1f}")


if __name__ == "__main__":
    main()
