"""Predicate kinds that read the case (rule language v2): numeric bounds and conditions.

`count_between` takes its bounds from a case field (a dotted path such as
`constraints.max_words`) or a constant; a case without the field is not judged. `condition`
and `when` test case and turn field values. The term, order, list and grounding kinds that
read the case are kinds_extra's `terms_present`, `terms_in_order`, `surface_in_list` and
predicates' `grounding_in` (the v2 kinds `terms`, `ordered_words`, `surface_equals` and
`grounding_in_field` were folded into them: FOLDED_KINDS).

Registered into predicates.KINDS on import (lanes.KIND_MODULES lists this module).
"""

from __future__ import annotations

import math
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
    Verdict,
    _whole,
    case_value,
    failed,
    register_kind,
)
from .rule_schema import REQUIRED, Value

# Kinds folded into another (issue 9's two parallel sets): loading a rule that names one is an
# error saying what to write instead (docs/rules.md, "Folded kinds").
FOLDED_KINDS: dict[str, tuple[str, str]] = {
    "terms": ("terms_present", "`mode` and `quantifier` as before (the default quantifier is now `all`); "
              "`match = \"token\"` is `match = \"word\"`; casefolding is `fold = \"casefold\"` "
              "(`case_sensitive = true` is `fold = \"none\"`); a case without `field`: `missing = \"not_judged\"`"),
    "ordered_words": ("terms_in_order", "`words` is `terms`; its word tokens are `tokens = \"words\"`; casefolding is "
                      "`fold = \"casefold\"`; a case without `field`: `missing = \"not_judged\"`"),
    "surface_equals": ("surface_in_list", "`values` is `terms`; `mode = \"one_of\"` / `\"none_of\"` is "
                       "`\"accept\"` / `\"reject\"`; the old default normalisation is `normalise = \"space\"`; "
                       "a case without `field`: `missing = \"not_judged\"`"),
    "grounding_in_field": ("grounding_in", "`field` is `sources_field`; add `missing = \"pass\"` and "
                           "`empty_passes = true` for its old behaviour"),
}


# Parameters the fold renamed or re-valued: (kind, parameter) -> what to write now (appended to
# the load error of an unknown parameter or a refused value).
FOLDED_PARAMS: dict[tuple[str, str], str] = {
    ("terms_present", "mode"): "`mode` is now `present` or `absent`; `all`, `any` and `fraction` are `quantifier` "
                               "values, and `none` is mode = \"absent\" with quantifier = \"any\"",
    ("terms_present", "min_fraction"): "`min_fraction` is now `minimum` (with quantifier = \"fraction\")",
    ("terms_present", "missing_passes"): "`missing_passes` is now `missing` = \"pass\" or \"fail\"",
    ("terms_present", "lowercase"): "`lowercase` is now `fold` = \"lower\" (true) or \"none\" (false)",
    ("terms_in_order", "lowercase"): "`lowercase` is now `fold` = \"lower\" (true) or \"none\" (false)",
}


def _number(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else f"{value:g}"


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
