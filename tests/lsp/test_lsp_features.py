"""Editor features over stdio: hover, quick fixes applied and re-linted, completion,
document symbols, go to definition, code lens and the `surfaceLint/laneScore` request."""

from __future__ import annotations

from pathlib import Path

import pytest
import pytest_lsp
from lsp_support import (
    DEV_CASES,
    PUBLIC_CASES,
    REPORT,
    SYMBOLIC_CASES,
    TRANSCRIPT,
    RecordingClient,
    apply_edit,
    change,
    no_server_errors,
    open_file,
    published,
    rng,
    spans,
    start,
)
from lsprotocol import types

from surface_lint.engine import Engine
from surface_lint.reporters.docs import predicate_markdown

LANE = Engine().lane("deterministic_fluency")


def _summary(name: str) -> str:
    spec = LANE.predicate(name)
    assert spec is not None
    return spec.summary


def _doc(uri: str) -> types.TextDocumentIdentifier:
    return types.TextDocumentIdentifier(uri)


async def test_hover_on_a_surface_lists_every_verdict(client: RecordingClient, workspace: Path) -> None:
    await start(client, workspace)
    uri = open_file(client, workspace / TRANSCRIPT)
    await published(client, uri, 1)
    # Line 2's surface value spans code points 102..144 (UTF-16 102..145: one emoji inside).
    hover = await client.text_document_hover_async(types.HoverParams(_doc(uri), types.Position(1, 120)))
    assert hover is not None
    assert hover.range == rng(1, 102, 1, 145)
    assert isinstance(hover.contents, types.MarkupContent)
    assert hover.contents.kind == types.MarkupKind.Markdown
    lines = hover.contents.value.split("\n")
    assert lines[0] == "**surface-lint** · lane `deterministic_fluency` · case `fl_tide_001` · profile `contract`"
    assert lines[2:] == [
        "- ✓ `no_placeholder` — passes  ", f"  {_summary('no_placeholder')}",
        "- ✓ `no_provenance_only` — passes  ", f"  {_summary('no_provenance_only')}",
        "- ✗ `complete_punctuation` — the surface ends with `s`, not terminal punctuation (`.` `?` `!` `;`)  ",
        f"  {_summary('complete_punctuation')}",
        "- ✓ `finite_predicate_shape` — passes  ", f"  {_summary('finite_predicate_shape')}",
        "- ✓ `no_dotted_inventory` — passes  ", f"  {_summary('no_dotted_inventory')}",
        "- ✓ `surface_provenance_match` — passes  ", f"  {_summary('surface_provenance_match')}",
    ]
    # Outside any surface and any predicate name: nothing.
    assert await client.text_document_hover_async(types.HoverParams(_doc(uri), types.Position(1, 2))) is None


async def test_hover_on_a_predicate_name_in_a_case(client: RecordingClient, workspace: Path) -> None:
    await start(client, workspace)
    uri = open_file(client, workspace / DEV_CASES)
    line = (workspace / DEV_CASES).read_text().split("\n")[0]
    col = line.index('"complete_punctuation"') + 3
    hover = await client.text_document_hover_async(types.HoverParams(_doc(uri), types.Position(0, col)))
    assert hover is not None
    spec = LANE.predicate("complete_punctuation")
    assert spec is not None
    assert isinstance(hover.contents, types.MarkupContent)
    assert hover.contents.value == predicate_markdown(spec, LANE)
    assert hover.contents.value.startswith("### SL103 `complete_punctuation`")
    start_col = line.index('"complete_punctuation"')
    assert hover.range == rng(0, start_col, 0, start_col + len('"complete_punctuation"'))


async def _actions(client: RecordingClient, uri: str, diag: types.Diagnostic) -> list[types.CodeAction]:
    got = await client.text_document_code_action_async(types.CodeActionParams(
        _doc(uri), diag.range, types.CodeActionContext(diagnostics=[diag])))
    assert got is not None
    return [a for a in got if isinstance(a, types.CodeAction)]


async def test_quick_fixes_on_a_transcript_apply_and_relint_clean(client: RecordingClient, workspace: Path) -> None:
    await start(client, workspace)
    uri = open_file(client, workspace / TRANSCRIPT)
    punct, placeholder = await published(client, uri, 1)
    actions = await _actions(client, uri, punct)
    assert [a.title for a in actions] == ["Add terminal punctuation `.`",
                                          "Disable SL103 (complete_punctuation) for this record"]
    assert actions[0].kind == types.CodeActionKind.QuickFix and actions[0].is_preferred
    assert actions[0].edit is not None
    v2 = apply_edit(client, actions[0].edit)
    assert client.texts[uri].split("\n")[1].endswith('"🌊 caf\\u00e9 — \\"tide\\"\\t rises and falls.", '
                                                     '"grounding_source": "pack"}')
    assert spans(await published(client, uri, v2)) == [(2, 128, 2, 137, "SL101")]
    (placeholder,) = await published(client, uri, v2)
    actions = await _actions(client, uri, placeholder)
    assert [a.title for a in actions] == ["Disable SL101 (no_placeholder) for this record"]
    assert actions[0].edit is not None
    v3 = apply_edit(client, actions[0].edit)
    assert client.texts[uri].split("\n")[2].endswith(
        '"grounding_source": "pack", "surface_lint": {"disable": ["SL101"]}}')
    assert await published(client, uri, v3) == []
    no_server_errors(client)


async def test_quick_fixes_on_case_files(client: RecordingClient, workspace: Path) -> None:
    await start(client, workspace)
    dev = open_file(client, workspace / DEV_CASES)
    public = open_file(client, workspace / PUBLIC_CASES)
    sym = open_file(client, workspace / SYMBOLIC_CASES)

    (unknown,) = await published(client, dev, 1)
    actions = await _actions(client, dev, unknown)
    assert [a.title for a in actions] == ["Replace with `no_placeholder`",
                                          "Disable SL004 (unknown-predicate) for this record"]
    assert actions[0].edit is not None
    assert await published(client, dev, apply_edit(client, actions[0].edit)) == []

    dup, leak = await published(client, public, 1)
    actions = await _actions(client, public, dup)
    assert actions[0].title == "Renumber to `fl_tide_002`"
    assert actions[0].edit is not None
    v2 = apply_edit(client, actions[0].edit)
    assert client.texts[public].startswith('{"id": "fl_tide_002", ')
    assert spans(await published(client, public, v2)) == [(1, 33, 1, 49, "SL006")]
    (leak,) = await published(client, public, v2)
    actions = await _actions(client, public, leak)
    assert [a.title for a in actions] == ["Disable SL006 (holdout-leak) for this record"]
    assert actions[0].edit is not None
    v3 = apply_edit(client, actions[0].edit)
    assert client.texts[public].split("\n")[1].endswith(
        '"expected_predicates": ["complete_punctuation"], "surface_lint": {"disable": ["SL006"]}}')
    assert await published(client, public, v3) == []

    (mismatch,) = await published(client, sym, 1)
    actions = await _actions(client, sym, mismatch)
    assert actions[0].title == "Set expected_proposals to 1"
    assert actions[0].edit is not None
    assert await published(client, sym, apply_edit(client, actions[0].edit)) == []


async def test_disable_on_a_compact_record_keeps_its_style(client: RecordingClient, workspace: Path) -> None:
    await start(client, workspace)
    dev = open_file(client, workspace / DEV_CASES)
    (unknown,) = await published(client, dev, 1)
    actions = await _actions(client, dev, unknown)
    disable = [a for a in actions if a.title.startswith("Disable")]
    assert [a.title for a in disable] == ["Disable SL004 (unknown-predicate) for this record"]
    assert disable[0].edit is not None
    v2 = apply_edit(client, disable[0].edit)
    assert client.texts[dev].split("\n")[1] == (
        '{"id":"fl_lamp_002","prompt":"What is a lamp?","category":"pack_definition",'
        '"expected_predicates":["no_placeholders","complete_punctuation"],"surface_lint":{"disable":["SL004"]}}')
    assert await published(client, dev, v2) == []


async def test_completion_of_predicates_and_fields(client: RecordingClient, workspace: Path) -> None:
    await start(client, workspace)
    text = '{"id":"fl_new_004","prompt":"What is a bell?","expected_predicates":["no_placeholder","comp\n{"id":"x","\n'
    uri = open_file(client, workspace / "evals/deterministic_fluency/dev/new_cases.jsonl", text)
    await published(client, uri, 1)
    line0 = text.split("\n")[0]
    got = await client.text_document_completion_async(types.CompletionParams(
        _doc(uri), types.Position(0, len(line0))))
    assert got is not None
    items = got.items if isinstance(got, types.CompletionList) else got
    labels = [i.label for i in items]
    reported = [p.name for p in LANE.predicates if p.report]
    assert labels == [n for p in LANE.predicates if p.report for n in (p.name, *p.aliases)]
    assert set(reported) <= set(labels) and "no_dotted_domain_inventory" in labels
    punct = next(i for i in items if i.label == "complete_punctuation")
    assert isinstance(punct.text_edit, types.TextEdit)
    assert punct.text_edit.range == rng(0, len(line0) - 4, 0, len(line0))
    assert punct.text_edit.new_text == "complete_punctuation"
    got = await client.text_document_completion_async(types.CompletionParams(_doc(uri), types.Position(1, 11)))
    assert got is not None
    items = got.items if isinstance(got, types.CompletionList) else got
    assert [i.label for i in items] == ["prompt", "category", "expected_predicates", "post_gloss_predicates"]
    assert items[0].detail == "string, required"


async def test_document_symbols(client: RecordingClient, workspace: Path) -> None:
    await start(client, workspace)
    uri = open_file(client, workspace / TRANSCRIPT)
    await published(client, uri, 1)
    symbols = await client.text_document_document_symbol_async(types.DocumentSymbolParams(_doc(uri)))
    assert symbols is not None
    rows = [(s.name, s.detail, s.range.start.line, s.selection_range.start.character,
             s.selection_range.end.character) for s in symbols if isinstance(s, types.DocumentSymbol)]
    assert rows == [("fl_harbor_003", "turn", 0, 12, 27), ("fl_tide_001", "turn", 1, 12, 25),
                    ("fl_lamp_002", "turn", 2, 12, 25), ("fl_doubt_010", "turn", 3, 12, 26)]
    assert symbols[1].range == rng(1, 0, 1, 174)  # the whole line: 173 code points, one emoji


async def test_definition_from_a_turn_to_its_case(client: RecordingClient, workspace: Path) -> None:
    await start(client, workspace)
    uri = open_file(client, workspace / TRANSCRIPT)
    await published(client, uri, 1)
    found = await client.text_document_definition_async(types.DefinitionParams(_doc(uri), types.Position(1, 15)))
    dev = workspace / DEV_CASES
    first = dev.read_text().split("\n")[0]
    assert found == types.Location(uri=dev.as_uri(), range=rng(0, 0, 0, len(first)))
    # Line 4's case is in the public split; a position outside any id has no definition.
    public = workspace / PUBLIC_CASES
    second = public.read_text().split("\n")[1]
    found = await client.text_document_definition_async(types.DefinitionParams(_doc(uri), types.Position(3, 12)))
    assert found == types.Location(uri=public.as_uri(), range=rng(1, 0, 1, len(second)))
    assert await client.text_document_definition_async(types.DefinitionParams(_doc(uri), types.Position(1, 40))) is None


async def test_code_lens_and_lane_score(client: RecordingClient, workspace: Path) -> None:
    await start(client, workspace)
    uri = open_file(client, workspace / TRANSCRIPT)
    await published(client, uri, 1)
    lenses = await client.text_document_code_lens_async(types.CodeLensParams(_doc(uri)))
    assert lenses is not None and len(lenses) == 1
    assert lenses[0].range == rng(0, 0, 0, 0)
    assert lenses[0].command is not None
    assert lenses[0].command.title == ("surface-lint · deterministic_fluency: expected_predicates_pass_rate 0.7500 "
                                       "· fails (contract)")
    assert lenses[0].command.command == "surfaceLint.scoreLane"
    score = await client.protocol.send_request_async("surfaceLint/laneScore", {"uri": uri})
    assert score.lane == "deterministic_fluency" and score.profile == "contract"
    assert (score.headline.name, score.headline.value, score.passed) == ("expected_predicates_pass_rate", 0.75, False)
    assert score.headline.text == "0.7500"  # as the terminal prints it: the status bar shows this text
    assert "| `complete_punctuation_rate` | 0.7500 | >= 1 | ✗ |" in score.markdown
    assert "4 case(s) scored from `deterministic_fluency_transcript.jsonl`. 1 case(s) have no transcript here." \
        in score.markdown
    # Fix the punctuation in the buffer (unsaved): the lens follows the buffer.
    line = client.texts[uri].split("\n")[1]
    col = len(line[: line.index("falls") + 5].encode("utf-16-le")) // 2
    change(client, uri, [(rng(1, col, 1, col), ".")])
    await published(client, uri)
    lenses = await client.text_document_code_lens_async(types.CodeLensParams(_doc(uri)))
    assert lenses is not None and lenses[0].command is not None
    assert lenses[0].command.title == ("surface-lint · deterministic_fluency: expected_predicates_pass_rate 1.0000 "
                                       "· fails (contract)")
    assert "rises and falls\"" in (workspace / TRANSCRIPT).read_text(), "the file on disk is untouched"
    report = open_file(client, workspace / REPORT, language="json")
    await published(client, report, 1)
    score = await client.protocol.send_request_async("surfaceLint/laneScore", {"uri": report})
    assert (score.lane, score.headline.name, score.headline.value) == (
        "deterministic_fluency", "expected_predicates_pass_rate", 0.5)
    # Not a lane file, and an unknown document: null.
    cases = open_file(client, workspace / DEV_CASES)
    await published(client, cases, 1)
    assert await client.protocol.send_request_async("surfaceLint/laneScore", {"uri": cases}) is None
    assert await client.protocol.send_request_async("surfaceLint/laneScore", {"uri": "file:///nowhere.jsonl"}) is None
    no_server_errors(client)


@pytest.mark.filterwarnings("error::pytest_lsp.LspSpecificationWarning")
@pytest.mark.parametrize("editor", ["visual-studio-code", "neovim@v0.11.0", "emacs"])
async def test_real_editor_capabilities(client: RecordingClient, workspace: Path, editor: str) -> None:
    """The capabilities real editors declare; every answer must comply with them."""
    caps = pytest_lsp.client_capabilities(editor)
    await client.initialize_session(types.InitializeParams(
        capabilities=caps, root_uri=workspace.as_uri(),
        workspace_folders=[types.WorkspaceFolder(uri=workspace.as_uri(), name="ws")]))
    pull = caps.text_document is not None and caps.text_document.diagnostic is not None
    uri = open_file(client, workspace / TRANSCRIPT)
    if pull:
        report = await client.text_document_diagnostic_async(types.DocumentDiagnosticParams(_doc(uri)))
        assert isinstance(report, types.RelatedFullDocumentDiagnosticReport)
        diags = list(report.items)
    else:
        diags = await published(client, uri, 1)
    assert [d.code for d in diags] == ["SL103", "SL101"]
    assert await client.text_document_hover_async(types.HoverParams(_doc(uri), types.Position(1, 120))) is not None
    actions = await client.text_document_code_action_async(types.CodeActionParams(
        _doc(uri), diags[0].range, types.CodeActionContext(diagnostics=[diags[0]])))
    assert actions and actions[0].title == "Add terminal punctuation `.`"  # type: ignore[union-attr]
    cases = open_file(client, workspace / DEV_CASES)
    line0 = client.texts[cases].split("\n")[0]
    col = line0.index('"no_placeholder"') + 4
    got = await client.text_document_completion_async(types.CompletionParams(_doc(cases), types.Position(0, col)))
    assert got is not None
    symbols = await client.text_document_document_symbol_async(types.DocumentSymbolParams(_doc(cases)))
    assert symbols is not None and [s.name for s in symbols] == ["fl_tide_001", "fl_lamp_002", "fl_harbor_003"]
    no_server_errors(client)


async def test_report_hover_definition_and_symbols(client: RecordingClient, workspace: Path) -> None:
    await start(client, workspace)
    uri = open_file(client, workspace / REPORT, language="json")
    await published(client, uri, 1)
    lines = client.texts[uri].split("\n")
    surface_line = next(i for i, x in enumerate(lines) if "Tides rise" in x)
    hover = await client.text_document_hover_async(types.HoverParams(_doc(uri), types.Position(surface_line, 25)))
    assert hover is not None and isinstance(hover.contents, types.MarkupContent)
    assert "- ✗ `complete_punctuation` — the surface ends with `l`, not terminal punctuation" in hover.contents.value
    id_line = next(i for i, x in enumerate(lines) if '"case_id": "fl_tide_001"' in x)
    found = await client.text_document_definition_async(types.DefinitionParams(
        _doc(uri), types.Position(id_line, lines[id_line].index("fl_tide"))))
    dev = workspace / DEV_CASES
    assert found == types.Location(uri=dev.as_uri(), range=rng(0, 0, 0, len(dev.read_text().split("\n")[0])))
    symbols = await client.text_document_document_symbol_async(types.DocumentSymbolParams(_doc(uri)))
    assert symbols is not None
    assert [(s.name, s.detail) for s in symbols] == [("fl_harbor_003", "report-case"), ("fl_tide_001", "report-case")]


async def test_disable_in_a_pretty_printed_report(client: RecordingClient, workspace: Path) -> None:
    await start(client, workspace)
    uri = open_file(client, workspace / REPORT, language="json")
    (punct,) = await published(client, uri, 1)
    actions = await _actions(client, uri, punct)
    assert [a.title for a in actions] == ["Add terminal punctuation `.`",
                                          "Disable SL103 (complete_punctuation) for this record"]
    assert actions[1].edit is not None
    v2 = apply_edit(client, actions[1].edit)
    assert ('      "surface": "Tides rise — and fall",\n'
            '      "grounding_source": "pack",\n'
            '      "expected_predicates": [\n'
            '        "complete_punctuation"\n'
            '      ],\n'
            '      "surface_lint": {"disable": ["SL103"]}\n'
            '    }\n'
            '  ]\n') in client.texts[uri]
    assert await published(client, uri, v2) == []
