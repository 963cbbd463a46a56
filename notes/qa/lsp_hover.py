"""Hover content built from data: HTML / Markdown in case ids and surfaces."""
import sys, os, json
sys.path.insert(0, os.path.dirname(__file__))
from lspclient import *
W = sys.argv[1]; os.makedirs(W, exist_ok=True)
c = start_stdio(cwd=W); init(c, W)
t = {"case_id": "c`x`<img src=x onerror=alert(1)>\n# H", "chain": 0, "grounding_source": "pack", "path": "ChatRuntime.chat", "prompt": "What?", "role": "prompt", "scored": True, "surface": "Doubt <b>is</b> ... [x](javascript:alert(1)) ![i](http://e/x.png)", "turn_index": 0, "vault_hits": 0}
line = json.dumps(t)
uri = open_doc(c, W + "/h.jsonl", line + "\n")
print(short(c.diagnostics(uri)))
for key in ("surface", "case_id"):
    col = line.index('"%s": "' % key) + len(key) + 6
    r = c.request("textDocument/hover", {"textDocument": {"uri": uri}, "position": {"line": 0, "character": col}})
    print(key, "->", json.dumps((r or {}).get("result"))[:1500])
c.request("shutdown"); c.notify("exit"); c.proc.wait(5)
