"""`unicode_form` in the editor: diagnostics of a lane that normalises to NFC point at the
original characters of NFD Greek and pointed Hebrew in every position encoding."""

from __future__ import annotations

from pathlib import Path

import pytest
from lsp_support import RecordingClient, no_server_errors, open_file, published, spans, start
from unicode_form_support import write_files

# (line, start, line, end, code), 0-based, per encoding; the CLI test gives the same findings in
# code points (tests/cli/test_cli_unicode_form.py). Line 1 has `😀 ` first: 2 UTF-16 units, 4 bytes.
HEBREW = {
    "utf-16": [(2, 34, 2, 37, "NF4"), (2, 34, 2, 40, "NF2"), (3, 30, 3, 36, "NF4"), (3, 30, 3, 66, "NF2"),
               (3, 30, 3, 66, "NF3")],
    "utf-8": [(2, 37, 2, 43, "NF4"), (2, 37, 2, 49, "NF2"), (3, 30, 3, 36, "NF4"), (3, 30, 3, 66, "NF2"),
              (3, 30, 3, 66, "NF3")],
}
EXPECTED = {
    "utf-16": [(0, 32, 0, 43, "NF1"), (1, 35, 1, 41, "NF1"), *HEBREW["utf-16"]],
    "utf-8": [(0, 33, 0, 49, "NF1"), (1, 38, 1, 50, "NF1"), *HEBREW["utf-8"]],
    "utf-32": [(0, 32, 0, 43, "NF1"), (1, 34, 1, 40, "NF1"), *HEBREW["utf-16"]],
}


@pytest.mark.parametrize(("encodings", "negotiated"), [(None, "utf-16"), (["utf-8"], "utf-8"), (["utf-32"], "utf-32")])
async def test_normalised_findings_at_the_original_characters(
        client: RecordingClient, workspace: Path, encodings: list[str] | None, negotiated: str) -> None:
    _, records = write_files(workspace / "nfc")
    (workspace / "surface-lint.toml").write_text('lane-files = ["nfc/nfc.toml"]\ndefault-lane = "nfc_lane"\n')
    result = await start(client, workspace, encodings)
    assert result.capabilities.position_encoding == negotiated
    uri = open_file(client, records)
    diags = await published(client, uri, 1)
    assert spans(diags) == EXPECTED[negotiated]
    assert [d.message for d in diags][:2] == ["no_logos: the surface matches `λόγος`"] * 2
    no_server_errors(client)
