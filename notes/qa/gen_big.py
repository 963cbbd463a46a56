"""N generated turns (distinct case ids) + matching case file for deterministic_fluency: gen_big.py OUTDIR N"""
import json, sys, os
out, n = sys.argv[1], int(sys.argv[2])
os.makedirs(out, exist_ok=True)
surfaces = ["Truth is what is true. pack-grounded (en_core_cognition_v1).",
            "doubt — pack-grounded (en_core_meta_v1): meta.mental_state.uncertainty; meta.mental_state. No session evidence yet.",
            "The river flows through the valley ... and on",
            "I haven't learned 'quasar' yet (intent: definition). Teach me via a reviewed PackMutationProposal.",
            "river flows valley"]
with open(f"{out}/turns.jsonl", "w") as t, open(f"{out}/cases.jsonl", "w") as c:
    for i in range(n):
        cid = f"case_{i:07d}"
        c.write(json.dumps({"id": cid, "prompt": f"What is thing {i}?", "category": ["a", "b", "c"][i % 3],
                            "expected_predicates": ["no_placeholder", "complete_punctuation"]}) + "\n")
        t.write(json.dumps({"case_id": cid, "chain": 0, "grounding_source": "pack", "path": "ChatRuntime.chat",
                            "prompt": f"What is thing {i}?", "role": "prompt", "scored": True,
                            "surface": surfaces[i % len(surfaces)], "turn_index": 0, "vault_hits": 0}) + "\n")
