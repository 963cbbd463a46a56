"""`server --tcp` addresses and `diff` of two lanes: exit 2 with a message, never a traceback."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest
from cli_support import LANE, ROOT, cli, write_turns

from surface_lint.cli.main import parse_tcp

PORTS = "the port must be a number from 0 to 65535 (0: any free port)"


# Port 0 is no longer refused (it asks for a free port, printed on stderr: tests/lsp/test_lsp_tcp.py).
@pytest.mark.parametrize(("value", "message"), [
    ("localhost", "--tcp localhost: give HOST:PORT (for example 127.0.0.1:2087, or 127.0.0.1:0 for any free port)"),
    ("", "--tcp : give HOST:PORT (for example 127.0.0.1:2087, or 127.0.0.1:0 for any free port)"),
    ("localhost:", f"--tcp localhost:: {PORTS}, not ''"),
    ("localhost:http", f"--tcp localhost:http: {PORTS}, not 'http'"),
    ("127.0.0.1:-1", f"--tcp 127.0.0.1:-1: {PORTS}, not '-1'"),
    ("127.0.0.1:65536", f"--tcp 127.0.0.1:65536: {PORTS}, not 65536"),
    # Full-width digits pass str.isdigit() and int(): still not a port.
    ("127.0.0.1:\uff12\uff10", f"--tcp 127.0.0.1:\uff12\uff10: {PORTS}, not '\uff12\uff10'"),
    ("0.0.0.0:2087", "--tcp 0.0.0.0:2087: the server listens on loopback only (127.0.0.1, localhost or ::1)"),
])
def test_bad_tcp_addresses_are_exit_2(value: str, message: str) -> None:
    run = cli("server", "--tcp", value)
    assert (run.code, run.out, run.err) == (2, "", f"surface-lint: error: {message}\n")


def test_good_tcp_addresses() -> None:
    assert parse_tcp("localhost:2087") == ("127.0.0.1", 2087)  # one socket, not one per address family
    assert parse_tcp(":2087") == ("127.0.0.1", 2087)
    assert parse_tcp("[::1]:65535") == ("::1", 65535)
    assert parse_tcp("127.0.0.1:0") == ("127.0.0.1", 0)


def test_a_port_in_use_is_exit_2_with_the_reason() -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        env = {**os.environ, "PYTHONPATH": str(ROOT / "server")}
        done = subprocess.run([sys.executable, "-m", "surface_lint", "server", "--tcp", f"127.0.0.1:{port}"],
                              capture_output=True, text=True, timeout=120, env=env, check=False)
    assert done.returncode == 2
    assert done.stderr.splitlines()[-1] == (
        f"surface-lint: error: --tcp 127.0.0.1:{port}: cannot listen on 127.0.0.1:{port}: error while attempting "
        f"to bind on address ('127.0.0.1', {port}): address already in use")


def report(path: Path, lane: str) -> Path:
    path.write_text(json.dumps({"lane": lane, "metrics": {}, "cases": []}) + "\n", "utf-8")
    return path


def test_diff_of_two_lanes_reports_is_refused(tmp_path: Path) -> None:
    report(tmp_path / "old.json", LANE)
    report(tmp_path / "new.json", "symbolic_logic")
    run = cli("diff", "old.json", "new.json", cwd=tmp_path)
    assert (run.code, run.out, run.err) == (2, "", (
        "surface-lint: error: old.json is a run of deterministic_fluency but new.json one of symbolic_logic: "
        "diff compares two runs of one lane\n"))


def test_diff_with_a_lane_named_refuses_a_report_of_another_lane(tmp_path: Path) -> None:
    write_turns(tmp_path / "old.jsonl")
    report(tmp_path / "new.json", "symbolic_logic")
    run = cli("diff", "old.jsonl", "new.json", "--lane", LANE, cwd=tmp_path)
    assert (run.code, run.out, run.err) == (2, "", (
        "surface-lint: error: new.json is a lane report of symbolic_logic; it cannot be compared as a run of "
        "deterministic_fluency\n"))


def test_diff_of_turns_and_another_lanes_report_is_refused(tmp_path: Path) -> None:
    write_turns(tmp_path / "old.jsonl")
    report(tmp_path / "new.json", "multi_sentence_response")
    run = cli("diff", "old.jsonl", "new.json", cwd=tmp_path)
    assert (run.code, run.err) == (2, (
        "surface-lint: error: old.jsonl is a run of deterministic_fluency but new.json one of "
        "multi_sentence_response: diff compares two runs of one lane\n"))


def test_diff_of_two_runs_of_one_lane_still_works(tmp_path: Path) -> None:
    write_turns(tmp_path / "old.jsonl")
    write_turns(tmp_path / "new.jsonl")
    run = cli("diff", "old.jsonl", "new.jsonl", cwd=tmp_path)
    assert (run.code, run.err) == (0, "")
    assert run.out.splitlines()[0] == ("diff deterministic_fluency: old.jsonl -> new.jsonl · profile contract · "
                                       "no regression")
