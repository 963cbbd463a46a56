"""Resource faults in a real process: the scratch folder full or capped, an `-o` target that
cannot be written. One line naming the folder (or the target), exit 2, nothing left behind,
never a traceback and never an input blamed.

A file size limit (RLIMIT_FSIZE: no root needed; Python ignores SIGXFSZ, so a write past it
fails with EFBIG) stands for a full disk everywhere; where the machine lets a user make a
mount namespace (`unshare -rm`), a real 1 MiB tmpfs gives ENOSPC too.
"""

from __future__ import annotations

import json
import os
import resource
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
LANE = "deterministic_fluency"


def run(argv: list[str], scratch: Path, fsize: int | None = None, cwd: Path | None = None,
        prefix: list[str] | None = None) -> subprocess.CompletedProcess[str]:
    """`surface-lint ARGV` in a fresh process with TMPDIR=`scratch` (and a file size limit)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT / "server"), "TMPDIR": str(scratch), "PYTHONDONTWRITEBYTECODE": "1"}
    env.pop("SQLITE_TMPDIR", None)

    def limit() -> None:
        if fsize is not None:
            resource.setrlimit(resource.RLIMIT_FSIZE, (fsize, fsize))

    return subprocess.run([*(prefix or []), sys.executable, "-m", "surface_lint", *argv], env=env, cwd=cwd or ROOT,
                          capture_output=True, text=True, timeout=120, preexec_fn=limit)


@pytest.fixture()
def data(tmp_path: Path) -> dict[str, Path]:
    """5,000 `{}` lines (5,000 findings: past the findings spool's buffer), 5,000 turns of
    5,000 cases that each miss their full stop, and their case file (past the index's memory)."""
    empty = tmp_path / "empty.jsonl"
    empty.write_text("{}\n" * 5000, "utf-8")
    turns = tmp_path / "turns.jsonl"
    turns.write_text("".join(json.dumps({"case_id": f"c{i}", "surface": "Lamp gives light",
                                         "grounding_source": "none"}) + "\n" for i in range(5000)), "utf-8")
    cases = tmp_path / "cases.jsonl"
    cases.write_text("".join(json.dumps({"id": f"c{i}", "prompt": "p", "category": "pack_definition",
                                         "expected_predicates": ["no_placeholder"], "post_gloss_predicates": []})
                             + "\n" for i in range(5000)), "utf-8")
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    return {"empty": empty, "turns": turns, "cases": cases, "scratch": scratch, "root": tmp_path}


def capped(scratch: Path) -> str:
    return (f"surface-lint: error: cannot write scratch data to {scratch}: file too large (a file size limit) "
            "(set TMPDIR to a folder with room)\n")


COMMANDS = {
    # check's sorted findings (a spool): once blamed on the input (`empty.jsonl: cannot read`).
    "check": ["check", "{empty}", "--lane", LANE],
    # check joined to cases: the case index's scratch database (a sqlite3 traceback once).
    "check-cases": ["check", "{turns}", "--cases", "{cases}"],
    # --lane: its rows' spool (an OSError traceback once) and, with cases, the case index.
    "lane": ["--lane", LANE, "--transcripts", "{turns}", "--output-format", "json"],
    "lane-cases": ["--lane", LANE, "--transcripts", "{turns}", "--cases", "{cases}", "--output-format", "json"],
}


def _argv(name: str, data: dict[str, Path]) -> list[str]:
    return [a.format(**{k: str(v) for k, v in data.items()}) for a in COMMANDS[name]]


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_a_capped_scratch_folder_is_one_line_and_exit_2(data: dict[str, Path], name: str) -> None:
    got = run(_argv(name, data), data["scratch"], fsize=4096)
    assert (got.returncode, got.stderr) == (2, capped(data["scratch"]))
    assert os.listdir(data["scratch"]) == []  # nothing half-written left


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_the_same_runs_pass_with_room(data: dict[str, Path], name: str) -> None:
    got = run(_argv(name, data), data["scratch"])
    assert got.returncode == 1, got.stderr  # the surfaces miss their full stops: findings, no fault
    assert "scratch" not in got.stderr
    assert os.listdir(data["scratch"]) == []


def _tmpfs_works() -> bool:
    if shutil.which("unshare") is None or shutil.which("mount") is None:
        return False
    probe = subprocess.run(["unshare", "-rm", "sh", "-c", "mount -t tmpfs -o size=64k tmpfs /mnt"],
                           capture_output=True, timeout=30)
    return probe.returncode == 0


@pytest.mark.skipif(not _tmpfs_works(), reason="no mount namespace for a user here (unshare -rm)")
@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_a_full_tmpfs_says_no_space_left(data: dict[str, Path], name: str) -> None:
    scratch = data["scratch"]
    # A 1 MiB tmpfs over the scratch folder, in a mount namespace of this one command.
    shell = f'mount -t tmpfs -o size=1m tmpfs "{scratch}" && head -c 1040000 /dev/zero > "{scratch}/fill" && exec "$@"'
    got = run(_argv(name, data), scratch, prefix=["unshare", "-rm", "sh", "-c", shell, "sh"])
    assert (got.returncode, got.stderr) == (2, f"surface-lint: error: cannot write scratch data to {scratch}: "
                                               "no space left (set TMPDIR to a folder with room)\n")


def test_an_output_that_cannot_be_written_leaves_the_old_one(data: dict[str, Path]) -> None:
    out = data["root"] / "out.json"
    out.write_text("old\n", "utf-8")
    three = data["root"] / "three.jsonl"
    three.write_text("".join(data["turns"].read_text("utf-8").splitlines(True)[:3]), "utf-8")
    got = run(["check", str(three), "--output-format", "json", "-o", str(out)], data["scratch"], fsize=200)
    assert (got.returncode, got.stderr) == (2, f"surface-lint: error: -o {out}: cannot write: File too large\n")
    assert out.read_text("utf-8") == "old\n"
    assert sorted(os.listdir(data["root"])) == ["cases.jsonl", "empty.jsonl", "out.json", "scratch", "three.jsonl",
                                                "turns.jsonl"]
