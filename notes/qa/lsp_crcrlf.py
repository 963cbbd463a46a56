"""Editor: CR before CRLF ("\\r\\r\\n") line ends, open + an incremental edit after it."""
import sys, os, json
sys.path.insert(0, os.path.dirname(__file__))
from lspclient import *
W = "/tmp/qa/lspw6"; os.makedirs(W, exist_ok=True)
turns = open("/tmp/qa/turns.jsonl").read().splitlines()
c = start_stdio(cwd=W); init(c, W)
text = turns[0] + "\r\r\n" + turns[1] + "\r\r\n" + turns[2] + "\n"
uri = open_doc(c, W + "/x.jsonl", text)
col = turns[1].index("...")
print("open (expect SL101 at 2:%d, SL103 on line 2):" % col, short(c.diagnostics(uri)))
c.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": 2}, "contentChanges": [
    {"range": {"start": {"line": 2, "character": col}, "end": {"line": 2, "character": col + 3}}, "text": "and"}]})
print("after replacing ... at 2:%d (expect only SL103 at line 2):" % col, short(c.diagnostics(uri)))
c.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": 3}, "contentChanges": [
    {"range": {"start": {"line": 4, "character": 0}, "end": {"line": 4, "character": 0}}, "text": "{bad\r"}]})
print("after inserting '{bad\\r' at 4:0 (expect SL001 at line 4):", short(c.diagnostics(uri)))
c.request("shutdown"); c.notify("exit"); c.proc.wait(5)
