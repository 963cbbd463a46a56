"""The case-driven predicate kinds (kinds_extra.py): exact verdicts, reasons and spans."""

from __future__ import annotations

from typing import Any

import pytest

from surface_lint.rules.kinds.core import Context, Subject, Verdict
from surface_lint.rules.kinds.extra import render
from surface_lint.rules.loader import LaneError, parse_lane

HEAD = '''[lane]
name = "kinds_demo"

[analysis]
sentence_split = '[.!?]\\s+|[.!?]$'

[[predicates]]
name = "p"
code = "KD1"
'''


def judge(kind_and_params: str, surface: str, case: dict[str, Any] | None = None, grounding: str = "pack") -> Verdict:
    lane = parse_lane(HEAD + kind_and_params, "demo.toml", "reference")
    spec = lane.predicate("p")
    assert spec is not None
    return spec.evaluate(Context(Subject(surface=surface, grounding=grounding, case=case), lane.analysis))


def reasons(verdict: Verdict) -> tuple[str, ...]:
    return tuple(getattr(verdict, "reasons", ()))


TERMS = 'kind = "terms_present"\nmessage = "missing required word: {term}"\n[predicates.params]\nfield = "constraints.must_contain"\n'


def test_terms_from_a_nested_case_field_give_one_reason_per_missing_term() -> None:
    case = {"constraints": {"must_contain": ["river", "Valley", "sea"]}}
    v = judge(TERMS, "  The river flows.", case)
    assert v.passed is False
    assert reasons(v) == ("missing required word: Valley", "missing required word: sea")
    assert v.message == "missing required word: Valley; missing required word: sea"
    assert v.spans == ((2, 18),)
    assert judge(TERMS, "The RIVER flows to the valley and the sea", case).passed is True


def test_terms_are_substrings_unless_tokens_are_asked_for() -> None:
    case = {"want": ["art"]}
    assert judge('kind = "terms_present"\n[predicates.params]\nfield = "want"\n', "heart", case).passed is True
    token = ('kind = "terms_present"\n[predicates.params]\nfield = "want"\nquantifier = "any"\nmatch = "token"\n'
             "token_pattern = \"\\\\b[a-z][a-z'\\\\-]*\\\\b\"\n")
    assert judge(token, "heart", case).passed is False
    assert judge(token, "Art matters.", case).passed is True
    # Whole tokens, case-folded before tokenising: `truth-value` is one token.
    assert judge(token, "A truth-value.", {"want": ["truth"]}).passed is False
    assert judge(token, "Truth.", {"want": ["truth"]}).passed is True


def test_a_missing_or_empty_field_passes_unless_told_otherwise() -> None:
    assert judge(TERMS, "anything", {}).passed is True
    assert judge(TERMS, "anything", {"constraints": {"must_contain": []}}).passed is True
    strict = TERMS + "missing = \"fail\"\nempty_passes = false\n"
    assert judge(strict, "anything", {}).message == "the case has no `constraints.must_contain`"
    assert judge(strict, "anything", {"constraints": {"must_contain": []}}).message == "`constraints.must_contain` is empty"


def test_mode_none_points_at_every_term_found() -> None:
    params = 'kind = "terms_present"\n[predicates.params]\nterms = ["...", "<pending>"]\nmode = "absent"\nquantifier = "any"\n'
    v = judge(params, "a <pending> b ...")
    assert v.spans == ((2, 11), (14, 17))
    assert reasons(v) == ("`...` is in the surface", "`<pending>` is in the surface")


def test_mode_fraction_reports_the_share() -> None:
    params = 'kind = "terms_present"\n[predicates.params]\nfield = "s"\nquantifier = "fraction"\nminimum = 0.75\n'
    case = {"s": ["a1", "b2", "c3", "d4"]}
    v = judge(params, "a1 b2", case)
    assert v.message == "0.5 of the terms (a1, b2, c3, d4) are in the surface; at least 0.75 required"
    assert judge(params, "a1 b2 c3", case).passed is True


def test_word_order_is_a_subsequence_of_stripped_tokens() -> None:
    params = ('kind = "terms_in_order"\nmessage = "word order violated: expected {terms:py}"\n[predicates.params]\n'
              'field = "constraints.word_order"\nstrip_chars = ".,;:!?\u2014\u2013"\n')
    case = {"constraints": {"word_order": ["all", "structure", "implies"]}}
    assert judge(params, "All structure, it implies.", case).passed is True
    v = judge(params, "All structures imply", case)
    assert v.message == "word order violated: expected ['all', 'structure', 'implies']"
    assert judge(params, "structure all implies", case).passed is False


def test_surface_in_list_accepts_and_rejects_after_normalising() -> None:
    accept = 'kind = "surface_in_list"\n[predicates.params]\nfield = "accept_surfaces"\n'
    reject = accept.replace('field = "accept_surfaces"', 'field = "reject"\nmode = "reject"')
    case = {"accept_surfaces": ["river flows valley"], "reject": ["valley flows river"]}
    assert judge(accept, "  River flows valley ", case).passed is True
    assert judge(accept, "River flows", case).message == "the surface is none of `accept_surfaces`"
    assert judge(reject, "Valley flows river", case).message == "the surface is listed in `reject`"
    assert judge(reject, "River flows valley", case).passed is True


def test_pattern_present_and_first_letter_upper() -> None:
    present = 'kind = "pattern_present"\n[predicates.params]\npattern = \'(?i)\\bis\\b\'\n'
    assert judge(present, "Truth IS real").passed is True
    assert judge(present, "Truth, real").message == "the surface does not match `(?i)\\bis\\b`"
    upper = 'kind = "first_letter_upper"\n[predicates.params]\nper_sentence = true\n'
    v = judge(upper, "Wisdom grounds. next, it rests. 3 Ok.")
    assert v.spans == ((16, 17),)
    assert reasons(v) == ("`next, it rests` does not start with a capital letter",)
    whole = 'kind = "first_letter_upper"\n'
    assert judge(whole, "— wisdom.").spans == ((2, 3),)
    assert judge(whole, "— Wisdom. next").passed is True


def test_grounding_in_a_per_case_list() -> None:
    params = ('kind = "grounding_in"\nmessage = "grounding_source `{grounding}` is not one of {sources} (`{field}`)"\n'
              '[predicates.params]\nsources_field = "expected_grounding_source"\nmissing = "pass"\nempty_passes = true\n')
    case = {"expected_grounding_source": ["oov", "none"]}
    assert judge(params, "x", case, grounding="none").passed is True
    v = judge(params, "I know.", case, grounding="pack")
    assert (v.message, v.target) == ("grounding_source `pack` is not one of oov, none (`expected_grounding_source`)",
                                     "grounding_source")
    assert judge(params, "x", {"expected_grounding_source": []}, grounding="pack").passed is True


def test_message_templates() -> None:
    assert render("a {x} b {y:py} {z}", {"x": ["p", "q"], "y": ["p"]}) == "a p, q b ['p'] {z}"
    assert render("{unclosed", {}) == "{unclosed"


@pytest.mark.parametrize(("params", "where", "message"), [
    ('kind = "terms_present"\n[predicates.params]\nfield = "x"\nmode = "some"\n', (13, 1),
     "predicate 'p': parameter `mode` must be \"present\" or \"absent\", not \"some\" (`mode` is now `present` or "
     "`absent`; `all`, `any` and `fraction` are `quantifier` values, and `none` is mode = \"absent\" with "
     "quantifier = \"any\")"),
    ('kind = "terms_present"\n[predicates.params]\nfield = "x"\nminimun = 0.5\n', (13, 1),
     "predicate 'p' (terms_present): unknown parameter `minimun` (did you mean `minimum`?)"),
    ('kind = "grounding_in_field"\n[predicates.params]\nempty_passes = true\n', (10, 1),
     "predicate 'p': kind 'grounding_in_field' was folded into 'grounding_in'; write kind = \"grounding_in\" "
     "(`field` is `sources_field`; add `missing = \"pass\"` and `empty_passes = true` for its old behaviour; "
     "docs/rules.md, \"Folded kinds\")"),
    ('kind = "terms_present"\nmessage = "lacks {word}"\n[predicates.params]\nfield = "x"\n', (11, 1),
     "predicate 'p': `message` uses {word}, which kind terms_present does not provide (it provides: {term}, "
     "{terms}, {found}, {missing}, {count}, {total}, {fraction}, {bound}, {field}, {match})"),
    ('kind = "pattern_present"\n[predicates.params]\npattern = "(a"\n', (12, 1),
     "predicate 'p': `pattern` does not compile: missing ), unterminated subpattern at position 0"),
])
def test_a_wrong_parameter_is_an_error_at_its_position(params: str, where: tuple[int, int], message: str) -> None:
    with pytest.raises(LaneError) as info:
        parse_lane(HEAD + params, "demo.toml", "reference")
    assert (info.value.line, info.value.column, info.value.message) == (*where, message)
