"""What a user pattern's character budget buys: CPU time per character against its cost.

For user patterns with ASCII and Unicode classes, counted repetitions and a rescanning
alternation, runs `finditer` the way the engine runs it (SafePattern, the RE2 path) on real
surfaces of the corpus joined to n characters and on texts made to defeat RE2's DFA (a random
mix of the pattern's letters, ASCII and Greek), at n and 2n characters. Prints each pattern's
cost (steps a character), its budget (2**28 / cost characters), the old budget (2**28 / RE2
program size), the ns per character and per step, and the worst time at the budget that the
measured rate implies. docs/regex.md "The character budget" quotes the numbers.

    python bench/regex_budget.py [n=20000]
"""
# ruff: noqa: RUF001  (Greek and Hebrew letters are the subject)

from __future__ import annotations

import json
import random
import sys
import time
from collections.abc import Callable
from pathlib import Path

from surface_lint.rules.patterns import USER_REGEX_STEPS, RegexBudgetExceeded, SafePattern

PATTERNS = [r"\s+", r"\bis a\b", r"\b\w+\b", r"\p{L}+", r"a{1000}", r"x[a-z]{1,50}y", r"x\w{1,50}y",
            r"(?i)x\w{1,50}y", r"\w{1,200}z", r"a.*b|a"]
CORPUS = Path(__file__).resolve().parents[1].parent / "shared" / "corpus" / "surfaces" / "records.jsonl"


def _corpus(n: int) -> str:
    surfaces = [s for s in (json.loads(line).get("surface") for line in CORPUS.read_text("utf-8").splitlines())
                if isinstance(s, str) and s]
    text = " ".join(surfaces)
    return (text * (n // len(text) + 1))[:n]


def _mix(letters: str) -> Callable[[int], str]:
    def make(n: int) -> str:
        rnd = random.Random(1)
        return "".join(rnd.choice(letters) for _ in range(n))
    return make


TEXTS: dict[str, Callable[[int], str]] = {
    "corpus": _corpus,
    "xxab": _mix("xxab"),          # defeats the DFA of x[..]{1,50}y: many overlapping starts
    "greek": _mix("xλόγοςé"),      # the same with 2-byte characters
    "a-run": lambda n: "a" * n,
}


def _cpu(fn: Callable[[], object]) -> float:
    best = float("inf")
    for _ in range(3):
        started = time.process_time()
        fn()
        best = min(best, time.process_time() - started)
    return best


def main(n: int) -> None:
    print(f"{'pattern':16} {'cost':>5} {'budget':>11} {'old budget':>11}  {'text':6} "
          f"{'ms at n':>8} {'ratio 2n/n':>10} {'ns/char':>8} {'ns/step':>8} {'s at budget':>11}")
    for source in PATTERNS:
        pattern = SafePattern(source, False)
        cost = int(pattern.cost or 1)
        old = USER_REGEX_STEPS // int(pattern._re2.programsize)  # the model before (program size)
        for name, make in TEXTS.items():
            times = []
            for size in (n, 2 * n):
                text = make(size)
                def run(text: str = text, pattern: SafePattern = pattern) -> object:
                    try:
                        return pattern.finditer(text)
                    except RegexBudgetExceeded:
                        return "SL013"
                times.append(_cpu(run))
            per_char = times[1] / (2 * n)
            at_budget = per_char * (pattern.budget_chars or 0)
            print(f"{source:16} {cost:5} {pattern.budget_chars:11,} {old:11,}  {name:6} {times[0] * 1e3:8.2f} "
                  f"{times[1] / max(times[0], 1e-9):10.2f} {per_char * 1e9:8.1f} {per_char / cost * 1e9:8.2f} "
                  f"{at_budget:11.2f}", flush=True)


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 20000)
