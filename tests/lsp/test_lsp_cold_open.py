"""A cold open's diagnostics are exactly the CLI's findings for the same file.

The editor checks a turn JSONL line by line (a cold open in `Engine.check_lines` reads, a
keystroke in `Engine.check_line`); the CLI streams the whole file. A generated transcript with
findings on many lines (escapes, emoji, priming, unknown ids, suppressions, bad lines, CRLFs, a
BOM, NULs) must give the same findings both ways, at the same positions in UTF-16.
"""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

from lsp_support import RecordingClient, no_server_errors, open_file, published, start
from lsprotocol import types

from surface_lint.lsp.documents import Snapshot, TextDoc
from surface_lint.lsp.workspace import ServerState

LANE = "deterministic_fluency"
WORDS = ["tide", "lamp", "harbor", "river", "caf\u00e9", "stone"]
SURFACES = [
    "A {w} is what the pack says it is. pack-grounded (en_core_nature_v1).",
    "The {w} rises \u2014 and then it falls.",
    "\U0001f30a A {w} moves with the moon.",
    "A {w} has a \"shape\" and a\tpurpose.",
    "{w} flows valley",  # complete_punctuation
    "A {w} is ... here.",  # no_placeholder
    "A {w} is <pending> still.",
    "\U0001f30a {w} \u2014 caf\u00e9 ... \U0001f30a",
]
# (every n-th line, the line): lines that are not plain turns, the reader's and the join's cases.
ODD_LINES = [
    (97, '{"case_id": "c001", "surface": "broken",'),
    (89, "[1, 2]"),
    (113, '{"case_id": "c003", "surface": 7}'),
    (131, ""),
    (151, '{"case_id": "c004", "surface": "x flows valley", "surface_lint": {"disable": ["SL103"]}}'),
    (173, '{"case_id": "c005", "surface": "lone \\ud800 half."}'),
    (199, '\ufeff{"case_id": "c006", "surface": "after a BOM char"}'),
    (211, '\x00{\x00"\x00a\x00"\x00:\x001\x00}'),  # NULs in every other byte: UTF-16 at a file's start
    (223, '{"surface": "no case id here"}'),
    (227, '{"case_id": "c007", "role": "prompt"}'),
]


def generate(folder: Path, lines: int, seed: int) -> Path:
    """A case file and a transcript of `lines` lines joined to it (written by this test alone)."""
    rng = random.Random(seed)
    cases = folder / "evals" / LANE / "dev" / "cases.jsonl"
    cases.parent.mkdir(parents=True)
    cases.write_text("".join(json.dumps({"id": f"c{i:03d}", "prompt": "What is it?", "category": "pack_definition",
                                         "expected_predicates": ["no_placeholder", "complete_punctuation"]}) + "\n"
                             for i in range(40)), encoding="utf-8")
    rows = []
    for n in range(1, lines + 1):
        odd = next((text for every, text in ODD_LINES if n % every == 0), None)
        if odd is not None:
            rows.append(odd)
            continue
        case = f"c{rng.randrange(40):03d}" if rng.random() < 0.9 else f"unknown_{rng.randrange(5)}"
        surface = rng.choice(SURFACES).format(w=rng.choice(WORDS))
        row = json.dumps({"case_id": case, "turn_index": n, "role": "priming" if rng.random() < 0.05 else "prompt",
                          "surface": surface, "grounding_source": rng.choice(["pack", "teaching", "oov"])},
                         ensure_ascii=rng.random() < 0.4)
        rows.append(row)
    text = "\ufeff" + "".join(row + ("\r\n" if n % 50 == 0 else "\n") for n, row in enumerate(rows, 1))
    path = folder / f"{LANE}_generated_transcript.jsonl"
    path.write_bytes(text.encode("utf-8"))
    return path


def _utf16(s: str) -> int:
    return len(s.encode("utf-16-le")) // 2


def _point(lines: list[str], line: int, column: int) -> tuple[int, int]:
    """A CLI line:column (1-based, code points, after line 1's BOM) as an LSP UTF-16 position."""
    text = lines[line - 1]
    bom = 1 if line == 1 and text.startswith("\ufeff") else 0
    return line - 1, bom + _utf16(text[bom : bom + column - 1])


def _range(lines: list[str], item: dict[str, Any]) -> tuple[int, int, int, int]:
    return (*_point(lines, item["line"], item["column"]), *_point(lines, item["end_line"], item["end_column"]))


LSP_SEVERITY = {"error": 1, "warning": 2, "information": 3, "hint": 4}  # the LSP spec's numbers


def cli_expected(path: Path, text: str) -> list[tuple[Any, ...]]:
    """The CLI's findings for `path` as the (range, severity, code, message, fixes) a client sees."""
    cases = path.parent / "evals" / LANE / "dev" / "cases.jsonl"
    run = subprocess.run([sys.executable, "-m", "surface_lint", "check", str(path), "--cases", str(cases),
                          "--output-format", "json"], capture_output=True, text=True, check=False)
    assert run.returncode == 1, run.stderr
    lines = text.split("\n")
    lines = [line[:-1] if line.endswith("\r") else line for line in lines]
    out = []
    for f in json.loads(run.stdout)["findings"]:
        fixes = tuple((_range(lines, x), x["replacement"]) for x in f.get("fixes", []))
        out.append((_range(lines, f), LSP_SEVERITY[f["severity"]], f["code"], f["message"], fixes))
    return sorted(out)


def _seen(diagnostics: list[types.Diagnostic]) -> list[tuple[Any, ...]]:
    out = []
    for d in diagnostics:
        r = d.range
        data = d.data if isinstance(d.data, dict) else {}
        fixes = tuple(((x["range"]["start"]["line"], x["range"]["start"]["character"], x["range"]["end"]["line"],
                        x["range"]["end"]["character"]), x["newText"]) for x in data.get("fixes", []))
        out.append(((r.start.line, r.start.character, r.end.line, r.end.character), int(d.severity or 0), d.code,
                    d.message, fixes))
    return sorted(out)


async def test_a_cold_open_publishes_exactly_the_cli_findings(client: RecordingClient, tmp_path: Path) -> None:
    path = generate(tmp_path, 3000, 10)
    text = path.read_bytes().decode("utf-8")
    expected = cli_expected(path, text)
    codes = {e[2] for e in expected}
    # The generated file exercises what it is meant to (so the comparison is not vacuous).
    assert {"SL001", "SL003", "SL009", "SL015", "SL101", "SL103"} <= codes, codes
    assert len(expected) > 600 and len({e[0][0] for e in expected}) > 500
    await start(client, tmp_path)
    uri = open_file(client, path, text)
    # A feature request waits for the complete lint; its publish was written before the reply.
    await client.text_document_document_symbol_async(types.DocumentSymbolParams(types.TextDocumentIdentifier(uri)))
    assert _seen(await published(client, uri, 1)) == expected
    no_server_errors(client)


def test_an_edit_after_a_cold_open_gives_what_a_cold_open_of_the_edited_text_gives(tmp_path: Path) -> None:
    """The lines checked together at open (`check_lines`) and one re-checked alone (`check_line`)
    give the same findings: remove each odd line's text and put it back, and lint the document
    cold after every edit."""
    path = generate(tmp_path, 700, 3)
    text = path.read_bytes().decode("utf-8")
    state = ServerState()
    state.roots = [tmp_path]
    doc = TextDoc(path.as_uri(), text, 1)
    state.docs[doc.uri] = doc
    first = state.lint(Snapshot.of(doc))
    assert len(first.findings) > 100
    for number in [2, 3, 97, 211, 223, 227, 400]:
        original = doc.lines[number - 1]
        for new in ['{"case_id": "c002", "surface": "edited flows valley"}', original]:
            doc.lines[number - 1] = new
            doc.version = (doc.version or 0) + 1
            warm = state.lint(Snapshot.of(doc))
            assert warm.rechecked <= 1
            cold_state = ServerState()
            cold_state.roots = [tmp_path]
            cold_doc = TextDoc(doc.uri, "\n".join(doc.lines), doc.version)
            cold_state.docs[doc.uri] = cold_doc
            cold = cold_state.lint(Snapshot.of(cold_doc))
            assert [_key(f) for f in warm.findings] == [_key(f) for f in cold.findings], number
            assert warm.records == cold.records
    assert [_key(f) for f in state.lint(Snapshot.of(doc)).findings] == [_key(f) for f in first.findings]


def _key(f: Any) -> tuple[Any, ...]:
    # record_index counts records from the start of the read: one line alone is record 0.
    return (f.location, f.code, f.rule, f.severity, f.message, f.record_id, f.related, f.fixes)
