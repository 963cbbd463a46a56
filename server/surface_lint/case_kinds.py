"""Predicate kinds that read the case (rule language v2): terms, bounds, lists, order, conditions.

General, not shaped around any lane: each takes its values from a case field (a dotted path
such as `constraints.must_contain`) or from a constant in the rule, and states its matching:

* terms and words are compared after `str.casefold()` unless `case_sensitive = true`;
* `match = "token"` finds a term only between non-alphanumeric characters (or the text's
  ends), so `art` is not found in `party`; `match = "substring"` finds it anywhere;
* a case without the field the rule names is not judged (no verdict, no finding).

Registered into predicates.KINDS on import (lanes.KIND_MODULES lists this module).
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from typing import Any

from .predicates import (
    MISSING,
    NOT_JUDGED,
    PASS,
    Context,
    Evaluator,
    Kind,
    KindExample,
    Span,
    Verdict,
    _whole,
    case_value,
    failed,
    register_kind,
    ticked,
)
from .rule_schema import REQUIRED, Value

_FIELD_DOC = "A case field (dotted path) holding a string or a list of strings."


def _strings(value: Any) -> list[str] | None:
    """A case value as a list of strings (a string is a list of one); None if it is neither."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return list(value)
    return None


def _source(ctx: Context, params: Mapping[str, Any], field_key: str, constant_key: str) -> list[str] | None:
    """The rule's values: from the case field when the rule names one, else the constant."""
    path = params.get(field_key)
    if path:
        return _strings(case_value(ctx.subject.case, str(path)))
    return list(params.get(constant_key) or [])


def _fold(text: str, case_sensitive: bool) -> str:
    return text if case_sensitive else text.casefold()


def _find(text: str, term: str, token: bool) -> int:
    """The first offset of `term` in `text` (at token boundaries when `token`), else -1."""
    start = text.find(term)
    while start != -1:
        end = start + len(term)
        if not token or ((start == 0 or not text[start - 1].isalnum()) and (end == len(text) or not text[end].isalnum())):
            return start
        start = text.find(term, start + 1)
    return -1


def _one_of_fields(*pairs: tuple[str, str]) -> Any:
    def check(params: Mapping[str, Any]) -> str | None:
        for field_key, constant_key in pairs:
            if bool(params.get(field_key)) == bool(params.get(constant_key)):
                return f"give exactly one of `{field_key}` and `{constant_key}`"
        return None

    return check


# --- terms: present / absent, any / all / count / fraction -----------------------------------


def _terms(params: Mapping[str, Any]) -> Evaluator:
    present = params["mode"] == "present"
    quantifier = str(params["quantifier"])
    minimum = float(params["minimum"])
    token = params["match"] == "token"
    case_sensitive = bool(params["case_sensitive"])
    template = params.get("_rule_message")

    def evaluate(ctx: Context) -> Verdict | None:
        terms = _source(ctx, params, "field", "terms")
        if terms is None:
            return NOT_JUDGED
        terms = [t for t in dict.fromkeys(terms) if t]
        if not terms:
            return PASS  # nothing listed: nothing to find or avoid
        surface = ctx.subject.surface
        text = _fold(surface, case_sensitive)
        same_length = len(text) == len(surface)  # spans only where folding keeps offsets
        found: list[tuple[str, int]] = []
        missing: list[str] = []
        for term in terms:
            at = _find(text, _fold(term, case_sensitive), token)
            if at == -1:
                missing.append(term)
            else:
                found.append((term, at))
        count, total = len(found), len(terms)
        fraction = count / total
        holds = {"any": count >= 1, "all": count == total, "count": count >= minimum,
                 "fraction": fraction >= minimum - 1e-12}[quantifier]
        if holds == present:
            return PASS
        facts = {"found": ticked([t for t, _ in found]) or "none", "missing": ticked(missing) or "none",
                 "count": str(count), "total": str(total), "fraction": f"{fraction:.2f}",
                 "bound": _number(minimum), "field": str(params.get("field") or ""),
                 "match": found[0][0] if found else ""}
        if present:
            default = {"any": "none of {total} terms in the surface ({missing})",
                       "all": "{count} of {total} terms in the surface; missing {missing}",
                       "count": "{count} of {total} terms in the surface; at least {bound} required",
                       "fraction": "{fraction} of the terms in the surface; at least {bound} required"}[quantifier]
            return failed(_whole(surface), template or default, facts)
        spans: tuple[Span, ...] = ()
        if same_length:
            spans = tuple(sorted((at, at + len(term)) for term, at in found))
        default = {"any": "`{match}` in the surface", "all": "all {total} terms in the surface",
                   "count": "{count} of {total} terms in the surface; fewer than {bound} allowed",
                   "fraction": "{fraction} of the terms in the surface; less than {bound} allowed"}[quantifier]
        per_span = tuple({"match": term} for term, _ in sorted(found, key=lambda f: f[1])) if same_length else None
        return failed(spans or _whole(surface), template or default, facts, per_span if spans else None)

    return evaluate


def _number(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else f"{value:g}"


register_kind("terms", Kind(
    _terms,
    {
        "field": Value("string", None, _FIELD_DOC, non_empty=True),
        "terms": Value("list[string]", [], "Constant terms (instead of `field`).", non_empty=True),
        "mode": Value("string", "present", "`present`: the quantifier must hold; `absent`: it must not.",
                      choices=("present", "absent")),
        "quantifier": Value("string", "any", "`any` term, `all` terms, at least `minimum` terms (`count`), or "
                            "at least a `minimum` share of them (`fraction`).",
                            choices=("any", "all", "count", "fraction")),
        "minimum": Value("number", 1, "The bound for `count` and `fraction`.", minimum=0),
        "match": Value("string", "token", "`token`: between non-alphanumeric characters; `substring`: anywhere.",
                       choices=("token", "substring")),
        "case_sensitive": Value("boolean", False, "Compare as written instead of casefolded."),
    },
    summary="Terms from a case field (or the rule) are present or absent in the surface.",
    facts={"found": "terms found, ticked", "missing": "terms not found, ticked", "count": "terms found",
           "total": "terms listed", "fraction": "count / total, two decimals", "bound": "`minimum`",
           "field": "`field`", "match": "a term found (per finding, for `absent`)"},
    case_params=("field",),
    check=_one_of_fields(("field", "terms")),
    example=KindExample({"field": "constraints.must_contain", "quantifier": "all"}, "Light reveals the truth.",
                        False, "1 of 2 terms in the surface; missing `order`",
                        case={"constraints": {"must_contain": ["truth", "order"]}}),
))


# --- numeric bounds on words, tokens, sentences, characters ----------------------------------


def _measure(ctx: Context, unit: str) -> int:
    surface = ctx.subject.surface
    if unit == "words":
        return len(surface.split())
    if unit == "tokens":
        return ctx.lane_analysis.tokens(surface)
    if unit == "sentences":
        return len(ctx.analysis.sentences)
    return len(surface.strip())


def _bound(ctx: Context, params: Mapping[str, Any], side: str) -> Any:  # a number, None (no bound) or MISSING
    path = params.get(f"{side}_field")
    if path:
        value = case_value(ctx.subject.case, str(path))
        if value is MISSING:
            return MISSING
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
            return MISSING
        return float(value)
    constant = params.get(side)
    return None if constant is None else float(constant)


def _count_between(params: Mapping[str, Any]) -> Evaluator:
    unit = str(params["unit"])
    template = params.get("_rule_message")

    def evaluate(ctx: Context) -> Verdict | None:
        low, high = _bound(ctx, params, "min"), _bound(ctx, params, "max")
        if low is MISSING or high is MISSING:
            return NOT_JUDGED
        count = _measure(ctx, unit)
        facts = {"count": str(count), "unit": unit, "field": str(params.get("min_field") or params.get("max_field") or "")}
        if low is not None and count < low:
            return failed(_whole(ctx.subject.surface), template or "{count} {unit}; at least {bound} required",
                          {**facts, "bound": _number(low)})
        if high is not None and count > high:
            return failed(_whole(ctx.subject.surface), template or "{count} {unit}; at most {bound} allowed",
                          {**facts, "bound": _number(high)})
        return PASS

    return evaluate


def _some_bound(params: Mapping[str, Any]) -> str | None:
    for side in ("min", "max"):
        if params.get(side) is not None and params.get(f"{side}_field"):
            return f"give at most one of `{side}` and `{side}_field`"
    if all(params.get(k) in (None, "") for k in ("min", "max", "min_field", "max_field")):
        return "give a bound: `min`, `max`, `min_field` or `max_field`"
    low, high = params.get("min"), params.get("max")
    if low is not None and high is not None and low > high:
        return f"`min` {low!r} is greater than `max` {high!r}: no surface could pass"
    return None


register_kind("count_between", Kind(
    _count_between,
    {
        "unit": Value("string", REQUIRED, "`words` (whitespace-separated), `tokens` (the lane's token_pattern), "
                      "`sentences` (tails stripped) or `characters` (surrounding whitespace stripped).",
                      choices=("words", "tokens", "sentences", "characters")),
        "min": Value("number", None, "The smallest count allowed.", minimum=0),
        "max": Value("number", None, "The largest count allowed.", minimum=0),
        "min_field": Value("string", None, "A case field (dotted path) holding `min`.", non_empty=True),
        "max_field": Value("string", None, "A case field (dotted path) holding `max`.", non_empty=True),
    },
    summary="The surface's count of words, tokens, sentences or characters is within bounds (constants or case fields).",
    facts={"count": "the count", "unit": "`unit`", "bound": "the bound broken", "field": "the bound's field"},
    case_params=("min_field", "max_field"),
    check=_some_bound,
    example=KindExample({"unit": "words", "max_field": "max_words"}, "Truth is what is real and lasting.", False,
                        "7 words; at most 5 allowed", case={"max_words": 5}),
))


# --- the surface equal to one of / none of a case list --------------------------------------

_SPACE_RUN = re.compile(r"\s+")


def normalise(text: str, how: str) -> str:
    """`exact`; `strip` surrounding whitespace; `space`: strip and collapse whitespace runs to one
    space; `fold`: `space`, then casefold."""
    if how == "exact":
        return text
    if how == "strip":
        return text.strip()
    collapsed = _SPACE_RUN.sub(" ", text.strip())
    return collapsed.casefold() if how == "fold" else collapsed


def _surface_equals(params: Mapping[str, Any]) -> Evaluator:
    one_of = params["mode"] == "one_of"
    how = str(params["normalise"])
    template = params.get("_rule_message")

    def evaluate(ctx: Context) -> Verdict | None:
        listed = _source(ctx, params, "field", "values")
        if listed is None:
            return NOT_JUDGED
        surface = normalise(ctx.subject.surface, how)
        hit = next((v for v in listed if normalise(v, how) == surface), None)
        facts = {"field": str(params.get("field") or ""), "total": str(len(listed)), "match": hit or ""}
        if one_of and hit is None:
            return failed(_whole(ctx.subject.surface), template or "the surface is none of the {total} accepted ({field})",
                          facts)
        if not one_of and hit is not None:
            return failed(_whole(ctx.subject.surface), template or "the surface is a rejected one ({field})", facts)
        return PASS

    return evaluate


register_kind("surface_equals", Kind(
    _surface_equals,
    {
        "field": Value("string", None, _FIELD_DOC, non_empty=True),
        "values": Value("list[string]", [], "Constant surfaces (instead of `field`)."),
        "mode": Value("string", "one_of", "`one_of`: the surface must equal a listed one; `none_of`: none.",
                      choices=("one_of", "none_of")),
        "normalise": Value("string", "space", "Before comparing: `exact`; `strip` surrounding whitespace; `space`: "
                           "strip and collapse whitespace runs; `fold`: `space` and casefold.",
                           choices=("exact", "strip", "space", "fold")),
    },
    summary="The surface equals one of (or none of) a list from the case, after the stated normalisation.",
    facts={"field": "`field`", "total": "how many are listed", "match": "the listed surface it equals"},
    case_params=("field",),
    check=_one_of_fields(("field", "values")),
    example=KindExample({"field": "reject_surfaces", "mode": "none_of"}, "I  don't know.", False,
                        "the surface is a rejected one (reject_surfaces)",
                        case={"reject_surfaces": ["I don't know."]}),
))


# --- an ordered subsequence of words ---------------------------------------------------------

_WORD = re.compile(r"[^\W_]+(?:['\u2019][^\W_]+)*")  # apostrophes: ASCII and U+2019


def _ordered_words(params: Mapping[str, Any]) -> Evaluator:
    case_sensitive = bool(params["case_sensitive"])
    template = params.get("_rule_message")

    def evaluate(ctx: Context) -> Verdict | None:
        words = _source(ctx, params, "field", "words")
        if words is None:
            return NOT_JUDGED
        wanted = [_fold(w, case_sensitive) for w in words if w]
        tokens = [_fold(m.group(), case_sensitive) for m in _WORD.finditer(ctx.subject.surface)]
        at = 0
        for index, word in enumerate(wanted):
            while at < len(tokens) and tokens[at] != word:
                at += 1
            if at == len(tokens):
                shown = words[index]
                return failed(_whole(ctx.subject.surface), template or "`{match}` is missing or out of order ({field})",
                              {"match": shown, "field": str(params.get("field") or ""), "index": str(index + 1)})
            at += 1
        return PASS

    return evaluate


register_kind("ordered_words", Kind(
    _ordered_words,
    {
        "field": Value("string", None, "A case field (dotted path) holding the words in order.", non_empty=True),
        "words": Value("list[string]", [], "Constant words (instead of `field`).", non_empty=True),
        "case_sensitive": Value("boolean", False, "Compare as written instead of casefolded."),
    },
    summary="The words occur in the surface in this order (other words may come between); words are runs of "
            "letters and digits, apostrophes inside.",
    facts={"match": "the first word missing in order", "index": "its position in the list", "field": "`field`"},
    case_params=("field",),
    check=_one_of_fields(("field", "words")),
    example=KindExample({"field": "word_order"}, "The cat chased the dog.", False,
                        "`cat` is missing or out of order (word_order)", case={"word_order": ["dog", "cat"]}),
))


# --- conditions on case and turn fields ------------------------------------------------------

CONDITION_OPS = ("==", "!=", "in", "not in", "<", "<=", ">", ">=", "exists", "missing")
TURN_FIELDS = {"turn.grounding_source": "grounding", "turn.primed": "primed", "turn.surface": "surface"}


def condition_problem(value: Any) -> str | None:
    """Why a `when` value is not a condition table or a list of them, or None."""
    items = value if isinstance(value, list) else [value]
    for item in items:
        if not isinstance(item, dict):
            return "must be a table { field, op, value } or a list of them"
        unknown = sorted(set(item) - {"field", "op", "value"})
        if unknown:
            return f"has an unknown key `{unknown[0]}` (a condition has field, op, value)"
        field = item.get("field")
        if not isinstance(field, str) or not field:
            return "needs a string `field` (a case path, or turn.grounding_source / turn.primed / turn.surface)"
        if field.startswith("turn.") and field not in TURN_FIELDS:
            return f"names `{field}`; the turn fields a condition can read are {', '.join(TURN_FIELDS)}"
        op = item.get("op", "==")
        if op not in CONDITION_OPS:
            return f"has op {op!r}; one of {', '.join(CONDITION_OPS)}"
        if op in ("exists", "missing"):
            if "value" in item:
                return f"op {op!r} takes no `value`"
            continue
        if "value" not in item:
            return f"op {op!r} needs a `value`"
        cond_value = item["value"]
        if isinstance(cond_value, float) and not math.isfinite(cond_value):
            return "has a `value` that is not a finite number"
        if op in ("in", "not in") and not isinstance(cond_value, list):
            return f"op {op!r} needs a list `value`"
        if op in ("<", "<=", ">", ">=") and (isinstance(cond_value, bool) or not isinstance(cond_value, (int, float))):
            return f"op {op!r} needs a number `value`"
    return None


def conditions(value: Any) -> tuple[Mapping[str, Any], ...]:
    return tuple(value) if isinstance(value, list) else (value,)


def condition_fields(value: Any) -> tuple[str, ...]:
    """The top-level case fields a `when` reads (they key the verdict memo)."""
    return tuple(c["field"].split(".")[0] for c in conditions(value) if not c["field"].startswith("turn."))


def holds(conds: Sequence[Mapping[str, Any]], ctx: Context) -> bool:
    """Whether every condition holds for this subject (a missing field fails all but `missing`)."""
    for cond in conds:
        field = str(cond["field"])
        if field in TURN_FIELDS:
            actual: Any = getattr(ctx.subject, TURN_FIELDS[field])
        else:
            actual = case_value(ctx.subject.case, field)
        op = cond.get("op", "==")
        if op == "exists":
            ok = actual is not MISSING
        elif op == "missing":
            ok = actual is MISSING
        elif actual is MISSING:
            ok = False
        else:
            want = cond["value"]
            if op == "==":
                ok = _same(actual, want)
            elif op == "!=":
                ok = not _same(actual, want)
            elif op == "in":
                ok = any(_same(actual, w) for w in want)
            elif op == "not in":
                ok = not any(_same(actual, w) for w in want)
            elif isinstance(actual, bool) or not isinstance(actual, (int, float)):
                ok = False
            else:
                ok = {"<": actual < want, "<=": actual <= want, ">": actual > want, ">=": actual >= want}[op]
        if not ok:
            return False
    return True


def _same(actual: Any, want: Any) -> bool:
    """JSON equality: 1 == 1.0, but true is not 1."""
    if isinstance(actual, bool) or isinstance(want, bool):
        return isinstance(actual, bool) and isinstance(want, bool) and actual == want
    return bool(actual == want)


def _condition(params: Mapping[str, Any]) -> Evaluator:
    conds = conditions(params["when"])

    def evaluate(ctx: Context) -> Verdict:
        return PASS if holds(conds, ctx) else Verdict(False, message="the condition does not hold")

    return evaluate


register_kind("condition", Kind(
    _condition,
    {"when": Value("conditions", REQUIRED, "A condition { field, op, value } or a list of them (all must hold). "
                   "op: " + ", ".join(CONDITION_OPS) + ".", check=condition_problem)},
    summary="A signal: the case's (or turn's) fields satisfy the conditions. Metrics use it in `over`.",
    message="the condition does not hold",
    example=KindExample({"when": {"field": "kind", "op": "==", "value": "refusal"}}, "No.", True,
                        case={"kind": "refusal"}),
))
