"""A case's details as the runner writes them, and the subject of a report entry."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any

from ..lanes import EXPECTED, Lane
from ..predicates import Context, Subject, Verdict
from ..scoring import (
    signal,
)
from ..sources.cases import (
    Case,
    typed_case_fields,
)
from ..sources.transcripts import ReportEntry


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
    vh = d.get("vault_hits") if isinstance(d.get("vault_hits"), int) else None
    pc = d.get("proposal_count") if isinstance(d.get("proposal_count"), int) else None
    # Reports store no replay vault_hits / proposal count: the replay check compares hashes only.
    return Subject(
        surface=surface, grounding=grounding or "none", case=fields, primed=primed,
        vault_hits=vh, trace_hash=d.get("trace_hash") if isinstance(d.get("trace_hash"), str) else None,
        proposal_count=pc, vault_hits_replay=vh,
        trace_hash_replay=d.get("trace_hash_replay") if isinstance(d.get("trace_hash_replay"), str) else None,
        proposal_count_replay=pc,
    )


_Getter = Callable[[Mapping[str, Verdict], Subject, Mapping[str, Any], Mapping[str, Any] | None,
                    Mapping[str, Any] | None, Context | None, str | None], Any]


class DetailsPlan:
    """A lane's `[details]` compiled once: one getter per detail field, in the file's order."""

    __slots__ = ("empty_getters", "empty_template", "getters", "needs_context")

    def __init__(self, lane: Lane) -> None:
        getters: list[tuple[str, _Getter]] = []
        # Without case fields a `case.X` is its default (the id aside): a constant, not a call.
        empty: list[tuple[str, _Getter | None, Any]] = []
        for key, source in lane.details.items():
            expr, _, default_text = source.partition("|")
            default = json.loads(default_text) if default_text else None
            kind, _, name = expr.partition(".")
            get = _getter(lane, kind, name, default)
            getters.append((key, get))
            constant = kind == "case" and name != lane.schema.id_field and type(default) in _IMMUTABLE
            # `signal.@expected` without case fields: what `signal` gives then (True, or False negated).
            constant = constant or (kind == "signal" and all(n.lstrip("!") == EXPECTED for n in name.split("&")))
            if constant:
                empty.append((key, None, get({}, _NO_SUBJECT, {}, None, None, None, None)))
            else:
                empty.append((key, get, None))
        self.getters: tuple[tuple[str, _Getter], ...] = tuple(getters)
        # Without case fields: the constants at their keys (every key, in the file's order), copied
        # and then the other fields filled in.
        self.empty_template: dict[str, Any] = {key: value for key, _, value in empty}
        self.empty_getters: tuple[tuple[str, _Getter], ...] = tuple((k, g) for k, g, _ in empty if g is not None)
        self.needs_context = any(source.startswith("analysis.") for source in lane.details.values())

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


_IMMUTABLE = (str, int, float, bool, type(None))
_NO_SUBJECT = Subject(surface="")


def _getter(lane: Lane, kind: str, name: str, default: Any) -> _Getter:
    """How one detail field is read: `case.X`, `turn.X`, `chain.X`, `signal.A&B`, `analysis.X`, `verdicts`."""
    if kind == "case":
        is_id = name == lane.schema.id_field

        def case(verdicts: Mapping[str, Verdict], subject: Subject, fields: Mapping[str, Any],
                 case_fields: Mapping[str, Any] | None, turn: Mapping[str, Any] | None, ctx: Context | None,
                 case_id: str | None) -> Any:
            value = fields.get(name, default)
            if is_id and value is None:
                # Without a case file the record's own case id names the case (a report read
                # back must score the same cases).
                value = case_id if case_id else (default if default is not None else "")
            if isinstance(default, bool):
                return bool(value)
            if isinstance(default, int):
                try:
                    return int(value)
                except (TypeError, ValueError, OverflowError):
                    return default
            return value

        return case
    if kind == "turn":
        if name == "prompt":
            return lambda v, subject, fields, cf, turn, ctx, cid: fields.get("prompt", (turn or {}).get("prompt"))
        if name == "surface":
            return lambda v, subject, fields, cf, turn, ctx, cid: subject.surface
        return lambda v, subject, fields, cf, turn, ctx, cid: subject.grounding
    if kind == "chain":
        empty: Any = 0 if name in ("vault_hits", "proposal_count") else ("" if name.startswith("trace_hash") else None)

        def chain(v: Mapping[str, Verdict], subject: Subject, fields: Mapping[str, Any],
                  cf: Mapping[str, Any] | None, turn: Mapping[str, Any] | None, ctx: Context | None,
                  cid: str | None) -> Any:
            value = getattr(subject, name, None)
            return empty if value is None else value

        return chain
    if kind == "signal":
        names = tuple(name.split("&"))
        if all(n.lstrip("!") == EXPECTED for n in names):
            # Without case fields nothing is expected: `signal` gives True (False negated).
            uncased = all(not n.startswith("!") for n in names)
            return lambda verdicts, subject, fields, cf, turn, ctx, cid: (
                all(signal(n, lane, verdicts, cf) for n in names) if cf else uncased)
        return lambda verdicts, subject, fields, cf, turn, ctx, cid: all(
            signal(n, lane, verdicts, cf) for n in names)
    if kind == "analysis":
        if name != "sentence_count":
            return lambda v, subject, fields, cf, turn, ctx, cid: None
        return lambda v, subject, fields, cf, turn, ctx, cid: len(_context(ctx).analysis.sentences)
    reported = tuple(spec.name for spec in lane.predicates if spec.report)
    # The lane memoises verdict sets (repeated surfaces share one mapping): one dict per mapping,
    # held with it so that its id cannot be reused while it is here.
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
