"""Depth and size limits: a folder tree 1,500 deep, TOML nested 600 deep (config, pyproject,
lane), TOML files that are devices or over the size limit, a 48 MB lane file. Each gives its
answer or one line at file:line:column, never a traceback, never a read of the whole device."""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

import pytest
from cli_support import LANE, cli

from surface_lint.sources.paths import walk

ROOT = Path(__file__).resolve().parents[2]
TURN = json.dumps({"case_id": "c1", "surface": "Lamp gives light", "grounding_source": "none"}) + "\n"
DEEP_ARRAY = "x = " + "[" * 600 + "]" * 600 + "\n"


def _deep_tree(root: Path, depth: int) -> Path:
    """root/d/d/.../d/t.jsonl, `depth` folders deep (made one level at a time: os.makedirs recurses)."""
    here = os.open(root, os.O_RDONLY)
    try:
        folder = here
        for _ in range(depth):
            os.mkdir("d", dir_fd=folder)
            inner = os.open("d", os.O_RDONLY, dir_fd=folder)
            if folder != here:
                os.close(folder)
            folder = inner
        fd = os.open("t.jsonl", os.O_WRONLY | os.O_CREAT, 0o644, dir_fd=folder)
        os.write(fd, TURN.encode())
        os.close(fd)
        if folder != here:
            os.close(folder)
    finally:
        os.close(here)
    return root.joinpath(*["d"] * depth, "t.jsonl")


def _remove_deep_tree(root: Path) -> None:
    """Undo `_deep_tree` a level at a time (pytest's own clean-up of old temporary folders
    recurses, and would stop at a RecursionError on this tree)."""
    while (root / "d").is_dir():
        top = root / "d"
        if (top / "d").is_dir():
            (top / "d").rename(root / "next")
        for child in top.iterdir():
            child.unlink()
        top.rmdir()
        if (root / "next").is_dir():
            (root / "next").rename(top)


def test_check_a_folder_1500_deep(tmp_path: Path) -> None:
    deep = _deep_tree(tmp_path, 1500)
    (tmp_path / "loop").symlink_to(".")  # a link loop: listed, never entered
    try:
        got = cli("check", str(tmp_path), "--lane", LANE)
    finally:
        _remove_deep_tree(tmp_path)
    assert (got.code, got.err) == (1, "")
    assert got.out.splitlines() == [
        f"{deep}:1:46: SL103 [warning] complete_punctuation: the surface ends with `t`, not terminal punctuation "
        "(`.` `?` `!` `;`)",
        "Found 1 finding(s) (1 warning) in 1 file(s); profile: contract.",
        "1 lines read: 1 records, 0 errors, 0 blank, 0 skipped.",
        "lane deterministic_fluency, chosen by flag: --lane",
    ]


def test_walk_is_os_walks_order(tmp_path: Path) -> None:
    for rel in ("a/b/x.jsonl", "a/c/y.jsonl", "b/z.jsonl", "top.jsonl"):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text("{}\n")
    (tmp_path / "a" / "up").symlink_to("..")

    def listing(walker: object) -> list[tuple[str, list[str], list[str]]]:
        out = []
        for folder, dirs, names in walker:  # type: ignore[attr-defined]
            dirs.sort()
            out.append((os.path.relpath(folder, tmp_path), list(dirs), sorted(names)))
        return out

    assert listing(walk(tmp_path)) == listing(os.walk(tmp_path)) == [
        (".", ["a", "b"], ["top.jsonl"]), ("a", ["b", "c", "up"], []), ("a/b", [], ["x.jsonl"]),
        ("a/c", [], ["y.jsonl"]), ("b", [], ["z.jsonl"])]


@pytest.mark.parametrize(("name", "text"), [
    ("surface-lint.toml", DEEP_ARRAY),
    ("pyproject.toml", "[tool.surface-lint]\n" + DEEP_ARRAY),
])
def test_a_config_nested_600_deep_found_by_discovery(tmp_path: Path, name: str, text: str) -> None:
    (tmp_path / name).write_text(text, "utf-8")
    (tmp_path / "t.jsonl").write_text(TURN, "utf-8")
    got = cli("check", "t.jsonl", cwd=tmp_path)
    line = 2 if name == "pyproject.toml" else 1
    if name == "pyproject.toml":  # found by discovery only when it parses: then the turn is checked as usual
        assert (got.code, got.err) == (1, "")
        return
    assert (got.code, got.out, got.err) == (2, "", f"surface-lint: config error: {tmp_path / name}:{line}:1: invalid TOML: "
                                                   "arrays or inline tables nested too deeply (more than 64 levels)\n")


def test_a_named_pyproject_nested_600_deep(tmp_path: Path) -> None:
    config = tmp_path / "pyproject.toml"
    config.write_text("[tool.surface-lint]\n" + DEEP_ARRAY, "utf-8")
    (tmp_path / "t.jsonl").write_text(TURN, "utf-8")
    got = cli("check", "t.jsonl", "--config", str(config), cwd=tmp_path)
    assert (got.code, got.err) == (2, f"surface-lint: config error: {config}:1:1: invalid TOML: arrays or inline "
                                      "tables nested too deeply (more than 64 levels)\n")


def test_a_lane_file_nested_600_deep(tmp_path: Path) -> None:
    lane = tmp_path / "deep.toml"
    lane.write_text(DEEP_ARRAY, "utf-8")
    got = cli("lanes", "--lane-file", str(lane))
    assert got.err == (f"error: {lane}:1:1: invalid TOML: arrays or inline tables nested too deeply "
                       "(more than 64 levels)\n")
    assert got.code == 2


def _run(argv: list[str], cwd: Path, memory: int = 512 * 1024 * 1024) -> subprocess.CompletedProcess[str]:
    """A fresh process with its address space capped: a device read whole would fail, not thrash."""
    def cap() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (memory, memory))

    env = {**os.environ, "PYTHONPATH": str(ROOT / "server")}
    return subprocess.run([sys.executable, "-m", "surface_lint", *argv], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=60, preexec_fn=cap)


@pytest.mark.parametrize("device", ["/dev/zero", "/dev/urandom"])
def test_config_and_lane_files_that_are_devices_are_refused(tmp_path: Path, device: str) -> None:
    (tmp_path / "t.jsonl").write_text(TURN, "utf-8")
    got = _run(["check", "t.jsonl", "--config", device], tmp_path)
    assert (got.returncode, got.stderr) == (2, f"surface-lint: config error: {device}:1: config is not a regular "
                                               "file (a device or a pipe); not read\n")
    got = _run(["check", "t.jsonl", "--lane-file", device], tmp_path)
    assert (got.returncode, got.stderr) == (2, f"surface-lint: config error: {device}:1:1: rules file is not a regular "
                                               "file (a device or a pipe); not read\n")
    (tmp_path / "surface-lint.toml").write_text(f'lane-files = ["{device}"]\n', "utf-8")
    got = _run(["check", "t.jsonl"], tmp_path)
    assert (got.returncode, got.stderr) == (2, f"surface-lint: config error: {device}:1:1: rules file is not a regular "
                                               "file (a device or a pipe); not read\n")


def test_a_48_mb_lane_file_is_refused_at_once(tmp_path: Path) -> None:
    lane = tmp_path / "big.toml"
    items = ", ".join(f'"m{i:07d}"' for i in range(4_000_000))  # 4 million markers, 48 MB
    lane.write_text(f'[lane]\nname = "big"\n\n[[predicates]]\nname = "p"\nmarkers = [{items}]\n', "utf-8")
    assert lane.stat().st_size == 48_000_058
    started = time.monotonic()
    got = _run(["lanes", "--lane-file", str(lane)], tmp_path, memory=256 * 1024 * 1024)
    assert time.monotonic() - started < 10
    assert got.returncode == 2
    assert got.stderr.splitlines()[-1] == (f"error: {lane}:1:1: rules file is larger than 4 MiB (the limit for TOML "
                                           "files); not read")


def test_a_config_over_the_size_limit(tmp_path: Path) -> None:
    config = tmp_path / "surface-lint.toml"
    config.write_text("# padding\n" * 500_000, "utf-8")  # 5 MB of comments
    (tmp_path / "t.jsonl").write_text(TURN, "utf-8")
    got = cli("check", "t.jsonl", cwd=tmp_path)
    assert (got.code, got.err) == (2, f"surface-lint: config error: {config}:1: config is larger than 4 MiB (the "
                                      "limit for TOML files); not read\n")


@pytest.mark.parametrize("device", ["/dev/zero", "/dev/urandom"])
def test_a_baseline_that_is_a_device_is_refused(tmp_path: Path, device: str) -> None:
    (tmp_path / "t.jsonl").write_text(TURN, "utf-8")
    got = _run(["--lane", LANE, "--transcripts", "t.jsonl", "--baseline", device], tmp_path)
    assert (got.returncode, got.stderr) == (2, f"surface-lint: error: {device}: cannot read the baseline: not a "
                                               "regular file (a device or a pipe)\n")
