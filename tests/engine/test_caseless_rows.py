"""The caseless rows fold (`LaneScorer._fold_caseless_rows`: JSON, JSON Lines, JUnit... without
case files) keeps exactly the rows and findings of the general path (`fold(join_turns(...))`),
its findings packed as they are made (`Evaluator.packed_findings`), and the plain-key search of
`Record.top_string`. Expected values are written by hand (the comments show the counts)."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest

from surface_lint.engine import Engine, score
from surface_lint.engine.pipeline import Evaluator
from surface_lint.engine.score import LaneScorer
from surface_lint.engine.scoring import evaluate_turn
from surface_lint.engine.spool import Spool
from surface_lint.model.findings import Finding, Location, Severity, packed_finding, unpacked_finding
from surface_lint.sources.base import JsonlReader, Record, member_range

ROWS: list[dict[str, object]] = [
    {"case_id": "p", "role": "priming", "surface": "Truth is what is real."},  # primes p, not scored
    {"case_id": "p", "surface": "Truth is ... unfinished.", "grounding_source": "pack"},
    {"surface": "No id here."},  # no case id
    {"case_id": "r", "surface": "Truth is what is real.", "run": "replay"},  # chain 1: not scored
    {"case_id": "q", "prompt": "Why?", "surface": "truth is what is real", "grounding_source": "pack"},
    {"case_id": "q", "prompt": "Why?", "surface": "truth is what is real", "grounding_source": "pack"},  # replaces q
    {"case_id": "s", "surface": "Light reveals ... truth", "grounding_source": "pack"},
    {"case_id": "t", "prompt": "Why?", "surface": "truth is what is real", "grounding_source": "pack"},
]
KINDS = ["light", "status", "whole", "whole without findings"]


def _path(tmp_path: Path) -> str:
    path = tmp_path / "t.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in ROWS), encoding="utf-8")
    return str(path)


def _scored(path: str, kind: str, limit: int | None, caseless: bool, buffer: int,
            monkeypatch: pytest.MonkeyPatch) -> LaneScorer:
    engine = Engine()
    scorer = LaneScorer(engine, engine.lane("deterministic_fluency"), None, True, limit)
    scorer.light_rows = kind == "light"
    scorer.status_rows = kind == "status"
    scorer.row_findings = kind != "whole without findings"
    # Small buffers: rows and findings go through marshal (and come back unpacked) as well.
    scorer.rows = Spool(buffer=buffer, pack=score._pack_row, unpack=score._unpack_row)
    scorer.findings = Spool(key=score._stored_order, buffer=buffer, pack=score._pack_kept, unpack=score._unpack_kept)
    with monkeypatch.context() as patch:
        if caseless:
            assert scorer._caseless_rows()
        else:
            patch.setattr(LaneScorer, "_caseless_rows", lambda self: False)
        scorer.read([path], {})
    return scorer


def _plain(row: tuple[Any, ...]) -> tuple[Any, ...]:
    """A row with its findings packed and its shared details without their serial (a process-wide count)."""
    details = row[5]
    if isinstance(details, tuple):
        details = details[1:]
    found = tuple(f if type(f) is tuple else packed_finding(f) for f in row[9])
    return (*row[:5], details, *row[6:9], found, row[10])


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("limit", [None, 1])
@pytest.mark.parametrize("buffer", [2, 2048])
def test_the_caseless_rows_fold_keeps_the_rows_of_the_general_path(tmp_path: Path, kind: str, limit: int | None,
                                                                   buffer: int, monkeypatch: pytest.MonkeyPatch) -> None:
    path = _path(tmp_path)
    fast = _scored(path, kind, limit, True, buffer, monkeypatch)
    slow = _scored(path, kind, limit, False, buffer, monkeypatch)
    assert fast.unscored == slow.unscored == {"no_case_id": 1, "unknown_id": 0, "not_scored": 2}
    rows, want = list(fast.rows), list(slow.rows)
    assert [row[:3] for row in rows] == [(0, 0, "p"), (1, 1, "q"), (2, 2, "q"), (3, 3, "s"), (4, 4, "t")]
    assert [_plain(row) for row in rows] == [_plain(row) for row in want]
    # The failed names (each surface fails): p and s a placeholder, q and t their last character.
    assert [row[6] for row in rows] == [("no_placeholder",), ("complete_punctuation",), ("complete_punctuation",),
                                        ("no_placeholder", "complete_punctuation"), ("complete_punctuation",)]
    if kind == "status":  # each failure's severity as a number (warning 3)
        assert rows[1][10] == (("complete_punctuation", 3),)
    # The spool holds them as appended (packed) until marshalled; the result reads them through
    # `_second` (KeptFindings), which unpacks a packed one.
    kept = [(item[0], score._second(item)) for item in fast.findings]
    assert all(type(f) is Finding for _, f in kept)
    assert kept == [(item[0], score._second(item)) for item in slow.findings]
    found = [(position, f.location.line, f.location.column, f.code) for position, f in kept]
    # `{"case_id": "q", "prompt": "Why?", "surface": ` is 46 characters: the quote at column 47,
    # the final `l` the 21st character after it: column 68. s's `{"case_id": "s", "surface": ` is
    # 28: its quote at 29, its 23 characters' last at 52.
    assert [c for p, line, c, code in found if code == "SL103"] == ([68, 68, 52, 68] if limit is None else [])
    assert fast.failing_shown == slow.failing_shown == (5 if limit is None else 1)  # each scored record fails
    if kind.startswith("whole"):  # the outcomes as the views read them: findings and details unpacked
        outcomes = [score._row_outcome(row) for row in rows]
        assert [type(f) for o in outcomes for f in o.findings] == [Finding] * len([f for r in rows for f in r[9]])
        assert all(isinstance(o.details, dict) for o in outcomes)
        assert outcomes[4].details == score._row_outcome(want[4]).details
        assert outcomes[4].details is not outcomes[1].details  # each case its own dict (ids differ)


def test_a_subclass_or_a_sink_takes_the_general_path() -> None:
    class Keeping(LaneScorer):
        def keep(self, scored: score.Scored, record: Record | None = None) -> None:
            super().keep(scored, record)

    engine = Engine()
    lane = engine.lane("deterministic_fluency")
    assert LaneScorer(engine, lane, None, True, None)._caseless_rows()
    assert not LaneScorer(engine, lane, None, False, None)._caseless_rows()  # no rows: _fold_caseless's
    assert not Keeping(engine, lane, None, True, None)._caseless_rows()
    sink = LaneScorer(engine, lane, None, True, None)
    sink.on_scored = lambda scored: None
    assert not sink._caseless_rows()


def test_packed_findings_are_predicate_findings_packed() -> None:
    lane = Engine().lane("deterministic_fluency")
    evaluator = Evaluator(lane, {})
    lines = ['{"case_id": "a", "surface": "truth is what is real"}', '{"case_id": "b", "surface": "truth is what is real"}',
             '{"case_id": "c", "surface": "Light reveals ... truth"}']
    records = list(JsonlReader("t.jsonl").records(io.BytesIO("\n".join(lines).encode())))
    got = []
    for record in records:
        verdicts = evaluate_turn(lane, evaluator.memo, record.data["surface"], "none", False)
        got.append(evaluator.packed_findings(verdicts, record, record.data["case_id"]))
        twin = Record(record.data, record.line, record.index, None, (), record.path, record.text)
        assert [packed_finding(f) for f in evaluator.predicate_findings(verdicts, twin, None, record.data["case_id"],
                                                                        shared=True)] == got[-1]
    # `{"case_id": "b", "surface": ` is 28 characters: the quote at column 29, `l` at 29 + 21 = 50;
    # the fix inserts `.` after it (column 51). The first line's came from the old path (a miss).
    message = "complete_punctuation: the surface ends with `l`, not terminal punctuation (`.` `?` `!` `;`)"
    assert got[1] == [(("t.jsonl", 2, 50, 2, 51), "SL103", "complete_punctuation", 3, message, "b", (),
                       (("Add terminal punctuation `.`", ("t.jsonl", 2, 51, 2, 51), "."),), 1, {})]
    assert got[0][0][0] == ("t.jsonl", 1, 50, 1, 51)
    assert [f[1] for f in got[2]] == ["SL101", "SL103"]  # a placeholder, and no terminal punctuation


def test_packed_items_in_the_spools() -> None:
    packed = (("t.jsonl", 2, 5, 2, 6), "SL103", "complete_punctuation", 3, "m", "b", (), (), 1, {})
    finding = unpacked_finding(packed)
    assert score._pack_kept((4, packed)) == (4, packed)  # packed already: as it is
    assert score._pack_kept((4, finding)) == (4, packed)
    assert score._second((4, packed)) == finding == score._second((4, finding))
    assert score._stored_order((4, packed)) == ("t.jsonl", 2, 5, 2, 6, "SL103", "m") == finding.sort_key()
    row = (0, 0, "b", (), "", None, ("complete_punctuation",), (), (), (packed,), ())
    assert score._pack_row(row) is row
    assert score._row_outcome(row).findings == (finding,)
    assert finding.severity is Severity.WARNING and finding.location == Location("t.jsonl", 2, 5, 2, 6)


@pytest.mark.parametrize(("text", "expected"), [
    # `{"case_id": "a", "surface": ` is 28 characters: the token at offset 28.
    ('{"case_id": "a", "surface": "x y"}', (28, '"x y"')),
    ('{"surface":"x"}', (11, '"x"')),  # no space after the colon
    ('{"surface" :\t"w"}', (13, '"w"')),  # a space before it, a tab after
    ('{"surface": 5}', None),  # not a string
    # Nested `"surface"` first: twice in the text, the regex walk finds the top-level one (offset 38).
    ('{"meta": {"surface": "n"}, "surface": "t"}', (38, '"t"')),
    # As another member's value first: offset 33.
    ('{"prompt": "surface", "surface": "v"}', (33, '"v"')),
    # A backslash in the line (an escaped quote): the regex walk; `{"prompt": "a\"b", "surface": ` is 30.
    ('{"prompt": "a\\"b", "surface": "z"}', (30, '"z"')),
    ('{"prompt": "a", "surface": "caf\\u00e9"}', (27, '"caf\\u00e9"')),
])
def test_top_string_finds_the_top_level_member(text: str, expected: tuple[int, str] | None) -> None:
    record = Record(json.loads(text), 1, 0, None, (), "t.jsonl", text)
    assert record.top_string("surface") == expected
    found = member_range(text, "surface")
    assert found is not None
    assert (expected is None) == (text[found[0]] != '"')
    if expected is not None:
        assert (found[0], text[found[0]:found[1]]) == expected


def test_top_string_of_a_member_the_record_lacks() -> None:
    text = '{"meta": {"surface": "n"}}'  # one `"surface"`, but nested: not the record's member
    assert Record(json.loads(text), 1, 0, None, (), "t.jsonl", text).top_string("surface") is None
