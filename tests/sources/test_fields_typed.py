"""Wrong-typed or extreme case, turn and report fields are findings, never crashes.

Every field the three lanes read (their `[case_schema]` in rules/*.toml, and the turn
format in the README) is tried with hostile values. A wrong-typed case field is SL003 at
its value and is otherwise absent for evaluation (its default), so the case is still
scored; a wrong-typed turn field is SL003 and read as null.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from engine_support import check, fts, write

from surface_lint.engine import Engine

DEEP = "[" * 600 + '"x"' + "]" * 600  # a value nested 600 deep (json.loads reads it)

# The turns each lane's passing case gets (every predicate passes on them).
PASSING_TURNS = {
    "deterministic_fluency": [{"case_id": "c1", "surface": "Truth is real."}],
    "multi_sentence_response": [{"case_id": "c1", "surface": "Truth is what is real. Light reveals the truth because it shines.",
                                 "grounding_source": "pack"}],
    "symbolic_logic": [
        {"case_id": "c1", "role": "probe", "surface": "Truth is real.", "vault_hits": 1, "trace_hash": "h"},
        {"case_id": "c1", "role": "probe", "surface": "Truth is real.", "vault_hits": 1, "trace_hash": "h", "chain": 1},
    ],
}
# A valid case of each lane, before its hostile field (written last on the line).
VALID_CASE = {
    "deterministic_fluency": '{"id": "c1", "prompt": "What is truth?", "category": "c", "expected_predicates": [], '
                             '"post_gloss_predicates": []',
    "multi_sentence_response": '{"id": "c1", "prompt": "What is truth?", "category": "c", "subject_lemma": "truth", '
                               '"expects_connective": false, "priming_prompts": []',
    "symbolic_logic": '{"id": "c1", "pattern": "p", "premises": [], "probe": "What is truth?", '
                      '"expected_proposals": 0, "min_vault_hits": 1',
}
# Each field a lane reads and the words of its type (as the SL003 message says them).
FIELDS = {
    "deterministic_fluency": {"prompt": "a string", "category": "a string",
                              "expected_predicates": "an array of strings",
                              "post_gloss_predicates": "an array of strings"},
    "multi_sentence_response": {"prompt": "a string", "category": "a string", "subject_lemma": "a string",
                                "expects_connective": "a boolean", "priming_prompts": "an array of strings"},
    "symbolic_logic": {"pattern": "a string", "premises": "an array of strings", "probe": "a string",
                       "expected_proposals": "an integer", "min_vault_hits": "an integer"},
}
# Hostile JSON values (source text) and the words the message uses for them.
HOSTILE = {
    '{"a": {"b": 1}}': "an object",
    "3": "a number",
    "1e999": "a number out of range (infinite)",
    "-Infinity": "a number out of range (infinite)",
    "NaN": "NaN",
    "true": "a boolean",
    "null": "null",
    '"text"': "a string",
    '[1, {"a": 2}]': "an array",
    DEEP: "an array",
}
# A value of the field's own type (no finding), per type.
FITS = {"a string": ('"text"',), "an array of strings": ("[]",), "a boolean": ("true",),
        "an integer": ("3",)}


def _case_line(lane: str, field: str, value: str) -> str:
    text = VALID_CASE[lane]
    # Drop the valid value of the field, then append the hostile one last.
    obj = json.loads(text + "}")
    del obj[field]
    return json.dumps(obj)[:-1] + f', "{field}": {value}' + "}"


CASES_OF = [(lane, field, value) for lane, fields in FIELDS.items() for field in fields for value in HOSTILE]


@pytest.mark.parametrize(("lane", "field", "value"), CASES_OF,
                         ids=[f"{lane[:5]}-{field}-{value[:8]}" for lane, field, value in CASES_OF])
def test_every_case_field_with_every_hostile_value(lane: str, field: str, value: str, tmp_path: Path) -> None:
    line = _case_line(lane, field, value)
    cases = write(tmp_path / "evals" / lane / "dev" / "cases.jsonl", line + "\n")
    column = line.index(f'"{field}": ') + len(f'"{field}": ') + 1
    expected_type = FIELDS[lane][field]
    if value in FITS[expected_type]:
        expected = []
    else:
        expected = [(str(cases), 1, column, 1, column + len(value), "SL003", "error",
                     f"`{field}` must be {expected_type}, not {HOSTILE[value]}")]
    result = check(cases.read_bytes(), path=str(cases), siblings=False)
    assert fts(result.findings, None if expected else ["SL003"]) == expected
    assert [r.id for r in result.records] == ["c1"]
    # Scored: the wrong-typed field counts as absent; the case is scored and passes.
    turns = write(tmp_path / "t.jsonl", [json.dumps(t) for t in PASSING_TURNS[lane]])
    scored = Engine().score(lane, [str(cases)], [str(turns)])
    assert scored.case_count == 1 and scored.missing_transcripts == []
    assert fts(scored.findings, ["SL003"]) == expected
    if expected:  # absent, the field takes its default: every predicate passes
        assert scored.failing_count == 0


def test_the_four_crashes_of_issue_8_exactly(tmp_path: Path) -> None:
    lines = {
        "deterministic_fluency": ('{"id": "c1", "prompt": {"text": "What?"}, "expected_predicates": []}', 24, 41,
                                  "`prompt` must be a string, not an object"),
        "multi_sentence_response": ('{"id": "c1", "prompt": "What is truth?", "priming_prompts": 3}', 61, 62,
                                    "`priming_prompts` must be an array of strings, not a number"),
        "symbolic_logic": ('{"id": "c1", "premises": [], "probe": "What?", "expected_proposals": 0, '
                           '"min_vault_hits": 1e999}', 91, 96,
                           "`min_vault_hits` must be an integer, not a number out of range (infinite)"),
    }
    for lane, (line, col, end, message) in lines.items():
        cases = write(tmp_path / lane / "cases.jsonl", line + "\n")
        turns = write(tmp_path / f"{lane}.jsonl", [json.dumps(t) for t in PASSING_TURNS[lane]])
        expected = [(str(cases), 1, col, 1, end, "SL003", "error", message)]
        assert fts(check(cases.read_bytes(), path=str(cases), siblings=False).findings) == expected
        scored = Engine().score(lane, [str(cases)], [str(turns)])
        assert (scored.case_count, scored.failing_count, fts(scored.findings)) == (1, 0, expected)
    deep = write(tmp_path / "deep" / "cases.jsonl", '{"id": "c1", "prompt": ' + DEEP + ', "expected_predicates": []}\n')
    expected = [(str(deep), 1, 24, 1, 1227, "SL003", "error", "`prompt` must be a string, not an array")]
    assert fts(check(deep.read_bytes(), path=str(deep), lane_name="deterministic_fluency",
                     siblings=False).findings) == expected
    scored = Engine().score("deterministic_fluency", [str(deep)], [str(write(tmp_path / "t.jsonl",
                                                                            ['{"case_id": "c1", "surface": "It is."}']))])
    assert (scored.case_count, fts(scored.findings)) == (1, expected)


TURN_FIELDS = {"case_id": "a string", "turn_index": "an integer", "role": "a string", "scored": "a boolean",
               "prompt": "a string", "grounding_source": "a string", "vault_hits": "an integer",
               "trace_hash": "a string", "chain": "an integer"}
TURN_CASES = [(field, value) for field in TURN_FIELDS for value in HOSTILE if value not in ("null",)]


@pytest.mark.parametrize(("field", "value"), TURN_CASES, ids=[f"{f}-{v[:8]}" for f, v in TURN_CASES])
def test_every_turn_field_with_every_hostile_value(field: str, value: str, tmp_path: Path) -> None:
    head = '{"case_id": "c1", "surface": "Truth is real."' if field != "case_id" else '{"surface": "Truth is real."'
    line = head + f', "{field}": {value}' + "}"
    column = line.index(f'"{field}": ') + len(f'"{field}": ') + 1
    expected_type = TURN_FIELDS[field]
    fits = value in FITS[expected_type]
    expected = [] if fits else [("t.jsonl", 1, column, 1, column + len(value), "SL003", "error",
                                 f"`{field}` must be {expected_type} or null, not {HOSTILE[value]}")]
    # symbolic_logic is case-driven: scored with a case file (its one case, c1).
    cases = write(tmp_path / "cases.jsonl", [VALID_CASE["symbolic_logic"] + "}"])
    for lane, case_files in (("deterministic_fluency", []), ("symbolic_logic", [str(cases)])):
        result = check([line], path="t.jsonl", lane_name=lane)
        assert [f for f in fts(result.findings) if f[5] == "SL003"] == expected
        assert result.stats.records == 1
        Engine().score(lane, case_files, [str(write(tmp_path / "t.jsonl", [line]))])


def test_a_surface_nested_600_deep_and_proposals_of_any_shape(tmp_path: Path) -> None:
    lines = ['{"case_id": "c1", "surface": ' + DEEP + "}",
             '{"case_id": "c2", "role": "premise", "surface": "It is.", "pack_mutation_proposal": ' + DEEP + "}",
             '{"case_id": "c2", "role": "probe", "surface": "It is.", "vault_hits": 1, "trace_hash": "h"}']
    result = check(lines, path="t.jsonl", lane_name="symbolic_logic")
    assert fts(result.findings, ["SL003"]) == [
        ("t.jsonl", 1, 30, 1, 1233, "SL003", "error", "`surface` must be a string or null, not an array")]
    assert (result.stats.records, result.stats.skipped) == (2, 1)
    cases = write(tmp_path / "cases.jsonl", [VALID_CASE["symbolic_logic"].replace('"c1"', '"c2"') + "}"])
    scored = Engine().score("symbolic_logic", [str(cases)], [str(write(tmp_path / "t.jsonl", lines))])
    assert scored.case_count == 1


def test_a_report_entry_with_wrong_typed_case_fields_is_scored(tmp_path: Path) -> None:
    report: dict[str, Any] = {"lane": "multi_sentence_response", "cases": [
        {"case_id": "c1", "surface": "Truth is what is real. Light reveals the truth because it shines.",
         "grounding_source": "pack", "priming_prompts": 3, "subject_lemma": {"a": 1}, "expects_connective": "yes"}]}
    path = write(tmp_path / "r.json", json.dumps(report))  # the lane comes from the report
    result = check(path.read_bytes(), path="r.json")
    assert result.kind == "report" and fts(result.findings) == []
    scored = Engine().score(None, [], [str(path)])
    assert (scored.lane, scored.case_count, scored.failing_count) == ("multi_sentence_response", 1, 0)
