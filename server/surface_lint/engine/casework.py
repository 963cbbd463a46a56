"""Case-driven lanes (issue 9): several captured turns per case, a verdict per case from
predicates and expressions, metrics over cases or turns, per-case details as a runner reports.

A lane file adds a `[casework]` table to its usual `[lane]`, `[case_schema]` and
`[[predicates]]` (docs/lanes/README.md is the reference):

* `runs` — record filters, one per pass the runner makes over a case (default: one run of
  every record). The whole rubric is applied to each run; the first run gives the details.
* `views` — named selections of a run's records (`where`), each turn's text (`surface`) and
  grounding (`grounding`) as expressions.
* `[[casework.values]]` — named per-case values in order: an `expr`, or a `predicate` judged
  on every turn of a `view` with a `quantifier`; `when` gates it, `failures = true` adds the
  failing verdicts' reasons to the case's `failures` list.
* `[[casework.metrics]]` — count, sum, rate, mean, counts, value, thresholds; over cases or
  a view's turns (`per`), a subset (`where`), per category (`by`), rounded to `digits`.
* `[casework.details]` — the per-case record, field = expression.

Captures are read as they are (the runtime's turn records: `case_id`, `turn_index`, `role`,
`chain`, `surface`, `grounding_source`, ...); no reader mapping is needed.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from ..model.checks import CHECK_CODES as C
from ..rules.expressions import FUNCTIONS, Budget, EvalFailure, Expr, ExprError, Reads, Recording, recording, resolve_path
from ..rules.kinds import extra as kinds_extra
from ..rules.kinds.core import PASS, Context, RegexTimeout, Subject, Verdict
from ..rules.loader import LANE_FUNCTION_DOCS as LANE_FUNCTION_DOCS
from ..rules.loader import LANE_FUNCTIONS as LANE_FUNCTIONS
from ..rules.loader import CaseMetric as CaseMetric
from ..rules.loader import Casework as Casework
from ..rules.loader import ThresholdSet, _entry_of, _text_fields, expr_reads, json_type_ok
from ..rules.loader import ThresholdSpec as ThresholdSpec
from ..rules.loader import TurnValueSpec as TurnValueSpec
from ..rules.loader import ValueSpec as ValueSpec
from ..rules.loader import ViewSpec as ViewSpec
from ..rules.loader import format_message as format_message
from ..rules.loader import load_casework as load_casework
from ..rules.loader import parse_casework as parse_casework
from ..rules.loader import template_problem as template_problem
from ..sources.transcripts import typed_report_entry
from .scoring import check_thresholds


@dataclass(frozen=True, slots=True)
class CaseError:
    """A case the lane could not judge, or a problem of one of its values: `code` (SL019 an
    expression failed, SL020 past the evaluation budget, SL021 a detail that is not JSON, SL003 a
    wrong-typed capture field), the message, and where the lane file wrote the expression
    (`file:line:column`, empty for a field of the data). `record` is the capture record (and
    `field` its key) a field problem is at; None for the case as a whole."""

    code: str
    message: str
    location: str = ""
    record: Mapping[str, Any] | None = field(default=None, compare=False, repr=False)
    field: str | None = None


RECORD_FIRST = 0.25  # share of failing cases past which a case's first evaluation records its reads


def _failure(exc: EvalFailure) -> CaseError:
    return CaseError(C.EXPR_BUDGET if exc.budget else C.EXPR_ERROR, exc.message, exc.expr.where)


def judges_without_case(casework: Casework) -> bool:
    """Whether a value of the lane's is judged on captures whose case is not given (`without_case`)."""
    return any(spec.without_case for spec in casework.values)


def checked_predicates(casework: Casework | None) -> tuple[str, ...]:
    """The predicates the lane's values name as their `check`, in the values' order, once each."""
    if casework is None:
        return ()
    return tuple(dict.fromkeys(spec.check for spec in casework.values if spec.check is not None))


def category_order(key: Any) -> tuple[int, str, Any]:
    """The order of a `by` metric's categories: values of one type in their own order, types by
    name (booleans, numbers, strings), and null (a case without the field) last."""
    if key is None:
        return (1, "", 0)
    if isinstance(key, bool):
        return (0, "0bool", int(key))
    if isinstance(key, (int, float)):
        return (0, "1number", key) if key == key else (0, "1number~", 0)  # NaN after the numbers
    if isinstance(key, str):
        return (0, "2string", key)
    return (0, "3" + type(key).__name__, repr(key))


def category_key(key: Any) -> str:
    """A category as a metric table names it: its JSON key (`"x"`, `"3"`, `"true"`, `"null"` for a
    case without the field), so every report and comparison reads one text key."""
    if isinstance(key, str):
        return key
    if key is None:
        return "null"
    if isinstance(key, bool):
        return "true" if key else "false"
    return str(key)


def json_problem(value: Any) -> str | None:
    """Why `value` is not a JSON value (None when it is)."""
    stack = [value]
    while stack:
        item = stack.pop()
        if item is None or isinstance(item, (bool, str, int)):
            continue
        if isinstance(item, float):
            if not math.isfinite(item):
                return f"the number {item} is not a JSON number"
            continue
        if isinstance(item, dict):
            bad = next((k for k in item if not isinstance(k, str)), _NO_KEY)
            if bad is not _NO_KEY:
                return f"an object key must be a string, not {_shown(bad)}"
            stack.extend(item.values())
            continue
        if isinstance(item, (list, tuple)):
            stack.extend(item)
            continue
        return f"a {type(item).__name__} is not a JSON value"
    return None


_NO_KEY = object()
_PLAIN = frozenset({str, int, bool, type(None)})  # values that are JSON as they are (a float may not be)


# --- evaluation ------------------------------------------------------------------------


class _Turn(dict[str, Any]):
    """One captured turn as expressions see it: `t.surface`, `t.grounding`, `t.record.x`,
    `t.entry.x` (the case's entry for this turn in `turn_list`), `t.index` (position in its view)."""

    __slots__ = ("verdicts",)
    verdicts: dict[str, Verdict]  # set by `_views`, which makes every turn (dict's own constructor: no __init__ of ours)


@dataclass
class CaseOutcome:
    case_id: str
    passed: bool
    values: dict[str, Any]  # the first run's values
    runs: dict[str, dict[str, Any]]  # every run's values by run name
    failures: list[str]
    details: dict[str, Any]
    turns: int  # capture records joined to this case
    case: Mapping[str, Any] = field(default_factory=dict, repr=False)
    views: dict[str, list[Any]] = field(default_factory=dict, repr=False)  # the first run's turns
    # The expression that failed (SL019) or ran past the budget (SL020): the case is not judged,
    # `passed` is False, the values from that one on are null.
    error: CaseError | None = None
    # Findings that leave the verdict as it is: a detail that is not JSON (SL021, written as
    # null), a capture field of the wrong type (SL003, read as null).
    problems: list[CaseError] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class Blame:
    """One reason a case fails: the value it came from and, when it is a turn's, that turn's
    record (`record`), the predicate whose verdict failed (`predicate`, `verdict`) and the text
    the turn was judged on (`surface`); else `message` says what is false."""

    value: str
    record: Mapping[str, Any] | None
    predicate: str | None
    verdict: Verdict | None
    message: str
    surface: str | None = None
    code: str | None = None  # the finding's code when it is not SL018 (SL019/SL020/SL021/SL003)
    field: str | None = None  # the record's key the finding is at (a wrong-typed field)


@dataclass
class CaseTrace:
    """Where the first run's values and `failures` came from (`evaluate_case(..., trace)`)."""

    values: dict[str, Any] = field(default_factory=dict)
    gated: set[str] = field(default_factory=set)  # values whose `when` was false
    failing: dict[str, list[Blame]] = field(default_factory=dict)  # predicate value -> its failing turns
    failures: list[Blame] = field(default_factory=list)  # each `failures` entry's provenance
    views: dict[str, list[Any]] = field(default_factory=dict)
    case: Mapping[str, Any] = field(default_factory=dict)


def _check_blame(spec: ValueSpec, trace: CaseTrace, message: str) -> Blame:
    """A false value with a `check`: its predicate's finding, said by the value's message, on the
    first record of view `at` (none: the case's first record), at `field` when that record has it."""
    turns = trace.views.get(spec.at, []) if spec.at is not None else []
    record = turns[0]["record"] if turns else None
    assert spec.check is not None
    return Blame(spec.name, record, spec.check, Verdict(False, message=message, target=spec.field), message)


def _turn_blame(value: str, t: _Turn, predicate: str) -> Blame:
    verdict = t.verdicts.get(predicate)
    return Blame(value, t["record"], predicate, verdict, verdict.message if verdict is not None else "",
                 t["surface"])


class _ReadIndex:
    """What each value's and turn value's evaluation read (`caseexpr.recording`): a value's
    first evaluation (the first run's), a turn value's on each turn."""

    def __init__(self, log: Sequence[Reads]) -> None:
        self._values: dict[int, Reads] = {}
        self._turns: dict[tuple[int, int], Reads] = {}
        for reads in log:
            self._values.setdefault(id(reads.expr), reads)
            turn = reads.scope.get("t")
            if isinstance(turn, _Turn):
                self._turns.setdefault((id(reads.expr), id(turn)), reads)

    def of(self, expr: Expr) -> Reads | None:
        return self._values.get(id(expr))

    def of_turn(self, expr: Expr, turn: _Turn) -> Reads | None:
        return self._turns.get((id(expr), id(turn)))

    @staticmethod
    def deciding(read: Reads, facts: set[str]) -> Reads:
        """`read` with the operands an `and`/`or` stopped before that decide it too: those
        stopped by a check (an operand reading more than `facts`, the values of case fields
        alone, `case` and `entry`), not by a guard (`not control and b`)."""
        out = Reads(read.expr, read.scope)
        out.names, out.fields, out.calls = set(read.names), set(read.fields), read.calls
        for stopped_by, names, fields in read.peeks:
            if stopped_by - facts - FUNCTIONS.keys() - set(LANE_FUNCTIONS):
                out.names |= names
                out.fields |= fields
        return out


@functools.lru_cache(maxsize=1024)  # by the expression's identity: its tree never changes
def _negated_names(expr: Expr) -> frozenset[str]:
    """The names an expression reads under an odd number of `not`s (`not x`, `not (a or x)`)."""
    import ast

    out: set[str] = set()

    def walk(node: ast.AST, negated: bool) -> None:
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            negated = not negated
        elif isinstance(node, ast.Name) and negated:
            out.add(node.id)
        for child in ast.iter_child_nodes(node):
            walk(child, negated)

    walk(expr.tree, False)
    return frozenset(out)


def _is_scalar(value: Any) -> bool:
    return value is None or isinstance(value, (bool, int, float, str))


def _shown(value: Any) -> str:
    import json

    if isinstance(value, str) and len(value) > 60:
        value = value[:59] + "…"
    return json.dumps(value, ensure_ascii=False) if _is_scalar(value) else type(value).__name__


class CaseworkEvaluator:
    """Evaluates one lane's casework; predicates are the lane's own [[predicates]]."""

    def __init__(self, casework: Casework) -> None:
        self.casework = casework
        self.lane = casework.lane
        self._budget = Budget()
        self._has_verdict = casework.has_verdict  # once, not per case
        self._text_fields = _text_fields(casework)
        self._originals: dict[int, Mapping[str, Any]] = {}  # a sanitised record copy -> the record
        # What the metrics' own expressions failed on: (case id, or None for a `value` metric
        # over the metrics, and the failure); the item is left out of that metric.
        self.metric_errors: list[tuple[str | None, CaseError]] = []
        self._reported: set[tuple[str | None, str]] = set()
        # Cases judged and failed so far by `case_findings`: past RECORD_FIRST of them failing, a
        # case is evaluated recording what it reads from the start (see there).
        self._judged = 0
        self._failed = 0
        # What a failing case's explanation may read the reads of: the expressions of the values
        # `passed` can lead to (`_explained`), and of every turn value.
        explained = _explained(casework.values)
        self._recorded_exprs = [e for v in casework.values for e in (v.expr,) if e is not None and v.name in explained]
        self._recorded_exprs += [e for v in casework.turn_values for e in (v.expr,) if e is not None]
        self._functions = self.functions()  # one table for every case (its entries read `self` when called)
        # Each expression evaluated with those functions and the case's budget (`_budget`, reset
        # for each case), its set-up done once (`Expr.bind`).
        self._bound: dict[Expr, Callable[[Mapping[str, Any]], Any]] = {}

    def _eval(self, expr: Expr, scope: Mapping[str, Any], fns: Mapping[str, Callable[..., Any]]) -> Any:
        bound = self._bound.get(expr)
        if bound is None:
            bound = self._bound[expr] = expr.bind(self._functions, self._budget)
        return bound(scope)

    # Lane functions: expressions call these with the turn and a predicate name.
    def passes(self, turn: Any, name: str) -> bool:
        return self._verdict(turn, name).passed

    def reasons(self, turn: Any, name: str) -> list[str]:
        verdict = self._verdict(turn, name)
        if verdict.passed:
            return []
        return list(getattr(verdict, "reasons", ()) or (verdict.message,))

    def _verdict(self, turn: Any, name: str) -> Verdict:
        if not isinstance(turn, _Turn):
            raise ExprError(f"passes()/reasons() need a turn of a view, not {type(turn).__name__}")
        found = turn.verdicts.get(name)
        if found is not None:
            return found
        spec = self.lane.predicate(name)
        if spec is None:
            raise ExprError(f"unknown predicate {name!r}")
        scope = dict(turn["case"] or {})
        scope["entry"] = turn["entry"]
        scope["record"] = turn["record"]
        subject = Subject(surface=turn["surface"], grounding=turn["grounding"], case=scope)
        try:
            judged = spec.evaluate(Context(subject, self.lane.analysis))
        except RegexTimeout:
            judged = Verdict(False, message=f"a pattern of `{name}` ran past its time limit", timed_out=True)
        # A rule with nothing to judge in this case (NOT_JUDGED) fails nothing, as in `check`.
        verdict = PASS if judged is None else judged
        turn.verdicts[spec.name] = verdict
        return verdict

    def functions(self) -> dict[str, Callable[..., Any]]:
        return {
            "passes": self.passes,
            "reasons": self.reasons,
            "share_present": lambda terms, text: kinds_extra.share_present(terms, text or ""),
            "sentences": lambda text: kinds_extra.sentences(text or "", self.lane.analysis.sentence_split),
            "starts_upper": lambda text, uncased="fail": kinds_extra.first_alpha_is_upper(text or "", uncased),
        }

    def _views(self, case: Mapping[str, Any], records: Sequence[Mapping[str, Any]]) -> dict[str, list[_Turn]]:
        cw = self.casework
        fns = self._functions
        out: dict[str, list[_Turn]] = {}
        # A record's entry and scope, once for all views (expressions never change a scope).
        scoped = []
        for record in records:
            entry = _entry_of(cw, case, record)
            scoped.append((record, entry, {"record": record, "case": case, "entry": entry}))
        ev = self._eval
        for view in cw.views.values():
            turns: list[_Turn] = []
            where, surface_of, grounding_of = view.where, view.surface, view.grounding
            holds = self._bound.get(where) if where is not None else None
            if holds is None and where is not None:
                holds = self._bound[where] = where.bind(fns, self._budget)
            for record, entry, scope in scoped:
                if holds is not None and not holds(scope):
                    continue
                surface = ev(surface_of, scope, fns) if surface_of is not None else record.get("surface")
                grounding = ev(grounding_of, scope, fns) if grounding_of is not None else record.get("grounding_source")
                turn = _Turn(record=record, case=case, entry=entry, index=len(turns),
                             surface=surface if isinstance(surface, str) else "",
                             grounding="none" if grounding is None else str(grounding))
                turn.verdicts = {}
                turns.append(turn)
            out[view.name] = turns
        for spec in cw.turn_values:
            for t in out[spec.view]:
                scope = {"t": t, "case": case, "entry": t["entry"], "record": t["record"]}
                if spec.when is not None and not self._eval(spec.when, scope, fns):
                    t[spec.name] = self._eval(spec.otherwise, scope, fns) if spec.otherwise is not None else None
                elif spec.expr is not None:
                    t[spec.name] = self._eval(spec.expr, scope, fns)
                else:
                    assert spec.predicate is not None
                    t[spec.name] = self.passes(t, spec.predicate)
        return out

    def evaluate_case(self, case: Mapping[str, Any], records: Sequence[Mapping[str, Any]],
                      trace: CaseTrace | None = None) -> CaseOutcome:
        """One case's values, details and verdict; `trace` (when given) records where the first
        run's values and `failures` came from (`case_findings`). Never raises for what the lane
        file or the data get wrong: an expression that fails (or runs past the budget) is the
        outcome's `error` (the case fails, later values are null); a detail that is not JSON and
        a wrong-typed field are its `problems`. Only a pattern's character budget (RegexTimeout,
        SL013: the case is not judged) passes through."""
        cw = self.casework
        fns = self._functions
        self._budget.reset()  # the case's budget: as a new one, and the one `_bound` evaluates with
        problems: list[CaseError] = []
        case = self._typed_case(case)
        records = [self._typed_record(r, problems) for r in records]
        runs: dict[str, dict[str, Any]] = {}
        first_scope: dict[str, Any] = {}
        first_views: dict[str, list[_Turn]] = {}
        error: CaseError | None = None
        try:
            for run_name, run_filter in cw.runs.items():
                selected = [r for r in records
                            if run_filter is None or self._eval(run_filter, {"record": r, "case": case}, fns)]
                failures: list[str] = []
                produced: dict[str, Any] = {spec.name: None for spec in cw.values}
                produced["failures"] = failures
                run_trace = trace if trace is not None and not runs else None  # the first run is the case's verdict
                runs[run_name] = produced
                views = self._views(case, selected)
                scope: dict[str, Any] = {"case": case, **views, "failures": failures, "runs": runs, "run": run_name}
                if len(runs) == 1:
                    first_scope, first_views = scope, views
                if run_trace is not None:
                    run_trace.views, run_trace.case = views, case
                for spec in cw.values:
                    value = self._value(spec, scope, views, failures, fns, run_trace)
                    scope[spec.name] = value
                    produced[spec.name] = value
                produced["failures"] = list(failures)
        except EvalFailure as exc:
            error = _failure(exc)
        for produced in runs.values():
            produced["failures"] = list(produced["failures"])
        details: dict[str, Any] = {}
        for key, expr in cw.details.items():
            try:
                if key in cw.details_if and not self._eval(cw.details_if[key], first_scope, fns):
                    continue
                value = self._eval(expr, first_scope, fns)
            except EvalFailure as exc:
                if error is None:  # a detail cannot be computed: the case is not judged either
                    error = _failure(exc)
                details[key] = None
                continue
            if type(value) in _PLAIN:  # text, an integer, a flag or null: JSON as it is
                details[key] = value
                continue
            value = _jsonable(value)
            problem = json_problem(value)
            if problem is not None:
                problems.append(CaseError(C.DETAIL_VALUE, f"detail `{key}` (expression `{expr.shown()}`, {expr.where}) "
                                          f"is not a JSON value: {problem}; written as null", expr.where))
                value = None
            details[key] = value
        first: dict[str, Any] = next(iter(runs.values()), {"failures": []})
        case_id = str(case.get(self.lane.schema.id_field, ""))
        passed = error is None and (bool(first.get("passed", False)) if self._has_verdict else True)
        return CaseOutcome(case_id, passed, first, runs, list(first["failures"]),
                           details, len(records), case, first_views, error, problems)

    def _typed_case(self, case: Mapping[str, Any]) -> Mapping[str, Any]:
        """The case as expressions read it: a field the schema types, given another type, is absent
        (the case file's SL003 reports it)."""
        fields = self.lane.schema.fields
        if not fields or all(k not in fields or json_type_ok(v, fields[k].type) for k, v in case.items()):
            return case
        from ..sources.cases import typed_case_fields

        return typed_case_fields(self.lane, case)

    def _typed_record(self, record: Mapping[str, Any], problems: list[CaseError]) -> Mapping[str, Any]:
        """A capture record as expressions read it: a text field (`surface`, or what a view's
        `surface` reads as `record.NAME`) that is not a string or null is null, and a problem."""
        wrong = [k for k in self._text_fields if k in record and record[k] is not None and not isinstance(record[k], str)]
        if not wrong:
            return record
        from ..sources.base import json_type

        for key in wrong:
            problems.append(CaseError(C.WRONG_TYPE, f"`{key}` must be a string or null, not {json_type(record[key])}",
                                      "", record, key))
        copy = {k: (None if k in wrong else v) for k, v in record.items()}
        self._originals[id(copy)] = record
        return copy

    def _value(self, spec: ValueSpec, scope: Mapping[str, Any], views: Mapping[str, list[_Turn]],
               failures: list[str], fns: Mapping[str, Callable[..., Any]], trace: CaseTrace | None = None) -> Any:
        if spec.when is not None and not self._eval(spec.when, scope, fns):
            if trace is not None:
                trace.gated.add(spec.name)
            return self._eval(spec.otherwise, scope, fns) if spec.otherwise is not None else None
        value = self._judge(spec, scope, views, failures, fns, trace)
        if spec.message is not None and value is False:
            failures.append(_render(spec.message, scope))
            if trace is not None:
                trace.failures.append(Blame(spec.name, None, None, None, failures[-1]))
        if trace is not None:
            trace.values[spec.name] = value
        return value

    def _judge(self, spec: ValueSpec, scope: Mapping[str, Any], views: Mapping[str, list[_Turn]],
               failures: list[str], fns: Mapping[str, Callable[..., Any]], trace: CaseTrace | None = None) -> Any:
        if spec.expr is not None:
            value = self._eval(spec.expr, scope, fns)
            if spec.failures and isinstance(value, list):
                failures.extend(str(v) for v in value)
                if trace is not None:
                    trace.failures.extend(Blame(spec.name, None, None, None, str(v)) for v in value)
            return value
        assert spec.predicate is not None and spec.view is not None
        turns = views[spec.view]
        results = [self.passes(t, spec.predicate) for t in turns]
        failing = [t for t, ok in zip(turns, results, strict=True) if not ok]
        if trace is not None:
            trace.failing[spec.name] = [_turn_blame(spec.name, t, spec.predicate) for t in failing]
        if spec.failures:
            for t in failing:
                failures.extend(self.reasons(t, spec.predicate))
                if trace is not None:
                    trace.failures.append(_turn_blame(spec.name, t, spec.predicate))
        if spec.quantifier == "all":
            return all(results)
        if spec.quantifier == "any":
            return any(results)
        if spec.quantifier == "count":
            return sum(results)
        if spec.quantifier == "first":
            return results[0] if results else None
        return results

    # --- what makes a case fail (`check`) ------------------------------------------------

    def case_findings(self, case: Mapping[str, Any],
                      records: Sequence[Mapping[str, Any]]) -> tuple[CaseOutcome, list[Blame]]:
        """The case's outcome, as `score` gives it, and what makes it fail: nothing when it
        passes (but the problems its evaluation met: SL003, SL021); not judged (SL019, SL020): that
        failure; else what the verdict `passed` read on the path its evaluation took (a branch
        not taken reads nothing), followed down: the `failures` entries before it, each false
        value it read (a true one it negates) to what that value read, each failing predicate
        verdict and false turn value read. A false value with a `message` is that message, at
        the turns that made it false. A value with no turn of its own is a case-level blame
        (`record` None: the caller puts it at the case's first turn)."""
        exprs = self._recorded_exprs
        self._originals = {}
        # A failing case is explained from an evaluation that recorded what it read. Evaluation is
        # deterministic, so recording changes no value: when most cases so far failed, the first
        # evaluation records (a passing case pays the recording), else a failing case is evaluated
        # again, recording. Either way the outcome and the blames are the same.
        trace: CaseTrace | None = None
        noted: Recording | None = None
        if self._failed > self._judged * RECORD_FIRST:
            trace = CaseTrace()
            with recording(exprs) as noted:
                outcome = self.evaluate_case(case, records, trace)
        else:
            outcome = self.evaluate_case(case, records)
        self._judged += 1
        problems = [Blame("", self._originals.get(id(p.record), p.record) if p.record is not None else None,
                          None, None, p.message, None, p.code, p.field) for p in outcome.problems]
        if outcome.error is not None:  # not judged: the failure is the reason, whatever was false before it
            error = outcome.error
            return outcome, [Blame("", None, None, None, error.message, None, error.code), *problems]
        if outcome.passed:
            return outcome, problems
        self._failed += 1
        if trace is None or noted is None:  # evaluated again, noting what is read
            trace = CaseTrace()
            with recording(exprs) as noted:
                outcome = self.evaluate_case(case, records, trace)
        reads = _ReadIndex(noted.log)
        blames: list[Blame] = []
        seen: set[tuple[str, int, str | None]] = set()
        for blame in self._explain("passed", trace, set(), reads):
            key = (blame.value if blame.record is None else "", id(blame.record), blame.predicate or blame.message)
            if key not in seen:
                seen.add(key)
                original = self._originals.get(id(blame.record)) if blame.record is not None else None
                blames.append(blame if original is None else replace(blame, record=original))
        return outcome, [*blames, *problems]

    def without_case_findings(self, case_id: str,
                              records: Sequence[Mapping[str, Any]]) -> tuple[CaseOutcome, list[Blame]]:
        """A case whose case record is not given (no case file, or an id the case files do not
        hold), judged on a case of its id alone (every other `case.X` null): each `without_case`
        check value that is false (not gated off by its `when`) is its predicate's finding, as
        `case_findings` places it; `passed` and the other values give nothing. An expression that
        fails (SL019) or runs past the budget (SL020) before every `without_case` value is
        computed is that failure; the capture problems (SL003, SL021) are left to the turns'
        own findings and to a check given the cases."""
        self._originals = {}
        trace = CaseTrace()
        outcome = self.evaluate_case({self.lane.schema.id_field: case_id}, records, trace)
        blames: list[Blame] = []
        checks = [spec for spec in self.casework.values if spec.without_case]
        if outcome.error is not None and any(spec.name not in trace.values for spec in checks):
            blames.append(Blame("", None, None, None, outcome.error.message, None, outcome.error.code))
        for spec in checks:
            message = None if spec.name in trace.gated else self._message_of(spec, trace)
            if message is not None:
                blame = _check_blame(spec, trace, message)
                original = self._originals.get(id(blame.record)) if blame.record is not None else None
                blames.append(blame if original is None else replace(blame, record=original))
        return outcome, blames

    def _explain(self, name: str, trace: CaseTrace, open_names: set[str], reads: _ReadIndex) -> list[Blame]:
        """Why value `name` is what made the case fail (false or null; true where it is negated)."""
        spec = self._value_specs().get(name)
        if spec is None or name in trace.gated or name in open_names:
            return []
        found = self._why(spec, trace, open_names | {name}, reads)
        message = self._message_of(spec, trace)
        if message is None:
            return found
        if spec.check is not None:
            return [_check_blame(spec, trace, message)]
        # The value's own words say why, at the capture lines that made it false.
        at = list(dict.fromkeys(id(b.record) for b in found if b.record is not None))
        by_id = {id(b.record): b.record for b in found if b.record is not None}
        return [Blame(name, by_id[i], None, None, message) for i in at] or [Blame(name, None, None, None, message)]

    def _message_of(self, spec: ValueSpec, trace: CaseTrace) -> str | None:
        """The rendered `message` of a value that is false (the text it added to `failures`)."""
        if spec.message is None or trace.values.get(spec.name) is not False:
            return None
        own = [b for b in trace.failures if b.value == spec.name and b.record is None]
        return own[-1].message if own else None

    def _why(self, spec: ValueSpec, trace: CaseTrace, open_names: set[str], reads: _ReadIndex) -> list[Blame]:
        name = spec.name
        value = trace.values.get(name)
        if spec.predicate is not None:
            turns = trace.views.get(spec.view or "", [])
            if value:  # true where it is negated: the turn that passes
                passing = [t for t in turns if spec.predicate in t.verdicts and t.verdicts[spec.predicate].passed]
                return [Blame(name, t["record"], None, None, f"`{name}` is {_shown(value)}: turn {t['index']} of view "
                              f"`{spec.view}` passes `{spec.predicate}`") for t in passing[:1]]
            found = list(trace.failing.get(name, []))
            if spec.quantifier == "first":  # only the first turn decides it
                found = [b for b in found if turns and b.record is turns[0]["record"]]
            return found or [Blame(name, None, None, None,
                                   f"`{name}` is {_shown(value)}: no turn of view `{spec.view}` passes `{spec.predicate}`")]
        assert spec.expr is not None
        judging = self._judging(reads)
        facts = {v.name for v in self.casework.values} - judging | {"case", "entry"}
        read = reads.of(spec.expr)
        read = reads.deciding(read, facts) if read is not None else None
        names = read.names if read is not None else set()
        out: list[Blame] = []
        negated = _negated_names(spec.expr)
        order = {v.name: i for i, v in enumerate(self.casework.values)}
        for named in sorted(names):
            if named == "failures":  # what entered `failures` before this value was evaluated
                for blame in trace.failures:
                    if order.get(blame.value, len(order)) < order[name]:
                        out.extend(self._failure(blame, trace, open_names, reads))
            elif named in judging and named in trace.values:
                read_value = trace.values[named]
                if read_value is False or read_value is None or (named in negated and read_value):
                    out.extend(self._explain(named, trace, open_names, reads))
        if read is not None:
            out.extend(self._verdicts_read(name, read, trace.views, reads))
        if out:
            return out
        own = [b for b in trace.failures if b.value == name and b.record is None]
        if own:  # its `message` (or list) went to `failures`: that text says why
            return own
        shown_reads = [(n, trace.values[n]) for n in sorted(names) if n in trace.values and n != name]
        if read is not None:
            shown_reads += [(f"case.{f}", trace.case.get(f)) for f in sorted({f for i, f in read.fields if i == id(trace.case)})]
        shown = ", ".join(f"{n} = {_shown(v)}" for n, v in shown_reads if _is_scalar(v))
        text = " ".join(spec.expr.text.split())
        text = text if len(text) <= 160 else text[:159] + "…"
        return [Blame(name, None, None, None, f"`{name}` is {_shown(value)}: {text}" + (f" ({shown})" if shown else ""))]

    def _failure(self, blame: Blame, trace: CaseTrace, open_names: set[str], reads: _ReadIndex) -> list[Blame]:
        """A `failures` entry: a value's `message` at the turns that made the value false."""
        spec = self._value_specs().get(blame.value)
        if blame.record is not None or spec is None or spec.message is None or blame.value in open_names:
            return [blame]
        placed = self._explain(blame.value, trace, open_names, reads)
        return [b for b in placed if b.message == blame.message] or [blame]

    def _verdicts_read(self, name: str, read: Reads, views: Mapping[str, list[_Turn]], reads: _ReadIndex,
                       open_turns: frozenset[tuple[int, str]] = frozenset()) -> list[Blame]:
        """The failing predicate verdicts and false turn values an evaluation read, turn by turn."""
        out: list[Blame] = []
        called = {(turn, predicate) for fn, turn, predicate in read.calls if fn in ("passes", "reasons") and predicate}
        for view in sorted(views):
            for t in views[view]:
                for tv in self.casework.turn_values:
                    key = (id(t), tv.name)
                    if tv.view == view and t.get(tv.name) is False and key in read.fields and key not in open_turns:
                        out.extend(self._explain_turn(t, tv, reads, open_turns | {key}))
                for predicate in sorted(p for i, p in called if i == id(t)):
                    verdict = t.verdicts.get(predicate)
                    if verdict is not None and not verdict.passed:
                        out.append(_turn_blame(name, t, predicate))
        return out

    def _explain_turn(self, t: _Turn, spec: TurnValueSpec, reads: _ReadIndex,
                      open_turns: frozenset[tuple[int, str]] = frozenset()) -> list[Blame]:
        """Why turn value `spec` is false on turn `t`: its predicate's verdict, else the failing
        verdicts (and false turn values) its expression read on `t`, on the path it took, else
        the turn value itself (at the turn's record)."""
        found: list[Blame] = []
        if spec.predicate is not None:
            verdict = t.verdicts.get(spec.predicate)
            if verdict is not None and not verdict.passed:
                found = [_turn_blame(spec.name, t, spec.predicate)]
        elif spec.expr is not None:
            read = reads.of_turn(spec.expr, t)
            if read is not None:
                read = reads.deciding(read, {"case", "entry"})
                found = self._verdicts_read(spec.name, read, {spec.view: [t]}, reads, open_turns | {(id(t), spec.name)})
        return found or [Blame(spec.name, t["record"], None, None, f"turn value `{spec.name}` is false")]

    def _value_specs(self) -> dict[str, ValueSpec]:
        return {v.name: v for v in self.casework.values}

    def _judging(self, reads: _ReadIndex | None = None) -> set[str]:
        """Values that judge what was captured: a predicate's, or an expression that read (on
        the path it took, when `reads` says) a view, `failures`, another run or a judging value
        (a value of the case's fields alone judges nothing)."""
        judged = set(self.casework.views) | {"failures", "runs", "run"}
        out: set[str] = set()
        for spec in self.casework.values:
            if spec.predicate is not None:
                out.add(spec.name)
            elif spec.expr is not None:
                read = reads.of(spec.expr) if reads is not None else None
                names = read.names if read is not None else spec.expr.names
                if names & (judged | out):
                    out.add(spec.name)
        return out


@dataclass(frozen=True, slots=True)
class _ReportPlan:
    """How a lane's values are had on a report entry (`report_values`): each value's reads (its
    `expr`, `when` and `otherwise`), and the detail field that is its bare name."""

    casework: Casework
    reads: tuple[frozenset[str], ...]  # per value, in order; a predicate's: its view
    # per value, the case fields it reads (`case.X`); None: the case as a whole (`case[k]`, `case`)
    case_fields: tuple[frozenset[str] | None, ...]
    detail_of: Mapping[str, str]  # value name -> the first bare-name detail field giving it
    unknowable: frozenset[str]  # names a report entry never holds: views, `failures`, `runs`, `run`


_PLANS: dict[int, _ReportPlan] = {}  # by id(casework); the plan holds its casework, so the id stays its own


def _plan(casework: Casework) -> _ReportPlan:
    found = _PLANS.get(id(casework))
    if found is not None and found.casework is casework:
        return found
    names = {v.name for v in casework.values}
    reads: list[frozenset[str]] = []
    case_fields: list[frozenset[str] | None] = []
    for spec in casework.values:
        exprs = [e for e in (spec.expr, spec.when, spec.otherwise) if e is not None]
        reads.append(frozenset({spec.view or ""}) if spec.predicate is not None
                     else frozenset(n for e in exprs for n in expr_reads(e)))
        case_fields.append(_case_fields(exprs))
    detail_of: dict[str, str] = {}
    for key, expr in casework.details.items():
        name = expr.text.strip()
        if name in names:
            detail_of.setdefault(name, key)
    plan = _ReportPlan(casework, tuple(reads), tuple(case_fields), detail_of,
                       frozenset({*casework.views, "failures", "runs", "run"}))
    if len(_PLANS) >= 64:  # lanes reloaded (the editor): forget the old ones
        _PLANS.clear()
    _PLANS[id(casework)] = plan
    return plan


@dataclass
class ReportValues:
    """A report entry's values (`report_values`): each known value, how it was had (`how`:
    "recomputed", "report" from `[casework.from_report]`, "detail" from its bare-name detail
    field), the field each was given by (`given_by`), and the expression that failed, if one did
    (SL019/SL020: the values reading it are unknown)."""

    values: dict[str, Any]
    how: dict[str, str]
    scope: dict[str, Any]
    error: CaseError | None = None


def report_values(casework: Casework, entry: Mapping[str, Any], case: Mapping[str, Any],
                  case_file: bool = False) -> ReportValues:
    """The values of a lane report's entry, a case whose views are not recorded, in the lane's
    order: a value whose expressions read only what is known (the values known before it, and
    `case`: the case file's record when `case_file`, else only the fields of `case`, those the
    entry embeds) is recomputed; else `[casework.from_report]` gives it (an expression over `report`, the
    entry), else its bare-name detail field when the entry has it; else it is unknown, and so is
    every value reading it."""
    plan = _plan(casework)
    fns = _report_functions(casework)
    budget = Budget()
    scope: dict[str, Any] = {"case": case}
    out = ReportValues({}, {}, scope)
    unknown = set(plan.unknowable) | {v.name for v in casework.values}
    entry = typed_report_entry(entry if isinstance(entry, dict) else dict(entry))  # a wrong-typed field (the reader's SL003) reads as null
    report_scope = {"report": entry}
    for spec, reads, fields in zip(casework.values, plan.reads, plan.case_fields, strict=True):
        name = spec.name
        try:
            case_known = case_file or "case" not in reads or (fields is not None and fields <= case.keys())
            if case_known and not reads & unknown:
                if spec.when is not None and not spec.when.evaluate(scope, fns, budget):
                    value = spec.otherwise.evaluate(scope, fns, budget) if spec.otherwise is not None else None
                else:
                    assert spec.expr is not None
                    value = spec.expr.evaluate(scope, fns, budget)
                how = "recomputed"
            elif name in casework.from_report:
                value, how = casework.from_report[name].evaluate(report_scope, fns, budget), "report"
            elif name in plan.detail_of and plan.detail_of[name] in entry:
                value, how = entry[plan.detail_of[name]], "detail"
            else:
                continue
        except EvalFailure as exc:
            if out.error is None:
                out.error = _failure(exc)
            continue
        scope[name] = out.values[name] = value
        out.how[name] = how
        unknown.discard(name)
    return out


def _case_fields(exprs: Sequence[Expr]) -> frozenset[str] | None:
    """The case fields expressions read as `case.X`; None when one reads `case` otherwise."""
    import ast

    fields: set[str] = set()
    for expr in exprs:
        bases = set()
        for node in ast.walk(expr.tree):
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "case":
                fields.add(node.attr)
                bases.add(id(node.value))
        if any(isinstance(n, ast.Name) and n.id == "case" and id(n) not in bases for n in ast.walk(expr.tree)):
            return None
    return frozenset(fields)


_REPORT_FNS: dict[int, tuple[Casework, dict[str, Callable[..., Any]]]] = {}


def _report_functions(casework: Casework) -> dict[str, Callable[..., Any]]:
    """The lane functions, as a case's evaluation has them (`passes`/`reasons` read a view's turn,
    which a report entry has none of: a value calling them reads a view and is never recomputed)."""
    found = _REPORT_FNS.get(id(casework))
    if found is None or found[0] is not casework:
        if len(_REPORT_FNS) >= 64:
            _REPORT_FNS.clear()
        found = _REPORT_FNS[id(casework)] = (casework, CaseworkEvaluator(casework).functions())
    return found[1]


def report_outcome(casework: Casework, case_id: str, entry: Mapping[str, Any],
                   case: Mapping[str, Any], case_file: bool = False) -> tuple[CaseOutcome, list[Blame]]:
    """A case of a lane report (the runner's per-case record, `entry`), judged again from its
    raw fields (`report_values`): the record is the case's details, the metrics fold the values
    known as they fold a judged case's. A false `check` value is its predicate's finding on the
    record (`record` None: the caller puts it on the entry), at the check's `field` when the
    record has it, else at the detail field that is the value's bare name (else the whole entry);
    worded by its `message` when every name the message reads is known. An expression that fails
    (SL019/SL020) is a finding on the entry; the values reading it are unknown."""
    got = report_values(casework, entry, case, case_file)
    values = got.values
    passed = values.get("passed") is True if casework.has_verdict else True
    blames: list[Blame] = []
    if got.error is not None:
        blames.append(Blame("", None, None, None, got.error.message, None, got.error.code))
    if not passed:
        detail_of = _plan(casework).detail_of
        for spec in casework.values:
            if spec.check is None or values.get(spec.name) is not False or spec.message is None:
                continue
            key = detail_of.get(spec.name)
            message = (_render(spec.message, got.scope) if _renders(spec.message, got.scope)
                       else f"the report's `{key}` is false" if key is not None else f"`{spec.name}` is false")
            at = spec.field if spec.field is not None and spec.field in entry else key if key in entry else None
            blames.append(Blame(spec.name, None, spec.check, Verdict(False, message=message, target=at), message))
    outcome = CaseOutcome(case_id, passed, values, {next(iter(casework.runs)): values}, [], dict(entry), 1, case,
                          error=got.error)
    return outcome, blames


def report_mismatches(casework: Casework, entry: Mapping[str, Any], case: Mapping[str, Any],
                      case_file: bool = False) -> list[tuple[str, Any, Any]]:
    """The bare-name detail fields of a report entry whose value was recomputed from its raw
    fields and differs from the stored one: (field, stored, recomputed), in the details' order
    (SL011, as a classic lane's derived details)."""
    got = report_values(casework, entry, case, case_file)
    out = []
    for key, expr in casework.details.items():
        name = expr.text.strip()
        if key in entry and got.how.get(name) == "recomputed" and entry[key] != got.values[name]:
            out.append((key, entry[key], got.values[name]))
    return out


def report_verdicts(casework: Casework, case_id: str | None, entry: Mapping[str, Any] | None,
                    case: Mapping[str, Any] | None, case_file: bool = False) -> tuple[dict[str, Verdict], CaseError | None]:
    """The failing `check` predicates of a report entry judged again (`report_outcome`), by name,
    and the expression that failed there (SL019/SL020), if one did: what `check` reports on a lane
    report's entry."""
    if entry is None or case_id is None:
        return {}, None
    outcome, blames = report_outcome(casework, case_id, entry, case or {}, case_file)
    return {b.predicate: b.verdict for b in blames if b.predicate is not None and b.verdict is not None}, outcome.error


def _renders(template: str, scope: Mapping[str, Any]) -> bool:
    """Every `{path}` of a value's message starts at a name `scope` holds."""
    import re

    return all(m.group(1).split(".")[0].strip() in scope for m in re.finditer(r"\{([^{}]*)\}", template))


def _explained(values: Sequence[ValueSpec]) -> set[str]:
    """The values whose reads `case_findings` may follow from `passed`: those its expressions name
    (`expr`, `when`, `otherwise`; a comprehension's own names too, more than it reads), then theirs;
    through `failures`, every value that adds to it; all of them past a read of `runs`. The reads of
    any other value change no finding (`_why` reaches a value only by a name read before it), so
    only these are recorded: a value the verdict never reads is evaluated once, plainly."""
    specs = {v.name: v for v in values}
    adding = [v.name for v in values if v.failures or v.message is not None]
    out: set[str] = set()
    todo = ["passed"]
    while todo:
        name = todo.pop()
        spec = specs.get(name)
        if spec is None or name in out:
            continue
        out.add(name)
        names: set[str] = set()
        for expr in (spec.expr, spec.when, spec.otherwise):
            if expr is not None:
                names |= expr.names
        if "runs" in names:
            return set(specs)
        if "failures" in names:
            todo.extend(adding)
        todo.extend(sorted(n for n in names if n in specs))
    return out


def _render(template: str, scope: Mapping[str, Any]) -> str:
    """A value's message: each `{path}` is read from the case scope (null-safe)."""
    out: list[str] = []
    i = 0
    while i < len(template):
        start = template.find("{", i)
        end = template.find("}", start) if start >= 0 else -1
        if start < 0 or end < 0:
            out.append(template[i:])
            break
        out.append(template[i:start])
        value = resolve_path(scope, template[start + 1 : end].strip())
        out.append("" if value is None else str(value))
        i = end + 1
    return "".join(out)


def _thresholds(spec: CaseMetric, raw: Mapping[str, Any]) -> Any:
    """A `thresholds` metric's value: its checks (scoring.check_thresholds, the one threshold
    check) on the metrics before it. With `section` holding the result as an object, the value
    is {passed, violations}; else a plain pass flag. A failed check with a `message` is a
    violation (a null metric always is: its message, or "")."""
    violations: list[str] = []
    results = check_thresholds(ThresholdSet(spec.name, "", spec.checks, spec.skip_null), raw)
    for result in results:
        check = result.check
        if not result.passed and (result.value is None or check.message):
            violations.append(format_message(check.message, metric=check.metric, actual=result.value,
                                             bound=check.value))
    ok = all(r.passed for r in results)
    if spec.fields or spec.section != "metrics":
        return {"passed": ok, "violations": violations}
    return ok


def _jsonable(value: Any) -> Any:
    if isinstance(value, _Turn):
        return {k: _jsonable(v) for k, v in value.items() if k != "case"}
    if isinstance(value, dict):
        return {k: _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    return value
