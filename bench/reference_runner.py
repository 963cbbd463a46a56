"""Benchmark: text `--lane` against the reference runner's verdict-only batch (issue 8, item 2).

The reference runner is the runtime's own `evals/deterministic_fluency/runner.py` (public
repository AssetOverflow/core at commit 069ceb55), imported from a checkout you give with
`--runtime PATH` (or `SURFACE_LINT_RUNTIME`); none of its code is copied here (its licence is
non-commercial). "Verdict-only batch": the runner's own verdict code on already-captured
surfaces. `chat.runtime` is replaced by a stub module whose `ChatRuntime().chat(prompt)`
answers with the captured turn's `surface` and `grounding_source` (a replay); the child reads
the same turn JSONL with json.loads per line, builds the runner's case list (`id`, `prompt`,
`expected_predicates: []`, which is what a transcript-only `--lane` run expects) and calls
`runner.run_lane(cases)`.

For N/2 and N turns (the generator of bench/lane_throughput.py, every turn its own case id),
once with the example surfaces repeating and once with every surface distinct (`--surfaces
distinct`: no verdict memo can help), or (`--surfaces corpus`) on issue 17's input: the 866
distinct real surfaces of the corpus's `surfaces/records.jsonl` cycled, each turn its own case
(`lane_throughput.build_corpus`, as `bench/format_ratios.py` reads), in the same run and on the same file, each in a fresh subprocess
(CPU = user+sys from the child's rusage, bench/memory.py `measure()`):
  * floor:  a bare loop that json.loads every line (lane_throughput.FLOOR);
  * ours:   `surface-lint --lane deterministic_fluency --transcripts F --output-format text
            --profile reference -o /dev/null` (the profile whose verdicts are the runner's);
  * runner: the verdict-only batch above;
  * ours (contract): the same with the default `contract` profile, for information.
The three are alternated `--repeat` times so that drift in the machine's speed hits all alike;
each ratio is the median of the per-repeat ratios. Before timing, each file is scored once by
`--output-format json --profile reference`: its metrics must equal the runner's rates (every
rate the runner computes), else the run stops with exit 1 (so both sides do the same work).

Bytecode is cached (in a private PYTHONPYCACHEPREFIX under the temporary directory, warmed
before timing) for both sides, as an installed package has it; a PYTHONDONTWRITEBYTECODE in
the environment would otherwise make every run recompile every module.
Not a test: absolute numbers vary by machine; ratios within one run are what to compare.

    git clone https://github.com/AssetOverflow/core /tmp/core && git -C /tmp/core checkout 069ceb55
    PYTHONPATH=server python bench/reference_runner.py --runtime /tmp/core [--turns 400000] [--repeat 3]
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import statistics
import subprocess
import sys
import tempfile
import types
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from lane_throughput import FLOOR, build, build_corpus
from memory import measure

LANE = "deterministic_fluency"
RUNNER = "evals/deterministic_fluency/runner.py"
COMMIT = "069ceb55"
RUNTIME_ENV = "SURFACE_LINT_RUNTIME"


# --- the child: the runner's verdict-only batch on captured turns -------------------------


class _Reply:
    """What the runner reads of a runtime response."""

    __slots__ = ("grounding_source", "surface")

    def __init__(self, surface: str, grounding_source: str | None) -> None:
        self.surface = surface
        self.grounding_source = grounding_source


def replay(runtime: Path, turns: Path, metrics_out: Path) -> None:
    """Run the runner's `run_lane` with every runtime call answered from `turns`; write its metrics."""
    replies: dict[str, _Reply] = {}

    class ChatRuntime:  # the stub: a replay of the captured turn named by the prompt
        def __init__(self, config: Any = None) -> None:
            pass

        def chat(self, prompt: str) -> _Reply:
            return replies[prompt]

    chat = types.ModuleType("chat")
    chat_runtime = types.ModuleType("chat.runtime")
    chat_runtime.ChatRuntime = ChatRuntime  # type: ignore[attr-defined]
    chat.runtime = chat_runtime  # type: ignore[attr-defined]
    sys.modules["chat"], sys.modules["chat.runtime"] = chat, chat_runtime
    sys.path.insert(0, str(runtime))
    runner = importlib.import_module("evals.deterministic_fluency.runner")
    cases: list[dict[str, Any]] = []
    with turns.open("rb") as fh:
        for line in fh:
            if line.strip():
                row = json.loads(line)
                case_id = row["case_id"]
                replies[case_id] = _Reply(row["surface"], row.get("grounding_source"))
                cases.append({"id": case_id, "prompt": case_id, "expected_predicates": []})
    report = runner.run_lane(cases)
    metrics_out.write_text(json.dumps({"metrics": report.metrics, "cases": len(report.case_details)}),
                           encoding="utf-8")


# --- the parent ---------------------------------------------------------------------------


def runtime_checkout(given: str | None) -> Path:
    """The runtime checkout from --runtime or the environment, or exit 2 saying how to get one."""
    value = given or os.environ.get(RUNTIME_ENV)
    how = (f"give a checkout of AssetOverflow/core at {COMMIT} with --runtime PATH (or {RUNTIME_ENV}=PATH):\n"
           f"  git clone https://github.com/AssetOverflow/core /tmp/core && git -C /tmp/core checkout {COMMIT}")
    if not value:
        print(f"reference_runner.py: no runtime checkout; {how}", file=sys.stderr)
        sys.exit(2)
    root = Path(value).expanduser().resolve()
    if not (root / RUNNER).is_file():
        print(f"reference_runner.py: {root} has no {RUNNER}; {how}", file=sys.stderr)
        sys.exit(2)
    return root


def runtime_commit(root: Path) -> str:
    """The checkout's commit, or a note that it cannot be told (an exported tree)."""
    try:
        out = subprocess.run(["git", "-C", str(root), "rev-parse", "HEAD"], capture_output=True, text=True, check=False)
    except OSError:
        return "unknown (git not found)"
    return out.stdout.strip() if out.returncode == 0 else "unknown (not a git checkout)"


def ours_cmd(path: Path, fmt: str, profile: str, out: str = os.devnull) -> list[str]:
    return [sys.executable, "-m", "surface_lint", "--lane", LANE, "--transcripts", str(path),
            "--output-format", fmt, "--profile", profile, "-o", out]


def runner_cmd(runtime: Path, path: Path, metrics_out: Path) -> list[str]:
    return [sys.executable, str(Path(__file__).resolve()), "--replay", str(path), "--runtime", str(runtime),
            "--metrics-out", str(metrics_out)]


def json_metrics(report: Path) -> dict[str, Any]:
    """The `metrics` object of an `--output-format json` report, read without loading its cases."""
    marker = '\n  "metrics": '
    with report.open("rb") as fh:
        fh.seek(max(0, report.stat().st_size - (1 << 20)))
        tail = fh.read().decode("utf-8", "replace")
    at = tail.rfind(marker)
    if at < 0:
        sys.exit(f"reference_runner.py: no top-level `metrics` in {report}")
    value, _ = json.JSONDecoder().raw_decode(tail, at + len(marker))
    assert isinstance(value, dict)
    return value


def compare(ours: dict[str, Any], runner: dict[str, Any]) -> list[str]:
    """Every metric the runner computes that ours lacks or gives another value."""
    return [f"{name}: runner {value!r}, surface-lint {ours.get(name, '(missing)')!r}"
            for name, value in sorted(runner.items()) if ours.get(name) != value]


def verify(runtime: Path, path: Path, tmp: Path) -> dict[str, Any]:
    """Score `path` both ways (not timed); exit 1 loudly when the metrics differ."""
    report, metrics_out = tmp / "ours.json", tmp / "runner.json"
    measure(ours_cmd(path, "json", "reference", str(report)))
    measure(runner_cmd(runtime, path, metrics_out))
    runner: dict[str, Any] = json.loads(metrics_out.read_text(encoding="utf-8"))["metrics"]
    ours = json_metrics(report)
    report.unlink()
    wrong = compare(ours, runner)
    if wrong:
        print(f"\n!!! METRICS DIFFER on {path.name} (surface-lint --profile reference vs the runner): "
              "the comparison is not on equal work", file=sys.stderr)
        for line in wrong:
            print(f"!!!   {line}", file=sys.stderr)
        sys.exit(1)
    return runner


def timed(runs: dict[str, Callable[[], float]], repeat: int) -> dict[str, list[float]]:
    """CPU seconds of each run, the runs alternated `repeat` times."""
    out: dict[str, list[float]] = {name: [] for name in runs}
    for _ in range(repeat):
        for name, run in runs.items():
            out[name].append(run())
    return out


def cpu(cmd: list[str]) -> Callable[[], float]:
    return lambda: measure(cmd)[1]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runtime", help=f"checkout of AssetOverflow/core at {COMMIT} (default: ${RUNTIME_ENV})")
    ap.add_argument("--turns", type=int, default=400_000, help="N (the run also measures N/2)")
    ap.add_argument("--repeat", type=int, default=3, help="alternated runs of each command per file")
    ap.add_argument("--surfaces", choices=("both", "examples", "distinct", "corpus"), default="both",
                    help="both = examples and distinct; corpus = issue 17's input (the corpus's real surfaces cycled)")
    ap.add_argument("--replay", help=argparse.SUPPRESS)  # the child: TURNS
    ap.add_argument("--metrics-out", help=argparse.SUPPRESS)
    args = ap.parse_args()
    runtime = runtime_checkout(args.runtime)
    if args.replay:
        replay(runtime, Path(args.replay), Path(args.metrics_out))
        return
    kinds = {"both": ("examples", "distinct"), "examples": ("examples",), "distinct": ("distinct",),
             "corpus": ("corpus",)}[args.surfaces]
    rows = []
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        # Bytecode cached for every child (as installed); warmed by a first untimed run of each.
        os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
        os.environ["PYTHONPYCACHEPREFIX"] = str(tmp / "pycache")
        warm = tmp / "warm.jsonl"
        build(warm, 10)
        for cmd in (ours_cmd(warm, "text", "reference"), ours_cmd(warm, "json", "contract"),
                    runner_cmd(runtime, warm, tmp / "warm.json"), [sys.executable, "-c", FLOOR, str(warm)]):
            measure(cmd)
        for kind in kinds:
            for turns in (args.turns // 2, args.turns):
                path = tmp / f"turns_{turns}_{kind}.jsonl"
                size = build_corpus(path, turns) if kind == "corpus" else build(path, turns, kind == "distinct")
                print(f"{turns} turns, {kind} surfaces: {size / 2**20:.1f} MiB", file=sys.stderr)
                metrics = verify(runtime, path, tmp)
                times = timed({
                    "floor": cpu([sys.executable, "-c", FLOOR, str(path)]),
                    "ours": cpu(ours_cmd(path, "text", "reference")),
                    "runner": cpu(runner_cmd(runtime, path, tmp / "runner.json")),
                    "contract": cpu(ours_cmd(path, "text", "contract")),
                }, args.repeat)
                print("  " + ", ".join(f"{k} {' '.join(f'{v:.2f}' for v in vs)}" for k, vs in times.items()),
                      file=sys.stderr)
                rows.append((kind, turns, size, times, metrics))
                path.unlink()
    print(f"python {sys.version.split()[0]} · {os.cpu_count()} cores · load {Path('/proc/loadavg').read_text().split()[0]}"
          f" · runtime {runtime} at {runtime_commit(runtime)} · median of {args.repeat} alternated runs")
    print("metrics: surface-lint --profile reference equal the runner's on every file "
          f"({', '.join(sorted(rows[0][4]))})")
    print(f"{'surfaces':>9} {'turns':>7} {'MiB':>6} {'floor s':>8} {'ours s':>7} {'runner s':>9} {'contract s':>11} "
          f"{'ours/runner':>12} {'contract/runner':>16} {'ours/floor':>11} {'contract/floor':>15}")
    for kind, turns, size, t, _ in rows:
        med = {k: statistics.median(v) for k, v in t.items()}

        def ratio(a: str, b: str, t: dict[str, list[float]] = t) -> str:
            each = [x / y for x, y in zip(t[a], t[b], strict=True)]
            spread = f" ({min(each):.2f}-{max(each):.2f})" if len(each) > 1 else ""
            return f"{statistics.median(each):.2f}{spread}"

        print(f"{kind:>9} {turns:>7} {size / 2**20:>6.1f} {med['floor']:>8.2f} {med['ours']:>7.2f} {med['runner']:>9.2f} "
              f"{med['contract']:>11.2f} {ratio('ours', 'runner'):>12} {ratio('contract', 'runner'):>16} "
              f"{ratio('ours', 'floor'):>11} {ratio('contract', 'floor'):>15}")
    print("ratios: median of the per-repeat ratios (lowest-highest); "
          "targets (issue 8 item 2): ours/runner <= 0.70, ours/floor <= 3.50")


if __name__ == "__main__":
    main()
