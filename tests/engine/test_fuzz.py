"""Fuzz campaign (issue 8, item 6): hypothesis-generated documents against the readers.

Documents are built from random JSON values and turn-, case- and report-shaped records,
serialised with random escapes, then damaged: line separators (U+2028, U+2029, U+0085, bare
CR) inside strings and between tokens, unpaired surrogate escapes, raw control characters,
truncations, garbage lines, blank lines, CRLF, byte-order marks, invalid UTF-8, UTF-16 with
and without a byte-order mark, lines over the size limit.

Invariants, on every document:
* nothing raises (check with and without `--kind`, scoring);
* JSONL: lines = records + errors + blank + skipped, and `lines` is the document's count of
  `\\n`-separated lines (nothing lost, nothing split at another separator);
* every position (finding, related location, fix, record) lies inside its line;
* `check` of a turn document equals the editor's line-by-line re-lint (`lsp.lint.lint_lines`).

Derandomised (`derandomize=True`): the same examples on every run and machine. 10,400
examples in all, about a minute on a 2-core machine.
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Iterable
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from surface_lint.config import Config
from surface_lint.engine import DocResult, Engine, UsageError
from surface_lint.findings import Finding, Location
from surface_lint.lsp.documents import Snapshot
from surface_lint.lsp.lint import DocMemo, lint_lines
from surface_lint.sources.base import ReadStats
from surface_lint.sources.transcripts import sniff

P = "/fuzz/doc.jsonl"
_LONE = re.compile("[\ud800-\udfff]")
LIMIT = 600  # max-line-bytes of the fuzz engine: some generated lines are longer
ENGINE = Engine(Config(max_line_bytes=LIMIT))
LANES = ("deterministic_fluency", "multi_sentence_response", "symbolic_logic")
LINE_LANES = ("deterministic_fluency", "multi_sentence_response")  # the editor re-lints these line by line


def _settings(examples: int) -> settings:
    return settings(max_examples=examples, derandomize=True, deadline=None, database=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                           HealthCheck.filter_too_much])


# --- strategies -----------------------------------------------------------------------------

SEPARATORS = ["\u2028", "\u2029", "\u0085", "\r", "\x0b", "\x0c", "\x1c", "\x1d", "\x1e", "\t"]
SURFACES = [
    "Truth is real.", "It is ... fine.", "lamp — pack-grounded (en_core_objects_v1): object.light; home.fixture;"
    " craft.tool. No session evidence yet.", "river flows valley", "Truth is what is real. Light reveals it because"
    " it shines.", "<pending>", "", " ", "Is it?", "a.b; c.d; e.f", "truth \U0001f600 is.",
]
KEYS = ["case_id", "surface", "role", "scored", "grounding_source", "prompt", "vault_hits", "trace_hash", "chain",
        "turn_index", "pack_mutation_proposal", "id", "expected_predicates", "priming_prompts", "min_vault_hits",
        "expected_proposals", "premises", "probe", "lane", "metrics", "cases", "case_details", "turn", "type",
        "surface_lint", "subject_lemma", "expects_connective", "run", "replay_run"]

texts = st.one_of(
    st.sampled_from(SURFACES),
    st.text(max_size=12),
    st.lists(st.sampled_from([*SURFACES, *SEPARATORS, "\ud83d", "\ude00", "\\", '"', "...", "é"]), max_size=6)
    .map("".join),
)
scalars = st.one_of(st.none(), st.booleans(), st.integers(-3, 3), st.integers(), st.floats(), texts)
values = st.recursive(scalars, lambda inner: st.one_of(st.lists(inner, max_size=3),
                                                       st.dictionaries(texts, inner, max_size=3)), max_leaves=8)
keys = st.one_of(st.sampled_from(KEYS), texts)
ids = st.sampled_from(["c1", "c2", "c3", "", "c\ud83d"])


@st.composite
def records(draw: st.DrawFn) -> dict[str, Any]:
    shape = draw(st.sampled_from(["turn", "case", "report", "random", "telemetry"]))
    obj: dict[str, Any] = {}
    if shape == "turn":
        obj = {"case_id": draw(ids), "surface": draw(texts)}
        if draw(st.booleans()):
            obj["role"] = draw(st.sampled_from(["prompt", "priming", "probe", "premise", 3]))
        if draw(st.booleans()):
            obj["grounding_source"] = draw(st.sampled_from(["pack", "teaching", "oov", None, "vault"]))
    elif shape == "case":
        obj = {"id": draw(ids), "prompt": draw(texts), "expected_predicates": draw(
            st.lists(st.sampled_from(["no_placeholder", "complete_punctuation", "nope"]), max_size=2))}
    elif shape == "report":
        obj = {"lane": draw(st.sampled_from(LANES)), "metrics": {"m": draw(scalars)},
               "cases": [{"case_id": draw(ids), "surface": draw(texts)}]}
    elif shape == "telemetry":
        obj = {"turn": draw(st.integers(0, 5)), "walk_surface": draw(texts)}
        if draw(st.booleans()):
            obj["surface"] = draw(texts)
    for key, value in draw(st.dictionaries(keys, values, max_size=3)).items():
        obj[key] = value
    return obj


def _escape_some(text: str, rng: random.Random) -> str:
    """Re-spell about one in ten characters inside the strings of a JSON text as `\\uXXXX`."""
    out = []
    in_string = escaped = False
    for ch in text:
        if in_string and not escaped and ch not in '"\\' and rng.random() < 0.1:
            out.append(f"\\u{ord(ch):04x}")
            continue
        out.append(ch)
        if escaped:
            escaped = False
        elif ch == "\\":
            escaped = in_string
        elif ch == '"':
            in_string = not in_string
    return "".join(out)


@st.composite
def lines(draw: st.DrawFn) -> str:
    kind = draw(st.sampled_from(["record"] * 6 + ["blank", "garbage", "value", "long"]))
    if kind == "blank":
        return draw(st.sampled_from(["", " ", "\t", "  \r"]))
    if kind == "garbage":
        return draw(st.sampled_from(["garbage", "{", "}", "[1, 2]", '"s"', "nul", "{\"a\": }", "[" * 1200]))
    if kind == "value":
        return json.dumps(draw(values), ensure_ascii=draw(st.booleans()))
    obj = draw(records())
    if kind == "long":
        obj["surface"] = "It is. " * 120
    separators = draw(st.sampled_from([(", ", ": "), (",", ":"), (",\r", ":\u2028"[0] + " "), (" ,\t", " : ")]))
    text = json.dumps(obj, ensure_ascii=draw(st.booleans()), separators=separators)
    rng = draw(st.randoms(use_true_random=False))
    if rng.random() < 0.25:
        text = _escape_some(text, rng)
    damage = draw(st.sampled_from(["none"] * 6 + ["truncate", "insert", "drop"]))
    if damage != "none" and text:
        at = rng.randrange(len(text))
        if damage == "truncate":
            text = text[:at]
        elif damage == "insert":
            text = text[:at] + draw(st.sampled_from([*SEPARATORS, "\\ud83d", '"', "\\", ",", "NaN", "\x00"])) + text[at:]
        else:
            text = text[:at] + text[at + 1:]
    return text


@st.composite
def documents(draw: st.DrawFn) -> tuple[bytes, str | None, str]:
    """(the file's bytes, its text as an editor shows it (None: it has none), the text its
    positions count in)."""
    body = draw(st.lists(lines(), min_size=0, max_size=8))
    ending = draw(st.sampled_from(["\n", "\n", "\r\n"]))
    text = ending.join(body) + (ending if draw(st.booleans()) else "")
    encoding = draw(st.sampled_from(["utf-8"] * 8 + ["utf-8-bom", "utf-16-bom", "utf-16-nobom", "bad-byte"]))
    if _LONE.search(text):  # raw (not escaped) half characters: bytes no editor shows as they are
        data = text.encode("utf-16-le" if encoding == "utf-16-bom" else "utf-8", "surrogatepass")
        return (b"\xff\xfe" + data if encoding == "utf-16-bom" else data), None, text
    if encoding == "utf-8":
        return text.encode("utf-8", "surrogatepass"), text, text
    if encoding == "utf-8-bom":
        return b"\xef\xbb\xbf" + text.encode("utf-8", "surrogatepass"), text, text
    if encoding == "utf-16-bom":
        return b"\xff\xfe" + text.encode("utf-16-le", "surrogatepass"), text, text
    if encoding == "utf-16-nobom":
        return text.encode("utf-16-le", "surrogatepass"), None, text
    data = bytearray(text.encode("utf-8", "surrogatepass"))
    data.insert(draw(st.integers(0, len(data))), draw(st.sampled_from([0xFF, 0xC3, 0x80, 0xED])))
    return bytes(data), None, bytes(data).decode("utf-8", "replace")


@st.composite
def reports(draw: st.DrawFn) -> bytes:
    """Whole lane-report documents, compact or pretty-printed, some damaged."""
    cases = draw(st.lists(records(), max_size=4))
    obj: dict[str, Any] = {"lane": draw(st.sampled_from(LANES)), "version": "v1",
                           "metrics": draw(st.dictionaries(texts, scalars, max_size=3)),
                           draw(st.sampled_from(["cases", "case_details"])): cases}
    text = json.dumps(obj, ensure_ascii=draw(st.booleans()), indent=draw(st.sampled_from([None, 2, 0])))
    rng = draw(st.randoms(use_true_random=False))
    if rng.random() < 0.25:
        text = _escape_some(text, rng)
    if rng.random() < 0.2 and text:
        at = rng.randrange(len(text))
        text = text[:at] + draw(st.sampled_from(["", "}", "\u2028", "\\ud800", "NaN", ","])) + text[at + 1:]
    return text.encode("utf-8", "surrogatepass")


# --- invariants -----------------------------------------------------------------------------

def _source_lines(text: str) -> list[str]:
    """The document's lines as positions count them: split at `\\n` only, without a final `\\r`."""
    return [p[:-1] if p.endswith("\r") else p for p in text.split("\n")]


def _line_count(text: str) -> int:
    """Lines a reader reads: every `\\n` ends one, and text after the last one is one more."""
    return text.count("\n") + (0 if text.endswith("\n") or not text else 1)


def _locations(result: DocResult) -> Iterable[Location]:
    for f in result.findings:
        yield f.location
        yield from (r.location for r in f.related)
        yield from (x.location for x in f.fixes)
    for r in result.records:
        yield r.location
        yield from (loc for loc in (r.id_location, r.surface) if loc is not None)


def _assert_inside(location: Location, text_lines: list[str]) -> None:
    if location.path != P:
        return
    assert 1 <= location.line <= location.end_line <= max(1, len(text_lines)), location
    if location.line == location.end_line:
        assert location.column <= location.end_column, location
    first = text_lines[location.line - 1] if text_lines else ""
    last = text_lines[location.end_line - 1] if text_lines else ""
    assert 1 <= location.column <= len(first) + 1, (location, first)
    assert 1 <= location.end_column <= len(last) + 1, (location, last)


def _assert_counts(stats: ReadStats) -> None:
    assert stats.lines == stats.records + stats.errors + stats.blank + stats.skipped, stats


def _check_document(data: bytes, source: str, lane: str) -> None:
    text_lines = _source_lines(source)
    # Detected, then read as each JSONL kind; one lane per example (hypothesis picks it).
    for kind, lane_name in ((None, None), (None, lane), ("turns", lane), ("cases", lane), ("telemetry", lane)):
        result = ENGINE.check_bytes(P, data, kind, lane_name, None, siblings=False)
        if result.kind in ("turns", "telemetry", "cases"):
            _assert_counts(result.stats)
            assert result.stats.lines == _line_count(source), result.stats
        for location in _locations(result):
            _assert_inside(location, text_lines)
        for f in result.findings:
            f.message.encode("utf-8")  # every message can be written out
            if f.record_id is not None:
                f.record_id.encode("utf-8")


def _key(f: Finding) -> tuple[Any, ...]:
    return (f.location, f.code, f.severity, f.message, f.record_id, f.related, f.fixes)


def _assert_editor_agrees(data: bytes, text: str, lane_name: str, known_divergence: bool = True) -> None:
    lane = ENGINE.lane(lane_name)
    whole = ENGINE.check_bytes(P, data, "turns", lane_name, None, siblings=False)
    snap = Snapshot("file://" + P, P, 0, tuple(text.split("\n")))
    editor, _ = lint_lines(ENGINE, snap, lane, "turns", None, DocMemo(), None, None)
    # The editor is handed decoded text without its byte-order mark (VS Code strips it): the
    # file's encoding and BOM notices are the one difference.
    expected = [f for f in whole.findings if not (f.code == "SL009" and "byte-order mark" in f.message)]
    if known_divergence and any(_at_crlf_boundary(line) for line in snap.lines):  # the known lsp divergence (see below)
        editor = [f for f in editor if not f.message.startswith("CRLF line endings")]
        expected = [f for f in expected if not f.message.startswith("CRLF line endings")]
    assert sorted(map(_key, editor), key=repr) == sorted(map(_key, expected), key=repr)


def _at_crlf_boundary(line: str) -> bool:
    """A CRLF line of exactly max-line-bytes: the reader reads it and counts its CRLF; the
    editor (lsp/lint.py) counts CRLF only on lines of at most max-line-bytes - 1."""
    return line.endswith("\r") and len(line[:-1].encode("utf-8", "surrogatepass")) == LIMIT


@pytest.mark.xfail(strict=True, reason="lsp/lint.py counts CRLF only on lines of at most max-line-bytes - 1 "
                   "bytes (`+ 1 <= limit`); the reader's limit excludes the line ending (notes/read.md)")
def test_a_crlf_line_of_exactly_the_limit_counts_the_same_in_the_editor() -> None:
    line = '{"case_id": "c1", "surface": "' + "a" * (LIMIT - 33) + '."}'
    assert len(line.encode()) == LIMIT
    text = line + "\r\n" + line + "\r\n"
    _assert_editor_agrees(text.encode(), text, "deterministic_fluency", known_divergence=False)


@_settings(300)
@given(documents(), st.sampled_from(LANES))
def test_fuzz_jsonl_documents_read_every_line_and_position_inside_it(doc: tuple[bytes, str | None, str],
                                                                     lane: str) -> None:
    data, _, source = doc
    _check_document(data, source, lane)
    try:
        result = ENGINE.score(lane, [], [P], texts={P: data})
    except UsageError as exc:  # exit 2 with a message: the file is a case file, not a transcript
        assert str(exc) == f"{P}: this is a case file; pass it with --cases"
        return
    if sniff(data)[0] != "report":
        _assert_counts(result.stats)
        assert result.stats.lines == _line_count(source), result.stats


@_settings(300)
@given(documents(), st.sampled_from(LINE_LANES))
def test_fuzz_check_equals_the_editors_line_by_line_path(doc: tuple[bytes, str | None, str], lane: str) -> None:
    data, text, _ = doc
    if text is None:  # no text an editor would show (invalid UTF-8, UTF-16 without a mark)
        return
    _assert_editor_agrees(data, text, lane)


@_settings(200)
@given(reports(), st.sampled_from(LANES))
def test_fuzz_report_documents(data: bytes, any_lane: str) -> None:
    text_lines = _source_lines(data.decode("utf-8", "surrogatepass"))
    for lane in (None, any_lane):
        result = ENGINE.check_bytes("/fuzz/r.json", data, None, lane, None)
        assert result.kind in ("report", "turns", "cases", "telemetry")
        for location in _locations(result):
            if location.path == "/fuzz/r.json":
                _assert_inside(Location(P, location.line, location.column, location.end_line, location.end_column),
                               text_lines)
        ENGINE.score(lane, [], ["/fuzz/r.json"], texts={"/fuzz/r.json": data})
