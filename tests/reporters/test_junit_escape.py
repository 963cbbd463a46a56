"""JUnit's text and attribute escaping: exact output for each kind of character, and text that
needs no escape written as it is (the writer's one-search fast path must never skip a change)."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from surface_lint.reporters.junit import _esc_attr, _esc_text

CASES = [
    # (input, text escape, attribute escape)
    ("plain words", "plain words", "plain words"),
    ("a & b < c > d", "a &amp; b &lt; c &gt; d", "a &amp; b &lt; c &gt; d"),
    ('say "hi"', 'say "hi"', "say &quot;hi&quot;"),
    ("l1\nl2\r\tend", "l1\nl2\r\tend", "l1&#10;l2&#13;&#09;end"),
    ("esc\x1b[31m", "esc\\x1b[31m", "esc\\x1b[31m"),
    ("nul\x00", "nul\\x00", "nul\\x00"),
    ("nel\x85 del\x7f", "nel\\x85 del\\x7f", "nel\\x85 del\\x7f"),
    ("sep\u2028par\u2029", "sep\\u2028par\\u2029", "sep\\u2028par\\u2029"),
    ("bidi\u202ex\u2066", "bidi\\u202ex\\u2066", "bidi\\u202ex\\u2066"),
    ("lone\ud800", "lone\\xd800", "lone\\xd800"),
    ("nonchar\ufffe\uffff", "nonchar\\xfffe\\xffff", "nonchar\\xfffe\\xffff"),
    ("café — 漢字 😀", "café — 漢字 😀", "café — 漢字 😀"),
]


@pytest.mark.parametrize(("raw", "text", "attr"), CASES)
def test_exact_escapes(raw: str, text: str, attr: str) -> None:
    assert _esc_text(raw) == text
    assert _esc_attr(raw) == attr


# Characters no escape changes but the XML ones: what a parser gives back must be the input itself.
_SAFE = st.characters(blacklist_categories=("Cc", "Cs", "Zl", "Zp"),
                      blacklist_characters="\ufffe\uffff\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")


@settings(max_examples=400, deadline=None)
@given(st.text(alphabet=st.one_of(_SAFE, st.sampled_from('&<>"\n\t')), max_size=40))
def test_round_trip_through_a_parser(raw: str) -> None:
    element = ET.fromstring(f'<a v="{_esc_attr(raw)}">{_esc_text(raw)}</a>')
    assert element.get("v") == raw
    assert (element.text or "") == raw
