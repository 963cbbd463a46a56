"""How the cost of locating findings grows with their number in one surface.

Writes one transcript turn whose surface holds n characters of `a.b; ` (an SL105 match every
5 characters, so about n/5 findings on one string), lints it with `surface-lint check` and
prints the CPU time at n and 2n characters and their ratio: about 2 is linear, 4 quadratic.

    python bench/finding_positions.py [n=48000]
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import tempfile

HEAD = "x \u2014 pack-grounded (p): "


def _turn(n: int) -> str:
    surface = HEAD + "a.b; " * (n // 5)
    return json.dumps({"case_id": "c1", "chain": 0, "grounding_source": "pack", "path": "ChatRuntime.chat",
                       "prompt": "What is x?", "role": "prompt", "scored": True, "surface": surface,
                       "turn_index": 0, "vault_hits": 0}) + "\n"


def _child_cpu(path: str) -> float:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    done = subprocess.run([os.path.join(os.path.dirname(sys.executable), "surface-lint"), "check", path,
                           "--lane", "deterministic_fluency", "--output-format", "json", "-o", os.devnull],
                          check=False)
    if done.returncode not in (0, 1):
        raise SystemExit(f"surface-lint exited {done.returncode}")
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main(n: int) -> None:
    with tempfile.TemporaryDirectory() as folder:
        times = []
        for size in (n, 2 * n):
            path = os.path.join(folder, f"turns_{size}.jsonl")
            with open(path, "w", encoding="utf-8") as out:
                out.write(_turn(size))
            times.append(_child_cpu(path))
        print(f"{n} chars: {times[0]:.2f} s CPU; {2 * n} chars: {times[1]:.2f} s; ratio {times[1] / times[0]:.2f}")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 48000)
