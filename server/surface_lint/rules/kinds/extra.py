"""Case-driven predicate kinds (issue 9): terms, order, lists and per-case groundings.

Every kind here is general: what it reads comes from its parameters, and each rule may give
its own `message` template (the rule-level key, as for every kind). Placeholders: `{term}` (the term a reason is about), `{terms}` (the
list, comma-joined), `{count}` (what was measured), `{bound}` (the limit), `{field}` (the case
path); `{name:py}` prints the value as a Python literal (runners written in Python print
lists that way). A kind that fails for several terms gives one reason per term
(`ReasonedVerdict.reasons`), joined with "; " in the finding's message.

Numeric bounds are case_kinds' `count_between`. Case paths (`field`) are dotted paths into the subject's case mapping:
`constraints.must_contain`; case-driven lanes also put the case's entry for the turn (of its
`turn_list`) under `entry.` and the captured record under `record.` (see casework.py; `turn.`
is left to conditions, where it names the scored turn's own fields).
"""

from __future__ import annotations

import functools
import re
import string
import unicodedata
from collections.abc import Mapping, Sequence
from typing import Any

from ..expressions import resolve_path
from ..pyre import category_set, py_ranges
from ..schema import REQUIRED, Value
from .core import NOT_JUDGED, PASS, UNICODE_FORM, Context, Evaluator, Kind, KindExample, SafePattern, Span, Verdict, _whole, ticked


class ReasonedVerdict(Verdict):
    """A failing verdict with one reason per failed term (the runner's failure list)."""

    __slots__ = ("reasons",)

    def __init__(self, spans: tuple[Span, ...], reasons: Sequence[str], target: str | None = None,
                 span_messages: tuple[str, ...] | None = None) -> None:
        super().__init__(False, spans, "; ".join(reasons), target, span_messages=span_messages)
        self.reasons = tuple(reasons)


def render(template: str, values: Mapping[str, Any]) -> str:
    """`{name}` / `{name:py}` placeholders; an unknown placeholder is left as written."""
    out: list[str] = []
    i = 0
    while i < len(template):
        start = template.find("{", i)
        if start < 0:
            out.append(template[i:])
            break
        end = template.find("}", start)
        if end < 0:
            out.append(template[i:])
            break
        out.append(template[i:start])
        key, _, fmt = template[start + 1 : end].partition(":")
        if key in values:
            value = values[key]
            if fmt == "py":
                out.append(repr(value))
            elif isinstance(value, (list, tuple)):
                out.append(", ".join(str(v) for v in value))
            else:
                out.append(str(value))
        else:
            out.append(template[start : end + 1])
        i = end + 1
    return "".join(out)


def _judged(ctx: Context, params: Mapping[str, Any]) -> str:
    """The text a rule judges: the surface, minus the `rstrip` characters at its end (a runner
    that strips trailing periods before every check); offsets into it are the surface's."""
    chars = params.get("rstrip")
    return ctx.subject.surface.rstrip(chars) if chars else ctx.subject.surface


MISSING_CHOICES = ("pass", "fail", "not_judged")  # what a term kind does when the case lacks `field`
@functools.cache
def word_tokens() -> re.Pattern[str]:
    """`tokens = "words"`: letters and digits, each with the combining marks after it (so `הַדָּבָר` and
    NFD Greek stay one word), inner apostrophes. Python's `\\w` has no marks; these are category M.
    Linear: a letter and a mark are disjoint, so each character is read by one part of the pattern."""
    letter = f"[^\\W_][{py_ranges(category_set('M'))}]*"
    return re.compile(f"(?:{letter})+(?:['\u2019](?:{letter})+)*")


def _terms(ctx: Context, params: Mapping[str, Any]) -> list[str] | None:
    """The rule's terms: its constant `terms`, else the case path `field` (a string or a list);
    None when the case does not have the field."""
    if "terms" in params:
        return [str(t) for t in params["terms"]]
    value = resolve_path(ctx.subject.case, str(params["field"]))
    if value is None:
        return None
    if isinstance(value, str):
        return [value]
    if isinstance(value, list):
        return [str(v) for v in value if isinstance(v, (str, int, float))]
    return [str(value)]


def _unread(ctx: Context, params: Mapping[str, Any], surface: str) -> tuple[bool, Verdict | None]:
    """(True, verdict) when the rule's terms cannot be read (no case joined, or the case lacks
    `field`): the verdict its `missing` choice gives; (False, None) when they can."""
    missing = str(params.get("missing", "pass"))
    if ctx.subject.case is None and "terms" not in params:  # no case joined: `fail` is not applied
        return True, NOT_JUDGED if missing == "not_judged" else PASS
    if "terms" in params or resolve_path(ctx.subject.case, str(params["field"])) is not None:
        return False, None
    if missing == "fail":
        return True, ReasonedVerdict(_whole(surface), [f"the case has no `{params['field']}`"])
    return True, NOT_JUDGED if missing == "not_judged" else PASS


def _tokens(text: str, params: Mapping[str, Any]) -> list[tuple[str, int]]:
    """Tokens with their offsets: `token_pattern` matches, else `tokens` (whitespace runs, or
    words: letters and digits with inner apostrophes); each token's `strip_chars` are taken off
    its ends (offsets follow the stripped token)."""
    pattern: SafePattern | None = params.get("token_pattern")
    chars = str(params.get("strip_chars", ""))
    out: list[tuple[str, int]] = []
    if pattern is not None:
        raw = [(m.group(), m.start()) for m in pattern.finditer(text)]
    elif params.get("tokens") == "words":
        raw = [(m.group(), m.start()) for m in word_tokens().finditer(text)]
    else:
        raw = []
        pos = 0
        for part in text.split():
            at = text.find(part, pos)
            raw.append((part, at))
            pos = at + len(part)
    for token, at in raw:
        if chars:
            lead = len(token) - len(token.lstrip(chars))
            token = token.strip(chars)
            at += lead
        out.append((token, at))
    return out


def _fold(text: str, params: Mapping[str, Any]) -> str:
    """`unicode_form` (`NFC`/`NFKC` first, when given), then `fold`: `lower` (str.lower, the
    runners'), `casefold` (str.casefold) or `none`. Applied alike to the surface and the terms."""
    form = params.get("unicode_form", "none")
    if form != "none":
        text = unicodedata.normalize(form, text)
    how = params.get("fold", "lower")
    if how == "lower":
        return text.lower()
    if how == "casefold":
        return text.casefold()
    return text


def _find_term(folded: str, term: str, params: Mapping[str, Any]) -> Span | None:
    """Where `term` occurs in the folded text: anywhere (`substring`), between non-alphanumeric
    characters (`word`), or equal to a whole token (`token`)."""
    needle = _fold(term, params)
    if not needle:
        return None
    how = params.get("match", "substring")
    if how == "token":
        # Tokenised after folding (a lower-case token pattern must see `Truth` as `truth`).
        for token, at in _tokens(folded, params):
            if token == needle:
                return (at, at + len(token))
        return None
    at = folded.find(needle)
    if how == "word":
        while at != -1:
            end = at + len(needle)
            if (at == 0 or not folded[at - 1].isalnum()) and (end == len(folded) or not folded[end].isalnum()):
                break
            at = folded.find(needle, at + 1)
    return (at, at + len(needle)) if at >= 0 else None


def share_present(terms: Sequence[str] | None, surface: str, params: Mapping[str, Any] | None = None) -> float:
    """Fraction of `terms` found in `surface` (1.0 for no terms): the value `fraction` judges."""
    p = params or {}
    items = list(terms or [])
    if not items:
        return 1.0
    folded = _fold(surface, p)
    return sum(1 for t in items if _find_term(folded, str(t), p) is not None) / len(items)


def _number(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else f"{value:g}"


def _per_term(template: str) -> bool:
    """A template naming `{term}` is written once per term (the runners' failure lists)."""
    return any(name == "term" for _, name, _, _ in string.Formatter().parse(template) if name is not None)


TERMS_MESSAGES = {  # (mode, quantifier) -> the default template
    ("present", "all"): "`{term}` is not in the surface",
    ("present", "any"): "none of {terms} is in the surface",
    ("present", "count"): "{count} of {total} terms in the surface; at least {bound} required",
    ("present", "fraction"): "{fraction} of the terms ({terms}) are in the surface; at least {bound} required",
    ("absent", "all"): "all {total} terms in the surface",
    ("absent", "any"): "`{term}` is in the surface",
    ("absent", "count"): "{count} of {total} terms in the surface; fewer than {bound} allowed",
    ("absent", "fraction"): "{fraction} of the terms in the surface; less than {bound} allowed",
}


def _terms_present(params: Mapping[str, Any]) -> Evaluator:
    absent = params.get("mode", "present") == "absent"
    quantifier = str(params.get("quantifier", "all"))
    minimum = float(params.get("minimum", 1))
    empty_passes = bool(params.get("empty_passes", True))
    template = str(params.get("_rule_message") or TERMS_MESSAGES[("absent" if absent else "present", quantifier)])
    per_term = _per_term(template)
    where = str(params.get("field", "terms"))

    def evaluate(ctx: Context) -> Verdict | None:
        surface = _judged(ctx, params)
        unread, verdict = _unread(ctx, params, surface)
        if unread:
            return verdict
        terms = _terms(ctx, params) or []
        if not terms:
            return PASS if empty_passes else ReasonedVerdict(_whole(surface), [f"`{where}` is empty"])
        folded = _fold(surface, params)
        found = [(t, _find_term(folded, t, params)) for t in terms]
        hits = [(t, span) for t, span in found if span is not None]
        count, total = len(hits), len(terms)
        share = count / total
        holds = {"any": count >= 1, "all": count == total, "count": count >= minimum,
                 "fraction": share >= minimum}[quantifier]
        if holds != absent:
            return PASS
        facts: dict[str, Any] = {
            "terms": terms, "field": where, "count": count, "total": total, "fraction": round(share, 4),
            "bound": _number(minimum), "found": ticked([t for t, _ in hits]) or "none",
            "missing": ticked([t for t, span in found if span is None]) or "none",
            "match": hits[0][0] if hits else "",
        }
        about = [t for t, span in found if (span is None) != absent]  # present: the missing; absent: the found
        reasons = ([render(template, {**facts, "term": t}) for t in about] if per_term
                   else [render(template, facts)])
        if not absent or len(folded) != len(surface):  # spans only where folding keeps offsets
            return ReasonedVerdict(_whole(surface), reasons)
        located = sorted((span, t) for t, span in hits if span is not None)
        span_messages = tuple(render(template, {**facts, "term": t, "match": t}) for _, t in located)
        return ReasonedVerdict(tuple(span for span, _ in located), reasons, span_messages=span_messages)

    return evaluate


def _terms_in_order(params: Mapping[str, Any]) -> Evaluator:
    template = str(params.get("_rule_message") or "the words {terms} do not appear in this order")
    where = str(params.get("field", "terms"))

    def evaluate(ctx: Context) -> Verdict | None:
        surface = _judged(ctx, params)
        unread, verdict = _unread(ctx, params, surface)
        if unread:
            return verdict
        terms = _terms(ctx, params) or []
        tokens = [_fold(t, params) for t, _ in _tokens(surface, params)]
        at = 0
        for index, term in enumerate(terms):
            wanted = _fold(term, params)
            while at < len(tokens) and tokens[at] != wanted:
                at += 1
            if at == len(tokens):
                facts = {"terms": terms, "field": where, "match": term, "index": index + 1}
                return ReasonedVerdict(_whole(surface), [render(template, facts)])
            at += 1
        return PASS

    return evaluate


def sentences(text: str, split: SafePattern | None) -> list[str]:
    """Non-blank parts of `text` split on `split` (the rule's, else the lane's [analysis]
    sentence_split), stripped; without a split, the stripped text is one sentence."""
    if split is None:
        return [text.strip()] if text.strip() else []
    return [p.strip() for p in split.split(text) if p and p.strip()]


UNCASED = ("fail", "pass", "skip")


def is_uncased(ch: str) -> bool:
    """A letter of a script without case (Hebrew, Arabic, CJK): neither upper- nor lower-case, no case mapping."""
    return ch.isalpha() and not ch.isupper() and not ch.islower() and ch.upper() == ch.lower() == ch


def first_letter(text: str, uncased: str = "fail") -> tuple[int, bool] | None:
    """The first letter that decides `text`'s capital, and whether it is upper-case (None: no letter
    decides). A letter without case fails (`uncased = "fail"`, the runners' reading), passes
    (`"pass"`), or is skipped so that the first letter with case decides (`"skip"`)."""
    for i, ch in enumerate(text):
        if not ch.isalpha():
            continue
        if is_uncased(ch):
            if uncased == "skip":
                continue
            return i, uncased == "pass"
        return i, ch.isupper()
    return None


def first_alpha_is_upper(text: str, uncased: str = "fail") -> bool:
    """The first alphabetic character is upper-case (true when there is none); `uncased` as in `first_letter`."""
    if uncased not in UNCASED:
        raise ValueError(f"starts_upper: `uncased` is one of {', '.join(UNCASED)}, not {uncased!r}")
    found = first_letter(text, uncased)
    return True if found is None else found[1]


_SPACE_RUN = re.compile(r"\s+")


def normalise(text: str, how: str) -> str:
    """`lower_strip` (the runners' .lower().strip()); `strip`; `exact`; `space`: strip and
    collapse whitespace runs to one space; `fold`: `space`, then casefold."""
    if how == "lower_strip":
        return text.lower().strip()
    if how == "strip":
        return text.strip()
    if how == "exact":
        return text
    collapsed = _SPACE_RUN.sub(" ", text.strip())
    return collapsed.casefold() if how == "fold" else collapsed


def _surface_in_list(params: Mapping[str, Any]) -> Evaluator:
    accept = params.get("mode", "accept") == "accept"
    how = str(params.get("normalise", "lower_strip"))
    not_judged = params.get("missing", "empty") == "not_judged"
    where = str(params.get("field", "terms"))
    default = "the surface is none of `{field}`" if accept else "the surface is listed in `{field}`"
    template = str(params.get("_rule_message") or default)

    def evaluate(ctx: Context) -> Verdict | None:
        surface = _judged(ctx, params)
        if ctx.subject.case is None and "terms" not in params:  # no case joined: nothing to judge
            return NOT_JUDGED if not_judged else PASS
        listed = _terms(ctx, params)
        if listed is None and not_judged:
            return NOT_JUDGED
        originals: dict[str, str] = {}
        for item in listed or []:  # `missing = "empty"`: a missing list is an empty one
            originals.setdefault(normalise(item, how), item)
        hit = originals.get(normalise(surface, how))
        if (hit is not None) == accept:
            return PASS
        facts = {"field": where, "terms": sorted(originals), "total": len(listed or []), "match": hit or ""}
        return Verdict(False, _whole(surface), render(template, facts))

    return evaluate


def _pattern_present(params: Mapping[str, Any]) -> Evaluator:
    pattern: SafePattern = params["pattern"]
    lowercase = bool(params.get("lowercase", False))
    template = str(params.get("_rule_message") or "the surface does not match `{pattern}`")

    def evaluate(ctx: Context) -> Verdict:
        surface = _judged(ctx, params)
        if pattern.search(surface.lower() if lowercase else surface) is not None:
            return PASS
        return Verdict(False, _whole(surface), render(template, {"pattern": pattern.pattern}))

    return evaluate


def _first_letter_upper(params: Mapping[str, Any]) -> Evaluator:
    per_sentence = bool(params.get("per_sentence", False))
    uncased = str(params.get("uncased", "fail"))
    template = str(params.get("_rule_message") or "`{term}` does not start with a capital letter")

    def evaluate(ctx: Context) -> Verdict:
        surface = _judged(ctx, params)
        split: SafePattern | None = params.get("sentence_split") or (
            ctx.lane_analysis.sentence_split if per_sentence else None)
        pieces: list[tuple[str, int]] = []
        if split is None:
            pieces.append((surface, 0))
        else:
            pos = 0
            for part in split.split(surface):
                if not part or not part.strip():
                    pos += len(part or "")
                    continue
                at = surface.find(part, pos)
                at = pos if at < 0 else at
                pos = at + len(part)
                pieces.append((part, at))
        reasons: list[str] = []
        spans: list[Span] = []
        for text, at in pieces:
            found = first_letter(text, uncased)
            if found is not None and not found[1]:
                i = found[0]
                reasons.append(render(template, {"term": text.strip()}) + (
                    f" (`{text[i]}` is a letter without case: `uncased` = \"pass\" or \"skip\" accepts it)"
                    if is_uncased(text[i]) else ""))
                spans.append((at + i, at + i + 1))
        if not reasons:
            return PASS
        return ReasonedVerdict(tuple(spans), reasons)

    return evaluate


_TERMS = "list[string]"
_RSTRIP = Value("string", None, "Characters stripped from the surface's end before judging (`.`).", non_empty=True)


def _missing(default: str) -> Value:
    return Value("string", default, "A case without `field`: `pass`, `fail` (one reason: the case has no field) "
                 "or `not_judged` (no verdict). With no case joined at all the rule passes (or, for `not_judged`, "
                 "is not judged).", choices=MISSING_CHOICES)


def _term_params(extra: Mapping[str, Value]) -> dict[str, Value]:
    """The parameters every term-reading kind shares, plus its own."""
    return {
        "terms": Value(_TERMS, None, "Constant terms (give `terms` or `field`).", non_empty=True),
        "field": Value("string", None, "A case path holding the terms (a string or a list): "
                       "`constraints.must_contain`, `entry.x`.", non_empty=True),
        "fold": Value("string", "lower", "Case folding of both sides: `lower` (str.lower, as the runners), "
                      "`casefold` (str.casefold: also `ß` = `ss`) or `none`.", choices=("lower", "casefold", "none")),
        "tokens": Value("string", "whitespace", "What a token is: `whitespace`-separated runs, or `words` (runs of "
                        "letters and digits, apostrophes inside).", choices=("whitespace", "words")),
        "token_pattern": Value("regex", None, "What a token is, as a pattern (instead of `tokens`)."),
        "strip_chars": Value("string", "", "Characters stripped from each token's ends."),
        "unicode_form": Value("string", "none", "Unicode normalisation of the surface and the terms before comparing: "
                              "`none`, `NFC` (composed: `e` + U+0301 equals U+00E9) or `NFKC` (also "
                              "compatibility forms: U+FB01 `\ufb01` equals `fi`); default: the lane's `[lane] unicode_form`. "
                              "Spans point at the original characters.", choices=UNICODE_FORM.choices),
        "rstrip": _RSTRIP,
        "missing": _missing("pass"),
        **extra,
    }


def _terms_check(params: Mapping[str, Any]) -> str | None:
    """Exactly one source of terms; one definition of a token."""
    if ("terms" in params) == bool(params.get("field")):
        return "give exactly one of `field` and `terms`"
    if "token_pattern" in params and params.get("tokens", "whitespace") != "whitespace":
        return "give at most one of `tokens` and `token_pattern`"
    return None


# This module's kinds; kinds.py lists every family in one registry.
KINDS: dict[str, Kind] = {}
KINDS["terms_present"] = Kind(_terms_present, _term_params({
    "mode": Value("string", "present", "`present`: the quantifier must hold; `absent`: it must not.",
                  choices=("present", "absent")),
    "quantifier": Value("string", "all", "`all` terms, `any` term, at least `minimum` terms (`count`), or at least "
                        "a `minimum` share of them (`fraction`).", choices=("all", "any", "count", "fraction")),
    "minimum": Value("number", 1, "The bound for `count` and `fraction`.", minimum=0),
    "match": Value("string", "substring", "`substring`: anywhere; `word`: between non-alphanumeric characters (or "
                   "the text's ends); `token`: equal to a whole token (`tokens` / `token_pattern`, `strip_chars`).",
                   choices=("substring", "word", "token")),
    "empty_passes": Value("boolean", True, "An empty term list passes (else it fails: the field is empty)."),
}), facts={"term": "the term a reason is about: a message naming it is written once per term (each missing term; "
                   "each term found, for `absent`)",
           "terms": "the terms, comma-separated (`{terms:py}`: as a Python list)", "found": "terms found, ticked",
           "missing": "terms not found, ticked", "count": "terms found", "total": "terms listed",
           "fraction": "count / total, rounded to 4 places", "bound": "`minimum`", "field": "`field`",
           "match": "the first term found (each finding's own, for `absent`)"},
    summary="Terms (constant or from a case field) are present, or absent, in the surface: all, any, a count or a "
            "share of them; one reason per term when the message names `{term}`.",
    case_params=("field",),
    judged_without_case=True,  # `missing` decides
    check=_terms_check,
    example=KindExample({"field": "constraints.must_contain"}, "The river flows.", False,
                        "`valley` is not in the surface", case={"constraints": {"must_contain": ["river", "valley"]}}),
)
KINDS["terms_in_order"] = Kind(_terms_in_order, _term_params({}),
    facts={"terms": "the words, comma-separated (`{terms:py}`: as a Python list)", "field": "`field`",
           "match": "the first word missing in order", "index": "its position in the list (from 1)"},
    summary="The terms appear in order among the surface's tokens (a subsequence: other tokens may come between).",
    case_params=("field",),
    judged_without_case=True,  # `missing` decides
    check=_terms_check,
    example=KindExample({"field": "word_order", "strip_chars": ".,"}, "Valley, river flows.", False,
                        "the words river, valley do not appear in this order", case={"word_order": ["river", "valley"]}),
)
KINDS["surface_in_list"] = Kind(_surface_in_list, {
    "terms": Value(_TERMS, None, "Constant surfaces (give `terms` or `field`)."),
    "field": Value("string", None, "A case path holding the surfaces (a string or a list).", non_empty=True),
    "rstrip": _RSTRIP,
    "mode": Value("string", "accept", "`accept`: must be one of them; `reject`: must be none.",
                  choices=("accept", "reject")),
    "normalise": Value("string", "lower_strip", "How both sides are compared: `lower_strip` (the runners' "
                       ".lower().strip()), `strip`, `exact`, `space` (strip and collapse whitespace runs to one space) "
                       "or `fold` (`space`, then casefold).", choices=("lower_strip", "strip", "exact", "space", "fold")),
    "missing": Value("string", "empty", "A case without `field`: `empty` (an empty list: `accept` fails, `reject` "
                     "passes) or `not_judged` (no verdict; with no case joined, none either).",
                     choices=("empty", "not_judged")),
}, facts={"field": "`field`", "terms": "the listed surfaces, normalised and sorted", "total": "how many are listed",
          "match": "the listed surface it equals (for `reject`)"},
    summary="The surface is one of (or none of) a list of surfaces, after the stated normalisation.",
    case_params=("field",),
    judged_without_case=True,  # `missing` decides
    check=lambda p: None if ("terms" in p) != bool(p.get("field")) else "give exactly one of `field` and `terms`",
    example=KindExample({"field": "accept_surfaces"}, "Valley flows river", False,
                        "the surface is none of `accept_surfaces`", case={"accept_surfaces": ["river flows valley"]}),
)
KINDS["pattern_present"] = Kind(_pattern_present, {
    "rstrip": _RSTRIP,
    "pattern": Value("regex", REQUIRED, "The pattern that must match somewhere."),
    "lowercase": Value("boolean", False, "Search the case-folded surface."),
    "unicode_form": UNICODE_FORM,
}, facts={"pattern": "`pattern`"}, summary="The pattern matches somewhere in the surface.",
    example=KindExample({"pattern": "(?i)\\bis\\b"}, "Truth, order.", False,
                        "the surface does not match `(?i)\\bis\\b`"),
)
KINDS["first_letter_upper"] = Kind(_first_letter_upper, {
    "rstrip": _RSTRIP,
    "sentence_split": Value("regex", None, "Judge each sentence of this split."),
    "per_sentence": Value("boolean", False, "Judge each sentence of the lane's [analysis] sentence_split."),
    "uncased": Value("string", "fail", "A first letter of a script without case (Hebrew, Arabic, CJK): `fail` (the "
                     "runners' reading; the reason names the letter), `pass`, or `skip` (the first letter with case "
                     "decides; none passes).", choices=UNCASED),
    "unicode_form": UNICODE_FORM,
}, facts={"term": "the sentence (one reason per sentence)"}, summary="The first alphabetic character (of the surface or of each sentence) is upper-case.",
    example=KindExample({"per_sentence": True}, "Wisdom grounds. next, it rests.", False,
                        "`next, it rests` does not start with a capital letter",
                        analysis={"sentence_split": "[.!?]\\s+|[.!?]$"}),
)
