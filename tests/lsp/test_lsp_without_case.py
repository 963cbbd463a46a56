"""The editor on a capture file of a case-driven lane whose case files it does not find: the
lane's `without_case` checks (tests/engine/test_check_without_case.py) give the same findings
at the same positions as `check` does on the file, and an edit re-judges the case it touches.
The lane is the case-driven symbolic_logic fixture, given as the workspace's lane file."""

from __future__ import annotations

import json
from pathlib import Path

from lsp_support import RecordingClient, change, no_server_errors, open_file, published, rng, start

LANE_FILE = Path(__file__).resolve().parents[2] / "rules" / "symbolic_logic.toml"


def _turn(case_id: str, chain: int, role: str, hits: int, trace: str) -> str:
    return json.dumps({"case_id": case_id, "chain": chain, "role": role, "surface": "Truth is wisdom.",
                       "vault_hits": hits, "trace_hash": trace, "pack_mutation_proposal": role == "premise"})


# Line 2 (SYM-1's probe): `"vault_hits": 0` has its 0 at character 95, `"h1"` at 112-116.
LINES = [
    _turn("SYM-1", 0, "premise", 0, "p"),
    _turn("SYM-1", 0, "probe", 0, "h1"),
    _turn("SYM-2", 0, "premise", 0, "p"),
    _turn("SYM-2", 0, "probe", 3, "h2"),
    _turn("SYM-2", 1, "premise", 0, "p"),
    _turn("SYM-2", 1, "probe", 3, "h2"),
]


async def test_without_case_checks_show_on_a_capture_file_with_no_cases(client: RecordingClient,
                                                                        tmp_path: Path) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    (root / "symbolic_logic.toml").write_text(LANE_FILE.read_text("utf-8"), "utf-8")
    (root / "surface-lint.toml").write_text('lane-files = ["symbolic_logic.toml"]\ndefault-lane = "symbolic_logic"\n')
    captures = root / "captures.jsonl"
    captures.write_text("".join(line + "\n" for line in LINES), "utf-8")
    assert LINES[1].index('"vault_hits": 0') + len('"vault_hits": ') == 95
    assert LINES[1].index('"h1"') == 112
    await start(client, root)
    uri = open_file(client, captures)
    diagnostics = await published(client, uri, 1)
    assert [(d.range.start.line, d.range.start.character, d.range.end.line, d.range.end.character, d.code,
             d.message) for d in diagnostics] == [
        (1, 95, 1, 96, "SL301", "premise_recall: probe vault_hits 0 < min_vault_hits 1"),
        (1, 112, 1, 116, "SL302", "replay_determinism: no replay run captured (chain 1)"),
    ]
    # SYM-1's probe recalls now: SL301 goes; its replay is still missing.
    change(client, uri, [(rng(1, 95, 1, 96), "4")])
    diagnostics = await published(client, uri, 2)
    assert [(d.range.start.line, d.range.start.character, d.code) for d in diagnostics] == [(1, 112, "SL302")]
    no_server_errors(client)
