"""The JSON report carries the runner's `split` and `timestamp` when they are known: `--split`
(or `--split-name`) and `--timestamp`, as given, never read from a clock."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from surface_lint.cli.main import main

LANE = Path(__file__).resolve().parents[2].parent / "shared" / "corpus" / "lanes" / "english_fluency_ood"


def report(capsys: pytest.CaptureFixture[str], *extra: str) -> dict[str, object]:
    argv = ["--lane", "english_fluency_ood", "--profile", "reference", "--cases", str(LANE / "cases" / "dev" / "cases.jsonl"),
            "--transcripts", str(LANE / "captures" / "dev.jsonl"), "--output-format", "json", *extra]
    assert main(argv) == 0
    out: dict[str, object] = json.loads(capsys.readouterr().out)
    return out


def test_split_and_timestamp_as_the_runner_writes_them(capsys: pytest.CaptureFixture[str]) -> None:
    runner = json.loads((LANE / "reports" / "dev.json").read_text("utf-8"))
    ours = report(capsys, "--split-name", "dev", "--timestamp", "2026-12-01T00:00:00+00:00")
    assert (ours["split"], ours["timestamp"]) == (runner["split"], runner["timestamp"]) == (
        "dev", "2026-12-01T00:00:00+00:00")
    assert {k: ours[k] for k in ("cases", "lane", "metrics", "version")} == {
        k: runner[k] for k in ("cases", "lane", "metrics", "version")}


def test_unknown_they_are_left_out(capsys: pytest.CaptureFixture[str]) -> None:
    ours = report(capsys)
    assert "split" not in ours and "timestamp" not in ours


def test_a_timestamp_without_an_offset_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stopped:  # argparse's usage error
        main(["--lane", "english_fluency_ood", "--timestamp", "2026-12-01T00:00:00"])
    assert stopped.value.code == 2
    assert capsys.readouterr().err.splitlines()[-1] == (
        "surface-lint: error: argument --timestamp: '2026-12-01T00:00:00' is not an ISO 8601 date-time with an offset "
        "(for example 2026-12-01T00:00:00+00:00)")
