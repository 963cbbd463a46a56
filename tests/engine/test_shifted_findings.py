"""Findings of a repeated failing surface, remembered per (failures, raw token) with columns from
the token's quote and shifted to where each line puts it (engine/pipeline.py
`Evaluator._shifted`; sources/base.py `Record.top_string`). Every expected position is counted
by hand (the comments show the counts).
"""

from __future__ import annotations

import io
from dataclasses import replace

import pytest

from surface_lint.engine.core import Engine
from surface_lint.engine.pipeline import Evaluator, join_turns
from surface_lint.engine.scoring import evaluate as lane_verdicts
from surface_lint.model.findings import Finding, Fix, Location, Severity
from surface_lint.sources.base import DocLocator, JsonlReader, Record
from surface_lint.sources.transcripts import turn_from_record

MESSAGE = "complete_punctuation: the surface ends with `l`, not terminal punctuation (`.` `?` `!` `;`)"
LINES = [
    # {"case_id": "a", "surface": -> 28 characters: the quote at column 29; `l` is the token's 21st
    # character after the quote: column 50.
    '{"case_id": "a", "surface": "truth is what is real", "grounding_source": "pack"}',
    # {"case_id": "b\u00e9<U+1F600>", "prompt": "x\"y", "surface": -> 1 + 9 + 2 + 10 + 2 + 8 + 2
    # + 6 + 2 + 9 + 2 = 53 characters (the emoji one code point): the quote at column 54, `l` at 75.
    '{"case_id": "b\\u00e9\U0001f600", "prompt": "x\\"y", "surface": "truth is what is real", '
    '"grounding_source": "pack"}',
    # The same decoded surface spelled with an escape (its own token): quote at column 29,
    # `truth is what is re` 19 characters, `\u0061` 6, `l` the 26th after the quote: column 55.
    '{"case_id": "c", "surface": "truth is what is re\\u0061l", "grounding_source": "pack"}',
    # As the first line, at line 4.
    '{"case_id": "d", "surface": "truth is what is real", "grounding_source": "pack"}',
]


def _finding(line: int, column: int, case_id: str, index: int) -> Finding:
    fix = Fix("Add terminal punctuation `.`", Location("t.jsonl", line, column + 1, line, column + 1), ".")
    return Finding(Location("t.jsonl", line, column, line, column + 1), "SL103", "complete_punctuation",
                   Severity.WARNING, MESSAGE, case_id, (), (fix,), index)


def _records(lines: list[str]) -> list[Record]:
    return list(JsonlReader("t.jsonl").records(io.BytesIO("\n".join(lines).encode())))


def test_a_repeated_surface_at_other_columns_lines_and_spellings() -> None:
    lane = Engine().lane("deterministic_fluency")
    evaluator = Evaluator(lane, {})
    turns = [turn for turn in (turn_from_record(record, []) for record in _records(LINES)) if turn is not None]
    assert len(turns) == 4
    found = [evaluator.evaluate(joined).findings for joined in join_turns(lane, turns, None)]
    assert found == [[_finding(1, 50, "a", 0)], [_finding(2, 75, "b\u00e9\U0001f600", 1)],
                     [_finding(3, 55, "c", 2)], [_finding(4, 50, "d", 3)]]
    # One verdict mapping, two spellings of its surface: two remembered entries, each with the
    # `l`'s columns from the quote's (21-22, 26-27) and the fix's column (22, 27).
    rows = sorted((*entry[1][0][:2], entry[1][0][6][1]) for entry in  # type: ignore[index]
                  evaluator._shifted_by_token.values())
    assert rows == [(21, 22, 22), (26, 27, 27)]


def test_top_string() -> None:
    plain, escaped = _records([LINES[0], LINES[2]])
    assert plain.top_string("surface") == (28, '"truth is what is real"')
    assert escaped.top_string("surface") == (28, '"truth is what is re\\u0061l"')
    assert plain.top_string("missing") is None
    number = _records(['{"surface": 3}'])[0]
    assert number.top_string("surface") is None
    # A record whose text has several lines (a document's), or which sits inside one: no answer.
    assert Record({"surface": "x"}, 1, 0, text='{\n"surface": "x"}').top_string("surface") is None
    assert Record({"surface": "x"}, 1, 0, prefix=("cases", 0), text='{"surface": "x"}').top_string("surface") is None
    # A record whose locator numbers its text from another line (or names another file): no answer.
    text = '{"surface": "x"}'
    assert Record({"surface": "x"}, 5, 0, DocLocator("t.jsonl", text, 1)).top_string("surface") is None
    assert Record({"surface": "x"}, 5, 0, DocLocator("t.jsonl", text, 5)).top_string("surface") == (12, '"x"')
    # Once the record is located, its locator answers (the same offset and token).
    plain.location("case_id")
    assert plain.top_string("surface") == (28, '"truth is what is real"')


def test_case_fields_change_only_the_severities() -> None:
    """With case fields, what a case changes of the findings (expected -> error, post-gloss ->
    information, else the configured level) is part of the memo's key: the same surface at the
    same columns in three cases gives its finding at three severities."""
    lane = Engine().lane("deterministic_fluency")
    evaluator = Evaluator(lane, {})
    turns = [turn for turn in (turn_from_record(record, []) for record in _records(LINES[:1])) if turn is not None]
    [joined] = list(join_turns(lane, turns, None))
    record = joined.record
    verdicts = lane_verdicts(lane, joined.subject, None, None, evaluator.memo)
    given = [{"expected_predicates": ["complete_punctuation"]}, {"post_gloss_predicates": ["complete_punctuation"]},
             {"category": "x"}, {"expected_predicates": ["complete_punctuation"]}]
    found = [evaluator.predicate_findings(verdicts, record, fields, "a", shared=True) for fields in given]
    expected = _finding(1, 50, "a", 0)
    assert found == [[replace(expected, severity=Severity.ERROR)], [replace(expected, severity=Severity.INFORMATION)],
                     [expected], [replace(expected, severity=Severity.ERROR)]]
    assert sorted(str(key[2]) for key in evaluator._shifted_by_token) == [
        "(<Severity.ERROR: 4>,)", "(<Severity.INFORMATION: 2>,)", "(<Severity.WARNING: 3>,)"]


def test_the_remembered_tokens_are_bounded_by_their_characters(monkeypatch: pytest.MonkeyPatch) -> None:
    from surface_lint.engine import pipeline

    # The tokens of LINES are 23 ("truth is what is real" quoted) and 28 characters (its escaped
    # spelling): with a budget of 40, the second token fits (23 < 40) and the third entry finds
    # 51 >= 40 held, so the memo is cleared first.
    monkeypatch.setattr(pipeline, "_SHIFTED_CHARS", 40)
    lane = Engine().lane("deterministic_fluency")
    evaluator = Evaluator(lane, {})
    lines = [LINES[0], LINES[2], LINES[0].replace('"a"', '"e"').replace("truth", "north")]
    turns = [turn for turn in (turn_from_record(record, []) for record in _records(lines)) if turn is not None]
    found = [evaluator.evaluate(joined).findings for joined in join_turns(lane, turns, None)]
    assert found == [[_finding(1, 50, "a", 0)], [_finding(2, 55, "c", 1)], [_finding(3, 50, "e", 2)]]
    assert [key[1] for key in evaluator._shifted_by_token] == ['"north is what is real"']
    assert evaluator._shifted_chars == 23
