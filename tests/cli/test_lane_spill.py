"""`--lane` past the compact tally's spill thresholds (engine/compact.py, engine/spool.py): the
per-case arrays, the suspects of a repeated id and the unbucketed ids on disk, every format byte
for byte as in memory, the exact output, and no temporary file left behind."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from cli_support import LANE, ROOT, cli

from surface_lint.engine import caseindex, compact, spool

FORMATS = ("text", "json", "json-lines", "sarif", "junit", "github", "markdown", "html")
# Nine turns of six cases: `a` three times, `b` twice; the last record of a case wins.
TURNS = [("a", "Lamp one gives light."), ("b", "Lamp two gives light"), ("c", "Lamp three gives light."),
         ("a", "Lamp one gives light again"), ("d", "Lamp four gives light."), ("z", "Lamp zero gives light."),
         ("b", "Lamp two gives light."), ("a", "Lamp one gives light."), ("f", "Lamp six gives light")]
# Every structure on disk: 2-entry chunks, 1 suspect in memory, 1 id per spool batch, 1 case.
LOWERED = "import sys, surface_lint.engine.spool as s, surface_lint.engine.compact as c; " \
          "s.MEMORY_ENTRIES = 2; c.MEMORY_SUSPECTS = 1; c.MEMORY_IDS = 1; " \
          "from surface_lint.cli.main import main; sys.exit(main())"


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    (tmp_path / "t.jsonl").write_text("".join(
        json.dumps({"case_id": c, "surface": s, "grounding_source": "none"}) + "\n" for c, s in TURNS), "utf-8")
    (tmp_path / "cases.jsonl").write_text("".join(
        json.dumps({"id": c, "prompt": f"What is {c}?", "category": "pack_definition", "expected_predicates": []})
        + "\n" for c in "abcdefg"), "utf-8")
    return tmp_path


def _lower(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(spool, "MEMORY_ENTRIES", 2)
    monkeypatch.setattr(compact, "MEMORY_SUSPECTS", 1)
    monkeypatch.setattr(compact, "MEMORY_IDS", 1)
    monkeypatch.setattr(caseindex, "MEMORY_CASES", 1)


def _run(folder: Path, fmt: str, *extra: str) -> str:
    got = cli("--lane", LANE, "--transcripts", "t.jsonl", *extra, "--output-format", fmt, cwd=folder)
    assert got.code == 1, got.err
    return got.out


@pytest.mark.parametrize("fmt", FORMATS)
def test_past_the_spill_thresholds_every_format_is_byte_identical(folder: Path, fmt: str,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    in_memory = _run(folder, fmt), _run(folder, fmt, "--cases", "cases.jsonl")
    _lower(monkeypatch)
    assert (_run(folder, fmt), _run(folder, fmt, "--cases", "cases.jsonl")) == in_memory


@pytest.mark.parametrize("lowered", [False, True])
def test_the_text_report_of_repeated_ids_is_exact(folder: Path, lowered: bool,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    if lowered:
        _lower(monkeypatch)
    assert _run(folder, "text") == (
        "lane deterministic_fluency v1 · profile contract · thresholds v1 · 6 case(s)\n"
        "lane deterministic_fluency, chosen by flag: --lane\n"
        "  cases                                 6\n"
        "  complete_punctuation_rate        0.8333  >= 1         FAIL\n"
        "  expected_predicates_pass_rate    1.0000                     (headline metric)\n"
        "  finite_predicate_shape_rate      1.0000  >= 0.9       ok\n"
        "  no_dotted_inventory_rate         1.0000\n"
        "  no_placeholder_rate              1.0000  >= 1         ok\n"
        "  no_provenance_only_rate          1.0000\n"
        "  surface_provenance_match_rate    1.0000\n"
        "result: FAIL\n"
        "input problems:\n"
        "  t.jsonl:4:1: SL005 [warning] a second scored record for case `a` replaces the first\n"
        "  t.jsonl:7:1: SL005 [warning] a second scored record for case `b` replaces the first\n"
        "  t.jsonl:8:1: SL005 [warning] a second scored record for case `a` replaces the first\n"
        "failing cases: 1\n"
        "case f:\n"
        "  t.jsonl:9:49: SL103 [warning] complete_punctuation: the surface ends with `t`, not terminal "
        "punctuation (`.` `?` `!` `;`)\n"
        "9 lines read: 9 records, 0 errors, 0 blank, 0 skipped.\n")


@pytest.mark.parametrize("lowered", [False, True])
def test_the_json_lines_summary_streams_its_id_lists_exactly(folder: Path, lowered: bool,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    if lowered:
        _lower(monkeypatch)
    lines = _run(folder, "json-lines", "--cases", "cases.jsonl").splitlines()
    assert [json.loads(line)["case_id"] for line in lines if '"type":"case"' in line] == ["a", "b", "c", "d", "f"]  # case-file order
    assert lines[-1] == (
        '{"cases":5,"headline":"expected_predicates_pass_rate","lane":"deterministic_fluency",'
        '"lane_choice":{"chosen_by":"flag","how":"--lane","lane":"deterministic_fluency"},"metrics":{"cases":5,'
        '"complete_punctuation_rate":0.8,"expected_predicates_pass_rate":1.0,"finite_predicate_shape_rate":1.0,'
        '"no_dotted_inventory_rate":1.0,"no_placeholder_rate":1.0,"no_provenance_only_rate":1.0,'
        '"surface_provenance_match_rate":1.0},"missing_transcripts":["e","g"],"passed":false,"profile":"contract",'
        '"threshold_set":"v1","type":"summary","unknown_cases":["z"],"version":"v1"}')
    assert json.loads(lines[-1])["missing_transcripts"] == ["e", "g"]


def test_a_lowered_run_in_a_fresh_process_leaves_no_temporary_file(folder: Path) -> None:
    scratch = folder / "scratch"
    scratch.mkdir()
    env = {**os.environ, "TMPDIR": str(scratch), "PYTHONPATH": str(ROOT / "server")}
    outputs = []
    for program in (["-m", "surface_lint"], ["-c", LOWERED]):
        proc = subprocess.run([sys.executable, *program, "--lane", LANE, "--transcripts", "t.jsonl",
                               "--output-format", "json-lines"], cwd=folder, capture_output=True, text=True,
                              env=env, check=False)
        assert proc.returncode == 1, proc.stderr
        outputs.append(proc.stdout)
        assert sorted(os.listdir(scratch)) == []
    assert outputs[0] == outputs[1]
    assert outputs[0].count('"code":"SL005"') == 3
