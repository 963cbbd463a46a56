"""List every verdict that differs between the `contract` and `reference` profiles.

Reads a JSONL file of surfaces (objects with `surface` and optionally `grounding_source`,
e.g. ../shared/corpus/surfaces/oracle.jsonl) and prints, per predicate, how many verdicts
differ, then each differing surface. Used to keep the README's divergence list honest.

    python bench/profile_diff.py ../shared/corpus/surfaces/oracle.jsonl
"""

from __future__ import annotations

import json
import sys
from collections import Counter

from surface_lint.rules.kinds.core import Context, Subject
from surface_lint.rules.loader import load_lanes


def main(path: str) -> None:
    contract, reference = load_lanes("contract"), load_lanes("reference")
    counts: Counter[str] = Counter()
    total = 0
    rows = []
    with open(path, encoding="utf-8") as fh:
        for line in fh:
            if not line.strip():
                continue
            row = json.loads(line)
            total += 1
            subject = Subject(row["surface"], row.get("grounding_used") or row.get("grounding_source") or "none")
            for name, lane in contract.lanes.items():
                ref = reference.lanes[name]
                if lane.unit != "surface":
                    continue
                for spec in lane.predicates:
                    other = ref.predicate(spec.name)
                    assert other is not None
                    c = spec.evaluate(Context(subject, lane.analysis)).passed
                    r = other.evaluate(Context(subject, ref.analysis)).passed
                    if c != r:
                        counts[f"{name}.{spec.name}"] += 1
                        rows.append((spec.name, c, r, row["surface"]))
    print(f"{total} surfaces; differing verdicts: {sum(counts.values())}")
    for key, n in sorted(counts.items()):
        print(f"  {key}: {n}")
    for name, c, r, surface in rows:
        print(f"{name}: contract={'pass' if c else 'fail'} reference={'pass' if r else 'fail'}: {surface}")


if __name__ == "__main__":
    main(sys.argv[1])
