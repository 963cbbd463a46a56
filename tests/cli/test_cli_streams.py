"""Inputs that are not regular files: a FIFO named like a transcript, a process substitution,
`/dev/stdin`, `--transcripts FIFO`, character devices (`/dev/zero`, `/dev/urandom`) as inputs
and as case files. Each read once, as a stream, never a hang; an endless one stops at the
line-length limit (or a device's byte limit) with a finding and a warning."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from cli_support import LANE, cli

from surface_lint.sources import streams

ROOT = Path(__file__).resolve().parents[2]
TURNS = "".join(json.dumps({"case_id": f"c{i}", "surface": "Lamp gives light", "grounding_source": "none"}) + "\n"
                for i in range(1, 3))


def _sl103(path: str, line: int) -> str:
    return (f"{path}:{line}:46: SL103 [warning] complete_punctuation: the surface ends with `t`, not terminal "
            "punctuation (`.` `?` `!` `;`)")


FOOTER = ["Found 2 finding(s) (2 warning) in 1 file(s); profile: contract.",
          "2 lines read: 2 records, 0 errors, 0 blank, 0 skipped.",
          "lane deterministic_fluency, chosen by flag: --lane"]


def _env() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(ROOT / "server")}


@pytest.fixture()
def fifo(tmp_path: Path) -> Iterator[Path]:
    """A FIFO named x.jsonl with a writer that writes the turns once, then closes it."""
    path = tmp_path / "x.jsonl"
    os.mkfifo(path)

    def write() -> None:
        with open(path, "w", encoding="utf-8") as fh:  # blocks until the reader opens it
            fh.write(TURNS)

    writer = threading.Thread(target=write, daemon=True)
    writer.start()
    yield path
    if writer.is_alive():  # the run never opened it: let the writer go
        with open(path, "rb") as fh:
            fh.read()
    writer.join(5)


def test_check_a_fifo_named_like_a_transcript(fifo: Path) -> None:
    got = subprocess.run([sys.executable, "-m", "surface_lint", "check", "x.jsonl", "--lane", LANE],
                         cwd=fifo.parent, env=_env(), capture_output=True, text=True, timeout=60)
    assert (got.returncode, got.stderr) == (1, "")
    assert got.stdout.splitlines() == [_sl103("x.jsonl", 1), _sl103("x.jsonl", 2), *FOOTER]


def test_output_to_the_fifo_read_is_refused_not_a_hang(fifo: Path) -> None:
    # Opened to write, the FIFO already read would wait for a reader for ever.
    got = subprocess.run([sys.executable, "-m", "surface_lint", "check", "x.jsonl", "--lane", LANE, "-o", "x.jsonl"],
                         cwd=fifo.parent, env=_env(), capture_output=True, text=True, timeout=60)
    assert (got.returncode, got.stdout, got.stderr) == (2, "", (
        "surface-lint: error: -o x.jsonl: this FIFO is an input of the run (already read); refusing to write to it "
        "(choose another output file)\n"))


def test_lane_transcripts_a_fifo(fifo: Path) -> None:
    got = subprocess.run([sys.executable, "-m", "surface_lint", "--lane", LANE, "--transcripts", "x.jsonl",
                          "--output-format", "json"], cwd=fifo.parent, env=_env(), capture_output=True, text=True,
                         timeout=60)
    assert (got.returncode, got.stderr) == (1, "")  # the thresholds fail: the surfaces lack full stops
    report = json.loads(got.stdout)
    assert [c["case_id"] for c in report["cases"]] == ["c1", "c2"]


def test_check_a_process_substitution(tmp_path: Path) -> None:
    (tmp_path / "t.txt").write_text(TURNS, "utf-8")
    script = f'exec "{sys.executable}" -m surface_lint check <(cat t.txt) --kind turns --lane {LANE}'
    got = subprocess.run(["bash", "-c", script], cwd=tmp_path, env=_env(), capture_output=True, text=True, timeout=60)
    assert got.returncode == 1, got.stderr
    name = got.stdout.split(":", 1)[0]  # /dev/fd/63, or whichever descriptor bash chose
    assert name.startswith("/dev/fd/")
    assert got.stdout.splitlines() == [_sl103(name, 1), _sl103(name, 2), *FOOTER]


def test_check_dev_stdin(tmp_path: Path) -> None:
    got = subprocess.run([sys.executable, "-m", "surface_lint", "check", "/dev/stdin", "--kind", "turns", "--lane", LANE],
                         input=TURNS, cwd=tmp_path, env=_env(), capture_output=True, text=True, timeout=60)
    assert (got.returncode, got.stderr) == (1, "")
    assert got.stdout.splitlines() == [_sl103("/dev/stdin", 1), _sl103("/dev/stdin", 2), *FOOTER]


def test_an_endless_line_stops_at_the_line_limit(tmp_path: Path) -> None:
    script = (f'(printf \'{{"case_id": "c1", "surface": "Lamp gives light", "grounding_source": "none"}}\\n\'; '
              f'cat /dev/zero) | exec "{sys.executable}" -m surface_lint check /dev/stdin --kind turns --lane {LANE}')
    got = subprocess.run(["bash", "-c", script], cwd=tmp_path, env=_env(), capture_output=True, text=True, timeout=60)
    assert (got.returncode, got.stderr) == (1, "surface-lint: warning: /dev/stdin: line 2 is longer than 33554432 bytes; "
                                               "this stream is read no further\n")
    assert got.stdout.splitlines() == [
        _sl103("/dev/stdin", 1),
        "/dev/stdin:2:1: SL010 [error] line is longer than 33554432 bytes; skipped",
        "Found 2 finding(s) (1 error, 1 warning) in 1 file(s); profile: contract.",
        "2 lines read: 1 records, 1 errors, 0 blank, 0 skipped.",
        "lane deterministic_fluency, chosen by flag: --lane",
    ]


def test_check_dev_zero(tmp_path: Path) -> None:
    got = cli("check", "/dev/zero", "--kind", "turns", "--lane", LANE, cwd=tmp_path)
    assert (got.code, got.err) == (1, "surface-lint: warning: /dev/zero: line 1 is longer than 33554432 bytes; "
                                      "this stream is read no further\n")
    assert got.out.splitlines() == [
        "/dev/zero:1:1: SL010 [error] line is longer than 33554432 bytes; skipped",
        "Found 1 finding(s) (1 error) in 1 file(s); profile: contract.",
        "1 lines read: 0 records, 1 errors, 0 blank, 0 skipped.",
        "lane deterministic_fluency, chosen by flag: --lane",
    ]


def test_cases_dev_zero(tmp_path: Path) -> None:
    (tmp_path / "t.jsonl").write_text(TURNS, "utf-8")
    got = cli("check", "t.jsonl", "--cases", "/dev/zero", "--lane", LANE, cwd=tmp_path)
    assert (got.code, got.err) == (1, "surface-lint: warning: /dev/zero: line 1 is longer than 33554432 bytes; "
                                      "this stream is read no further\n")
    assert got.out.splitlines()[-3:] == ["Found 4 finding(s) (2 information, 2 warning) in 1 file(s); profile: contract.",
                                         "2 lines read: 2 records, 0 errors, 0 blank, 0 skipped.",
                                         "lane deterministic_fluency, chosen by flag: --lane"]


def test_a_device_of_short_lines_stops_at_its_byte_limit(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(streams, "MAX_DEVICE_BYTES", 1024 * 1024)
    got = cli("check", "/dev/urandom", "--kind", "turns", "--lane", LANE, cwd=tmp_path)
    assert got.code == 1
    assert got.err == "surface-lint: warning: /dev/urandom: a device: read no further than its first 1 MiB\n"


def test_a_fifo_in_a_folder_is_skipped_not_opened(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "x.jsonl")  # no writer: opening it would block for ever
    (tmp_path / "t.jsonl").write_text(TURNS, "utf-8")
    got = cli("check", str(tmp_path), "--lane", LANE)
    assert got.err == (f"surface-lint: warning: {tmp_path / 'x.jsonl'}: skipped: not a regular file "
                       "(name it to read it as a stream)\n")
    t = str(tmp_path / "t.jsonl")
    assert (got.code, got.out.splitlines()) == (1, [_sl103(t, 1), _sl103(t, 2), *FOOTER])


def test_stream_copies_are_released_after_a_run(tmp_path: Path) -> None:
    cli("check", "/dev/zero", "--kind", "turns", "--lane", LANE, cwd=tmp_path)
    assert streams._copies == {}


def test_first_long_line() -> None:
    assert streams._first_long_line(b"abc\ndefgh\n", 0, 4) == 4  # `defgh\n` is 6 bytes, over 4
    assert streams._first_long_line(b"ab\ncd\n", 0, 4) is None
    assert streams._first_long_line(b"ab\ncd\n", 3, 4) == 0  # 3 carried + `ab\n`
    assert streams._first_long_line(b"xyz", 2, 4) == 0  # the line goes on: 5 bytes so far
