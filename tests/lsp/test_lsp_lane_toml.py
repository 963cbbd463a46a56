"""A lane file being written, in the editor: the loader's own `file:line:column` messages as
diagnostics (also for a file no config names yet), hover (a key's and a kind's reference entry)
and completion (keys, kinds, a kind's parameters, choices, the lane's case fields)."""

from __future__ import annotations

from pathlib import Path

from lsp_support import RecordingClient, change, no_server_errors, open_file, published, rng, start
from lsprotocol import types

LANE = '''[lane]
name = "draft_lane"

[case_schema.fields.topic]
type = "string"

[[predicates]]
name = "names_topic"
code = "DR1"
kind = "case_field_in_surface"
default_severity = "error"
[predicates.params]
field = ""
'''


async def _hover(client: RecordingClient, uri: str, line: int, character: int) -> str | None:
    hover = await client.text_document_hover_async(types.HoverParams(types.TextDocumentIdentifier(uri),
                                                                     types.Position(line, character)))
    if hover is None:
        return None
    assert isinstance(hover.contents, types.MarkupContent)
    return hover.contents.value


async def _labels(client: RecordingClient, uri: str, line: int, character: int) -> list[str]:
    got = await client.text_document_completion_async(types.CompletionParams(types.TextDocumentIdentifier(uri),
                                                                             types.Position(line, character)))
    assert isinstance(got, types.CompletionList)
    return [item.label for item in got.items]


async def test_a_draft_lane_file_is_checked_as_it_is_typed(client: RecordingClient, workspace: Path) -> None:
    path = workspace / "draft.lane.toml"
    path.write_text(LANE, "utf-8")
    await start(client, workspace)
    uri = open_file(client, path, language="toml")
    (problem,) = await published(client, uri, 1)
    assert (problem.code, problem.range.start.line) == ("SL014", 12)
    assert problem.message == "predicate 'names_topic': parameter `field` must not be empty"
    change(client, uri, [(rng(12, 9, 12, 9), "topic")])
    assert await published(client, uri) == []
    no_server_errors(client)


async def test_hover_and_completion_in_a_lane_file(client: RecordingClient, workspace: Path) -> None:
    path = workspace / "rules" / "draft_lane.toml"
    path.parent.mkdir()
    path.write_text(LANE.replace('field = ""', 'field = "topic"'), "utf-8")
    await start(client, workspace)
    uri = open_file(client, path, language="toml")
    assert await published(client, uri, 1) == []
    assert await _hover(client, uri, 10, 3) == ('`default_severity`: string, default `"warning"`.\n\nSeverity when no '
                                                'case or config decides. One of `error`, `warning`, `information`, `hint`.')
    kind = await _hover(client, uri, 9, 12)
    assert kind is not None and kind.split("\n")[:3] == [
        "### `case_field_in_surface`", "", "The case field's string (each string of a list) occurs in the surface."]
    assert await _hover(client, uri, 12, 2) == ("`field`: string, default required.\n\nThe case field (dotted path; a "
                                                "string or a list of strings) whose text must occur, case-insensitively.")
    # Keys of the table at the cursor, not yet written in it.
    change(client, uri, [(rng(11, 0, 11, 0), "\n")])
    assert await _labels(client, uri, 11, 0) == [
        "report", "aliases", "applies_if", "when", "message", "summary", "what", "why", "example_fail", "example_pass",
        "params"]
    # A kind's name after `kind = "`; a key's choices; the lane's case fields for a field parameter.
    change(client, uri, [(rng(11, 0, 11, 0), 'kind = "')])
    kinds = await _labels(client, uri, 11, 8)
    assert kinds[:3] == ["case_field_in_surface", "case_value", "condition"] and len(kinds) == 20
    change(client, uri, [(rng(11, 0, 11, 8), 'default_severity = "')])
    assert await _labels(client, uri, 11, 20) == ["error", "warning", "information", "hint"]
    change(client, uri, [(rng(13, 9, 13, 16), '"')])
    assert await _labels(client, uri, 13, 9) == ["topic"]
    no_server_errors(client)
