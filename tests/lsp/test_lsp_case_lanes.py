"""The editor on a case-driven lane (grammatical_coverage): a cold open publishes exactly what
`surface-lint check --cases --output-format json` reports, and an edit re-judges the cases
whose lines it touched (all of their lines), giving what a cold open of the edited text gives."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

from lsp_support import RecordingClient, no_server_errors, open_file, published, start
from lsprotocol import types
from test_lsp_cold_open import LSP_SEVERITY, _key, _range, _seen

from surface_lint.lsp.documents import Snapshot, TextDoc
from surface_lint.lsp.workspace import ServerState

LANE = "grammatical_coverage"
TARGET, SERVING = "generate.realizer.realize_target", "generate.realizer.realize_semantic"


def generate(folder: Path, cases: int, seed: int) -> Path:
    """Our own grammar cases and captures: each case's target pass, then (as the runner does) a
    serving pass over every case at the end; surfaces accepted, constrained-good, failing."""
    rng = random.Random(seed)
    case_file = folder / "evals" / LANE / "dev" / "cases.jsonl"
    case_file.parent.mkdir(parents=True)
    rows = []
    for i in range(cases):
        row: dict[str, Any] = {"id": f"g{i:03d}", "construction": f"C{i % 4:02d}",
                               "accept_surfaces": ["River flows valley."]}
        if i % 3:
            row["constraints"] = {"must_contain": ["river", "valley"], "word_order": ["river", "valley"],
                                  "max_words": 4}
        rows.append(json.dumps(row))
    case_file.write_text("".join(r + "\n" for r in rows), encoding="utf-8")
    surfaces = ["River flows valley.", "The river meets a valley.", "Valley and river.",
                "River flows through the wide green valley.", "Stone \u2014 caf\u00e9 \U0001f30a."]

    def turn(case: str, path: str) -> str:
        return json.dumps({"case_id": case, "turn_index": 0, "role": "prompt", "path": path,
                           "surface": rng.choice(surfaces)}, ensure_ascii=rng.random() < 0.5)

    lines = [turn(f"g{i:03d}", TARGET) for i in range(cases)]
    # Line 1 (after a byte-order mark) is a failing case: no constraints and not accepted.
    lines[0] = json.dumps({"case_id": "g000", "turn_index": 0, "role": "prompt", "path": TARGET,
                           "surface": "Valley and river."})
    lines.insert(7, '{"case_id": "g999", "path": "x", "surface": "Nobody asked."}')
    lines.insert(11, '{"case_id": "g001", "surface": ')
    lines += [turn(f"g{i:03d}", SERVING) for i in range(cases)]
    path = folder / f"{LANE}_captures.jsonl"
    path.write_text("\ufeff" + "".join(line + "\n" for line in lines), encoding="utf-8")
    return path


def cli_expected(path: Path) -> list[tuple[Any, ...]]:
    cases = path.parent / "evals" / LANE / "dev" / "cases.jsonl"
    run = subprocess.run([sys.executable, "-m", "surface_lint", "check", str(path), "--cases", str(cases),
                          "--output-format", "json"], capture_output=True, text=True, check=False)
    assert run.returncode == 1, run.stderr  # SL001 is an error
    lines = path.read_text(encoding="utf-8").split("\n")
    return sorted((_range(lines, f), LSP_SEVERITY[f["severity"]], f["code"], f["message"], ()) for f in
                  json.loads(run.stdout)["findings"])


async def test_a_cold_open_of_a_casework_lanes_captures_publishes_the_cli_findings(
        client: RecordingClient, tmp_path: Path) -> None:
    path = generate(tmp_path, 60, 5)
    expected = cli_expected(path)
    codes = {e[2] for e in expected}
    assert {"SL001", "SL009", "SL015", "SLC401", "SLC402", "SLC403", "SLC404"} <= codes, codes
    assert (0, "SLC401") in {(e[0][0], e[2]) for e in expected}  # line 1, after the BOM
    # Serving-pass records (the second half) never carry a finding: they do not decide a case.
    assert max(e[0][0] for e in expected if e[2].startswith("SLC")) < 62
    await start(client, tmp_path)
    uri = open_file(client, path)
    await client.text_document_document_symbol_async(types.DocumentSymbolParams(types.TextDocumentIdentifier(uri)))
    assert _seen(await published(client, uri, 1)) == expected
    no_server_errors(client)


def test_an_edit_re_judges_the_cases_it_touches_as_a_cold_open_would(tmp_path: Path) -> None:
    path = generate(tmp_path, 40, 8)
    state = ServerState()
    state.roots = [tmp_path]
    doc = TextDoc(path.as_uri(), path.read_text(encoding="utf-8"), 1)
    state.docs[doc.uri] = doc
    first = state.lint(Snapshot.of(doc))
    assert any(f.code.startswith("SLC") for f in first.findings)
    memo = state.memos[doc.uri]
    assert memo.cases_checked == 41  # a cold open judges every case id of the document (g999 matches no case)
    target = next(i for i, line in enumerate(doc.lines) if '"g004"' in line)
    for new in [json.dumps({"case_id": "g004", "turn_index": 0, "role": "prompt", "path": TARGET,
                            "surface": "Valley then river, at length."}),
                json.dumps({"case_id": "g004", "turn_index": 0, "role": "prompt", "path": TARGET,
                            "surface": "River flows valley."}),
                "",  # the case's target turn removed: its serving turn alone is no target pass
                doc.lines[target]]:
        doc.lines[target] = new
        doc.version = (doc.version or 0) + 1
        warm = state.lint(Snapshot.of(doc))
        cold_state = ServerState()
        cold_state.roots = [tmp_path]
        cold_doc = TextDoc(doc.uri, "\n".join(doc.lines), doc.version)
        cold_state.docs[doc.uri] = cold_doc
        cold = cold_state.lint(Snapshot.of(cold_doc))
        assert [_key(f) for f in warm.findings] == [_key(f) for f in cold.findings], new
        assert memo.cases_checked == 1  # the edited case only: the others come from the memo
    assert [_key(f) for f in state.lint(Snapshot.of(doc)).findings] == [_key(f) for f in first.findings]
