"""The folded kinds (issue 9's two parallel sets, one kind per job): each removed kind's
behaviour through the kept one, the kept one's own, and the removed names as load errors.

Every expected value is written out: verdict, message, reasons, spans, per-span messages."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from engine_support import cases_index, check, write

from surface_lint.engine import Engine
from surface_lint.engine.config import Config
from surface_lint.rules.kinds.core import Context, Subject, Verdict
from surface_lint.rules.loader import LaneError, parse_lane

HEAD = '''[lane]
name = "folded"

[[predicates]]
name = "p"
code = "KF1"
'''  # the kind line is line 7


def judge(rule: str, surface: str, case: dict[str, Any] | None = None, grounding: str = "none") -> Verdict | None:
    lane = parse_lane(HEAD + rule, "folded.toml", "reference")
    spec = lane.predicate("p")
    assert spec is not None
    return spec.evaluate(Context(Subject(surface=surface, grounding=grounding, case=case), lane.analysis))


def seen(verdict: Verdict | None) -> tuple[Any, ...] | None:
    """What a verdict says: passed, message, reasons, spans, per-span messages (None: not judged)."""
    if verdict is None:
        return None
    return (verdict.passed, verdict.message, tuple(getattr(verdict, "reasons", ())), verdict.spans,
            verdict.span_messages)


PASSED = (True, "", (), (), None)


def rule(kind: str, params: str, message: str | None = None) -> str:
    head = f'kind = "{kind}"\n' + (f"message = {json.dumps(message)}\n" if message is not None else "")
    return head + "[predicates.params]\n" + params


# --- terms_present: the old `terms` (word boundaries, casefold, not judged without the field) ------------

TERMS_V2 = 'match = "word"\nfold = "casefold"\nmissing = "not_judged"\n'


def test_terms_present_all_any_count_fraction_with_the_old_terms_wording() -> None:
    case = {"want": ["truth", "order", "light"]}
    surface = "The truth is in the border."
    all_of = rule("terms_present", 'field = "want"\n' + TERMS_V2, "{count} of {total} terms in the surface; missing {missing}")
    assert seen(judge(all_of, surface, case)) == (
        False, "1 of 3 terms in the surface; missing `order`, `light`",
        ("1 of 3 terms in the surface; missing `order`, `light`",), ((0, 27),), None)
    any_of = rule("terms_present", 'field = "want"\nquantifier = "any"\n' + TERMS_V2)
    assert seen(judge(any_of, "In the border.", case)) == (
        False, "none of truth, order, light is in the surface", ("none of truth, order, light is in the surface",),
        ((0, 14),), None)
    count = rule("terms_present", 'field = "want"\nquantifier = "count"\nminimum = 2\n' + TERMS_V2)
    assert seen(judge(count, surface, case)) == (
        False, "1 of 3 terms in the surface; at least 2 required",
        ("1 of 3 terms in the surface; at least 2 required",), ((0, 27),), None)
    assert seen(judge(count, "Truth and LIGHT.", case)) == PASSED
    fraction = rule("terms_present", 'field = "want"\nquantifier = "fraction"\nminimum = 0.5\n' + TERMS_V2)
    assert seen(judge(fraction, surface, case)) == (
        False, "0.3333 of the terms (truth, order, light) are in the surface; at least 0.5 required",
        ("0.3333 of the terms (truth, order, light) are in the surface; at least 0.5 required",), ((0, 27),), None)
    assert seen(judge(fraction, "truth, order", case)) == PASSED


def test_terms_present_absent_quantifiers_point_at_each_term_found() -> None:
    params = 'terms = ["sorry", "as an ai", "cannot"]\nmode = "absent"\n' + TERMS_V2
    surface = "Sorry, as an AI I cannot; sorry."
    any_of = rule("terms_present", params + 'quantifier = "any"\n', "`{match}` in the surface")
    assert seen(judge(any_of, surface)) == (
        False, "`sorry` in the surface", ("`sorry` in the surface",), ((0, 5), (7, 15), (18, 24)),
        ("`sorry` in the surface", "`as an ai` in the surface", "`cannot` in the surface"))
    assert seen(judge(rule("terms_present", params), surface)) == (
        False, "all 3 terms in the surface", ("all 3 terms in the surface",), ((0, 5), (7, 15), (18, 24)),
        ("all 3 terms in the surface",) * 3)
    assert seen(judge(rule("terms_present", params), "Sorry, no.")) == PASSED  # not all of them
    count = rule("terms_present", params + 'quantifier = "count"\nminimum = 2\n')
    assert seen(judge(count, "Sorry, I cannot.")) == (
        False, "2 of 3 terms in the surface; fewer than 2 allowed",
        ("2 of 3 terms in the surface; fewer than 2 allowed",), ((0, 5), (9, 15)),
        ("2 of 3 terms in the surface; fewer than 2 allowed",) * 2)
    fraction = rule("terms_present", params + 'quantifier = "fraction"\nminimum = 0.5\n')
    assert seen(judge(fraction, "I cannot, sorry.")) == (
        False, "0.6667 of the terms in the surface; less than 0.5 allowed",
        ("0.6667 of the terms in the surface; less than 0.5 allowed",), ((2, 8), (10, 15)),
        ("0.6667 of the terms in the surface; less than 0.5 allowed",) * 2)


def test_match_substring_word_and_token() -> None:
    case = {"want": ["art"]}
    for match, on_party, on_art in (("substring", True, True), ("word", False, True), ("token", False, False)):
        params = rule("terms_present", f'field = "want"\nmatch = "{match}"\n')
        assert judge(params, "a party", case).passed is on_party, match  # type: ignore[union-attr]
        assert judge(params, "an art.", case).passed is on_art, match  # type: ignore[union-attr]  # `art.` is one token
    stripped = rule("terms_present", 'field = "want"\nmatch = "token"\nstrip_chars = "."\n')
    assert seen(judge(stripped, "an art.", case)) == PASSED
    words = rule("terms_present", 'field = "want"\nmatch = "token"\ntokens = "words"\n')
    assert seen(judge(words, "an art.", case)) == PASSED
    assert seen(judge(words, "art's", case)) == (  # one word token: apostrophes stay inside
        False, "`art` is not in the surface", ("`art` is not in the surface",), ((0, 5),), None)


def test_fold_lower_casefold_and_none() -> None:
    case = {"want": ["straße"]}
    for fold, on_upper in (("lower", False), ("casefold", True), ("none", False)):
        params = rule("terms_present", f'field = "want"\nfold = "{fold}"\n')
        assert judge(params, "STRASSE", case).passed is on_upper, fold  # type: ignore[union-attr]
    assert judge(rule("terms_present", 'field = "want"\n'), "Straße", case).passed is True  # type: ignore[union-attr]
    assert judge(rule("terms_present", 'field = "want"\nfold = "none"\n'), "STRAßE", case).passed is False  # type: ignore[union-attr]


def test_a_case_without_the_field_passes_fails_or_is_not_judged() -> None:
    base = 'field = "constraints.must_contain"\n'
    assert seen(judge(rule("terms_present", base), "x", {})) == PASSED
    assert seen(judge(rule("terms_present", base + 'missing = "not_judged"\n'), "x", {})) is None
    assert seen(judge(rule("terms_present", base + 'missing = "fail"\n'), " x ", {})) == (
        False, "the case has no `constraints.must_contain`", ("the case has no `constraints.must_contain`",),
        ((1, 2),), None)
    # With no case joined, `fail` is not applied; `not_judged` gives no verdict.
    assert seen(judge(rule("terms_present", base + 'missing = "fail"\n'), "x", None)) == PASSED
    assert seen(judge(rule("terms_present", base + 'missing = "not_judged"\n'), "x", None)) is None
    empty = {"constraints": {"must_contain": []}}
    assert seen(judge(rule("terms_present", base), "x", empty)) == PASSED
    assert seen(judge(rule("terms_present", base + "empty_passes = false\n"), "x", empty)) == (
        False, "`constraints.must_contain` is empty", ("`constraints.must_contain` is empty",), ((0, 1),), None)


def test_the_lanes_per_term_reasons_and_absent_any_with_a_span_message_each() -> None:
    case = {"want": ["river", "Valley", "sea"]}
    params = rule("terms_present", 'field = "want"\nrstrip = "."\n', "missing required word: {term}")
    assert seen(judge(params, "The river flows.", case)) == (
        False, "missing required word: Valley; missing required word: sea",
        ("missing required word: Valley", "missing required word: sea"), ((0, 15),), None)  # `.` rstripped
    banned = rule("terms_present", 'terms = ["...", "<pending>"]\nmode = "absent"\nquantifier = "any"\n')
    assert seen(judge(banned, "a <pending> b ...")) == (
        False, "`...` is in the surface; `<pending>` is in the surface",
        ("`...` is in the surface", "`<pending>` is in the surface"), ((2, 11), (14, 17)),
        ("`<pending>` is in the surface", "`...` is in the surface"))


def test_terms_py_prints_the_list_as_a_python_literal() -> None:
    params = rule("terms_present", 'field = "want"\nquantifier = "any"\n', "none of {terms:py}")
    assert judge(params, "x", {"want": ["a", "b"]}).message == "none of ['a', 'b']"  # type: ignore[union-attr]


# --- terms_in_order: the old `ordered_words` (word tokens, casefold) and the lanes' tokens ------------------


def test_terms_in_order_with_the_old_ordered_words_tokens_and_message() -> None:
    params = rule("terms_in_order", 'field = "word_order"\ntokens = "words"\nfold = "casefold"\nmissing = "not_judged"\n',
                  "`{match}` is missing or out of order ({field}); word {index}")
    case = {"word_order": ["first", "then", "last"]}
    assert seen(judge(params, "Last, first we wait, then.", case)) == (
        False, "`last` is missing or out of order (word_order); word 3",
        ("`last` is missing or out of order (word_order); word 3",), ((0, 26),), None)
    assert seen(judge(params, "First, then at last.", case)) == PASSED
    assert seen(judge(params, "First, then at last.", {})) is None
    assert seen(judge(params, "FIRST then ſtraße... LAST", {"word_order": ["first", "strasse", "last"]})) == PASSED  # noqa: RUF001 (the long s casefolds to s)


def test_terms_in_order_with_the_lanes_whitespace_tokens() -> None:
    params = rule("terms_in_order", 'field = "o"\nstrip_chars = ".,"\nrstrip = "."\n', "word order violated: expected {terms:py}")
    case = {"o": ["truth", "value"]}
    assert seen(judge(params, "Truth, value.", case)) == PASSED
    assert seen(judge(params, "A truth-value.", case)) == (  # one whitespace token
        False, "word order violated: expected ['truth', 'value']",
        ("word order violated: expected ['truth', 'value']",), ((0, 13),), None)
    words = params.replace('strip_chars = ".,"\n', 'tokens = "words"\n')
    assert seen(judge(words, "A truth-value.", case)) == PASSED  # two word tokens
    assert seen(judge(params, "x", {})) == PASSED  # `missing = "pass"`, the default


# --- surface_in_list: the old `surface_equals` (space / fold) and the lanes' lower_strip ----------------------


def test_surface_in_list_accepts_after_each_normalisation() -> None:
    case = {"accept": ["Hello,   World."]}
    for how, surface, passes in (("space", "  Hello, World. ", True), ("space", "hello, world.", False),
                                 ("fold", " HELLO,\tworld. ", True), ("lower_strip", " hello,   world. ", True),
                                 ("lower_strip", "hello, world.", False), ("strip", " Hello,   World.\n", True),
                                 ("exact", " Hello,   World.", False)):
        params = rule("surface_in_list", f'field = "accept"\nnormalise = "{how}"\n',
                      "the surface is none of the {total} accepted ({field})")
        verdict = judge(params, surface, case)
        assert verdict is not None and verdict.passed is passes, (how, surface)
        if not passes:
            assert verdict.message == "the surface is none of the 1 accepted (accept)"


def test_surface_in_list_reject_names_the_listed_surface_and_a_missing_list() -> None:
    reject = rule("surface_in_list", 'field = "reject"\nmode = "reject"\nrstrip = "."\n',
                  "the surface is `{match}`, one of {terms}")
    case = {"reject": ["Valley flows river", "no"]}
    assert seen(judge(reject, "valley FLOWS river.", case)) == (
        False, "the surface is `Valley flows river`, one of no, valley flows river", (), ((0, 18),), None)
    assert seen(judge(reject, "River flows valley.", case)) == PASSED
    accept = rule("surface_in_list", 'field = "accept"\n')
    assert seen(judge(accept, "x", {})) == (False, "the surface is none of `accept`", (), ((0, 1),), None)
    assert seen(judge(reject, "x", {})) == PASSED
    assert seen(judge(accept.replace("[predicates.params]\n", '[predicates.params]\nmissing = "not_judged"\n'),
                      "x", {})) is None


# --- grounding_in: the old `grounding_in_field` (a per-case list that may be empty or missing) ------------------


def test_grounding_in_a_per_case_list_with_grounding_in_fields_behaviour() -> None:
    params = rule("grounding_in", 'sources_field = "allowed"\nmissing = "pass"\nempty_passes = true\n',
                  "grounding_source `{grounding}` is not one of {sources} (`{field}`)")
    case = {"allowed": ["oov", "none", "oov"]}
    verdict = judge(params, "I know.", case, grounding="pack")
    assert seen(verdict) == (False, "grounding_source `pack` is not one of oov, none (`allowed`)", (), ((0, 7),), None)
    assert verdict is not None and verdict.target == "grounding_source"
    assert seen(judge(params, "x", case, grounding="none")) == PASSED
    assert seen(judge(params, "x", {"allowed": []}, grounding="pack")) == PASSED
    assert seen(judge(params, "x", {}, grounding="pack")) == PASSED


def test_grounding_in_defaults_a_missing_list_an_empty_one_and_the_sources_order() -> None:
    params = rule("grounding_in", 'sources_field = "allowed"\n')
    assert seen(judge(params, "x", {}, grounding="pack")) is None
    assert seen(judge(params, "x", {"allowed": []}, grounding="pack")) == (
        False, "grounding_source `pack` is not one of (none)", (), ((0, 1),), None)
    assert seen(judge(params + 'missing = "fail"\n', "x", {}, grounding="pack")) == (
        False, "the case has no `allowed`", (), ((0, 1),), None)
    constant = rule("grounding_in", 'sources = ["teaching", "pack"]\n')
    assert judge(constant, "x", None, grounding="vault").message == (  # type: ignore[union-attr]
        "grounding_source `vault` is not one of teaching, pack")  # as written (it was sorted)


# --- the removed names, the renamed parameters, and rules across parameters -------------------------------------


@pytest.mark.parametrize(("kind", "message"), [
    ("terms", "predicate 'p': kind 'terms' was folded into 'terms_present'; write kind = \"terms_present\" (`mode` "
              "and `quantifier` as before (the default quantifier is now `all`); `match = \"token\"` is `match = "
              "\"word\"`; casefolding is `fold = \"casefold\"` (`case_sensitive = true` is `fold = \"none\"`); a case "
              "without `field`: `missing = \"not_judged\"`; docs/rules.md, \"Folded kinds\")"),
    ("ordered_words", "predicate 'p': kind 'ordered_words' was folded into 'terms_in_order'; write kind = "
                      "\"terms_in_order\" (`words` is `terms`; its word tokens are `tokens = \"words\"`; casefolding "
                      "is `fold = \"casefold\"`; a case without `field`: `missing = \"not_judged\"`; docs/rules.md, "
                      "\"Folded kinds\")"),
    ("surface_equals", "predicate 'p': kind 'surface_equals' was folded into 'surface_in_list'; write kind = "
                       "\"surface_in_list\" (`values` is `terms`; `mode = \"one_of\"` / `\"none_of\"` is `\"accept\"` / "
                       "`\"reject\"`; the old default normalisation is `normalise = \"space\"`; a case without "
                       "`field`: `missing = \"not_judged\"`; docs/rules.md, \"Folded kinds\")"),
    ("grounding_in_field", "predicate 'p': kind 'grounding_in_field' was folded into 'grounding_in'; write kind = "
                           "\"grounding_in\" (`field` is `sources_field`; add `missing = \"pass\"` and "
                           "`empty_passes = true` for its old behaviour; docs/rules.md, \"Folded kinds\")"),
])
def test_a_removed_kind_is_a_load_error_saying_what_to_write(kind: str, message: str) -> None:
    with pytest.raises(LaneError) as info:
        parse_lane(HEAD + f'kind = "{kind}"\n[predicates.params]\nfield = "x"\n', "folded.toml")
    assert (info.value.path, info.value.line, info.value.column, info.value.message) == ("folded.toml", 7, 1, message)


@pytest.mark.parametrize(("params", "where", "message"), [
    ('field = "x"\nmode = "none"\n', (10, 1),
     "predicate 'p': parameter `mode` must be \"present\" or \"absent\", not \"none\" (`mode` is now `present` or "
     "`absent`; `all`, `any` and `fraction` are `quantifier` values, and `none` is mode = \"absent\" with "
     "quantifier = \"any\")"),
    ('field = "x"\nmin_fraction = 0.5\n', (10, 1),
     "predicate 'p' (terms_present): unknown parameter `min_fraction` (`min_fraction` is now `minimum` (with "
     "quantifier = \"fraction\"))"),
    ('field = "x"\nmissing_passes = false\n', (10, 1),
     "predicate 'p' (terms_present): unknown parameter `missing_passes` (`missing_passes` is now `missing` = "
     "\"pass\" or \"fail\")"),
    ('field = "x"\nlowercase = true\n', (10, 1),
     "predicate 'p' (terms_present): unknown parameter `lowercase` (`lowercase` is now `fold` = \"lower\" (true) or "
     "\"none\" (false))"),
    ('terms = ["a"]\nfield = "x"\n', (8, 1), "predicate 'p' (terms_present): give exactly one of `field` and `terms`"),
    ('terms = [""]\n', (9, 1), "predicate 'p': parameter `terms` must not hold an empty string"),
    ('field = "x"\ntokens = "words"\ntoken_pattern = "[a-z]+"\n', (8, 1),
     "predicate 'p' (terms_present): give at most one of `tokens` and `token_pattern`"),
    ('field = "x"\nmissing = "skip"\n', (10, 1),
     "predicate 'p': parameter `missing` must be \"pass\", \"fail\" or \"not_judged\", not \"skip\""),
    ('field = "x"\nmatch = "token "\n', (10, 1),
     "predicate 'p': parameter `match` must be \"substring\", \"word\" or \"token\", not \"token \""),
])
def test_terms_present_parameters_are_checked_at_their_position(params: str, where: tuple[int, int],
                                                                 message: str) -> None:
    with pytest.raises(LaneError) as info:
        parse_lane(HEAD + 'kind = "terms_present"\n[predicates.params]\n' + params, "folded.toml")
    assert (info.value.line, info.value.column, info.value.message) == (*where, message)


def test_surface_in_list_needs_a_list() -> None:
    """It raised KeyError('field') on the first turn it judged."""
    with pytest.raises(LaneError) as info:
        parse_lane(HEAD + 'kind = "surface_in_list"\n[predicates.params]\nmode = "reject"\n', "folded.toml")
    assert (info.value.line, info.value.column, info.value.message) == (
        8, 1, "predicate 'p' (surface_in_list): give exactly one of `field` and `terms`")
    with pytest.raises(LaneError) as info:
        parse_lane(HEAD + 'kind = "terms_in_order"\nmessage = "x"\n', "folded.toml")
    assert (info.value.line, info.value.column, info.value.message) == (
        4, 1, "predicate 'p' (terms_in_order): give exactly one of `field` and `terms`")


LANE = '''[lane]
name = "per_case"

[case_schema.fields.id]
type = "string"
[case_schema.fields.want]
type = "list[string]"

[[predicates]]
name = "named"
code = "PC1"
kind = "terms_present"
message = "`{term}` is not named"
[predicates.params]
field = "want"
'''


def test_check_with_cases_judges_each_case_on_its_own_terms(tmp_path: Path) -> None:
    """Two cases with the same surface: the second got the first one's verdict (the memo key
    left out the case field the kind reads)."""
    lane_file = write(tmp_path / "per_case.toml", LANE)
    cases = write(tmp_path / "cases.jsonl", [json.dumps({"id": "a", "want": ["light"]}),
                                              json.dumps({"id": "b", "want": ["truth"]}),
                                              json.dumps({"id": "c", "want": ["light"]})])
    surface = "Light is a medium."
    turns = [json.dumps({"case_id": i, "surface": surface}) for i in "abc"]
    engine = Engine(Config(lane_files=[lane_file]))
    result = check(turns, engine=engine, lane_name="per_case", cases=cases_index(engine, cases, "per_case"))
    assert [(f.location.line, f.location.column, f.code, f.message) for f in result.findings] == [
        (2, 30, "PC1", "named: `truth` is not named")]
