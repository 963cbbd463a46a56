"""What the shipped case-driven lanes spend of the expression budget (docs/lanes/README.md, "Limits").

Runs `--lane LANE --profile reference --cases C --transcripts T` in this process on every split
of `../shared/corpus/lanes/<lane>` and symbolic_logic's (the pairs bench/casework_lane_memory.py
builds from) and prints, per lane, the most evaluation steps and the most characters and list
items any one case's budget (`rules.expressions.Budget`: one per case, or one per evaluator
reset for each case) used. Not a test: a number for the
docs, rerun when the accounting or the lanes change.

    PYTHONPATH=server python bench/expression_budget.py
"""

from __future__ import annotations

import contextlib
import io
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from casework_lane_memory import CORPUS, split_files

from surface_lint.__main__ import main as cli_main
from surface_lint.rules import expressions

BUDGETS: list[expressions.Budget] = []
SPENT: list[tuple[int, int]] = []  # (steps, cells) a budget had spent when it was reset for the next case


class _Tracked(expressions.Budget):
    __slots__ = ()

    def __init__(self, limits: expressions.Limits = expressions.LIMITS) -> None:
        super().__init__(limits)
        BUDGETS.append(self)

    def reset(self) -> expressions.Budget:  # one budget for every case of an evaluator: each case's spend
        SPENT.append((self.limits.steps - self.steps, self.limits.cells - self.cells))
        return super().reset()


def main() -> None:
    expressions.Budget = _Tracked  # type: ignore[misc]  # every module that reads the name at call time
    from surface_lint.engine import casework, fold

    casework.Budget = _Tracked  # type: ignore[misc]
    fold.Budget = _Tracked  # type: ignore[misc]
    print("| lane | splits | most steps of one case | most characters and items of one case |")
    print("|---|---:|---:|---:|")
    overall = [0, 0]
    for lane in sorted([*(p.name for p in (CORPUS / "lanes").iterdir() if p.is_dir()), "symbolic_logic"]):
        pairs = split_files(lane)
        steps = cells = 0
        for cases, captures in pairs:
            BUDGETS.clear()
            SPENT.clear()
            with contextlib.redirect_stdout(io.StringIO()):
                cli_main(["--lane", lane, "--profile", "reference", "--cases", str(cases), "--transcripts",
                          str(captures), "--output-format", "json", "-o", os.devnull])
            for spent_steps, spent_cells in [*SPENT, *((b.limits.steps - b.steps, b.limits.cells - b.cells)
                                                       for b in BUDGETS)]:
                steps = max(steps, spent_steps)
                cells = max(cells, spent_cells)
        overall = [max(overall[0], steps), max(overall[1], cells)]
        print(f"| {lane} | {len(pairs)} | {steps:,} | {cells:,} |", flush=True)
    print(f"| **all** | | **{overall[0]:,}** | **{overall[1]:,}** |")


if __name__ == "__main__":
    main()
