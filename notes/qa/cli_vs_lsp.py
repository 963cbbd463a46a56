"""Differential: `surface-lint check --output-format json` findings vs the server's diagnostics, per file (ASCII-safe columns only)."""
import sys, os, json, subprocess, glob
sys.path.insert(0, os.path.dirname(__file__))
from lspclient import *
files = sys.argv[1:]
c = start_stdio(cwd="/tmp/qa"); init(c, "/tmp/qa")
for f in files:
    out = subprocess.run(["/work/venv/bin/surface-lint", "check", f, "--output-format", "json"], capture_output=True, text=True)
    try:
        d = json.loads(out.stdout); fs = d["findings"] if isinstance(d, dict) else d
    except Exception as e:
        print(f, "CLI output not JSON", out.stderr[:200]); continue
    raw = open(f, "rb").read()
    try: text = raw.decode("utf-8")
    except UnicodeDecodeError: print(f, "(not UTF-8: skipped)"); continue
    if text.startswith("\ufeff"): text = text[1:]
    cli = sorted((x["line"] - 1, x["code"]) for x in fs if x.get("line"))
    uri = open_doc(c, os.path.abspath(f), text)
    diags = c.diagnostics(uri) or []
    if "\r" in text.replace("\r\n", "\n"):
        print(f, "(bare CR: line numbers differ by design)"); continue
    lsp = sorted((x["range"]["start"]["line"], x["code"]) for x in diags)
    if cli != lsp:
        print("DIFF", f, "\n   cli-only:", sorted(set(cli) - set(lsp)), "\n   lsp-only:", sorted(set(lsp) - set(cli)))
    else:
        print("same", f, len(cli))
c.request("shutdown"); c.notify("exit")
