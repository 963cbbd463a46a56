"""Adversarial long surfaces for the shipped patterns (issue 8 bullet 'regex determinism'): gen_regex.py OUTDIR"""
import json, os, sys
out = sys.argv[1]; os.makedirs(out, exist_ok=True)
N = 8000
bodies = {
    "a": "a" * N,
    "dots": ("ab.cd " * N)[:N],
    "semis": ("ab.cd ; ef.gh ;" * N)[:N],
    "semis2": ("ab.cd.ef ; " * N)[:N],
    "spaces": ("a.b" + " " * 50 + ";") * (N // 54),
    "pack": "x — pack-grounded (p): " + ("a.b; " * N)[:N],
    "pack2": "x y z — pack-grounded (p; q × r): " + ("ab.cd.ef; " * N)[:N] + "No session evidence",
    "words": ("walks talked singing " * N)[:N],
    "mixed": ("cognition.truth; meta.mental_state; " * N)[:N] + " ...",
}
def turn(cid, s):
    return json.dumps({"case_id": cid, "chain": 0, "grounding_source": "pack", "path": "ChatRuntime.chat",
                       "prompt": "What is x?", "role": "prompt", "scored": True, "surface": s, "turn_index": 0, "vault_hits": 0})
with open(f"{out}/long8k.jsonl", "w") as t, open(f"{out}/cases8k.jsonl", "w") as c:
    for i, (k, b) in enumerate(bodies.items()):
        for j in range(3):
            cid = f"{k}_{j}"
            c.write(json.dumps({"id": cid, "prompt": "What is x?", "expected_predicates": ["no_placeholder"]}) + "\n")
            t.write(turn(cid, b) + "\n")
M = 240_000
with open(f"{out}/long240k.jsonl", "w") as t:
    for k, b in bodies.items():
        t.write(turn(k, (b * (M // len(b) + 1))[:M]) + "\n")
