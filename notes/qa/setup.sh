#!/bin/bash
# Builds /tmp/qa: the base case/turn files and the inputs the table names (run before the other scripts).
set -e; mkdir -p /tmp/qa && cd /tmp/qa; Q=/work/wt/qa/notes/qa; PY=/work/venv/bin/python
cat > cases.jsonl <<'EOF'
{"id":"c1","prompt":"What is truth?","category":"pack_definition","expected_predicates":["no_placeholder","complete_punctuation","finite_predicate_shape"]}
{"id":"c2","prompt":"What is doubt?","category":"pack_definition","expected_predicates":["no_placeholder","complete_punctuation","finite_predicate_shape"]}
{"id":"c3","prompt":"What is river?","category":"pack_definition","expected_predicates":["no_placeholder","complete_punctuation"]}
EOF
cat > turns.jsonl <<'EOF'
{"case_id": "c1", "chain": 0, "grounding_source": "pack", "path": "ChatRuntime.chat", "prompt": "What is truth?", "role": "prompt", "scored": true, "surface": "Truth is what is true.", "turn_index": 0, "vault_hits": 0}
{"case_id": "c2", "chain": 0, "grounding_source": "pack", "path": "ChatRuntime.chat", "prompt": "What is doubt?", "role": "prompt", "scored": true, "surface": "Doubt is ... here", "turn_index": 0, "vault_hits": 0}
{"case_id": "c3", "chain": 0, "grounding_source": "pack", "path": "ChatRuntime.chat", "prompt": "What is river?", "role": "prompt", "scored": true, "surface": "The river flows.", "turn_index": 0, "vault_hits": 0}
EOF
$PY $Q/gen_firstline.py fl; $PY $Q/gen_regex.py t6; $PY $Q/gen_rules.py t7
$PY $Q/gen_big.py big100k 100000; $PY $Q/gen_big.py big200k 200000
mkdir -p t2 t3 t4 t11 && : > t2/empty.jsonl
$PY - <<'EOF'
import json
t = {"chain": 0, "grounding_source": "pack", "path": "ChatRuntime.chat", "prompt": "What is truth?", "role": "prompt", "scored": True, "surface": "Truth is what is true.", "turn_index": 0, "vault_hits": 0}
open("t2/noid.jsonl","w").write(json.dumps(t)+"\n"+json.dumps(t)+"\n")
open("t2/nomatch.jsonl","w").write(json.dumps({**t,"case_id":"zz1"})+"\n"+json.dumps({**t,"case_id":"zz2"})+"\n")
body = "\n".join(json.dumps({**t,"case_id":c}) for c in ["c1","c2","c3"])+"\n"
open("t2/utf16.jsonl","wb").write(body.encode("utf-16")); open("t2/utf16le.jsonl","wb").write(body.encode("utf-16-le"))
h = {**t, "case_id": "c1", "surface": "Truth is \\ud83d what ... is"}
open("t4/half.jsonl","w").write(json.dumps(h).replace("\\\\ud83d", "\\ud83d")+"\n"+json.dumps({**t,"case_id":"c2","surface":"Fine."})+"\n")
open("t4/halfid.jsonl","w").write(json.dumps({**t,"case_id":"X","surface":"ok."}).replace('"X"', '"c\\udc00"')+"\n")
evil = ["c1\n# Injected heading", "<img src=x onerror=alert(1)>", "x|y|z", "`code` **bold** [link](http://evil)", "<script>alert(1)</script>", "c]\n\n---\n## H2 <b>x</b>", "@everyone ![i](http://e/x.png)"]
open("t11/cases.jsonl","w").write("".join(json.dumps({"id": e, "prompt": "What is truth?", "expected_predicates": ["no_placeholder","complete_punctuation"]})+"\n" for e in evil))
open("t11/turns.jsonl","w").write("".join(json.dumps({**t,"case_id":e,"surface":"Doubt is ... <b>here</b> # no"})+"\n" for e in evil))
EOF
echo "built /tmp/qa (t8, t9, t10, t12-t17 are built inline by the commands in notes/qa.md)"
