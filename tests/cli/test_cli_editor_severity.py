"""`[severity]` in surface-lint.toml gives the same findings in `check` and in the editor, and the
editor's own `surfaceLint.severity` goes through the same resolver on top of the file's."""

from __future__ import annotations

import json
from pathlib import Path

from cli_support import cli, write_turns

from surface_lint.lsp.documents import Snapshot, TextDoc
from surface_lint.lsp.workspace import ServerState, parse_settings

TURNS = [
    {"case_id": "c3", "surface": "Lamp three gives light", "grounding_source": "none"},
    {"case_id": "c1", "surface": "It is listed as a.b; c.d; e.f today.", "grounding_source": "none"},
    {"case_id": "c2", "surface": "Lamp ... gives light.", "grounding_source": "none"},
]
CONFIG = '[severity]\nSL103 = "off"\nno_dotted_domain_inventory = "ERR"\nSL101 = "info"\n'


def editor_findings(folder: Path, settings: object = None) -> list[tuple[int, int, str, str]]:
    path = folder / "t.jsonl"
    text = path.read_text("utf-8")
    state = ServerState()
    state.roots = [folder]
    if settings is not None:
        state.settings, problems = parse_settings(settings)
        assert problems == []
    doc = TextDoc(path.as_uri(), text, 1)
    state.docs[doc.uri] = doc
    result = state.lint(Snapshot.of(doc))
    assert result.error is None
    return [(f.location.line, f.location.column, f.code, f.severity.label) for f in result.findings]


def cli_findings(folder: Path) -> list[tuple[int, int, str, str]]:
    run = cli("check", "t.jsonl", "--output-format", "json", cwd=folder)
    return [(f["line"], f["column"], f["code"], f["severity"]) for f in json.loads(run.out)["findings"]]


def test_the_config_file_severities_are_the_same_in_check_and_in_the_editor(tmp_path: Path) -> None:
    write_turns(tmp_path / "t.jsonl", TURNS)
    (tmp_path / "surface-lint.toml").write_text(CONFIG, "utf-8")
    expected = [(2, 47, "SL105", "error"), (3, 36, "SL101", "information")]
    assert cli_findings(tmp_path) == expected
    assert editor_findings(tmp_path) == expected


def test_editor_settings_override_the_file_through_the_same_resolver(tmp_path: Path) -> None:
    write_turns(tmp_path / "t.jsonl", TURNS)
    (tmp_path / "surface-lint.toml").write_text(CONFIG, "utf-8")
    settings = {"severity": {"sl105": "hint", "complete_punctuation": "warn"}}
    assert editor_findings(tmp_path, settings) == [
        (1, 52, "SL103", "warning"), (2, 47, "SL105", "hint"), (3, 36, "SL101", "information")]
