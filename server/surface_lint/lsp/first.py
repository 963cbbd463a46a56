"""The first document's diagnostics of a cold open, before pygls and lsprotocol are imported.

An editor opening a file starts the server and waits for the file's diagnostics; importing pygls
and lsprotocol (and the features built on them) is most of the server's start (about 0.65 s of
CPU of 0.9 s here: docs/performance.md). After `early.py` has answered `initialize`, this module
reads on, with the engine and the standard library only, while the messages are the ones a
client sends to open a file: `initialized`, `textDocument/didOpen`, requests (kept for the
server, unanswered), `$/setTrace` and `surfaceLint/reviewSettings`. Then, from the same lint
and the same diagnostics builder the server uses (`scheduler.lint_items`), so the bytes are
those the server would send:

* a client that pulls (VS Code): the first `textDocument/diagnostic` request of a document
  opened so is answered (`diagnostic_json.full_report`); the server does not answer it again
  (`wire.Protocol.answered_first`: it compares its own answer, and asks the client to pull
  again if they differ);
* a client that does not (no `textDocument.diagnostic` capabilities: Neovim 0.7, the latency
  bench): the first document opened after `initialized` is linted once the messages already
  sent are read, and its diagnostics published (`diagnostic_json.publish_message`); the
  server's first lint of that version publishes again only when its diagnostics differ (a
  configuration this module could not see: the server is the authority), and no partial
  picture of it (`scheduler.Run.early`).

Then the server is imported and receives every message read, in order, as if it came first on
the wire, with this module's session state (`First.state`: engines, case index, the line memo),
so its own lint of the same document re-checks no line.

Anything else ends the reading with nothing sent here: any other notification (an edit, a
close, a change of settings; for a push client also one read with its didOpen, or a didOpen
before `initialized`), `shutdown`, a pull from a client that said it does not pull, a message
that is not JSON or has params of another shape, a config or rules file (their problems need
the server's validation), a lint that reports an error (the server logs it), no message within
`WAIT_S`, or the end of the stream. Not on Windows (no `select` on pipes there), nor on TCP.
"""
from __future__ import annotations

import json
import sys
import time
from collections.abc import Mapping
from pathlib import Path
from typing import IO, Any, NamedTuple

from ..engine.config import CONFIG_FILES
from .diagnostic_json import DiagnosticBuilder, diagnostic_support, full_report, publish_message
from .documents import Snapshot, TextDoc
from .early import TIMEOUT, FrameReader, _is_id, position_encoding, send
from .lint import LintResult
from .positions import Positions
from .scheduler import TRACE_TIMING, lint_items
from .workspace import ServerState, start_session

WAIT_S = 1.0  # the longest wait for the next message (VS Code sends them within milliseconds; more when loaded)
# Notifications that change no diagnostic: the review's run globs (features.review: lenses,
# references and the review read them; VS Code's extension sends them at start).
READ_ONLY_NOTIFICATIONS = ("initialized", "$/setTrace", "surfaceLint/reviewSettings")


def _text_document_item(params: Any) -> dict[str, Any] | None:
    item = params.get("textDocument") if isinstance(params, Mapping) else None
    if not (isinstance(item, dict) and isinstance(item.get("uri"), str) and isinstance(item.get("languageId"), str)
            and isinstance(item.get("text"), str) and isinstance(item.get("version"), int)
            and not isinstance(item.get("version"), bool)):
        return None
    return item


def _pulled_uri(params: Any) -> str | None:
    """The document of `textDocument/diagnostic` params of LSP's shape, else None."""
    if not isinstance(params, Mapping):
        return None
    document = params.get("textDocument")
    if not (isinstance(document, dict) and isinstance(document.get("uri"), str)):
        return None
    for name in ("identifier", "previousResultId"):
        if params.get(name) is not None and not isinstance(params.get(name), str):
            return None
    for name in ("workDoneToken", "partialResultToken"):
        if params.get(name) is not None and not _is_id(params.get(name)):
            return None
    uri: str = document["uri"]
    return uri


def _capabilities_plain(text: Any) -> bool:
    """Diagnostic capabilities whose flags are booleans (or absent), as the server structures them."""
    if text is None:
        return True
    if not isinstance(text, Mapping):
        return False
    for section in ("diagnostic", "publishDiagnostics"):
        caps = text.get(section)
        if caps is None:
            continue
        if not isinstance(caps, Mapping):
            return False
        for name in ("relatedInformation", "codeDescriptionSupport", "dataSupport"):
            if caps.get(name) is not None and not isinstance(caps.get(name), bool):
                return False
    return True


def _session(params: dict[str, Any]) -> tuple[ServerState, DiagnosticBuilder, bool] | None:
    """The state and diagnostics builder the server's `initialize` would make of these params,
    and whether the client pulls diagnostics."""
    text = params["capabilities"].get("textDocument")
    if not _capabilities_plain(text):
        return None
    pull, related, code_description, data = diagnostic_support(text)
    folders = params.get("workspaceFolders") or []
    options = params.get("initializationOptions")
    if not (options is None or isinstance(options, (dict, list, str, int, float, bool))):
        return None
    state = ServerState()
    start_session(state, [f["uri"] for f in folders], params.get("rootUri"), params.get("rootPath"), options)
    state.encoding = position_encoding(params) or "utf-16"
    builder = DiagnosticBuilder(Positions(state.encoding, state.file_lines), related, code_description, data)
    return state, builder, pull


def _trace(message: str) -> None:
    if TRACE_TIMING:
        sys.stderr.write(f"surface-lint: timing: {message} (at {round(time.time() * 1000)} ms since the epoch)\n")
        sys.stderr.flush()


class First(NamedTuple):
    """What `first_diagnostics` read and sent: the message bodies read, in order; the pulls
    answered ({id: (document URI, result JSON)}); the open published ({URI: (version,
    diagnostics JSON)}, a client that does not pull); the session's state, when a lint was
    sent (its engines, case index and the document's line memo: the server lints the same
    document again, and finds every line's result there), without the documents opened (the
    server opens them again)."""

    bodies: list[bytes]
    answered: dict[Any, tuple[str, str]]
    published: dict[str, tuple[int, list[str]]]
    state: ServerState | None


def first_diagnostics(reader: FrameReader, stdout: IO[bytes], params: dict[str, Any],
                      wait: float = WAIT_S) -> First:
    """Read on after the early answer to `initialize` (its `params`); answer the first pull of a
    document opened meanwhile, or, to a client that does not pull, publish the diagnostics of the
    first document it opens."""
    out = First([], {}, {}, None)
    session = _session(params)
    if session is None:
        _trace("the first diagnostics are left to the server: the client's capabilities are not plain")
        return out
    state, builder, pull = session
    bodies = out.bodies
    initialized = False
    opened: TextDoc | None = None  # a push client's: published once the messages already sent are read
    while True:
        # After a push client's didOpen, only what has come already is read (an edit there would
        # make the open's version stale); then the open is linted and published.
        body = reader.frame(0.0 if opened is not None else wait)
        if opened is not None and body is TIMEOUT:
            return _publish_open(state, builder, opened, stdout, out)
        if body is None or body is TIMEOUT:
            _trace("the first diagnostics are left to the server: " + ("the end of the stream" if body is None else
                   f"no message within {wait} s"))
            return out
        assert isinstance(body, bytes)
        bodies.append(body)
        try:
            message = json.loads(body)
        except (ValueError, RecursionError):
            return out
        if not (isinstance(message, dict) and message.get("jsonrpc") == "2.0" and isinstance(message.get("method"), str)):
            return out
        method, params_in = message["method"], message.get("params")
        if "id" not in message:
            if method in READ_ONLY_NOTIFICATIONS:
                initialized = initialized or method == "initialized"
                continue
            item = _text_document_item(params_in) if method == "textDocument/didOpen" else None
            if item is None or (not pull and not initialized):
                _trace(f"the first diagnostics are left to the server: {method} came first")
                return out
            doc = TextDoc(item["uri"], item["text"], item["version"], item["languageId"])
            if pull:
                state.docs[doc.uri] = doc
            elif opened is None:
                opened = doc  # a later one is the server's to lint
            continue
        if not _is_id(message["id"]) or method in ("shutdown", "initialize") or (
                not pull and method == "textDocument/diagnostic"):
            _trace(f"the first diagnostics are left to the server: {method} came first")
            return out
        if method != "textDocument/diagnostic":
            continue  # a request: the server answers it, after this one
        uri = _pulled_uri(params_in)
        doc_in = state.docs.get(uri) if uri is not None else None
        if doc_in is None or _settings_file(doc_in):
            _trace("the first pull is left to the server: not of a document opened here, or a config or rules file")
            return out
        linted = _lint(state, builder, doc_in)
        if linted is None:
            return out
        result, items = linted
        report = full_report(result, items)
        send(stdout, '{"jsonrpc":"2.0","id":' + json.dumps(message["id"]) + ',"result":' + report + "}")
        _trace(f"the first pull of {Path(doc_in.path).name} answered before the server's import: "
               f"{len(items)} diagnostic(s)")
        out.answered[message["id"]] = (doc_in.uri, report)
        return _handed_over(out, state)


def _handed_over(out: First, state: ServerState) -> First:
    state.docs.clear()
    return out._replace(state=state)


def _settings_file(doc: TextDoc) -> bool:
    """A config or rules file: its problems need the server's validation."""
    return Path(doc.path).name in CONFIG_FILES or doc.path.endswith(".toml")


def _lint(state: ServerState, builder: DiagnosticBuilder, doc: TextDoc) -> tuple[LintResult, list[str]] | None:
    """The server's lint of the document and its diagnostics, None when the lint reports an error
    (the server logs it)."""
    errors: list[str] = []
    result, items = lint_items(state, builder, Snapshot.of(doc), None, None, lambda snap: [], errors.append)
    return None if errors else (result, items)


def _publish_open(state: ServerState, builder: DiagnosticBuilder, doc: TextDoc, stdout: IO[bytes],
                  out: First) -> First:
    """A push client's first open: its diagnostics published as the server publishes them."""
    if _settings_file(doc):
        _trace("the first open is left to the server: a config or rules file")
        return out
    state.docs[doc.uri] = doc
    linted = _lint(state, builder, doc)
    if linted is None:
        return out
    _result, items = linted
    send(stdout, publish_message(doc.uri, doc.version, items))
    _trace(f"the open of {Path(doc.path).name} published before the server's import: {len(items)} diagnostic(s)")
    assert doc.version is not None  # _text_document_item checked it is an int
    out.published[doc.uri] = (doc.version, items)
    return _handed_over(out, state)
