"""rules/*.toml -> Lane objects; validation of rules with file:line messages."""

from __future__ import annotations

import ast
import dataclasses
import difflib
import functools
import json
import math
import re
import string
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

from ..model.checks import CHECK_CODES as C
from ..model.checks import CHECKS
from ..model.operators import OPERATORS, compare, describe, metric_kinds
from ..model.positions import UNICODE_FORMS
from .casework_schema import (
    CASE_DRIVEN_METRIC_KEYS,
    CASEWORK_TABLE,
    CLASSIC_METRIC_KEYS,
    METRIC_TABLE,
    THRESHOLD_SET_TABLE,
)
from .expressions import _NAME_DEFAULTS as LITERAL_NAMES
from .expressions import EvalFailure, Expr, ExprError, resolve_path
from .extends import LanePositions, MergeProblem, merge
from .kinds.case import FOLDED_KINDS, FOLDED_PARAMS, Condition, condition_fields, expression_literal, toml_string, when_problem
from .kinds.core import NOT_JUDGED, Context, Evaluator, Kind, LaneAnalysis, RegexTimeout, SafePattern, Verdict, normalising
from .kinds.registry import KINDS
from .patterns import PatternError
from .profiles import DEFAULT_PROFILE as DEFAULT_PROFILE
from .profiles import PROFILES as PROFILES
from .schema import REQUIRED, ArrayOf, MapOf, Problem, Table, TomlPositions, Value, fill_defaults, toml_type_name, validate
from .schema import KeyPath as SchemaPath
from .toml_reader import TomlError, parse_toml, read_toml_bytes

EXPECTED = "@expected"  # metric signal: every expected predicate of the case passes


class LaneError(Exception):
    """A rules file that cannot be used: names the file and the line."""

    def __init__(self, path: str, line: int, message: str, column: int = 1) -> None:
        super().__init__(f"{path}:{line}:{column}: {message}")
        self.path = path
        self.line = line
        self.column = column
        self.message = message


@dataclass(frozen=True, slots=True)
class PredicateSpec:
    name: str
    code: str
    kind: str
    evaluate: Evaluator
    default_severity: str
    report: bool
    aliases: tuple[str, ...]
    applies_if: str | None
    summary: str
    what: str
    why: str
    example_fail: str
    example_pass: str
    params: Mapping[str, Any]
    line: int  # where it is defined in its rules file
    code_at: tuple[int, int] = (0, 0)  # (line, column) of its `code` (cross-lane collisions point there)
    case_field: str | None = None  # the top-level case field its verdict needs (not judged without it)
    judged_without_field: bool = False  # judged anyway when the case lacks `case_field`
    reads: tuple[str, ...] = ()  # every top-level case field the verdict depends on (the memo's key)
    message: str | None = None  # the rule's own message template
    hidden: bool = False  # made by the loader (a metric's `when`), not written as [[predicates]]

    @property
    def doc_anchor(self) -> str:
        return f"{self.code.lower()}-{self.name.replace('_', '-').replace('>=', 'ge')}"


@dataclass(frozen=True, slots=True)
class ThresholdCheck:
    """One check of a threshold set: `metric op value` (operators.compare). `metric` names a
    metric, or one category of a `by` metric (`NAME.CATEGORY`); naming a case-driven lane's
    whole `by` table checks every category of it."""

    metric: str
    op: str  # one of operators.OPERATORS
    value: float
    tolerance: float = 0.0
    message: str = ""  # a violation's text ({metric}, {actual}, {bound}); "" says none

    def passes(self, actual: float | None) -> bool:
        return actual is not None and compare(actual, self.op, self.value, self.tolerance)

    def describe(self) -> str:
        return describe(self.op, self.value, self.tolerance)


ThresholdSpec = ThresholdCheck  # the old name of a case-driven lane's check


@dataclass(frozen=True, slots=True)
class ThresholdSet:
    """A named set of checks: a `[thresholds.NAME]` table, or a `kind = "thresholds"` metric
    (its name, its checks; `metric` says so). `--thresholds NAME` picks one; the lane's
    `default_thresholds` (for a case-driven lane, its first `thresholds` metric by default) is
    the one checked."""

    name: str
    description: str
    checks: tuple[ThresholdCheck, ...]
    skip_null: bool = False  # a null metric is skipped, not failed
    metric: bool = False  # defined by a `kind = "thresholds"` metric of this name


@dataclass(frozen=True, slots=True)
class MetricSpec:
    """One metric of any lane: a `[[metrics]]` entry (the old `[[casework.metrics]]` too).

    Every lane's metrics come from one fold (engine.fold). A classic lane's `passing` and `over`
    name signals (compiled there to `where`/`value` expressions over its tally's entries), its
    `value` and `by` are `case.PATH`; a case-driven lane's `value`, `where`, `by` and `fields`
    are expressions over the case's scope. The keys of either sort are one table; operators.METRIC_KINDS says which kinds each
    sort computes."""

    name: str
    kind: str  # one of operators.METRIC_KINDS
    passing: tuple[str, ...] = ()
    over: tuple[str, ...] = ()
    empty: Any = 1.0
    aliases: tuple[str, ...] = ()
    runner: bool = True
    description: str = ""
    better: str = "higher"  # which way is an improvement: higher | lower (diff, baseline)
    value: Expr | None = None  # the per-item value (a classic lane: `case.PATH`)
    by: Expr | None = None  # a per-item category: the metric per category, `name.category`
    where: Expr | None = None  # case-driven: which items count (classic: a hidden signal in `over`)
    per: str = "case"  # case-driven: `case`, or a view whose turns are the items
    digits: int | None = None  # rounding of the reported value only
    rounding: int | None = None  # `round = N`: the metric itself is rounded (thresholds see it)
    fields: Mapping[str, Expr] = field(default_factory=dict)  # kind counts: name = condition
    checks: tuple[ThresholdCheck, ...] = ()  # kind thresholds
    skip_null: bool = False  # kind thresholds: a null metric is skipped
    section: str = "metrics"  # case-driven: `metrics`, or its own name (a section of its own)
    report: bool = True  # false: a helper, seen by thresholds and `value` metrics, in no output

    @property
    def value_path(self) -> str | None:
        """A classic metric's `case.PATH` value (its tally slot)."""
        return self.value.text if self.value is not None else None

    @property
    def by_path(self) -> str | None:
        return self.by.text if self.by is not None else None


CaseMetric = MetricSpec  # the old name of a case-driven lane's metric


@dataclass(frozen=True, slots=True)
class FieldSpec:
    name: str
    type: str
    required: bool
    predicate_list: bool
    fields: Mapping[str, FieldSpec] = field(default_factory=dict)  # inside an object / list[object]
    description: str = ""
    count: bool = False  # an integer that counts: a negative value is SL003 and reads as absent


NestedProblem = tuple[tuple[str | int, ...], "FieldSpec", bool, Any]


def nested_problems(value: Any, spec: FieldSpec, path: tuple[str | int, ...] = ()) -> list[NestedProblem]:
    """Inside a well-typed object / list[object] value: (path, the field's spec, missing, the value)
    for every declared field missing while required (missing=True) or of the wrong JSON type."""
    out: list[NestedProblem] = []
    if not spec.fields:
        return out
    objects = [(path, value)] if isinstance(value, dict) else [
        ((*path, i), item) for i, item in enumerate(value) if isinstance(item, dict)] if isinstance(value, list) else []
    for where, obj in objects:
        for name, child in spec.fields.items():
            if name not in obj:
                if child.required:
                    out.append(((*where, name), child, True, None))
                continue
            if not json_type_ok(obj[name], child.type):
                out.append(((*where, name), child, False, obj[name]))
                continue
            out.extend(nested_problems(obj[name], child, (*where, name)))
    return out


def json_type_ok(value: Any, type_name: str) -> bool:
    """Whether a JSON value has a [case_schema] type (numbers finite; a bool is not a number)."""
    if type_name == "string":
        return isinstance(value, str)
    if type_name == "integer":
        return isinstance(value, int) and not isinstance(value, bool)
    if type_name == "number":
        return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
    if type_name == "boolean":
        return isinstance(value, bool)
    if type_name == "object":
        return isinstance(value, dict)
    if type_name.startswith("list["):
        return isinstance(value, list) and all(json_type_ok(v, type_name[5:-1]) for v in value)
    return True


@dataclass(frozen=True, slots=True)
class CaseSchema:
    id_field: str
    fields: Mapping[str, FieldSpec]
    leak_fields: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class ProposalCheck:
    code: str
    severity: str
    correction_pattern: SafePattern
    premises_field: str
    count_field: str


@dataclass(frozen=True)
class Lane:
    name: str
    version: str
    title: str
    profile: str
    headline: str
    path: str
    predicates: tuple[PredicateSpec, ...]
    metrics: tuple[MetricSpec, ...]
    thresholds: Mapping[str, ThresholdSet]
    default_thresholds: str | None
    schema: CaseSchema
    analysis: LaneAnalysis
    expected_field: str | None
    informational_field: str | None
    proposal_check: ProposalCheck | None
    details: Mapping[str, str]
    casework: Any = field(default=None, repr=False, compare=False)  # casework.Casework of a case-driven lane
    bases: tuple[str, ...] = ()  # the lanes it extends (`[lane] extends`), nearest first: their codes are its own
    # Every accepted predicate name (canonical names and aliases): derived from `predicates`.
    _by_name: Mapping[str, PredicateSpec] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        by_name: dict[str, PredicateSpec] = {}
        for spec in self.predicates:
            if spec.hidden:
                continue  # a metric's `when`: not a name a case or config may use
            by_name[spec.name] = spec
            for alias in spec.aliases:
                by_name[alias] = spec
        # A frozen dataclass sets its derived fields this way (dataclasses docs, __post_init__);
        # nothing else is ever set on a Lane. Evaluation state lives in scoring.EvaluationMemo.
        object.__setattr__(self, "_by_name", by_name)

    def predicate(self, name: str) -> PredicateSpec | None:
        """A predicate by name or alias (`no_dotted_domain_inventory` -> `no_dotted_inventory`)."""
        return self._by_name.get(name)

    @property
    def predicate_names(self) -> list[str]:
        """Every accepted name (canonical names and aliases), sorted."""
        return sorted(self._by_name)

    def metric(self, name: str) -> MetricSpec | None:
        for m in self._all_metrics():
            if m.name == name or name in m.aliases:
                return m
        return None

    @property
    def metric_aliases(self) -> dict[str, str]:
        """Each metric alias (a runner's other name for it: `overall`) -> the metric's name."""
        return {a: m.name for m in self._all_metrics() for a in m.aliases}

    def _all_metrics(self) -> tuple[MetricSpec, ...]:
        """A classic lane's metrics, or a case-driven lane's (its casework's)."""
        return self.metrics if self.casework is None else (*self.metrics, *self.casework.metrics)


# --- loading ---------------------------------------------------------------------------


def builtin_rules_dir() -> Path:
    """The lanes shipped in the package (surface_lint/lanes; in a source checkout, the repo's rules/)."""
    packaged = resources.files("surface_lint") / "lanes"
    if packaged.is_dir():
        return Path(str(packaged))
    return Path(__file__).resolve().parents[3] / "rules"


def builtin_rule_files() -> list[Path]:
    return sorted(builtin_rules_dir().glob("*.toml"))


@functools.cache
def vetted_patterns() -> frozenset[str]:
    """Every regex of the shipped rules (each proven linear, docs/regex.md): a user file that
    copies one runs it the shipped way, with the runner's own semantics. Each file is read as it
    loads, its `extends` merged (a pattern written for an inherited predicate has its kind)."""
    found: set[str] = set()
    for path in builtin_rule_files():
        try:
            doc, _ = _document(_read_rules(path), str(path))
        except LaneError:  # a file that does not load vets nothing
            continue
        analysis = doc.get("analysis", {})
        for key, spec in ANALYSIS_TABLE.keys.items():
            found.update(_regex_values(analysis.get(key), spec))
        proposals = doc.get("case_checks", {}).get("expected_proposals", {})
        found.update(_regex_values(proposals.get("correction_pattern"), PROPOSAL_TABLE.keys["correction_pattern"]))
        for item in doc.get("predicates", []):
            kind = KINDS.get(item.get("kind"))
            if kind is None:
                continue
            tables = [item.get("params", {})] + [p.get("params", {}) for p in item.get("profiles", {}).values()]
            for table in tables:
                for key, spec in kind.params.items():
                    found.update(_regex_values(table.get(key), spec))
    return frozenset(found)


def _regex_values(value: Any, spec: Any) -> list[str]:
    if not isinstance(spec, Value) or value is None:
        return []
    if spec.type == "regex" and isinstance(value, str):
        return [value]
    if spec.type == "list[regex]" and isinstance(value, list):
        return [v for v in value if isinstance(v, str)]
    return []


CASE_FIELD_TYPES = ("string", "integer", "number", "boolean", "list[string]", "list[integer]", "list[number]",
                    "object", "list[object]")
SEVERITIES = ("error", "warning", "information", "hint")
METRIC_KINDS = metric_kinds("metrics")  # the [[metrics]] kinds of operators.METRIC_KINDS
THRESHOLD_OPS = tuple(OPERATORS)
DETAIL_TURN_FIELDS = ("prompt", "surface", "grounding")
DETAIL_ANALYSIS_FIELDS = ("sentence_count",)
_CODE = re.compile(r"[A-Z]+[0-9]+")


def _code_problem(value: Any) -> str | None:
    if not _CODE.fullmatch(value):
        return "must look like SL101 (capital letters, then digits)"
    if value in CHECKS:
        return f"{value} is the engine's own check `{CHECKS[value].name}`; a predicate needs a code of its own"
    return None


# A lane's name becomes a folder (`evals/<lane>/` with --split) and a `--lane` word: an identifier.
_LANE_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def _lane_name_problem(value: Any) -> str | None:
    if not _LANE_NAME.fullmatch(value):
        return f"must be an identifier (ASCII letters, digits and _, not starting with a digit), not {value!r}"
    return None


def _name_problem(value: Any) -> str | None:
    if any(ch.isspace() for ch in value):
        return "must not contain whitespace"
    return None


# A [details] source is an expression of the one language (caseexpr.py) over this scope:
# `case` (its fields), `turn.` + DETAIL_TURN_FIELDS, `analysis.` +
# DETAIL_ANALYSIS_FIELDS, `verdicts` (every reported predicate's pass) and `signal('NAME')`. The
# old mini-language's `SOURCE|DEFAULT` and `signal.A&!B` were removed: loading one is an error
# giving the expression to write (removed_detail_text).
DETAIL_NAMES = ("case", "turn", "analysis", "verdicts")
_OLD_DEFAULT = re.compile(r"(case|turn|analysis)\.([A-Za-z0-9_@>=<!-]+)\|(.*)", re.S)
_OLD_SIGNAL = re.compile(r"signal\.(.+)", re.S)


def removed_detail_text(source: str) -> str | None:
    """For a source in the removed mini-language (`case.X|DEFAULT`, `signal.A&!B`): the load
    error saying what to write instead; else None."""
    old_default = _OLD_DEFAULT.fullmatch(source)
    if old_default is not None:
        kind, name, default_text = old_default.groups()
        try:
            default = json.loads(default_text)
        except (ValueError, RecursionError):
            return (f"is the removed `SOURCE|DEFAULT` form, and its default `{default_text}` is not JSON; write an "
                    f"expression: \"default({kind}.{name}, 'text')\" (docs/rules.md, \"Details\")")
        expression = f"default({kind}.{name}, {expression_literal(default)})"
        return ("is the removed `SOURCE|DEFAULT` form; write the expression "
                f"{toml_string(expression)} (docs/rules.md, \"Details\")")
    old_signal = _OLD_SIGNAL.fullmatch(source)
    if old_signal is not None:
        parts = [f"not signal({expression_literal(n[1:])})" if n.startswith("!") else f"signal({expression_literal(n)})"
                 for n in old_signal.group(1).split("&")]
        return ("is the removed `signal.A&B` form; write the expression "
                f"{toml_string(' and '.join(parts))} (docs/rules.md, \"Details\")")
    return None


def detail_expression(source: str) -> Expr:
    """A [details] source compiled (raises ExprError with what is wrong, the removed forms included)."""
    removed = removed_detail_text(source)
    if removed is not None:
        raise ExprError(removed)
    try:
        expr = Expr(source, ("signal",))
    except RecursionError:
        raise ExprError("is nested too deeply") from None
    bound = {n.id for n in ast.walk(expr.tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
    called = {n.func.id for n in ast.walk(expr.tree) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)}
    unknown = sorted(expr.names - set(DETAIL_NAMES) - bound - called - {"true", "false", "null", "True", "False", "None"})
    if unknown:
        raise ExprError(f"reads `{unknown[0]}`; a [details] expression reads " + ", ".join(f"`{n}`" for n in DETAIL_NAMES)
                        + " and `signal('NAME')`")
    fields = {"turn": DETAIL_TURN_FIELDS, "analysis": DETAIL_ANALYSIS_FIELDS}
    for node in ast.walk(expr.tree):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in fields:
            kind, name = node.value.id, node.attr
            if name not in fields[kind]:
                close = difflib.get_close_matches(name, list(fields[kind]), n=1, cutoff=0.6)
                hint = f" (did you mean `{kind}.{close[0]}`?)" if close else ""
                raise ExprError(f"reads `{kind}.{name}`, which is not one of "
                                f"{', '.join(kind + '.' + f for f in fields[kind])}{hint}")
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "signal" and (
                len(node.args) != 1 or not isinstance(node.args[0], ast.Constant)
                or not isinstance(node.args[0].value, str)):
            raise ExprError("calls `signal` without one quoted name: write `signal('NAME')`")
    return expr


def detail_signals(expr: Expr) -> list[str]:
    """The names a [details] expression passes to `signal(...)`, in order."""
    return [str(node.args[0].value) for node in ast.walk(expr.tree)  # type: ignore[attr-defined]
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "signal"]


def detail_is_derived(source: str) -> bool:
    """Whether a [details] value is derived from verdicts or the analysis (the reference profile
    checks such a stored value against the raw fields), not read from the case or the turn."""
    return bool({"signal", "verdicts", "analysis"} & detail_expression(source).names)


def detail_source_problem(source: str) -> str | None:
    """Why a [details] source is not an expression the engine can fill, or None."""
    try:
        detail_expression(source)
    except ExprError as exc:
        text = str(exc)
        return text if text.startswith(("is ", "reads ", "calls ")) else f"is not an expression: {text}"
    return None


_TEXT = Value("string")
_NAMES = Value("list[string]", [], non_empty=True)
_PARAMS = Value("table", {}, "The kind's parameters (see `surface-lint rule --kinds`).")
_PROFILE = Table({"params": _PARAMS})

LANE_TABLE = Table({
    "name": Value("string", REQUIRED, "The lane's name (`--lane NAME`): an identifier.", non_empty=True,
                  check=_lane_name_problem),
    "extends": Value("string", None, "Another lane this file inherits from: `<name>.toml` beside this file, else "
                     "the shipped lane (docs/rules.md, \"Extending a lane\").", non_empty=True),
    "version": Value("string", "v1", "The rules' version."),
    "title": Value("string", None, "A human title (default: the name)."),
    "unit": Value("string", "surface", "What one scored subject is: a turn's surface (the only unit; a lane "
                  "judges whole cases with [casework]).", choices=("surface",),
                  removed={"chain": "write the runs of a case as [casework.views] over its capture records "
                                    "and the checks as [[casework.values]] (docs/rules.md, \"Replay chains\"; "
                                    "rules/symbolic_logic.toml)"}),
    "headline": Value("string", None, "The metric shown first (default: the first metric)."),
    "default_thresholds": Value("string", None, "The [thresholds.*] set enforced by default."),
    "expected_field": Value("string", None, "A case field listing the predicates the case expects to pass."),
    "informational_field": Value("string", None, "A case field listing predicates reported as information."),
    "unicode_form": Value("string", "none", "The Unicode normalisation every predicate that takes `unicode_form` "
                          "applies before judging, unless it gives its own: `none`, `NFC` or `NFKC` (docs/non-latin.md).",
                          choices=UNICODE_FORMS),
})
ANALYSIS_TABLE = Table({
    "tail_patterns": Value("list[regex]", [], "Stripped from the end, in order, before sentences are counted."),
    "sentence_split": Value("regex", None, "Where one sentence ends and the next begins."),
    "token_pattern": Value("regex", None, "What one token is (default: whitespace-separated)."),
})
FIELD_TABLE = Table({
    "type": Value("string", "string", "The JSON type of the field.", choices=CASE_FIELD_TYPES),
    "required": Value("boolean", False, "A case without it is SL002."),
    "predicate_list": Value("boolean", False, "Its items are predicate names (SL004 on unknown ones)."),
    "description": Value("string", None, "What the field holds (hover text)."),
    "count": Value("boolean", False, "For `integer`: the field is a count, so a negative value is SL003 at the value "
                   "and the field reads as absent (its default)."),
})
# An object (or list[object]) field declares its own typed fields, to any depth.
FIELD_TABLE.keys["fields"] = MapOf(FIELD_TABLE, "For `object` and `list[object]`: the fields inside, typed the same way.")  # type: ignore[index]
CASE_SCHEMA_TABLE = Table({
    "id_field": Value("string", "id", "The field that names a case.", non_empty=True),
    "leak_fields": Value("list[string]", [], "Fields a holdout must not share (SL006).", non_empty=True),
    "fields": MapOf(FIELD_TABLE, "One table per case field."),
})
PREDICATE_TABLE = Table({
    "name": Value("string", REQUIRED, "The predicate's name.", non_empty=True, check=_name_problem),
    "code": Value("string", REQUIRED, "Its check code, unique across every lane.", check=_code_problem),
    "kind": Value("string", REQUIRED, "What it checks (see `surface-lint rule --kinds`)."),
    "default_severity": Value("string", "warning", "Severity when no case or config decides.", choices=SEVERITIES),
    "report": Value("boolean", True, "false: a signal for metrics only, never a finding."),
    "aliases": Value("list[string]", [], "Other accepted names.", non_empty=True),
    "applies_if": Value("string", None, "A case field: findings only when it is truthy (the verdict still "
                        "feeds metrics).", non_empty=True),
    "when": Value("expression", None, "A condition over `case` and `turn` (`\"case.kind == 'refusal'\"`); when it "
                  "does not hold the predicate is not judged.", check=when_problem),
    "message": Value("string", None, "The finding's message, a template over the kind's facts ({match}, "
                     "{field}, {bound}, ...; `rule --kinds` lists them).", non_empty=True),
    "summary": _TEXT, "what": _TEXT, "why": _TEXT, "example_fail": _TEXT, "example_pass": _TEXT,
    "params": _PARAMS,
    "profiles": Table({p: _PROFILE for p in PROFILES}, "Per-profile parameter overrides."),
})
PROPOSAL_TABLE = Table({
    "code": Value("string", C.EXPECTED_PROPOSALS, "The finding's code."),
    "severity": Value("string", "error", "The finding's severity.", choices=SEVERITIES),
    "correction_pattern": Value("regex", REQUIRED, "A premise matching it is correction-intent."),
    "premises_field": Value("string", "premises", "The case field holding the premises.", non_empty=True),
    "count_field": Value("string", "expected_proposals", "The case field holding the count.", non_empty=True),
})
RULES_FILE = Table({
    "lane": LANE_TABLE,
    "analysis": ANALYSIS_TABLE,
    "case_schema": CASE_SCHEMA_TABLE,
    "case_checks": Table({"expected_proposals": PROPOSAL_TABLE}),
    "predicates": ArrayOf(PREDICATE_TABLE),
    "metrics": ArrayOf(METRIC_TABLE),
    "thresholds": MapOf(THRESHOLD_SET_TABLE, "Named threshold sets."),
    "details": MapOf(Value("string", check=detail_source_problem), "Per-case detail field = source."),
    "casework": CASEWORK_TABLE,  # case-driven lanes (casework.py)
})


def _label(document: Mapping[str, Any]) -> Callable[[SchemaPath], str]:
    """How messages name the table at a path."""

    def named(kind: str, entry: Any, index: int) -> str:
        name = entry.get("name") if isinstance(entry, dict) else None
        return f"{kind} {name!r}" if isinstance(name, str) and name else f"[[{kind}s]] entry {index + 1}"

    def label(path: SchemaPath) -> str:
        if not path:
            return "the rules file"
        head = path[0]
        if head in ("predicates", "metrics") and len(path) >= 2 and isinstance(path[1], int):
            items = document.get(head)
            entry = items[path[1]] if isinstance(items, list) and path[1] < len(items) else {}
            base = named(str(head)[:-1], entry, path[1])
            if len(path) >= 4 and path[2] == "profiles":
                return f"{base} (profile {path[3]})"
            return base
        if head == "thresholds" and len(path) >= 2:
            base = f"threshold set {path[1]!r}"
            if len(path) >= 4 and isinstance(path[3], int):
                return f"{base}, check {path[3] + 1}"
            return base
        if head == "case_schema" and len(path) >= 3 and path[1] == "fields":
            return f"case field {path[2]!r}"
        return "[" + ".".join(str(p) for p in path) + "]"

    return label


def load_lane(path: Path, profile: str = DEFAULT_PROFILE, trusted: bool | None = None) -> Lane:
    """Parse and validate one rules file for one profile. Raises LaneError."""
    if profile not in PROFILES:
        raise LaneError(str(path), 1, f"unknown profile {profile!r} (expected one of {PROFILES})")
    text = _read_rules(path)
    if trusted is None:
        trusted = path.resolve().parent == builtin_rules_dir().resolve()
    return parse_lane(text, str(path), profile, trusted)


def _read_rules(path: Path) -> str:
    shown = str(path)
    try:
        raw = read_toml_bytes(path)  # bounded: a device, a pipe or a file over the limit is refused
    except OSError as exc:
        raise LaneError(shown, 1, f"cannot read rules file: {exc.strerror}") from None
    except TomlError as exc:
        raise LaneError(shown, 1, f"rules file {exc.message}") from None
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        raise LaneError(shown, line, "rules file is not valid UTF-8") from None


def _parse_toml(text: str, shown: str) -> dict[str, Any]:
    try:
        return parse_toml(text)  # the one TOML reader: its depth limit, its positions of errors
    except TomlError as exc:
        raise LaneError(shown, exc.line, exc.message, exc.column) from None


MAX_EXTENDS = 16  # bases on one chain: deep enough for any lane family, short of the interpreter's stack


def _document(text: str, shown: str, chain: tuple[Path, ...] = ()) -> tuple[dict[str, Any], LanePositions]:
    """A rules file's document with its `[lane] extends` resolved (lane_extends.merge), and
    where each key was written. The base is `<name>.toml` beside the file, else the shipped
    lane of that name; a base that leads back to a file on the way is a cycle."""
    data = _parse_toml(text, shown)
    positions = TomlPositions(text)
    lane_t = data.get("lane")
    if not isinstance(lane_t, dict) or "extends" not in lane_t:
        return data, LanePositions.single(shown, positions)
    at = positions.at(("lane", "extends"))
    base_name = lane_t["extends"]
    if not isinstance(base_name, str) or _lane_name_problem(base_name) is not None:
        shown_value = json.dumps(base_name) if isinstance(base_name, str) else toml_type_name(base_name)
        raise LaneError(shown, at[0], f"[lane] `extends` must name a lane (letters, digits and underscores), "
                                      f"not {shown_value}", at[1])
    here = Path(shown).resolve()
    sibling = Path(shown).parent / f"{base_name}.toml"
    shipped = builtin_rules_dir() / f"{base_name}.toml"
    base = next((p for p in (sibling, shipped) if p.is_file() and p.resolve() != here), None)
    if base is None:
        raise LaneError(shown, at[0], f"[lane] `extends` names lane {base_name!r}: there is no {base_name}.toml "
                                      "beside this file and no shipped lane of that name", at[1])
    on_the_way = (*chain, here)
    if len(on_the_way) > MAX_EXTENDS:
        raise LaneError(shown, at[0], f"[lane] `extends`: more than {MAX_EXTENDS} lanes extend one another here", at[1])
    if base.resolve() in on_the_way:
        cycle = " -> ".join(p.name for p in (*on_the_way[on_the_way.index(base.resolve()):], base.resolve()))
        raise LaneError(shown, at[0], f"[lane] `extends` makes a cycle: {cycle}", at[1])
    base_data, base_positions = _document(_read_rules(base), str(base), on_the_way)
    try:
        merged, base_maps, child_maps = merge(base_data, data)
    except MergeProblem as exc:
        line, column = positions.at(exc.path)
        raise LaneError(shown, line, exc.message, column) from None
    return merged, LanePositions.extending(shown, positions, child_maps, base_positions, base_maps, at, base_name)


class _Rules:
    """One rules file being loaded: its document, positions and how to fail at a path."""

    def __init__(self, document: dict[str, Any], positions: LanePositions, shown: str, trusted: bool) -> None:
        self.doc = document
        self.positions = positions
        self.shown = shown
        self.trusted = trusted
        self.label = _label(document)

    def fail(self, path: SchemaPath, message: str) -> LaneError:
        shown, line, column = self.positions.locate(path)
        if shown != self.shown:  # an inherited key: say which file's merge broke it
            message = f"{message} (inherited by {self.shown}, which extends this file)"
        return LaneError(shown, line, message, column)

    def compile(self, pattern: str, what: str, path: SchemaPath) -> SafePattern:
        try:
            return SafePattern(pattern, self.trusts(pattern))
        except PatternError as exc:
            raise self.fail(path, f"{what} {exc}") from None

    def trusts(self, pattern: str) -> bool:
        """A shipped file's patterns, and any user pattern equal to one of them, are vetted."""
        return self.trusted or pattern in vetted_patterns()

    def table(self, key: str) -> dict[str, Any]:
        value = self.doc.get(key, {})
        return value if isinstance(value, dict) else {}


def parse_lane(text: str, shown: str, profile: str = DEFAULT_PROFILE, trusted: bool = False) -> Lane:
    """Parse one rules file. `trusted` (the shipped rules only) lets its patterns use the
    stdlib fast path; see predicates.SafePattern for how user patterns are bounded."""
    if profile not in PROFILES:
        raise LaneError(shown, 1, f"unknown profile {profile!r} (expected one of {PROFILES})")
    data, positions = _document(text, shown)
    return _build_lane(data, positions, shown, profile, trusted)


def _build_lane(data: dict[str, Any], positions: LanePositions, shown: str, profile: str, trusted: bool) -> Lane:
    """The Lane of a rules file's merged document (`_document`)."""
    rules = _Rules(data, positions, shown, trusted)
    if "lane" not in data:
        raise LaneError(shown, 1, "missing [lane] table")
    try:
        validate(data, RULES_FILE, rules.label)
    except Problem as problem:
        raise rules.fail(problem.path, problem.message) from None
    lane_t = rules.table("lane")
    name = str(lane_t["name"])

    analysis = _load_analysis(rules)
    predicates = _load_predicates(rules, profile)
    names = {p.name for p in predicates} | {a for p in predicates for a in p.aliases}
    schema = _load_schema(rules)
    hidden: list[PredicateSpec] = []
    case_driven = "casework" in data
    # A case-driven lane's metrics are folded case by case (parse_casework builds them); a
    # classic lane's over its cases' signals. One table, one threshold model for both.
    metrics = [] if case_driven else _load_metrics(rules, names, schema, hidden)
    predicates.extend(hidden)
    casework = data.get("casework") or {}
    items = _metric_items(rules)
    if not predicates and not items and not casework.get("values"):
        # Nothing would be checked, yet every run would report 0 findings and exit 0.
        raise rules.fail(("lane",), f"lane {name!r} defines no predicate, metric or [casework] value: "
                                    "it would check nothing")
    thresholds = _load_thresholds(rules, items, case_driven)
    default_thresholds = lane_t.get("default_thresholds")
    if default_thresholds is not None and default_thresholds not in thresholds:
        raise rules.fail(("lane", "default_thresholds"),
                         f"default_thresholds {default_thresholds!r} names no threshold set (a [thresholds.*] "
                         "table or a `kind = \"thresholds\"` metric)")
    if default_thresholds is None and case_driven:  # its first `thresholds` metric is checked
        default_thresholds = next((s.name for s in thresholds.values() if s.metric), None)
    headline = lane_t.get("headline") or (metrics[0].name if metrics else "")
    if metrics and not any(m.name == headline for m in metrics):
        raise rules.fail(("lane", "headline"), f"headline {headline!r} is not a metric")
    for spec in predicates:
        if spec.applies_if is not None and spec.applies_if not in schema.fields:
            index = next(i for i, item in enumerate(rules.doc.get("predicates", [])) if item.get("name") == spec.name)
            raise rules.fail(("predicates", index, "applies_if"),
                             f"predicate {spec.name!r}: `applies_if` {spec.applies_if!r} is not a [case_schema] field")
    for key in ("expected_field", "informational_field"):
        if key in lane_t and lane_t[key] not in schema.fields:
            raise rules.fail(("lane", key), f"[lane] `{key}` {lane_t[key]!r} is not a [case_schema] field")
    details = _load_details(rules, names, schema)
    lane = Lane(
        name=name,
        version=str(lane_t.get("version", "v1")),
        title=str(lane_t.get("title", name)),
        profile=profile,
        headline=headline,
        path=shown,
        predicates=tuple(predicates),
        metrics=tuple(metrics),
        thresholds=thresholds,
        default_thresholds=default_thresholds,
        schema=schema,
        analysis=analysis,
        expected_field=lane_t.get("expected_field"),
        informational_field=lane_t.get("informational_field"),
        proposal_check=_load_proposal_check(rules),
        details=details,
        bases=rules.positions.bases,
    )
    if "casework" not in data:
        return lane
    # A case-driven lane: its [casework] references and expressions are parsed against the lane's
    # predicates, schema and analysis (below); the lane returned is a new one built with it.
    casework = parse_casework(lane, data["casework"], rules.positions, items)
    _check_case_values(lane, data["casework"], rules)
    return dataclasses.replace(lane, casework=casework)


def _check_case_values(lane: Lane, casework: Any, rules: _Rules) -> None:
    """A case-driven lane's `case_value` predicate is judged by the `[[casework.values]]` entry
    naming it as `check`: one that no value names would never fail, so it is an error at its
    `kind`. (In a classic lane it is a predicate that passes every turn.)"""
    values = casework.get("values", []) if isinstance(casework, dict) else []
    named = {found.name for v in values if isinstance(v, dict) and "check" in v
             for found in (lane.predicate(str(v["check"])),) if found is not None}
    for index, item in enumerate(rules.doc.get("predicates", [])):
        spec = lane.predicate(str(item.get("name")))
        if item.get("kind") == "case_value" and spec is not None and spec.name not in named:
            raise rules.fail(("predicates", index, "kind"), f"predicate {spec.name!r}: a `case_value` predicate is "
                             "judged by the [[casework.values]] entry that names it as `check`; no value names it "
                             f"(write `check = \"{spec.name}\"` on the value whose false result is this finding)")


def _toml_error_position(message: str) -> tuple[int, int]:
    m = re.search(r"line (\d+), column (\d+)", message)
    if m:
        return int(m.group(1)), int(m.group(2))
    return 1, 1


def _load_analysis(rules: _Rules) -> LaneAnalysis:
    table = rules.table("analysis")
    out = LaneAnalysis()
    out.tail_patterns = [
        rules.compile(p, "tail pattern", ("analysis", "tail_patterns", i))
        for i, p in enumerate(table.get("tail_patterns", []))
    ]
    for key in ("sentence_split", "token_pattern"):
        if key in table:
            setattr(out, key, rules.compile(table[key], key, ("analysis", key)))
    return out


def _load_predicates(rules: _Rules, profile: str) -> list[PredicateSpec]:
    out: list[PredicateSpec] = []
    seen: dict[str, int] = {}
    codes: dict[str, str] = {}
    lane_form = str(rules.table("lane").get("unicode_form", "none"))
    for index, item in enumerate(rules.doc.get("predicates", [])):
        here: SchemaPath = ("predicates", index)
        line = rules.positions.line(here)
        name = str(item["name"])
        if name in seen or name in {a for p in out for a in p.aliases}:
            raise rules.fail(here, f"predicate {name!r} is defined twice")
        seen[name] = line
        kind_name = item["kind"]
        if kind_name in FOLDED_KINDS and kind_name not in KINDS:
            into, how = FOLDED_KINDS[kind_name]
            raise rules.fail((*here, "kind"), f"predicate {name!r}: kind {kind_name!r} was folded into {into!r}; "
                                              f"write kind = \"{into}\" ({how}; docs/rules.md, \"Folded kinds\")")
        if kind_name not in KINDS:
            close = difflib.get_close_matches(kind_name, list(KINDS), n=1, cutoff=0.6)
            hint = f"; did you mean {close[0]!r}?" if close else ""
            known = ", ".join(sorted(KINDS))
            raise rules.fail((*here, "kind"), f"predicate {name!r}: unknown kind {kind_name!r} (known: {known}){hint}")
        kind = KINDS[kind_name]
        code = str(item["code"])
        if code in codes:
            raise rules.fail((*here, "code"), f"predicate {name!r}: code {code} is already used by {codes[code]!r}")
        codes[code] = name
        applies_if = item.get("applies_if")
        params = _kind_params(rules, here, name, kind_name, kind, profile, lane_form)
        message = item.get("message")
        if message is not None and "message" in kind.params and not kind.facts:
            params.setdefault("message", message)  # a kind that takes its template as a declared param
        elif message is not None:
            _check_template(rules, (*here, "message"), name, kind_name, kind, message)
        params["_message"] = message if message is not None else kind.message
        params["_rule_message"] = message
        evaluate = kind.build(params)
        form = str(params.get("unicode_form", "none"))
        if form != "none":  # judged on the normalised surface, spans mapped back to the original
            evaluate = normalising(evaluate, form)
        when = item.get("when")
        if when is not None:
            evaluate = _when(evaluate, Condition(when))
        needed = [str(params[k]).split(".")[0] for k in kind.case_params if params.get(k)]
        # A `condition` predicate's verdict depends on what its expression reads (the memo's key).
        own = condition_fields(str(params["when"])) if kind_name == "condition" else ()
        reads = tuple(dict.fromkeys([*needed, *own, *(condition_fields(when) if when is not None else ())]))
        out.append(
            PredicateSpec(
                name=name,
                code=code,
                kind=kind_name,
                evaluate=evaluate,
                default_severity=str(item.get("default_severity", "warning")),
                report=bool(item.get("report", True)),
                aliases=tuple(item.get("aliases", ())),
                applies_if=applies_if,
                summary=item.get("summary", ""),
                what=item.get("what", ""),
                why=item.get("why", ""),
                example_fail=item.get("example_fail", ""),
                example_pass=item.get("example_pass", ""),
                params={k: v for k, v in params.items() if not k.startswith("_")},
                line=line,
                code_at=rules.positions.at((*here, "code")),
                case_field=needed[0] if needed else None,
                judged_without_field=kind.judged_without_case,
                reads=reads,
                message=message,
            )
        )
    return out


def _when(evaluate: Evaluator, condition: Condition) -> Evaluator:
    """The evaluator, judged only when the condition holds (else no verdict)."""

    def judged(ctx: Context) -> Verdict | None:
        if not condition.holds(ctx):
            return NOT_JUDGED
        return evaluate(ctx)

    return judged


def _check_template(rules: _Rules, path: SchemaPath, name: str, kind_name: str, kind: Kind, template: str) -> None:
    try:
        fields = [f for _, f, _, _ in string.Formatter().parse(template) if f is not None]
    except ValueError as exc:
        raise rules.fail(path, f"predicate {name!r}: `message` is not a valid template: {exc} "
                               "(write a literal brace as {{ or }})") from None
    for placeholder in fields:
        if placeholder not in kind.facts:
            offered = ", ".join(f"{{{f}}}" for f in kind.facts) or "none"
            raise rules.fail(path, f"predicate {name!r}: `message` uses {{{placeholder}}}, which kind {kind_name} "
                                   f"does not provide (it provides: {offered})")


def _kind_params(rules: _Rules, here: SchemaPath, name: str, kind_name: str, kind: Kind,
                 profile: str, lane_form: str = "none") -> dict[str, Any]:
    """The predicate's parameters for `profile`: the base table, the profile's override on top,
    each key declared by the kind and type-checked, defaults filled in (`unicode_form`: the
    lane's, when the kind takes one), patterns compiled."""
    item = rules.doc["predicates"][here[1]]
    base: dict[str, Any] = item.get("params", {})
    profiles: dict[str, Any] = item.get("profiles", {})
    declared = list(kind.params)

    def unknown(table: Mapping[str, Any], path: SchemaPath) -> None:
        for key in table:
            if key not in kind.params:
                close = difflib.get_close_matches(key, declared, n=1, cutoff=0.6)
                hint = f" (did you mean `{close[0]}`?)" if close else ""
                if (kind_name, key) in FOLDED_PARAMS:
                    hint = f" ({FOLDED_PARAMS[kind_name, key]})"
                raise rules.fail((*path, key), f"predicate {name!r} ({kind_name}): unknown parameter `{key}`{hint}")

    unknown(base, (*here, "params"))
    for other, table in profiles.items():
        unknown(table.get("params", {}), (*here, "profiles", other, "params"))
    override: dict[str, Any] = profiles.get(profile, {}).get("params", {})
    params = {**base, **override}
    if lane_form != "none" and "unicode_form" in kind.params:
        params.setdefault("unicode_form", lane_form)

    def at(key: str) -> SchemaPath:
        if key in override:
            return (*here, "profiles", profile, "params", key)
        return (*here, "params", key)

    for key, spec in kind.params.items():
        if key not in params:
            if spec.required:
                raise rules.fail(here, f"predicate {name!r} ({kind_name}): missing parameter `{key}`")
            continue
        problem = spec.problem(params[key])
        if problem is not None:
            hint = f" ({FOLDED_PARAMS[kind_name, key]})" if (kind_name, key) in FOLDED_PARAMS else ""
            raise rules.fail(at(key), f"predicate {name!r}: parameter `{key}` {problem}{hint}")
    params = fill_defaults(params, kind.params)
    if kind.check is not None:
        problem = kind.check(params)
        if problem is not None:
            raise rules.fail((*here, "params"), f"predicate {name!r} ({kind_name}): {problem}")
    for key, spec in kind.params.items():
        if spec.type == "regex" and key in params:
            params[key] = rules.compile(params[key], f"predicate {name!r}: `{key}`", at(key))
        elif spec.type == "list[regex]":
            for i, pattern in enumerate(params.get(key, [])):
                rules.compile(pattern, f"predicate {name!r}: `{key}` item {i + 1}", (*at(key), i))
    fragments = [p for k, v in kind.params.items() if v.type == "list[regex]" for p in params.get(k, [])]
    params["_trusted"] = all(rules.trusts(p) for p in fragments)
    if kind.prepare is not None:
        try:
            kind.prepare(params)
        except PatternError as exc:
            raise rules.fail(here, f"predicate {name!r}: the pattern built from its parameters {exc}") from None
    return params


def _load_schema(rules: _Rules) -> CaseSchema:
    table = rules.table("case_schema")
    fields = _field_specs(table.get("fields", {}), ("case_schema", "fields"), rules)
    return CaseSchema(str(table.get("id_field", "id")), fields, tuple(table.get("leak_fields", ())))


def _field_specs(table: Mapping[str, Any], path: SchemaPath, rules: _Rules) -> dict[str, FieldSpec]:
    out: dict[str, FieldSpec] = {}
    for fname, spec in table.items():
        type_name = str(spec.get("type", "string"))
        inner = spec.get("fields", {})
        if inner and type_name not in ("object", "list[object]"):
            raise rules.fail((*path, fname, "fields"),
                             f"case field {fname!r}: `fields` needs type \"object\" or \"list[object]\", not {type_name!r}")
        if spec.get("count") and type_name != "integer":
            raise rules.fail((*path, fname, "count"),
                             f"case field {fname!r}: `count` needs type \"integer\", not {type_name!r}")
        out[fname] = FieldSpec(fname, type_name, bool(spec.get("required", False)), bool(spec.get("predicate_list", False)),
                               _field_specs(inner, (*path, fname, "fields"), rules), str(spec.get("description") or ""),
                               bool(spec.get("count", False)))
    return out


MetricEntries = list[tuple[SchemaPath, dict[str, Any]]]  # each metric entry with where it is written


def _metric_items(rules: _Rules) -> MetricEntries:
    """A lane's metric entries, each with where it is written: its `[[metrics]]`, then (a
    case-driven lane) the old spelling `[[casework.metrics]]` (the same table), so a lane file
    that extends a migrated lane with old entries keeps loading. An old entry that names a
    `[[metrics]]` entry cannot merge into it: a load error says to write it as `[[metrics]]`."""
    top = rules.doc.get("metrics")
    casework = rules.doc.get("casework")
    old = casework.get("metrics") if isinstance(casework, dict) else None
    entries: MetricEntries = [(("metrics", i), item) for i, item in enumerate(top or [])]
    names = {str(item["name"]) for _, item in entries}
    for i, item in enumerate(old or []):
        if str(item["name"]) in names:
            raise rules.fail(("casework", "metrics", i, "name"),
                             f"metric {item['name']!r} is also a `[[metrics]]` entry: write this `[[casework.metrics]]` "
                             "entry as `[[metrics]]` (same keys), where an entry of the same name merges into it")
        entries.append((("casework", "metrics", i), item))
    return entries


def _metric_problem(item: Mapping[str, Any], case_driven: bool) -> tuple[str, str] | None:
    """(key, message) when a metric entry uses a key or kind its sort of lane does not take."""
    name = item["name"]
    kind = str(item.get("kind", "rate"))
    sort = "case-driven" if case_driven else "classic"
    if kind not in metric_kinds("casework" if case_driven else "metrics"):
        other = "`kind = \"thresholds\"`" if kind == "thresholds_pass" else (
            "a `[thresholds.NAME]` set (and `kind = \"thresholds_pass\"` for its pass flag)" if kind == "thresholds"
            else "a case-driven lane ([casework])" if not case_driven else "a classic lane")
        return "kind", f"metric {name!r}: kind {kind!r} is not computed by a {sort} lane; write {other} instead"
    for key in (CLASSIC_METRIC_KEYS if case_driven else CASE_DRIVEN_METRIC_KEYS):
        if key not in item:
            continue
        if not case_driven:
            return key, (f"metric {name!r}: `{key}` is for case-driven lanes ([casework]); a classic lane's "
                         "metric does not take it")
        instead = {"passing": "`value`, an expression over the case's values (`\"a and not b\"`)",
                   "over": "`where`, an expression"}[key]
        return key, f"metric {name!r}: `{key}` is for classic lanes; write {instead}"
    if "where" in item and "when" in item:
        return "when", f"metric {name!r}: `when` and `where` are one key; give `where` only"
    return None


def _load_metrics(rules: _Rules, names: set[str], schema: CaseSchema,
                  hidden: list[PredicateSpec]) -> list[MetricSpec]:
    """A classic lane's metrics; a metric's `where` (or `when`) becomes a hidden `condition`
    predicate in its `over`."""
    out: list[MetricSpec] = []
    seen: set[str] = set()
    for here, item in _metric_items(rules):
        name = str(item["name"])
        if name in seen:
            raise rules.fail(here, f"metric {name!r} is defined twice")
        seen.add(name)
        problem = _metric_problem(item, False)
        if problem is not None:
            raise rules.fail((*here, problem[0]), problem[1])
        for key in ("passing", "over"):
            for i, signal in enumerate(item.get(key, [])):
                bare = signal[1:] if signal.startswith("!") else signal
                if bare != EXPECTED and bare not in names and bare not in schema.fields:
                    raise rules.fail((*here, key, i),
                                     f"metric {name!r}: {signal!r} is neither a predicate nor a case field")
        over = tuple(item.get("over", ()))
        when_key = "where" if "where" in item else "when"
        when = item.get(when_key)
        if when is not None:
            problem_text = when_problem(when)
            if problem_text is not None:
                raise rules.fail((*here, when_key), f"metric {name!r}: `{when_key}` {problem_text}")
            signal_name = f"{name}:when"
            if signal_name in names:
                raise rules.fail((*here, when_key), f"metric {name!r}: a predicate is already named {signal_name!r}")
            condition = KINDS["condition"]
            hidden.append(PredicateSpec(
                name=signal_name, code="", kind="condition", evaluate=condition.build({"when": when}),
                default_severity="hint", report=False, aliases=(), applies_if=None, summary=f"`when` of {name}",
                what="", why="", example_fail="", example_pass="", params={"when": when},
                line=rules.positions.line((*here, when_key)), reads=condition_fields(when), hidden=True))
            over = (*over, signal_name)
        kind = str(item.get("kind", "rate"))
        if kind in ("mean", "min", "max", "sum") and not item.get("value"):
            raise rules.fail((*here, "kind"), f"metric {name!r}: kind {kind!r} needs a `value` (`case.PATH`)")
        if item.get("value") and kind not in ("mean", "min", "max", "sum"):
            raise rules.fail((*here, "value"), f"metric {name!r}: `value` is for kinds mean, min, max and sum")
        paths: dict[str, Expr | None] = {}
        for key in ("value", "by"):
            source = item.get(key)
            if source is not None and not (source.startswith("case.") and len(source) > 5
                                           and re.fullmatch(r"[A-Za-z_][\w.]*", source)):
                raise rules.fail((*here, key), f"metric {name!r}: `{key}` in a classic lane must be `case.` and a "
                                               "field path (expressions are for case-driven lanes)")
            paths[key] = Expr(source) if source is not None else None
        out.append(
            MetricSpec(
                value=paths["value"],
                by=paths["by"],
                better=str(item.get("better", "higher")),
                name=name,
                kind=kind,
                passing=tuple(item.get("passing", ())),
                over=over,
                empty=float(item.get("empty", 1.0)),
                aliases=tuple(item.get("aliases", ())),
                runner=bool(item.get("runner", True)),
                description=str(item.get("description", "")),
                rounding=item.get("round"),
                report=bool(item.get("report", True)),
            )
        )
    return out


def _threshold_check(rules: _Rules, check: Mapping[str, Any], path: SchemaPath, what: str,
                     known: Sequence[str], tables: Sequence[str], earlier: bool = False) -> ThresholdCheck:
    """One threshold check, of a `[thresholds.*]` set or a `thresholds` metric: its metric is one
    of `known`, or `NAME.CATEGORY` of one of the `by` metrics `tables`; its message a template."""
    metric = str(check["metric"])
    table, dot, _ = metric.rpartition(".")
    if metric not in known and not (dot and table in tables):
        close = difflib.get_close_matches(metric, known, n=1, cutoff=0.6)
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        if earlier:
            raise rules.fail((*path, "metric"), f"{what} names {metric!r}, not an earlier metric (nor "
                                                f"`NAME.CATEGORY` of an earlier `by` metric){hint}")
        raise rules.fail((*path, "metric"), f"{what}: unknown metric {metric!r}{hint}")
    message = str(check.get("message", ""))
    problem = template_problem(message, _THRESHOLD_PLACEHOLDERS, False)
    if problem is not None:
        raise rules.fail((*path, "message"), f"{what} `message`: {problem}")
    return ThresholdCheck(metric, str(check.get("op", ">=")), float(check["value"]),
                          float(check.get("tolerance", 0.0)), message)


def _load_thresholds(rules: _Rules, entries: MetricEntries, case_driven: bool) -> dict[str, ThresholdSet]:
    """Every threshold set of the lane: its `[thresholds.NAME]` tables and (a case-driven lane)
    each `kind = "thresholds"` metric, whose checks name earlier metrics. One model: a set is
    named, checked by `--thresholds NAME`, listed by `surface-lint lanes`."""
    out: dict[str, ThresholdSet] = {}
    names = [str(m["name"]) for _, m in entries]
    tables = [str(m["name"]) for _, m in entries if m.get("by") is not None]
    if case_driven:
        for index, (at, item) in enumerate(entries):
            if item.get("kind") != "thresholds":
                continue
            name = str(item["name"])
            earlier = names[:index]
            checks = tuple(
                _threshold_check(rules, check, (*at, "checks", i), f"metric {name!r}: check {i + 1}",
                                 earlier, [t for t in tables if t in earlier], earlier=True)
                for i, check in enumerate(item.get("checks", [])))
            out[name] = ThresholdSet(name, str(item.get("description", "")), checks,
                                     bool(item.get("skip_null", False)), metric=True)
    for set_name, spec in rules.table("thresholds").items():
        if set_name in out:
            raise rules.fail(("thresholds", set_name), f"threshold set {set_name!r}: a `thresholds` metric has this name")
        checks = tuple(
            _threshold_check(rules, check, ("thresholds", set_name, "checks", index),
                             f"threshold set {set_name!r}", names, tables)
            for index, check in enumerate(spec.get("checks", [])))
        out[set_name] = ThresholdSet(set_name, str(spec.get("description", "")), checks,
                                     bool(spec.get("skip_null", False)))
    return out


def threshold_lines(lane: Lane) -> list[str]:
    """Every threshold set of the lane and each check it makes, one line a set (`surface-lint
    lanes`): `  NAME (default): metric op bound, ...`; a check on a case-driven lane's whole
    `by` table says it checks each category; a set that skips null metrics says so."""
    casework = lane.casework
    tables = {m.name for m in getattr(casework, "metrics", ()) if m.by is not None and m.kind not in ("value", "thresholds")}
    out = []
    for name in sorted(lane.thresholds):
        found = lane.thresholds[name]
        checks = ", ".join(f"{c.metric} {c.describe()}" + (" (each category)" if c.metric in tables else "")
                           for c in found.checks) or "no checks"
        default = " (default)" if name == lane.default_thresholds else ""
        out.append(f"  {name}{default}: {checks}" + (" (null skipped)" if found.skip_null else ""))
    return out


def _load_proposal_check(rules: _Rules) -> ProposalCheck | None:
    spec = rules.table("case_checks").get("expected_proposals")
    if spec is None:
        return None
    here: SchemaPath = ("case_checks", "expected_proposals")
    return ProposalCheck(
        code=str(spec.get("code", C.EXPECTED_PROPOSALS)),
        severity=str(spec.get("severity", "error")),
        correction_pattern=rules.compile(spec["correction_pattern"], "correction_pattern",
                                         (*here, "correction_pattern")),
        premises_field=str(spec.get("premises_field", "premises")),
        count_field=str(spec.get("count_field", "expected_proposals")),
    )


def _load_details(rules: _Rules, names: set[str], schema: CaseSchema) -> dict[str, str]:
    table: dict[str, str] = rules.table("details")
    for key, source in table.items():
        for signal in detail_signals(detail_expression(source)):
            if signal != EXPECTED and signal not in names and signal not in schema.fields:
                raise rules.fail(("details", key),
                                 f"[details] `{key}`: {signal!r} is neither a predicate nor a case field")
    return dict(table)


@dataclass
class LaneSet:
    """All lanes available for one profile, plus the rules files that failed to load."""

    lanes: dict[str, Lane]
    errors: list[LaneError]

    def get(self, name: str) -> Lane | None:
        return self.lanes.get(name)


def load_lanes(
    profile: str = DEFAULT_PROFILE, extra_files: Iterable[Path] = ()
) -> LaneSet:
    """Built-in lanes, then the user's lane files (a user file replaces a built-in lane of the
    same name). A check code belongs to one lane: a file reusing another lane's code is an error."""
    lanes: dict[str, Lane] = {}
    errors: list[LaneError] = []
    builtin = builtin_rule_files()
    for path in [*builtin, *extra_files]:
        try:
            lane = load_lane(path, profile)
            if path not in builtin:
                # A user's file must hold in every profile, not only the one in use now:
                # a broken base pattern hidden by a profile override is still a broken file.
                for other in PROFILES:
                    if other != profile:
                        load_lane(path, other)
            _check_codes_free(lane, lanes)
        except LaneError as exc:
            errors.append(exc)
            continue
        lanes[lane.name] = lane
    return LaneSet(lanes, errors)


def _check_codes_free(lane: Lane, lanes: Mapping[str, Lane]) -> None:
    """Raise at the first code of `lane` that another loaded lane (not one it replaces) uses; a
    predicate inherited with its name and code from a lane it extends keeps the base's code."""
    owners = {spec.code: (other.name, spec.name, other.bases) for other in lanes.values() if other.name != lane.name
              for spec in other.predicates if not spec.hidden}
    for spec in lane.predicates:
        owner = owners.get(spec.code) if not spec.hidden else None
        if owner is not None and owner[1] == spec.name and (owner[0] in lane.bases or lane.name in owner[2]):
            continue  # inherited with its name: the base's code, whichever of the two loaded first
        if owner is not None:
            line, column = spec.code_at if spec.code_at[0] else (spec.line, 1)
            raise LaneError(lane.path, line, f"predicate {spec.name!r}: code {spec.code} is already used by "
                            f"predicate {owner[1]!r} of lane {owner[0]!r}", column)


# --- [casework]: a case-driven lane's views, values, metrics and details (evaluated by
# casework.CaseworkEvaluator in the engine) ------------------------------------------------


# Functions that need the lane (its predicates, its [analysis]), with what they do.
LANE_FUNCTION_DOCS: dict[str, str] = {
    "passes": "passes(t, 'name'): the lane's predicate `name` passes on turn `t` (the verdict is kept on the turn).",
    "reasons": "reasons(t, 'name'): the failing predicate's reasons (one per failed term), [] when it passes.",
    "share_present": "share_present(terms, text): share of terms that are substrings of the lower-cased text.",
    "sentences": "sentences(text): the sentences of the lane's [analysis] sentence_split, stripped, non-blank.",
    "starts_upper": "starts_upper(text, uncased): the first alphabetic character is upper-case (true when none); "
                    "a letter without case (Hebrew) fails, or with uncased \"pass\" passes, \"skip\" is skipped.",
}
LANE_FUNCTIONS = tuple(LANE_FUNCTION_DOCS)


@dataclass(frozen=True, slots=True)
class ViewSpec:
    name: str
    where: Expr | None
    surface: Expr | None
    grounding: Expr | None


@dataclass(frozen=True, slots=True)
class ValueSpec:
    name: str
    expr: Expr | None
    predicate: str | None
    view: str | None
    quantifier: str
    when: Expr | None
    otherwise: Expr | None
    failures: bool
    message: str | None  # added to `failures` when the value is false
    # `check`: the [[predicates]] entry a false value's finding is told as (its code, severity,
    # summary and `[severity]` keys), at the first record of view `at` (else the case's first
    # record), at that record's `field` when it has it.
    check: str | None = None
    at: str | None = None
    field: str | None = None
    # `without_case`: the check is judged on captures whose case is not given too (a case of
    # its id alone; engine/casework.py `CaseworkEvaluator.without_case_findings`).
    without_case: bool = False


@dataclass(frozen=True, slots=True)
class TurnValueSpec:
    """A value of every turn of a view (`t.name` in later expressions): a predicate's verdict
    or an expression over `t`, `case` and the turn values before it."""

    name: str
    view: str
    expr: Expr | None
    predicate: str | None
    when: Expr | None
    otherwise: Expr | None


_TURN_FIELDS = ("record", "case", "entry", "index", "surface", "grounding")


@dataclass(frozen=True, slots=True)
class CaseExample:
    """`[[casework.examples]]`: a case, its records and the values it must give (`lane test`)."""

    name: str
    case: Mapping[str, Any]
    records: tuple[Mapping[str, Any], ...]
    expect: Mapping[str, Any]
    index: int  # its entry in `[[casework.examples]]`


@dataclass(frozen=True)
class Casework:
    lane: Lane
    case_field: str  # the record field naming its case
    turn_list: str | None  # the case field listing per-turn expectations
    turn_key: str  # the record field indexing that list
    runs: Mapping[str, Expr | None]
    views: Mapping[str, ViewSpec]
    turn_values: tuple[TurnValueSpec, ...]
    values: tuple[ValueSpec, ...]
    metrics: tuple[CaseMetric, ...]
    details: Mapping[str, Expr]
    details_if: Mapping[str, Expr]  # a detail field is written only when its condition holds
    not_judged: tuple[str, ...]  # what the runner reads that a transcript does not hold
    # Which views each predicate is judged on (from the values and turn values that use it):
    # `check` holds a captured turn to a predicate only where the lane itself would.
    judged_on: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    examples: tuple[CaseExample, ...] = ()  # [[casework.examples]], run by `lane test`
    # [casework.from_report]: value name -> expression over `report` (a lane report's entry),
    # giving the value on a report entry where it cannot be recomputed (casework.report_outcome).
    from_report: Mapping[str, Expr] = field(default_factory=dict)

    @property
    def has_verdict(self) -> bool:
        """A value named `passed` is the case's verdict; a lane without one (its runner gives no
        per-case verdict) fails no case: its metrics and thresholds decide."""
        return any(v.name == "passed" for v in self.values)

    def subject_case(self, record: Mapping[str, Any], case: Mapping[str, Any] | None) -> dict[str, Any] | None:
        """What a predicate reads as the case for one captured turn: the case's fields, its entry
        for this turn (`entry`) and the record (`record`), as when the lane is scored."""
        if case is None:
            return None
        scope = dict(case)
        scope["entry"] = _entry_of(self, case, record)
        scope["record"] = record
        return scope

    def judges(self, predicate: str, record: Mapping[str, Any], case: Mapping[str, Any] | None) -> bool:
        """Whether the lane judges `predicate` on this captured turn: some run and some view the
        predicate is judged on select it (a predicate no value names, or a turn joined to no
        case, is judged everywhere)."""
        views = self.judged_on.get(predicate)
        if views is None or case is None:  # without its case a turn cannot be placed in a view
            return True
        scope = {"record": record, "case": case or {}, "entry": _entry_of(self, case or {}, record)}
        for run in self.runs.values():
            if run is not None and not _safe_holds(run, {"record": record, "case": case or {}}):
                continue
            for name in views:
                where = self.views[name].where
                if where is None or _safe_holds(where, scope):
                    return True
        return False


def _entry_of(casework: Casework, case: Mapping[str, Any], record: Mapping[str, Any]) -> Any:
    entries = resolve_path(case, casework.turn_list) if casework.turn_list else None
    key = record.get(casework.turn_key)
    if isinstance(entries, list) and isinstance(key, int) and not isinstance(key, bool) and 0 <= key < len(entries):
        return entries[key] if isinstance(entries[key], dict) else {}
    return {}


def _text_fields(casework: Casework) -> tuple[str, ...]:
    """The capture record fields a view reads as its turns' text: `surface` (a view's default)
    and every `record.NAME` of a view's `surface` expression."""
    import ast

    out: list[str] = []
    for view in casework.views.values():
        names = ["surface"] if view.surface is None else [
            n.attr for n in ast.walk(view.surface.tree)
            if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name) and n.value.id == "record"]
        out.extend(n for n in names if n not in out)
    return tuple(out or ["surface"])


def _safe_holds(expr: Expr, scope: Mapping[str, Any]) -> bool:
    try:
        return bool(expr.evaluate(scope))
    except (EvalFailure, RegexTimeout):
        return False


def _judged_on(values: Sequence[ValueSpec], turn_values: Sequence[TurnValueSpec],
               views: Mapping[str, ViewSpec], predicates: Sequence[str]) -> dict[str, tuple[str, ...]]:
    """Predicate -> the views it is judged on: a value's or turn value's `predicate` + `view`, and
    every predicate named (as a string) in an expression, with the views that expression names."""
    found: dict[str, list[str]] = {}

    def add(name: str, view: str) -> None:
        found.setdefault(name, [])
        if view not in found[name]:
            found[name].append(view)

    for spec in turn_values:
        named = [spec.predicate] if spec.predicate else (spec.expr.strings() & set(predicates) if spec.expr else set())
        for name in sorted(n for n in named if n):
            add(name, spec.view)
    for value in values:
        if value.predicate and value.view:
            add(value.predicate, value.view)
        elif value.expr is not None:
            in_views = sorted(value.expr.names & set(views))
            for name in sorted(value.expr.strings() & set(predicates)):
                for view in in_views:
                    add(name, view)
    return {k: tuple(v) for k, v in found.items()}


def _case_metrics(lane: Lane, entries: Sequence[tuple[SchemaPath, Mapping[str, Any]]], views: Mapping[str, ViewSpec],
                  fail_at: Callable[[SchemaPath, str], LaneError],
                  compile_at: Callable[[str, str, SchemaPath], Expr]) -> tuple[MetricSpec, ...]:
    """A case-driven lane's metrics (their threshold checks are the lane's threshold sets)."""
    metrics: list[MetricSpec] = []
    seen: set[str] = set()
    for path, item in entries:
        name = item["name"]
        what = f"metric {name!r}"
        kind = str(item.get("kind", "rate"))
        if name in seen:
            raise fail_at((*path, "name"), f"{what} is defined twice")
        problem = _metric_problem(item, True)
        if problem is not None:
            raise fail_at((*path, problem[0]), problem[1])
        if kind in ("sum", "rate", "mean", "min", "max", "value") and "value" not in item:
            raise fail_at(path, f"{what} ({kind}): needs a `value` expression")
        if kind == "counts" and not item.get("fields"):
            raise fail_at(path, f"{what} (counts): needs `fields`, a table of name = condition")
        per = str(item.get("per", "case"))
        if per != "case" and per not in views:
            raise fail_at((*path, "per"), f"{what}: `per` must be \"case\" or a view ({', '.join(views) or 'none'})")
        section = str(item.get("section", "metrics"))
        if section not in ("metrics", name):
            raise fail_at((*path, "section"), f"{what}: `section` {section!r} is neither \"metrics\" nor the "
                          f"metric's own name {name!r} (a section of its own); write one of those")
        if kind == "thresholds" and not item.get("checks"):
            raise fail_at(path, f"{what} (thresholds): needs `checks`")
        if "checks" in item and kind != "thresholds":
            raise fail_at((*path, "checks"), f"{what}: `checks` is for kind \"thresholds\"")
        where_key = "where" if "where" in item else "when"

        def opt(key: str, item: Mapping[str, Any] = item, what: str = what, path: SchemaPath = path) -> Expr | None:
            return compile_at(item[key], f"{what} `{key}`", (*path, key)) if key in item else None

        default_empty: Any = 1.0 if kind == "rate" else 0.0
        threshold_set = lane.thresholds.get(name) if kind == "thresholds" else None
        metrics.append(MetricSpec(
            name=name, kind=kind, value=opt("value"), where=opt(where_key), by=opt("by"), per=per,
            digits=item.get("digits", 4 if kind in ("rate", "mean") else None),
            rounding=item.get("round"),
            empty=None if item.get("empty_null") else item.get("empty", default_empty),
            fields={k: compile_at(v, f"{what} field {k!r}", (*path, "fields", k))
                    for k, v in item.get("fields", {}).items()},
            checks=threshold_set.checks if threshold_set is not None else (),
            skip_null=bool(item.get("skip_null", False)),
            section=section, report=bool(item.get("report", True)), better=str(item.get("better", "higher")),
            runner=bool(item.get("runner", True)), description=str(item.get("description", "")),
            aliases=tuple(item.get("aliases", ())),
        ))
        seen.add(name)
    return tuple(metrics)


def load_casework(lane: Lane) -> Casework | None:
    """The lane's `[casework]` (None when it has none): parse_lane builds it with the lane, so a
    broken reference or expression is a rules-file error like any other."""
    found = lane.casework
    return found if isinstance(found, Casework) else None


def parse_casework(lane: Lane, table: Mapping[str, Any], positions: LanePositions,
                   metric_entries: Sequence[tuple[SchemaPath, Mapping[str, Any]]] | None = None) -> Casework:
    """A case-driven lane's `[casework]`, with its metrics (`metric_entries`: each entry with
    where it is written, `[[metrics]]` or the old `[[casework.metrics]]`)."""

    def fail_at(path: SchemaPath, message: str) -> LaneError:
        shown, line, column = positions.locate(path)
        if shown != lane.path:  # an inherited key: say which file's merge broke it
            message = f"{message} (inherited by {lane.path}, which extends this file)"
        return LaneError(shown, line, message, column)

    def fail(path: tuple[str | int, ...], message: str) -> LaneError:
        return fail_at(("casework", *path), message)

    if metric_entries is None:
        metric_entries = [(("casework", "metrics", i), m) for i, m in enumerate(table.get("metrics", []))]
    metric_names = [str(m.get("name")) for _, m in metric_entries]
    if metric_names and lane.headline and lane.headline not in metric_names:
        shown, line, column = positions.locate(("lane", "headline"))
        raise LaneError(shown, line, f"headline {lane.headline!r} is not a metric of the lane", column)

    def compile_at(source: str, what: str, full: SchemaPath) -> Expr:
        shown, line, column = positions.locate(full)
        try:
            return Expr(source, LANE_FUNCTIONS, f"{shown}:{line}:{column}")
        except ExprError as exc:
            raise fail_at(full, f"{what}: {exc}") from None

    def compile_expr(source: str, what: str, path: tuple[str | int, ...]) -> Expr:
        shown, line, column = positions.locate(("casework", *path))
        try:
            return Expr(source, LANE_FUNCTIONS, f"{shown}:{line}:{column}")
        except ExprError as exc:
            raise fail(path, f"{what}: {exc}") from None

    def template(text: str, what: str, path: tuple[str | int, ...], allowed: Sequence[str], paths: bool) -> str:
        problem = template_problem(text, allowed, paths)
        if problem is not None:
            raise fail(path, f"{what}: {problem}")
        return text

    def opt(item: Mapping[str, Any], key: str, what: str, path: tuple[str | int, ...]) -> Expr | None:
        return compile_expr(item[key], f"{what} `{key}`", (*path, key)) if key in item else None

    def predicate_of(item: Mapping[str, Any], what: str, path: tuple[str | int, ...]) -> str | None:
        if "predicate" not in item:
            return None
        spec = lane.predicate(str(item["predicate"]))
        if spec is None:
            known = ", ".join(p.name for p in lane.predicates) or "none"
            raise fail((*path, "predicate"), f"{what}: unknown predicate {item['predicate']!r} (this lane's: {known})")
        return spec.name

    runs: dict[str, Expr | None] = {
        name: compile_expr(source, f"run {name!r}", ("runs", name)) for name, source in table.get("runs", {}).items()
    } or {"main": None}

    views: dict[str, ViewSpec] = {}
    for name, spec in table.get("views", {}).items():
        path: tuple[str | int, ...] = ("views", name)
        views[name] = ViewSpec(name, opt(spec, "where", f"view {name!r}", path),
                               opt(spec, "surface", f"view {name!r}", path),
                               opt(spec, "grounding", f"view {name!r}", path))

    def view_of(item: Mapping[str, Any], what: str, path: tuple[str | int, ...]) -> str:
        view = item.get("view")
        if view not in views:
            raise fail((*path, "view"), f"{what}: `view` must name one of the views ({', '.join(views) or 'none'})")
        return str(view)

    def one_of(item: Mapping[str, Any], what: str, path: tuple[str | int, ...]) -> None:
        if ("expr" in item) == ("predicate" in item):
            raise fail(path, f"{what}: give either `expr` or `predicate`")

    turn_values: list[TurnValueSpec] = []
    for index, item in enumerate(table.get("turn_values", [])):
        path = ("turn_values", index)
        what = f"turn value {item['name']!r}"
        one_of(item, what, path)
        if item["name"] in _TURN_FIELDS:
            raise fail((*path, "name"), f"{what}: every turn has this field ({', '.join(_TURN_FIELDS)})")
        turn_values.append(TurnValueSpec(
            name=item["name"], view=view_of(item, what, path), expr=opt(item, "expr", what, path),
            predicate=predicate_of(item, what, path), when=opt(item, "when", what, path),
            otherwise=opt(item, "otherwise", what, path),
        ))

    values: list[ValueSpec] = []
    names: set[str] = set(views)
    all_values = [str(v.get("name")) for v in table.get("values", [])]
    for index, item in enumerate(table.get("values", [])):
        path = ("values", index)
        name = item["name"]
        what = f"value {name!r}"
        one_of(item, what, path)
        if name in names or name in _SCOPE_NAMES:
            raise fail((*path, "name"), f"{what}: the name is already used (views, values and {', '.join(_SCOPE_NAMES)})")
        names.add(name)
        predicate = predicate_of(item, what, path)
        check, at = _value_check(lane, item, what, views, path, fail)
        values.append(ValueSpec(
            name=name, expr=opt(item, "expr", what, path), predicate=predicate,
            view=view_of(item, what, path) if predicate is not None else None,
            quantifier=str(item.get("quantifier", "all")), when=opt(item, "when", what, path),
            otherwise=opt(item, "otherwise", what, path), failures=bool(item.get("failures", False)),
            message=template(item["message"], f"{what} `message`", (*path, "message"),
                             [*_SCOPE_NAMES, *views, *all_values], True) if "message" in item else None,
            check=check, at=at, field=str(item["field"]) if "field" in item else None,
            without_case=item.get("without_case") is True,
        ))

    metrics = _case_metrics(lane, metric_entries, views, fail_at, compile_at)
    details = {key: compile_expr(source, f"detail {key!r}", ("details", key))
               for key, source in table.get("details", {}).items()}
    for key in table.get("details_if", {}):
        if key not in details:
            raise fail(("details_if", key), f"[casework.details_if]: `{key}` is not a field of [casework.details]")
    details_if = {key: compile_expr(source, f"details_if {key!r}", ("details_if", key))
                  for key, source in table.get("details_if", {}).items()}
    from_report: dict[str, Expr] = {}
    for key, source in table.get("from_report", {}).items():
        if key not in all_values:
            raise fail(("from_report", key), f"[casework.from_report]: `{key}` is not a value of [[casework.values]] "
                       f"({', '.join(all_values) or 'none'})")
        expr = compile_expr(source, f"from_report {key!r}", ("from_report", key))
        other = sorted(expr_reads(expr) - {"report"})
        if other:
            raise fail(("from_report", key), f"from_report {key!r}: reads `{other[0]}`; an expression of "
                       "[casework.from_report] reads only `report` (the report entry's fields)")
        from_report[key] = expr
    return Casework(
        lane=lane,
        case_field=str(table.get("case_field", "case_id")),
        turn_list=table.get("turn_list"),
        turn_key=str(table.get("turn_key", "turn_index")),
        runs=runs,
        views=views,
        turn_values=tuple(turn_values),
        values=tuple(values),
        metrics=tuple(metrics),
        details=details,
        details_if=details_if,
        not_judged=tuple(table.get("not_judged", [])),
        judged_on=_judged_on(values, turn_values, views, [p.name for p in lane.predicates]),
        examples=_case_examples(table, [v.name for v in values], fail),
        from_report=from_report,
    )


def expr_reads(expr: Expr) -> set[str]:
    """The names an expression reads from its scope: not a function it calls, a comprehension's
    own variables or a literal name (`true`, `null`, ...)."""
    bound = {n.id for n in ast.walk(expr.tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
    called = {n.func.id for n in ast.walk(expr.tree) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)}
    return expr.names - bound - called - set(LITERAL_NAMES)


def _value_check(lane: Lane, item: Mapping[str, Any], what: str, views: Mapping[str, ViewSpec],
                 path: tuple[str | int, ...], fail_at: Callable[[tuple[str | int, ...], str], LaneError],
                 ) -> tuple[str | None, str | None]:
    """A value's `check` (the predicate its finding is told as, by its canonical name) and `at`
    (the view whose first record the finding sits on); `at`, `field` and `without_case` need a
    `check`, a `check` needs a `message` (the finding's text)."""

    def fail(key: str, message: str) -> LaneError:
        return fail_at((*path, key), message)

    if "check" not in item:
        for key in ("at", "field", "without_case"):
            if key in item:
                does = "judges a `check` without its case" if key == "without_case" else "places the finding of a `check`"
                raise fail(key, f"{what}: `{key}` {does}; give `check` (a predicate of this lane) or leave `{key}` out")
        return None, None
    spec = lane.predicate(str(item["check"]))
    if spec is None or spec.hidden:
        known = ", ".join(p.name for p in lane.predicates if not p.hidden) or "none"
        close = difflib.get_close_matches(str(item["check"]), [p.name for p in lane.predicates if not p.hidden], n=1)
        hint = f"; did you mean {close[0]!r}?" if close else ""
        raise fail("check", f"{what}: `check` {item['check']!r} is not a predicate of this lane (its [[predicates]]: "
                            f"{known}){hint}")
    if "message" not in item:
        raise fail("check", f"{what}: a `check` needs a `message`, the text its finding says when the value is false")
    at = item.get("at")
    if at is not None and at not in views:
        raise fail("at", f"{what}: `at` must name one of the views ({', '.join(views) or 'none'})")
    return spec.name, (str(at) if at is not None else None)


def _case_examples(table: Mapping[str, Any], values: Sequence[str],
                   fail: Callable[[tuple[str | int, ...], str], LaneError]) -> tuple[CaseExample, ...]:
    out: list[CaseExample] = []
    for index, item in enumerate(table.get("examples", [])):
        unknown = [key for key in item["expect"] if key not in values]
        if unknown:
            raise fail(("examples", index, "expect"), f"example {item['name']!r}: `expect` names {unknown[0]!r}, not a "
                       f"value of this lane (its values: {', '.join(values) or 'none'})")
        out.append(CaseExample(str(item["name"]), item["case"], tuple(item["records"]), item["expect"], index))
    return tuple(out)


# Names every case scope has: a value may not take them.
_SCOPE_NAMES = ("case", "failures", "runs", "run", "metrics", "t")
# What a casework threshold check's `message` may name.
_THRESHOLD_PLACEHOLDERS = ("metric", "actual", "bound")


def template_problem(text: str, allowed: Sequence[str], paths: bool) -> str | None:
    """Why a message template cannot be rendered (None when it can). `paths`: a value's message,
    whose `{path}` placeholders are read from the case scope (`{case.min_sentences}`: the first
    name must be one the scope has); else a `str.format` template over the `allowed` names."""
    known = ", ".join(f"{{{n}}}" for n in allowed)
    if paths:
        i = 0
        while True:
            start = text.find("{", i)
            if start < 0:
                return None
            end = text.find("}", start)
            if end < 0:
                return f"`{{` at character {start + 1} is never closed (placeholders are `{{name}}`)"
            inner = text[start + 1 : end].strip()
            if not inner:
                return f"an empty placeholder `{{}}` at character {start + 1}"
            head = inner.split(".", 1)[0]
            if head not in allowed:
                return f"unknown placeholder `{{{inner}}}` (it may read: {known}, and their fields)"
            i = end + 1
    try:
        parsed = list(string.Formatter().parse(text))
    except ValueError as exc:
        return f"{exc} (write `{{{{` and `}}}}` for a literal brace)"
    for _, name, spec, _ in parsed:
        if name is None:
            continue
        if name not in allowed:
            shown = "{}" if name == "" else f"{{{name}}}"
            return f"unknown placeholder `{shown}` (it may use: {known})"
        if spec and "{" in spec:
            return f"a placeholder inside the format of `{{{name}}}` is not supported"
    try:
        text.format(**{n: 0.5 for n in allowed})
    except (ValueError, TypeError) as exc:
        return f"cannot be formatted with a number: {exc}"
    return None


def format_message(template: str, **values: Any) -> str:
    """A checked `str.format` template rendered; a value its format does not fit (a null where
    the template says `{actual:.2f}`) is written plainly instead, never an error."""
    try:
        return template.format(**values)
    except (ValueError, TypeError, KeyError, IndexError):
        out: list[str] = []
        for literal, name, _, _ in string.Formatter().parse(template):
            out.append(literal)
            if name is not None:
                out.append(str(values.get(name)))
        return "".join(out)


def load_lane_document(path: Path, profile: str = DEFAULT_PROFILE) -> tuple[Lane, dict[str, Any], LanePositions]:
    """`load_lane`, with the merged document (its `extends` resolved) and where each key was
    written, from one read and one parse: what `lane test` needs to point at an example."""
    if profile not in PROFILES:
        raise LaneError(str(path), 1, f"unknown profile {profile!r} (expected one of {PROFILES})")
    shown = str(path)
    data, positions = _document(_read_rules(path), shown)
    trusted = path.resolve().parent == builtin_rules_dir().resolve()
    return _build_lane(data, positions, shown, profile, trusted), data, positions
