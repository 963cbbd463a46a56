"""The server's state without a client: text edits in client units, and the line-by-line
lint giving exactly the engine's findings and records for the whole document."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from surface_lint.engine import Engine
from surface_lint.lsp.documents import Snapshot, TextDoc, from_client_units, to_client_units
from surface_lint.lsp.workspace import ClientSettings, ServerState, parse_settings
from surface_lint.model.findings import Finding

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"
CORPUS = ROOT.parent / "shared" / "corpus"


def _key(f: Finding) -> tuple[object, ...]:
    # record_index counts records from the start of the file; the line-by-line path checks
    # one line at a time, so it is the one field left out (suppression uses the line).
    return (f.location, f.code, f.rule, f.severity, f.message, f.record_id, f.related, f.fixes)


def _both(tmp_path: Path, name: str, text: str, lane_cases: list[str] | None = None):  # type: ignore[no-untyped-def]
    path = tmp_path / name
    path.write_text(text, encoding="utf-8", newline="")
    state = ServerState()
    state.roots = [tmp_path]
    uri = path.as_uri()
    doc = TextDoc(uri, text, 1)
    state.docs[uri] = doc
    result = state.lint(Snapshot.of(doc))
    engine = state.engine_for(str(path)).engine
    cases = None
    if result.lane and result.case_paths:
        _, cases = engine.load_cases(list(result.case_paths), engine.lane(result.lane))
    whole = engine.check_bytes(str(path), text.encode("utf-8", "surrogatepass"), None, result.lane, cases)
    return state, doc, result, whole


def _assert_same(result, whole) -> None:  # type: ignore[no-untyped-def]
    assert result.error is None
    assert [_key(f) for f in result.findings] == [_key(f) for f in whole.findings]
    assert result.records == whole.records
    assert result.lane == whole.lane


TURNS = [
    {"case_id": "c1", "surface": "river flows valley", "grounding_source": "pack"},
    {"case_id": "c2", "surface": "Caf\u00e9 \u2014 \U0001f30a is ... here", "grounding_source": "none"},
    '{"case_id": "c3", "surface": "tab\\t and \\"quotes\\" \\ud83c\\udf0a end", "grounding_source": "pack"}',
    '{"case_id": "c4", "surface": "broken",',
    "",
    "[1, 2]",
    {"case_id": "c5", "surface": 7},
    {"case_id": "c6", "surface": "Truth is what is real. pack-grounded (p).", "surface_lint": {"disable": ["SL106"]},
     "grounding_source": "none"},
    {"case_id": "c7", "surface": "doubt \u2014 pack-grounded (en_core_meta_v1): meta.mental_state.uncertainty; "
                                 "meta.mental_state; cognition.epistemic. No session evidence yet."},
]


def _jsonl(rows: list[object], eol: str = "\n") -> str:
    return eol.join(r if isinstance(r, str) else json.dumps(r, ensure_ascii=False) for r in rows) + eol


@pytest.mark.parametrize("eol", ["\n", "\r\n"])
def test_line_by_line_equals_the_engine_on_a_transcript(tmp_path: Path, eol: str) -> None:
    _, _, result, whole = _both(tmp_path, "deterministic_fluency_transcript.jsonl", _jsonl(TURNS, eol))
    assert result.line_mode
    _assert_same(result, whole)
    assert {f.code for f in result.findings} >= {"SL001", "SL103", "SL101", "SL105"}
    if eol == "\r\n":
        assert [f.message for f in result.findings if f.code == "SL009"] == ["CRLF line endings on 9 line(s) (read as LF)"]


def test_unknown_case_ids_once_per_file(tmp_path: Path) -> None:
    import shutil

    shutil.copytree(EXAMPLES / "evals", tmp_path / "evals")
    rows = [{"case_id": "nope", "surface": "A river flows."}, {"case_id": "ex_fluency_river_001", "surface": "x."},
            {"case_id": "nope", "surface": "Again."}, {"case_id": "other", "surface": "B."}]
    _, _, result, whole = _both(tmp_path, "deterministic_fluency_transcript.jsonl", _jsonl(rows))
    assert result.case_paths
    _assert_same(result, whole)


def test_bom_first_line_and_bom_later(tmp_path: Path) -> None:
    text = "\ufeff" + _jsonl(TURNS[:2]) + "\ufeff" + json.dumps(TURNS[0]) + "\n"
    _, _, result, whole = _both(tmp_path, "deterministic_fluency_transcript.jsonl", text)
    _assert_same(result, whole)
    assert [(f.location.line, f.code) for f in result.findings if f.code in ("SL009", "SL001")] == [(1, "SL009"), (3, "SL001")]


def test_priming_context_reaches_later_lines(tmp_path: Path) -> None:
    rows = [
        {"case_id": "m1", "role": "priming", "surface": "A forest is land covered by trees.", "grounding_source": "pack"},
        {"case_id": "m2", "role": "prompt", "surface": "Short.", "grounding_source": "pack"},
        {"case_id": "m1", "role": "prompt", "surface": "Short.", "grounding_source": "pack"},
    ]
    _, _, result, whole = _both(tmp_path, "multi_sentence_response_transcript.jsonl", _jsonl(rows))
    _assert_same(result, whole)
    primed = {r.location.line: r.verdicts["primed"].passed for r in result.records if r.verdicts}
    assert primed == {1: True, 2: False, 3: True}


def test_examples_and_incremental_edits_stay_equal(tmp_path: Path) -> None:
    evals = tmp_path / "evals"
    import shutil

    shutil.copytree(EXAMPLES / "evals", evals)
    text = (EXAMPLES / "transcripts" / "deterministic_fluency.jsonl").read_text()
    state, doc, result, whole = _both(tmp_path, "deterministic_fluency_transcript.jsonl", text)
    assert result.case_paths, "the example case files are found upward from the transcript"
    _assert_same(result, whole)
    rng = random.Random(7)
    memo = state.memos[doc.uri]
    for step in range(30):
        line = rng.randrange(len(doc.lines))
        choice = rng.random()
        if choice < 0.4:
            doc.apply_change((line, 0, line, 0), json.dumps(rng.choice(TURNS[:3]), ensure_ascii=False) + "\n", "utf-16")
        elif choice < 0.7 and len(doc.lines) > 2:
            doc.apply_change((line, 0, line + 1, 0), "", "utf-16")
        else:
            doc.apply_change((line, 5, line, 9), "x\u00e9", "utf-16")
        doc.version = (doc.version or 0) + 1
        before = memo.misses
        got = state.lint(Snapshot.of(doc))
        assert memo.misses - before <= 2, f"step {step}: an edit re-checked more than the touched lines"
        engine = state.engine_for(doc.path).engine
        assert got.lane is not None
        _, cases = engine.load_cases(list(got.case_paths), engine.lane(got.lane))
        ref = engine.check_bytes(doc.path, doc.text.encode(), None, got.lane, cases)
        _assert_same(got, ref)


@pytest.mark.parametrize("name", ["multi_sentence_response.jsonl", "symbolic_logic.jsonl"])
def test_other_example_transcripts(tmp_path: Path, name: str) -> None:
    text = (EXAMPLES / "transcripts" / name).read_text()
    _, _, result, whole = _both(tmp_path, name, text)
    _assert_same(result, whole)


def test_corpus_captures_and_telemetry(tmp_path: Path) -> None:
    if not (CORPUS / "README.md").is_file():
        pytest.skip(f"real corpus not found at {CORPUS}")
    for folder in ("captures", "telemetry"):
        for src in sorted((CORPUS / "runtime" / folder).glob("*.jsonl"))[:4]:
            text = src.read_text(encoding="utf-8")
            _, _, result, whole = _both(tmp_path, src.name, text)
            _assert_same(result, whole)


def test_client_units_round_trip() -> None:
    line = 'a\u00e9\U0001f30a\u2014b'
    assert [to_client_units(line, c, "utf-16") for c in range(6)] == [0, 1, 2, 4, 5, 6]
    assert [to_client_units(line, c, "utf-8") for c in range(6)] == [0, 1, 3, 7, 10, 11]
    assert [to_client_units(line, c, "utf-32") for c in range(6)] == [0, 1, 2, 3, 4, 5]
    for enc in ("utf-16", "utf-8", "utf-32"):
        for c in range(6):
            assert from_client_units(line, to_client_units(line, c, enc), enc) == c
    assert from_client_units(line, 999, "utf-16") == 5
    assert from_client_units(line, 3, "utf-16") == 3  # inside the surrogate pair: after it


def test_text_doc_edits_keep_crlf_and_clamp() -> None:
    doc = TextDoc("file:///x.jsonl", "ab\r\ncd\r\n", 1)
    doc.apply_change((0, 2, 1, 0), "X\r\n", "utf-16")
    assert doc.text == "abX\r\ncd\r\n"
    doc.apply_change((99, 99, 120, 0), "Z", "utf-16")
    assert doc.text == "abX\r\ncd\r\nZ"
    doc.apply_change((1, 5, 0, 1), "-", "utf-16")  # reversed range, past the end of line 1
    assert doc.text == "a-\r\nZ"


def test_parse_settings() -> None:
    settings, problems = parse_settings({"surfaceLint": {"profile": "reference", "run": "onSave",
                                                          "severity": {"complete_punctuation": "off", "x": "loud"}}})
    assert settings == ClientSettings("reference", (("complete_punctuation", "off"),), "onSave")
    assert problems == ["surfaceLint.severity.x: 'loud' is not one of error, warning, information, hint, off"]
    assert parse_settings(None) == (ClientSettings(), [])
    # The aliases come from the one table (severity_levels.json), case and spaces ignored.
    aliased, none = parse_settings({"severity": {"a": " Warn ", "b": "ERR", "c": "info", "d": "Hint"}})
    assert aliased.severity == (("a", "warning"), ("b", "error"), ("c", "information"), ("d", "hint"))
    assert none == []


def test_auto_profile_leaves_it_to_the_project_config(tmp_path: Path) -> None:
    """VS Code's default profile is `auto`: a project's `profile = "reference"` then holds."""
    settings, problems = parse_settings({"surfaceLint": {"profile": "auto"}})
    assert (settings.profile, problems) == (None, [])
    (tmp_path / "surface-lint.toml").write_text('profile = "reference"\n', encoding="utf-8")
    state = ServerState()
    state.settings = settings
    assert state.engine_for(str(tmp_path / "t.jsonl")).engine.profile == "reference"


def test_engine_entry_is_cached_and_rebuilt_on_invalidate(tmp_path: Path) -> None:
    state = ServerState()
    a = state.engine_for(str(tmp_path / "t.jsonl"))
    assert state.engine_for(str(tmp_path / "u.jsonl")) is a
    state.invalidate()
    assert state.engine_for(str(tmp_path / "t.jsonl")) is not a
    assert isinstance(a.engine, Engine)


def test_memo_forgets_lines_that_are_gone(tmp_path: Path) -> None:
    text = _jsonl([{"case_id": "c1", "surface": "A river flows."}] * 3)
    state, doc, _, _ = _both(tmp_path, "deterministic_fluency_transcript.jsonl", text)
    memo = state.memos[doc.uri]
    for i in range(1100):
        doc.apply_change((0, 0, 1, 0), json.dumps({"case_id": "c1", "surface": f"Typed {i}."}) + "\n", "utf-16")
        doc.version = (doc.version or 0) + 1
        state.lint(Snapshot.of(doc))
    assert len(memo.lines) <= 2 * len(doc.lines) + 1024
    assert json.dumps({"case_id": "c1", "surface": "Typed 1099."}) in memo.lines


def test_only_json_lines_and_lane_reports_are_linted() -> None:
    from surface_lint.sources.lintable import document_kind

    assert document_kind("/a/notes.txt", b'{"case_id": "c", "surface": "x"}') is None
    assert document_kind("/a/rules.toml", b'[lane]\nname = "x"\n') is None
    assert document_kind("/a/package.json", b'{"name": "x"}') is None
    assert document_kind("/a/r.json", b'{"lane": "x", "metrics": {}, "cases": []}') == "report"
    assert document_kind("/a/t.jsonl", b'{"case_id": "c", "surface": "x"}') == "turns"
    assert document_kind("/a/t.ndjson", b'{"turn": 1, "vault_hits": 0}') == "telemetry"
    assert document_kind("untitled:Untitled-1", b'{"id": "c1"}', "jsonl") == "cases"
    assert document_kind("untitled:Untitled-1", b'{"id": "c1"}', "plaintext") is None
