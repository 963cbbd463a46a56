"""`unicode_form` on the pattern kinds and `[lane] unicode_form`: judged on the normalised
surface, findings at the original characters (escapes and all) in every output."""
# ruff: noqa: RUF003  (Greek and Hebrew letters are the subject)

from __future__ import annotations

import json
from pathlib import Path

from cli_support import cli
from unicode_form_support import LANE, LINES
from unicode_form_support import write_files as _files


def test_spans_point_at_the_original_characters(tmp_path: Path) -> None:
    lane, records = _files(tmp_path)
    run = cli("check", str(records), "--lane-file", str(lane), "--lane", "nfc_lane", "--output-format", "json")
    assert run.code == 1, run.err
    found = [(f["line"], f["column"], f["end_column"], f["code"], f["message"])
             for f in json.loads(run.out)["findings"]]
    assert found == [
        # `λο\u0301γος`: λ at 33, the escape 35-40, ς at 43.
        (1, 33, 44, "NF1", "no_logos: the surface matches `λόγος`"),
        # unescaped, after `😀 `: six characters, 35 to 40.
        (2, 35, 41, "NF1", "no_logos: the surface matches `λόγος`"),
        # `ד` alone covers the letter with both its points (35-37); the word as written is 35-40.
        (3, 35, 38, "NF4", "no_dalet: the surface matches `ד`"),
        (3, 35, 41, "NF2", "no_davar: the surface matches `דָּבָר`"),
        # already NFC: both forms match; each character is a six-character escape.
        (4, 31, 37, "NF4", "no_dalet: the surface matches `ד`"),
        (4, 31, 67, "NF2", "no_davar: the surface matches `דָּבָר`"),
        (4, 31, 67, "NF3", "no_davar_as_written: the surface matches `דָּבָר`"),
    ]


def test_the_text_report(tmp_path: Path) -> None:
    lane, records = _files(tmp_path)
    run = cli("check", str(records), "--lane-file", str(lane), "--lane", "nfc_lane")
    assert run.out.splitlines()[:7] == [
        f"{records}:1:33: NF1 [warning] no_logos: the surface matches `λόγος`",
        f"{records}:2:35: NF1 [warning] no_logos: the surface matches `λόγος`",
        f"{records}:3:35: NF4 [warning] no_dalet: the surface matches `ד`",
        f"{records}:3:35: NF2 [warning] no_davar: the surface matches `דָּבָר`",
        f"{records}:4:31: NF4 [warning] no_dalet: the surface matches `ד`",
        f"{records}:4:31: NF2 [warning] no_davar: the surface matches `דָּבָר`",
        f"{records}:4:31: NF3 [warning] no_davar_as_written: the surface matches `דָּבָר`",
    ]


def test_a_bad_lane_form_is_refused_at_its_line(tmp_path: Path) -> None:
    lane = tmp_path / "bad.toml"
    lane.write_text(LANE.replace('unicode_form = "NFC"', 'unicode_form = "NFD"', 1), "utf-8")
    records = tmp_path / "r.jsonl"
    records.write_text(LINES[0] + "\n", "utf-8")
    run = cli("check", str(records), "--lane-file", str(lane), "--lane", "nfc_lane")
    assert run.code == 2
    assert run.err == (f"surface-lint: config error: {lane}:3:1: [lane]: `unicode_form` must be \"none\", \"NFC\" "
                       "or \"NFKC\", not \"NFD\"\n")
