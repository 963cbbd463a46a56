"""Configuration picked up without a restart: the config file, client settings, `run`,
and a rules file broken mid-edit (its error shown, the last good rules kept).

The transcript's line 3 fails `no_placeholder` (SL101); its case lists `no_placeholders`
(a typo), so the finding is not an expected one and takes the configurable severity
(default: error)."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

from lsp_support import (
    TRANSCRIPT,
    RecordingClient,
    change,
    no_server_errors,
    open_file,
    published,
    rng,
    spans,
    start,
)
from lsprotocol import types

ROOT = Path(__file__).resolve().parents[2]
E, W, INFO, H = (types.DiagnosticSeverity.Error, types.DiagnosticSeverity.Warning,
              types.DiagnosticSeverity.Information, types.DiagnosticSeverity.Hint)


def _severities(diags: list[types.Diagnostic]) -> list[tuple[int, str | int | None, types.DiagnosticSeverity | None]]:
    return [(d.range.start.line, d.code, d.severity) for d in diags]


async def _next(client: RecordingClient, uri: str, after: int) -> list[types.Diagnostic]:
    """The first publish for `uri` after the first `after` publishes."""
    import asyncio

    for _ in range(1500):
        newer = [p for p in client.published[after:] if p.uri == uri]
        if newer:
            return list(newer[0].diagnostics)
        await asyncio.sleep(0.02)
    raise AssertionError(f"no new diagnostics for {uri}")


def _saved(client: RecordingClient, uri: str) -> None:
    client.text_document_did_save(types.DidSaveTextDocumentParams(types.TextDocumentIdentifier(uri)))


async def test_config_file_created_then_edited_and_saved(client: RecordingClient, workspace: Path) -> None:
    await start(client, workspace)
    uri = open_file(client, workspace / TRANSCRIPT)
    assert _severities(await published(client, uri, 1)) == [(1, "SL103", E), (2, "SL101", E)]
    config = workspace / "surface-lint.toml"
    config.write_text('[severity]\nno_placeholder = "warning"\n')
    n = len(client.published)
    client.workspace_did_change_watched_files(types.DidChangeWatchedFilesParams(
        [types.FileEvent(config.as_uri(), types.FileChangeType.Created)]))
    # SL103 stays an error: the case expects complete_punctuation.
    assert _severities(await _next(client, uri, n)) == [(1, "SL103", E), (2, "SL101", W)]
    # Edit the config in the editor and save it.
    cfg = open_file(client, config, language="toml")
    change(client, cfg, [(rng(1, 17, 1, 26), '"off"')])
    config.write_text(client.texts[cfg])
    n = len(client.published)
    _saved(client, cfg)
    assert _severities(await _next(client, uri, n)) == [(1, "SL103", E)]
    # A broken config: shown on the config file, the last good config stays in force.
    change(client, cfg, [(rng(1, 17, 1, 22), '"loud"')])
    problems = await published(client, cfg)
    assert [(d.range.start.line, d.code, d.message) for d in problems] == [
        (1, "config", "severity of `no_placeholder` must be one of error, warning, information, hint, off")]
    no_server_errors(client)


async def test_client_settings_initialization_and_changes(client: RecordingClient, workspace: Path) -> None:
    await start(client, workspace, settings={"severity": {"no_placeholder": "information"}})
    uri = open_file(client, workspace / TRANSCRIPT)
    assert _severities(await published(client, uri, 1)) == [(1, "SL103", E), (2, "SL101", INFO)]
    # didChangeConfiguration carrying the settings (VS Code's synchronize.configurationSection).
    n = len(client.published)
    client.workspace_did_change_configuration(types.DidChangeConfigurationParams(
        settings={"surfaceLint": {"severity": {"SL101": "hint"}, "profile": "reference"}}))
    assert _severities(await _next(client, uri, n)) == [(1, "SL103", E), (2, "SL101", H)]
    hover = await client.text_document_hover_async(types.HoverParams(
        types.TextDocumentIdentifier(uri), types.Position(2, 110)))
    assert hover is not None and isinstance(hover.contents, types.MarkupContent)
    assert "profile `reference`" in hover.contents.value.split("\n")[0]
    # didChangeConfiguration without settings: the server asks (workspace/configuration).
    client.set_configuration({"severity": {"no_placeholder": "off"}}, section="surfaceLint")
    n = len(client.published)
    client.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings=None))
    assert _severities(await _next(client, uri, n)) == [(1, "SL103", E)]


async def test_run_on_save(client: RecordingClient, workspace: Path) -> None:
    await start(client, workspace, settings={"run": "onSave"})
    uri = open_file(client, workspace / TRANSCRIPT)
    assert spans(await published(client, uri, 1)) == [(1, 143, 1, 144, "SL103"), (2, 128, 2, 137, "SL101")]
    v2 = change(client, uri, [(rng(1, 144, 1, 144), ".")])
    # Features still see the edit...
    hover = await client.text_document_hover_async(types.HoverParams(
        types.TextDocumentIdentifier(uri), types.Position(1, 120)))
    assert hover is not None and isinstance(hover.contents, types.MarkupContent)
    assert "- ✓ `complete_punctuation` — passes  " in hover.contents.value
    # ...but nothing is published before the save.
    assert [p.version for p in client.published if p.uri == uri] == [1]
    _saved(client, uri)
    assert spans(await published(client, uri, v2)) == [(2, 128, 2, 137, "SL101")]


async def test_rules_file_broken_mid_edit_keeps_the_last_good_rules(client: RecordingClient, workspace: Path) -> None:
    rules = workspace / "rules" / "fluency.toml"
    rules.parent.mkdir()
    text = (ROOT / "rules" / "deterministic_fluency.toml").read_text()
    # The user's copy of the lane makes no_placeholder a warning (line 38).
    good = text.replace('code = "SL101"\nkind = "substring_absent"\ndefault_severity = "error"',
                        'code = "SL101"\nkind = "substring_absent"\ndefault_severity = "warning"')
    assert good != text
    rules.write_text(good)
    (workspace / "surface-lint.toml").write_text('lane-files = ["rules/fluency.toml"]\n')
    await start(client, workspace)
    uri = open_file(client, workspace / TRANSCRIPT)
    assert _severities(await published(client, uri, 1)) == [(1, "SL103", E), (2, "SL101", W)]

    # Typing in the rules file: the error shows on it at once, nothing else changes yet.
    doc = open_file(client, rules, language="toml")
    assert await published(client, doc, 1) == []
    kind_line = good.split("\n").index('kind = "substring_absent"')  # no_placeholder's, the first one
    change(client, doc, [(rng(kind_line, 8, kind_line, 24), "substring_absnet")])
    (problem,) = await published(client, doc)
    assert (problem.code, problem.range) == ("SL014", rng(kind_line, 0, kind_line, 25))
    assert problem.message.startswith("predicate 'no_placeholder': unknown kind 'substring_absnet' (known: ")
    assert problem.severity == E

    # Saved broken: the transcript keeps the last good rules (SL101 still a warning).
    rules.write_text(client.texts[doc])
    n = len(client.published)
    _saved(client, doc)
    assert _severities(await _next(client, uri, n)) == [(1, "SL103", E), (2, "SL101", W)]
    (problem,) = await _next(client, doc, n)
    assert problem.message.endswith("; lane `deterministic_fluency` keeps its last good rules until this file loads")

    # A broken TOML line, closed file: the error is pushed to the file all the same.
    client.text_document_did_close(types.DidCloseTextDocumentParams(types.TextDocumentIdentifier(doc)))
    rules.write_text(good.replace('name = "no_placeholder"\n', 'name = "no_placeholder"\noops\n', 1))
    n = len(client.published)
    client.workspace_did_change_watched_files(types.DidChangeWatchedFilesParams(
        [types.FileEvent(rules.as_uri(), types.FileChangeType.Changed)]))
    assert _severities(await _next(client, uri, n)) == [(1, "SL103", E), (2, "SL101", W)]

    # Fixed: the file loads again, its own severity change applies.
    rules.write_text(good.replace('default_severity = "warning"', 'default_severity = "hint"', 1))
    n = len(client.published)
    client.workspace_did_change_watched_files(types.DidChangeWatchedFilesParams(
        [types.FileEvent(rules.as_uri(), types.FileChangeType.Changed)]))
    assert _severities(await _next(client, uri, n)) == [(1, "SL103", E), (2, "SL101", H)]
    no_server_errors(client)


async def test_rules_file_error_pushed_when_not_open(client: RecordingClient, workspace: Path) -> None:
    rules = workspace / "rules" / "fluency.toml"
    rules.parent.mkdir()
    shutil.copy(ROOT / "rules" / "deterministic_fluency.toml", rules)
    (workspace / "surface-lint.toml").write_text('lane-files = ["rules/fluency.toml"]\n')
    await start(client, workspace)
    uri = open_file(client, workspace / TRANSCRIPT)
    await published(client, uri, 1)
    rules.write_text(rules.read_text().replace('name = "no_placeholder"\n', 'name = "no_placeholder"\noops\n', 1))
    client.workspace_did_change_watched_files(types.DidChangeWatchedFilesParams(
        [types.FileEvent(rules.as_uri(), types.FileChangeType.Changed)]))
    (problem,) = await published(client, rules.as_uri(), None)
    oops = rules.read_text().split("\n").index("oops")
    assert (problem.code, problem.range.start.line, problem.range.start.character) == ("SL014", oops, 4)
    assert problem.message.startswith(
        f"invalid TOML: Expected '=' after a key in a key/value pair (at line {oops + 1}, column 5)")
    assert problem.message.endswith("; lane `deterministic_fluency` keeps its last good rules until this file loads")


async def test_an_open_rules_file_reusing_another_lanes_code_gets_sl014(client: RecordingClient,
                                                                        workspace: Path) -> None:
    # As the CLI refuses it (`code SL101 is already used by ...`): the buffer is checked against
    # the lanes loaded before it, not alone.
    rules = workspace / "rules" / "qa_lane.toml"
    rules.parent.mkdir()
    text = (ROOT / "rules" / "deterministic_fluency.toml").read_text()
    own = re.sub(r'code = "SL1(\d\d)"', r'code = "SL9\1"', text.replace('name = "deterministic_fluency"',
                                                                         'name = "qa_lane"', 1))
    rules.write_text(own)
    (workspace / "surface-lint.toml").write_text('lane-files = ["rules/qa_lane.toml"]\n')
    await start(client, workspace)
    doc = open_file(client, rules, language="toml")
    assert await published(client, doc, 1) == []
    code_line = own.split("\n").index('code = "SL901"')
    change(client, doc, [(rng(code_line, 10, code_line, 11), "1")])
    (problem,) = await published(client, doc)
    assert (problem.code, problem.range, problem.severity) == ("SL014", rng(code_line, 0, code_line, 14), E)
    assert problem.message == ("predicate 'no_placeholder': code SL101 is already used by predicate "
                               "'no_placeholder' of lane 'deterministic_fluency'")
    # Its own code again: the problem goes.
    change(client, doc, [(rng(code_line, 10, code_line, 11), "9")])
    assert await published(client, doc) == []
    no_server_errors(client)


async def _messages(client: RecordingClient, count: int) -> tuple[list[str], list[str]]:
    """The first `count` warnings logged (window/logMessage) and shown (window/showMessage)."""
    import asyncio

    for _ in range(1500):
        logged = [m.message for m in client.log_messages if m.type == types.MessageType.Warning]
        shown = [m.message for m in client.messages if m.type == types.MessageType.Warning]
        if len(logged) >= count and len(shown) >= count:
            return logged, shown
        await asyncio.sleep(0.02)
    raise AssertionError(f"fewer than {count} warnings: {client.log_messages} {client.messages}")


async def test_severity_settings_go_through_the_config_resolver(client: RecordingClient, workspace: Path) -> None:
    # A mistyped code (letter O for zero) and a mistyped name: said, with a did-you-mean, as the
    # config file's keys are; the findings keep their severity.
    await start(client, workspace, settings={"severity": {"SL1O3": "off", "no_placeholdr": "off"}})
    uri = open_file(client, workspace / TRANSCRIPT)
    assert _severities(await published(client, uri, 1)) == [(1, "SL103", E), (2, "SL101", E)]
    expected = [
        "surface-lint: setting ignored: surfaceLint.severity: severity key `SL1O3` names no predicate of the "
        "loaded lanes (did you mean `SL103`?)",
        "surface-lint: setting ignored: surfaceLint.severity: severity key `no_placeholdr` names no predicate of "
        "the loaded lanes (did you mean `no_placeholder`?)",
    ]
    assert await _messages(client, 2) == (expected, expected)
    no_server_errors(client)


async def test_a_config_files_unknown_severity_key_is_shown_at_the_key(client: RecordingClient,
                                                                       workspace: Path) -> None:
    config = workspace / "surface-lint.toml"
    config.write_text('[severity]\nSL101 = "hint"\nSL1O3 = "off"\n', encoding="utf-8")
    await start(client, workspace)
    uri = open_file(client, config, language="toml")
    diags = await published(client, uri, 1)
    assert [(spans([d])[0], d.message) for d in diags] == [
        ((2, 0, 2, 13, "config"), "severity key `SL1O3` names no predicate of the loaded lanes (did you mean "
                                  "`SL103`?)")]
    no_server_errors(client)
