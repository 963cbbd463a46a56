"""How long the review features take on a big run, against scoring the same run (same process).

    python bench/review_latency.py [--turns 20000] [--repeat 3]

Builds a case file and a turn JSONL file of N cases (our example surfaces, each case its own id)
in a temp folder and times, median of `--repeat`: `engine.score` of the run (the floor: what
`surface-lint --lane` does), `latest_outcomes` (a case file's code lenses), `turn_references`
(find references), and `review_transcript` + its HTML (the review view, first 500 turns drawn).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "server"))

from surface_lint.engine import Engine  # noqa: E402
from surface_lint.engine.review import find_runs, latest_outcomes, review_transcript, turn_references  # noqa: E402
from surface_lint.reporters.review_html import review_html  # noqa: E402

EXAMPLES = ROOT / "examples" / "transcripts" / "deterministic_fluency.jsonl"
EXAMPLE_CASES = ROOT / "examples" / "evals" / "deterministic_fluency" / "public" / "v1" / "cases.jsonl"


def build(folder: Path, turns: int) -> tuple[Path, Path]:
    examples = [json.loads(x) for x in EXAMPLES.read_text(encoding="utf-8").splitlines() if x.strip()]
    cases_by_id = {c["id"]: c for c in map(json.loads, EXAMPLE_CASES.read_text(encoding="utf-8").splitlines())}
    case_file = folder / "evals" / "deterministic_fluency" / "public" / "v1" / "cases.jsonl"
    run_file = folder / "transcripts" / "run.jsonl"
    case_file.parent.mkdir(parents=True)
    run_file.parent.mkdir(parents=True)
    with case_file.open("w", encoding="utf-8") as cf, run_file.open("w", encoding="utf-8") as rf:
        for i in range(turns):
            turn = dict(examples[i % len(examples)])
            case = dict(cases_by_id.get(turn["case_id"], {"prompt": turn.get("prompt", ""), "category": "x"}))
            case["id"] = turn["case_id"] = f"bench_{i:06d}"
            cf.write(json.dumps(case) + "\n")
            rf.write(json.dumps(turn) + "\n")
    return case_file, run_file


def median_seconds(fn: Callable[[], object], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--turns", type=int, default=20000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        case_file, run_file = build(Path(tmp), args.turns)
        engine = Engine()
        lane = engine.lane("deterministic_fluency")
        runs = find_runs([Path(tmp)], ["transcripts/*.jsonl"])
        texts = {str(case_file): case_file.read_bytes(), runs[0].path: run_file.read_bytes()}
        cases = [str(case_file)]

        def review() -> object:
            found = review_transcript(engine, runs[0].path, texts[runs[0].path], cases, texts)
            assert found is not None
            return review_html(found, "file:///run.jsonl", found.turns, None, None, False)

        rows = [
            ("score (floor)", median_seconds(lambda: engine.score(lane.name, cases, [runs[0].path], want_details=True,
                                                                  finding_limit=None, texts=texts), args.repeat)),
            ("case lenses", median_seconds(lambda: latest_outcomes(engine, lane, cases, runs, texts), args.repeat)),
            ("references", median_seconds(lambda: turn_references(engine, runs, texts, lane), args.repeat)),
            ("review + html", median_seconds(review, args.repeat)),
        ]
    floor = rows[0][1]
    print(f"python {sys.version.split()[0]} · {args.turns} cases, one run of {args.turns} turns · "
          f"median of {args.repeat}")
    for name, seconds in rows:
        print(f"{name:>14}  {seconds:7.3f} s  {seconds / floor:5.2f}x the floor")


if __name__ == "__main__":
    main()
