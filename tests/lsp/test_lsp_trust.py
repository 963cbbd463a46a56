"""Trust (HELPERS.md contract with the VS Code extension): `initializationOptions.trusted`
and `surfaceLint/didGrantTrust`. Untrusted: no workspace config, so no workspace lane files.
And hover Markdown never carries HTML (or any markup) from data."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

from lsp_support import TRANSCRIPT, RecordingClient, capabilities, no_server_errors, open_file, published
from lsprotocol import types

E, W = types.DiagnosticSeverity.Error, types.DiagnosticSeverity.Warning
CONFIG = '[severity]\nno_placeholder = "warning"\n'


async def _start(client: RecordingClient, root: Path, options: dict[str, Any] | None) -> None:
    await client.initialize_session(types.InitializeParams(
        capabilities=capabilities(configuration=False), root_uri=root.as_uri(),
        workspace_folders=[types.WorkspaceFolder(uri=root.as_uri(), name="ws")], initialization_options=options))


def _severities(diags: list[types.Diagnostic]) -> list[tuple[int, str | int | None, types.DiagnosticSeverity | None]]:
    return [(d.range.start.line, d.code, d.severity) for d in diags]


async def test_untrusted_loads_no_workspace_config_until_trust_is_granted(client: RecordingClient,
                                                                         workspace: Path) -> None:
    (workspace / "surface-lint.toml").write_text(CONFIG, encoding="utf-8")
    await _start(client, workspace, {"trusted": False, "settings": {}})
    uri = open_file(client, workspace / TRANSCRIPT)
    # The config would make SL101 a warning: untrusted, it is not read.
    assert _severities(await published(client, uri, 1)) == [(1, "SL103", E), (2, "SL101", E)]
    before = len(client.published)
    client.protocol.notify("surfaceLint/didGrantTrust", None)
    for _ in range(1500):
        newer = [p for p in client.published[before:] if p.uri == uri]
        if newer:
            break
        await asyncio.sleep(0.02)
    assert _severities(list(newer[0].diagnostics)) == [(1, "SL103", E), (2, "SL101", W)]
    no_server_errors(client)


async def test_trusted_when_absent_and_untrusted_when_not_a_boolean(client: RecordingClient,
                                                                   workspace: Path) -> None:
    (workspace / "surface-lint.toml").write_text(CONFIG, encoding="utf-8")
    await _start(client, workspace, {"trusted": "yes"})
    uri = open_file(client, workspace / TRANSCRIPT)
    assert _severities(await published(client, uri, 1)) == [(1, "SL103", E), (2, "SL101", E)]
    # The open's diagnostics may come before the server is up (lsp/first.py); its warning after.
    for _ in range(1500):
        warnings = [m.message for m in client.log_messages if m.type == types.MessageType.Warning]
        if warnings:
            break
        await asyncio.sleep(0.02)
    assert warnings == ["surface-lint: setting ignored: initializationOptions.trusted: 'yes' is not a boolean; "
                        "the workspace is treated as untrusted"]


async def test_absent_trust_means_trusted(client: RecordingClient, workspace: Path) -> None:
    (workspace / "surface-lint.toml").write_text(CONFIG, encoding="utf-8")
    await _start(client, workspace, None)
    uri = open_file(client, workspace / TRANSCRIPT)
    assert _severities(await published(client, uri, 1)) == [(1, "SL103", E), (2, "SL101", W)]


async def test_hover_never_renders_html_from_data(client: RecordingClient, workspace: Path) -> None:
    await _start(client, workspace, None)
    line = json.dumps({"case_id": "x`<img src=x onerror=alert(1)>", "surface": "<script>alert(1)</script> is <pending>",
                       "grounding_source": "pack"})
    uri = open_file(client, workspace / "transcripts" / "evil_deterministic_fluency_transcript.jsonl", line + "\n")
    await published(client, uri, 1)
    found = await client.text_document_hover_async(types.HoverParams(
        types.TextDocumentIdentifier(uri), types.Position(0, line.index("<script>") + 3)))
    assert found is not None and isinstance(found.contents, types.MarkupContent)
    rows = found.contents.value.split("\n")
    # The case id is one code span (its fence is longer than the backtick inside): literal text.
    assert rows[0] == ("**surface-lint** · lane `deterministic_fluency` · case ``x`<img src=x onerror=alert(1)>`` "
                       "· profile `contract`")
    assert rows[2] == "- ✗ `no_placeholder` — placeholder marker `<pending>` in the surface  "
    assert rows[6] == "- ✗ `complete_punctuation` — the surface ends with `>`, not terminal punctuation (`.` `?` `!` `;`)  "
    no_server_errors(client)


def test_markdown_escaping() -> None:
    from surface_lint.lsp.features.common import md_code, md_message, md_text, no_html

    assert md_text("a <b>*x*</b> [l](u) & `c`") == r"a \<b\>\*x\*\</b\> \[l\](u) \& \`c\`"
    assert md_code("x``y") == "```x``y```"
    assert md_code("`a") == "`` `a ``"
    assert md_message("ends with ```, not `.` <i>") == r"ends with \`\`\`, not `.` \<i\>"
    assert md_message("marker `<img src=x>` then <b>") == r"marker `<img src=x>` then \<b\>"
    assert no_html("hi <b>x</b> `<i>`\n```\n<d>\n```\n<e> `open <f>") == \
        "hi &lt;b>x&lt;/b> `<i>`\n```\n<d>\n```\n&lt;e> `open &lt;f>"
