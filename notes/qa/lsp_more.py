"""TCP sessions, editor rules-file errors (SL014, last good rules), [severity] off in the editor, bare-CR follow-up."""
import sys, os, json, time, socket, subprocess, random
sys.path.insert(0, os.path.dirname(__file__))
from lspclient import *
W = sys.argv[1]; os.makedirs(W, exist_ok=True)
def section(t): print("\n##", t, flush=True)
turns = open("/tmp/qa/turns.jsonl").read()

section("bare CR follow-up: an edit after inserted CRs lands where the client sees it")
c = start_stdio(cwd=W); init(c, W)
t = [json.loads(l) for l in turns.splitlines()]
l0, l2 = json.dumps(t[0]), json.dumps(t[2])
uri = open_doc(c, W + "/cr2.jsonl", l0 + "\n" + l2 + "\n")
print("open:", short(c.diagnostics(uri)))
c.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": 2}, "contentChanges": [
    {"range": {"start": {"line": 1, "character": 1}, "end": {"line": 1, "character": 1}}, "text": "\r\r"}]})
print("after inserting 2 CRs at 1:1:", short(c.diagnostics(uri)))
line3 = l2[1:]; col = line3.index("flows.") + 5
c.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": 3}, "contentChanges": [
    {"range": {"start": {"line": 3, "character": col}, "end": {"line": 3, "character": col + 1}}, "text": ""}]})
print("after deleting the final '.' at 3:%d -> expect SL103 at 3:%d:" % (col, col - 1), short(c.diagnostics(uri)))
c.request("shutdown"); c.notify("exit"); c.proc.wait(5)

section("two TCP connections")
port = random.randint(20000, 40000)
srv = subprocess.Popen(["/work/venv/bin/surface-lint", "server", "--tcp", f"127.0.0.1:{port}"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=W)
for _ in range(100):
    try: s1 = socket.create_connection(("127.0.0.1", port)); break
    except OSError: time.sleep(0.1)
a = Conn(s1.makefile("rb"), s1.makefile("wb"))
init(a, W)
ua = open_doc(a, W + "/a_only.jsonl", turns)
print("A diags:", short(a.diagnostics(ua)))
s2 = socket.create_connection(("127.0.0.1", port)); b = Conn(s2.makefile("rb"), s2.makefile("wb"))
print("B initialize:", (b.request("initialize", {"processId": None, "rootUri": "file://" + W, "capabilities": {}}) or {}).get("result", {}).get("serverInfo"))
b.notify("initialized", {})
print("B hover on A's doc:", b.request("textDocument/hover", {"textDocument": {"uri": ua}, "position": {"line": 1, "character": 170}}))
a.notify("textDocument/didChange", {"textDocument": {"uri": ua, "version": 2}, "contentChanges": [{"text": turns + turns}]})
print("A diags after change:", len(a.diagnostics(ua) or []))
b.drain(1.0)
print("B got A's diagnostics:", [n for n in b.notes if n.get("method") == "textDocument/publishDiagnostics"][:1])
b.request("shutdown"); b.notify("exit"); time.sleep(0.5)
print("server alive after B exit:", srv.poll() is None)
print("A hover still served:", (a.request("textDocument/hover", {"textDocument": {"uri": ua}, "position": {"line": 1, "character": 170}}) or {}).get("result") is not None)
a.request("shutdown"); a.notify("exit"); time.sleep(0.5)
print("server alive after A exit:", srv.poll() is None)
srv.terminate(); print("server rc after SIGTERM:", srv.wait(5))

section("editor: broken rules file -> SL014 on it, last good rules kept")
os.makedirs(W + "/ed/lanes", exist_ok=True)
good = open("/tmp/qa/t7/ok.toml").read()
open(W + "/ed/lanes/qa.toml", "w").write(good)
open(W + "/ed/surface-lint.toml", "w").write('lane-files = ["lanes/qa.toml"]\ndefault-lane = "qa_lane"\n')
c = start_stdio(cwd=W + "/ed"); init(c, W + "/ed")
ut = open_doc(c, W + "/ed/turns.jsonl", turns)
print("turns diags (good rules):", short(c.diagnostics(ut)))
for name in ["markers_empty", "params_str", "value_nan", "toml_syntax", "default_severty", "code_reused"]:
    bad = open(f"/tmp/qa/t7/{name}.toml").read()
    open(W + "/ed/lanes/qa.toml", "w").write(bad)
    ur = open_doc(c, W + "/ed/lanes/qa.toml", bad, lang="toml")
    c.notify("textDocument/didSave", {"textDocument": {"uri": ur}})
    c.notify("workspace/didChangeWatchedFiles", {"changes": [{"uri": ur, "type": 2}]})
    c.drain(2.0)
    rd = [n for n in c.notes if n.get("method") == "textDocument/publishDiagnostics" and n["params"]["uri"] == ur]
    print(name, "-> rules file diags:", short(rd[-1]["params"]["diagnostics"]) if rd else "none published")
    c.notify("textDocument/didChange", {"textDocument": {"uri": ut, "version": 100}, "contentChanges": [{"text": turns}]})
    print("   turns diags:", short(c.diagnostics(ut)))
    c.notify("textDocument/didClose", {"textDocument": {"uri": ur}}); c.notes.clear()
open(W + "/ed/lanes/qa.toml", "w").write(good)
c.request("shutdown"); c.notify("exit"); c.proc.wait(5)

section("editor: [severity] SL103 = off in surface-lint.toml")
os.makedirs(W + "/sev", exist_ok=True)
open(W + "/sev/surface-lint.toml", "w").write('[severity]\nSL103 = "off"\nSL101 = "hint"\n')
c = start_stdio(cwd=W + "/sev"); init(c, W + "/sev")
u = open_doc(c, W + "/sev/turns.jsonl", turns)
d = c.diagnostics(u); print("diags:", short(d), "severities:", [x.get("severity") for x in d or []])
c.request("shutdown"); c.notify("exit"); c.proc.wait(5)
