"""SIGTERM, SIGHUP and SIGINT sent to a real `surface-lint` process while it writes `-o`:
every temporary file removed, the previous output whole, exit 128 + the signal."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
LINES = 200_000  # one SL002 each: the JSON output takes a few seconds to write


@pytest.fixture(scope="module")
def many(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("signals") / "many.jsonl"
    path.write_text("{}\n" * LINES, "utf-8")
    return path


def _temporaries(folder: Path) -> list[str]:
    return sorted(name for name in os.listdir(folder) if name.endswith(".tmp"))


@pytest.mark.parametrize(("name", "code"), [("SIGTERM", 143), ("SIGHUP", 129), ("SIGINT", 130)])
def test_a_signal_mid_write_leaves_the_old_output_and_no_temporary(many: Path, tmp_path: Path, name: str,
                                                                   code: int) -> None:
    out = tmp_path / "out.json"
    out.write_text('{"old": true}\n', "utf-8")
    env = {**os.environ, "PYTHONPATH": str(ROOT / "server"), "TMPDIR": str(tmp_path)}
    proc = subprocess.Popen([sys.executable, "-m", "surface_lint", "check", str(many), "--lane", "deterministic_fluency",
                             "--output-format", "json", "-o", str(out)], env=env, cwd=ROOT,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 120
    # The output's temporary file appears beside it when writing starts: the signal comes then
    # (waiting for its first bytes raced the writer's last flush on a quiet machine: the run ended
    # before the signal, exit 1).
    while time.monotonic() < deadline and proc.poll() is None:
        if _temporaries(tmp_path):
            break
        time.sleep(0.002)
    assert proc.poll() is None, "the run ended before the signal could be sent"
    assert len(_temporaries(tmp_path)) == 1
    proc.send_signal(getattr(signal, name))
    stdout, stderr = proc.communicate(timeout=60)
    assert (proc.returncode, stdout, stderr) == (code, "", "")
    assert _temporaries(tmp_path) == []
    assert out.read_text("utf-8") == '{"old": true}\n'
    assert sorted(os.listdir(tmp_path)) == ["out.json"]  # the scratch spools (TMPDIR here) are gone too
