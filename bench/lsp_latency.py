"""Benchmark: language-server latency on a 20,000-line transcript.

Generates its own data in a temporary folder (never the corpus): a deterministic_fluency
case file and a turn JSONL of N lines (about 1 in 12 surfaces breaks a predicate; emoji,
em dashes and escapes throughout). Then, against `python -m surface_lint server` over
stdio, with a bare JSON-RPC client (so the numbers are the server's, not a client
library's), it times

  * open: didOpen -> the first publishDiagnostics for that version (the server publishes
    the lines checked so far while a long first lint runs), and -> the complete one;
    The server process's CPU time (user + system) from didOpen to its idle after the last
    publish is printed too (Linux): on a shared machine it varies less than wall time.
  * edit: a one-line didChange (add or remove a surface's final full stop, alternately)
    -> the publishDiagnostics of the new version, over --edits edits (median, p95).

  * burst: --burst keystrokes 30 ms apart (typing), each -> the first publish of its version
    or of a newer one (a coalesced burst shows the newest version only).

  * symbols: right after the open, textDocument/documentSymbol twice: the first locates every
    record's range and id (positions are located on first use), the second reuses them: the
    second is the baseline of the first, in the same run (wall time and server CPU).
    `--symbols-only` stops there.

The same edits are then sent, in the same run, to a bare pygls server (this file with
--bare-server: pygls's own incremental document sync, no lint, publishing the same
diagnostics as our server's complete open, as typed lsprotocol objects, the way a plain
pygls server publishes): the ratios to it are what the targets are about, since absolute
times depend on the machine's load.

It also times the lint itself in-process: a cold lint, a one-line re-lint with the
per-line memo, and the same re-lint with the memo dropped (the cyclic GC paused, as the server lints).

    python bench/lsp_latency.py [--lines 20000] [--edits 60] [--burst 20] [--seed 1]

Targets (issue 10): complete diagnostics of a cold open <= 1 s; edit p95 <= 5x the bare
pygls server's.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "lsp"))
from rpc import read_frame  # the tests' JSON-RPC framing: one copy

OPEN_TARGET_S = 1.0
EDIT_P95_RATIO_TARGET = 5.0
BURST_GAP_S = 0.03

LEMMAS = ["tide", "lamp", "harbor", "river", "stone", "bell", "cloud", "forest", "mirror", "bridge",
          "candle", "garden", "ladder", "window", "meadow", "compass", "kettle", "lantern", "orchard", "valley"]
CLEAN = [
    "A {w} is what the pack says it is. pack-grounded (en_core_nature_v1).",
    "The {w} rises \u2014 and then it falls. teaching-grounded (t_{w}).",
    "\U0001f30a A {w} moves with the moon; caf\u00e9 owners watch it.",
    "I haven't learned '{w}' yet (intent: definition). Can you teach me?",
    "A {w} has a \"shape\" and a\tpurpose.",
]
BROKEN = [
    "{w} flows valley",  # complete_punctuation
    "A {w} is ... here.",  # no_placeholder
    "{w} \u2014 pack-grounded (en_core_meta_v1): meta.x.y; meta.x; cognition.z. No session evidence yet.",
    "A {w} is <pending> still.",
]


def generate(folder: Path, lines: int, seed: int) -> tuple[Path, list[str]]:
    """A case file and a transcript joined to it, in `folder`."""
    rng = random.Random(seed)
    cases_dir = folder / "evals" / "deterministic_fluency" / "dev"
    cases_dir.mkdir(parents=True)
    n_cases = 2000
    with (cases_dir / "cases.jsonl").open("w", encoding="utf-8") as fh:
        for i in range(n_cases):
            w = LEMMAS[i % len(LEMMAS)]
            fh.write(json.dumps({"id": f"bench_{w}_{i:05d}", "prompt": f"What is a {w}?",
                                 "category": "pack_definition",
                                 "expected_predicates": ["no_placeholder", "complete_punctuation"]}) + "\n")
    rows = []
    for n in range(lines):
        i = rng.randrange(n_cases)
        w = LEMMAS[i % len(LEMMAS)]
        surface = (rng.choice(BROKEN) if rng.random() < 1 / 12 else rng.choice(CLEAN)).format(w=w)
        rows.append(json.dumps({"case_id": f"bench_{w}_{i:05d}", "turn_index": n, "role": "prompt",
                                "prompt": f"What is a {w}?", "surface": surface,
                                "grounding_source": rng.choice(["pack", "pack", "teaching", "oov"])},
                               ensure_ascii=rng.random() < 0.3))
    path = folder / "transcripts" / "deterministic_fluency_bench_transcript.jsonl"
    path.parent.mkdir()
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    return path, rows


class Client:
    """A bare JSON-RPC client over the server's stdio; notifications are time-stamped."""

    def __init__(self, command: list[str]) -> None:
        env = {**os.environ, "SURFACE_LINT_TRACE_TIMING": "1"}
        self.proc = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, env=env)
        self.server_ms: dict[int, float] = {}  # version -> the server's own change->publish time
        threading.Thread(target=self._read_stderr, daemon=True).start()
        self.lock = threading.Condition()
        self.published: list[tuple[float, int | None, int]] = []  # (time, version, count)
        self.responses: dict[int, Any] = {}
        self.keep_bodies = False
        self.last_diagnostics: list[dict[str, Any]] | None = None
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        out = self.proc.stdout
        assert out is not None
        while True:
            body = read_frame(out)
            if body is None:
                return
            now = time.perf_counter()  # the message is in: what follows is this client's own parsing
            msg = json.loads(body)
            with self.lock:
                if msg.get("method") == "textDocument/publishDiagnostics":
                    p = msg["params"]
                    self.published.append((now, p.get("version"), len(p["diagnostics"])))
                    if self.keep_bodies:
                        self.last_diagnostics = p["diagnostics"]
                elif "id" in msg and "method" in msg:
                    self.send({"jsonrpc": "2.0", "id": msg["id"], "result": None})
                elif "id" in msg:
                    self.responses[msg["id"]] = msg
                self.lock.notify_all()

    def _read_stderr(self) -> None:
        assert self.proc.stderr is not None
        for raw in self.proc.stderr:
            m = re.search(r" v(\d+): change->shown ([\d.]+) ms", raw.decode("utf-8", "replace"))
            if m:
                self.server_ms[int(m.group(1))] = float(m.group(2))

    def send(self, msg: dict[str, Any]) -> None:
        body = json.dumps(msg).encode()
        assert self.proc.stdin is not None
        self.proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.proc.stdin.flush()

    def request(self, msg_id: int, method: str, params: Any) -> Any:
        self.send({"jsonrpc": "2.0", "id": msg_id, "method": method, "params": params})
        with self.lock:
            self.lock.wait_for(lambda: msg_id in self.responses, timeout=60)
            return self.responses.pop(msg_id)

    def wait_publish(self, version: int, since: int, predicate: Any = None, timeout: float = 120) -> tuple[float, int]:
        """(time, count) of the first publish of `version` after index `since` matching `predicate`."""
        deadline = time.perf_counter() + timeout
        with self.lock:
            while True:
                for t, v, count in self.published[since:]:
                    if v == version and (predicate is None or predicate(count)):
                        return t, count
                left = deadline - time.perf_counter()
                if left <= 0:
                    raise TimeoutError(f"no diagnostics for version {version}")
                self.lock.wait(left)


def utf16_len(text: str) -> int:
    return len(text.encode("utf-16-le")) // 2


def cpu_seconds(pid: int) -> float | None:
    """User + system CPU time of a process so far (Linux /proc), else None."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    k = max(0, min(len(ordered) - 1, round(q * (len(ordered) - 1))))
    return ordered[k]


def in_process(path: Path, text: str, edits: list[tuple[int, str]]) -> dict[str, float]:
    """The lint alone: cold, one-line re-lint with the memo, and without it."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "server"))
    from surface_lint.lsp.documents import Snapshot, TextDoc
    from surface_lint.lsp.lint import DocMemo
    from surface_lint.lsp.scheduler import gc_paused
    from surface_lint.lsp.workspace import ServerState

    state = ServerState()
    doc = TextDoc(path.as_uri(), text, 1)
    state.docs[doc.uri] = doc
    t0, c0 = time.perf_counter(), time.process_time()
    with gc_paused():  # as the server lints
        state.lint(Snapshot.of(doc))
    cold, cold_cpu = time.perf_counter() - t0, time.process_time() - c0
    warm: list[float] = []
    rechecked: list[int] = []
    for line, new in edits[:20]:
        doc.lines[line] = new
        doc.version = (doc.version or 0) + 1
        t0 = time.perf_counter()
        with gc_paused():
            result = state.lint(Snapshot.of(doc))
        warm.append(time.perf_counter() - t0)
        rechecked.append(result.rechecked)
    state.memos[doc.uri] = DocMemo()
    doc.version = (doc.version or 0) + 1
    t0 = time.perf_counter()
    with gc_paused():
        state.lint(Snapshot.of(doc))
    no_memo = time.perf_counter() - t0
    return {"cold": cold, "cold_cpu": cold_cpu, "warm_median": statistics.median(warm), "no_memo": no_memo,
            "rechecked_max": max(rechecked)}


def bare_server(diagnostics_file: str) -> None:
    """A bare pygls server: its own document sync, no lint, the same diagnostics every time."""
    from lsprotocol import types
    from pygls.lsp.server import LanguageServer

    server = LanguageServer("bare", "0", text_document_sync_kind=types.TextDocumentSyncKind.Incremental)
    raw = json.loads(Path(diagnostics_file).read_text(encoding="utf-8"))
    diagnostics = [server.protocol._converter.structure(d, types.Diagnostic) for d in raw]

    def publish(uri: str, version: int) -> None:
        server.text_document_publish_diagnostics(types.PublishDiagnosticsParams(
            uri=uri, version=version, diagnostics=diagnostics))

    @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
    def did_open(params: types.DidOpenTextDocumentParams) -> None:
        publish(params.text_document.uri, params.text_document.version)

    @server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(params: types.DidChangeTextDocumentParams) -> None:
        server.workspace.get_text_document(params.text_document.uri)  # pygls applied the change
        publish(params.text_document.uri, params.text_document.version)

    server.start_io()


Edit = tuple[dict[str, Any], int, str]


def one_line_edits(text: str, count: int, seed: int) -> list[Edit]:
    """(contentChange, diagnostics count delta, the edited line) triples: remove a clean
    surface's final full stop, then put it back (+1 finding, then back to the open's)."""
    rng = random.Random(seed + 1)
    lines = text.split("\n")
    candidates = [i for i, row in enumerate(lines) if row.endswith('.", "grounding_source": "pack"}')]
    out: list[Edit] = []
    line = 0
    for n in range(count):
        if n % 2 == 0:
            line = rng.choice(candidates)
        row = lines[line]
        cut = row.rindex('", "grounding_source"')
        if n % 2 == 0:
            col = utf16_len(row[: cut - 1])
            change = {"range": {"start": {"line": line, "character": col},
                                "end": {"line": line, "character": col + 1}}, "text": ""}
            lines[line] = row[: cut - 1] + row[cut:]
        else:
            col = utf16_len(row[:cut])
            change = {"range": {"start": {"line": line, "character": col},
                                "end": {"line": line, "character": col}}, "text": "."}
            lines[line] = row[:cut] + "." + row[cut:]
        out.append((change, 1 if n % 2 == 0 else 0, lines[line]))
    return out


def document_symbols(client: Client, msg_id: int, uri: str) -> tuple[float, float | None, int]:
    """(wall s, server CPU s, symbols) of one textDocument/documentSymbol request."""
    cpu_before = cpu_seconds(client.proc.pid)
    t0 = time.perf_counter()
    answer = client.request(msg_id, "textDocument/documentSymbol", {"textDocument": {"uri": uri}})
    wall = time.perf_counter() - t0
    cpu_after = cpu_seconds(client.proc.pid)
    cpu = None if cpu_before is None or cpu_after is None else cpu_after - cpu_before
    return wall, cpu, len(answer.get("result") or [])


def session(command: list[str], folder: Path, path: Path, text: str, edits: list[Edit], burst: list[Edit],
            check_counts: bool, symbols: bool = False, symbols_only: bool = False) -> dict[str, Any]:
    """Open, (our server: two documentSymbol requests, the first locating every record), one-line
    edits with a pause between them, then a typing burst; all client-timed."""
    client = Client(command)
    client.request(1, "initialize", {"processId": None, "rootUri": folder.as_uri(), "capabilities": {}})
    client.send({"jsonrpc": "2.0", "method": "initialized", "params": {}})
    uri = path.as_uri()
    since = len(client.published)
    cpu_before = cpu_seconds(client.proc.pid)
    t_open = time.perf_counter()
    client.send({"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {"textDocument": {
        "uri": uri, "languageId": "jsonl", "version": 1, "text": text}}})
    first, first_count = client.wait_publish(1, since)
    while True:  # the complete publish is the last one for version 1: none follows for a while
        with client.lock:
            done = [p for p in client.published[since:] if p[1] == 1]
        time.sleep(2.0)
        with client.lock:
            if len([p for p in client.published[since:] if p[1] == 1]) == len(done):
                break
    full, full_count = done[-1][0], done[-1][2]
    cpu_after = cpu_seconds(client.proc.pid)  # the server has been idle since its last publish
    out: dict[str, Any] = {"open_first": first - t_open, "open_full": full - t_open, "first_count": first_count,
                           "full_count": full_count, "publishes": len(done),
                           "open_cpu": None if cpu_before is None or cpu_after is None else cpu_after - cpu_before}
    if symbols:
        out["symbols"] = [document_symbols(client, 100 + n, uri) for n in range(2)]
        if symbols_only:
            finish(client, out)
            return out
    version = 1
    latencies: list[float] = []
    for change, delta, _row in edits:
        version += 1
        since = len(client.published)
        t0 = time.perf_counter()
        client.send({"jsonrpc": "2.0", "method": "textDocument/didChange", "params": {
            "textDocument": {"uri": uri, "version": version}, "contentChanges": [change]}})
        answered, count = client.wait_publish(version, since)
        latencies.append(answered - t0)
        if check_counts and count != full_count + delta:
            raise SystemExit(f"edit to version {version}: {count} diagnostics, expected {full_count + delta}")
        time.sleep(0.12)  # a pause: each edit is "the first change after a quiet period"
    out["edits"] = latencies
    # A burst: keystrokes BURST_GAP_S apart; each is answered by the first publish of it or newer.
    sent: list[tuple[int, float, int]] = []
    since = len(client.published)
    for change, _delta, _row in burst:
        version += 1
        sent.append((version, time.perf_counter(), len(client.published)))
        client.send({"jsonrpc": "2.0", "method": "textDocument/didChange", "params": {
            "textDocument": {"uri": uri, "version": version}, "contentChanges": [change]}})
        time.sleep(BURST_GAP_S)
    client.wait_publish(version, since)
    waits: list[float] = []
    with client.lock:
        for v, t0, index in sent:
            answer = next(t for t, pv, _ in client.published[index:] if pv is not None and pv >= v)
            waits.append(answer - t0)
    out["burst"] = waits
    finish(client, out)
    return out


def finish(client: Client, out: dict[str, Any]) -> None:
    """shutdown and exit; the exit code and the server's own timings into `out`."""
    client.request(2, "shutdown", None)
    client.send({"jsonrpc": "2.0", "method": "exit", "params": None})
    out["exit_code"] = client.proc.wait(timeout=30)
    time.sleep(0.2)
    out["server_ms"] = dict(client.server_ms)


def ms(values: list[float]) -> str:
    return (f"median {statistics.median(values) * 1000:.1f} ms, p95 {percentile(values, 0.95) * 1000:.1f} ms, "
            f"max {max(values) * 1000:.1f} ms")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--lines", type=int, default=20000)
    ap.add_argument("--edits", type=int, default=60)
    ap.add_argument("--burst", type=int, default=20)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--skip-in-process", action="store_true")
    ap.add_argument("--symbols-only", action="store_true",
                    help="only the open and the two documentSymbol requests (the server: PYTHONPATH's surface_lint)")
    ap.add_argument("--bare-server", metavar="DIAGNOSTICS_JSON", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.bare_server:
        bare_server(args.bare_server)
        return 0

    with tempfile.TemporaryDirectory(prefix="surface-lint-bench-") as tmp:
        folder = Path(tmp)
        path, _ = generate(folder, args.lines, args.seed)
        text = path.read_text(encoding="utf-8")
        print(f"transcript: {args.lines} lines, {len(text.encode()) / 1e6:.1f} MB (generated in {folder})")
        planned = one_line_edits(text, args.edits + args.burst, args.seed)
        edits, burst = planned[:args.edits], planned[args.edits:]

        ours = session([sys.executable, "-m", "surface_lint", "server"], folder, path, text, edits, burst, True,
                       symbols=True, symbols_only=args.symbols_only)
        (w1, c1, n1), (w2, c2, n2) = ours["symbols"]
        cpus = f" (server CPU {c1:.2f} s, then {c2:.2f} s: {c1 / c2:.2f}x)" if c1 is not None and c2 else ""
        print(f"surface-lint: documentSymbol after the open: first {w1:.3f} s ({n1} symbols), again {w2:.3f} s "
              f"({n2}){cpus}")
        if args.symbols_only:
            return 0
        print(f"surface-lint: open -> first diagnostics {ours['open_first']:.3f} s ({ours['first_count']}), "
              f"-> complete {ours['open_full']:.3f} s ({ours['full_count']} diagnostics, "
              f"{ours['publishes']} publish(es))"
              + (f"; server CPU for the open {ours['open_cpu']:.2f} s" if ours["open_cpu"] is not None else ""))
        print(f"surface-lint: one-line edit -> its diagnostics over {len(ours['edits'])} edits: {ms(ours['edits'])}")
        print(f"surface-lint: typing burst ({len(burst)} keystrokes {BURST_GAP_S * 1000:.0f} ms apart) -> "
              f"diagnostics of it or newer: {ms(ours['burst'])}")
        inside = list(ours["server_ms"].values())
        if inside:
            print(f"  inside the server (didChange read -> publish written): median {statistics.median(inside):.1f} ms,"
                  f" p95 {percentile(inside, 0.95):.1f} ms")

        # Two bare pygls servers: publishing nothing (pure protocol and document-sync cost: the
        # strict baseline the target is checked against), and publishing the diagnostics our
        # server published on open as typed objects (what a plain pygls server pays to send them).
        empty = folder / "no_diagnostics.json"
        empty.write_text("[]", encoding="utf-8")
        capture = folder / "open_diagnostics.json"
        diags = capture_open_diagnostics(path, text, folder)
        capture.write_text(json.dumps(diags), encoding="utf-8")
        bare_command = [sys.executable, str(Path(__file__).resolve()), "--bare-server"]
        bare = session([*bare_command, str(empty)], folder, path, text, edits, burst, False)
        typed = session([*bare_command, str(capture)], folder, path, text, edits, burst, False)
        print(f"bare pygls, empty publish: one-line edit: {ms(bare['edits'])}; burst: {ms(bare['burst'])}")
        print(f"bare pygls, the same {len(diags)} diagnostics as typed objects: open {typed['open_full']:.3f} s; "
              f"one-line edit: {ms(typed['edits'])}; burst: {ms(typed['burst'])}")
        ratio = percentile(ours["edits"], 0.95) / percentile(bare["edits"], 0.95)
        burst_ratio = percentile(ours["burst"], 0.95) / percentile(bare["burst"], 0.95)
        typed_ratio = percentile(ours["edits"], 0.95) / percentile(typed["edits"], 0.95)
        print(f"edit p95 ratio surface-lint / bare pygls (empty publish): {ratio:.2f}x (burst p95: "
              f"{burst_ratio:.2f}x); / bare pygls (same diagnostics, typed): {typed_ratio:.2f}x")
        print(f"target: complete diagnostics of a cold open <= {OPEN_TARGET_S:.1f} s: "
              f"{'met' if ours['open_full'] <= OPEN_TARGET_S else 'MISSED'} ({ours['open_full']:.3f} s); "
              f"edit p95 <= {EDIT_P95_RATIO_TARGET:.0f}x bare pygls (empty publish): "
              f"{'met' if ratio <= EDIT_P95_RATIO_TARGET else 'MISSED'} ({ratio:.2f}x); exit codes "
              f"{ours['exit_code']}/{bare['exit_code']}/{typed['exit_code']}")
        if not args.skip_in_process:
            r = in_process(path, text, [(change["range"]["start"]["line"], row) for change, _, row in edits])
            print(f"in-process lint (GC paused as in the server; cold builds the engine and case index "
                  f"too): cold {r['cold']:.2f} s (CPU {r['cold_cpu']:.2f} s); one-line re-lint with the line memo "
                  f"{r['warm_median'] * 1000:.1f} ms (at most {int(r['rechecked_max'])} line(s) re-checked); "
                  f"without the memo {r['no_memo']:.2f} s")
    return 0


def capture_open_diagnostics(path: Path, text: str, folder: Path) -> list[dict[str, Any]]:
    """Our server's complete diagnostics of the open (for the bare server to publish)."""
    client = Client([sys.executable, "-m", "surface_lint", "server"])
    client.keep_bodies = True
    client.request(1, "initialize", {"processId": None, "rootUri": folder.as_uri(), "capabilities": {}})
    client.send({"jsonrpc": "2.0", "method": "initialized", "params": {}})
    client.send({"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {"textDocument": {
        "uri": path.as_uri(), "languageId": "jsonl", "version": 1, "text": text}}})
    client.wait_publish(1, 0)
    while True:
        with client.lock:
            n = len(client.published)
        time.sleep(2.0)
        with client.lock:
            if len(client.published) == n:
                break
    client.request(2, "shutdown", None)
    client.send({"jsonrpc": "2.0", "method": "exit", "params": None})
    client.proc.wait(timeout=30)
    assert client.last_diagnostics is not None
    return client.last_diagnostics


if __name__ == "__main__":
    sys.exit(main())
