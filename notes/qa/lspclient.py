"""Minimal JSON-RPC/LSP client over stdio or TCP for QA probes (no pygls)."""
from __future__ import annotations
import json, os, socket, subprocess, sys, threading, time, queue
from typing import Any

SL = ["/work/venv/bin/surface-lint", "server"]

class Conn:
    def __init__(self, rfile: Any, wfile: Any, proc: subprocess.Popen | None = None) -> None:
        self.r, self.w, self.proc = rfile, wfile, proc
        self.q: "queue.Queue[dict]" = queue.Queue()
        self.next_id = 1
        self.notes: list[dict] = []
        threading.Thread(target=self._reader, daemon=True).start()

    def _reader(self) -> None:
        while True:
            headers = {}
            while True:
                line = self.r.readline()
                if not line:
                    self.q.put({"__eof__": True}); return
                line = line.decode("ascii").strip()
                if not line:
                    break
                k, v = line.split(":", 1); headers[k.lower()] = v.strip()
            body = self.r.read(int(headers["content-length"]))
            self.q.put(json.loads(body))

    def send(self, msg: dict) -> None:
        data = json.dumps(msg).encode()
        self.w.write(b"Content-Length: %d\r\n\r\n" % len(data) + data); self.w.flush()

    def raw(self, data: bytes) -> None:
        self.w.write(b"Content-Length: %d\r\n\r\n" % len(data) + data); self.w.flush()

    def request(self, method: str, params: Any = None, timeout: float = 10) -> dict | None:
        rid = self.next_id; self.next_id += 1
        m = {"jsonrpc": "2.0", "id": rid, "method": method}
        if params is not None: m["params"] = params
        self.send(m)
        return self.wait(lambda x: x.get("id") == rid and "method" not in x, timeout)

    def notify(self, method: str, params: Any = None) -> None:
        m = {"jsonrpc": "2.0", "method": method}
        if params is not None: m["params"] = params
        self.send(m)

    def wait(self, pred, timeout: float = 10) -> dict | None:
        end = time.time() + timeout
        while time.time() < end:
            try: x = self.q.get(timeout=max(0.01, end - time.time()))
            except queue.Empty: return None
            if x.get("__eof__"): self.notes.append(x); return None
            if "method" in x and "id" in x:  # server->client request: answer null
                self.send({"jsonrpc": "2.0", "id": x["id"], "result": None if x["method"] != "workspace/configuration" else [{} for _ in x["params"]["items"]]})
                continue
            if pred(x): return x
            self.notes.append(x)
        return None

    def drain(self, seconds: float) -> None:
        self.wait(lambda x: False, seconds)

    def diagnostics(self, uri: str, timeout: float = 10) -> list | None:
        m = self.wait(lambda x: x.get("method") == "textDocument/publishDiagnostics" and x["params"]["uri"] == uri, timeout)
        return None if m is None else m["params"]["diagnostics"]

def start_stdio(env_extra: dict | None = None, cwd: str | None = None) -> Conn:
    env = dict(os.environ); env.update(env_extra or {})
    p = subprocess.Popen(SL, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, cwd=cwd)
    return Conn(p.stdout, p.stdin, p)

def init(c: Conn, root: str, opts: dict | None = None) -> dict | None:
    r = c.request("initialize", {"processId": os.getpid(), "rootUri": "file://" + root,
        "capabilities": {"textDocument": {"publishDiagnostics": {}}, "general": {"positionEncodings": ["utf-16"]}},
        "workspaceFolders": [{"uri": "file://" + root, "name": "w"}], **({"initializationOptions": opts} if opts else {})})
    c.notify("initialized", {})
    return r

def open_doc(c: Conn, path: str, text: str | None = None, lang: str = "jsonl") -> str:
    uri = "file://" + path
    if text is None: text = open(path, encoding="utf-8", newline="").read()
    c.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": lang, "version": 1, "text": text}})
    return uri

def short(diags: list | None) -> list:
    if diags is None: return ["<no publishDiagnostics within timeout>"]
    return [f'{d["range"]["start"]["line"]}:{d["range"]["start"]["character"]}-{d["range"]["end"]["line"]}:{d["range"]["end"]["character"]} {d.get("code")} {d["message"][:90]}' for d in diags]
