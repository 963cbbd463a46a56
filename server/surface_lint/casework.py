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

import math
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from . import kinds_extra
from .caseexpr import Expr, ExprError, resolve_path
from .checks import CHECK_CODES as C
from .findings import sorted_findings
from .lanes import LANE_FUNCTION_DOCS as LANE_FUNCTION_DOCS
from .lanes import LANE_FUNCTIONS as LANE_FUNCTIONS
from .lanes import CaseMetric as CaseMetric
from .lanes import Casework as Casework
from .lanes import Lane, LaneError, _entry_of
from .lanes import ThresholdSpec as ThresholdSpec
from .lanes import TurnValueSpec as TurnValueSpec
from .lanes import ValueSpec as ValueSpec
from .lanes import ViewSpec as ViewSpec
from .lanes import load_casework as load_casework
from .lanes import parse_casework as parse_casework
from .predicates import PASS, Context, RegexTimeout, Subject, Verdict
from .sources.base import Record, check_finding

if TYPE_CHECKING:
    from .engine.results import LaneResult




# --- evaluation ------------------------------------------------------------------------


class _Turn(dict[str, Any]):
    """One captured turn as expressions see it: `t.surface`, `t.grounding`, `t.record.x`,
    `t.entry.x` (the case's entry for this turn in `turn_list`), `t.index` (position in its view)."""

    __slots__ = ("verdicts",)

    def __init__(self, **fields: Any) -> None:
        super().__init__(**fields)
        self.verdicts: dict[str, Verdict] = {}


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


@dataclass
class CaseworkResult:
    lane: str
    sections: dict[str, dict[str, Any]]  # "metrics" and any other section a metric names
    outcomes: list[CaseOutcome]
    missing: list[str]  # cases without any captured turn
    unknown: list[str]  # captured case ids with no case
    errors: list[str] = field(default_factory=list)  # file:line: message of unreadable lines
    raw: dict[str, Any] = field(default_factory=dict)  # the metrics unrounded (thresholds compare these)
    findings: list[Any] = field(default_factory=list)  # cases left out (SL015, SL013), at their case

    @property
    def metrics(self) -> dict[str, Any]:
        return self.sections.get("metrics", {})


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


@dataclass
class CaseTrace:
    """Where the first run's values and `failures` came from (`evaluate_case(..., trace)`)."""

    values: dict[str, Any] = field(default_factory=dict)
    gated: set[str] = field(default_factory=set)  # values whose `when` was false
    failing: dict[str, list[Blame]] = field(default_factory=dict)  # predicate value -> its failing turns
    failures: list[Blame] = field(default_factory=list)  # each `failures` entry's provenance
    views: dict[str, list[Any]] = field(default_factory=dict)
    case: Mapping[str, Any] = field(default_factory=dict)


def _turn_blame(value: str, t: _Turn, predicate: str) -> Blame:
    verdict = t.verdicts.get(predicate)
    return Blame(value, t["record"], predicate, verdict, verdict.message if verdict is not None else "",
                 t["surface"])


def _attributes(expr: Expr) -> set[str]:
    """Every `x.NAME` an expression reads (turn values are read as `t.NAME`)."""
    import ast

    return {n.attr for n in ast.walk(expr.tree) if isinstance(n, ast.Attribute)}


def _case_fields(expr: Expr) -> set[str]:
    """Every `case.NAME` an expression reads."""
    import ast

    return {n.attr for n in ast.walk(expr.tree)
            if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name) and n.value.id == "case"}


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
            "starts_upper": lambda text: kinds_extra.first_alpha_is_upper(text or ""),
        }

    def _views(self, case: Mapping[str, Any], records: Sequence[Mapping[str, Any]]) -> dict[str, list[_Turn]]:
        cw = self.casework
        fns = self.functions()
        out: dict[str, list[_Turn]] = {}
        for view in cw.views.values():
            turns: list[_Turn] = []
            for record in records:
                entry = _entry_of(cw, case, record)
                scope = {"record": record, "case": case, "entry": entry}
                if view.where is not None and not view.where.evaluate(scope, fns):
                    continue
                surface = view.surface.evaluate(scope, fns) if view.surface is not None else record.get("surface")
                grounding = (view.grounding.evaluate(scope, fns) if view.grounding is not None
                             else record.get("grounding_source"))
                turns.append(_Turn(
                    record=record, case=case, entry=entry, index=len(turns),
                    surface=surface if isinstance(surface, str) else "",
                    grounding="none" if grounding is None else str(grounding),
                ))
            out[view.name] = turns
        for spec in cw.turn_values:
            for t in out[spec.view]:
                scope = {"t": t, "case": case, "entry": t["entry"], "record": t["record"]}
                if spec.when is not None and not spec.when.evaluate(scope, fns):
                    t[spec.name] = spec.otherwise.evaluate(scope, fns) if spec.otherwise is not None else None
                elif spec.expr is not None:
                    t[spec.name] = spec.expr.evaluate(scope, fns)
                else:
                    assert spec.predicate is not None
                    t[spec.name] = self.passes(t, spec.predicate)
        return out

    def evaluate_case(self, case: Mapping[str, Any], records: Sequence[Mapping[str, Any]],
                      trace: CaseTrace | None = None) -> CaseOutcome:
        """One case's values, details and verdict; `trace` (when given) records where the first
        run's values and `failures` came from (`case_findings`)."""
        cw = self.casework
        fns = self.functions()
        runs: dict[str, dict[str, Any]] = {}
        first_scope: dict[str, Any] = {}
        first_views: dict[str, list[_Turn]] = {}
        for run_name, run_filter in cw.runs.items():
            selected = [r for r in records if run_filter is None or run_filter.evaluate({"record": r, "case": case}, fns)]
            views = self._views(case, selected)
            failures: list[str] = []
            scope: dict[str, Any] = {"case": case, **views, "failures": failures, "runs": runs, "run": run_name}
            produced: dict[str, Any] = {}
            run_trace = trace if trace is not None and not runs else None  # the first run is the case's verdict
            if run_trace is not None:
                run_trace.views, run_trace.case = views, case
            for spec in cw.values:
                value = self._value(spec, scope, views, failures, fns, run_trace)
                scope[spec.name] = value
                produced[spec.name] = value
            produced["failures"] = list(failures)
            runs[run_name] = produced
            if not first_scope:
                first_scope = scope
                first_views = views
        details = {
            key: _jsonable(expr.evaluate(first_scope, fns))
            for key, expr in cw.details.items()
            if key not in cw.details_if or cw.details_if[key].evaluate(first_scope, fns)
        }
        first = next(iter(runs.values()))
        case_id = str(case.get(self.lane.schema.id_field, ""))
        return CaseOutcome(case_id, bool(first.get("passed", False)), first, runs, list(first["failures"]),
                           details, len(records), case, first_views)

    def _value(self, spec: ValueSpec, scope: Mapping[str, Any], views: Mapping[str, list[_Turn]],
               failures: list[str], fns: Mapping[str, Callable[..., Any]], trace: CaseTrace | None = None) -> Any:
        if spec.when is not None and not spec.when.evaluate(scope, fns):
            if trace is not None:
                trace.gated.add(spec.name)
            return spec.otherwise.evaluate(scope, fns) if spec.otherwise is not None else None
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
            value = spec.expr.evaluate(scope, fns)
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
        passes; else each verdict that entered the first run's `failures` (with the record and
        predicate it came from), and the false values the verdict `passed` reads, followed down
        to the predicate verdicts and turn values they are made of. A value with no turn of its
        own is a case-level blame (`record` None: the caller puts it at the case's first turn)."""
        trace = CaseTrace()
        outcome = self.evaluate_case(case, records, trace)
        if outcome.passed:
            return outcome, []
        blames: list[Blame] = []
        seen: set[tuple[str, int, str | None]] = set()
        for blame in self._explain("passed", trace, set()):
            key = (blame.value if blame.record is None else "", id(blame.record), blame.predicate or blame.message)
            if key not in seen:
                seen.add(key)
                blames.append(blame)
        return outcome, blames

    def _explain(self, name: str, trace: CaseTrace, open_names: set[str]) -> list[Blame]:
        """Why value `name` (false or null) is so."""
        spec = self._value_specs().get(name)
        if spec is None or name in trace.gated or name in open_names:
            return []
        value = trace.values.get(name)
        if spec.predicate is not None:
            found = list(trace.failing.get(name, []))
            return found or [Blame(name, None, None, None,
                                   f"`{name}` is {_shown(value)}: no turn of view `{spec.view}` passes `{spec.predicate}`")]
        assert spec.expr is not None
        open_names = open_names | {name}
        out: list[Blame] = []
        attributes = _attributes(spec.expr)
        judging = self._judging()
        for named in sorted(spec.expr.names):
            if named == "failures":
                out.extend(trace.failures)
            elif named in judging and named in trace.values and (trace.values[named] is False or trace.values[named] is None):
                out.extend(self._explain(named, trace, open_names))
            elif named in trace.views:
                for t in trace.views[named]:
                    for tv in self.casework.turn_values:
                        if tv.view == named and tv.name in attributes and t.get(tv.name) is False:
                            out.extend(self._explain_turn(t, tv))
                    for predicate in sorted(spec.expr.strings()):
                        verdict = t.verdicts.get(predicate)
                        if verdict is not None and not verdict.passed:
                            out.append(_turn_blame(name, t, predicate))
        if out:
            return out
        own = [b for b in trace.failures if b.value == name and b.record is None]
        if own:  # its `message` (or list) went to `failures`: that text says why
            return own
        read = [(n, trace.values[n]) for n in sorted(spec.expr.names) if n in trace.values and n != name]
        read += [(f"case.{n}", trace.case.get(n)) for n in sorted(_case_fields(spec.expr))]
        shown = ", ".join(f"{n} = {_shown(v)}" for n, v in read if _is_scalar(v))
        text = " ".join(spec.expr.text.split())
        text = text if len(text) <= 160 else text[:159] + "…"
        return [Blame(name, None, None, None, f"`{name}` is {_shown(value)}: {text}" + (f" ({shown})" if shown else ""))]

    def _explain_turn(self, t: _Turn, spec: TurnValueSpec) -> list[Blame]:
        """Why turn value `spec` is false on turn `t`: its predicate's verdict, else the failing
        verdicts its expression reads, else the turn value itself (at the turn's record)."""
        names = [spec.predicate] if spec.predicate else sorted(spec.expr.strings()) if spec.expr else []
        found = [_turn_blame(spec.name, t, n) for n in names if n in t.verdicts and not t.verdicts[n].passed]
        return found or [Blame(spec.name, t["record"], None, None, f"turn value `{spec.name}` is false")]

    def _value_specs(self) -> dict[str, ValueSpec]:
        return {v.name: v for v in self.casework.values}

    def _judging(self) -> set[str]:
        """Values that judge what was captured: a predicate's, or an expression that reads a view,
        `failures`, another run or a judging value (a value of the case's fields alone judges nothing)."""
        reads = set(self.casework.views) | {"failures", "runs", "run"}
        out: set[str] = set()
        for spec in self.casework.values:
            if spec.predicate is not None or (spec.expr is not None and spec.expr.names & (reads | out)):
                out.add(spec.name)
        return out

    # --- metrics ---------------------------------------------------------------------

    def metrics(self, outcomes: Sequence[CaseOutcome], raw: dict[str, Any] | None = None) -> dict[str, dict[str, Any]]:
        """Every [[casework.metrics]] by report section; `raw` (when given) gets the unrounded values."""
        fns = self.functions()
        sections: dict[str, dict[str, Any]] = {}
        raw = {} if raw is None else raw
        for spec in self.casework.metrics:
            if spec.kind == "thresholds":
                value: Any = _thresholds(spec, raw)
            else:
                items: list[dict[str, Any]] = []
                for outcome in outcomes:
                    base = {**outcome.views, **outcome.values, "case": outcome.case, "runs": outcome.runs,
                            "metrics": raw}
                    if spec.per == "case":
                        items.append(base)
                    else:
                        items.extend({**base, "t": t} for t in outcome.views.get(spec.per, []))
                if spec.where is not None:
                    items = [i for i in items if spec.where.evaluate(i, fns)]
                if spec.by is not None:
                    groups: dict[Any, list[dict[str, Any]]] = {}
                    for item in items:
                        groups.setdefault(spec.by.evaluate(item, fns), []).append(item)
                    value = {k: self._aggregate(spec, groups[k], raw, fns, rounded=True) for k in sorted(groups)}
                    raw[spec.name] = {k: self._aggregate(spec, groups[k], raw, fns, rounded=False) for k in sorted(groups)}
                else:
                    value = self._aggregate(spec, items, raw, fns, rounded=True)
                    raw[spec.name] = self._aggregate(spec, items, raw, fns, rounded=False)
            if spec.kind == "thresholds":
                raw[spec.name] = value
            if spec.section == spec.name:  # the metric is a whole report section (`by_class`)
                sections[spec.name] = value if isinstance(value, dict) else {"value": value}
            else:
                sections.setdefault(spec.section, {})[spec.name] = value
        return {name: dict(sorted(values.items())) for name, values in sections.items()}

    def _aggregate(self, spec: CaseMetric, items: Sequence[Mapping[str, Any]], raw: Mapping[str, Any],
                   fns: Mapping[str, Callable[..., Any]], rounded: bool) -> Any:
        def value_of(item: Mapping[str, Any]) -> Any:
            assert spec.value is not None
            return spec.value.evaluate(item, fns)

        if spec.kind == "count":
            out: Any = sum(1 for i in items if spec.value is None or value_of(i))
        elif spec.kind == "sum":
            out = sum(value_of(i) for i in items)
        elif spec.kind == "rate":
            out = sum(1 for i in items if value_of(i)) / len(items) if items else spec.empty
        elif spec.kind == "mean":
            out = sum(float(value_of(i)) for i in items) / len(items) if items else spec.empty
        elif spec.kind == "counts":
            return {name: sum(1 for i in items if cond.evaluate(i, fns)) for name, cond in sorted(spec.fields.items())}
        else:  # value: one expression over the metrics computed so far
            assert spec.value is not None
            out = spec.value.evaluate({"metrics": raw, **raw}, fns)
        if rounded and spec.digits is not None and isinstance(out, float):
            out = round(out, spec.digits)
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


def _threshold_results(casework: Casework, result: CaseworkResult) -> tuple[list[Any], bool | None, str | None]:
    """The lane's first `thresholds` metric as the engine's threshold results: CI's exit code and
    every reporter's threshold lines come from it (None when the lane has none, or no case)."""
    from .lanes import ThresholdCheck
    from .scoring import ThresholdResult

    spec = next((m for m in casework.metrics if m.kind == "thresholds"), None)
    if spec is None or not result.outcomes:
        return [], None, None
    out: list[Any] = []
    for check in spec.checks:
        actual = result.raw.get(check.metric)
        values = list(actual.values()) if isinstance(actual, dict) else [actual]
        for value in values:
            if value is None and spec.skip_null:
                continue
            number = float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None
            ok = number is not None and _compare(number, check.op, check.value)
            out.append(ThresholdResult(ThresholdCheck(check.metric, check.op, check.value), number, ok))
    return out, all(r.passed for r in out), spec.name


def _thresholds(spec: CaseMetric, raw: Mapping[str, Any]) -> Any:
    """Checks on the unrounded metrics (as runners compare them). With `section` holding the
    result as an object, the value is {passed, violations}; else a plain pass flag."""
    violations: list[str] = []
    ok = True
    for check in spec.checks:
        actual = raw.get(check.metric)
        targets = list(actual.values()) if isinstance(actual, dict) else [actual]
        for value in targets:
            if value is None:
                if spec.skip_null:
                    continue
                ok = False
                violations.append(check.message.format(metric=check.metric, actual=value, bound=check.value))
                continue
            passed = _compare(float(value), check.op, check.value)
            if not passed:
                ok = False
                if check.message:
                    violations.append(check.message.format(metric=check.metric, actual=value, bound=check.value))
    if spec.fields or spec.section != "metrics":
        return {"passed": ok, "violations": violations}
    return ok


def _compare(actual: float, op: str, bound: float) -> bool:
    if op == ">=":
        return actual >= bound
    if op == "<=":
        return actual <= bound
    if op == ">":
        return actual > bound
    if op == "<":
        return actual < bound
    return math.isclose(actual, bound)


def _jsonable(value: Any) -> Any:
    if isinstance(value, _Turn):
        return {k: _jsonable(v) for k, v in value.items() if k != "case"}
    if isinstance(value, dict):
        return {k: _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    return value


# --- files -----------------------------------------------------------------------------


@dataclass
class _Read:
    findings: list[Any] = field(default_factory=list)  # the readers' findings (SL001, SL008, ...)
    stats: Any = None


def _records(path: str, texts: Mapping[str, bytes], read: _Read) -> Iterator[Record]:
    """Every intact record of a JSONL file, read by the project's reader (a bad line is a
    finding, the lines around it are still read)."""
    import io

    from .sources.base import JsonlReader, ReadStats

    reader = JsonlReader(path)
    data = texts.get(path)
    try:
        stream = io.BytesIO(data) if data is not None else open(path, "rb")
    except OSError as exc:
        raise LaneError(path, 1, f"cannot read: {exc.strerror}") from None
    with stream:
        yield from reader.records(stream)
    read.findings.extend(reader.findings)
    if read.stats is None:
        read.stats = ReadStats()
    read.stats.add(reader.stats)


def score_files(casework: Casework, case_paths: Sequence[str], capture_paths: Sequence[str],
                texts: Mapping[str, bytes] | None = None, read: _Read | None = None) -> CaseworkResult:
    """Join the captures to the cases and score them. Records are grouped by case (a runner may
    come back to a case in a second pass), so what is held is the captures of the split."""
    texts = texts or {}
    read = read if read is not None else _Read()
    cases: list[Mapping[str, Any]] = []
    seen: set[str] = set()
    where: dict[str, Record] = {}
    id_field = casework.lane.schema.id_field
    for path in case_paths:
        for record in _records(path, texts, read):
            case_id = record.data.get(id_field)
            if not isinstance(case_id, str) or not case_id:
                read.findings.append(check_finding(
                    C.MISSING_FIELD, record.whole(), f"case without a string `{id_field}`; not scored"))
            elif case_id in seen:
                read.findings.append(check_finding(
                    C.DUPLICATE_ID, record.location(id_field), f"case id `{case_id}` is given twice; the first is scored",
                    case_id))
            else:
                seen.add(case_id)
                cases.append(record.data)
                where[case_id] = record
    records: dict[str, list[Mapping[str, Any]]] = {}
    unknown: list[str] = []
    for path in capture_paths:
        for record in _records(path, texts, read):
            case_id = record.data.get(casework.case_field)
            if not isinstance(case_id, str):
                read.findings.append(check_finding(
                    C.UNJOINED, record.whole(), f"record without a string `{casework.case_field}`; joined to no case"))
            elif case_id not in seen:
                if case_id not in unknown:
                    unknown.append(case_id)
                    read.findings.append(check_finding(
                        C.UNJOINED, record.location(casework.case_field),
                        f"case id `{case_id}` matches no case in the given case files", case_id))
            else:
                records.setdefault(case_id, []).append(record.data)
    read.findings = sorted_findings(read.findings)
    errors = [f"{f.location.path}:{f.location.line}:{f.location.column}: {f.code} {f.message}" for f in read.findings]
    return score(casework, cases, records, unknown, errors, where)


def lane_result(profile: str, lane: Lane, casework: Casework, case_paths: Sequence[str],
                capture_paths: Sequence[str], texts: Mapping[str, bytes] | None = None) -> LaneResult:
    """`Engine.score` of a case-driven lane: its metrics and per-case records as a LaneResult
    (the reporters print them like any lane's)."""
    from .engine.results import LaneResult, UsageError
    from .scoring import Outcome
    from .sources.base import ReadStats

    if not case_paths:
        raise UsageError(f"lane {lane.name} scores captures joined with their cases: give --cases")
    read = _Read()
    result = score_files(casework, case_paths, capture_paths, texts, read)
    outcomes = [
        Outcome(case_id=o.case_id, signals=(o.passed,), details=o.details,
                failed=() if o.passed else ("passed",))
        for o in result.outcomes
    ]
    metrics = dict(result.metrics)
    thresholds, passed, set_name = _threshold_results(casework, result)

    return LaneResult(
        lane=lane.name, profile=profile, version=lane.version, threshold_set=set_name,
        metrics=metrics, thresholds=thresholds, passed=passed, outcomes=outcomes,
        findings=sorted_findings([*read.findings, *result.findings]),
        missing_transcripts=result.missing, unknown_cases=sorted(result.unknown), remainder=[],
        stats=read.stats or ReadStats(), sources=[*case_paths, *capture_paths],
        headline=lane.headline if lane.headline in metrics else next(iter(metrics), ""),
        metric_aliases={}, case_count=len(outcomes), failing_count=sum(1 for o in result.outcomes if not o.passed),
    )


def score(casework: Casework, cases: Sequence[Mapping[str, Any]],
          records: Mapping[str, Sequence[Mapping[str, Any]]], unknown: Sequence[str] = (),
          errors: Sequence[str] = (), where: Mapping[str, Record] | None = None) -> CaseworkResult:
    """Score joined cases; `where` (case id -> its case record) places the findings of cases
    left out: no captured turn (SL015), a pattern over its budget (SL013)."""
    errors = list(errors)
    left_out: list[Any] = []
    evaluator = CaseworkEvaluator(casework)
    id_field = casework.lane.schema.id_field
    outcomes: list[CaseOutcome] = []
    missing: list[str] = []
    for case in cases:
        case_id = str(case.get(id_field))
        got = records.get(case_id)
        at = where.get(case_id) if where else None
        if not got:
            missing.append(case_id)
            if at is not None:
                left_out.append(check_finding(
                    C.UNJOINED, at.location(id_field),
                    f"case `{case_id}` has no captured turn in the transcripts; left out of the metrics",
                    case_id))
            continue
        try:
            outcomes.append(evaluator.evaluate_case(case, got))
        except RegexTimeout as exc:  # a user pattern's character budget (patterns.py): not judged
            errors.append(f"case `{case_id}` was not judged: a pattern {exc}")
            if at is not None:
                left_out.append(check_finding(
                    C.PATTERN_LIMIT, at.whole(), f"case `{case_id}` was not judged: a pattern {exc}", case_id))
    raw: dict[str, Any] = {}
    sections = evaluator.metrics(outcomes, raw) if outcomes else {}
    return CaseworkResult(casework.lane.name, sections, outcomes, missing, list(unknown), errors, raw, left_out)
