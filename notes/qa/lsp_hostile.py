"""Extra hostile LSP probes: bad params on other methods, out-of-range edits, U+2028 positions, huge line numbers."""
import sys, os, json
sys.path.insert(0, os.path.dirname(__file__))
from lspclient import *
W = sys.argv[1]; os.makedirs(W, exist_ok=True)
turns = open("/tmp/qa/turns.jsonl").read()
c = start_stdio(cwd=W); init(c, W)
uri = open_doc(c, W + "/t.jsonl", turns)
print("open:", short(c.diagnostics(uri)))
for m, p in [("textDocument/completion", {"textDocument": {"uri": uri}, "position": {"line": "x", "character": 0}}),
             ("textDocument/definition", {"textDocument": {"uri": 5}, "position": {"line": 0, "character": 0}}),
             ("textDocument/documentSymbol", {"textDocument": {}}),
             ("textDocument/codeLens", {"textDocument": {"uri": uri}, "extra": 1}),
             ("textDocument/diagnostic", {"textDocument": {"uri": None}}),
             ("surfaceLint/laneScore", {"uri": 7}),
             ("surfaceLint/laneScore", {}),
             ("textDocument/hover", {"textDocument": {"uri": uri}, "position": {"line": 999999, "character": 999999}}),
             ("textDocument/references", {"textDocument": {"uri": uri}, "position": {"line": 0, "character": 15}, "context": {"includeDeclaration": "yes"}})]:
    r = c.request(m, p, timeout=5)
    print(m, json.dumps(p)[:80], "->", json.dumps(r)[:200] if r else "NO RESPONSE in 5 s")
# out-of-range incremental edit
c.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": 2}, "contentChanges": [
    {"range": {"start": {"line": 50, "character": 0}, "end": {"line": 60, "character": 5}}, "text": "zzz"}]})
d = c.diagnostics(uri, 5); print("after an edit past the end:", short(d))
c.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": 3}, "contentChanges": [
    {"range": {"start": {"line": 1, "character": 5000}, "end": {"line": 0, "character": 0}}, "text": ""}]})
d = c.diagnostics(uri, 5); print("after an edit with end before start / char past line end:", short(d))
c.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": 4}, "contentChanges": [{"text": turns}]})
print("full resync:", short(c.diagnostics(uri, 5)))
# U+2028 inside a surface before a finding: LSP does not treat it as a line end
t = json.loads(turns.splitlines()[1]); t["surface"] = "Doubt\u2028is\u2029 ... here"
line = json.dumps(t, ensure_ascii=False)
u2 = open_doc(c, W + "/u.jsonl", line + "\n")
print("U+2028 doc: expected SL101 at 0:%d" % line.index("..."), short(c.diagnostics(u2)))
# emoji before the finding (UTF-16 columns)
t["surface"] = "\U0001F600\U0001F600 Doubt is ... here"; line = json.dumps(t, ensure_ascii=False)
u3 = open_doc(c, W + "/e.jsonl", line + "\n")
print("emoji doc: expected SL101 at 0:%d (utf-16)" % (len(line[:line.index("...")].encode("utf-16-le")) // 2), short(c.diagnostics(u3)))
t["surface"] = "\\ud83d Doubt is ... here"; line = json.dumps(t).replace("\\\\ud83d", "\\ud83d")
u4 = open_doc(c, W + "/h.jsonl", line + "\n")
print("half-emoji escape doc: expected SL101 at 0:%d" % line.index("..."), short(c.diagnostics(u4)))
c.request("shutdown"); c.notify("exit"); print("rc", c.proc.wait(5))
err = c.proc.stderr.read().decode(errors="replace")
print("stderr tail:", err[-600:])
