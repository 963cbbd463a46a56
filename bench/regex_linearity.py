"""How each shipped pattern's cost grows with the surface: CPU time at n and 2n characters.

For every pattern of the shipped rules (vetted, see server/surface_lint/rules/patterns.py) and the
word lists the engine builds, runs the way the engine runs it on adversarial surfaces of n and
2n characters and prints the time ratio: about 2 is linear, about 4 quadratic. The stdlib
`re` on the same input is printed beside it for comparison (the reference engine, used by
the engine only up to FAST_PATH_MAX_CHARS characters for patterns with an RE2 translation),
on a tenth of the length (quadratic cases take minutes at full length).

    python bench/regex_linearity.py [n=120000]
"""

from __future__ import annotations

import re
import sys
import time
from collections.abc import Callable

from surface_lint.rules.kinds.core import _compile_connectives, _compile_words
from surface_lint.rules.loader import load_lanes
from surface_lint.rules.patterns import SafePattern

# Surfaces that make a backtracking engine work hardest on the shipped shapes.
ADVERSARIAL: dict[str, Callable[[int], str]] = {
    "letters": lambda n: "a" * n,
    "spaces": lambda n: " " * (n - 1) + "x",
    "dotted atoms": lambda n: "ab.cd." * (n // 6),
    "tail openers": lambda n: "pack-grounded (" * (n // 15),
    "sentence marks": lambda n: ". " * (n // 2),
    "words": lambda n: "word " * (n // 5),
}


def _cpu(fn: Callable[[str], object], text: str) -> float:
    best = float("inf")
    for _ in range(3):
        started = time.process_time()
        list(fn(text))  # type: ignore[call-overload]
        best = min(best, time.process_time() - started)
    return best


def main(n: int) -> None:
    seen: dict[str, SafePattern] = {}
    lanes = [*load_lanes("contract").lanes.values(), *load_lanes("reference").lanes.values()]
    for lane in lanes:
        if lane.proposal_check is not None:
            seen.setdefault(lane.proposal_check.correction_pattern.pattern, lane.proposal_check.correction_pattern)
        for spec in lane.predicates:
            if spec.kind in ("words_present", "connective_present"):
                params = {**spec.params, "_trusted": True}
                (_compile_words if spec.kind == "words_present" else _compile_connectives)(params)
                seen.setdefault(params["_compiled"].pattern, params["_compiled"])
        analysis = lane.analysis
        for pattern in [*analysis.tail_patterns, analysis.sentence_split, analysis.token_pattern]:
            if pattern is not None:
                seen.setdefault(pattern.pattern, pattern)
        for spec in lane.predicates:
            value = spec.params.get("pattern")
            if isinstance(value, SafePattern):
                seen.setdefault(value.pattern, value)
    print(f"n = {n:,} characters; ratio = time(2n) / time(n), best of 3 (cpu)")
    print(f"{'pattern':60} {'input':15} {'engine':>6} {'ratio':>6} {'2n s':>7} {'re ratio':>9} {'re 2n/10 s':>10}")
    for text, pattern in sorted(seen.items()):
        python = re.compile(text)
        for name, make in ADVERSARIAL.items():
            small, large = make(n), make(2 * n)
            ours_large = _cpu(pattern.finditer, large)
            ours = ours_large / max(_cpu(pattern.finditer, small), 1e-6)
            ref_small, ref_large_text = make(n // 10), make(2 * n // 10)
            ref_large = _cpu(python.finditer, ref_large_text)
            ref = ref_large / max(_cpu(python.finditer, ref_small), 1e-6)
            engine = "re2" if pattern._re2 is not None else "re"
            print(f"{text[:60]:60} {name:15} {engine:>6} {ours:6.1f} {ours_large:7.3f} {ref:9.1f} {ref_large:10.3f}")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 120_000)
