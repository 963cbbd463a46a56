"""deterministic_fluency: SL101-SL106, one failing and one passing surface each, exact ranges.

Turn lines are `{"case_id": "c1", "surface": "<surface>", "grounding_source": ...}`, so the
surface's character i sits at column S + i (S = 31) when the surface needs no escapes.
"""

from __future__ import annotations

import pytest
from engine_support import S, check, fts, turn

from surface_lint.engine import Engine
from surface_lint.engine.config import Config

P = "t.jsonl"
DOUBT = (
    "doubt — pack-grounded (en_core_meta_v1): meta.mental_state.uncertainty; meta.mental_state; "
    "cognition.epistemic. No session evidence yet."
)
DOUBT_TEACHING = DOUBT.replace("pack-grounded", "teaching-grounded")
INVENTORY = "meta.mental_state.uncertainty; meta.mental_state; cognition.epistemic"
CLEAN = "Truth is what is real. pack-grounded (en_demo_epistemic_v1)."


@pytest.fixture(scope="module")
def contract() -> Engine:
    return Engine(profile="contract")


@pytest.fixture(scope="module")
def reference() -> Engine:
    return Engine(profile="reference")


def test_clean_surface_has_no_findings(contract: Engine, reference: Engine) -> None:
    for engine in (contract, reference):
        result = check([turn(CLEAN)], engine=engine)
        assert result.findings == []


# --- SL101 no_placeholder ----------------------------------------------------------------


def test_sl101_fails_on_ellipsis_at_its_three_characters() -> None:
    surface = "Truth is ... pack-grounded (en_demo_epistemic_v1)."
    assert fts(check([turn(surface)]).findings) == [
        (P, 1, S + 9, 1, S + 12, "SL101", "error", "no_placeholder: placeholder marker `...` in the surface"),
    ]


def test_sl101_every_marker_and_every_occurrence_gets_its_own_range() -> None:
    surface = "A <prior> is <empty>, a <pending> is ... and <prior> is too."
    message = "no_placeholder: placeholder marker `...`, `<pending>`, `<prior>`, `<empty>` in the surface"
    assert fts(check([turn(surface)]).findings) == [
        (P, 1, S + 2, 1, S + 9, "SL101", "error", message),  # <prior>
        (P, 1, S + 13, 1, S + 20, "SL101", "error", message),  # <empty>
        (P, 1, S + 24, 1, S + 33, "SL101", "error", message),  # <pending>
        (P, 1, S + 37, 1, S + 40, "SL101", "error", message),  # ...
        (P, 1, S + 45, 1, S + 52, "SL101", "error", message),  # second <prior>
    ]


def test_sl101_passes_without_markers() -> None:
    # Two dots and a lone `<` are not markers.
    assert check([turn("Truth is what is real.. a < b.")]).findings == []


# --- SL102 no_provenance_only ----------------------------------------------------------


def test_sl102_contract_catches_the_bare_pack_disclosure(contract: Engine) -> None:
    start = S + DOUBT.index("meta.mental")
    assert fts(check([turn(DOUBT)], engine=contract).findings) == [
        (P, 1, S, 1, S + 136, "SL102", "information",
         "no_provenance_only: the surface is a bare structured disclosure"),
        (P, 1, start, 1, start + 69, "SL105", "information",
         f"no_dotted_inventory: dotted-path inventory `{INVENTORY}` in the surface"),
    ]
    assert len(DOUBT) == 136 and len(INVENTORY) == 69 and start == S + 41


def test_sl102_contract_catches_the_teaching_grounded_twin(contract: Engine) -> None:
    start = S + DOUBT_TEACHING.index("meta.mental")
    assert fts(check([turn(DOUBT_TEACHING, grounding="teaching")], engine=contract).findings) == [
        (P, 1, S, 1, S + 140, "SL102", "information",
         "no_provenance_only: the surface is a bare structured disclosure"),
        (P, 1, start, 1, start + 69, "SL105", "information",
         f"no_dotted_inventory: dotted-path inventory `{INVENTORY}` in the surface"),
    ]


@pytest.mark.parametrize("surface", [DOUBT, DOUBT_TEACHING])
def test_sl102_reference_profile_misses_dotted_atoms(reference: Engine, surface: str) -> None:
    grounding = "teaching" if "teaching" in surface else "pack"
    found = check([turn(surface, grounding=grounding)], engine=reference).findings
    assert [f.code for f in found] == ["SL105"]


@pytest.mark.parametrize("profile", ["contract", "reference"])
def test_sl102_both_profiles_catch_the_runners_literal_shape(profile: str) -> None:
    surface = "truth — pack-grounded (en_demo_epistemic_v1): truth; wisdom; light. No session evidence yet."
    found = check([turn(surface)], engine=Engine(profile=profile)).findings
    assert fts(found) == [
        (P, 1, S, 1, S + len(surface), "SL102", "information",
         "no_provenance_only: the surface is a bare structured disclosure"),
    ]


@pytest.mark.parametrize("profile", ["contract", "reference"])
def test_sl102_prior_turn_tail_and_surrounding_whitespace(profile: str) -> None:
    core = "truth — pack-grounded (en_demo_epistemic_v1): truth; wisdom. No prior turn in this session to correct yet."
    found = check([turn("  " + core + "  ")], engine=Engine(profile=profile)).findings
    # The range skips the blanks around the disclosure.
    assert fts(found) == [
        (P, 1, S + 2, 1, S + 2 + len(core), "SL102", "information",
         "no_provenance_only: the surface is a bare structured disclosure"),
    ]


@pytest.mark.parametrize("profile", ["contract", "reference"])
def test_sl102_passes_on_a_glossed_surface(profile: str) -> None:
    surface = "Doubt is the state of not being sure. pack-grounded (en_core_meta_v1)."
    assert check([turn(surface)], engine=Engine(profile=profile)).findings == []


def test_sl102_contract_multiword_lemma_and_cross_pack(contract: Engine) -> None:
    surface = (
        "pack resident — pack-grounded (en_core_spatial_v1 × en_demo_epistemic_v1): "  # noqa: RUF001
        "spatial.relation.between; cognition.truth. No session evidence yet."
    )
    found = check([turn(surface)], engine=contract).findings
    assert fts(found) == [
        (P, 1, S, 1, S + len(surface), "SL102", "information",
         "no_provenance_only: the surface is a bare structured disclosure"),
    ]


# --- SL103 complete_punctuation ----------------------------------------------------------


def test_sl103_points_at_the_last_character() -> None:
    assert fts(check([turn("river flows valley")]).findings) == [
        (P, 1, S + 17, 1, S + 18, "SL103", "warning",
         "complete_punctuation: the surface ends with `y`, not terminal punctuation (`.` `?` `!` `;`)"),
    ]


def test_sl103_trailing_whitespace_is_stripped_first() -> None:
    found = check([turn("river flows valley \t ")]).findings
    assert [(f.location.column, f.location.end_column) for f in found] == [(S + 17, S + 18)]


def test_sl103_and_sl104_on_an_empty_surface_point_between_the_quotes() -> None:
    assert fts(check([turn("")]).findings) == [
        (P, 1, S, 1, S, "SL103", "warning",
         "complete_punctuation: the surface is empty; it must end with `.` `?` `!` `;`"),
        (P, 1, S, 1, S, "SL104", "warning",
         "finite_predicate_shape: no finite verb or inflected verb form in the surface"),
    ]


@pytest.mark.parametrize("end", [".", "?", "!", ";"])
def test_sl103_passes_on_each_terminal(end: str) -> None:
    assert check([turn("The river flows" + end + "  ")]).findings == []


# --- SL104 finite_predicate_shape ----------------------------------------------------------


def test_sl104_fails_on_a_verbless_list_over_the_whole_surface() -> None:
    assert fts(check([turn("Light, truth, order.")]).findings) == [
        (P, 1, S, 1, S + 20, "SL104", "warning",
         "finite_predicate_shape: no finite verb or inflected verb form in the surface"),
    ]


def test_sl104_whole_surface_excludes_surrounding_blanks() -> None:
    found = check([turn("  Light, truth, order.  ")]).findings
    assert [(f.code, f.location.column, f.location.end_column) for f in found] == [("SL104", S + 2, S + 22)]


@pytest.mark.parametrize(
    "surface",
    [
        "Light reveals truth.",  # -s
        "river flows valley;",  # the runner's -s rule: not English, still passes
        "Light faded.",  # -ed
        "Light shining.",  # -ing
        "LIGHT IS TRUTH.",  # lower-cased before matching
        "Light can.",  # modal
    ],
)
def test_sl104_passes_on_verb_shapes(surface: str) -> None:
    assert check([turn(surface)]).findings == []


# --- SL105 no_dotted_inventory -----------------------------------------------------------


def test_sl105_covers_the_dotted_run_only() -> None:
    surface = "It is listed as cognition.truth; logos.base; epistemic.ground today."
    run = "cognition.truth; logos.base; epistemic.ground"
    assert fts(check([turn(surface)]).findings) == [
        (P, 1, S + 16, 1, S + 16 + len(run), "SL105", "information",
         f"no_dotted_inventory: dotted-path inventory `{run}` in the surface"),
    ]


def test_sl105_passes_on_two_dotted_atoms() -> None:
    assert check([turn("It is listed as cognition.truth; logos.core.")]).findings == []


def test_sl105_documented_example_fails_in_both_profiles_sl102_only_in_contract() -> None:
    surface = (
        "truth — pack-grounded (en_demo_epistemic_v1): cognition.truth; logos.core; "
        "epistemic.ground. No session evidence yet."
    )
    contract = check([turn(surface)], engine=Engine(profile="contract")).findings
    reference = check([turn(surface)], engine=Engine(profile="reference")).findings
    assert [f.code for f in contract] == ["SL102", "SL105"]
    assert [f.code for f in reference] == ["SL105"]
    sl105 = [(f.location.column, f.location.end_column) for f in reference]
    assert sl105 == [(S + 46, S + 46 + len("cognition.truth; logos.base; epistemic.ground"))]


# --- SL106 surface_provenance_match ------------------------------------------------------


def test_sl106_points_at_the_marker_when_grounding_denies_it() -> None:
    assert fts(check([turn(CLEAN, grounding="none")]).findings) == [
        (P, 1, S + 23, 1, S + 36, "SL106", "warning",
         "surface_provenance_match: the surface says `pack-grounded` but grounding_source is `none`"),
    ]


def test_sl106_missing_grounding_source_counts_as_none() -> None:
    found = check([turn(CLEAN, grounding=None)]).findings
    assert [(f.code, f.location.column, f.location.end_column, f.message) for f in found] == [
        ("SL106", S + 23, S + 36,
         "surface_provenance_match: the surface says `pack-grounded` but grounding_source is `none`"),
    ]


def test_sl106_teaching_marker_with_oov_grounding() -> None:
    surface = "Truth is wisdom. teaching-grounded (session_teaching)."
    assert fts(check([turn(surface, grounding="oov")]).findings) == [
        (P, 1, S + 17, 1, S + 34, "SL106", "warning",
         "surface_provenance_match: the surface says `teaching-grounded` but grounding_source is `oov`"),
    ]


@pytest.mark.parametrize(
    ("surface", "grounding"),
    [
        (CLEAN, "pack"),
        (CLEAN, "teaching"),
        ("I don't know — insufficient grounding for that yet.", "none"),
    ],
)
def test_sl106_passes_when_consistent(surface: str, grounding: str) -> None:
    assert check([turn(surface, grounding=grounding)]).findings == []


# --- severities: expected -> error, post-gloss -> information, config overrides ----------


def _cases_engine(tmp_path, config: Config | None = None):  # type: ignore[no-untyped-def]
    from engine_support import cases_index, write

    cases = write(
        tmp_path / "cases.jsonl",
        [
            {
                "id": "c1",
                "prompt": "What is doubt?",
                "expected_predicates": ["no_placeholder", "complete_punctuation", "no_dotted_domain_inventory"],
                "post_gloss_predicates": ["no_provenance_only"],
            }
        ],
    )
    engine = Engine(config)
    return engine, cases_index(engine, cases, "deterministic_fluency")


def test_severity_follows_the_cases_predicate_lists(tmp_path) -> None:  # type: ignore[no-untyped-def]
    engine, index = _cases_engine(tmp_path)
    found = check([turn(DOUBT)], engine=engine, cases=index).findings
    # no_dotted_domain_inventory (the contract's alias) is expected: error;
    # no_provenance_only is post-gloss: information.
    assert [(f.code, f.severity.label, f.record_id) for f in found] == [
        ("SL102", "information", "c1"),
        ("SL105", "error", "c1"),
    ]


def test_severity_config_override_and_off(tmp_path) -> None:  # type: ignore[no-untyped-def]
    config = Config(severity={"no_placeholder": "hint", "complete_punctuation": "off"})
    found = check([turn("Truth is ... here")], engine=Engine(config)).findings
    assert [(f.code, f.severity.label) for f in found] == [("SL101", "hint")]


def test_an_unscored_turn_is_context_and_fails_nothing(tmp_path) -> None:  # type: ignore[no-untyped-def]
    # Issue 18: a turn the runner does not score (priming, `scored: false`) is context, as the
    # review shows it; a lane without [casework] says nothing else, so it gives no finding.
    engine, index = _cases_engine(tmp_path)
    for line in (turn("Truth is ... here.", role="priming", scored=False),
                 turn("river flows valley", role="priming", scored=False),
                 turn("river flows valley", role="prompt", scored=False)):
        assert check([line], engine=engine, cases=index).findings == []
        assert check([line], engine=engine).findings == []
    # The same surface on the scored turn: held to c1's expectations (complete_punctuation is expected).
    found = check([turn("river flows valley")], engine=engine, cases=index).findings
    assert [(f.code, f.severity.label) for f in found] == [("SL103", "error")]
