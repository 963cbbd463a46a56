"""multi_sentence_response: SL201-SL207 (+ the unreported signals SL206, SL208), exact ranges.

The surface's character i sits at column S + i (see engine_support.turn).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from engine_support import S, cases_index, check, fts, turn, write

from surface_lint.engine import CaseIndex, Engine
from surface_lint.engine.scoring import evaluate
from surface_lint.rules.kinds.core import Subject

P = "t.jsonl"
LANE = "multi_sentence_response"
ONE = "Truth is what is real. pack-grounded (en_demo_epistemic_v1)."
TWO = "Truth is what is real. In turn, it grounds knowledge."


@pytest.fixture(scope="module")
def engine() -> Engine:
    return Engine()


@pytest.fixture()
def index(engine: Engine, tmp_path: Path) -> CaseIndex:
    path = write(
        tmp_path / "cases.jsonl",
        [
            {"id": "m1", "prompt": "Explain truth.", "subject_lemma": "truth", "expects_connective": True},
            {"id": "m2", "prompt": "Explain light.", "expects_connective": False},
        ],
    )
    return cases_index(engine, path, LANE)


def run(surface: str, engine: Engine, grounding: str | None = "pack", index: CaseIndex | None = None,
        case_id: str = "c1") -> list[tuple[str, int, int, int, int, str, str, str]]:
    return fts(check([turn(surface, case_id=case_id, grounding=grounding)], engine=engine,
                     lane_name=LANE, cases=index).findings)


# --- SL201 sentence_count_>=_2 -----------------------------------------------------------


def test_sl201_fails_on_one_sentence_plus_tail(engine: Engine) -> None:
    assert run(ONE, engine) == [
        (P, 1, S, 1, S + 60, "SL201", "warning",
         "sentence_count_>=_2: 1 substantive sentence (tails stripped); at least 2 required"),
    ]


@pytest.mark.parametrize(
    "surface",
    [
        TWO,
        "Truth is what is real. Furthermore, it belongs to cognition.truth. In turn, it grounds knowledge.",
        "Truth is what is real. 2 things follow from that one.",  # a digit opens a sentence
        "Truth is what is true! Is it what we all know?",
    ],
)
def test_sl201_passes_on_two_or_more_sentences(engine: Engine, surface: str) -> None:
    assert "SL201" not in [f[5] for f in run(surface, engine)]


@pytest.mark.parametrize(
    "surface",
    [
        "Truth belongs to cognition.truth and logos.core in the pack.",  # dotted atoms are no boundary
        "Truth is what is real. and lower case does not open a sentence.",
        "Truth is what is real. No session evidence yet.",  # the trust tail is stripped
        "Truth is what is real. teaching-grounded (session_teaching).",
    ],
)
def test_sl201_counts_one_sentence(engine: Engine, surface: str) -> None:
    found = run(surface, engine)
    assert [f[5] for f in found] == ["SL201"], found
    assert found[0][7].startswith("sentence_count_>=_2: 1 substantive sentence ")


# --- SL202 each_sentence_>=_4_tokens -----------------------------------------------------


def test_sl202_points_at_the_short_sentence(engine: Engine) -> None:
    surface = "Truth is what is real. Light. In turn, it grounds knowledge."
    assert run(surface, engine) == [
        (P, 1, S + 23, 1, S + 29, "SL202", "warning",
         "each_sentence_>=_4_tokens: 1 sentence(s) with fewer than 4 alphabetic tokens (1)"),
    ]


def test_sl202_every_short_sentence_gets_a_range(engine: Engine) -> None:
    surface = "Light shines. Truth is what is real. Order rules all?"
    assert run(surface, engine) == [
        (P, 1, S, 1, S + 13, "SL202", "warning",
         "each_sentence_>=_4_tokens: 2 sentence(s) with fewer than 4 alphabetic tokens (2, 3)"),
        (P, 1, S + 37, 1, S + 53, "SL202", "warning",
         "each_sentence_>=_4_tokens: 2 sentence(s) with fewer than 4 alphabetic tokens (2, 3)"),
    ]


def test_sl202_passes_when_every_sentence_is_long_enough(engine: Engine) -> None:
    # `don't` counts as two alphabetic tokens: I, don, t, know.
    assert run("I don't know. Light reveals the truth.", engine) == []


# --- SL203 connective_present (only when the case expects one) ---------------------------


def test_sl203_fails_when_the_case_expects_a_connective(engine: Engine, index: CaseIndex) -> None:
    surface = "Truth is what is real. Knowledge is what a person knows."
    assert run(surface, engine, index=index, case_id="m1") == [
        (P, 1, S, 1, S + 56, "SL203", "warning", "connective_present: no connective in the surface"),
    ]


def test_sl203_is_not_enforced_without_expects_connective(engine: Engine, index: CaseIndex) -> None:
    surface = "Light is what shines. Knowledge is what a person knows."
    assert run(surface, engine, index=index, case_id="m2") == []
    assert run(surface, engine) == []  # no case joined at all


@pytest.mark.parametrize(
    "surface",
    [
        "Truth is what is real. In turn, it grounds knowledge.",  # the runner's `in turn`
        "Truth is what is real. Therefore it is known by many.",  # case-insensitive
        "Truth is what is true, so it grounds what we know well.",  # the runner's `so`
    ],
)
def test_sl203_passes_with_a_connective(engine: Engine, index: CaseIndex, surface: str) -> None:
    assert "SL203" not in [f[5] for f in run(surface, engine, index=index, case_id="m1")]


def test_sl203_matches_whole_words_only(engine: Engine, index: CaseIndex) -> None:
    surface = "Truth is what is real. The sandy land is grand."
    assert [f[5] for f in run(surface, engine, index=index, case_id="m1")] == ["SL203"]


# --- SL204 not_just_provenance_tag -------------------------------------------------------


@pytest.mark.parametrize("surface", ["pack-grounded (en_demo_epistemic_v1).", "No session evidence yet."])
def test_sl204_fails_on_a_bare_tail(engine: Engine, surface: str) -> None:
    n = len(surface)
    assert run(surface, engine) == [
        (P, 1, S, 1, S + n, "SL201", "warning",
         "sentence_count_>=_2: 0 substantive sentences (tails stripped); at least 2 required"),
        (P, 1, S, 1, S + n, "SL202", "warning", "each_sentence_>=_4_tokens: no substantive sentence"),
        (P, 1, S, 1, S + n, "SL204", "warning",
         "not_just_provenance_tag: the surface is only a provenance / trust tail"),
    ]


def test_sl204_passes_with_substance_before_the_tail(engine: Engine) -> None:
    assert "SL204" not in [f[5] for f in run(ONE, engine)]


# --- SL205 grounded ----------------------------------------------------------------------


@pytest.mark.parametrize("grounding", ["vault", "oov", "none", None])
def test_sl205_fails_outside_pack_and_teaching(engine: Engine, grounding: str | None) -> None:
    shown = grounding or "none"
    assert run(TWO, engine, grounding=grounding) == [
        (P, 1, S, 1, S + 53, "SL205", "information",
         f"grounded: grounding_source `{shown}` is not one of pack, teaching"),
    ]


@pytest.mark.parametrize("grounding", ["pack", "teaching"])
def test_sl205_passes_on_pack_and_teaching(engine: Engine, grounding: str) -> None:
    assert run(TWO, engine, grounding=grounding) == []


# --- SL207 subject_named -----------------------------------------------------------------


def test_sl207_fails_when_the_subject_is_never_named(engine: Engine, index: CaseIndex) -> None:
    surface = "Light reveals all meaning. And it shines on all of us."
    assert run(surface, engine, index=index, case_id="m1") == [
        (P, 1, S, 1, S + 54, "SL207", "warning", "subject_named: the surface never names `truth` (subject_lemma)"),
    ]


def test_sl207_passes_case_insensitively_and_without_a_subject(engine: Engine, index: CaseIndex) -> None:
    assert run("TRUTH is what is true. And it grounds knowledge.", engine, index=index, case_id="m1") == []
    assert run("Light reveals all meaning. And it shines on all of us.", engine, index=index, case_id="m2") == []


# --- SL206 disclosure_grounded and SL208 primed: signals, never findings ------------------


def test_sl206_disclosure_grounded_is_a_signal_not_a_finding(engine: Engine) -> None:
    lane = engine.lane(LANE)
    for grounding, expected in [("oov", True), ("refusal", True), ("none", True), ("pack", False), ("vault", False)]:
        verdicts = evaluate(lane, Subject(TWO, grounding))
        assert verdicts["disclosure_grounded"].passed is expected, grounding
        assert "SL206" not in [f[5] for f in run(TWO, engine, grounding=grounding)]


def test_sl208_primed_is_a_signal_not_a_finding(engine: Engine, tmp_path: Path) -> None:
    lane = engine.lane(LANE)
    assert evaluate(lane, Subject(TWO, "pack", primed=True))["primed"].passed is True
    assert evaluate(lane, Subject(TWO, "pack", primed=False))["primed"].passed is False
    lines = [
        turn("Truth is what is real.", case_id="p1", role="priming", scored=False),
        turn(ONE, case_id="p1"),
    ]
    assert all(f.code != "SL208" for f in check(lines, engine=engine, lane_name=LANE).findings)


def test_report_entries_embed_their_case_fields(engine: Engine) -> None:
    # A report entry that carries `expects_connective` / `subject_lemma` is judged by them.
    report = (
        '{"lane": "multi_sentence_response", "cases": [\n'
        '  {"case_id": "r1", "expects_connective": true, "subject_lemma": "truth",\n'
        '   "grounding_source": "pack", "surface": "Light is here for all of us."}\n'
        "]}\n"
    )
    found = fts(check(report, path="r.json").findings)
    assert found == [
        ("r.json", 3, 44, 3, 72, "SL201", "warning",
         "sentence_count_>=_2: 1 substantive sentence (tails stripped); at least 2 required"),
        ("r.json", 3, 44, 3, 72, "SL203", "warning", "connective_present: no connective in the surface"),
        ("r.json", 3, 44, 3, 72, "SL207", "warning",
         "subject_named: the surface never names `truth` (subject_lemma)"),
    ]
