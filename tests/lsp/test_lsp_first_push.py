"""The first open of a cold start for a client that takes pushed diagnostics (no
`textDocument.diagnostic` capabilities: Neovim 0.7, the latency bench): lsp/first.py publishes
the opened document's complete diagnostics before pygls is imported, the bytes the server's own
publish sends, and the server then publishes that version again only when its own lint differs
(the server is the authority); an edit, a config or rules file, a message before `initialized`,
a pull, or no message for 1 s leave the open to the server."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from test_lsp_first_pull import CASES, TURNS, Session, _expected, _hrefs, _range

from surface_lint.lsp.diagnostic_json import DiagnosticBuilder
from surface_lint.lsp.documents import Snapshot, TextDoc
from surface_lint.lsp.positions import Positions
from surface_lint.lsp.scheduler import Scheduler
from surface_lint.lsp.workspace import ServerState, start_session

PUBLISHED = "the open of transcript.jsonl published before the server's import: 3 diagnostic(s)"
PUBLISH = "textDocument/publishDiagnostics"


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    cases = tmp_path / "evals" / "deterministic_fluency" / "dev" / "cases.jsonl"
    cases.parent.mkdir(parents=True)
    cases.write_text("\n".join(CASES) + "\n", encoding="utf-8")
    (tmp_path / "transcript.jsonl").write_text("\n".join(TURNS) + "\n", encoding="utf-8")
    return tmp_path


def _published(session: Session) -> list[dict[str, Any]]:
    return [n["params"] for n in list(session.client.notifications) if n.get("method") == PUBLISH]


def _settle(session: Session) -> None:
    """Until the server's own lint of the current version is done: documentSymbol waits for it,
    and a publish of that lint is written before the answer."""
    answer = session.client.request("textDocument/documentSymbol", {"textDocument": {"uri": session.uri}})
    assert "result" in answer, answer


def _wait_publish(session: Session, count: int = 1) -> None:
    deadline = time.monotonic() + 30
    while len(_published(session)) < count:
        assert time.monotonic() < deadline, "no publishDiagnostics"
        time.sleep(0.01)


def _traced(session: Session, line: str) -> bool:
    return any(line in err for err in session.client.stderr)


def test_a_push_client_s_open_is_published_once_before_the_server_with_its_exact_diagnostics(
        workspace: Path) -> None:
    text = (workspace / "transcript.jsonl").read_text(encoding="utf-8")
    first = Session(workspace, pull=False)
    try:
        first.open(text)
        _wait_publish(first)
        _settle(first)
        time.sleep(0.3)  # room for a second publish, were there one
        early = _published(first)
        assert _traced(first, PUBLISHED)
        # The server linted the document again, with first.py's state: every line from its memo.
        assert _traced(first, "timing transcript.jsonl v1: change->shown nan ms; lint ")
        assert _traced(first, " ms, 0 line(s) re-checked, 3 diagnostic(s)")
    finally:
        first.close()
    waited = Session(workspace, first_lint=False, pull=False)  # the whole server publishes the open
    try:
        waited.open(text)
        _wait_publish(waited)
        _settle(waited)
        whole = _published(waited)
        assert not _traced(waited, "published before the server's import")
    finally:
        waited.close()
    assert len(early) == 1  # the server's own lint gave the same: not sent again
    assert early[0]["uri"] == first.uri and early[0]["version"] == 1
    assert early[0]["diagnostics"] == _expected(*_hrefs(early[0]["diagnostics"]))
    assert [json.dumps(p) for p in early] == [json.dumps(p) for p in whole]


# first.py on its own, in a fresh interpreter: what it writes, returns and imports.
FIRST_ALONE = """
import io, json, os, sys
from surface_lint.lsp.early import FrameReader
from surface_lint.lsp.first import first_diagnostics
params, messages = json.loads(sys.argv[1]), json.loads(sys.argv[2])
read_end, write_end = os.pipe()
for message in messages:
    body = json.dumps(message).encode()
    os.write(write_end, b"Content-Length: %d\\r\\n\\r\\n" % len(body) + body)
out = io.BytesIO()
first = first_diagnostics(FrameReader(read_end), out, params, wait=0.2)
print(json.dumps({"imported": [m for m in ("pygls", "lsprotocol") if m in sys.modules],
                  "bodies": len(first.bodies), "answered": first.answered, "published": first.published,
                  "sent": out.getvalue().decode()}))
"""


def _first_alone(workspace: Path, messages: list[dict[str, Any]]) -> dict[str, Any]:
    params = {"processId": None, "rootUri": workspace.as_uri(), "capabilities": {},
              "initializationOptions": {"trusted": True}}
    done = subprocess.run([sys.executable, "-c", FIRST_ALONE, json.dumps(params), json.dumps(messages)],
                          capture_output=True, text=True, timeout=60, check=True)
    answer: dict[str, Any] = json.loads(done.stdout)
    return answer


def _notification(method: str, params: Any) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "method": method, "params": params}


def test_first_py_publishes_the_open_without_importing_pygls(workspace: Path) -> None:
    uri = (workspace / "transcript.jsonl").as_uri()
    text = (workspace / "transcript.jsonl").read_text(encoding="utf-8")
    got = _first_alone(workspace, [
        _notification("initialized", {}),
        _notification("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "jsonl", "version": 7,
                                                                "text": text}})])
    assert got["imported"] == []
    assert got["bodies"] == 2 and got["answered"] == {}
    expected = _expected(*_hrefs([]))
    for item in expected:  # no capabilities: no codeDescription, no data (as the server's builder)
        del item["codeDescription"], item["data"]
    items = [json.dumps(d, separators=(",", ":")) for d in expected]
    assert got["published"] == {uri: [7, items]}
    body = ('{"jsonrpc":"2.0","method":"textDocument/publishDiagnostics","params":{"uri":' + json.dumps(uri)
            + ',"version":7,"diagnostics":[' + ",".join(items) + "]}}")
    assert got["sent"] == (f"Content-Length: {len(body.encode())}\r\n"
                           "Content-Type: application/vscode-jsonrpc; charset=utf-8\r\n\r\n" + body)


def test_first_py_leaves_an_open_followed_by_an_edit_to_the_server(workspace: Path) -> None:
    uri = (workspace / "transcript.jsonl").as_uri()
    got = _first_alone(workspace, [
        _notification("initialized", {}),
        _notification("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "jsonl", "version": 1,
                                                                "text": "{}\n"}}),
        _notification("textDocument/didChange", {"textDocument": {"uri": uri, "version": 2},
                                                 "contentChanges": [{"text": "{}\n{}\n"}]})])
    assert got == {"imported": [], "bodies": 3, "answered": {}, "published": {}, "sent": ""}


def test_the_server_publishes_its_own_diagnostics_when_they_differ(workspace: Path) -> None:
    _typo_in_light_case(workspace)
    session = Session(workspace, pull=False)
    # The client's workspace/configuration answer, which first.py cannot see: placeholders are warnings.
    session.client.answers["workspace/configuration"] = [{"severity": {"no_placeholder": "warning"}}]
    try:
        session.open((workspace / "transcript.jsonl").read_text(encoding="utf-8"))
        _wait_publish(session, 2)
        _settle(session)
        published = _published(session)
        assert _traced(session, PUBLISHED)
    finally:
        session.close()
    expected = _expected(*_hrefs([]))
    assert published[0]["diagnostics"] == expected  # first.py's, from initializationOptions
    expected[1]["severity"] = 2
    assert [p["version"] for p in published] == [1, 1]
    assert published[-1]["diagnostics"] == expected


def test_an_edit_right_after_the_early_publish_ends_with_the_edit_s_diagnostics(workspace: Path) -> None:
    session = Session(workspace, pull=False)
    try:
        session.open((workspace / "transcript.jsonl").read_text(encoding="utf-8"))
        _wait_publish(session)  # first.py's; the server is importing now
        # Line 2 gets its final period: its SL103 goes.
        session.client.notify("textDocument/didChange", {
            "textDocument": {"uri": session.uri, "version": 2},
            "contentChanges": [{"range": _range(1, 110, 110), "text": "."}]})
        _settle(session)
        published = _published(session)
        assert _traced(session, PUBLISHED)
    finally:
        session.close()
    assert [p["version"] for p in published] == [1, 2]
    assert published[-1]["diagnostics"] == _expected(*_hrefs([]))[1:]


def test_an_edit_read_with_the_open_leaves_it_to_the_server(workspace: Path) -> None:
    session = Session(workspace, pull=False)
    try:
        session.client.notify_together([
            ("textDocument/didOpen", {"textDocument": {"uri": session.uri, "languageId": "jsonl", "version": 1,
                                                       "text": (workspace / "transcript.jsonl").read_text()}}),
            ("textDocument/didChange", {"textDocument": {"uri": session.uri, "version": 2},
                                        "contentChanges": [{"range": _range(1, 110, 110), "text": "."}]})])
        _settle(session)
        published = _published(session)
        assert _traced(session, "the first diagnostics are left to the server: textDocument/didChange came first")
    finally:
        session.close()
    assert [p["version"] for p in published] == [2]
    assert published[0]["diagnostics"] == _expected(*_hrefs([]))[1:]


@pytest.mark.parametrize("name", ["surface-lint.toml", "my_rules.toml"])
def test_a_config_or_rules_file_is_left_to_the_server(workspace: Path, name: str) -> None:
    session = Session(workspace, pull=False)
    path = workspace / name
    path.write_text("[tool]\n", encoding="utf-8")
    session.uri = path.as_uri()
    try:
        session.open("[tool]\n")
        _settle(session)
        assert _traced(session, "the first open is left to the server: a config or rules file")
        assert not _traced(session, "published before the server's import")
    finally:
        session.close()


def test_an_open_before_initialized_is_left_to_the_server(workspace: Path) -> None:
    session = Session(workspace, pull=False, initialized=False)
    try:
        session.open((workspace / "transcript.jsonl").read_text(encoding="utf-8"))
        session.client.notify("initialized", {})
        _settle(session)
        published = _published(session)
        assert _traced(session, "the first diagnostics are left to the server: textDocument/didOpen came first")
    finally:
        session.close()
    assert [p["version"] for p in published] == [1]
    assert published[0]["diagnostics"] == _expected(*_hrefs([]))


def test_an_open_after_a_second_of_quiet_is_left_to_the_server(workspace: Path) -> None:
    session = Session(workspace, pull=False)
    try:
        time.sleep(1.3)  # first.py waits 1 s for each message
        session.open((workspace / "transcript.jsonl").read_text(encoding="utf-8"))
        _settle(session)
        published = _published(session)
        assert _traced(session, "the first diagnostics are left to the server: no message within 1.0 s")
    finally:
        session.close()
    assert [p["version"] for p in published] == [1]
    assert published[0]["diagnostics"] == _expected(*_hrefs([]))


def test_a_pull_from_a_client_that_said_it_does_not_pull_is_left_to_the_server(workspace: Path) -> None:
    session = Session(workspace, pull=False)
    try:
        session.client.send_body(json.dumps({"jsonrpc": "2.0", "id": "pull", "method": "textDocument/diagnostic",
                                             "params": {"textDocument": {"uri": session.uri}}}).encode())
        session.open((workspace / "transcript.jsonl").read_text(encoding="utf-8"))
        answer = session.client.unmatched.get(timeout=30)
        _settle(session)
        assert _traced(session, "the first diagnostics are left to the server: textDocument/diagnostic came first")
    finally:
        session.close()
    assert answer["id"] == "pull" and answer["result"] == {"kind": "full", "items": []}


def _long_transcript(groups: int) -> str:
    """Ten turns a group, the last of each with a placeholder (one SL101)."""
    rows = []
    for n in range(groups):
        rows += [TURNS[0].replace('"turn_index": 0', f'"turn_index": {10 * n + k}') for k in range(9)]
        rows.append(TURNS[2].replace('"turn_index": 0', f'"turn_index": {n}'))
    return "\n".join(rows) + "\n"


def _typo_in_light_case(workspace: Path) -> None:
    """The light case lists `no_placeholders` (a typo): the light turns' SL101 is not an expected
    finding and takes the configurable severity."""
    cases = workspace / "evals" / "deterministic_fluency" / "dev" / "cases.jsonl"
    cases.write_text(cases.read_text(encoding="utf-8").replace(
        '"What is light?", "category": "pack_definition", "expected_predicates": ["no_placeholder"',
        '"What is light?", "category": "pack_definition", "expected_predicates": ["no_placeholders"'), encoding="utf-8")


def test_a_long_first_lint_publishes_no_partial_picture_after_the_early_one(workspace: Path) -> None:
    # The server publishes the lines checked so far while a first lint runs 0.25 s and more; after
    # first.py's complete publish of the same version, such a partial one would hide diagnostics
    # (a flicker). A configuration first.py could not see makes the server lint the whole document.
    _typo_in_light_case(workspace)
    session = Session(workspace, pull=False)
    session.client.answers["workspace/configuration"] = [{"severity": {"no_placeholder": "warning"}}]
    try:
        session.open(_long_transcript(6000))
        _wait_publish(session, 2)
        _settle(session)
        time.sleep(0.3)
        published = _published(session)
        server_lint = [line for line in session.client.stderr if "timing transcript.jsonl v1:" in line]
        assert _traced(session, "the open of transcript.jsonl published before the server's import: 6000 diagnostic(s)")
    finally:
        session.close()
    milliseconds = float(server_lint[-1].split("lint ")[1].split(" ms")[0])
    assert milliseconds > 250, "the server's lint was too quick to publish a partial picture: make the transcript longer"
    assert [(p["version"], len(p["diagnostics"])) for p in published] == [(1, 6000), (1, 6000)]
    assert {d["severity"] for d in published[0]["diagnostics"]} == {1}
    assert {d["severity"] for d in published[1]["diagnostics"]} == {2}


class _Host:
    """What the scheduler asks of its server: a push session that records its publishes."""

    def __init__(self, root: Path) -> None:
        self.state = ServerState()
        start_session(self.state, [root.as_uri()], None, None, {"trusted": True})
        self.pull = False
        self.published: list[tuple[str, int | None, list[str]]] = []

    def publish(self, uri: str, version: int | None, items: list[str]) -> None:
        self.published.append((uri, version, items))

    def log_error(self, message: str) -> None:
        raise AssertionError(message)

    def file_problem_diagnostics(self, snap: Snapshot) -> list[dict[str, Any]]:
        return []

    def is_settings_file(self, path: str) -> bool:
        return False


def _scheduled_open(workspace: Path, early: tuple[int, list[str]] | None) -> tuple[list[Any], _Host]:
    """The scheduler's first lint of the transcript (version 1), with what first.py published
    of it: (the progress callback each lint was given, the host's publishes)."""
    host = _Host(workspace)
    uri = (workspace / "transcript.jsonl").as_uri()
    host.state.docs[uri] = TextDoc(uri, (workspace / "transcript.jsonl").read_text(encoding="utf-8"), 1, "jsonl")
    scheduler = Scheduler(host)
    if early is not None:
        scheduler.early[uri] = early
    progress: list[Any] = []
    lint_job = scheduler._lint_job

    def recorded(run: Any, snap: Snapshot, token: Any, given: Any) -> Any:
        progress.append(given)
        return lint_job(run, snap, token, given)

    scheduler._lint_job = recorded  # type: ignore[method-assign]

    async def run() -> None:
        scheduler.open(uri, DiagnosticBuilder(Positions("utf-16", host.state.file_lines), False, False, False))
        task = scheduler.runs[uri].task
        assert task is not None
        await task

    try:
        asyncio.run(run())
    finally:
        scheduler.stop()
    return progress, host


def test_the_scheduler_after_an_early_publish(workspace: Path) -> None:
    uri = (workspace / "transcript.jsonl").as_uri()
    without, host = _scheduled_open(workspace, None)
    assert len(without) == 1 and without[0] is not None  # a first lint may publish partial pictures
    assert [(u, v, len(items)) for u, v, items in host.published] == [(uri, 1, 3)]
    items = host.published[0][2]
    # first.py published the same: no partial picture, no second publish.
    same, host = _scheduled_open(workspace, (1, items))
    assert same == [None] and host.published == []
    # It published something else (another configuration): the server's own diagnostics.
    other, host = _scheduled_open(workspace, (1, items[:1]))
    assert other == [None] and host.published == [(uri, 1, items)]
    # Of another version: the early publish is not this lint's.
    older, host = _scheduled_open(workspace, (0, items))
    assert older[0] is not None and host.published == [(uri, 1, items)]
