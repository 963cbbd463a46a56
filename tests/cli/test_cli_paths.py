"""What `check` reads: files named, the case files / transcripts / reports under a folder, each
once; paths that cannot be read are exit 2 with the reason, never a traceback."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_support import LANE, cli, write_turns

from surface_lint.sources.lintable import document_kind, top_level_keys

ONE_TURN = [{"case_id": "c1", "surface": "Lamp one gives light.", "grounding_source": "none"}]
SKIP_NOTE = "not a case file, transcript or lane report; skipped (give --kind to read it anyway)"


def project(root: Path) -> Path:
    """A folder as a repository holds it: our files among config files, tool state and links."""
    write_turns(root / "evals" / "t.jsonl", ONE_TURN)
    write_turns(root / "node_modules" / "x" / "t.jsonl", ONE_TURN)
    write_turns(root / ".git" / "t.jsonl", ONE_TURN)
    (root / "package.json").write_text('{"name": "x", "version": "1.0.0"}\n', "utf-8")
    # Pretty-printed, as editors and npm write them (a multi-line document is parsed whole).
    (root / "tsconfig.json").write_text('{\n  "compilerOptions": {\n    "strict": true\n  }\n}\n', "utf-8")
    (root / "sub" / "settings.json").parent.mkdir(parents=True, exist_ok=True)
    (root / "sub" / "settings.json").write_text(json.dumps({"levels": ["error"], "id": 3}, indent=2), "utf-8")
    # Longer than the 64 KiB head: it cannot be parsed whole from the head, and it is not a report.
    lock = {"name": "big", "lockfileVersion": 3, "packages": {f"p{i}": {"version": "1.0.0"} for i in range(5000)}}
    (root / "package-lock.json").write_text(json.dumps(lock, indent=2), "utf-8")
    (root / "sub" / "report.json").write_text(json.dumps({"lane": LANE, "metrics": {}, "cases": []}) + "\n", "utf-8")
    (root / "notes.txt").write_text("hello\n", "utf-8")
    (root / "loop.jsonl").symlink_to("loop.jsonl")
    (root / "dangling.jsonl").symlink_to("nothing")
    (root / "sub" / "up").symlink_to("..")  # a folder link is not followed (no cycle)
    return root


def test_a_folder_yields_only_our_files_and_says_what_it_could_not_read(tmp_path: Path) -> None:
    project(tmp_path / "proj")
    run = cli("check", "proj", "--output-format", "json", cwd=tmp_path)
    assert run.code == 0
    assert json.loads(run.out)["files"] == ["proj/evals/t.jsonl", "proj/sub/report.json"]
    assert run.err == (
        "surface-lint: warning: proj/dangling.jsonl: skipped: No such file or directory (a symbolic link to nothing)\n"
        "surface-lint: warning: proj/loop.jsonl: skipped: Too many levels of symbolic links "
        "(a symbolic link to loop.jsonl)\n")


def test_the_same_file_named_twice_or_through_its_folder_is_read_once(tmp_path: Path) -> None:
    project(tmp_path / "proj")
    (tmp_path / "link.jsonl").symlink_to("proj/evals/t.jsonl")
    run = cli("check", "proj/evals/t.jsonl", "./proj/evals/t.jsonl", "proj", "link.jsonl", "--output-format", "json",
              cwd=tmp_path)
    report = json.loads(run.out)
    assert report["files"] == ["proj/evals/t.jsonl", "proj/sub/report.json"]
    assert report["counts"] == {"blank": 0, "errors": 0, "findings": 0, "lines": 2, "records": 1, "skipped": 0}


def test_transcripts_and_cases_given_twice_are_scored_once(tmp_path: Path) -> None:
    write_turns(tmp_path / "t.jsonl", ONE_TURN)
    once = cli("--lane", LANE, "--transcripts", "t.jsonl", "--output-format", "json", cwd=tmp_path)
    twice = cli("--lane", LANE, "--transcripts", "t.jsonl", "./t.jsonl", "t.jsonl", "--output-format", "json",
                cwd=tmp_path)
    assert json.loads(twice.out)["metrics"]["cases"] == 1
    assert twice.out == once.out


def test_a_named_file_that_is_not_ours_is_skipped_with_a_note_and_nothing_left_is_exit_2(tmp_path: Path) -> None:
    project(tmp_path / "proj")
    run = cli("check", "proj/package.json", cwd=tmp_path)
    assert (run.code, run.out) == (2, "")
    assert run.err == (f"surface-lint: warning: proj/package.json: {SKIP_NOTE}\n"
                       "surface-lint: error: nothing to check: no case file, transcript or lane report in "
                       "proj/package.json\n")
    run = cli("check", "proj/package.json", "proj/evals/t.jsonl", cwd=tmp_path)
    assert (run.code, run.err) == (0, f"surface-lint: warning: proj/package.json: {SKIP_NOTE}\n")
    assert run.out.splitlines()[-3] == "Found 0 finding(s) (no findings) in 1 file(s); profile: contract."
    # --kind says what it is: then it is read as told.
    run = cli("check", "proj/notes.txt", "--kind", "turns", cwd=tmp_path)
    assert run.out.splitlines()[-2] == "1 lines read: 0 records, 1 errors, 0 blank, 0 skipped."


def test_an_empty_folder_is_nothing_to_check(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    run = cli("check", "empty", cwd=tmp_path)
    assert (run.code, run.out, run.err) == (
        2, "", "surface-lint: error: nothing to check: no case file, transcript or lane report in empty\n")


@pytest.mark.parametrize(("argv", "message"), [
    (["check", "loop.jsonl"], "loop.jsonl: cannot read: Too many levels of symbolic links"),
    (["check", "dangling.jsonl"], "dangling.jsonl: cannot read: No such file or directory (a symbolic link to nothing)"),
    (["check", "absent.jsonl"], "absent.jsonl: cannot read: No such file or directory"),
    (["check", "evals/t.jsonl", "absent/"], "absent: cannot read: No such file or directory"),
    (["--lane", LANE, "--transcripts", "loop.jsonl"], "loop.jsonl: cannot read: Too many levels of symbolic links"),
    (["--lane", LANE, "--transcripts", "sub"], "sub: cannot read: Is a directory"),
])
def test_paths_that_cannot_be_read_are_exit_2_with_the_reason(tmp_path: Path, argv: list[str], message: str) -> None:
    project(tmp_path)
    run = cli(*argv, cwd=tmp_path)
    assert (run.code, run.out, run.err) == (2, "", f"surface-lint: error: {message}\n")


def test_document_kind_is_the_editors_decision_for_long_and_broken_json() -> None:
    assert document_kind("/a/package-lock.json", b'{"name": "big", "packages": {"p0": {"version": "1') is None
    assert document_kind("/a/r.json", b'{"cases": [{"case_id": "c1", "surface": "cut') == "report"
    assert document_kind("/a/r.json", b'{"kind": "structural_zero", "lane": "symbolic_logic", "metr') == "report"
    assert document_kind("/a/r.json", b"{ oops") is None
    assert document_kind("/a/package.json", b'{\n  "name": "x",\n  "version": "1.0.0"\n}\n') is None
    assert document_kind("/a/r.json", b'{\n  "lane": "x",\n  "metrics": {}\n}\n') == "report"
    assert top_level_keys(b'{"a": [1, {"x": "]\\""}], "b": "}", "c": tru') == ["a", "b", "c"]
    assert top_level_keys(b'\xef\xbb\xbf {"a": {"b": 1}} ') == ["a"]
    assert top_level_keys(b"[1, 2]") == []

