"""The default `surfaceLint.include` (the files VS Code sends the server) covers the run files
users have: the runtime's layout (`captures/`, `telemetry/`, `reports/`, `committed/results/`,
`cases/`), `transcripts/` and `runs/` folders, and every run folder the review features read.
JSON outside lane reports is skipped by content, so the report globs can be broad."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from lsp_support import FIXTURES, RecordingClient, no_server_errors, open_file, published, start

from surface_lint.engine.review import DEFAULT_TRANSCRIPT_GLOBS, glob_pattern
from surface_lint.sources.lintable import HEAD_BYTES, document_kind

# The list itself is asserted in vscode-extension/test/unit/settings.test.ts (with settings.ts and activationEvents).
PACKAGE_JSON = Path(__file__).resolve().parents[2] / "vscode-extension" / "package.json"
PROPERTIES = json.loads(PACKAGE_JSON.read_text(encoding="utf-8"))["contributes"]["configuration"]["properties"]
INCLUDE = PROPERTIES["surfaceLint.include"]["default"]
PATTERNS = [glob_pattern(g) for g in INCLUDE]
RUN_B = FIXTURES.parent / "review" / "workspace" / "transcripts" / "run_b.jsonl"


def included(rel: str) -> bool:
    return any(p.match(rel) for p in PATTERNS)


def test_every_run_the_review_reads_is_also_linted() -> None:
    # A run outside the include is not synced: its unsaved edits would never reach the server.
    assert [g for g in DEFAULT_TRANSCRIPT_GLOBS if g not in INCLUDE] == []


@pytest.mark.parametrize("rel", [
    "transcripts/run_b.jsonl", "lane/transcripts/2026/a.jsonl", "runs/run_c.jsonl", "fluency_transcript.jsonl",
    "symbolic_logic/captures/dev.jsonl", "runtime/captures/symbolic_logic_dev.jsonl",
    "runtime/telemetry/symbolic_logic_dev.jsonl", "runtime/reports/symbolic_logic_dev.json",
    "lanes/calibration/reports/public_v1.json", "lanes/calibration/committed/results/v1_public_20260516T191922Z.json",
    "lanes/calibration/committed/baselines/v1_structural_zero.json", "evals/fluency/results/r.json",
    "evals/fluency/public/v1/cases.jsonl", "cases/symbolic_logic/holdouts/v1/cases_plaintext.jsonl",
    "lanes/fabrication_control/cases/cases/public.jsonl", "lanes/calibration/cases/dev/cases.jsonl", "x.surface.jsonl",
])
def test_run_and_case_files_are_included(rel: str) -> None:
    assert included(rel)


@pytest.mark.parametrize("rel", ["package.json", "tsconfig.json", "data/train.jsonl", "notes/readme.jsonl",
                                 "reports.json", "captures.jsonl"])
def test_other_files_are_not(rel: str) -> None:
    assert not included(rel)


def test_every_file_of_the_real_corpus_the_server_reads_is_included(corpus: Path) -> None:
    missed = []
    for path in sorted(corpus.rglob("*")):
        if not path.is_file():
            continue
        with path.open("rb") as handle:
            kind = document_kind(str(path), handle.read(HEAD_BYTES))
        rel = path.relative_to(corpus).as_posix()
        if kind is not None and not included(rel):
            missed.append(rel)
    # The corpus's own oracle data and one runner-verdict fallback file: not run files of a lane layout.
    assert missed == ["lanes/fabrication_control/fallback/holdouts_v1.runner_verdicts_on_committed_surfaces.jsonl",
                      "surfaces/oracle.jsonl", "surfaces/records.jsonl"]


async def test_a_run_in_a_transcripts_folder_gets_its_squiggles(client: RecordingClient, tmp_path: Path) -> None:
    root = tmp_path / "ws"
    (root / "transcripts").mkdir(parents=True)
    shutil.copy(RUN_B, root / "transcripts" / "run_b.jsonl")
    (root / "reports").mkdir()
    (root / "reports" / "coverage.json").write_text('{"name": "coverage", "totals": {"lines": 10}}\n', encoding="utf-8")
    await start(client, root)
    uri = open_file(client, root / "transcripts" / "run_b.jsonl")
    found = [(d.code, d.range.start.line, d.range.start.character, d.range.end.character)
             for d in await published(client, uri, 1)]
    # UTF-16 columns: the 💡 before `<pending>` is two units; `\"` at the end is two source characters.
    assert found == [("SL101", 1, 116, 125), ("SL101", 1, 131, 134), ("SL104", 2, 105, 136), ("SL103", 2, 134, 136)]
    # A JSON file in a reports folder that is not a lane report: read as nothing, no squiggles.
    other = open_file(client, root / "reports" / "coverage.json", language="json")
    assert list(await published(client, other, 1)) == []
    no_server_errors(client)

