"""Editor: time from didOpen to diagnostics for one long surface with many findings (defect 1 in the editor)."""
import sys, os, time
sys.path.insert(0, os.path.dirname(__file__))
from lspclient import *
W = "/tmp/qa/lspw5"; os.makedirs(W, exist_ok=True)
c = start_stdio(cwd=W); init(c, W)
for f in sys.argv[1:]:
    t0 = time.time(); uri = open_doc(c, os.path.abspath(f)); d = c.diagnostics(uri, 120)
    print(f, "diagnostics:", None if d is None else len(d), "after %.1f s" % (time.time() - t0))
c.request("shutdown", timeout=30); c.notify("exit"); c.proc.wait(10)
