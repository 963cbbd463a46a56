"""The three transcript shapes, auto-detection, --kind override, lane detection."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from engine_support import S, assert_counts, cases_index, check, fts, turn, write

from surface_lint.cli.main import main
from surface_lint.engine import Engine
from surface_lint.sources.transcripts import sniff

FLU = "deterministic_fluency"


@pytest.fixture(scope="module")
def engine() -> Engine:
    return Engine()


# --- turn JSONL ----------------------------------------------------------------------------

CANONICAL = {
    "case_id": "c1",
    "turn_index": 0,
    "role": "prompt",
    "scored": True,
    "prompt": "What is truth?",
    "surface": "Truth is ... true.",
    "grounding_source": "pack",
    "vault_hits": 0,
    "trace_hash": None,
    "pack_mutation_proposal": None,
    "chain": 0,
}


def test_turn_jsonl_with_every_canonical_field(engine: Engine, tmp_path: Path) -> None:
    line = json.dumps(CANONICAL)
    cases = write(tmp_path / "cases.jsonl",
                  [{"id": "c1", "prompt": "What is truth?", "expected_predicates": ["no_placeholder"]}])
    index = cases_index(engine, cases, FLU)
    result = check([line], engine=engine, cases=index)
    assert (result.kind, result.lane) == ("turns", FLU)
    dots = line.index("...") + 1
    assert fts(result.findings) == [
        ("t.jsonl", 1, dots, 1, dots + 3, "SL101", "error", "no_placeholder: placeholder marker `...` in the surface"),
    ]
    (record,) = result.records
    assert (record.id, record.kind) == ("c1", "turn")
    assert record.verdicts is not None and record.verdicts["no_placeholder"].passed is False
    assert record.id_location is not None and (record.id_location.column, record.id_location.end_column) == (13, 17)
    assert record.case_location is not None and record.case_location.path == str(cases)
    assert (result.stats.lines, result.stats.records) == (1, 1)


def test_turn_wrong_types_are_findings_and_the_turn_is_kept(engine: Engine) -> None:
    line = '{"case_id": "c1", "surface": "It is ...", "turn_index": "0", "scored": "yes", "vault_hits": 1.5}'
    found = check([line], engine=engine).findings
    col = {k: line.index(v) + 1 for k, v in [("ti", '"0"'), ("sc", '"yes"'), ("vh", "1.5")]}
    assert fts(found, {"SL003"}) == [
        ("t.jsonl", 1, col["ti"], 1, col["ti"] + 3, "SL003", "error", "`turn_index` must be an integer or null, not a string"),
        ("t.jsonl", 1, col["sc"], 1, col["sc"] + 5, "SL003", "error", "`scored` must be a boolean or null, not a string"),
        ("t.jsonl", 1, col["vh"], 1, col["vh"] + 3, "SL003", "error", "`vault_hits` must be an integer or null, not a number"),
    ]
    assert "SL101" in [f.code for f in found]


def test_turn_without_surface_or_case_id(engine: Engine) -> None:
    lines = ['{"prompt": "What is truth?"}', '{"case_id": "c2", "prompt": "What is light?"}', turn("It is fine.")]
    result = check(lines, engine=engine, kind="turns")
    assert fts(result.findings) == [
        ("t.jsonl", 1, 1, 1, 29, "SL002", "error", "a turn needs `case_id` and `surface`"),
        ("t.jsonl", 2, 1, 2, 46, "SL002", "error", "missing field `surface`"),
    ]
    assert_counts(result.stats)


# --- lane reports: `cases` and the older `case_details` ------------------------------------


def _report(key: str, extra: str = "") -> str:
    return (
        "{\n"
        f'  "lane": "deterministic_fluency",{extra}\n'
        f'  "{key}": [\n'
        '    {"case_id": "c1", "grounding_source": "pack", "surface": "river flows valley"},\n'
        '    {"case_id": "c2", "grounding_source": "pack", "surface": "It is fine."}\n'
        "  ]\n"
        "}\n"
    )


@pytest.mark.parametrize("key", ["cases", "case_details"])
def test_lane_report_in_both_variants(engine: Engine, key: str) -> None:
    result = check(_report(key), path="report.json", engine=engine)
    assert (result.kind, result.lane) == ("report", FLU)
    assert fts(result.findings) == [
        ("report.json", 4, 80, 4, 81, "SL103", "warning",
         "complete_punctuation: the surface ends with `y`, not terminal punctuation (`.` `?` `!` `;`)"),
    ]
    assert [(r.id, r.kind) for r in result.records] == [("c1", "report-case"), ("c2", "report-case")]
    assert (result.stats.lines, result.stats.records, result.stats.errors) == (7, 2, 0)


def test_compact_one_line_report_is_still_a_report(engine: Engine, tmp_path: Path) -> None:
    text = json.dumps({"lane": FLU, "cases": [{"case_id": "c1", "grounding_source": "pack",
                                             "surface": "river flows valley"}]})
    path = write(tmp_path / "compact.json", text + "\n")
    assert [f.code for f in check(text, path="c.json", engine=engine).findings] == ["SL103"]
    result = engine.score(None, [], [str(path)])
    assert result.lane == FLU
    assert result.metrics["complete_punctuation_rate"] == 0.0
    assert [f.code for f in result.findings] == ["SL103"]


def test_report_with_a_non_list_cases_and_non_object_entries(engine: Engine) -> None:
    text = '{"lane": "deterministic_fluency", "cases": {"c1": 1}}'
    assert fts(check(text, path="r.json", engine=engine).findings) == [
        ("r.json", 1, 44, 1, 53, "SL003", "error", "`cases` must be an array, not an object"),
    ]
    text = '{"lane": "deterministic_fluency", "cases": [1, {"case_id": "c1", "surface": "It is."}]}'
    result = check(text, path="r.json", engine=engine)
    assert fts(result.findings) == [
        ("r.json", 1, 45, 1, 46, "SL003", "error", "a case entry must be an object, not a number"),
    ]
    assert (result.stats.records, result.stats.errors) == (1, 1)


# --- runtime telemetry JSONL ------------------------------------------------------------------

TELEMETRY = [
    '{"refusal_emitted":false,"turn":1,"vault_hits":0}',
    '{"candidates_count":0,"type":"reboot"}',
    '{"grounding_source":"pack","surface":"Truth is ... true.","turn":2,"vault_hits":1}',
    "",
    '{"refusal_emitted":true,"turn":3,"vault_hits":0}',
]


def test_telemetry_lints_surface_lines_and_skips_the_rest(engine: Engine) -> None:
    result = check(TELEMETRY, path="telemetry.jsonl", engine=engine)
    assert result.kind == "telemetry"
    assert fts(result.findings) == [
        ("telemetry.jsonl", 3, 48, 3, 51, "SL101", "error",
         "no_placeholder: placeholder marker `...` in the surface"),
    ]
    s = result.stats
    # A line that is read and then skipped counts once, as skipped.
    assert (s.lines, s.records, s.errors, s.blank, s.skipped) == (5, 1, 0, 1, 3)
    assert_counts(s)
    # Record indexes (for suppression) stay those of the parsed objects, skipped ones included.
    assert [f.record_index for f in result.findings] == [2]


def test_telemetry_turn_index_comes_from_turn(engine: Engine) -> None:
    import io

    from surface_lint.sources.base import JsonlReader
    from surface_lint.sources.transcripts import iter_turns

    reader = JsonlReader("t")
    turns = list(iter_turns("t", io.BytesIO("\n".join(TELEMETRY).encode()), "telemetry", reader))
    assert [(t.turn_index, t.role, t.scored, t.case_id, t.grounding) for t in turns] == [(2, "turn", False, None, "pack")]


# --- detection --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("data", "kind"),
    [
        (json.dumps(CANONICAL) + "\n", "turns"),
        ('{"surface": "x"}\n', "turns"),
        ("\n".join(TELEMETRY), "telemetry"),
        ('{"type": "reboot"}\n{"turn": 1}\n', "telemetry"),
        ('{"id": "c1", "prompt": "p", "expected_predicates": []}\n', "cases"),
        (_report("cases"), "report"),
        (_report("case_details"), "report"),
        ('{\n  "metrics": {"premise_recall": 1.0},\n  "lane": "symbolic_logic"\n}\n', "report"),
        ("\ufeff" + json.dumps(CANONICAL) + "\n", "turns"),
        ("", None),
        ("not json at all\n", None),
    ],
)
def test_sniff_detects_each_shape(data: str, kind: str | None) -> None:
    assert sniff(data.encode("utf-8"))[0] == kind


def test_kind_override_reads_a_file_as_told(engine: Engine) -> None:
    # Looks like cases (an `id`), read as turns: no case checks, the turn lacks case_id/surface.
    data = '{"id": "c1", "prompt": "What is truth?"}\n'
    assert [f.code for f in check(data, engine=engine, lane_name=FLU).findings] == ["SL002"]
    assert check(data, engine=engine).kind == "cases"
    result = check(data, engine=engine, kind="turns", lane_name=FLU)
    assert result.kind == "turns"
    assert fts(result.findings) == [("t.jsonl", 1, 1, 1, 41, "SL002", "error", "a turn needs `case_id` and `surface`")]
    # Telemetry read as turns: the surface-less lines are errors, not skipped.
    result = check(TELEMETRY, engine=engine, kind="turns")
    assert [f.code for f in result.findings] == ["SL002", "SL002", "SL101", "SL002"]


def test_kind_override_on_the_command_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write(tmp_path / "x.jsonl", "\n".join(TELEMETRY) + "\n")
    assert main(["check", str(path), "--output-format", "json"]) == 1
    auto = json.loads(capsys.readouterr().out)
    assert (auto["counts"]["skipped"], [f["code"] for f in auto["findings"]]) == (3, ["SL101"])
    assert main(["check", str(path), "--kind", "turns", "--output-format", "json"]) == 1
    forced = json.loads(capsys.readouterr().out)
    assert [f["code"] for f in forced["findings"]] == ["SL002", "SL002", "SL101", "SL002"]


def test_lane_from_the_reports_lane_field(engine: Engine) -> None:
    text = _report("cases").replace(FLU, "multi_sentence_response")
    assert check(text, path="anything.json", engine=engine).lane == "multi_sentence_response"


@pytest.mark.parametrize(
    ("path", "lane"),
    [
        ("evals/multi_sentence_response/dev/turns.jsonl", "multi_sentence_response"),
        ("captures/symbolic_logic_public_v1.jsonl", "symbolic_logic"),
        ("captures/run_multi_sentence_response.jsonl", "multi_sentence_response"),
        ("captures/anything.jsonl", "deterministic_fluency"),
    ],
)
def test_lane_from_the_path(engine: Engine, path: str, lane: str) -> None:
    assert check([turn("It is fine.")], path=path, engine=engine).lane == lane


def test_lane_from_the_shape_of_a_symbolic_capture(engine: Engine) -> None:
    line = '{"case_id": "S1", "role": "probe", "chain": 0, "surface": "It is.", "vault_hits": 1, "trace_hash": "h"}'
    assert check([line], path="capture.jsonl", engine=engine).lane == "symbolic_logic"


def test_lane_argument_overrides_detection(engine: Engine) -> None:
    result = check([turn("It is fine.")], path="evals/symbolic_logic/x.jsonl", engine=engine,
                   lane_name="multi_sentence_response")
    assert result.lane == "multi_sentence_response"


def test_surface_column_constant_matches_turn_layout() -> None:
    assert turn("X").index("X") + 1 == S


def test_sl015_a_turn_whose_case_id_matches_no_case(engine: Engine, tmp_path: Path) -> None:
    cases = write(tmp_path / "cases.jsonl", [{"id": "c1", "prompt": "What is truth?", "expected_predicates": []}])
    index = cases_index(engine, cases, FLU)
    line = turn("It is fine.", case_id="c9")
    found = check([line], engine=engine, cases=index).findings
    assert [(f.code, f.location.column, f.location.end_column) for f in found] == [("SL015", 13, 17)]
