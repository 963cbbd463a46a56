"""A real editor: headless Neovim starts the server, opens a case file and a transcript,
and the diagnostics it holds are checked (count, line, column, code).

Neovim 0.7 speaks UTF-16 to the server and stores byte columns: the transcript's SL103
lands on byte 147 of line 2 only if the server's UTF-16 columns were right.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from lsp_support import DEV_CASES, TRANSCRIPT

NVIM = shutil.which("nvim")
SCRIPT = Path(__file__).with_name("nvim_diagnostics.lua")


@pytest.mark.skipif(NVIM is None, reason="Neovim (`nvim`) is not installed: apt-get install neovim")
def test_neovim_holds_the_servers_diagnostics(workspace: Path, tmp_path: Path) -> None:
    assert NVIM is not None
    out = tmp_path / "diagnostics.json"
    cases, transcript = workspace / DEV_CASES, workspace / TRANSCRIPT
    env = {**os.environ, "SL_PYTHON": sys.executable, "SL_ROOT": str(workspace), "SL_OUT": str(out),
           "SL_FILES": f"{cases};{transcript}", "SL_HOVER_COL": "120", "HOME": str(tmp_path)}
    subprocess.run([NVIM, "--headless", "-u", "NONE", "-i", "NONE", "-c", f"luafile {SCRIPT}"],
                   env=env, cwd=workspace, timeout=180, check=True, capture_output=True)
    got = json.loads(out.read_text())
    assert got["ok"] is True
    rows = {Path(f).name: sorted((d["lnum"], d["col"], d["end_lnum"], d["end_col"], d["code"], d["severity"])
                                 for d in ds) for f, ds in got["files"].items()}
    # Neovim's severities: 1 error, 2 warning; columns are bytes.
    assert rows["cases.jsonl"] == [(1, 99, 1, 116, "SL004", 1)]
    assert rows["deterministic_fluency_transcript.jsonl"] == [
        (1, 147, 1, 148, "SL103", 1),  # after 🌊 (4 bytes) and — (3 bytes)
        (2, 130, 2, 139, "SL101", 1),  # after … (3 bytes)
    ]
    messages = {d["code"]: (d["message"], d["source"]) for ds in got["files"].values() for d in ds}
    assert messages["SL101"] == ("no_placeholder: placeholder marker `<pending>` in the surface", "surface-lint")
    assert got["hover"].startswith(
        "**surface-lint** · lane `deterministic_fluency` · case `fl_tide_001` · profile `contract`")
