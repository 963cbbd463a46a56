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

from collections.abc import Mapping, Sequence
from typing import Any

from .caseexpr import resolve_path
from .predicates import PASS, Context, Evaluator, Kind, KindExample, SafePattern, Span, Verdict, register_kind
from .rule_schema import REQUIRED, Value


class ReasonedVerdict(Verdict):
    """A failing verdict with one reason per failed term (the runner's failure list)."""

    __slots__ = ("reasons",)

    def __init__(self, spans: tuple[Span, ...], reasons: Sequence[str], target: str | None = None) -> None:
        super().__init__(False, spans, "; ".join(reasons), target)
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


def _whole(surface: str) -> tuple[Span, ...]:
    stripped = surface.strip()
    if not stripped:
        return ((0, 0),)
    start = surface.find(stripped)
    return ((start, start + len(stripped)),)


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


def _tokens(text: str, params: Mapping[str, Any]) -> list[tuple[str, int]]:
    """Tokens with their offsets: `token_pattern` matches, else whitespace runs; each token's
    `strip_chars` are taken off its ends (offsets follow the stripped token)."""
    pattern: SafePattern | None = params.get("token_pattern")
    chars = str(params.get("strip_chars", ""))
    out: list[tuple[str, int]] = []
    if pattern is not None:
        raw = [(m.group(), m.start()) for m in pattern.finditer(text)]
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
    return text.lower() if params.get("lowercase", True) else text


def _find_term(surface: str, folded: str, term: str, params: Mapping[str, Any]) -> Span | None:
    """Where `term` occurs: as a substring, or as a whole token (`match = "token"`)."""
    needle = _fold(term, params)
    if not needle:
        return None
    if params.get("match", "substring") == "token":
        # Tokenised after folding (a lower-case token pattern must see `Truth` as `truth`).
        for token, at in _tokens(folded, params):
            if token == needle:
                return (at, at + len(token))
        return None
    at = folded.find(needle)
    return (at, at + len(needle)) if at >= 0 else None


def share_present(terms: Sequence[str] | None, surface: str, params: Mapping[str, Any] | None = None) -> float:
    """Fraction of `terms` found in `surface` (1.0 for no terms): the value `fraction` judges."""
    p = params or {}
    items = list(terms or [])
    if not items:
        return 1.0
    folded = _fold(surface, p)
    return sum(1 for t in items if _find_term(surface, folded, str(t), p) is not None) / len(items)


def _terms_present(params: Mapping[str, Any]) -> Evaluator:
    mode = str(params.get("mode", "all"))
    empty_passes = bool(params.get("empty_passes", True))
    missing_passes = bool(params.get("missing_passes", True))
    minimum = float(params.get("min_fraction", 1.0))
    defaults = {
        "all": "`{term}` is not in the surface",
        "any": "none of {terms} is in the surface",
        "none": "`{term}` is in the surface",
        "fraction": "{count} of the terms ({terms}) are in the surface; at least {bound} required",
    }
    template = str(params.get("_rule_message") or defaults.get(mode, ""))
    where = str(params.get("field", "terms"))

    def evaluate(ctx: Context) -> Verdict:
        surface = _judged(ctx, params)
        if ctx.subject.case is None and "terms" not in params:  # no case joined: nothing to judge
            return PASS
        terms = _terms(ctx, params)
        if terms is None:
            return PASS if missing_passes else Verdict(False, _whole(surface), f"the case has no `{where}`")
        if not terms:
            return PASS if empty_passes else Verdict(False, _whole(surface), f"`{where}` is empty")
        folded = _fold(surface, params)
        found = [(t, _find_term(surface, folded, t, params)) for t in terms]
        values: dict[str, Any] = {"terms": terms, "field": where}
        if mode == "any":
            if any(span is not None for _, span in found):
                return PASS
            return Verdict(False, _whole(surface), render(template, values))
        if mode == "none":
            hits = [(t, span) for t, span in found if span is not None]
            if not hits:
                return PASS
            spans = tuple(sorted(span for _, span in hits if span is not None))
            return ReasonedVerdict(spans, [render(template, {**values, "term": t}) for t, _ in hits])
        if mode == "fraction":
            share = sum(1 for _, span in found if span is not None) / len(terms)
            if share >= minimum:
                return PASS
            return Verdict(False, _whole(surface), render(template, {**values, "count": round(share, 4), "bound": minimum}))
        missing = [t for t, span in found if span is None]
        if not missing:
            return PASS
        return ReasonedVerdict(_whole(surface), [render(template, {**values, "term": t}) for t in missing])

    return evaluate


def _terms_in_order(params: Mapping[str, Any]) -> Evaluator:
    template = str(params.get("_rule_message") or "the words {terms} do not appear in this order")
    where = str(params.get("field", "terms"))

    def evaluate(ctx: Context) -> Verdict:
        surface = _judged(ctx, params)
        terms = _terms(ctx, params)
        if not terms:
            return PASS
        tokens = [_fold(t, params) for t, _ in _tokens(surface, params)]
        it = iter(tokens)
        if all(any(_fold(term, params) == tok for tok in it) for term in terms):
            return PASS
        return Verdict(False, _whole(surface), render(template, {"terms": terms, "field": where}))

    return evaluate


def sentences(text: str, split: SafePattern | None) -> list[str]:
    """Non-blank parts of `text` split on `split` (the rule's, else the lane's [analysis]
    sentence_split), stripped; without a split, the stripped text is one sentence."""
    if split is None:
        return [text.strip()] if text.strip() else []
    return [p.strip() for p in split.split(text) if p and p.strip()]


def first_alpha_is_upper(text: str) -> bool:
    """The first alphabetic character is upper-case (true when there is none)."""
    for ch in text:
        if ch.isalpha():
            return ch.isupper()
    return True


def _normalise(text: str, how: str) -> str:
    if how == "lower_strip":
        return text.lower().strip()
    if how == "strip":
        return text.strip()
    return text


def _surface_in_list(params: Mapping[str, Any]) -> Evaluator:
    mode = str(params.get("mode", "accept"))
    how = str(params.get("normalise", "lower_strip"))
    where = str(params.get("field", "terms"))
    default = "the surface is none of `" + where + "`" if mode == "accept" else "the surface is listed in `" + where + "`"
    template = str(params.get("_rule_message") or default)

    def evaluate(ctx: Context) -> Verdict:
        surface = _judged(ctx, params)
        if ctx.subject.case is None and "terms" not in params:  # no case joined: nothing to judge
            return PASS
        listed = {_normalise(t, how) for t in (_terms(ctx, params) or [])}  # a missing list is empty
        inside = _normalise(surface, how) in listed
        if inside == (mode == "accept"):
            return PASS
        return Verdict(False, _whole(surface), render(template, {"field": where, "terms": sorted(listed)}))

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
            for i, ch in enumerate(text):
                if ch.isalpha():
                    if not ch.isupper():
                        reasons.append(render(template, {"term": text.strip()}))
                        spans.append((at + i, at + i + 1))
                    break
        if not reasons:
            return PASS
        return ReasonedVerdict(tuple(spans), reasons)

    return evaluate


def _grounding_in_field(params: Mapping[str, Any]) -> Evaluator:
    where = str(params["field"])
    empty_passes = bool(params.get("empty_passes", True))
    template = str(params.get("_rule_message") or "grounding_source `{term}` is not one of {terms} (`" + where + "`)")

    def evaluate(ctx: Context) -> Verdict:
        allowed = _terms(ctx, params)
        if not allowed:
            return PASS if empty_passes else Verdict(False, (), f"the case lists no `{where}`")
        grounding = ctx.subject.grounding
        if grounding in allowed:
            return PASS
        return Verdict(
            False, _whole(ctx.subject.surface), render(template, {"term": grounding, "terms": allowed}),
            target="grounding_source",
        )

    return evaluate


_TERMS = "list[string]"
_RSTRIP = Value("string", None, "Characters stripped from the surface's end before judging (`.`).", non_empty=True)


def _term_params(extra: Mapping[str, Value]) -> dict[str, Value]:
    """The parameters every term-reading kind shares, plus its own."""
    return {
        "terms": Value(_TERMS, None, "Constant terms (give `terms` or `field`)."),
        "field": Value("string", None, "A case path holding the terms: `constraints.must_contain`, `entry.x`.",
                       non_empty=True),
        "lowercase": Value("boolean", True, "Compare case-folded (str.lower)."),
        "match": Value("string", "substring", "`substring`, or `token`: equal to a whole token.",
                       choices=("substring", "token")),
        "token_pattern": Value("regex", None, "What one token is (default: whitespace-separated)."),
        "strip_chars": Value("string", "", "Characters stripped from each token's ends."),
        "rstrip": _RSTRIP,
        **extra,
    }


register_kind("terms_present", Kind(_terms_present, _term_params({
    "mode": Value("string", "all", "all, any, none (absent) or fraction (at least `min_fraction`).",
                  choices=("all", "any", "none", "fraction")),
    "min_fraction": Value("number", 1.0, "mode fraction: the share of terms that must be present.", minimum=0),
    "empty_passes": Value("boolean", True, "An empty term list passes."),
    "missing_passes": Value("boolean", True, "A case without the field passes."),
}), facts={"term": "the term a reason is about (one reason per term)", "terms": "the terms, comma-separated",
           "count": "mode fraction: the share found", "bound": "`min_fraction`", "field": "`field`"},
    summary="Terms (constant or from the case) are present / absent in the surface; one reason per failed term.",
    example=KindExample({"field": "constraints.must_contain"}, "The river flows.", False,
                        "`valley` is not in the surface", case={"constraints": {"must_contain": ["river", "valley"]}}),
))
register_kind("terms_in_order", Kind(_terms_in_order, {k: v for k, v in _term_params({}).items() if k != "match"},
    facts={"terms": "the words, comma-separated (`{terms:py}`: as a Python list)", "field": "`field`"},
    summary="The terms appear in order among the surface's tokens (a subsequence).",
    example=KindExample({"field": "word_order", "strip_chars": ".,"}, "Valley, river flows.", False,
                        "the words river, valley do not appear in this order", case={"word_order": ["river", "valley"]}),
))
register_kind("surface_in_list", Kind(_surface_in_list, {
    "terms": Value(_TERMS, None, "Constant surfaces (give `terms` or `field`)."),
    "field": Value("string", None, "A case path holding the surfaces.", non_empty=True),
    "rstrip": _RSTRIP,
    "mode": Value("string", "accept", "accept: must be one of them; reject: must be none.", choices=("accept", "reject")),
    "normalise": Value("string", "lower_strip", "How both sides are compared.", choices=("lower_strip", "strip", "exact")),
}, facts={"field": "`field`", "terms": "the listed surfaces, normalised"},
    summary="The surface is one of (or none of) a list of surfaces (`lower_strip`: the runners' .lower().strip()).",
    example=KindExample({"field": "accept_surfaces"}, "Valley flows river", False,
                        "the surface is none of `accept_surfaces`", case={"accept_surfaces": ["river flows valley"]}),
))
register_kind("pattern_present", Kind(_pattern_present, {
    "rstrip": _RSTRIP,
    "pattern": Value("regex", REQUIRED, "The pattern that must match somewhere."),
    "lowercase": Value("boolean", False, "Search the case-folded surface."),
}, facts={"pattern": "`pattern`"}, summary="The pattern matches somewhere in the surface.",
    example=KindExample({"pattern": "(?i)\\bis\\b"}, "Truth, order.", False,
                        "the surface does not match `(?i)\\bis\\b`"),
))
register_kind("first_letter_upper", Kind(_first_letter_upper, {
    "rstrip": _RSTRIP,
    "sentence_split": Value("regex", None, "Judge each sentence of this split."),
    "per_sentence": Value("boolean", False, "Judge each sentence of the lane's [analysis] sentence_split."),
}, facts={"term": "the sentence (one reason per sentence)"}, summary="The first alphabetic character (of the surface or of each sentence) is upper-case.",
    example=KindExample({"per_sentence": True}, "Wisdom grounds. next, it rests.", False,
                        "`next, it rests` does not start with a capital letter",
                        analysis={"sentence_split": "[.!?]\\s+|[.!?]$"}),
))
register_kind("grounding_in_field", Kind(_grounding_in_field, {
    "field": Value("string", REQUIRED, "A case path listing the allowed grounding sources.", non_empty=True),
    "empty_passes": Value("boolean", True, "An empty or missing list passes."),
}, facts={"term": "the turn's grounding", "terms": "the allowed sources"}, summary="The turn's grounding_source is one of a per-case list.",
    example=KindExample({"field": "expected_grounding_source"}, "I know.", False,
                        "grounding_source `pack` is not one of oov, none (`expected_grounding_source`)",
                        case={"expected_grounding_source": ["oov", "none"]}, grounding="pack"),
))

