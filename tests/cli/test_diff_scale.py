"""`diff` either side of the in-memory threshold (the old run's cases in KeyedRows, on disk past
MEMORY_CASES): the exact same report in every format, read ahead in the new run's order or looked
up out of it, and no file left in the temporary folder."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from cli_support import LANE, ROOT, cli

from surface_lint.engine import caseindex
from surface_lint.reporters import DIFF_FORMATS

SL103 = "the surface ends with `e`, not terminal punctuation (`.` `?` `!` `;`)"


def _case(i: int) -> str:
    return json.dumps({"id": f"d_{i:03d}", "prompt": f"What is item {i}?", "category": "pack_definition",
                       "expected_predicates": ["complete_punctuation"]}, separators=(",", ":")) + "\n"


def _turn(i: int, surface: str) -> str:
    return json.dumps({"case_id": f"d_{i:03d}", "surface": surface, "grounding_source": "none"}) + "\n"


def _inputs(tmp_path: Path) -> tuple[Path, Path, Path]:
    """d_000..d_009 in the old run, d_002..d_011 in the new one, written in reverse (out of the old
    run's order); d_003, d_005 and d_007 (half an emoji in its surface) lose their full stop,
    d_006 gains one."""
    cases, old, new = tmp_path / "cases.jsonl", tmp_path / "old.jsonl", tmp_path / "new.jsonl"
    cases.write_text("".join(_case(i) for i in range(12)), "utf-8")
    emoji = {7: "Item 7 \ud83d is here"}
    old.write_text("".join(_turn(i, emoji.get(i, f"Item {i} is here") + ("" if i == 6 else "."))
                           for i in range(10)), "utf-8")
    new.write_text("".join(_turn(i, emoji.get(i, f"Item {i} is here") + ("" if i in (3, 5, 7) else "."))
                           for i in reversed(range(2, 12))), "utf-8")
    return cases, old, new


def _expected_text(old: Path, new: Path) -> str:
    def flip(i: int, old_surface: str, new_surface: str, regressed: bool) -> list[str]:
        word = f"pass -> FAIL: {SL103}" if regressed else "FAIL -> pass"
        return [f"  d_{i:03d}  complete_punctuation (SL103): {word}", f"    old: {old_surface}",
                f"    new: {new_surface}", f"    expected_pass: {'true -> false' if regressed else 'false -> true'}"]

    return "\n".join([
        f"diff {LANE}: {old} -> {new} · profile contract · REGRESSED (5 regression(s))",
        f"lane {LANE}, chosen by flag: --lane",
        "metrics:",
        "  cases                                10 -> 10             +0",
        "  complete_punctuation_rate        0.9000 -> 0.7000    -0.2000  REGRESSED",
        "  expected_predicates_pass_rate    0.9000 -> 0.7000    -0.2000  REGRESSED",
        "  finite_predicate_shape_rate      1.0000 -> 1.0000    +0.0000",
        "  no_dotted_inventory_rate         1.0000 -> 1.0000    +0.0000",
        "  no_placeholder_rate              1.0000 -> 1.0000    +0.0000",
        "  no_provenance_only_rate          1.0000 -> 1.0000    +0.0000",
        "  surface_provenance_match_rate    1.0000 -> 1.0000    +0.0000",
        "flipped verdicts (4 case(s)):",
        *flip(3, "Item 3 is here.", "Item 3 is here", True),
        *flip(5, "Item 5 is here.", "Item 5 is here", True),
        *flip(6, "Item 6 is here", "Item 6 is here.", False),
        *flip(7, "Item 7 \ufffd is here.", "Item 7 \ufffd is here", True),  # printed as the text writer prints it
        "new cases (2): d_010, d_011",
        "vanished cases (2): d_000, d_001",
        "unchanged: 4 case(s)",
    ]) + "\n"


def _empty_scratch(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A TMPDIR of the test's own (SQLite's scratch databases and the spools go there)."""
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    monkeypatch.setenv("TMPDIR", str(scratch))
    monkeypatch.setattr(tempfile, "tempdir", None)
    return scratch


@pytest.mark.parametrize("memory", [10_000, 2, 1])
def test_diff_text_is_exact_either_side_of_the_threshold(tmp_path: Path, memory: int,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    cases, old, new = _inputs(tmp_path)
    scratch = _empty_scratch(tmp_path, monkeypatch)
    monkeypatch.setattr(caseindex, "MEMORY_CASES", memory)
    monkeypatch.setattr(caseindex, "READ_AHEAD", 2)  # read ahead two rows, the rest looked up by id
    got = cli("diff", str(old), str(new), "--cases", str(cases), "--lane", LANE)
    assert (got.code, got.out) == (1, _expected_text(old, new))
    assert os.listdir(scratch) == []


@pytest.mark.parametrize("memory", [10_000, 2, 1])
def test_diff_json_names_the_same_cases_either_side_of_the_threshold(tmp_path: Path, memory: int,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    cases, old, new = _inputs(tmp_path)
    monkeypatch.setattr(caseindex, "MEMORY_CASES", memory)
    got = json.loads(cli("diff", str(old), str(new), "--cases", str(cases), "--lane", LANE,
                         "--output-format", "json").out)

    def change(i: int, regressed: bool, old_surface: str, new_surface: str) -> dict[str, object]:
        return {"case_id": f"d_{i:03d}", "group": "pack_definition", "regressed": regressed,
                "flips": [{"predicate": "complete_punctuation", "code": "SL103", "old": regressed,
                           "new": not regressed, "old_message": "" if regressed else SL103,
                           "new_message": SL103 if regressed else ""}],
                "old_surface": old_surface, "new_surface": new_surface,
                "fields": {"expected_pass": [regressed, not regressed]}}

    assert got["changed"] == [change(3, True, "Item 3 is here.", "Item 3 is here"),
                              change(5, True, "Item 5 is here.", "Item 5 is here"),
                              change(6, False, "Item 6 is here", "Item 6 is here."),
                              change(7, True, "Item 7 \ufffd is here.", "Item 7 \ufffd is here")]  # as written
    assert got["new_cases"] == [{"case_id": "d_010", "failed_predicates": []},
                                {"case_id": "d_011", "failed_predicates": []}]
    assert got["vanished_cases"] == [{"case_id": "d_000", "failed_predicates": []},
                                     {"case_id": "d_001", "failed_predicates": []}]
    assert (got["unchanged"], got["regressions"]) == (4, 5)


@pytest.mark.parametrize("with_cases", [True, False])
@pytest.mark.parametrize("fmt", sorted(DIFF_FORMATS))
def test_every_diff_format_is_byte_identical_either_side_of_the_threshold(
        tmp_path: Path, fmt: str, with_cases: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    cases, old, new = _inputs(tmp_path)
    scratch = _empty_scratch(tmp_path, monkeypatch)
    args = ("diff", str(old), str(new), *(("--cases", str(cases)) if with_cases else ()), "--lane", LANE,
            "--output-format", fmt)
    monkeypatch.setattr(caseindex, "MEMORY_CASES", 10_000)
    in_memory = cli(*args)
    assert in_memory.code == 1 and "d_007" in in_memory.out, in_memory.err
    monkeypatch.setattr(caseindex, "READ_AHEAD", 3)
    monkeypatch.setattr(caseindex, "HEAD_MEMO", 1)
    for memory in (2, 1):
        monkeypatch.setattr(caseindex, "MEMORY_CASES", memory)
        on_disk = cli(*args)
        assert (on_disk.code, on_disk.out) == (in_memory.code, in_memory.out)
    assert os.listdir(scratch) == []


def test_a_real_diff_past_the_default_threshold_leaves_no_temporary_file(tmp_path: Path,
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    n = caseindex.MEMORY_CASES + 300
    cases, old, new = tmp_path / "cases.jsonl", tmp_path / "old.jsonl", tmp_path / "new.jsonl"
    cases.write_text("".join(_case(i) for i in range(n)), "utf-8")
    # The old run lacks the first 10 cases, the new run the last 10; every 500th case loses its stop.
    old.write_text("".join(_turn(i, f"Item {i} is here.") for i in range(10, n)), "utf-8")
    new.write_text("".join(_turn(i, f"Item {i} is here" + ("" if i % 500 == 0 else ".")) for i in range(n - 10)),
                   "utf-8")
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    env = {**os.environ, "TMPDIR": str(scratch), "PYTHONPATH": str(ROOT / "server")}
    args = ["diff", str(old), str(new), "--cases", str(cases), "--lane", LANE, "--output-format", "json"]
    proc = subprocess.run([sys.executable, "-m", "surface_lint", *args], capture_output=True, text=True, env=env,
                          check=False)
    assert proc.returncode == 1, proc.stderr
    assert os.listdir(scratch) == []
    got = json.loads(proc.stdout)
    flipped = [i for i in range(10, n - 10) if i % 500 == 0]
    assert [c["case_id"] for c in got["changed"]] == [f"d_{i:03d}" for i in flipped]
    assert [c["case_id"] for c in got["new_cases"]] == [f"d_{i:03d}" for i in range(10)]
    assert [c["case_id"] for c in got["vanished_cases"]] == [f"d_{i:03d}" for i in range(n - 10, n)]
    assert got["unchanged"] == n - 20 - len(flipped)
    monkeypatch.setattr(caseindex, "MEMORY_CASES", 10 * n)
    assert cli(*args).out == proc.stdout
