"""Issue 10 protocol bullets over stdio (and the editor side of issue 8's rules/severity bullets)."""
import sys, os, json, time, shutil
sys.path.insert(0, os.path.dirname(__file__))
from lspclient import *
W = sys.argv[1]
os.makedirs(W, exist_ok=True)

def section(t): print("\n##", t)

section("request before initialize")
c = start_stdio(cwd=W)
print(c.request("textDocument/hover", {"textDocument": {"uri": "file:///x.jsonl"}, "position": {"line": 0, "character": 0}}, timeout=5))
print("initialize after it:", (c.request("initialize", {"processId": None, "rootUri": None, "capabilities": {}}) or {}).get("result", {}).get("serverInfo"))
c.notify("initialized", {})
section("second initialize")
print(c.request("initialize", {"processId": None, "rootUri": None, "capabilities": {}}, timeout=5))
section("invalid params")
turns = open("/tmp/qa/turns.jsonl").read()
uri = open_doc(c, W + "/turns.jsonl", turns)
print("diags:", short(c.diagnostics(uri)))
for label, pos in [("line -1", {"line": -1, "character": 0}), ("line 'a'", {"line": "a", "character": 0}),
                   ("line true", {"line": True, "character": 0}), ("line 1.5", {"line": 1.5, "character": 0}),
                   ("line 2**40", {"line": 2**40, "character": 0}), ("char -3", {"line": 0, "character": -3}),
                   ("no position", None)]:
    p = {"textDocument": {"uri": uri}}
    if pos is not None: p["position"] = pos
    print(label, "->", c.request("textDocument/hover", p, timeout=5))
print("codeAction without range ->", c.request("textDocument/codeAction", {"textDocument": {"uri": uri}, "context": {"diagnostics": []}}, timeout=5))
print("codeAction range.start.line=-1 ->", c.request("textDocument/codeAction", {"textDocument": {"uri": uri}, "range": {"start": {"line": -1, "character": 0}, "end": {"line": 0, "character": 0}}, "context": {"diagnostics": []}}, timeout=5))
print("hover on unknown uri ->", c.request("textDocument/hover", {"textDocument": {"uri": "file:///nope.jsonl"}, "position": {"line": 0, "character": 0}}, timeout=5))
print("unknown method ->", c.request("qa/nope", {}, timeout=5))
print("params is a list ->", c.request("textDocument/hover", [1, 2], timeout=5))
c.raw(b'{"jsonrpc":"2.0","id":99,"method":"textDocument/hover","params":')  # malformed JSON body
print("malformed JSON body ->", c.wait(lambda x: x.get("id") in (99, None) and "error" in x, 5))
print("after garbage, hover still works ->", c.request("textDocument/hover", {"textDocument": {"uri": uri}, "position": {"line": 1, "character": 170}}, timeout=5) is not None)
section("after shutdown")
print("shutdown ->", c.request("shutdown"))
print("hover after shutdown ->", c.request("textDocument/hover", {"textDocument": {"uri": uri}, "position": {"line": 0, "character": 0}}, timeout=5))
print("shutdown twice ->", c.request("shutdown", timeout=5))
c.notify("exit"); print("exit after shutdown rc:", c.proc.wait(5))

section("exit without shutdown")
c = start_stdio(cwd=W); init(c, W); c.notify("exit")
try: print("rc:", c.proc.wait(5))
except Exception as e: print("no exit:", e); c.proc.kill()
section("stdin closed without shutdown")
c = start_stdio(cwd=W); init(c, W); c.proc.stdin.close()
try: print("rc:", c.proc.wait(5))
except Exception as e: print("no exit:", e); c.proc.kill()

section("bare CR positions and edits")
c = start_stdio(cwd=W); init(c, W)
t = [json.loads(l) for l in turns.splitlines()]
l0 = json.dumps(t[0])
l1 = json.dumps(t[1]).replace(', "surface"', ',\r"surface"')  # bare CR as JSON whitespace
l2 = json.dumps(t[2])
text = l0 + "\n" + l1 + "\n" + l2 + "\n"
uri = open_doc(c, W + "/cr.jsonl", text)
d = c.diagnostics(uri); print("open:", short(d))
line2 = l1.split("\r")[1]
col = line2.index("...")
print("expected SL101 at 2:%d (line after the CR), surface line text starts %r" % (col, line2[:30]))
c.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": 2}, "contentChanges": [
    {"range": {"start": {"line": 2, "character": col}, "end": {"line": 2, "character": col + 3}}, "text": "and"}]})
print("after replacing ... at 2:%d:" % col, short(c.diagnostics(uri)))
# insert a bare CR (new line for the client) at the start of line 3 (old l2)
c.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": 3}, "contentChanges": [
    {"range": {"start": {"line": 3, "character": 0}, "end": {"line": 3, "character": 0}}, "text": "\r"}]})
print("after inserting a bare CR at 3:0:", short(c.diagnostics(uri)))
c.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": 4}, "contentChanges": [
    {"range": {"start": {"line": 4, "character": len(l2) - 2}, "end": {"line": 4, "character": len(l2) - 2}}, "text": "\r\r"}]})
print("after inserting 2 bare CRs inside line 4 (JSON whitespace before the last value):", short(c.diagnostics(uri)))
c.request("shutdown"); c.notify("exit"); c.proc.wait(5)

section("disable merge")
c = start_stdio(cwd=W); init(c, W)
case = '{"id":"c1","prompt":"What is truth?","expected_predicates":["no_placeholdr"],"surface_lint":{"disable":"SL012"},"zzz":1}\n'
uri = open_doc(c, W + "/cases.jsonl", case)
d = c.diagnostics(uri); print("diags:", short(d))
for diag in d or []:
    r = c.request("textDocument/codeAction", {"textDocument": {"uri": uri}, "range": diag["range"], "context": {"diagnostics": [diag]}})
    for a in (r or {}).get("result") or []:
        edits = [e["newText"] for ch in (a.get("edit", {}).get("changes", {}) or {}).values() for e in ch]
        edits += [e["newText"] for dc in a.get("edit", {}).get("documentChanges", []) or [] for e in dc.get("edits", [])]
        print(" ", diag["code"], "|", a["title"], "|", edits)
case2 = '{"id":"c1","prompt":"What is truth?","expected_predicates":["no_placeholdr"],"surface_lint":{"disable":["SL012","SL004"]}}\n'
c.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": 2}, "contentChanges": [{"text": case2}]})
print("with disable [SL012, SL004]:", short(c.diagnostics(uri)))
c.request("shutdown"); c.notify("exit"); c.proc.wait(5)
