"""Generate transcripts/case files whose first line holds an odd line-break character (issue 8, bullet 1)."""
import json, os, sys
out = sys.argv[1]
os.makedirs(out, exist_ok=True)
base_turn = {"case_id": "c1", "chain": 0, "grounding_source": "pack", "path": "ChatRuntime.chat",
             "prompt": "What is truth?", "role": "prompt", "scored": True, "surface": "Truth is what is true.",
             "turn_index": 0, "vault_hits": 0}
rest = [
    {**base_turn, "case_id": "c2", "prompt": "What is doubt?", "surface": "Doubt is ... here"},
    {**base_turn, "case_id": "c3", "prompt": "What is river?", "surface": "The river flows."},
]
variants = {
    "u2028": "Truth is\u2028what is true.",
    "u2029": "Truth is\u2029what is true.",
    "u0085": "Truth is\u0085what is true.",
}
for name, surf in variants.items():
    first = json.dumps({**base_turn, "surface": surf}, ensure_ascii=False)
    with open(f"{out}/turns_{name}.jsonl", "w", encoding="utf-8", newline="") as f:
        f.write(first + "\n" + "".join(json.dumps(r) + "\n" for r in rest))
# bare CR used as whitespace between JSON tokens on line 1
first = json.dumps(base_turn).replace(", ", ",\r", 3)
with open(f"{out}/turns_cr.jsonl", "w", encoding="utf-8", newline="") as f:
    f.write(first + "\n" + "".join(json.dumps(r) + "\n" for r in rest))
# first line over 64 KiB (long surface)
first = json.dumps({**base_turn, "surface": "Truth is " + "very " * 14000 + "true."})
with open(f"{out}/turns_big.jsonl", "w", encoding="utf-8", newline="") as f:
    f.write(first + "\n" + "".join(json.dumps(r) + "\n" for r in rest))
# garbage first line
with open(f"{out}/turns_garbage.jsonl", "w", encoding="utf-8", newline="") as f:
    f.write("this is not json {{{\n" + "".join(json.dumps(r) + "\n" for r in rest))
# case files: first line odd, line 3 lacks required prompt (SL0xx expected)
case1 = {"id": "c1", "prompt": "What is truth?", "category": "pack_definition", "expected_predicates": ["no_placeholder"]}
case2 = {"id": "c2", "prompt": "What is doubt?", "expected_predicates": ["no_placeholder"]}
case3 = {"id": "c3", "expected_predicates": ["no_placeholder"]}
for name, ch in {"u2028": "\u2028", "u2029": "\u2029", "u0085": "\u0085"}.items():
    first = json.dumps({**case1, "prompt": "What" + ch + "is truth?"}, ensure_ascii=False)
    with open(f"{out}/cases_{name}.jsonl", "w", encoding="utf-8", newline="") as f:
        f.write(first + "\n" + json.dumps(case2) + "\n" + json.dumps(case3) + "\n")
with open(f"{out}/cases_cr.jsonl", "w", encoding="utf-8", newline="") as f:
    f.write(json.dumps(case1).replace(", ", ",\r") + "\n" + json.dumps(case2) + "\n" + json.dumps(case3) + "\n")
with open(f"{out}/cases_big.jsonl", "w", encoding="utf-8", newline="") as f:
    f.write(json.dumps({**case1, "prompt": "What " * 14000 + "?"}) + "\n" + json.dumps(case2) + "\n" + json.dumps(case3) + "\n")
with open(f"{out}/cases_garbage.jsonl", "w", encoding="utf-8", newline="") as f:
    f.write("garbage line ][\n" + json.dumps(case2) + "\n" + json.dumps(case3) + "\n")
with open(f"{out}/cases_ok.jsonl", "w", encoding="utf-8", newline="") as f:
    f.write(json.dumps(case1) + "\n" + json.dumps(case2) + "\n" + json.dumps(case3) + "\n")
