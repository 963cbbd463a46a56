"""What the QA pass broke: a reader that closes the pipe, `-o /dev/stdout` into a pipe, control
characters in file names, lanes that check nothing or name a path, lane-file error columns."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from cli_support import LANE, ROOT, cli, write_turns

SERVER = ROOT / "server"
# A surface with no terminal punctuation: one SL103 warning per turn, at column 56 of its line.
SURFACE_TURN = '{{"case_id": "c{i:05d}", "surface": "Lamp three gives light", "grounding_source": "none"}}\n'


def _many_turns(path: Path, n: int = 20000) -> Path:
    path.write_text("".join(SURFACE_TURN.format(i=i) for i in range(n)), "utf-8")
    return path


def _first_line_then_close(argv: list[str], cwd: Path) -> tuple[bytes, int, bytes]:
    """Run the CLI with stdout a pipe, read one line, close the pipe (as `| head -1` does)."""
    env = {**os.environ, "PYTHONPATH": str(SERVER)}
    proc = subprocess.Popen([sys.executable, "-m", "surface_lint", *argv], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, cwd=cwd, env=env)
    assert proc.stdout is not None and proc.stderr is not None
    first = proc.stdout.readline()
    proc.stdout.close()
    err = proc.stderr.read()
    proc.stderr.close()
    return first, proc.wait(), err


@pytest.mark.parametrize("fmt", ["text", "json", "junit"])
def test_a_reader_that_closes_the_pipe_ends_the_run_quietly_with_141(tmp_path: Path, fmt: str) -> None:
    _many_turns(tmp_path / "big.jsonl")
    first, code, err = _first_line_then_close(
        ["check", "big.jsonl", "--lane", LANE, "--output-format", fmt], tmp_path)
    assert (code, err) == (141, b"")
    expected_first = {
        "text": b"big.jsonl:1:56: SL103 [warning] complete_punctuation: the surface ends with `t`, "
                b"not terminal punctuation (`.` `?` `!` `;`)\n",
        "json": b"{\n",
        "junit": b'<?xml version="1.0" encoding="UTF-8"?>\n',
    }[fmt]
    assert first == expected_first


def test_a_closed_pipe_named_by_dash_o_dev_stdout_is_quiet_too(tmp_path: Path) -> None:
    _many_turns(tmp_path / "big.jsonl")
    first, code, err = _first_line_then_close(["check", "big.jsonl", "-o", "/dev/stdout"], tmp_path)
    assert (code, err) == (141, b"")
    assert first.startswith(b"big.jsonl:1:56: SL103 [warning] complete_punctuation")


def test_dash_o_dev_stdout_into_a_pipe_is_written_to_the_pipe(tmp_path: Path) -> None:
    write_turns(tmp_path / "turns.jsonl")
    env = {**os.environ, "PYTHONPATH": str(SERVER)}
    done = subprocess.run([sys.executable, "-m", "surface_lint", "check", "turns.jsonl", "-o", "/dev/stdout"],
                          cwd=tmp_path, env=env, capture_output=True, check=False)
    assert (done.returncode, done.stderr) == (1, b"")
    assert done.stdout.decode("utf-8") == (
        "turns.jsonl:3:52: SL103 [warning] complete_punctuation: the surface ends with `t`, "
        "not terminal punctuation (`.` `?` `!` `;`)\n"
        "Found 1 finding(s) (1 warning) in 1 file(s); profile: contract.\n"
        "3 lines read: 3 records, 0 errors, 0 blank, 0 skipped.\n"
        "lane deterministic_fluency, chosen by default: nothing in the path or the fields names a lane\n")


def test_dash_o_dev_stdout_appends_to_the_file_stdout_was_redirected_to(tmp_path: Path) -> None:
    write_turns(tmp_path / "turns.jsonl")
    log = tmp_path / "log.txt"
    log.write_text("before\n", "utf-8")
    inode = log.stat().st_ino
    env = {**os.environ, "PYTHONPATH": str(SERVER)}
    with log.open("a", encoding="utf-8") as out:  # the shell's `>> log.txt`
        done = subprocess.run([sys.executable, "-m", "surface_lint", "check", "turns.jsonl", "-o", "/dev/stdout"],
                              cwd=tmp_path, env=env, stdout=out, stderr=subprocess.PIPE, check=False)
    assert (done.returncode, done.stderr) == (1, b"")
    assert log.stat().st_ino == inode  # written in place, not replaced by a rename
    assert log.read_text("utf-8").splitlines() == [
        "before",
        "turns.jsonl:3:52: SL103 [warning] complete_punctuation: the surface ends with `t`, "
        "not terminal punctuation (`.` `?` `!` `;`)",
        "Found 1 finding(s) (1 warning) in 1 file(s); profile: contract.",
        "3 lines read: 3 records, 0 errors, 0 blank, 0 skipped.",
        "lane deterministic_fluency, chosen by default: nothing in the path or the fields names a lane",
    ]


def test_a_named_pipe_as_dash_o_is_written_directly(tmp_path: Path) -> None:
    write_turns(tmp_path / "turns.jsonl")
    fifo = tmp_path / "out.fifo"
    os.mkfifo(fifo)
    env = {**os.environ, "PYTHONPATH": str(SERVER)}
    proc = subprocess.Popen([sys.executable, "-m", "surface_lint", "check", "turns.jsonl", "-o", str(fifo),
                             "--output-format", "json-lines"], cwd=tmp_path, env=env, stderr=subprocess.PIPE)
    with fifo.open("rb") as reader:
        lines = reader.read().decode("utf-8").splitlines()
    assert proc.stderr is not None
    err = proc.stderr.read()
    proc.stderr.close()
    assert (proc.wait(), err) == (1, b"")
    assert json.loads(lines[0])["code"] == "SL103"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.fifo", "turns.jsonl"]  # no temporary left


def test_control_characters_in_a_file_name_are_escaped_in_text_output(tmp_path: Path) -> None:
    name = "evil\n::error file=x::injected\x1b[31m\r.jsonl"
    write_turns(tmp_path / name)
    run = cli("check", name, cwd=tmp_path)
    assert run.code == 1
    assert run.out == (
        "evil\\n::error file=x::injected\\x1b[31m\\r.jsonl:3:52: SL103 [warning] complete_punctuation: "
        "the surface ends with `t`, not terminal punctuation (`.` `?` `!` `;`)\n"
        "Found 1 finding(s) (1 warning) in 1 file(s); profile: contract.\n"
        "3 lines read: 3 records, 0 errors, 0 blank, 0 skipped.\n"
        "lane deterministic_fluency, chosen by default: nothing in the path or the fields names a lane\n")
    assert not any(line.startswith("::") for line in run.out.splitlines())


@pytest.mark.parametrize("body", ["", "[casework]\n", '[casework.views.all]\nwhere = "true"\n'])
def test_a_lane_with_nothing_to_check_is_a_rules_error(tmp_path: Path, body: str) -> None:
    write_turns(tmp_path / "turns.jsonl")
    (tmp_path / "minimal.toml").write_text('[lane]\nname = "empty_lane"\n' + body, "utf-8")
    run = cli("check", "turns.jsonl", "--lane-file", "minimal.toml", "--lane", "empty_lane", cwd=tmp_path)
    assert (run.code, run.out) == (2, "")
    assert run.err == ("surface-lint: config error: minimal.toml:1:1: lane 'empty_lane' defines no predicate, "
                       "metric or [casework] value: it would check nothing\n")


@pytest.mark.parametrize("name", ["../../etc", "a/b", "9lives", "lane-name", "ünicode"])
def test_a_lane_name_must_be_an_identifier(tmp_path: Path, name: str) -> None:
    write_turns(tmp_path / "turns.jsonl")
    (tmp_path / "bad.toml").write_text(f'# a lane\n[lane]\n  name = "{name}"\n', "utf-8")
    run = cli("check", "turns.jsonl", "--lane-file", "bad.toml", cwd=tmp_path)
    assert (run.code, run.out) == (2, "")
    assert run.err == ("surface-lint: config error: bad.toml:3:3: [lane]: `name` must be an identifier "
                       f"(ASCII letters, digits and _, not starting with a digit), not {name!r}\n")


def test_lane_file_errors_name_the_column(tmp_path: Path) -> None:
    (tmp_path / "typo.toml").write_text('[lane]\nname = "typo_lane"\n   unitt = "surface"\n', "utf-8")
    write_turns(tmp_path / "turns.jsonl")
    run = cli("check", "turns.jsonl", "--lane-file", "typo.toml", cwd=tmp_path)
    assert (run.code, run.out) == (2, "")
    assert run.err == "surface-lint: config error: typo.toml:3:4: [lane]: unknown key `unitt` (did you mean `unit`?)\n"
    listed = cli("lanes", "--lane-file", "typo.toml", cwd=tmp_path)
    assert listed.code == 2
    assert listed.err == "error: typo.toml:3:4: [lane]: unknown key `unitt` (did you mean `unit`?)\n"


def test_control_characters_in_a_file_name_are_escaped_on_stderr(tmp_path: Path) -> None:
    write_turns(tmp_path / "dir" / "ok.jsonl")
    (tmp_path / "dir" / "a\n::error::x.jsonl").symlink_to("nowhere")
    run = cli("check", "dir", cwd=tmp_path)
    assert run.code == 1
    assert run.err == ("surface-lint: warning: dir/a\\n::error::x.jsonl: skipped: No such file or directory "
                       "(a symbolic link to nowhere)\n")
    named = cli("check", "dir/a\n::error::x.jsonl", cwd=tmp_path)
    assert named.code == 2
    assert named.err == ("surface-lint: error: dir/a\\n::error::x.jsonl: cannot read: No such file or directory "
                         "(a symbolic link to nowhere)\n")
