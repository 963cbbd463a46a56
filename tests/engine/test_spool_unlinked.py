"""Spool files are unlinked as they are created: a SIGKILLed run leaves nothing in the temp folder."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from surface_lint.engine.spool import Spool

ROOT = Path(__file__).resolve().parents[2]


def _spool_fds(pid: int, folder: Path) -> list[str]:
    """The targets of the process's open files that are (or were) in `folder`."""
    out = []
    for fd in os.listdir(f"/proc/{pid}/fd"):
        try:
            target = os.readlink(f"/proc/{pid}/fd/{fd}")
        except OSError:
            continue
        if target.startswith(str(folder)):
            out.append(target)
    return out


@pytest.mark.skipif(not Path("/proc/self/fd").is_dir(), reason="reads the process's open files from /proc")
def test_a_sigkilled_lane_run_leaves_no_spool_file(tmp_path: Path) -> None:
    temp = tmp_path / "tmp"
    temp.mkdir()
    transcripts = tmp_path / "turns.jsonl"
    with transcripts.open("w", encoding="utf-8") as fh:
        for i in range(60_000):  # far more rows than a spool buffers (2048): it writes files
            fh.write(json.dumps({"case_id": f"k{i:06d}", "surface": f"A river {i} runs", "grounding_source": "none"})
                     + "\n")
    env = {**os.environ, "TMPDIR": str(temp), "PYTHONPATH": str(ROOT / "server")}
    out = tmp_path / "out" / "report.json"
    out.parent.mkdir()
    proc = subprocess.Popen(
        [sys.executable, "-m", "surface_lint", "--lane", "deterministic_fluency", "--transcripts", str(transcripts),
         "--output-format", "json", "-o", str(out)],
        env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 120
        seen: list[str] = []
        while not seen and proc.poll() is None and time.monotonic() < deadline:
            seen = _spool_fds(proc.pid, temp)
            time.sleep(0.01)
        assert seen, "the run finished before it opened a spool file: give it more turns"
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == -signal.SIGKILL
    assert all(target.endswith(" (deleted)") for target in seen), seen
    assert os.listdir(temp) == []


def test_readers_of_one_spool_file_keep_their_own_place() -> None:
    spool: Spool[int] = Spool(buffer=3)
    spool.extend(range(10))
    first, second = iter(spool), iter(spool)
    assert [next(first), next(first), next(first), next(first)] == [0, 1, 2, 3]
    assert list(zip(second, first, strict=False)) == [(0, 4), (1, 5), (2, 6), (3, 7), (4, 8), (5, 9)]
    spool.close()


def test_the_raised_collector_threshold_is_restored_after_nested_streams() -> None:
    import gc

    from surface_lint.engine.spool import STREAMING_GC_THRESHOLD, Mapped, fewer_collections

    before = gc.get_threshold()
    rows = Mapped(range(3), 3, lambda n: n * 2)
    with fewer_collections():
        assert gc.get_threshold()[0] == max(before[0], STREAMING_GC_THRESHOLD)
        assert list(rows) == [0, 2, 4]
        assert gc.get_threshold()[0] == max(before[0], STREAMING_GC_THRESHOLD)  # the outer one still holds
    assert gc.get_threshold() == before
