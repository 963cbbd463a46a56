"""Benchmark: start-up of `surface-lint --help` and of the language server (issue 17, point 4).

In the same run, alternated `--repeat` times (medians), each in a fresh process with bytecode
cached in a private PYTHONPYCACHEPREFIX (warmed first, as an installed package has it):

* `--help`: CPU (user + sys, the child's rusage) of `python -m surface_lint --help` against
  `python -c pass` — the target is at most 60 ms over it;
* `initialize`: wall time from starting `python -m surface_lint server` to reading its answer
  to `initialize` on stdout — the target is at most 250 ms — and the CPU of importing what the
  server imports before it can answer (`import surface_lint.lsp`) against `python -c pass`;
* the import time of the largest packages below each (`python -X importtime`), to say where it goes.

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


def initialize_wall(environ: dict[str, str], folder: Path) -> float:
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize",
                       "params": {"processId": None, "rootUri": folder.as_uri(), "capabilities": {}}}).encode()
    start = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-m", "surface_lint", "server"], env=environ, stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
    proc.stdin.flush()
    length = 0
    while True:
        line = proc.stdout.readline()
        if line in (b"\r\n", b""):
            break
        if line.lower().startswith(b"content-length:"):
            length = int(line.split(b":", 1)[1])
    answer = json.loads(proc.stdout.read(length))
    took = time.perf_counter() - start
    proc.kill()
    proc.wait()
    if "result" not in answer:
        raise SystemExit(f"initialize failed: {answer}")
    return took


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
        folder.mkdir()
        help_cmd = [sys.executable, "-m", "surface_lint", "--help"]
        lsp_cmd = [sys.executable, "-c", "import surface_lint.lsp"]
        bare = [sys.executable, "-c", "pass"]
        for cmd in (help_cmd, lsp_cmd):  # warm the bytecode cache
            cpu(cmd, environ)
        rows: dict[str, list[float]] = {"pass": [], "help": [], "lsp import": [], "initialize": []}
        for _ in range(args.repeat):
            rows["pass"].append(cpu(bare, environ))
            rows["help"].append(cpu(help_cmd, environ))
            rows["lsp import"].append(cpu(lsp_cmd, environ))
            rows["initialize"].append(initialize_wall(environ, folder))
        med = {k: statistics.median(v) * 1000 for k, v in rows.items()}
        print(f"python {sys.version.split()[0]} · {os.cpu_count()} cores · {args.repeat} alternated rounds, medians")
        print(f"python -c pass                     CPU {med['pass']:6.0f} ms")
        print(f"surface-lint --help                CPU {med['help']:6.0f} ms  ({med['help'] - med['pass']:.0f} ms over pass; "
              "target 60)")
        print(f"import surface_lint.lsp            CPU {med['lsp import']:6.0f} ms  "
              f"({med['lsp import'] - med['pass']:.0f} ms over pass)")
        print(f"server start -> initialize answer  wall {med['initialize']:5.0f} ms  (target 250)")
        for module in ("surface_lint.cli.main", "surface_lint.lsp"):
            print(f"largest imports under {module} (cumulative ms, one run):")
            for name, ms in import_breakdown(module, environ):
                print(f"  {name:<40} {ms:7.1f}")


if __name__ == "__main__":
    main()
