# ruff: noqa: RUF001  # Greek, Cyrillic and Hebrew letters on purpose
"""Kinds over text in any script: tokens keep combining marks, case-dependent kinds say how they
read letters without case, term kinds normalise Unicode when told (exact verdicts and spans)."""

from __future__ import annotations

import pytest

from surface_lint.rules.kinds.core import Context, Subject, Verdict
from surface_lint.rules.kinds.extra import first_alpha_is_upper, word_tokens
from surface_lint.rules.loader import LaneError, parse_lane

HEAD = '[lane]\nname = "scripts_demo"\n\n[[predicates]]\nname = "p"\ncode = "SD1"\n'


def judge(kind_and_params: str, surface: str) -> Verdict:
    lane = parse_lane(HEAD + kind_and_params, "demo.toml", "reference")
    spec = lane.predicate("p")
    assert spec is not None
    return spec.evaluate(Context(Subject(surface=surface, grounding="pack"), lane.analysis))


def test_words_keep_their_combining_marks() -> None:
    tokens = [m.group() for m in word_tokens().finditer("הַדָּבָר הַזֶּה; λο\u0301γος it's e\u0301te\u0301 ٣٤")]
    assert tokens == ["הַדָּבָר", "הַזֶּה", "λο\u0301γος", "it's", "e\u0301te\u0301", "٣٤"]


def test_a_pointed_hebrew_term_is_a_word_of_the_surface() -> None:
    kind = 'kind = "terms_present"\n[predicates.params]\nterms = ["הַדָּבָר"]\nmatch = "token"\ntokens = "words"\n'
    assert judge(kind, "אָמַר הַדָּבָר.").passed is True
    failed = judge(kind, "אָמַר דָּבָר.")
    assert (failed.passed, failed.message, failed.spans) == (False, "`הַדָּבָר` is not in the surface", ((0, 13),))


def test_nfd_greek_equals_its_nfc_term_only_when_normalised() -> None:
    kind = 'kind = "terms_present"\n[predicates.params]\nterms = ["λόγος"]\nmatch = "token"\ntokens = "words"\n'
    assert judge(kind, "ο λο\u0301γος").passed is False
    assert judge(kind + 'unicode_form = "NFC"\n', "ο λο\u0301γος").passed is True
    assert judge(kind + 'unicode_form = "NFKC"\n', "ο λόγος").passed is True
    ligature = 'kind = "terms_present"\n[predicates.params]\nterms = ["fine"]\n'
    assert judge(ligature, "a \ufb01ne day").passed is False
    assert judge(ligature + 'unicode_form = "NFKC"\n', "a \ufb01ne day").passed is True
    assert judge(ligature + 'unicode_form = "NFC"\n', "a \ufb01ne day").passed is False


def test_an_absent_term_found_after_normalising_points_into_the_original_text() -> None:
    kind = ('kind = "terms_present"\n[predicates.params]\nterms = ["λόγος"]\nmode = "absent"\nquantifier = "any"\n'
            'unicode_form = "NFC"\n')
    same_length = judge(kind, "ο λόγος")
    assert (same_length.passed, same_length.spans) == (False, ((2, 7),))
    shorter = judge(kind, "ο λο\u0301γος")  # NFC is a character shorter: the span maps back to the six written
    assert (shorter.passed, shorter.spans) == (False, ((2, 8),))
    ligature = judge('kind = "terms_present"\n[predicates.params]\nterms = ["fine"]\nmode = "absent"\n'
                     'quantifier = "any"\nunicode_form = "NFKC"\n', "a \ufb01ne day")
    assert (ligature.passed, ligature.spans) == (False, ((2, 5),))  # `ﬁne`: three written characters


UPPER = 'kind = "first_letter_upper"\n'


@pytest.mark.parametrize(("uncased", "surface", "passed", "message", "spans"), [
    (None, "הַדָּבָר טוֹב", False, "`הַדָּבָר טוֹב` does not start with a capital letter (`ה` is a letter without "
     "case: `uncased` = \"pass\" or \"skip\" accepts it)", ((0, 1),)),
    ("fail", "— שָׁלוֹם", False, "`— שָׁלוֹם` does not start with a capital letter (`ש` is a letter without case: "
     "`uncased` = \"pass\" or \"skip\" accepts it)", ((2, 3),)),
    ("pass", "הַדָּבָר ok", True, "", ()),
    ("skip", "הַדָּבָר Ok", True, "", ()),
    ("skip", "הַדָּבָר ok", False, "`הַדָּבָר ok` does not start with a capital letter", ((9, 10),)),
    ("skip", "שָׁלוֹם 中文", True, "", ()),
    ("fail", "Ελλάδα", True, "", ()),
    ("fail", "ελλάδα", False, "`ελλάδα` does not start with a capital letter", ((0, 1),)),
])
def test_first_letter_upper_says_how_it_reads_a_script_without_case(
        uncased: str | None, surface: str, passed: bool, message: str, spans: tuple[tuple[int, int], ...]) -> None:
    kind = UPPER if uncased is None else UPPER + f'[predicates.params]\nuncased = "{uncased}"\n'
    verdict = judge(kind, surface)
    assert (verdict.passed, verdict.message if not passed else "", verdict.spans if not passed else ()) == \
        (passed, message, spans)


def test_starts_upper_takes_the_same_choice() -> None:
    assert [first_alpha_is_upper("שָׁלוֹם", u) for u in ("fail", "pass", "skip")] == [False, True, True]
    assert [first_alpha_is_upper("שָׁלוֹם world", u) for u in ("fail", "pass", "skip")] == [False, True, False]
    with pytest.raises(ValueError, match="starts_upper: `uncased` is one of fail, pass, skip, not 'maybe'"):
        first_alpha_is_upper("x", "maybe")


def test_a_wrong_uncased_choice_is_refused_at_its_position() -> None:
    with pytest.raises(LaneError) as caught:
        parse_lane(HEAD + UPPER + '[predicates.params]\nuncased = "ignore"\n', "demo.toml", "reference")
    assert str(caught.value).startswith("demo.toml:9:")
    assert "uncased" in str(caught.value)
