"""An integer longer than Python converts (4,300 digits): json.loads raises a plain ValueError,
which ended `check` in "internal error"; now an SL001 at the integer, and the rest is read."""

from __future__ import annotations

from pathlib import Path

from cli_support import cli

LONG = "9" * 5000


def test_a_transcript_line_with_a_long_integer_is_an_sl001_at_it(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    path.write_text('{"case_id": "a", "surface": "x", "n": ' + LONG + "}\n"
                    '{"case_id": "b", "surface": "Lamp one gives light.", "grounding_source": "none"}\n', "utf-8")
    run = cli("check", "--output-format", "concise", path.name, cwd=tmp_path)
    assert run.code == 1
    assert run.err == ""
    assert run.out.splitlines()[0] == "t.jsonl:1:39: SL001 [error] invalid JSON: an integer of more than 4300 digits"
    assert "2 lines read: 1 records, 1 errors, 0 blank, 0 skipped." in run.out


def test_a_report_with_a_long_integer_is_an_sl001_at_it(tmp_path: Path) -> None:
    path = tmp_path / "r.json"
    path.write_text('{"cases": [\n  {"case_id": "a", "n": ' + LONG + "}\n]}\n", "utf-8")
    run = cli("check", "--kind", "report", "--output-format", "concise", path.name, cwd=tmp_path)
    assert run.code == 1
    assert run.err == ""
    assert run.out.splitlines()[0] == "r.json:2:25: SL001 [error] invalid JSON: an integer of more than 4300 digits"


def test_an_undetected_file_with_a_long_integer_is_said_not_crashed(tmp_path: Path) -> None:
    path = tmp_path / "r.json"
    path.write_text('{"cases": [{"case_id": "a", "n": ' + LONG + "}]}\n", "utf-8")
    run = cli("check", path.name, cwd=tmp_path)
    assert run.code == 2
    assert "internal error" not in run.err
    assert run.err.endswith("error: nothing to check: no case file, transcript or lane report in r.json\n")
