#!/bin/bash
# Issue 9: every shipped lane listed; the new lanes' case files and captures checked with no spurious SL012.
export PYTHONPATH=/work/wt/qa/server; SL=/work/venv/bin/surface-lint; C=/work/wt/shared/corpus/lanes
$SL lanes
for d in $C/*/; do lane=$(basename $d)
  files=$(find $d/cases -name '*.jsonl' | sort)
  $SL check $files --lane $lane --output-format json -o /tmp/qa/lanes_$lane.json 2>/tmp/qa/lanes_$lane.err; rc=$?
  echo "$lane cases rc=$rc $(head -c 200 /tmp/qa/lanes_$lane.err) codes: $(python3 -c "
import json,collections,sys
try:
  d=json.load(open('/tmp/qa/lanes_$lane.json')); f=d['findings'] if isinstance(d,dict) else d
  print(dict(collections.Counter(x['code'] for x in f)))
except Exception as e: print('no json', e)")"
  $SL check $d/captures/*.jsonl --lane $lane --output-format json -o /tmp/qa/lanescap_$lane.json 2>/tmp/qa/lanescap_$lane.err; rc=$?
  echo "$lane captures rc=$rc $(head -c 200 /tmp/qa/lanescap_$lane.err) codes: $(python3 -c "
import json,collections
try:
  d=json.load(open('/tmp/qa/lanescap_$lane.json')); f=d['findings'] if isinstance(d,dict) else d
  print(dict(collections.Counter(x['code'] for x in f)))
except Exception as e: print('no json', e)")"
done
