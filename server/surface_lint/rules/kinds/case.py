"""Predicate kinds that read the case (rule language v2): numeric bounds and conditions.

`count_between` takes its bounds from a case field (a dotted path such as
`constraints.max_words`) or a constant; a case without the field is not judged. `condition`
and `when` test case and turn field values. The term, order, list and grounding kinds that
read the case are kinds_extra's `terms_present`, `terms_in_order`, `surface_in_list` and
predicates' `grounding_in` (the v2 kinds `terms`, `ordered_words`, `surface_equals` and
`grounding_in_field` were folded into them: FOLDED_KINDS).

The kinds are listed in `KINDS` below; lanes.KINDS (the one registry) includes them.
"""

from __future__ import annotations

import ast
import json
import math
from collections.abc import Mapping
from typing import Any

from ..expressions import FUNCTIONS, EvalFailure, Expr, ExprError
from ..schema import REQUIRED, Value, toml_type_name
from .core import MISSING, NOT_JUDGED, PASS, UNICODE_FORM, Context, Evaluator, Kind, KindExample, Verdict, _whole, case_value, failed

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


COUNT_BETWEEN = Kind(
    _count_between,
    {
        "unit": Value("string", REQUIRED, "`words` (whitespace-separated), `tokens` (the lane's token_pattern), "
                      "`sentences` (tails stripped) or `characters` (surrounding whitespace stripped).",
                      choices=("words", "tokens", "sentences", "characters")),
        "min": Value("number", None, "The smallest count allowed.", minimum=0),
        "max": Value("number", None, "The largest count allowed.", minimum=0),
        "min_field": Value("string", None, "A case field (dotted path) holding `min`.", non_empty=True),
        "max_field": Value("string", None, "A case field (dotted path) holding `max`.", non_empty=True),
        "unicode_form": UNICODE_FORM,
    },
    summary="The surface's count of words, tokens, sentences or characters is within bounds (constants or case fields).",
    facts={"count": "the count", "unit": "`unit`", "bound": "the bound broken", "field": "the bound's field"},
    case_params=("min_field", "max_field"),
    check=_some_bound,
    example=KindExample({"unit": "words", "max_field": "max_words"}, "Truth is what is real and lasting.", False,
                        "7 words; at most 5 allowed", case={"max_words": 5}),
)


# --- conditions on case and turn fields ------------------------------------------------------

# A `when` (on a predicate or a metric, and a `condition` predicate's parameter) is an expression
# of the one language (caseexpr.py; docs/lanes/README.md) over this scope: `case` (the case's
# fields, null-safe: `case.constraints.max_words`) and `turn` (`turn.surface`,
# `turn.grounding_source`, `turn.primed`). The table form `{ field, op, value }` was removed:
# loading one is an error that gives the expression to write (`removed_when_text`).
WHEN_NAMES = ("case", "turn")
TURN_FIELDS = ("grounding_source", "primed", "surface")
REMOVED_CONDITION_OPS = ("==", "!=", "in", "not in", "<", "<=", ">", ">=", "exists", "missing")


def expression_literal(value: Any) -> str:
    """A TOML/JSON value as an expression literal (a string in single quotes when it can be:
    the expression sits in a double-quoted TOML string)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return f"'{value}'" if "'" not in value and "\\" not in value else json.dumps(value)
    if isinstance(value, list):
        return "[" + ", ".join(expression_literal(v) for v in value) + "]"
    return repr(value)


def toml_string(text: str) -> str:
    """`text` as a TOML string: basic when it needs no escape, else literal, else escaped."""
    if '"' not in text and "\\" not in text:
        return f'"{text}"'
    if "'" not in text and "\n" not in text:
        return f"'{text}'"
    return json.dumps(text)


def _removed_one(item: Mapping[str, Any]) -> str | None:
    field = item.get("field")
    op = item.get("op", "==")
    if not isinstance(field, str) or not field or op not in REMOVED_CONDITION_OPS:
        return None
    path = field if field.startswith("turn.") else "case." + field
    if op == "exists":
        return f"{path} != null"
    if op == "missing":
        return f"{path} == null"
    if "value" not in item:
        return None
    value = expression_literal(item["value"])
    if op in ("!=", "not in"):  # the table form failed a missing field on every op but `missing`
        return f"{path} != null and {path} {op} {value}"
    return f"{path} {op} {value}"


def removed_when_text(value: Any) -> str:
    """The load error for a `when` written in the removed table form: what to write instead."""
    items = value if isinstance(value, list) else [value]
    parts = [_removed_one(i) if isinstance(i, dict) else None for i in items]
    shown = "a table" if isinstance(value, dict) else "a list of tables"
    if parts and all(p is not None for p in parts):
        expression = " and ".join(str(p) for p in parts)
        return (f"is {shown} `{{ field, op, value }}`, the removed condition form; write the expression "
                f"`when = {toml_string(expression)}` (docs/rules.md, \"Conditions: `when`\")")
    return (f"is {shown}, the removed condition form `{{ field, op, value }}`; write an expression string such "
            "as `when = \"case.kind == 'refusal'\"` (docs/rules.md, \"Conditions: `when`\")")


def _case_reads(tree: ast.AST) -> tuple[tuple[str, ...], str | None]:
    """The top-level case fields an expression reads (the verdict memo's key), and a problem when
    it reads `case` whole (then the fields it depends on cannot be named)."""
    fields: list[str] = []
    named: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "case":
            fields.append(node.attr)
            named.add(id(node.value))
        elif (isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and node.value.id == "case"
              and isinstance(node.slice, ast.Constant) and isinstance(node.slice.value, str)):
            fields.append(node.slice.value)
            named.add(id(node.value))
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and node.id == "case" and id(node) not in named:
            return (), "reads `case` as a whole; name the fields it depends on (`case.FIELD`)"
    return tuple(dict.fromkeys(fields)), None


def when_problem(value: Any) -> str | None:
    """Why a `when` value is not a condition expression, or None (the text after "`when` ")."""
    if isinstance(value, (dict, list)):
        return removed_when_text(value)
    if not isinstance(value, str):
        return f"must be a string (an expression), not {toml_type_name(value)}"
    if not value.strip():
        return "must not be empty"
    try:
        expr = Expr(value)
    except ExprError as exc:
        return f"is not an expression: {exc}"
    except RecursionError:
        return "is not an expression: nested too deeply"
    bound = {n.id for n in ast.walk(expr.tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
    called = {n.func.id for n in ast.walk(expr.tree) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)}
    unknown = sorted(expr.names - set(WHEN_NAMES) - bound - (called & set(FUNCTIONS)) - {"true", "false", "null", "True", "False", "None"})
    if unknown:
        return (f"reads `{unknown[0]}`, which a condition cannot see (it reads `case.FIELD` and "
                f"`turn.` + one of {', '.join(TURN_FIELDS)})")
    for node in ast.walk(expr.tree):
        if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "turn"
                and node.attr not in TURN_FIELDS):
            return f"reads `turn.{node.attr}`; the turn fields a condition can read are " + ", ".join(
                "turn." + f for f in TURN_FIELDS)
    _, problem = _case_reads(expr.tree)
    return problem


class Condition:
    """A compiled `when`: `holds(ctx)` for one subject; `reads`, the top-level case fields it reads."""

    __slots__ = ("expr", "reads", "text")

    def __init__(self, text: str) -> None:
        self.text = text
        self.expr = Expr(text)
        self.reads, _ = _case_reads(self.expr.tree)

    def holds(self, ctx: Context) -> bool:
        subject = ctx.subject
        scope = {"case": subject.case or {},
                 "turn": {"grounding_source": subject.grounding, "primed": subject.primed, "surface": subject.surface}}
        try:
            return bool(self.expr.evaluate(scope))
        except (ArithmeticError, LookupError, TypeError, ValueError, RecursionError, MemoryError, ExprError, EvalFailure):
            return False  # an expression that fails on this case: the condition does not hold


def condition_fields(value: str) -> tuple[str, ...]:
    """The top-level case fields a `when` reads (they key the verdict memo)."""
    return Condition(value).reads


def _condition(params: Mapping[str, Any]) -> Evaluator:
    condition = Condition(str(params["when"]))

    def evaluate(ctx: Context) -> Verdict:
        return PASS if condition.holds(ctx) else Verdict(False, message="the condition does not hold")

    return evaluate


CONDITION = Kind(
    _condition,
    {"when": Value("expression", REQUIRED, "An expression over `case` and `turn` (docs/rules.md, \"Conditions: "
                   "`when`\"), e.g. `case.kind == 'refusal' and turn.grounding_source != 'none'`.",
                   check=when_problem)},
    summary="A signal: the expression holds for the case (and turn). Metrics use it in `over`.",
    message="the condition does not hold",
    example=KindExample({"when": "case.kind == 'refusal'"}, "No.", True, case={"kind": "refusal"}),
)


KINDS: dict[str, Kind] = {"count_between": COUNT_BETWEEN, "condition": CONDITION}
