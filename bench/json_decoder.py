"""Benchmark: the record reader with msgspec against json.loads alone (issue 17, point 4).

Builds issue 17's input (`lane_throughput.build_corpus`), then reads it with `JsonlReader`
`--repeat` times in this process, alternating the decoder `surface_lint.model.jsonread` uses:
json.loads alone (as without msgspec) and msgspec first. CPU of each read (process time); the
ratio is the median of the per-round ratios. Also the bare decoders over the same lines.

    PYTHONPATH=server python bench/json_decoder.py [--turns 200000] [--repeat 5]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from lane_throughput import build_corpus

from surface_lint.model import jsonread
from surface_lint.sources.base import JsonlReader


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--turns", type=int, default=200_000)
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    fast = jsonread.fast_decoder()
    if fast is None:
        sys.exit("msgspec is not installed")
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "turns.jsonl"
        build_corpus(path, args.turns)
        lines = path.read_bytes().splitlines()
        texts = [line.decode("utf-8") for line in lines]
        rows: dict[str, list[float]] = {"reader, json.loads": [], "reader, msgspec": [], "json.loads(text)": [], "msgspec(bytes)": []}
        for _ in range(args.repeat):
            for name, decoder in (("reader, json.loads", None), ("reader, msgspec", fast)):
                jsonread._fast, jsonread._countdown = decoder, 0
                start = time.process_time()
                with path.open("rb") as fh:
                    for _record in JsonlReader(str(path)).records(fh):
                        pass
                rows[name].append(time.process_time() - start)
            for name, decode, items in (("json.loads(text)", json.loads, texts), ("msgspec(bytes)", fast, lines)):
                start = time.process_time()
                for item in items:
                    decode(item)
                rows[name].append(time.process_time() - start)
    print(f"python {sys.version.split()[0]} · {args.turns} turns · {args.repeat} rounds")
    for name, runs in rows.items():
        print(f"{name:<20} {statistics.median(runs):6.3f} s  {' '.join(f'{x:.3f}' for x in runs)}")
    for a, b in (("reader, msgspec", "reader, json.loads"), ("msgspec(bytes)", "json.loads(text)")):
        print(f"{a} / {b}: {statistics.median(x / y for x, y in zip(rows[a], rows[b], strict=True)):.2f}")


if __name__ == "__main__":
    main()
