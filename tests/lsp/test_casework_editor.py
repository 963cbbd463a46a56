"""Case-driven (`[casework]`) lanes in the editor, on the real corpus (read in place): case
lenses, the review view and the lane score say what `surface-lint --lane` and `check --cases`
say on the same files (the expected values below are those commands' output, run by hand)."""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

from lsp_support import RecordingClient, no_server_errors, open_file, published, start
from lsprotocol import types

# The corpus as tests/conftest.py finds it: SURFACE_LINT_CORPUS, else ../shared/corpus.
CORPUS = Path(os.environ.get("SURFACE_LINT_CORPUS") or Path(__file__).resolve().parents[2].parent / "shared" / "corpus")
CALIBRATION = CORPUS / "lanes" / "calibration"
COMPOSITIONALITY = CORPUS / "lanes" / "compositionality"


def _doc(uri: str) -> types.TextDocumentIdentifier:
    return types.TextDocumentIdentifier(uri=uri)


async def _verdict_lenses(client: RecordingClient, uri: str) -> list[tuple[int, str, Any]]:
    """(line, title, tooltip) of each case's verdict lens (its surface lens left out)."""
    lenses = await client.text_document_code_lens_async(types.CodeLensParams(_doc(uri)))
    out = []
    for lens in lenses or []:
        assert lens.command is not None
        if not lens.command.title.startswith("surface: "):
            out.append((lens.range.start.line, lens.command.title, lens.command.tooltip))
    return out


def _header(html: str) -> list[str]:
    return re.findall(r"\d+ turn\(s\), \d+ scored, \d+ failing · \d+ shown", html)


CAL_010 = ('`passed` is false: inferred_class == case.expected_class (inferred_class = "coherent", '
           'case.expected_class = "correction_proposed")')


async def test_calibration_dev_lenses_review_and_score(client: RecordingClient) -> None:
    """`--lane calibration` on dev: 12 cases, CAL-DEV-010 fails (correction_proposed_accuracy
    0.75, overall_accuracy 0.9167, FAIL); `check --cases` gives it one SL018 at dev.jsonl:19:13
    with CAL_010's message."""
    await start(client, CALIBRATION)
    client.protocol.notify("surfaceLint/reviewSettings", {"transcripts": ["captures/dev.jsonl"]})
    cases = open_file(client, CALIBRATION / "cases" / "dev" / "cases.jsonl")
    await published(client, cases, 1)
    lenses = await _verdict_lenses(client, cases)
    assert [(line, title) for line, title, _ in lenses if not title.startswith("✓")] == [
        (9, f"✗ fail in dev.jsonl:20 · ✗ case-check-failed: {CAL_010}")]
    assert lenses[9][2] == f"✗ case-check-failed (SL018, warning): {CAL_010}"
    assert [title for _, title, _ in lenses[:2]] == ["✓ pass in dev.jsonl:1", "✓ pass in dev.jsonl:2"]
    assert sum(1 for _, title, _ in lenses if title.startswith("✓ pass in dev.jsonl:")) == 11

    run = (CALIBRATION / "captures" / "dev.jsonl").as_uri()
    review = await client.protocol.send_request_async("surfaceLint/review", {"uri": run})
    assert (review.counts.turns, review.counts.scored, review.counts.shown) == (24, 12, 24)
    assert [(p.name, p.code, p.failing) for p in review.predicates] == [
        ("case-check-failed", "SL018", 1), ("expression-failed", "SL019", 0), ("expression-budget", "SL020", 0)]
    assert [(t.caseId, t.line, t.failed) for t in review.turns if t.status == "fail"] == [
        ("CAL-DEV-010", 19, ["case-check-failed"])]
    assert _header(review.html) == ["24 turn(s), 12 scored, 1 failing · 24 shown"]
    failing = await client.protocol.send_request_async("surfaceLint/review", {"uri": run, "failingOnly": True})
    assert [t.caseId for t in failing.turns] == ["CAL-DEV-010"]

    open_file(client, CALIBRATION / "captures" / "dev.jsonl")
    await published(client, run, 1)
    assert [(d.range.start.line, d.range.start.character, d.code, d.message) for d in client.diagnostics[run]] == [
        (18, 12, "SL018", CAL_010)]
    score = await client.protocol.send_request_async("surfaceLint/laneScore", {"uri": run})
    assert (score.lane, score.headline.name, score.headline.value, score.passed) == (
        "calibration", "overall_accuracy", 0.9167, False)
    assert "| `correction_proposed_accuracy` | 0.7500 | >= 0.8 | ✗ |" in score.markdown.split("\n")
    no_server_errors(client)


async def test_compositionality_dev_lenses_and_review(client: RecordingClient) -> None:
    """`--lane compositionality` on dev: 3 cases, 2 failing (all_pass_rate 0.3333); `check
    --cases` gives each an SL018 (premises_stored_pass) and an SLC901 (entailment_token)."""
    await start(client, COMPOSITIONALITY)
    client.protocol.notify("surfaceLint/reviewSettings", {"transcripts": ["captures/dev.jsonl"]})
    cases = open_file(client, COMPOSITIONALITY / "cases" / "dev" / "cases.jsonl")
    await published(client, cases, 1)
    assert [(line, title) for line, title, _ in await _verdict_lenses(client, cases)] == [
        (0, "✗ fail in dev.jsonl:5 · ✗ entailment_token: none of the expected tokens (decision) is in the answer · "
            "✗ case-check-failed: `premises_stored_pass` is false: proposals >= expected_proposals "
            "(expected_proposals = 2, proposals = 0)"),
        (1, "✗ fail in dev.jsonl:15 · ✗ entailment_token: none of the expected tokens (clarity, knowledge) is in the "
            "answer · ✗ case-check-failed: `premises_stored_pass` is false: proposals >= expected_proposals "
            "(expected_proposals = 2, proposals = 1)"),
        (2, "✓ pass in dev.jsonl:25"),
    ]
    run = (COMPOSITIONALITY / "captures" / "dev.jsonl").as_uri()
    review = await client.protocol.send_request_async("surfaceLint/review", {"uri": run})
    assert [(p.name, p.code, p.failing) for p in review.predicates] == [
        ("entailment_token", "SLC901", 2), ("case-check-failed", "SL018", 2), ("expression-failed", "SL019", 0),
        ("expression-budget", "SL020", 0)]
    assert [(t.caseId, t.status) for t in review.turns if t.status != "context"] == [
        ("CMP-DEV-001", "fail"), ("CMP-DEV-002", "fail"), ("CMP-DEV-003", "pass")]
    assert _header(review.html) == ["30 turn(s), 3 scored, 2 failing · 30 shown"]
    open_file(client, COMPOSITIONALITY / "captures" / "dev.jsonl")
    await published(client, run, 1)
    score = await client.protocol.send_request_async("surfaceLint/laneScore", {"uri": run})
    assert (score.headline.name, score.headline.value, score.passed) == ("all_pass_rate", 0.3333, False)
    no_server_errors(client)


async def test_lane_score_joins_the_cases_of_the_runtime_layout(client: RecordingClient) -> None:
    """`--lane multi_sentence_response --cases cases/multi_sentence_response/public/v1/cases.jsonl
    --transcripts runtime/captures/multi_sentence_response_public_v1.jsonl`: connective_present_rate
    0.875. The editor found no case file in this layout (it looked for `evals/<lane>/` only) and
    scored the capture without its cases, where no case expects a connective: 1.0."""
    await start(client, CORPUS)
    uri = open_file(client, CORPUS / "runtime" / "captures" / "multi_sentence_response_public_v1.jsonl")
    await published(client, uri, 1)
    score = await client.protocol.send_request_async("surfaceLint/laneScore", {"uri": uri})
    rows = score.markdown.split("\n")
    assert "| `connective_present_rate` | 0.8750 |  |  |" in rows
    assert "| `non_fragment_rate` | 0.9167 |  |  |" in rows
    assert "| `cases` | 24 |  |  |" in rows
    assert rows[-2] == "24 case(s) scored from `multi_sentence_response_public_v1.jsonl`. 7 case(s) have no transcript here."
    no_server_errors(client)
