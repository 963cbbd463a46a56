"""The schema of a lane file's `[casework]` table (case-driven lanes; see casework.py), in the
declarative terms of rule_schema: the one validator checks it with every other table."""

from __future__ import annotations

from ..model.operators import OPERATORS, metric_kinds
from .schema import REQUIRED, ArrayOf, MapOf, Table, Value

QUANTIFIERS = ("all", "any", "count", "each", "first")
CASEWORK_METRIC_KINDS = metric_kinds("casework")  # the [[casework.metrics]] kinds of operators.METRIC_KINDS
CASEWORK_THRESHOLD_OPS = tuple(OPERATORS)

_EXPR = Value("string", REQUIRED, "An expression (docs/lanes/README.md).", non_empty=True)
_OPT_EXPR = Value("string", None, "An expression (docs/lanes/README.md).", non_empty=True)
_TEXT = Value("string")

VIEW_TABLE = Table({
    "where": Value("string", None, "Which records of the run are this view's turns (default: all).", non_empty=True),
    "surface": Value("string", None, "Each turn's judged text (default: `record.surface`).", non_empty=True),
    "grounding": Value("string", None, "Each turn's grounding (default: `record.grounding_source`, null -> `none`).",
                       non_empty=True),
})
TURN_VALUE_TABLE = Table({
    "name": Value("string", REQUIRED, "The value's name: `t.NAME` in later expressions.", non_empty=True),
    "view": Value("string", REQUIRED, "The view whose every turn gets the value.", non_empty=True),
    "expr": _OPT_EXPR,
    "predicate": Value("string", None, "A predicate of this lane, judged on the turn.", non_empty=True),
    "when": Value("string", None, "A condition; when false the value is `otherwise`.", non_empty=True),
    "otherwise": Value("string", None, "The value when `when` is false (default null).", non_empty=True),
    "description": _TEXT,
})
VALUE_TABLE = Table({
    "name": Value("string", REQUIRED, "The value's name in later expressions; `passed` is the case's verdict (none: no case fails).", non_empty=True),
    "expr": _OPT_EXPR,
    "predicate": Value("string", None, "A predicate of this lane, judged on every turn of `view`.", non_empty=True),
    "view": Value("string", None, "The view a `predicate` is judged on.", non_empty=True),
    "quantifier": Value("string", "all", "How a predicate's verdicts on the view's turns combine.", choices=QUANTIFIERS),
    "when": Value("string", None, "A condition; when false the value is `otherwise` and nothing fails.",
                  non_empty=True),
    "otherwise": Value("string", None, "The value when `when` is false (default null).", non_empty=True),
    "failures": Value("boolean", False, "Add the failing verdicts' reasons (or the expression's list) to `failures`."),
    "message": Value("string", None, "When the value is false, this text goes to `failures`; `{path}` placeholders "
                     "are read from the scope (`{sentence_count}`, `{case.min_sentences}`).", non_empty=True),
    "description": _TEXT,
})
THRESHOLD_CHECK_TABLE = Table({
    "metric": Value("string", REQUIRED, "An earlier metric of [casework].", non_empty=True),
    "op": Value("string", ">=", "How the unrounded metric compares to the value.", choices=CASEWORK_THRESHOLD_OPS),
    "value": Value("number", REQUIRED, "The bound."),
    "message": Value("string", "", "A violation's text: {metric}, {actual}, {bound}."),
})
METRIC_TABLE = Table({
    "name": Value("string", REQUIRED, "The metric's name, as the runner reports it.", non_empty=True),
    "kind": Value("string", "rate", "What it computes.", choices=CASEWORK_METRIC_KINDS),
    "value": Value("string", None, "The per-item expression (rate: a flag; sum, mean: a number; value: over metrics).",
                   non_empty=True),
    "where": Value("string", None, "A condition selecting the items counted.", non_empty=True),
    "by": Value("string", None, "A per-item category: the metric becomes a table by category.", non_empty=True),
    "per": Value("string", "case", "Items: `case`, or the turns of a view.", non_empty=True),
    "digits": Value("integer", None, "Rounding (default 4 for rate and mean, none otherwise).", minimum=0),
    "empty": Value("number", None, "The value with no items (rate: 1.0, mean: 0.0); see `empty_null`."),
    "empty_null": Value("boolean", False, "With no items the value is null."),
    "fields": MapOf(Value("string", non_empty=True), "counts: name = condition."),
    "checks": ArrayOf(THRESHOLD_CHECK_TABLE, "thresholds: checks on earlier metrics."),
    "skip_null": Value("boolean", False, "thresholds: a null metric is skipped, not failed."),
    "section": Value("string", "metrics", "The report section it belongs to; its own name: it is the section.",
                     non_empty=True),
    "description": _TEXT,
})
CASEWORK_TABLE = Table({
    "case_field": Value("string", "case_id", "The record field naming its case.", non_empty=True),
    "turn_list": Value("string", None, "A case field (path) listing per-turn expectations.", non_empty=True),
    "turn_key": Value("string", "turn_index", "The record field indexing `turn_list`.", non_empty=True),
    "runs": MapOf(Value("string", non_empty=True), "Passes over a case: name = record filter (default: one run)."),
    "views": MapOf(VIEW_TABLE, "Named selections of a run's records."),
    "turn_values": ArrayOf(TURN_VALUE_TABLE, "Values of every turn of a view."),
    "values": ArrayOf(VALUE_TABLE, "Per-case values, in order."),
    "metrics": ArrayOf(METRIC_TABLE, "Metrics over cases or turns."),
    "details": MapOf(Value("string", non_empty=True), "The per-case record: field = expression."),
    "details_if": MapOf(Value("string", non_empty=True), "A detail field is written only when its condition holds."),
    "not_judged": Value("list[string]", [], "What the runner reads that a transcript does not hold.", non_empty=True),
})
