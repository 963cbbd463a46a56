"""The caseless fold (`LaneScorer._fold_caseless`, the text report's run) scores exactly as the
general path (`fold(join_turns(...))`): priming, replays, unscored turns, the finding limit; with
`shown` (Markdown, HTML) it counts and keeps what those writers do over every row."""

from __future__ import annotations

import io
import json
from dataclasses import replace
from pathlib import Path

import pytest

from surface_lint.engine import Engine
from surface_lint.engine import compact as compact_module
from surface_lint.engine.compact import CompactOutcomes
from surface_lint.engine.details import DetailsPlan
from surface_lint.engine.score import LaneScorer, shown_probe
from surface_lint.engine.scoring import EvaluationMemo, evaluate, evaluate_turn
from surface_lint.engine.views import HtmlCases, MarkdownCases, ShownCases, reported_predicates
from surface_lint.model.findings import Location
from surface_lint.rules.kinds.core import Subject
from surface_lint.sources.base import JsonlReader
from surface_lint.sources.transcripts import iter_turns

ROWS: list[dict[str, object]] = [
    {"case_id": "p", "role": "priming", "surface": "Truth is what is real."},  # primes p, not scored
    {"case_id": "p", "surface": "Truth is ... unfinished.", "grounding_source": "pack"},
    {"surface": "No id here."},  # no case id
    {"case_id": "r", "surface": "Truth is what is real.", "run": "replay"},  # chain 1: not scored
    {"case_id": "q", "surface": "river flows valley", "grounding_source": "pack"},
    {"case_id": "q", "surface": "river flows valley", "grounding_source": "pack"},  # replaces q
    {"case_id": "s", "surface": "Light reveals ... truth", "grounding_source": "pack"},
]


def _path(tmp_path: Path) -> str:
    path = tmp_path / "t.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in ROWS), encoding="utf-8")
    return str(path)


def _scored(path: str, limit: int | None, caseless: bool, monkeypatch: pytest.MonkeyPatch) -> LaneScorer:
    engine = Engine()
    scorer = LaneScorer(engine, engine.lane("deterministic_fluency"), None, False, limit)
    with monkeypatch.context() as patch:
        if not caseless:
            patch.setattr(LaneScorer, "_caseless_tally", lambda self: False)
        else:
            assert scorer._caseless_tally()
        scorer.read([path], {})
    return scorer


@pytest.mark.parametrize("limit", [None, 1])
def test_the_caseless_fold_counts_as_the_general_path(tmp_path: Path, limit: int | None,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    path = _path(tmp_path)
    fast = _scored(path, limit, True, monkeypatch)
    slow = _scored(path, limit, False, monkeypatch)
    assert fast.unscored == slow.unscored == {"no_case_id": 1, "unknown_id": 0, "not_scored": 2}
    got, want = fast.compact.summary(), slow.compact.summary()
    assert (got.case_count, got.failing_count) == (want.case_count, want.failing_count) == (3, 3)
    assert sorted(got.replaced) == sorted(want.replaced) == [1]
    assert got.tally == want.tally
    assert fast.failing_shown == slow.failing_shown == (4 if limit is None else 1)  # records, before replacing
    found = [(f.location.line, f.code) for _, f in fast.findings]
    assert found == [(line, code) for _, f in slow.findings for line, code in [(f.location.line, f.code)]]
    lines = {line for line, code in found if code.startswith("SL1")}
    assert lines == ({2, 5, 6, 7} if limit is None else {2})


def test_a_subclass_counting_its_own_way_takes_the_general_path() -> None:
    class Counting(LaneScorer):
        def count(self, *args: object, **kwargs: object) -> tuple[int, int]:  # type: ignore[override]
            return super().count(*args, **kwargs)  # type: ignore[arg-type]

    engine = Engine()
    lane = engine.lane("deterministic_fluency")
    assert LaneScorer(engine, lane, None, False, None)._caseless_tally()
    assert not Counting(engine, lane, None, False, None)._caseless_tally()
    assert not LaneScorer(engine, lane, None, True, None)._caseless_tally()  # rows wanted


def test_evaluate_turn_shares_the_memo_with_evaluate() -> None:
    lane = Engine().lane("deterministic_fluency")
    memo = EvaluationMemo(lane)
    first = evaluate_turn(lane, memo, "Truth is ... unfinished.", "pack", False)
    assert evaluate(lane, Subject("Truth is ... unfinished.", "pack", None, False), None, None, memo) is first
    assert evaluate_turn(lane, memo, "Truth is ... unfinished.", "pack", True) is not first  # primed: its own key
    assert (memo.lookups, memo.hits) == (3, 1)
    assert dict(first) == dict(evaluate(lane, Subject("Truth is ... unfinished.", "pack", None, False)))
    assert first["no_placeholder"].passed is False


def test_the_filter_sets_two_bits_of_one_byte() -> None:
    assert len(set(compact_module._BIT_PAIRS)) == 28
    assert all(bin(m).count("1") == 2 and m < 256 for m in compact_module._BIT_PAIRS)
    outcomes = CompactOutcomes(Engine().lane("deterministic_fluency"))
    where = Location("t.jsonl", 1, 1, 1, 2)
    signals = tuple(True for _ in outcomes.names)
    outcomes.add("only", signals, (), where, 0)
    assert sum(bin(b).count("1") for b in outcomes.filter) == 2
    assert outcomes.suspect_count == 0
    outcomes.add("only", signals, (), where, 1)  # the same id again: a suspect
    assert outcomes.suspect_count == 1
    assert sum(bin(b).count("1") for b in outcomes.filter) == 2


def _standing(shown: ShownCases) -> dict[str, object]:
    """What a ShownCases counted and kept (its quota's counts, not the object)."""
    out = {k: v for k, v in vars(shown).items() if k not in ("quota", "_names", "predicates")}
    quota = shown.quota  # type: ignore[attr-defined]
    return {**out, "quota": (quota.shown, quota.hidden)}


@pytest.mark.parametrize("kind", [MarkdownCases, HtmlCases])
def test_the_shown_fold_counts_and_keeps_what_the_writer_does_over_every_row(
        tmp_path: Path, kind: type[ShownCases]) -> None:
    rows = [r for i, r in enumerate(ROWS) if i != 5]  # q once: no case id repeats
    path = tmp_path / "t.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    engine = Engine()
    lane = engine.lane("deterministic_fluency")
    scorer = LaneScorer(engine, lane, None, True, None)
    scorer.shown = kind(reported_predicates(lane))
    assert scorer._caseless_tally()
    scorer.read([str(path)], {})
    assert (scorer._shown_folded, scorer.shown_missed) == (True, False)
    assert len(scorer.findings) == 0  # no predicate finding made (and no input problem here)
    general = engine.score("deterministic_fluency", [], [str(path)])
    assert general.shown is None
    want = kind(reported_predicates(lane))
    for outcome in general.outcomes:
        want.see(outcome)
    assert _standing(scorer.shown) == _standing(want)
    assert [place for place, _ in want.shown] == [0, 1, 2]  # p, q, s: every one fails
    assert [o.case_id for _, o in scorer.shown.shown] == ["p", "q", "s"]
    assert scorer.shown.shown == want.shown  # the outcomes themselves, findings and verdicts included
    assert all(o.findings for _, o in scorer.shown.shown)


def test_the_shown_probe_reads_constants_and_turn_fields_only() -> None:
    engine = Engine()
    lane = engine.lane("deterministic_fluency")
    probe = shown_probe(lane, DetailsPlan(lane))
    assert probe is not None
    turn = next(iter_turns("t.jsonl", io.BytesIO(b'{"case_id": "x", "surface": "A b."}\n'), "turns",
                           JsonlReader("t.jsonl", 1 << 20)))
    assert probe(turn) == ("uncategorised", True)
    grouped = replace(lane, details={**lane.details, "pattern": "turn.grounding", "category": "case.nothing",
                                     "surface": "turn.prompt"})
    probe = shown_probe(grouped, DetailsPlan(grouped))
    assert probe is not None
    assert probe(turn) == ("none", False)  # category None, pattern the grounding; no prompt: no surface
    computed = replace(lane, details={**lane.details, "category": "verdicts"})
    assert shown_probe(computed, DetailsPlan(computed)) is None


def test_the_caseless_turns_are_the_one_per_turn_step(tmp_path: Path) -> None:
    """`_caseless_turns` (what `_fold_caseless` and `_fold_caseless_rows` both fold): the scored
    turns with their case id, failed names and priming; the others counted by why."""
    engine = Engine()
    scorer = LaneScorer(engine, engine.lane("deterministic_fluency"), None, False, None)
    path = _path(tmp_path)
    with open(path, "rb") as fh:
        got = [(turn.record.line, case_id, failed, primed)
               for turn, case_id, _, _, failed, primed in scorer._caseless_turns(iter_turns(path, fh, "turns",
                                                                                           JsonlReader(path)))]
    assert got == [(2, "p", ("no_placeholder",), True),  # primed by line 1
                   (5, "q", ("complete_punctuation",), False), (6, "q", ("complete_punctuation",), False),
                   (7, "s", ("no_placeholder", "complete_punctuation"), False)]
    assert scorer.unscored == {"no_case_id": 1, "unknown_id": 0, "not_scored": 2}
