"""Every write (`-o`, `--update-baseline`, the step summary) is atomic and never replaces an input."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from cli_support import LANE, ROOT, cli, write_turns

from surface_lint.engine import UsageError
from surface_lint.reporters.outputs import open_output

CHECK_OUT = (
    "t.jsonl:3:52: SL103 [warning] complete_punctuation: the surface ends with `t`, not terminal punctuation "
    "(`.` `?` `!` `;`)\n"
    "Found 1 finding(s) (1 warning) in 1 file(s); profile: contract.\n"
    "3 lines read: 3 records, 0 errors, 0 blank, 0 skipped.\n"
    "lane deterministic_fluency, chosen by default: nothing in the path or the fields names a lane\n"
)


def refused(flag: str, path: str) -> str:
    return (f"surface-lint: error: {flag} {path}: this file is an input of the run; refusing to write over it "
            "(choose another output file)\n")


@pytest.mark.parametrize("spelling", ["t.jsonl", "./t.jsonl", "sub/../t.jsonl", "link.jsonl", "hard.jsonl"])
def test_check_output_naming_its_input_is_refused_and_the_input_kept(tmp_path: Path, spelling: str) -> None:
    turns = write_turns(tmp_path / "t.jsonl")
    (tmp_path / "sub").mkdir()
    (tmp_path / "link.jsonl").symlink_to("t.jsonl")
    os.link(turns, tmp_path / "hard.jsonl")
    before = turns.read_bytes()
    run = cli("check", "t.jsonl", "-o", spelling, cwd=tmp_path)
    shown = {"./t.jsonl": "t.jsonl"}.get(spelling, spelling)  # argparse's Path drops a leading ./
    assert (run.code, run.out, run.err) == (2, "", refused("-o", shown))
    assert turns.read_bytes() == before


def test_lane_output_naming_a_transcript_case_file_or_baseline_is_refused(tmp_path: Path) -> None:
    write_turns(tmp_path / "t.jsonl")
    (tmp_path / "base.json").write_text("{}", "utf-8")
    run = cli("--lane", LANE, "--transcripts", "t.jsonl", "-o", "t.jsonl", cwd=tmp_path)
    assert (run.code, run.err) == (2, refused("-o", "t.jsonl"))
    run = cli("--lane", LANE, "--transcripts", "t.jsonl", "--baseline", "base.json", "-o", "base.json", cwd=tmp_path)
    assert (run.code, run.err) == (2, refused("-o", "base.json"))
    run = cli("--lane", LANE, "--transcripts", "t.jsonl", "--baseline", "t.jsonl", "--update-baseline", cwd=tmp_path)
    assert (run.code, run.err) == (2, refused("--update-baseline", "t.jsonl"))
    assert (tmp_path / "base.json").read_text("utf-8") == "{}"


def test_diff_output_naming_a_run_is_refused(tmp_path: Path) -> None:
    write_turns(tmp_path / "old.jsonl")
    write_turns(tmp_path / "new.jsonl")
    run = cli("diff", "old.jsonl", "new.jsonl", "-o", "new.jsonl", cwd=tmp_path)
    assert (run.code, run.err) == (2, refused("-o", "new.jsonl"))


def test_dev_null_is_written_directly(tmp_path: Path) -> None:
    write_turns(tmp_path / "t.jsonl")
    run = cli("check", "t.jsonl", "-o", "/dev/null", cwd=tmp_path)
    assert (run.code, run.out, run.err) == (1, "", "")
    # `-` is stdout.
    assert cli("check", "t.jsonl", "-o", "-", cwd=tmp_path).out == CHECK_OUT


def test_missing_folders_are_created_and_the_file_is_what_stdout_would_show(tmp_path: Path) -> None:
    write_turns(tmp_path / "t.jsonl")
    run = cli("check", "t.jsonl", "-o", "missing/dir/x.txt", cwd=tmp_path)
    assert (run.code, run.out, run.err) == (1, "", "")
    assert (tmp_path / "missing" / "dir" / "x.txt").read_text("utf-8") == CHECK_OUT
    assert sorted(p.name for p in (tmp_path / "missing" / "dir").iterdir()) == ["x.txt"]  # no temporary left


def test_an_output_that_cannot_be_written_is_a_clear_error(tmp_path: Path) -> None:
    write_turns(tmp_path / "t.jsonl")
    (tmp_path / "folder").mkdir()
    (tmp_path / "plain").write_text("x", "utf-8")
    run = cli("check", "t.jsonl", "-o", "folder", cwd=tmp_path)
    assert (run.code, run.err) == (2, "surface-lint: error: -o folder: is a folder, not a file\n")
    run = cli("check", "t.jsonl", "-o", "plain/x.txt", cwd=tmp_path)
    assert (run.code, run.err) == (2, "surface-lint: error: -o plain/x.txt: cannot write: Not a directory\n")


def test_a_new_file_gets_the_usual_mode_and_an_existing_one_keeps_its_own(tmp_path: Path) -> None:
    write_turns(tmp_path / "t.jsonl")
    umask = os.umask(0o022)
    try:
        cli("check", "t.jsonl", "-o", "new.txt", cwd=tmp_path)
        kept = tmp_path / "kept.txt"
        kept.write_text("old", "utf-8")
        kept.chmod(0o600)
        cli("check", "t.jsonl", "-o", "kept.txt", cwd=tmp_path)
    finally:
        os.umask(umask)
    assert (tmp_path / "new.txt").stat().st_mode & 0o777 == 0o644
    assert kept.stat().st_mode & 0o777 == 0o600
    assert kept.read_text("utf-8") == CHECK_OUT


def test_an_output_through_a_symbolic_link_writes_the_file_it_names(tmp_path: Path) -> None:
    write_turns(tmp_path / "t.jsonl")
    (tmp_path / "real.txt").write_text("old", "utf-8")
    (tmp_path / "link.txt").symlink_to("real.txt")
    assert cli("check", "t.jsonl", "-o", "link.txt", cwd=tmp_path).code == 1
    assert (tmp_path / "link.txt").is_symlink()
    assert (tmp_path / "real.txt").read_text("utf-8") == CHECK_OUT


def test_a_failure_mid_write_leaves_the_old_file_and_no_temporary(tmp_path: Path) -> None:
    target = tmp_path / "report.txt"
    target.write_text("the old report\n", "utf-8")
    with pytest.raises(RuntimeError), open_output(str(target), []) as out:
        out.write("half of the new")
        out.flush()
        assert target.read_text("utf-8") == "the old report\n"  # the new bytes are elsewhere
        raise RuntimeError("the reporter failed")
    assert target.read_text("utf-8") == "the old report\n"
    assert [p.name for p in tmp_path.iterdir()] == ["report.txt"]


def test_a_kill_mid_write_leaves_the_old_file_whole(tmp_path: Path) -> None:
    target = tmp_path / "report.txt"
    target.write_text("the old report\n", "utf-8")
    script = textwrap.dedent(f"""
        import sys, time
        from surface_lint.reporters.outputs import open_output
        with open_output({str(target)!r}, []) as out:
            out.write("x" * 1_000_000)
            out.flush()
            print("writing", flush=True)
            time.sleep(60)
    """)
    env = {**os.environ, "PYTHONPATH": str(ROOT / "server")}
    child = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True, env=env)
    try:
        assert child.stdout is not None and child.stdout.readline() == "writing\n"
        child.send_signal(signal.SIGKILL)
        child.wait(timeout=30)
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
    assert target.read_text("utf-8") == "the old report\n"


def test_an_input_is_refused_before_anything_is_written(tmp_path: Path) -> None:
    turns = write_turns(tmp_path / "t.jsonl")
    with pytest.raises(UsageError), open_output(str(turns), [str(turns)]):
        raise AssertionError("never reached")


def test_the_step_summary_is_appended_atomically_and_never_an_input(tmp_path: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    write_turns(tmp_path / "t.jsonl")
    summary = tmp_path / "summary.md"
    summary.write_bytes(b"# earlier step \xff\n")  # bytes kept as they are, valid or not
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    run = cli("check", "t.jsonl", "--github-summary", cwd=tmp_path)
    assert run.code == 1
    written = summary.read_bytes()
    assert written.startswith(b"# earlier step \xff\n")
    markdown = cli("check", "t.jsonl", "--output-format", "markdown", cwd=tmp_path).out
    assert written == b"# earlier step \xff\n" + markdown.encode("utf-8")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["summary.md", "t.jsonl"]  # no temporary left
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(tmp_path / "t.jsonl"))
    run = cli("check", "t.jsonl", "--github-summary", cwd=tmp_path)
    assert (run.code, run.err) == (2, refused("GITHUB_STEP_SUMMARY", str(tmp_path / "t.jsonl")))


def test_text_that_cannot_be_encoded_is_escaped_not_a_crash(tmp_path: Path) -> None:
    target = tmp_path / "out.txt"
    with open_output(str(target), []) as out:
        out.write("half an emoji: \ud83d.\n")
    assert target.read_bytes() == b"half an emoji: \\ud83d.\n"


def test_the_config_and_lane_files_are_inputs_too(tmp_path: Path) -> None:
    write_turns(tmp_path / "t.jsonl")
    (tmp_path / "surface-lint.toml").write_text('profile = "contract"\n', "utf-8")
    lane = (ROOT / "rules" / "deterministic_fluency.toml").read_text("utf-8")
    (tmp_path / "my_lane.toml").write_text(lane, "utf-8")
    run = cli("check", "t.jsonl", "-o", "surface-lint.toml", cwd=tmp_path)
    assert (run.code, run.err) == (2, refused("-o", "surface-lint.toml"))
    run = cli("--lane", LANE, "--transcripts", "t.jsonl", "--lane-file", "my_lane.toml", "-o", "my_lane.toml",
              cwd=tmp_path)
    assert (run.code, run.err) == (2, refused("-o", "my_lane.toml"))
    assert (tmp_path / "surface-lint.toml").read_text("utf-8") == 'profile = "contract"\n'
    assert (tmp_path / "my_lane.toml").read_text("utf-8") == lane
