"""Case files past the in-memory threshold (engine/caseindex.py): kept on disk, scored and
reported byte for byte as the same data held in memory; duplicates, leaks and SL015 at their
exact positions; no temporary file left behind."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from cli_support import LANE, ROOT, cli

from surface_lint.engine import Engine, caseindex

FORMATS = ("text", "json", "json-lines", "sarif", "junit", "github", "markdown", "html")


def _case(case_id: str, prompt: str) -> str:
    return json.dumps({"id": case_id, "prompt": prompt, "category": "pack_definition",
                       "expected_predicates": ["complete_punctuation"]}, separators=(",", ":")) + "\n"


def _turn(case_id: str, surface: str) -> str:
    return json.dumps({"case_id": case_id, "surface": surface, "grounding_source": "none"}) + "\n"


@pytest.fixture
def tree(tmp_path: Path) -> dict[str, Path]:
    dev = tmp_path / LANE / "dev" / "cases.jsonl"
    hold = tmp_path / LANE / "holdouts" / "v1" / "cases.jsonl"
    turns = tmp_path / "turns.jsonl"
    dev.parent.mkdir(parents=True)
    hold.parent.mkdir(parents=True)
    dev.write_text(_case("c_001", "What is a lamp?") + _case("c_002", "What is a river?")
                   + _case("c_001", "What is a stone?") + '{"id": "c_004",\n'
                   + _case("c_003", "What is secret?") + _case("c_005", "What is a tree?"), "utf-8")
    hold.write_text(_case("h_001", "What is  SECRET?") + _case("c_002", "What is a cloud?"), "utf-8")
    turns.write_text(_turn("c_001", "A lamp gives light.") + _turn("c_002", "A river runs")
                     + _turn("c_003", "A secret is kept.") + _turn("stray_1", "Stray one.")
                     + _turn("stray_2", "Stray two.") + _turn("stray_1", "Stray again.")
                     + _turn("stray_3", "Stray three.") + _turn("h_001", "Held out."), "utf-8")
    return {"dev": dev, "hold": hold, "turns": turns}


def _run(tree: dict[str, Path], fmt: str) -> str:
    got = cli("--lane", LANE, "--cases", str(tree["dev"]), str(tree["hold"]), "--transcripts", str(tree["turns"]),
              "--output-format", fmt)
    assert got.code in (0, 1), got.err
    return got.out


def test_the_index_moves_to_disk_past_the_threshold(tree: dict[str, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    engine = Engine()
    _, small = engine.load_cases([str(tree["dev"]), str(tree["hold"])])
    assert not small.on_disk and len(small) == 5
    monkeypatch.setattr(caseindex, "MEMORY_CASES", 2)
    _, big = engine.load_cases([str(tree["dev"]), str(tree["hold"])])
    assert big.on_disk and len(big) == 5
    assert [c.id for c in big.ordered()] == ["c_001", "c_002", "c_003", "c_005", "h_001"]
    assert [c.id for c in big.ordered()] == [c.id for c in small.ordered()]
    first = big.get("c_001")
    assert first is not None and first.record.line == 1 and first.data["prompt"] == "What is a lamp?"
    assert big.get("c_004") is None and big.rank("c_005") == 3 and big.rank("nope") == -1
    assert sorted(big.by_id) == sorted(small.by_id)


@pytest.mark.parametrize("fmt", FORMATS)
def test_past_the_threshold_every_format_is_byte_identical(tree: dict[str, Path], fmt: str,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    in_memory = _run(tree, fmt)
    monkeypatch.setattr(caseindex, "MEMORY_CASES", 2)  # the cases (and the unjoined ids) on disk
    assert _run(tree, fmt) == in_memory


@pytest.mark.parametrize("limit", [1000, 2])
def test_duplicates_leaks_and_sl015_at_exact_positions(tree: dict[str, Path], limit: int,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(caseindex, "MEMORY_CASES", limit)
    got = json.loads(_run(tree, "json"))
    dev, hold, turns = str(tree["dev"]), str(tree["hold"]), str(tree["turns"])
    found = [(f["code"], f["path"], f["line"], f["column"], f["end_line"], f["end_column"], f["message"],
              [x["title"] for x in f.get("fixes", [])])
             for f in got["findings"] if f["code"] in ("SL001", "SL005", "SL006", "SL015")]
    assert sorted(found) == sorted([
        ("SL001", dev, 4, 16, 4, 16, "invalid JSON: Expecting property name enclosed in double quotes", []),
        ("SL005", dev, 3, 7, 3, 14, "duplicate case id `c_001` (first at this file:1)", ["Renumber to `c_004`"]),
        # Across files the renumbering skips c_004, already offered for the duplicate within dev.
        ("SL005", hold, 2, 7, 2, 14, f"duplicate case id `c_002` (first at {dev}:2)", ["Renumber to `c_006`"]),
        ("SL006", dev, 5, 24, 5, 41, f"this dev case repeats the prompt of holdout `h_001` ({hold}:1)", []),
        ("SL015", dev, 6, 7, 6, 14, "case `c_005` has no scored turn in the transcripts; left out of the metrics", []),
        ("SL015", turns, 4, 13, 4, 22, "case id `stray_1` matches no case in the given case files", []),
        ("SL015", turns, 5, 13, 5, 22, "case id `stray_2` matches no case in the given case files", []),
        ("SL015", turns, 7, 13, 7, 22, "case id `stray_3` matches no case in the given case files", []),
    ])
    assert got["missing_transcripts"] == ["c_005"]
    assert got["unknown_cases"] == ["stray_1", "stray_2", "stray_3"]
    assert got["counts"]["cases"] == 4


def _many(tmp_path: Path, n: int) -> tuple[Path, Path]:
    cases, turns = tmp_path / "cases.jsonl", tmp_path / "turns.jsonl"
    cases.write_text("".join(_case(f"m_{i:05d}", f"What is item {i}?") for i in range(n))
                     + _case("m_00007", "What is a repeat?"), "utf-8")
    turns.write_text("".join(_turn(f"m_{i:05d}", f"Item {i} is here.") for i in range(0, n, 2))
                     + "".join(_turn(f"x_{i:05d}", "No case.") for i in range(n)), "utf-8")
    return cases, turns


def test_a_real_run_past_the_default_threshold_leaves_no_temporary_file(tmp_path: Path) -> None:
    n = caseindex.MEMORY_CASES + 100
    cases, turns = _many(tmp_path, n)
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    env = {**os.environ, "TMPDIR": str(scratch), "PYTHONPATH": str(ROOT / "server")}
    out = tmp_path / "out.json"
    proc = subprocess.run([sys.executable, "-m", "surface_lint", "--lane", LANE, "--cases", str(cases),
                           "--transcripts", str(turns), "--output-format", "json", "-o", str(out)],
                          capture_output=True, text=True, env=env, check=False)
    assert proc.returncode in (0, 1), proc.stderr
    assert sorted(os.listdir(scratch)) == []
    got = json.loads(out.read_text("utf-8"))
    assert got["counts"]["cases"] == (n + 1) // 2
    assert len(got["missing_transcripts"]) == n // 2 and got["missing_transcripts"][:2] == ["m_00001", "m_00003"]
    assert len(got["unknown_cases"]) == n and got["unknown_cases"][-1] == f"x_{n - 1:05d}"
    dup = [f for f in got["findings"] if f["code"] == "SL005"]
    assert [(f["line"], f["column"], f["message"]) for f in dup] == [
        (n + 1, 7, "duplicate case id `m_00007` (first at this file:8)")]
    assert dup[0]["fixes"][0]["title"] == f"Renumber to `m_{n:05d}`"


def test_past_the_default_threshold_equals_the_in_memory_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    n = caseindex.MEMORY_CASES + 100
    cases, turns = _many(tmp_path, n)
    args = ("--lane", LANE, "--cases", str(cases), "--transcripts", str(turns), "--output-format", "json")
    on_disk = cli(*args).out
    monkeypatch.setattr(caseindex, "MEMORY_CASES", 10 * n)
    assert cli(*args).out == on_disk


def _diff_inputs(tmp_path: Path) -> tuple[Path, Path, Path]:
    cases = tmp_path / "cases.jsonl"
    cases.write_text("".join(_case(f"d_{i:03d}", f"What is item {i}?") for i in range(12)), "utf-8")
    old, new = tmp_path / "old.jsonl", tmp_path / "new.jsonl"
    # d_000..d_009 in the old run, d_002..d_011 in the new; d_003 and d_005 lose their full stop (SL103).
    old.write_text("".join(_turn(f"d_{i:03d}", f"Item {i} is here.") for i in range(10)), "utf-8")
    new.write_text("".join(_turn(f"d_{i:03d}", f"Item {i} is here" + ("" if i in (3, 5) else "."))
                           for i in range(2, 12)), "utf-8")
    return cases, old, new


@pytest.mark.parametrize("fmt", ["text", "json", "markdown", "html", "junit", "sarif", "github"])
def test_diff_past_the_threshold_is_byte_identical(tmp_path: Path, fmt: str, monkeypatch: pytest.MonkeyPatch) -> None:
    cases, old, new = _diff_inputs(tmp_path)
    args = ("diff", str(old), str(new), "--cases", str(cases), "--lane", LANE, "--output-format", fmt)
    in_memory = cli(*args)
    monkeypatch.setattr(caseindex, "MEMORY_CASES", 2)  # old run's views, new ids, flips: all on disk
    on_disk = cli(*args)
    assert (on_disk.code, on_disk.out) == (in_memory.code, in_memory.out)


def test_diff_past_the_threshold_names_new_vanished_and_flipped_cases(tmp_path: Path,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    cases, old, new = _diff_inputs(tmp_path)
    monkeypatch.setattr(caseindex, "MEMORY_CASES", 2)
    got = cli("diff", str(old), str(new), "--cases", str(cases), "--lane", LANE, "--output-format", "json")
    assert got.code == 1
    report = json.loads(got.out)
    assert [c["case_id"] for c in report["new_cases"]] == ["d_010", "d_011"]
    assert [c["case_id"] for c in report["vanished_cases"]] == ["d_000", "d_001"]
    assert [c["case_id"] for c in report["changed"]] == ["d_003", "d_005"]
    assert report["unchanged"] == 6


def test_a_case_nested_too_deep_to_pickle_is_kept_on_disk_as_its_line(tmp_path: Path,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    cases, turns = tmp_path / "cases.jsonl", tmp_path / "turns.jsonl"
    deep = '{"id":"deep","prompt":' + "[" * 600 + "]" * 600 + ',"category":"pack_definition",' \
        '"expected_predicates":["complete_punctuation"],"extra":' + "[" * 600 + "]" * 600 + "}\n"
    cases.write_text(_case("a_001", "What is a lamp?") + deep + _case("a_002", "What is a river?"), "utf-8")
    turns.write_text(_turn("deep", "No full stop") + _turn("a_001", "A lamp gives light."), "utf-8")
    args = ("--lane", LANE, "--cases", str(cases), "--transcripts", str(turns), "--output-format", "json")
    in_memory = cli(*args)
    monkeypatch.setattr(caseindex, "MEMORY_CASES", 1)
    on_disk = cli(*args)
    assert (on_disk.code, on_disk.out) == (in_memory.code, in_memory.out)
    got = json.loads(on_disk.out)
    assert [(f["code"], f["line"], f["column"], f["message"]) for f in got["findings"]
            if f["path"] == str(cases)][:2] == [
        ("SL003", 2, 23, "`prompt` must be a string, not an array"),
        ("SL012", 2, 1300, "unknown field `extra` for lane deterministic_fluency"),
    ]
    assert got["missing_transcripts"] == ["a_002"] and got["counts"]["cases"] == 2


def test_a_file_added_whole_then_one_streamed_past_the_threshold(tree: dict[str, Path]) -> None:
    from surface_lint.sources.cases import read_case_file

    engine = Engine()
    lane = engine.lane(LANE)
    index = caseindex.CaseIndex(memory_cases=3)
    index.add(read_case_file(str(tree["dev"]), tree["dev"].read_bytes(), lane))
    assert not index.on_disk
    with tree["hold"].open("rb") as fh:
        index.read(str(tree["hold"]), fh, lane)
    index.finish()
    assert index.on_disk and len(index) == 5
    dev, hold = str(tree["dev"]), str(tree["hold"])
    assert [(f.code, f.path, f.location.line) for f in index.findings] == [
        ("SL001", dev, 4), ("SL005", dev, 3), ("SL005", hold, 2), ("SL006", dev, 5)]
    twin = index.get("c_002")
    assert twin is not None and twin.path == dev and index.get("h_001") is not None
    index.close()


def test_ids_on_disk_sort_as_python_sorts_them() -> None:
    ids = ["b", "a", "\u00e9", "\U0001f600", "\ud83d", "\uffff", "A", "", "a\u0000", "z" * 50, "a"]
    small, big = caseindex.IdSet(memory=100), caseindex.IdSet(memory=1)
    assert [small.add(i) for i in ids] == [big.add(i) for i in ids] == [True] * 10 + [False]
    assert list(big.sorted()) == list(small.sorted()) == sorted(set(ids))
    assert len(big) == 10 and "\ud83d" in big and "q" not in big
    assert big.sorted()[1:3] == sorted(set(ids))[1:3] and big.sorted()[-1] == "\U0001f600"
