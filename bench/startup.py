"""Benchmark: start-up of `surface-lint --help` and of the language server (issue 17, point 4).

In the same run, alternated `--repeat` times (medians), each in a fresh process with bytecode
cached in a private PYTHONPYCACHEPREFIX (warmed first, as an installed package has it):

* `--help`: CPU (user + sys, the child's rusage) of `python -m surface_lint --help` against
  `python -c pass` — the target is at most 60 ms over it;
* `initialize`: wall time from starting `python -m surface_lint server` to reading its answer
  to `initialize` on stdout — the target is at most 250 ms — against a bare pygls server
  (`LanguageServer(...).start_io()`, nothing registered) started the same way; the same through
  the .vsix launcher (vscode-extension/bundled/tool/surface_lint_server.py, `--from-environment`:
  its own checks, then this checkout's server) — the target is at most 50 ms over the server;
* first diagnostics: wall time from the server's start to the publishDiagnostics of a
  3-line transcript opened right after `initialized` (what a cold editor waits for: the server's
  import and the lanes' load included);
* first pull: the same for a client that pulls diagnostics (VS Code: `textDocument/diagnostic`
  right after didOpen), answered by lsp/first.py before pygls is imported, against the same
  with SURFACE_LINT_NO_FIRST_LINT=1 (the whole server answers it), alternated;
* the CPU of `import surface_lint.lsp.main` (the server: pygls, lsprotocol, the engine) against
  `python -c pass`, and the import time of the largest packages below it (`python -X importtime`).

    PYTHONPATH=server python bench/startup.py [--repeat 7]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import IO

ROOT = Path(__file__).resolve().parent.parent


def env(pycache: Path) -> dict[str, str]:
    out = dict(os.environ)
    out.pop("PYTHONDONTWRITEBYTECODE", None)
    out["PYTHONPYCACHEPREFIX"] = str(pycache)
    out["PYTHONPATH"] = str(ROOT / "server")
    return out


def cpu(cmd: list[str], environ: dict[str, str]) -> float:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(cmd, env=environ, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


SERVER = [sys.executable, "-m", "surface_lint", "server"]
LAUNCHER = [sys.executable, str(ROOT / "vscode-extension" / "bundled" / "tool" / "surface_lint_server.py"),
            "--from-environment"]
DIRECT = [sys.executable, "-c", "from surface_lint.lsp import start; start()"]  # without the command line's imports
BARE = [sys.executable, "-c", "from pygls.lsp.server import LanguageServer; LanguageServer('bare', '0').start_io()"]
TRANSCRIPT = [{"case_id": "c1", "surface": "No session evidence yet"}, {"case_id": "c2", "surface": "fine."},
              {"case_id": "c3", "surface": "x.y; a.b; c.d ..."}]


def _frame(message: dict[str, object]) -> bytes:
    body = json.dumps(message).encode()
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


def _read(stream: IO[bytes]) -> dict[str, object]:
    length = 0
    while True:
        line = stream.readline()
        if line in (b"\r\n", b""):
            break
        if line.lower().startswith(b"content-length:"):
            length = int(line.split(b":", 1)[1])
    if not length:
        raise SystemExit("the server closed its output")
    answer: dict[str, object] = json.loads(stream.read(length))
    return answer


def session(cmd: list[str], environ: dict[str, str], folder: Path, diagnostics: bool = False,
            pull: bool = False) -> tuple[float, float]:
    """(wall seconds from the start to the answer to initialize, to the first publishDiagnostics or
    0.0; with `pull`, to the answer to the first textDocument/diagnostic instead)."""
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, env=environ, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, cwd=folder)
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write(_frame({"jsonrpc": "2.0", "id": 1, "method": "initialize",
                             "params": {"processId": None, "rootUri": folder.as_uri(), "capabilities": {
                                 "textDocument": {"diagnostic": {"dynamicRegistration": True}}} if pull else {}}}))
    proc.stdin.flush()
    answer = _read(proc.stdout)
    initialized = time.perf_counter() - start
    if "result" not in answer:
        raise SystemExit(f"initialize failed: {answer}")
    published = 0.0
    if diagnostics:
        path = folder / "transcripts" / "t.jsonl"
        proc.stdin.write(_frame({"jsonrpc": "2.0", "method": "initialized", "params": {}}) + _frame(
            {"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {"textDocument": {
                "uri": path.as_uri(), "languageId": "jsonl", "version": 1, "text": path.read_text()}}}))
        if pull:
            proc.stdin.write(_frame({"jsonrpc": "2.0", "id": 2, "method": "textDocument/diagnostic",
                                     "params": {"textDocument": {"uri": path.as_uri()}}}))
        proc.stdin.flush()
        while True:
            message = _read(proc.stdout)
            if message.get("id") == 2 if pull else message.get("method") == "textDocument/publishDiagnostics":
                break
        published = time.perf_counter() - start
    proc.kill()
    proc.wait()
    return initialized, published


def import_breakdown(module: str, environ: dict[str, str], top: int = 8) -> list[tuple[str, float]]:
    out = subprocess.run([sys.executable, "-X", "importtime", "-c", f"import {module}"], env=environ,
                         capture_output=True, text=True, check=True).stderr
    rows = []
    for line in out.splitlines():
        if not line.startswith("import time:") or "cumulative" in line:
            continue
        _, _, rest = line.partition(":")
        _self, cumulative, name = (x.strip() for x in rest.split("|"))
        if (name.startswith("surface_lint.") and name.count(".") <= 2) or name in ("pygls.io_", "pygls.lsp.server", "lsprotocol.types", "cattrs"):
            rows.append((name, int(cumulative) / 1000))
    return sorted(rows, key=lambda r: -r[1])[:top]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repeat", type=int, default=7)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        environ = env(Path(tmp) / "pycache")
        folder = Path(tmp) / "ws"
        (folder / "transcripts").mkdir(parents=True)
        (folder / "transcripts" / "t.jsonl").write_text("".join(json.dumps(r) + "\n" for r in TRANSCRIPT))
        help_cmd = [sys.executable, "-m", "surface_lint", "--help"]
        lsp_cmd = [sys.executable, "-c", "import surface_lint.lsp.main"]
        bare = [sys.executable, "-c", "pass"]
        for cmd in (help_cmd, lsp_cmd):  # warm the bytecode cache
            cpu(cmd, environ)
        session(SERVER, environ, folder, diagnostics=True)
        rows: dict[str, list[float]] = {k: [] for k in (
            "pass", "help", "lsp import", "bare", "initialize", "direct", "launcher", "diagnostics",
            "launcher diagnostics", "first pull", "first pull by the server")}
        waited = {**environ, "SURFACE_LINT_NO_FIRST_LINT": "1"}
        for _ in range(args.repeat):
            rows["pass"].append(cpu(bare, environ))
            rows["help"].append(cpu(help_cmd, environ))
            rows["lsp import"].append(cpu(lsp_cmd, environ))
            rows["bare"].append(session(BARE, environ, folder)[0])
            initialized, published = session(SERVER, environ, folder, diagnostics=True)
            rows["initialize"].append(initialized)
            rows["diagnostics"].append(published)
            rows["direct"].append(session(DIRECT, environ, folder)[0])
            initialized, published = session(LAUNCHER, environ, folder, diagnostics=True)
            rows["launcher"].append(initialized)
            rows["launcher diagnostics"].append(published)
            rows["first pull"].append(session(SERVER, environ, folder, diagnostics=True, pull=True)[1])
            rows["first pull by the server"].append(session(SERVER, waited, folder, diagnostics=True, pull=True)[1])
        med = {k: statistics.median(v) * 1000 for k, v in rows.items()}
        print(f"python {sys.version.split()[0]} · {os.cpu_count()} cores · load {os.getloadavg()[0]:.1f} · "
              f"{args.repeat} alternated rounds, medians")
        print(f"python -c pass                        CPU {med['pass']:6.0f} ms")
        print(f"surface-lint --help                   CPU {med['help']:6.0f} ms  ({med['help'] - med['pass']:.0f} ms "
              "over pass; target 60)")
        print(f"import surface_lint.lsp.main          CPU {med['lsp import']:6.0f} ms  "
              f"({med['lsp import'] - med['pass']:.0f} ms over pass)")
        print(f"bare pygls: start -> initialize       wall {med['bare']:5.0f} ms")
        print(f"server: start -> initialize           wall {med['initialize']:5.0f} ms  (target 250; "
              f"{med['initialize'] / med['bare']:.2f}x bare pygls)")
        print(f"  the same, lsp.start() without cli   wall {med['direct']:5.0f} ms  (what the command line's imports "
              "add is the difference)")
        print(f".vsix launcher: start -> initialize   wall {med['launcher']:5.0f} ms  "
              f"({med['launcher'] - med['initialize']:+.0f} ms against the server; target +50)")
        print(f"server: start -> first diagnostics    wall {med['diagnostics']:5.0f} ms  (a 3-line transcript)")
        print(f".vsix launcher: -> first diagnostics  wall {med['launcher diagnostics']:5.0f} ms")
        print(f"server: start -> first pull answered  wall {med['first pull']:5.0f} ms  (lsp/first.py; "
              f"{med['first pull'] / med['first pull by the server']:.2f}x the whole server's "
              f"{med['first pull by the server']:.0f} ms)")
        for module in ("surface_lint.cli.main", "surface_lint.lsp.main"):
            print(f"largest imports under {module} (cumulative ms, one run):")
            for name, ms in import_breakdown(module, environ):
                print(f"  {name:<40} {ms:7.1f}")


if __name__ == "__main__":
    main()
