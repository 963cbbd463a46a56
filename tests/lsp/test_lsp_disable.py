""""Disable CODE for this record" merges with what the record already disables: a single
code becomes a list, order is kept, nothing is listed twice, nothing already disabled is
re-enabled."""

from __future__ import annotations

from pathlib import Path

import pytest
from lsp_support import DEV_CASES, RecordingClient, apply_edit, no_server_errors, open_file, published, start
from lsprotocol import types

from surface_lint.lsp.features.code_actions import merged_disable

LAMP = ('{"id":"fl_lamp_002","prompt":"What is a lamp?","category":"pack_definition",'
        '"expected_predicates":["no_placeholders","complete_punctuation"]')


@pytest.mark.parametrize(("already", "merged"), [
    ('"SL012"', '["SL012","SL004"]'),
    ('["SL012","SL012","SL003"]', '["SL012","SL003","SL004"]'),
    ('[]', '["SL004"]'),
    ('7', '["SL004"]'),  # disables nothing: replaced
])
async def test_disable_merges_with_the_records_own(client: RecordingClient, workspace: Path,
                                                   already: str, merged: str) -> None:
    await start(client, workspace)
    path = workspace / DEV_CASES
    lines = path.read_text(encoding="utf-8").split("\n")
    lines[1] = LAMP + ',"surface_lint":{"disable":' + already + "}}"
    uri = open_file(client, path, "\n".join(lines))
    (unknown,) = [d for d in await published(client, uri, 1) if d.code == "SL004"]
    got = await client.text_document_code_action_async(types.CodeActionParams(
        types.TextDocumentIdentifier(uri), unknown.range, types.CodeActionContext(diagnostics=[unknown])))
    assert got is not None
    (disable,) = [a for a in got if isinstance(a, types.CodeAction) and a.title.startswith("Disable")]
    assert disable.title == "Disable SL004 (unknown-predicate) for this record"
    assert disable.edit is not None
    v2 = apply_edit(client, disable.edit)
    assert client.texts[uri].split("\n")[1] == LAMP + ',"surface_lint":{"disable":' + merged + "}}"
    assert [d.code for d in await published(client, uri, v2)] == []
    no_server_errors(client)


def test_merged_disable() -> None:
    assert merged_disable("SL012", "SL004") == ["SL012", "SL004"]
    assert merged_disable(["SL004", "SL012"], "SL004") == ["SL004", "SL012"]
    assert merged_disable(["a", 3, "a", 3], "SL004") == ["a", 3, "SL004"]
    assert merged_disable(None, "SL004") == ["SL004"]
