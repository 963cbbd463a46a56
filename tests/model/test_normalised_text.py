"""Unicode normalisation with a map back to the original text (model/positions.py)."""
# ruff: noqa: RUF001, RUF003  (Greek and Hebrew letters are the subject)

from __future__ import annotations

import unicodedata

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from surface_lint.model.positions import normalise_text

# Characters normalising joins, splits, reorders or replaces: NFD Greek and Latin, pointed Hebrew
# (points whose canonical order differs from the written one), Hangul jamo (starters that compose),
# compatibility forms, a Tibetan vowel that decomposes to two marks, a mark that decomposes.
TRICKY = ("ο\u0301", "e\u0301", "\u0301", "\u0308\u0301", "ά", "é", "ς", "Ω", "\u2126",
          "\u05d3\u05bc\u05b8", "\u05d3\u05b8\u05bc", "\u05e9\u05c1\u05bc", "\u05b7",
          "\u1100\u1161\u11a8", "\u1161", "\uac00\u11a8", "\ufb01", "\u2460", "\u00bd", "\u0f73", "\u0f71\u0f72",
          "\u0344", "a", " ", "\n", "λ", "\ud800", "😀", "\u0345")
TEXTS = st.lists(st.sampled_from(TRICKY), max_size=24).map("".join)


@settings(max_examples=1500, derandomize=True, deadline=None)
@given(TEXTS, st.sampled_from(["NFC", "NFKC"]))
def test_the_text_is_the_normal_form_and_every_offset_maps_in_order(text: str, form: str) -> None:
    mapped = normalise_text(text, form)
    assert mapped.text == unicodedata.normalize(form, text)
    n = len(mapped.text)
    starts = [mapped.start(i) for i in range(n + 1)]
    ends = [mapped.end(i) for i in range(n + 1)]
    assert starts[0] == 0 and ends[n] == len(text)
    assert starts == sorted(starts) and ends == sorted(ends)
    for i in range(n):
        a, b = mapped.span(i, i + 1)
        assert 0 <= a < b <= len(text)
        # The original characters a normalised one came from normalise to text containing it.
        assert mapped.text[i] in unicodedata.normalize(form, text[a:b])


def test_nfd_greek_maps_to_the_decomposed_characters() -> None:
    mapped = normalise_text("Ο λο\u0301γος", "NFC")
    assert mapped.text == "Ο λόγος"
    assert mapped.span(2, 7) == (2, 8)   # the word: 5 characters normalised, 6 written
    assert mapped.span(3, 4) == (3, 5)   # `ό`: the `ο` and its accent
    assert mapped.span(4, 7) == (5, 8)   # after it: shifted by one
    assert mapped.span(0, 1) == (0, 1)   # before it: unchanged
    assert mapped.span(4, 4) == (5, 5)   # empty spans stay empty


def test_pointed_hebrew_reordered_marks_map_to_the_whole_letter() -> None:
    # dalet, dagesh (class 21), qamats (class 18): NFC puts qamats first.
    mapped = normalise_text("\u05d3\u05bc\u05b8\u05d1\u05b8\u05e8", "NFC")
    assert mapped.text == "\u05d3\u05b8\u05bc\u05d1\u05b8\u05e8"
    assert mapped.span(0, 1) == (0, 3)   # part of the reordered letter: the whole letter with its points
    assert mapped.span(1, 2) == (0, 3)
    assert mapped.span(3, 6) == (3, 6)   # the rest is unchanged


def test_nfkc_ligature_maps_to_the_one_original_character() -> None:
    mapped = normalise_text("aﬁb", "NFKC")
    assert mapped.text == "afib"
    assert (mapped.span(0, 1), mapped.span(1, 2), mapped.span(2, 3), mapped.span(3, 4)) == (
        (0, 1), (1, 2), (1, 2), (2, 3))


@pytest.mark.parametrize("text", ["", "plain ASCII", "λόγος", "הַדָּבָר"])
def test_a_normalised_text_is_its_own_map(text: str) -> None:
    mapped = normalise_text(text, "NFC")
    assert mapped.identity and mapped.text == text
