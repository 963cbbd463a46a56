"""`check <case file>` streamed (engine/casefile.py): the file and its sibling case files go
through a CaseIndex (on disk past caseindex.MEMORY_CASES); the findings are the editor's
(`check_bytes`, the file read whole), at the same positions, byte for byte in every format,
either side of the threshold; no temporary file is left behind."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from cli_support import ROOT, cli

from surface_lint.engine import Engine, caseindex
from surface_lint.model.findings import sorted_findings

LANE = "deterministic_fluency"
FORMATS = ("text", "json", "json-lines", "sarif", "junit", "github", "markdown", "html")


def _case(case_id: str, prompt: Any, **more: Any) -> str:
    return json.dumps({"id": case_id, "prompt": prompt, "category": "pack_definition",
                       "expected_predicates": ["complete_punctuation"], **more}) + "\n"


@pytest.fixture
def tree(tmp_path: Path) -> dict[str, Path]:
    root = tmp_path / LANE
    dev, public, hold = root / "dev" / "cases.jsonl", root / "public" / "v1" / "cases.jsonl", root / "holdouts" / "v1" / "cases.jsonl"
    for path in (dev, public, hold):
        path.parent.mkdir(parents=True)
    dev.write_text(_case("f_001", "What is a lamp?") + _case("f_002", "What is a river?")
                   + _case("f_009", "What is a hill?"), "utf-8")
    hold.write_text(_case("h_001", "What is a SECRET?") + _case("f_002", "What is a cloud?"), "utf-8")
    public.write_text(
        _case("f_001", "What is a lamp?")             # 1: its first is in dev
        + _case("f_010", "What is   a secret?")       # 2: repeats holdout h_001's prompt
        + _case("f_001", "What is a stone?")          # 3: a later twin within the file (and of dev's): once
        + '{"id": "f_011",\n'                         # 4: broken JSON
        + _case("f_012", "What is \ud83d a tree?")    # 5: an unpaired surrogate
        + _case("f_013", "What is a leaf?", extra=1)  # 6: an unknown field
        + _case("f_002", "What is a sky?", surface_lint={"disable": ["SL005"]})  # 7: its SL005 suppressed
        + _case("f_014", 5), "utf-8")                 # 8: a wrong type
    return {"dev": dev, "public": public, "hold": hold}


def _check(path: Path, fmt: str = "text") -> str:
    got = cli("check", str(path), "--output-format", fmt)
    assert got.code == 1, got.err
    return got.out


@pytest.mark.parametrize("memory", [2048, 2, 1])
def test_findings_at_exact_positions_either_side_of_the_threshold(tree: dict[str, Path], memory: int,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(caseindex, "MEMORY_CASES", memory)
    p, dev, hold = str(tree["public"]), str(tree["dev"]), str(tree["hold"])
    assert _check(tree["public"]).splitlines() == [
        f"{p}:1:8: SL005 [error] duplicate case id `f_001` (first at {dev}:1)",
        f"{p}:2:27: SL006 [error] this public case repeats the prompt of holdout `h_001` ({hold}:1)",
        f"{p}:3:8: SL005 [error] duplicate case id `f_001` (first at this file:1)",
        f"{p}:4:16: SL001 [error] invalid JSON: Expecting property name enclosed in double quotes",
        f"{p}:5:36: SL016 [warning] unpaired UTF-16 surrogate in `prompt` (half of a character); read as U+FFFD",
        f"{p}:6:126: SL012 [information] unknown field `extra` for lane deterministic_fluency",
        f"{p}:8:27: SL003 [error] `prompt` must be a string, not a number",
        "Found 7 finding(s) (5 error, 1 information, 1 warning) in 1 file(s); profile: contract.",
        "8 lines read: 7 records, 1 errors, 0 blank, 0 skipped.",
        "lane deterministic_fluency, chosen by path: the folder deterministic_fluency in the path",
    ]
    # The holdout file: its f_002 is a later twin of dev's (dev comes first in split order).
    assert _check(tree["hold"]).splitlines() == [
        f"{hold}:2:8: SL005 [error] duplicate case id `f_002` (first at {dev}:2)",
        "Found 1 finding(s) (1 error) in 1 file(s); profile: contract.",
        "2 lines read: 2 records, 0 errors, 0 blank, 0 skipped.",
        "lane deterministic_fluency, chosen by path: the folder deterministic_fluency in the path",
    ]


@pytest.mark.parametrize("fmt", FORMATS)
def test_every_format_byte_identical_either_side_of_the_threshold(tree: dict[str, Path], fmt: str,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    in_memory = _check(tree["public"], fmt)
    monkeypatch.setattr(caseindex, "MEMORY_CASES", 1)
    assert _check(tree["public"], fmt) == in_memory


@pytest.mark.parametrize("memory", [2048, 1])
def test_streamed_equals_the_editors_whole_read_on_every_corpus_case_file(memory: int, corpus: Path,
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(caseindex, "MEMORY_CASES", memory)
    engine = Engine()
    paths = sorted((corpus / "cases").rglob("*.jsonl"))
    assert len(paths) >= 11
    for path in paths:
        streamed: list[Any] = []
        stats = engine.check_file(str(path), None, None, None, streamed.append)
        whole = engine.check_bytes(str(path), path.read_bytes())
        assert [f.to_dict() for f in sorted_findings(streamed)] == [f.to_dict() for f in whole.findings], path
        assert stats == whole.stats


def test_past_the_threshold_in_a_fresh_process_no_file_is_left(tmp_path: Path) -> None:
    n = caseindex.MEMORY_CASES + 1000
    public = tmp_path / LANE / "public" / "v1" / "cases.jsonl"
    hold = tmp_path / LANE / "holdouts" / "v1" / "cases.jsonl"
    public.parent.mkdir(parents=True)
    hold.parent.mkdir(parents=True)
    hold.write_text(_case("h_1", "What is case 7?") + _case("c_00005", "What is held?"), "utf-8")
    with public.open("w", encoding="utf-8") as fh:
        for i in range(n):
            fh.write(_case(f"c_{i:05d}", f"What is case {i}?"))
        fh.write(_case("c_00003", "What is again?"))  # line n + 1: a later twin within the file
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    env = {**os.environ, "TMPDIR": str(scratch), "PYTHONPATH": str(ROOT / "server")}
    proc = subprocess.run([sys.executable, "-m", "surface_lint", "check", str(public), "--output-format", "json"],
                          capture_output=True, text=True, env=env, check=False)
    assert proc.returncode == 1, proc.stderr
    assert sorted(os.listdir(scratch)) == []
    got = json.loads(proc.stdout)
    found = [(f["code"], f["line"], f["column"], f["message"]) for f in got["findings"]]
    assert found == [
        ("SL006", 8, 29, f"this public case repeats the prompt of holdout `h_1` ({hold}:1)"),
        ("SL005", n + 1, 8, "duplicate case id `c_00003` (first at this file:4)"),
    ]
    assert got["findings"][1]["fixes"][0]["replacement"] == f'"c_{n:05d}"'
