"""A corrupt baseline: a comparison stops at file:line:column; --update-baseline replaces it."""

from __future__ import annotations

from pathlib import Path

import pytest
from cli_support import LANE, cli, write_turns

CORRUPT = [
    (b'{"metrics": {\n  "a": 1,\n  oops\n',
     "bad.json:3:3: the baseline is not JSON: Expecting property name enclosed in double quotes"),
    (b"", "bad.json:1:1: the baseline is not JSON: Expecting value"),
    (b'{"metrics": {"x": "\xff"}}', "bad.json:1:20: the baseline is not UTF-8 (byte 0xff)"),
    (b'\xef\xbb\xbf{"metrics": {"x": "\xe2\x82"}}', "bad.json:1:20: the baseline is not UTF-8 (byte 0xe2)"),
    (b'\n\n  {"metrics": 1,}', "bad.json:3:17: the baseline is not JSON: Expecting property name enclosed in double quotes"),
    (b"[]", "bad.json:1:1: a baseline is a `--lane --output-format json` output (no `metrics` object)"),
    (b'{"metrics": [1]}', "bad.json:1:1: a baseline is a `--lane --output-format json` output (no `metrics` object)"),
]


@pytest.mark.parametrize(("content", "message"), CORRUPT)
def test_comparing_with_a_corrupt_baseline_is_exit_2_at_its_position(tmp_path: Path, content: bytes,
                                                                   message: str) -> None:
    write_turns(tmp_path / "t.jsonl")
    (tmp_path / "bad.json").write_bytes(content)
    run = cli("--lane", LANE, "--transcripts", "t.jsonl", "--baseline", "bad.json", cwd=tmp_path)
    assert (run.code, run.out, run.err) == (2, "", f"surface-lint: error: {message}\n")
    assert (tmp_path / "bad.json").read_bytes() == content


@pytest.mark.parametrize(("content", "message"), CORRUPT)
def test_update_baseline_replaces_a_corrupt_baseline(tmp_path: Path, content: bytes, message: str) -> None:
    write_turns(tmp_path / "t.jsonl")
    (tmp_path / "bad.json").write_bytes(content)
    run = cli("--lane", LANE, "--transcripts", "t.jsonl", "--baseline", "bad.json", "--update-baseline",
              cwd=tmp_path)
    assert run.code == 1  # the thresholds still decide (c3 has no terminal punctuation)
    assert run.err == (f"surface-lint: warning: {message}; --update-baseline replaces it\n"
                       "surface-lint: wrote the baseline bad.json\n")
    json_out = cli("--lane", LANE, "--transcripts", "t.jsonl", "--output-format", "json", cwd=tmp_path).out
    assert (tmp_path / "bad.json").read_text("utf-8") == json_out
    # Now it is a baseline: the same run compares clean against it.
    again = cli("--lane", LANE, "--transcripts", "t.jsonl", "--baseline", "bad.json", cwd=tmp_path)
    assert again.err == "baseline bad.json: no metric below it\n"


def test_update_baseline_creates_a_missing_baseline_silently(tmp_path: Path) -> None:
    write_turns(tmp_path / "t.jsonl")
    run = cli("--lane", LANE, "--transcripts", "t.jsonl", "--baseline", "new/base.json", "--update-baseline",
              cwd=tmp_path)
    assert run.err == "surface-lint: wrote the baseline new/base.json\n"
    assert (tmp_path / "new" / "base.json").is_file()


def test_a_folder_is_not_a_baseline_to_replace(tmp_path: Path) -> None:
    write_turns(tmp_path / "t.jsonl")
    (tmp_path / "d").mkdir()
    run = cli("--lane", LANE, "--transcripts", "t.jsonl", "--baseline", "d", "--update-baseline", cwd=tmp_path)
    assert (run.code, run.err) == (2, "surface-lint: error: d: cannot read the baseline: is a folder\n")


@pytest.mark.parametrize(("value", "shown"), [("nan", "nan"), ("inf", "inf"), ("-1", "-1"), ("-inf", "-inf")])
def test_a_tolerance_that_is_not_a_finite_non_negative_number_is_refused(tmp_path: Path, value: str,
                                                                        shown: str) -> None:
    write_turns(tmp_path / "t.jsonl")
    (tmp_path / "base.json").write_text('{"metrics": {}}', "utf-8")
    run = cli("--lane", LANE, "--transcripts", "t.jsonl", "--baseline", "base.json", f"--baseline-tolerance={value}",
              cwd=tmp_path)
    assert (run.code, run.out, run.err) == (
        2, "", f"surface-lint: error: --baseline-tolerance must be a finite number, 0 or more, not {shown}\n")


def test_a_negative_show_is_refused(tmp_path: Path) -> None:
    write_turns(tmp_path / "t.jsonl")
    run = cli("--lane", LANE, "--transcripts", "t.jsonl", "--show", "-1", cwd=tmp_path)
    assert (run.code, run.out, run.err) == (2, "", "surface-lint: error: --show must be 0 or more, not -1\n")
