"""Editor: transcripts/case files whose first line holds U+2028 etc (issue 8 bullet 1, editor part)."""
import sys; sys.path.insert(0, __file__.rsplit("/", 1)[0])
from lspclient import *
root = sys.argv[1]
c = start_stdio()
init(c, root)
for name in ["turns_u2028", "turns_u2029", "turns_u0085", "turns_cr", "turns_big", "turns_garbage",
             "cases_u2028", "cases_u2029", "cases_u0085", "cases_cr", "cases_big", "cases_garbage", "cases_ok"]:
    uri = open_doc(c, f"{root}/{name}.jsonl")
    print(name, short(c.diagnostics(uri)))
c.request("shutdown"); c.notify("exit"); print("exit rc", c.proc.wait(5))
