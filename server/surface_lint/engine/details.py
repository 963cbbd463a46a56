"""A case's details as the runner writes them, and the subject of a report entry."""

from __future__ import annotations

import ast
import itertools
import math
from collections.abc import Callable, Mapping
from typing import Any

from ..rules.expressions import Expr
from ..rules.kinds.core import Context, Subject, Verdict
from ..rules.loader import DETAIL_ANALYSIS_FIELDS, EXPECTED, Lane, detail_expression
from ..sources.cases import (
    Case,
    typed_case_fields,
)
from ..sources.transcripts import ReportEntry
from .scoring import signal


def is_primed(case_fields: Mapping[str, Any] | None, transcript_primed: bool) -> bool:
    if case_fields is not None and "priming_prompts" in case_fields:
        prompts = case_fields.get("priming_prompts") or ()
        return any(isinstance(p, str) and p.strip() for p in prompts)
    return transcript_primed


def report_case_fields(lane: Lane, entry: ReportEntry, case: Case | None) -> dict[str, Any]:
    """The case as far as it is known: the case file's fields, else those the report embeds."""
    if case is not None:
        return dict(case.data)
    fields = typed_case_fields(lane, {k: v for k, v in entry.data.items() if k in lane.schema.fields})
    if entry.case_id is not None:
        fields[lane.schema.id_field] = entry.case_id
    return fields


def report_subject(lane: Lane, entry: ReportEntry, fields: Mapping[str, Any]) -> Subject:
    d = entry.data
    surface: str = d["surface"] if isinstance(d.get("surface"), str) else ""
    grounding = d.get("grounding_source") if isinstance(d.get("grounding_source"), str) else "none"
    primed = is_primed(fields if "priming_prompts" in fields else None, d.get("primed") is True)
    return Subject(surface=surface, grounding=grounding or "none", case=fields, primed=primed)


_Getter = Callable[[Mapping[str, Verdict], Subject, Mapping[str, Any], Mapping[str, Any] | None,
                    Mapping[str, Any] | None, Context | None, str | None], Any]

_NO_DEFAULT: Any = object()


class DetailsPlan:
    """A lane's `[details]` compiled once: one getter per detail field, in the file's order. Each
    source is an expression (lanes.detail_expression); the shapes the shipped lanes write (`case.X`,
    `default(case.X, LITERAL)`, `turn.X`, `analysis.X`, `verdicts`, signals joined by
    `and`) get a direct getter, any other expression is interpreted over the details scope."""

    __slots__ = (
        "_by_input",
        "_by_values",
        "_calls",
        "_empty_calls",
        "_empty_id",
        "_empty_keys",
        "_empty_verdicts",
        "_id",
        "_id_key",
        "_keys",
        "_no_id",
        "_plain_inputs",
        "_verdicts",
        "empty_getters",
        "empty_template",
        "getters",
        "needs_context",
    )

    def __init__(self, lane: Lane) -> None:
        getters: list[tuple[str, _Getter]] = []
        # Without case fields a `case.X` is its default (the id aside): a constant, not a call.
        empty: list[tuple[str, _Getter | None, Any]] = []
        needs_context = False
        id_keys: list[str] = []  # the details that are the case id (`case.<id field>`)
        verdict_keys: set[str] = set()  # the details that are `verdicts` (one dict per verdicts mapping)
        reads: set[str] = set()  # what the details read without case fields
        for key, source in lane.details.items():
            expr = detail_expression(source)
            needs_context = needs_context or "analysis" in expr.names
            get, constant, read = _compiled(lane, expr)
            reads.add(read)
            if _reads_case_id(lane, expr):
                id_keys.append(key)
            if isinstance(expr.tree, ast.Name) and expr.tree.id == "verdicts":
                verdict_keys.add(key)
            getters.append((key, get))
            if constant:
                empty.append((key, None, get({}, _NO_SUBJECT, {}, None, None, None, None)))
            else:
                empty.append((key, get, None))
        self.getters: tuple[tuple[str, _Getter], ...] = tuple(getters)
        # Without case fields: the constants at their keys (every key, in the file's order), copied
        # and then the other fields filled in.
        self.empty_template: dict[str, Any] = {key: value for key, _, value in empty}
        self.empty_getters: tuple[tuple[str, _Getter], ...] = tuple((k, g) for k, g, _ in empty if g is not None)
        self.needs_context = needs_context
        # For `shared`: the getters alone, and where the case id and the verdict dicts are among them.
        self._id_key = id_keys[0] if id_keys else ""
        self._keys = keys = tuple(k for k, _ in getters)
        self._empty_keys = tuple(k for k, _ in self.empty_getters)
        self._calls = tuple(g for _, g in getters)
        self._empty_calls = tuple(g for _, g in self.empty_getters)
        self._id = keys.index(self._id_key) if id_keys else -1
        self._empty_id = self._empty_keys.index(self._id_key) if id_keys and self._id_key in self._empty_keys else -1
        self._verdicts = tuple(i for i, k in enumerate(keys) if k in verdict_keys)
        self._empty_verdicts = tuple(i for i, k in enumerate(self._empty_keys) if k in verdict_keys)
        # Shared details by the other values than the id (see `shared`): (held, serial, details).
        self._by_values: dict[tuple[Any, ...], tuple[tuple[Any, ...], int, dict[str, Any]]] = {}
        # Without case fields, details that read only the case id, the turn and the verdicts
        # mapping are known by those inputs (`shared`): their shared details by them.
        self._plain_inputs = reads <= {_ID, _TURN, _VERDICTS, _CONSTANT} and len(id_keys) <= 1
        self._by_input: dict[tuple[Any, ...], tuple[tuple[Any, ...], int, dict[str, Any]]] = {}
        # The case id detail without case fields nor a record id: its default, else "".
        self._no_id: Any = (self._empty_calls[self._empty_id]({}, _NO_SUBJECT, {}, None, None, None, None)
                            if self._plain_inputs and self._empty_id >= 0 else "")

    def build(self, verdicts: Mapping[str, Verdict], subject: Subject, case_fields: Mapping[str, Any] | None,
              turn: Mapping[str, Any] | None, ctx: Context | None, case_id: str | None = None) -> dict[str, Any]:
        """One case's details, field for field as the runner writes them (from the lane's [details]).
        `ctx` may be None when the lane's details read no analysis (`needs_context`)."""
        if case_fields:
            return {key: get(verdicts, subject, case_fields, case_fields, turn, ctx, case_id)
                    for key, get in self.getters}
        fields: Mapping[str, Any] = {}
        details = self.empty_template.copy()
        for key, get in self.empty_getters:
            details[key] = get(verdicts, subject, fields, case_fields, turn, ctx, case_id)
        return details

    def shared(self, verdicts: Mapping[str, Verdict], subject: Subject, case_fields: Mapping[str, Any] | None,
               turn: Mapping[str, Any] | None, ctx: Context | None, case_id: str | None = None) -> SharedDetails:
        """`build`'s details as (serial, details, id key, id value): the details of this case's
        id key set to the id value, given as one dict (and one serial number) shared by every
        case whose other values are the same (a repeated surface with its prompt and grounding,
        the verdict dict of one verdicts mapping), so that a writer encodes the text around the
        id once per serial (reporters/json_format.py) and a spool marshals the dict once a batch.
        The id key is "" (and the value None) when no detail is the case id; the dict is read,
        never changed."""
        cased = bool(case_fields)
        if not cased and self._plain_inputs:
            known = self.by_inputs(verdicts, subject.surface, subject.grounding, subject.primed, turn, case_id,
                                   subject, case_fields, ctx)
            if known is not None:
                return known
        if cased:
            fields: Mapping[str, Any] = case_fields  # type: ignore[assignment]
            calls, at, verdict_at = self._calls, self._id, self._verdicts
        else:
            fields = _NO_FIELDS
            calls, at, verdict_at = self._empty_calls, self._empty_id, self._empty_verdicts
        # The key: the values but the id's, a str, int, bool or null by value (and type: True == 1
        # is written `true` and `1`), anything else by identity (a float too: -0.0 == 0.0), that
        # object held with the dict so that its id cannot be reused while it is there. A
        # `verdicts` dict is made once per verdicts mapping (`_verdicts_getter`).
        parts = [get(verdicts, subject, fields, case_fields, turn, ctx, case_id) for get in calls]
        held: list[Any] = []
        for i in verdict_at:
            held.append(parts[i])
            parts[i] = id(parts[i])
        id_value = None
        if at >= 0:
            id_value = parts[at]
            parts[at] = None
        types = tuple(map(type, parts))
        if not _BY_VALUE.issuperset(types):
            for i, v in enumerate(parts):
                if type(v) not in _BY_VALUE:
                    held.append(v)
                    parts[i] = id(v)
        key = (cased, types, *parts)
        seen = self._by_values.get(key)
        if seen is None:
            seen = self._remember(self._by_values, key, held, self.build(verdicts, subject, case_fields, turn, ctx,
                                                                     case_id))
        if at < 0:
            return seen[1], seen[2], "", None
        return seen[1], seen[2], self._id_key, id_value

    def by_inputs(self, verdicts: Mapping[str, Verdict], surface: str, grounding: str, primed: bool,
                  turn: Mapping[str, Any] | None, case_id: str | None, subject: Subject | None = None,
                  case_fields: Mapping[str, Any] | None = None, ctx: Context | None = None) -> SharedDetails | None:
        """`shared(verdicts, subject, case_fields, turn, ctx, case_id)` for a plan whose details
        without case fields read only the case id, the turn and the verdicts mapping
        (`plain_inputs`; `case_fields` empty), the subject being `Subject(surface, grounding, None,
        primed)` when not given (made only when the details are new); None when the turn's prompt
        is not held by value (then `shared` keys them by their values)."""
        # The values are a function of the verdicts mapping (held with the dict), the surface,
        # the grounding and the prompt (by value when it is a str, int, bool or null).
        prompt = turn.get("prompt") if turn else None
        kind = type(prompt)
        if not (kind is str or prompt is None or kind is int or kind is bool):
            return None
        key = (id(verdicts), surface, grounding, kind, prompt)
        seen = self._by_input.get(key)
        if seen is None:
            seen = self._remember(self._by_input, key, [verdicts],
                                  self.build(verdicts, subject or Subject(surface, grounding, None, primed),
                                             case_fields, turn, ctx, case_id))
        if self._empty_id < 0:
            return seen[1], seen[2], "", None
        return seen[1], seen[2], self._id_key, case_id or self._no_id  # the id getter's value

    @property
    def plain_inputs(self) -> bool:
        """Whether `by_inputs` serves this plan (details of the case id, turn and verdicts only)."""
        return self._plain_inputs

    @staticmethod
    def _remember(memo: dict[tuple[Any, ...], tuple[tuple[Any, ...], int, dict[str, Any]]], key: tuple[Any, ...],
                  held: list[Any], details: dict[str, Any]) -> tuple[tuple[Any, ...], int, dict[str, Any]]:
        if len(memo) >= _MEMO_SIZE:
            memo.clear()
        entry = memo[key] = (tuple(held), next(_SERIALS), details)
        return entry


# A case's details shared by its repeats (`DetailsPlan.shared`): (serial, details, id key, id value).
SharedDetails = tuple[int, dict[str, Any], str, Any]
# Serial numbers of shared details: one count for the process (no two plans give one number).
_SERIALS = itertools.count()


_NO_SUBJECT = Subject(surface="")
_NO_FIELDS: Mapping[str, Any] = {}
_BY_VALUE = frozenset((str, int, bool, type(None)))  # detail values a `shared` key holds as they are


def _reads_case_id(lane: Lane, expr: Expr) -> bool:
    """Whether a detail is the case id: `case.<id field>`, or it with a default."""
    tree = expr.tree
    if isinstance(tree, ast.Call) and isinstance(tree.func, ast.Name) and tree.func.id == "default" \
            and len(tree.args) == 2:
        tree = tree.args[0]
    return _field(tree, ("case",)) == ("case", lane.schema.id_field)


def _literal(node: ast.AST) -> Any:
    """The value of a constant expression (no names but true/false/null), else _NO_DEFAULT."""
    if any(isinstance(n, ast.Name) and n.id not in _CONSTANT_NAMES for n in ast.walk(node)) or any(
            isinstance(n, ast.Call) for n in ast.walk(node)):
        return _NO_DEFAULT
    try:
        return Expr(ast.unparse(node)).evaluate({})
    except Exception:
        return _NO_DEFAULT


_CONSTANT_NAMES = ("true", "false", "null", "True", "False", "None")


def _field(node: ast.AST, names: tuple[str, ...]) -> tuple[str, str] | None:
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in names:
        return node.value.id, node.attr
    return None


def _signals(node: ast.AST) -> tuple[str, ...] | None:
    """`signal('A') and not signal('B')` as ("A", "!B"), else None."""
    parts = node.values if isinstance(node, ast.BoolOp) and isinstance(node.op, ast.And) else [node]
    out: list[str] = []
    for part in parts:
        negate = isinstance(part, ast.UnaryOp) and isinstance(part.op, ast.Not)
        call = part.operand if isinstance(part, ast.UnaryOp) and negate else part
        if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and call.func.id == "signal"
                and len(call.args) == 1 and isinstance(call.args[0], ast.Constant)):
            return None
        out.append(("!" if negate else "") + str(call.args[0].value))
    return tuple(out)


# What a detail reads without case fields (`_compiled`): the case id, the turn's prompt, surface or
# grounding, the verdicts mapping (`verdicts`, signals), nothing (a constant), or anything else.
_ID, _TURN, _VERDICTS, _CONSTANT, _OTHER = "id", "turn", "verdicts", "constant", "other"


def _compiled(lane: Lane, expr: Expr) -> tuple[_Getter, bool, str]:
    """A detail's getter, whether it is a constant without case fields, and what it reads then."""
    tree = expr.tree
    read = _field(tree, ("case", "turn", "analysis"))
    default: Any = None
    if (isinstance(tree, ast.Call) and isinstance(tree.func, ast.Name) and tree.func.id == "default"
            and len(tree.args) == 2 and _field(tree.args[0], ("case",)) is not None):
        default = _literal(tree.args[1])
        read = _field(tree.args[0], ("case",)) if default is not _NO_DEFAULT else None
    if read is not None:
        kind, name = read
        get = _getter(lane, kind, name, default)
        # A default that is a list or an object is one value too: the getter gives that one object.
        constant = kind == "case" and name != lane.schema.id_field
        reads = _CONSTANT if constant else _ID if kind == "case" else _TURN if kind == "turn" else _OTHER
        return get, constant, reads
    if isinstance(tree, ast.Name) and tree.id == "verdicts":
        return _verdicts_getter(lane), False, _VERDICTS
    names = _signals(tree)
    if names is not None:
        get = _signal_getter(lane, names)
        # Without case fields `signal('@expected')` is True (False negated): a constant.
        constant = all(n.lstrip("!") == EXPECTED for n in names)
        return get, constant, _CONSTANT if constant else _VERDICTS
    return _expression_getter(lane, expr), False, _OTHER


def _getter(lane: Lane, kind: str, name: str, default: Any) -> _Getter:
    """How `case.X` (or `default(case.X, D)`), `turn.X` and `analysis.X` are read."""
    if kind == "case":
        is_id = name == lane.schema.id_field

        def case(verdicts: Mapping[str, Verdict], subject: Subject, fields: Mapping[str, Any],
                 case_fields: Mapping[str, Any] | None, turn: Mapping[str, Any] | None, ctx: Context | None,
                 case_id: str | None) -> Any:
            value = fields.get(name)
            if value is None and is_id:
                # Without a case file the record's own case id names the case (a report read
                # back must score the same cases).
                value = case_id if case_id else (default if default is not None else "")
            return default if value is None else value

        return case
    if kind == "turn":
        if name == "prompt":
            return lambda v, subject, fields, cf, turn, ctx, cid: fields.get("prompt", (turn or {}).get("prompt"))
        if name == "surface":
            return lambda v, subject, fields, cf, turn, ctx, cid: subject.surface
        return lambda v, subject, fields, cf, turn, ctx, cid: subject.grounding
    return lambda v, subject, fields, cf, turn, ctx, cid: len(_context(ctx).analysis.sentences)


def _signal_getter(lane: Lane, names: tuple[str, ...]) -> _Getter:
    if all(n.lstrip("!") == EXPECTED for n in names):
        # Without case fields nothing is expected: `signal` gives True (False negated).
        uncased = all(not n.startswith("!") for n in names)
        return lambda verdicts, subject, fields, cf, turn, ctx, cid: (
            all(signal(n, lane, verdicts, cf) for n in names) if cf else uncased)
    return lambda verdicts, subject, fields, cf, turn, ctx, cid: all(signal(n, lane, verdicts, cf) for n in names)


def _verdicts_getter(lane: Lane) -> Callable[..., dict[str, bool]]:
    reported = tuple(spec.name for spec in lane.predicates if spec.report)
    # The evaluation memoises verdict sets (repeated surfaces share one mapping): one dict per
    # mapping, held with it so that its id cannot be reused while it is here.
    memo: dict[int, tuple[Mapping[str, Verdict], dict[str, bool]]] = {}

    def passed(verdicts: Mapping[str, Verdict], subject: Subject, fields: Mapping[str, Any],
               cf: Mapping[str, Any] | None, turn: Mapping[str, Any] | None, ctx: Context | None,
               cid: str | None) -> dict[str, bool]:
        seen = memo.get(id(verdicts))
        if seen is not None and seen[0] is verdicts:
            return seen[1]
        value = {n: verdicts[n].passed for n in reported if n in verdicts}
        if len(memo) >= _MEMO_SIZE:
            memo.clear()
        memo[id(verdicts)] = (verdicts, value)
        return value

    return passed


class _Analysis:
    """`analysis` in a [details] expression: read only when named."""

    FIELDS = DETAIL_ANALYSIS_FIELDS
    __slots__ = ("_ctx",)

    def __init__(self, ctx: Context | None) -> None:
        self._ctx = ctx

    @property
    def sentence_count(self) -> int:
        return len(_context(self._ctx).analysis.sentences)


def _expression_getter(lane: Lane, expr: Expr) -> _Getter:
    """Any other [details] expression, interpreted over the whole scope (a value that fails, or
    that is no JSON value, is null)."""
    id_field = lane.schema.id_field
    reported = tuple(spec.name for spec in lane.predicates if spec.report)

    def evaluate(verdicts: Mapping[str, Verdict], subject: Subject, fields: Mapping[str, Any],
                 cf: Mapping[str, Any] | None, turn: Mapping[str, Any] | None, ctx: Context | None,
                 cid: str | None) -> Any:
        case: Mapping[str, Any] = fields
        if fields.get(id_field) is None:
            case = {**fields, id_field: cid or ""}
        scope = {
            "case": case,
            "turn": {"prompt": fields.get("prompt", (turn or {}).get("prompt")), "surface": subject.surface,
                     "grounding": subject.grounding},
            "analysis": _Analysis(ctx),
            "verdicts": {n: verdicts[n].passed for n in reported if n in verdicts},
        }

        def signal_of(name: str) -> bool:
            if name == EXPECTED and not cf:
                return True  # no case, nothing expected
            return signal(name, lane, verdicts, cf)

        try:
            value = expr.evaluate(scope, {"signal": signal_of})
        except Exception:
            return None
        return value if _json_value(value) else None

    return evaluate


def _json_value(value: Any, depth: int = 0) -> bool:
    if depth > 64:
        return False
    if value is None or isinstance(value, (str, bool, int)):
        return True
    if isinstance(value, float):
        return math.isfinite(value)
    if isinstance(value, list):
        return all(_json_value(v, depth + 1) for v in value)
    if isinstance(value, dict):
        return all(isinstance(k, str) and _json_value(v, depth + 1) for k, v in value.items())
    return False


_MEMO_SIZE = 4096


def _context(ctx: Context | None) -> Context:
    assert ctx is not None, "a lane whose details read analysis is given its Context (needs_context)"
    return ctx


def build_details(
    lane: Lane,
    verdicts: Mapping[str, Verdict],
    subject: Subject,
    case_fields: Mapping[str, Any] | None,
    turn: Mapping[str, Any] | None,
    ctx: Context,
    case_id: str | None = None,
) -> dict[str, Any]:
    """One case's details, field for field as the runner writes them (from the lane's [details])."""
    return DetailsPlan(lane).build(verdicts, subject, case_fields, turn, ctx, case_id)
