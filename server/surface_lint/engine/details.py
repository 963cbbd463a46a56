"""A case's details as the runner writes them, and the subject of a report entry."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from ..lanes import Lane
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


def build_details(
    lane: Lane,
    verdicts: Mapping[str, Verdict],
    subject: Subject,
    case_fields: Mapping[str, Any] | None,
    turn: Mapping[str, Any] | None,
    ctx: Context,
) -> dict[str, Any]:
    """One case's details, field for field as the runner writes them (from the lane's [details])."""
    out: dict[str, Any] = {}
    fields = case_fields or {}
    for key, source in lane.details.items():
        expr, _, default_text = source.partition("|")
        default = json.loads(default_text) if default_text else None
        kind, _, name = expr.partition(".")
        value: Any
        if kind == "case":
            value = fields.get(name, default)
            if name == lane.schema.id_field and value is None:
                value = default if default is not None else ""
            if isinstance(default, bool):
                value = bool(value)
            elif isinstance(default, int) and not isinstance(default, bool):
                try:
                    value = int(value)
                except (TypeError, ValueError):
                    value = default
        elif kind == "turn":
            if name == "prompt":
                value = fields.get("prompt", (turn or {}).get("prompt"))
            elif name == "surface":
                value = subject.surface
            else:
                value = subject.grounding
        elif kind == "chain":
            value = getattr(subject, name, None)
            if name in ("vault_hits", "proposal_count") and value is None:
                value = 0
            if name.startswith("trace_hash") and value is None:
                value = ""
        elif kind == "signal":
            value = all(signal(n, lane, verdicts, case_fields) for n in name.split("&"))
        elif kind == "analysis":
            value = len(ctx.analysis.sentences) if name == "sentence_count" else None
        else:  # verdicts
            value = {spec.name: verdicts[spec.name].passed for spec in lane.predicates
                     if spec.report and spec.name in verdicts}
        out[key] = value
    return out

