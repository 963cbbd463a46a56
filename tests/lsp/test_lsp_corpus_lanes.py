"""The editor on the case-driven lanes of ../shared/corpus/lanes (issue 9, item 3): the same
engine as `surface-lint check` gives the diagnostics, hover and completion know the lanes'
fields (nested ones too) and predicates; and the trust notification as VS Code sends it."""

from __future__ import annotations

import asyncio
from pathlib import Path

from lsp_support import TRANSCRIPT, RecordingClient, capabilities, no_server_errors, open_file, published, rng, start
from lsprotocol import types

E, W = types.DiagnosticSeverity.Error, types.DiagnosticSeverity.Warning


async def test_did_grant_trust_without_params_is_accepted(client: RecordingClient, workspace: Path) -> None:
    # VS Code sends `surfaceLint/didGrantTrust` with no `params` key at all (JSON-RPC 2.0 allows it);
    # pygls used to answer it with a "Error in server: Internal Error" message and drop it.
    (workspace / "surface-lint.toml").write_text('[severity]\nno_placeholder = "warning"\n', encoding="utf-8")
    await client.initialize_session(types.InitializeParams(
        capabilities=capabilities(configuration=False), root_uri=workspace.as_uri(),
        workspace_folders=[types.WorkspaceFolder(uri=workspace.as_uri(), name="ws")],
        initialization_options={"trusted": False}))
    uri = open_file(client, workspace / TRANSCRIPT)
    first = await published(client, uri, 1)
    assert [(d.range.start.line, d.code, d.severity) for d in first] == [(1, "SL103", E), (2, "SL101", E)]
    before = len(client.published)
    client.protocol._send_data({"jsonrpc": "2.0", "method": "surfaceLint/didGrantTrust"})
    newer: list[types.PublishDiagnosticsParams] = []
    for _ in range(1500):
        newer = [p for p in client.published[before:] if p.uri == uri]
        if newer:
            break
        await asyncio.sleep(0.02)
    # Trusted now: the workspace config makes SL101 (no_placeholder) a warning.
    assert [(d.range.start.line, d.code, d.severity) for d in newer[0].diagnostics] == \
        [(1, "SL103", E), (2, "SL101", W)]
    assert [m.message for m in client.messages] == []
    no_server_errors(client)


CORPUS_LANES = (
    "calibration", "classical_literature_ood", "compositionality", "conversational_thread_coherence",
    "discourse_paragraph", "elementary_mathematics_ood", "english_fluency_ood", "fabrication_control",
    "foundational_physics_ood", "grammatical_coverage", "inference_closure", "self_consistency_over_time",
)


def _first_line(corpus: Path, lane: str) -> str:
    return (corpus / "lanes" / lane / "cases" / "dev" / "cases.jsonl").read_text(encoding="utf-8").split("\n")[0]


def _doc(uri: str) -> types.TextDocumentIdentifier:
    return types.TextDocumentIdentifier(uri)


async def test_every_real_case_file_of_every_lane_is_clean(client: RecordingClient, workspace: Path,
                                                           corpus: Path) -> None:
    await start(client, workspace)
    paths = sorted(p for lane in CORPUS_LANES for p in (corpus / "lanes" / lane / "cases").rglob("*.jsonl"))
    assert len(paths) == 41  # `find lanes/*/cases -name "*.jsonl" | wc -l`
    uris = [open_file(client, p) for p in paths]  # opened, never written
    for uri in uris:
        assert (uri, await published(client, uri, 1)) == (uri, [])
    no_server_errors(client)


async def test_type_errors_and_typos_in_a_lane_case_file(client: RecordingClient, workspace: Path,
                                                         corpus: Path) -> None:
    await start(client, workspace)
    line = _first_line(corpus, "grammatical_coverage")
    line = line.replace('"must_contain": ["light", "reveals", "truth"]', '"must_contain": "light"')
    line = line.replace('"max_words": 6', '"max_word": 6')
    uri = open_file(client, workspace / "grammatical_coverage" / "dev" / "cases.jsonl", line + "\n")
    diags = await published(client, uri, 1)
    value = line.index('"light", "word_order"')
    key = line.index('"max_word"')
    assert [(d.range, d.code, d.severity, d.message) for d in diags] == [
        (rng(0, value, 0, value + 7), "SL003", E, "`constraints.must_contain` must be an array of strings, not a string"),
        (rng(0, key, 0, key + 10), "SL012", types.DiagnosticSeverity.Information,
         "unknown field `constraints.max_word` for lane grammatical_coverage; did you mean `max_words`?"),
    ]


async def _labels(client: RecordingClient, uri: str, line: int, column: int) -> list[tuple[str, str | None]]:
    got = await client.text_document_completion_async(types.CompletionParams(_doc(uri), types.Position(line, column)))
    assert got is not None
    items = got.items if isinstance(got, types.CompletionList) else got
    return [(i.label, i.detail) for i in items]


async def test_completion_of_nested_case_fields(client: RecordingClient, workspace: Path) -> None:
    await start(client, workspace)
    text = ('{"id": "g1", "constraints": {"must_contain": ["a"], "\n'
            '{"id": "g2", "\n')
    uri = open_file(client, workspace / "grammatical_coverage" / "dev" / "cases.jsonl", text)
    await published(client, uri, 1)
    first = text.split("\n")[0]
    # Inside `constraints`: its own fields, less the one already given.
    assert await _labels(client, uri, 0, len(first)) == [("word_order", "list[string], optional"),
                                                         ("max_words", "integer, optional")]
    assert await _labels(client, uri, 1, len('{"id": "g2", "')) == [
        ("construction", "string, required"), ("construction_name", "string, optional"),
        ("accept_surfaces", "list[string], optional"), ("reject_surfaces", "list[string], optional"),
        ("proposition_graph", "object, optional"), ("constraints", "object, optional")]
    thread = '{"id": "t1", "turns": [{"prompt": "What is truth?"}, {"prompt": "Why?", "'
    uri2 = open_file(client, workspace / "conversational_thread_coherence" / "dev" / "cases.jsonl", thread + "\n")
    await published(client, uri2, 1)
    # In an item of a list of turn objects: the turn fields, less those this item has.
    assert await _labels(client, uri2, 0, len(thread)) == [
        ("subject_lemma", "string, optional"), ("expects_grounded", "boolean, optional"),
        ("anaphora_anchor_to", "string, optional"), ("is_replay_of_prompt_at_turn", "integer, optional")]
    no_server_errors(client)


async def _hover(client: RecordingClient, uri: str, line: int, column: int) -> types.Hover | None:
    return await client.text_document_hover_async(types.HoverParams(_doc(uri), types.Position(line, column)))


async def test_hover_on_nested_case_fields(client: RecordingClient, workspace: Path, corpus: Path) -> None:
    await start(client, workspace)
    path = corpus / "lanes" / "grammatical_coverage" / "cases" / "dev" / "cases.jsonl"
    uri = open_file(client, path)
    await published(client, uri, 1)
    line = _first_line(corpus, "grammatical_coverage")
    at = line.index('"must_contain"')
    found = await _hover(client, uri, 0, at + 3)
    assert found is not None and isinstance(found.contents, types.MarkupContent)
    assert found.contents.value == \
        "Case field `constraints.must_contain` of lane `grammatical_coverage`: list\\[string\\], optional."
    assert found.range == rng(0, at, 0, at + len('"must_contain"'))
    found = await _hover(client, uri, 0, line.index('"constraints"') + 1)
    assert found is not None and isinstance(found.contents, types.MarkupContent)
    assert found.contents.value == (
        "Case field `constraints` of lane `grammatical_coverage`: object, optional.\n\n"
        "What a surface that is not accepted must satisfy.\n\n"
        "Fields: `must_contain` (list\\[string\\]), `word_order` (list\\[string\\]), `max_words` (integer).")
    # A value that happens to be a word is no field.
    assert await _hover(client, uri, 0, line.index('"light"') + 1) is None
    no_server_errors(client)


async def test_hover_on_predicates_and_casework_names_in_a_lane_report(client: RecordingClient, workspace: Path,
                                                                       corpus: Path) -> None:
    await start(client, workspace)
    path = corpus / "lanes" / "conversational_thread_coherence" / "reports" / "dev.json"
    uri = open_file(client, path, language="json")
    await published(client, uri, 1)
    lines = path.read_text(encoding="utf-8").split("\n")

    async def hover_on(word: str) -> str:
        row = next(i for i, x in enumerate(lines) if f'"{word}"' in x)
        found = await _hover(client, uri, row, lines[row].index(f'"{word}"') + 2)
        assert found is not None and isinstance(found.contents, types.MarkupContent)
        return found.contents.value

    # A predicate's name: its docs, as on a predicate list in a case file.
    assert (await hover_on("no_placeholder")).startswith("### SLC701 `no_placeholder`\n\nLane `conversational_thread_coherence`")
    # A per-turn value made of an expression: its definition.
    assert await hover_on("is_grounded") == (
        "Casework per-turn value `is_grounded` of lane `conversational_thread_coherence`: "
        "`not default(entry.expects_grounded, True) or passes(t, 'grounded')`.")
    # A per-turn value given by a predicate: the definition, then the predicate's docs.
    anchor = await hover_on("topic_anchor_satisfied")
    assert anchor.startswith(
        "Casework per-turn value `topic_anchor_satisfied` of lane `conversational_thread_coherence`: predicate "
        "`topic_anchor` on the turns of view `turns`, when `entry.anaphora_anchor_to`.\n\n### SLC706 `topic_anchor`\n\n")
    # A report field of [casework.details] that is a per-case value.
    assert (await hover_on("no_topic_drift")).startswith(
        "Report field `no_topic_drift` of lane `conversational_thread_coherence` (`[casework.details]`): "
        "`no_topic_drift`.\n\nCasework per-case value `no_topic_drift` of lane `conversational_thread_coherence`: "
        "`not any( any(u.grounding in ['pack', 'teaching'] for u in turns")
    no_server_errors(client)


async def test_twins_across_the_splits_of_a_lane_folder(client: RecordingClient, workspace: Path,
                                                       corpus: Path) -> None:
    # The runtime's layout `<lane>/cases/{dev,public/vN,holdouts/vN}/cases.jsonl`: the editor reads
    # the open file's sibling splits, as it does for `<lane>/{dev,...}`.
    line = _first_line(corpus, "calibration")
    lane_dir = workspace / "calibration" / "cases"
    (lane_dir / "dev").mkdir(parents=True)
    (lane_dir / "dev" / "cases.jsonl").write_text(line + "\n", encoding="utf-8")
    public = lane_dir / "public" / "v1" / "cases.jsonl"
    public.parent.mkdir(parents=True)
    public.write_text(line + "\n", encoding="utf-8")
    await start(client, workspace)
    uri = open_file(client, public)
    at = line.index('"CAL-DEV-001"')
    assert [(d.range, d.code, d.message) for d in await published(client, uri, 1)] == [
        (rng(0, at, 0, at + len('"CAL-DEV-001"')), "SL005",
         f"duplicate case id `CAL-DEV-001` (first at {lane_dir / 'dev' / 'cases.jsonl'}:1)"),
    ]
    no_server_errors(client)
