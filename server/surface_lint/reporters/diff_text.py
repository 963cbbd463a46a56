"""`surface-lint diff` as plain text and as JSON (sorted keys, no timestamps)."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from .common import LaneChoices, display_path, fmt_value, lane_notes, lane_records
from .outputs import printable

if TYPE_CHECKING:
    from ..engine.diff import LaneDiff
    from .options import RenderOptions

_RED, _GREEN, _RESET = "\x1b[31m", "\x1b[32m", "\x1b[0m"


def _paint(text: str, colour: str, on: bool) -> str:
    return f"{colour}{text}{_RESET}" if on else text


def _ids(ids: list[str], limit: int = 20) -> str:
    return ", ".join(ids[:limit]) + (" …" if len(ids) > limit else "")


def render_text(diff: LaneDiff, options: RenderOptions) -> str:
    c = options.colour
    verdict = (_paint(f"REGRESSED ({diff.regressions} regression(s))", _RED, c) if diff.regressed
               else _paint("no regression", _GREEN, c))
    out = [f"diff {diff.new.lane}: {printable(display_path(diff.old_label))} -> {printable(display_path(diff.new_label))} · "
           f"profile {diff.new.profile} · {verdict}", *(printable(n) for n in lane_notes(options.lanes)), "metrics:"]
    width = max((len(d.name) for d in diff.metrics), default=10) + 2
    for d in diff.metrics:
        change = d.change
        mark = (_paint("REGRESSED", _RED, c) if d.regressed
                else _paint("improved", _GREEN, c) if d.improved else "")
        out.append(f"  {d.name:<{width}}{fmt_value(d.old):>8} -> {fmt_value(d.new):<8}{change:>9}  {mark}".rstrip())
    if diff.changed:
        out.append(f"flipped verdicts ({len(diff.changed)} case(s)):")
    for case in diff.changed:
        for f in case.flips:
            word = _paint("pass -> FAIL", _RED, c) if f.regressed else _paint("FAIL -> pass", _GREEN, c)
            detail = f": {f.new_message}" if f.regressed and f.new_message else ""
            out.append(f"  {case.case_id}  {f.label}: {word}{detail}")
        if case.old.surface is not None or case.new.surface is not None:
            out.append(f"    old: {case.old.surface}")
            out.append(f"    new: {case.new.surface}")
        for key, old, new in case.fields:
            out.append(f"    {key}: {json.dumps(old, ensure_ascii=False)} -> {json.dumps(new, ensure_ascii=False)}")
    if diff.new_cases:
        out.append(f"new cases ({len(diff.new_cases)}): {_ids([v.case_id for v in diff.new_cases])}")
    if diff.vanished:
        out.append(f"vanished cases ({len(diff.vanished)}): {_ids([v.case_id for v in diff.vanished])}")
    out.append(f"unchanged: {diff.unchanged} case(s)")
    return "\n".join(out) + "\n"


def diff_payload(diff: LaneDiff, lanes: LaneChoices = ()) -> dict[str, Any]:
    """`lanes`: how the runs' lane was chosen (RenderOptions.lanes), the `lanes` key when given."""
    return {
        "tool": "surface-lint",
        "lane": diff.new.lane,
        **({"lanes": lane_records(lanes)} if lanes else {}),
        "version": diff.new.version,
        "profile": diff.new.profile,
        "threshold_set": diff.new.threshold_set,
        "old": display_path(diff.old_label),
        "new": display_path(diff.new_label),
        "regressed": diff.regressed,
        "regressions": diff.regressions,
        "metrics": [
            {"name": d.name, "old": d.old, "new": d.new, "delta": d.delta, "better": d.better,
             "regressed": d.regressed, "improved": d.improved}
            for d in diff.metrics
        ],
        "changed": [
            {
                "case_id": ch.case_id,
                "group": ch.group,
                "regressed": ch.regressed,
                "flips": [
                    {"predicate": f.predicate, "code": f.code, "old": f.old_passed, "new": f.new_passed,
                     "old_message": f.old_message, "new_message": f.new_message}
                    for f in ch.flips
                ],
                "old_surface": ch.old.surface,
                "new_surface": ch.new.surface,
                "fields": {k: [a, b] for k, a, b in ch.fields},
            }
            for ch in diff.changed
        ],
        "new_cases": [{"case_id": v.case_id, "failed_predicates": v.failed_names()} for v in diff.new_cases],
        "vanished_cases": [{"case_id": v.case_id, "failed_predicates": v.failed_names()} for v in diff.vanished],
        "unchanged": diff.unchanged,
    }


def render_json(diff: LaneDiff, options: RenderOptions) -> str:
    return json.dumps(diff_payload(diff, options.lanes), sort_keys=True, indent=2, ensure_ascii=False) + "\n"
