# ruff: noqa: RUF001  # Greek, Cyrillic and Hebrew letters on purpose
"""User patterns mean Python `re` on RE2 (rules/pyre.py): property tests against `re` over texts in
several scripts, the classes `re` itself reports, and each refused construct with its message."""

from __future__ import annotations

import re
import unicodedata

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from surface_lint.rules.patterns import PatternError, SafePattern
from surface_lint.rules.pyre import complement, expand_extensions, scan, translate

# Texts: Latin (precomposed and decomposed), Greek (precomposed, decomposed, final sigma), pointed
# Hebrew, Cyrillic, CJK, emoji (a ZWJ sequence, a flag, a skin tone), digits of other scripts, the
# characters `re` folds specially (Kelvin sign, long s, dotted I, sharp s), spaces and newlines.
_PIECES = [
    "Quokka", " éis a ", "e\u0301", "café", "CAFÉ", "is a", "means", "x", "A", "_", "it's", "-", ".", "!", "?", ",",
    "λόγος", "λο\u0301γος", "ΛΌΓΟΣ", "ς", "Σ", "ά", "α\u0301",
    "הַדָּבָר", "שָׁלוֹם", "ב", "\u05b7",
    "Привет", "мир", "Ё", "ё",
    "中文", "東京", "\u3000",
    "😀", "👩\u200d💻", "🇫🇷", "👍🏽",
    "٣", "7", "½", "²",
    "\u212a", "k", "K", "ſ", "s", "S", "\u0130", "i", "ß", "ẞ",
    " ", "  ", "\n", "\t", "\xa0", "\u2028",
]
_TEXTS = st.lists(st.sampled_from(_PIECES), max_size=16).map("".join)

# Patterns a lane author writes: boundaries, Unicode classes, folding, `$`, `\p{..}`, escapes.
_PATTERNS = [
    r"\bis a\b", r"\bmeans\b", r"\w+", r"\W+", r"\d+", r"\s+", r"\S+", r"(?i)k", r"(?i)kelvin|ss", r"(?i)[a-z]+",
    r"(?i)λόγος", r"(?i)σ", r"a$", r"\n?$", r"[.!?]\s+|[.!?]$", r"\b([a-z][a-z'\-]*)\b", r"\b\w+\b", r"\B\w",
    r"(?i)\bé", r"^\s*$", r"x*", r"\p{L}+", r"\p{M}", r"\P{L}+", r"[\p{L}\p{M}]+", r"\x{5d3}\S*", r"\u05d4",
    r"[^\W\d]+", r"(a)|(s)", r"(?m)^\w+$", r"\w\b\W", r"(?s).", r"\b\p{Lu}", r"[\u0590-\u05ff]+", r"\w+\b",
    r"\b\d", r"(?i)\bis a\b|\bmeans\b", r"(?a)\b\w+\b", r"(?i)[^a-z]", r"(?x) a  b # comment", r"[\u05b0-\u05bc]",
    r"\b\w\b", r"\B.\b", r"\b[a-z\-]\b", r"\U0001F600", r"[😀-🙏]", r"\s*\Z", r"\w{2,3}", r"(?i)ß", r"(?i)\u0130",
]
_COMPILED = [(re.compile(expand_extensions(p)), SafePattern(p, False)) for p in _PATTERNS]


def _same(python: re.Pattern[str], ours: SafePattern, text: str) -> None:
    shown = python.pattern
    assert [(m.span(), m.groups()) for m in python.finditer(text)] == \
        [(m.span(), m.groups()) for m in ours.finditer(text)], (shown, text)
    found, mine = python.search(text), ours.search(text)
    assert (found and (found.span(), found.groups())) == (mine and (mine.span(), mine.groups())), (shown, text)
    found, mine = python.match(text), ours.match(text)
    assert (found and found.span()) == (mine and mine.span()), (shown, text)
    assert python.findall(text) == ours.findall(text), (shown, text)
    assert python.split(text) == ours.split(text), (shown, text)
    assert python.sub("", text) == ours.sub("", text), (shown, text)


@settings(max_examples=5000, derandomize=True, suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(which=st.integers(0, len(_PATTERNS) - 1), text=_TEXTS)
def test_user_patterns_match_exactly_what_re_matches_in_every_script(which: int, text: str) -> None:
    python, ours = _COMPILED[which]
    _same(python, ours, text)


# Generated patterns: atoms, quantifiers, groups, alternation, boundaries and anchors.
_ATOMS = ["a", "é", "λ", "ב", "\u05b7", "ё", "中", "😀", "k", "s", ".", r"\w", r"\W", r"\d", r"\s", r"\S",
          "[a-zé]", r"[^\s]", r"\p{L}", r"\p{M}", r"\p{Nd}", r"[\w\-']", "(?i:k)", "(?i:σ)", r"\x{5d1}", " ", "-"]
_QUANTIFIERS = ["", "", "", "*", "+", "?", "{1,2}", "{2}"]


@st.composite
def _patterns(draw: st.DrawFn) -> str:
    def piece() -> str:
        atom = draw(st.sampled_from(_ATOMS)) + draw(st.sampled_from(_QUANTIFIERS))
        if draw(st.integers(0, 5)) == 0:
            atom = f"({atom}{draw(st.sampled_from(_ATOMS))})"
        return atom
    branches = ["".join(piece() for _ in range(draw(st.integers(1, 3)))) for _ in range(draw(st.integers(1, 2)))]
    body = "|".join(branches)
    lead = draw(st.sampled_from(["", "", r"\b", r"\B", "^"]))
    trail = draw(st.sampled_from(["", "", r"\b", r"\B", "$", r"\Z"]))
    return f"{lead}(?:{body}){trail}" if len(branches) > 1 else f"{lead}{body}{trail}"


@settings(max_examples=1000, derandomize=True, suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(pattern=_patterns(), texts=st.lists(_TEXTS, min_size=4, max_size=4))
def test_generated_patterns_match_what_re_matches_or_are_refused(pattern: str, texts: list[str]) -> None:
    try:
        ours = SafePattern(pattern, False)
    except PatternError as exc:  # refused: with a reason, never a crash
        assert str(exc).startswith(("uses ", "can match", "repeats ")), (pattern, str(exc))
        return
    python = re.compile(expand_extensions(pattern))
    for text in texts:
        _same(python, ours, text)


def test_most_generated_patterns_are_accepted() -> None:
    accepted = refused = 0
    for lead in ["", r"\b", r"\B"]:
        for atom in _ATOMS:
            for trail in ["", r"\b", "$"]:
                try:
                    translate(f"{lead}{atom}+x{trail}")
                    accepted += 1
                except ValueError:
                    refused += 1
    assert (accepted, refused) == (243, 0)


def test_a_lone_surrogate_is_matched_as_re_matches_it() -> None:
    text = "a\ud800b \udfff"
    for pattern in [r"\w+", r".", r"[^a]", r"\W", r"\b\w\b"]:
        _same(re.compile(pattern), SafePattern(pattern, False), text)


def test_the_classes_are_the_code_points_re_reports() -> None:
    every = "".join(chr(c) for c in range(0x110000))
    for source in [r"\w", r"\d", r"\s", r"\W", r"(?i:k)", r"(?i:[a-z])", r".", r"[^\W\d]", r"(?a:\w)"]:
        outside = "".join(every[lo:hi + 1] for lo, hi in complement(scan(source, 0)))
        assert outside == re.sub(source, "", every), source  # what re leaves is exactly what the set leaves
    assert scan(r"(?i:k)", 0) == ((0x4B, 0x4B), (0x6B, 0x6B), (0x212A, 0x212A))
    assert scan(r"\s", 0) == ((0x9, 0xD), (0x1C, 0x20), (0x85, 0x85), (0xA0, 0xA0), (0x1680, 0x1680),
                              (0x2000, 0x200A), (0x2028, 0x2029), (0x202F, 0x202F), (0x205F, 0x205F),
                              (0x3000, 0x3000))


def test_a_folded_literal_is_every_character_re_folds_to_it() -> None:
    """A `(?i)` literal is searched for among the characters with a case mapping; checked against a
    scan of every code point for the letters whose folding `re` special-cases."""
    every = "".join(chr(c) for c in range(0x110000))
    for letter in "kKsSiIσΣςß\u0130\u0131\u212a\u017f\u1e9e\u03b8\u03d1\u00b5\u03bcaéλב":
        expected = [m.start() for m in re.finditer(f"(?i:{re.escape(letter)})", every)]
        got = [c for lo, hi in translate_set(letter) for c in range(lo, hi + 1)]
        assert got == expected, letter


def translate_set(letter: str) -> tuple[tuple[int, int], ...]:
    from surface_lint.rules.pyre import literal_set
    return literal_set(ord(letter), re.IGNORECASE.value)


def test_unicode_categories_are_unicodedatas() -> None:
    letters = expand_extensions(r"\p{L}")
    rx = re.compile(letters)
    assert all(bool(rx.fullmatch(c)) == unicodedata.category(c).startswith("L") for c in "aé中ב\u05b7٣_ -😀Σ")
    assert re.fullmatch(expand_extensions(r"\p{Mn}"), "\u05b7") and not re.fullmatch(expand_extensions(r"\P{Mn}"), "\u05b7")
    assert expand_extensions(r"\x{5d0}[\x{5d1}-\x{5d2}]") == r"\U000005d0[\U000005d1-\U000005d2]"


@pytest.mark.parametrize(("pattern", "message"), [
    (r"(?<=a)b", "uses a lookahead `(?=...)` or lookbehind `(?<=...)` at character 1, which has no exact linear-time "
                 "form: match the text itself (the match then includes it), or test it in a second predicate"),
    (r"x(?!a)", "uses a negative lookahead `(?!...)` or lookbehind `(?<!...)` at character 2, which has no exact "
                "linear-time form: write the characters allowed there as a class (`[^...]`), or give the case a "
                "second predicate that must not match"),
    (r"(a)\1", "uses a backreference (`\\1`, `(?P=name)`) at character 4, which has no exact linear-time form: "
               "list the alternatives it stands for (`(a|b)\\1` -> `aa|bb`)"),
    (r"(a)?(?(1)b|c)", "uses a conditional `(?(1)...|...)` at character 5, which has no exact linear-time form: "
                       "write the two alternatives as two patterns"),
    (r"(?>ab)", "uses an atomic group `(?>...)` at character 1, which has no exact linear-time form: write it as a "
                "plain group `(?:...)`"),
    (r"a++", "uses a possessive quantifier (`*+`, `++`, `?+`, `{m,n}+`) at character 2, which has no exact "
             "linear-time form: use the greedy quantifier (`*`, `+`, `?`, `{m,n}`)"),
    (r"a{1001}", "repeats something 1001 times; the linear-time engine counts at most 1000 repetitions: write a "
                 "smaller count, or `{m,}` with no upper bound"),
    (r"a$b", "uses `$` (without `(?m)`) before the end of the pattern, where `re` reads it as \"at the end or before "
             "a final newline\", which has no exact linear-time form there: write `\\Z` (the end of the text), "
             "`\\n?\\Z`, or `(?m)$`"),
    (r"\bfoo|-", "uses `\\b` where the characters on its two sides are not known, which has no exact linear-time "
                 "form (a Unicode word boundary): put `\\b` where the characters on its two sides are known: next "
                 "to the start or end of the pattern, or between a word character and a non-word one "
                 "(`\\bword\\b`, `\\b\\w+`), or write the characters out (`(?:^|\\W)word`)"),
    (r"a*?", "can match the empty string where a longer match starts at the same place (a lazy `*?` or `??`, or an "
             "empty alternative before a longer one), which `re` orders in a way the linear-time engine cannot "
             "after an empty match: put the longer alternative first, or use a greedy quantifier"),
    (r"(a|)*", "repeats a capturing group that can match the empty string, whose captured text `re` reports "
               "differently: make the group match at least one character, or use `(?:...)`"),
    (r"\p{Greek}", "uses `\\p{Greek}`, which is not a Unicode general category (known: C, Cc, Cf, Cn, Co, Cs, L, Ll, "
                   "Lm, Lo, Lt, Lu, M, Mc, Me, Mn, N, Nd, Nl, No, P, Pc, Pd, Pe, Pf, Pi, Po, Ps, S, Sc, Sk, Sm, So, "
                   "Z, Zl, Zp, Zs, L& and Any; for a script write its range, e.g. `[\\u0590-\\u05FF]` for Hebrew)"),
    (r"[a", "does not compile: unterminated character set at position 0"),
])
def test_a_pattern_without_an_exact_linear_form_is_refused_saying_what_to_write(pattern: str, message: str) -> None:
    with pytest.raises(PatternError) as caught:
        SafePattern(pattern, False)
    assert str(caught.value) == message


def test_the_issues_examples_now_mean_what_the_runners_mean() -> None:
    """`\\bis a\\b` on `Quokka éis a marsupial.`: `é` is a word character, so there is no boundary before `is`."""
    assert SafePattern(r"\bis a\b", False).search("Quokka éis a marsupial.") is None
    assert [m.span() for m in SafePattern(r"\bmeans\b", False).finditer("λmeans means")] == [(7, 12)]
    assert SafePattern(r"\p{L}+", False).findall("הַדָּבָר ok") == ["ה", "ד", "ב", "ר", "ok"]
    assert SafePattern(r"[\p{L}\p{M}]+", False).findall("הַדָּבָר ok") == ["הַדָּבָר", "ok"]
    assert SafePattern(r"\u05d3\x{5b8}", False).search("הַדָּבָר").span() == (2, 4)  # dalet, qamats
    assert SafePattern(r"(?i)ΛΌΓΟΣ", False).search("ο λόγος").span() == (2, 7)
    assert SafePattern(r"end$", False).search("the end\n").span() == (4, 7)


def test_the_cased_code_points_are_those_whose_lower_or_upper_case_differs() -> None:
    # _cased tests whole blocks first (start-up time); it must give what testing each code point gives.
    from surface_lint.rules.pyre import _all_chars, _cased

    assert _cased() == "".join(c for c in _all_chars() if c.lower() != c or c.upper() != c)
    assert all(c in _cased() for c in "AzßΣσςİıǅﬀ\U00010400")
    assert not any(c in _cased() for c in "1 _\u4e00\ud800\U0010ffff")
