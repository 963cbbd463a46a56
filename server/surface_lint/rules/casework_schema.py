"""The schema of a lane file's `[casework]` table (case-driven lanes; see casework.py) and of the
one metric table and threshold check every lane uses (`[[metrics]]`, `[thresholds.*]`), in the
declarative terms of rules.schema: the one validator checks them with every other table."""

from __future__ import annotations

from ..model.operators import METRIC_KINDS, OPERATORS, metric_kinds
from .kinds.case import removed_when_text
from .schema import REQUIRED, ArrayOf, MapOf, Table, Value, toml_type_name

QUANTIFIERS = ("all", "any", "count", "each", "first")
CASEWORK_METRIC_KINDS = metric_kinds("casework")  # the [[casework.metrics]] kinds of operators.METRIC_KINDS
CASEWORK_THRESHOLD_OPS = THRESHOLD_OPS = tuple(OPERATORS)

_EXPR = Value("string", REQUIRED, "An expression (docs/lanes/README.md).", non_empty=True)
_OPT_EXPR = Value("string", None, "An expression (docs/lanes/README.md).", non_empty=True)
_TEXT = Value("string")


def _condition_problem(value: object) -> str | None:
    """A metric's `where` / `when` as text (the removed table form says what to write); what it
    may read depends on the lane, and the loader checks that."""
    if isinstance(value, (dict, list)):
        return removed_when_text(value)
    if not isinstance(value, str):
        return f"must be a string (an expression), not {toml_type_name(value)}"
    return None if value.strip() else "must not be empty"

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
    "check": Value("string", None, "A predicate of this lane: a false value's finding takes its code, severity, "
                   "name and `[severity]` key, with `message` as its text (needs `message`).", non_empty=True),
    "at": Value("string", None, "With `check`: the view whose first record the finding is on (default, or an "
                "empty view: the case's first record).", non_empty=True),
    "field": Value("string", None, "With `check`: the record's key the finding points at (the whole record when "
                   "the record lacks it; default: where the predicate's own finding would be).", non_empty=True),
    "without_case": Value("boolean", False, "With `check`: judged on captures whose case is not given too (no case "
                          "file, or an id the case files do not hold), on a case of its id alone (every other "
                          "`case.X` null); a false value is its finding."),
    "description": _TEXT,
})
# --- the one metric table and the one threshold check, of every lane ---------------------
# `[[metrics]]` of a classic lane and of a case-driven lane (and the old `[[casework.metrics]]`)
# are this one table; which keys a lane of each sort takes is the loader's (`_metric_problem`).
CHECK_TABLE = Table({
    "metric": Value("string", REQUIRED, "A metric of this lane (`NAME`, or `NAME.CATEGORY` of a `by` metric).",
                    non_empty=True),
    "op": Value("string", ">=", "How the metric compares to the value.", choices=THRESHOLD_OPS),
    "value": Value("number", REQUIRED, "The bound."),
    "tolerance": Value("number", 0.0, "For `~=`: the allowed distance.", minimum=0),
    "message": Value("string", "", "A violation's text: {metric}, {actual}, {bound}."),
})
THRESHOLD_CHECK_TABLE = CHECK_TABLE  # the old name of a `kind = "thresholds"` metric's check
THRESHOLD_SET_TABLE = Table({
    "description": _TEXT,
    "checks": ArrayOf(CHECK_TABLE),
    "skip_null": Value("boolean", False, "A null metric is skipped, not failed."),
})
METRIC_TABLE = Table({
    "name": Value("string", REQUIRED, "The metric's name, as the runner reports it.", non_empty=True),
    "kind": Value("string", "rate", "What it computes.", choices=tuple(METRIC_KINDS)),
    "value": Value("string", None, "The per-item expression (rate: a flag; sum, mean, min, max: a number; value: over "
                   "the metrics). A classic lane takes `case.PATH`.", non_empty=True),
    "where": Value("expression", None, "A condition selecting the items counted (`when` is the same key).",
                   check=_condition_problem),
    "when": Value("expression", None, "The same as `where`.", check=_condition_problem),
    "by": Value("string", None, "A per-item category: the metric is also (a case-driven lane: only) a table by "
                "category, `NAME.CATEGORY`.", non_empty=True),
    "per": Value("string", "case", "Items: `case`, or the turns of a view (case-driven lanes).", non_empty=True),
    "round": Value("integer", None, "Round the metric to this many digits where it is computed: thresholds and "
                   "`value` metrics see the rounded number.", minimum=0),
    "digits": Value("integer", None, "Rounding of the reported value only (case-driven lanes; default 4 for rate "
                    "and mean, none otherwise).", minimum=0),
    "empty": Value("number", None, "The value with no items (rate: 1.0, mean: 0.0); see `empty_null`."),
    "empty_null": Value("boolean", False, "With no items the value is null (case-driven lanes)."),
    "report": Value("boolean", True, "false: a helper metric, computed and seen by thresholds and `value` metrics, "
                    "in no output."),
    "fields": MapOf(Value("string", non_empty=True), "counts: name = condition."),
    "checks": ArrayOf(CHECK_TABLE, "thresholds: checks on earlier metrics."),
    "skip_null": Value("boolean", False, "thresholds: a null metric is skipped, not failed."),
    "section": Value("string", "metrics", "`metrics`, or the metric's own name: it is a report section of its own "
                     "(case-driven lanes).", non_empty=True),
    "passing": Value("list[string]", [], "Signals that must all hold (`!name` negates; classic lanes).",
                     non_empty=True),
    "over": Value("list[string]", [], "Signals selecting the cases counted (classic lanes).", non_empty=True),
    "aliases": Value("list[string]", [], "Other names the runner reports it under (a baseline or report naming one reads as this metric).", non_empty=True),
    "runner": Value("boolean", True, "false: documents that the runner's report lacks it (it is still reported)."),
    "better": Value("string", "higher", "Which way is an improvement.", choices=("higher", "lower")),
    "description": _TEXT,
})
# Keys only one sort of lane takes (the loader says which to write instead).
CASE_DRIVEN_METRIC_KEYS = ("per", "digits", "empty_null", "fields", "checks", "skip_null", "section")
CLASSIC_METRIC_KEYS = ("passing", "over")
EXAMPLE_TABLE = Table({
    "name": Value("string", REQUIRED, "What the example shows (`lane test` names it).", non_empty=True),
    "case": Value("table", REQUIRED, "The case, as a case file's line holds it."),
    "records": Value("list[table]", REQUIRED, "Its captured records, in order, as a capture file's lines hold them."),
    "expect": Value("table", REQUIRED, "Values of `[[casework.values]]` (`passed` among them) and what each must be."),
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
    "metrics": ArrayOf(METRIC_TABLE, "The old spelling of the lane's `[[metrics]]` (the same table; a lane uses "
                       "one of the two)."),
    "details": MapOf(Value("string", non_empty=True), "The per-case record: field = expression."),
    "details_if": MapOf(Value("string", non_empty=True), "A detail field is written only when its condition holds."),
    "from_report": MapOf(Value("string", non_empty=True), "A value a lane report's entry gives when it cannot be recomputed "
                         "there: value name = expression over `report` (the entry's fields)."),
    "not_judged": Value("list[string]", [], "What the runner reads that a transcript does not hold.", non_empty=True),
    "examples": ArrayOf(EXAMPLE_TABLE, "Cases with their records and the values they must give (`surface-lint lane test`)."),
})
