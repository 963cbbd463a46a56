#!/bin/bash
# Re-run the CLI probes that failed before the 09:15 merge (run from /tmp/qa after the generators).
export PYTHONPATH=/work/wt/qa/server; SL=/work/venv/bin/surface-lint; cd /tmp/qa
echo "### nothing scored (thresholds)"
for f in empty noid nomatch utf16 utf16le; do $SL --lane deterministic_fluency --cases cases.jsonl --transcripts t2/$f.jsonl > /tmp/qa/rc.out 2>&1; echo "$f rc=$? :: $(grep -E '^result|error' /tmp/qa/rc.out | head -3 | tr '\n' ' ')"; done
echo "### transcript-only json"
$SL --lane deterministic_fluency --transcripts turns.jsonl --output-format json -o t3/r.json; echo rc=$?; grep -o '"case_id": "[^"]*"' t3/r.json | head -3
$SL --lane deterministic_fluency --transcripts t3/r.json 2>&1 | grep -E "case\(s\)|result|SL005"; echo "readback rc=${PIPESTATUS[0]}"
echo "### markdown injection"
cd t11 && $SL --lane deterministic_fluency --cases cases.jsonl --transcripts turns.jsonl --output-format markdown -o lane.md; grep -n "^#\|^---" lane.md; cd ..
echo "### --lane and [severity]"
cd t8 && printf '[severity]\nSL103 = "off"\nSL101 = "hint"\n' > surface-lint.toml; $SL --lane deterministic_fluency --cases cases.jsonl --transcripts turns.jsonl | grep -E "SL10[13]"; rm surface-lint.toml; cd ..
echo "### -o /dev/stdout into a pipe"
$SL check turns.jsonl -o /dev/stdout 2>&1 | head -2
echo "### lanes"
$SL lanes
