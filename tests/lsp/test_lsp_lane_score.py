"""The lane score's lens and Markdown print each metric as the terminal and every report do
(`reporters.common.fmt_value`: four places, `-` for none)."""

from __future__ import annotations

from pathlib import Path

from lsp_support import TRANSCRIPT, RecordingClient, no_server_errors, open_file, published, start
from lsprotocol import types


async def test_lane_score_prints_metrics_as_the_reports_do(client: RecordingClient, workspace: Path) -> None:
    await start(client, workspace)
    uri = open_file(client, workspace / TRANSCRIPT)
    await published(client, uri, 1)
    lenses = await client.text_document_code_lens_async(types.CodeLensParams(types.TextDocumentIdentifier(uri)))
    assert lenses is not None and lenses[0].command is not None
    assert lenses[0].command.title == ("surface-lint · deterministic_fluency: expected_predicates_pass_rate 0.7500 "
                                       "· fails (contract)")
    score = await client.protocol.send_request_async("surfaceLint/laneScore", {"uri": uri})
    assert (score.headline.name, score.headline.value, score.headline.text) == (
        "expected_predicates_pass_rate", 0.75, "0.7500")
    assert score.markdown == (
        "### Lane `deterministic_fluency` fails (profile `contract`, thresholds `v1`)\n"
        "\n"
        "Headline: `expected_predicates_pass_rate` = 0.7500\n"
        "\n"
        "| metric | value | threshold | |\n"
        "|---|---|---|---|\n"
        "| `cases` | 4 |  |  |\n"
        "| `complete_punctuation_rate` | 0.7500 | >= 1 | ✗ |\n"
        "| `expected_predicates_pass_rate` | 0.7500 |  |  |\n"
        "| `finite_predicate_shape_rate` | 1.0000 | >= 0.9 | ✓ |\n"
        "| `no_dotted_inventory_rate` | 1.0000 |  |  |\n"
        "| `no_placeholder_rate` | 0.7500 | >= 1 | ✗ |\n"
        "| `no_provenance_only_rate` | 1.0000 |  |  |\n"
        "| `surface_provenance_match_rate` | 1.0000 |  |  |\n"
        "\n"
        "4 case(s) scored from `deterministic_fluency_transcript.jsonl`. 1 case(s) have no transcript here.\n")
    no_server_errors(client)
