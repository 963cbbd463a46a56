"""JSON Lines: one compact object per line, each with a `type`, sorted keys, no timestamps.

`check`: one `finding` per line. `--lane`: one `case` per scored case (input order), one
`finding` per finding, one `threshold` per checked threshold, then a closing `summary` (its
id lists written an id at a time: they may be kept on disk).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from json.encoder import encode_basestring
from typing import TYPE_CHECKING, Any, TextIO

from ..engine import LaneResult
from .common import SafeOut, capture, case_status, lane_records, reported_predicates
from .diff_text import diff_payload
from .records import FindingRecords, stored_findings

if TYPE_CHECKING:
    from ..engine.diff import LaneDiff
    from .options import CheckRun, RenderOptions


# What json.dumps(obj, sort_keys=True, ensure_ascii=False, separators=(",", ":")) builds per call.
_ENCODER = json.JSONEncoder(sort_keys=True, ensure_ascii=False, separators=(",", ":"))


def _line(obj: dict[str, Any]) -> str:
    return _ENCODER.encode(obj)


def _text(value: Any) -> str:
    """`_ENCODER.encode(value)`; a str by the C function that encoder calls for it (the encoder's
    own `encode` is Python, and builds a C encoder per call for anything else)."""
    return encode_basestring(value) if type(value) is str else _ENCODER.encode(value)


def _case_line(case_id: str, details: Any, failed: list[str], status: str, encode: Callable[[Any], str] = _text,
               encode_details: Callable[[Any], str] = _ENCODER.encode, failed_text: str | None = None) -> str:
    """`_line({"type": "case", "case_id": ..., "status": ..., "failed_predicates": ..., "details": ...})`:
    its members in sorted order, each encoded as the encoder encodes it nested (no dict built and
    sorted per case); `encode_details` may take shared details (`_SharedDetails`); `failed_text`:
    `failed` encoded already (`_FailedText`)."""
    if failed_text is None:
        failed_text = encode(failed)
    return (f'{{"case_id":{encode(case_id)},"details":{encode_details(details)},"failed_predicates":{failed_text},'
            f'"status":{encode(status)},"type":"case"}}')


class _FailedText:
    """A case line's failed names encoded, one text per set of names (a run's failing cases fail
    few distinct sets; at most 4,096 remembered, cleared when full)."""

    def __init__(self) -> None:
        self._texts: dict[tuple[str, ...], str] = {}

    def __call__(self, failed: list[str]) -> str:
        key = tuple(failed)
        text = self._texts.get(key)
        if text is None:
            if len(self._texts) >= 4096:
                self._texts.clear()
            text = self._texts[key] = _ENCODER.encode(failed)
        return text


class _SharedDetails:
    """The compact text of shared case details (engine/details.py `SharedDetails`, a status
    row's): the text around the id made once per serial (at most 4,096 remembered), the id's
    own text per case; a row's plain dict (a worker's) encoded whole."""

    def __init__(self) -> None:
        self._around: dict[int, tuple[str, ...]] = {}  # () when the id cannot be told apart in the text

    def __call__(self, details: Any) -> str:
        if type(details) is not tuple:
            return _ENCODER.encode(details)
        serial, shared, id_key, id_value = details
        around = self._around.get(serial)
        if around is None:
            around = _around(shared, id_key) if id_key else (_ENCODER.encode(shared), "")
            if len(self._around) >= 4096:
                self._around.clear()
            self._around[serial] = around
        if not around:
            return _ENCODER.encode({**shared, id_key: id_value})
        if not id_key:
            return around[0]
        return around[0] + _text(id_value) + around[1]


def _around(details: dict[str, Any], id_key: str) -> tuple[str, ...]:
    """The compact text of `details` before and after `id_key`'s value, or () when the mark put
    there is not found exactly once in it."""
    text = _ENCODER.encode({**details, id_key: _ID_MARK})
    at = text.find(_ID_MARK_TEXT)
    if at < 0 or text.find(_ID_MARK_TEXT, at + 1) >= 0:
        return ()
    return text[:at], text[at + len(_ID_MARK_TEXT):]


_ID_MARK = "\x00surface-lint case id\x00"
_ID_MARK_TEXT = _ENCODER.encode(_ID_MARK)


def _finding_lines() -> FindingRecords:
    """`_line({"type": "finding", **f.to_dict()})` per finding `f`."""
    return FindingRecords(_ENCODER.encode, {"type": "finding"})


def write_check(run: CheckRun, options: RenderOptions, out: TextIO) -> None:
    w = SafeOut(out).write
    line = _finding_lines()
    for f in run.findings:
        w(line(f) + "\n")
    if options.lanes:  # the closing line: the lanes, how each was chosen, the profile
        w(_line({"type": "run", "lanes": lane_records(options.lanes), "profile": run.profile}) + "\n")


def render_check(run: CheckRun, options: RenderOptions) -> str:
    return capture(lambda out: write_check(run, options, out))


def write_lane(result: LaneResult, options: RenderOptions, out: TextIO) -> None:
    w = SafeOut(out).write
    lane = options.lane
    predicates = reported_predicates(lane, result.outcomes if lane is None else ())
    case_verdict = lane is not None and lane.casework is not None
    names: dict[tuple[str, ...], tuple[str, ...]] = {}
    details_text = _SharedDetails()
    failed_text = _FailedText()
    for outcome in result.outcomes:
        status, failed = case_status(outcome, predicates, case_verdict, names)
        w(_case_line(outcome.case_id, outcome.details, failed, status, encode_details=details_text,
                     failed_text=failed_text(failed)) + "\n")
    line = _finding_lines()
    for f in stored_findings(result.findings):
        w(line(f) + "\n")
    for t in result.thresholds:
        w(_line({"type": "threshold", "metric": t.check.metric, "op": t.check.op, "value": t.check.value,
                 "tolerance": t.check.tolerance, "actual": t.actual, "passed": t.passed}) + "\n")
    summary: dict[str, Any] = {
        "type": "summary", "lane": result.lane, "version": result.version, "profile": result.profile,
        **({"lane_choice": lane_records(options.lanes)[0]} if options.lanes else {}),
        **({"selection": options.findings_filter.record()} if options.findings_filter is not None else {}),
        "threshold_set": result.threshold_set, "headline": result.headline, "passed": result.passed,
        "metrics": result.metrics, "cases": len(result.outcomes),
        "missing_transcripts": result.missing_transcripts, "unknown_cases": result.unknown_cases}
    if result.nothing_scored is not None:
        summary["nothing_scored"] = result.nothing_scored
    _write_streamed(summary, ("missing_transcripts", "unknown_cases"), w)
    w("\n")


def _write_streamed(obj: dict[str, Any], streamed: tuple[str, ...], w: Callable[[str], None]) -> None:
    """`_line(obj)`, written member by member: the `streamed` members' ids (which may be kept on
    disk) one at a time, never all in memory."""
    w("{")
    for n, key in enumerate(sorted(obj)):
        w(("," if n else "") + _ENCODER.encode(key) + ":")
        if key in streamed:
            w("[")
            for i, item in enumerate(obj[key]):
                w(("," if i else "") + _ENCODER.encode(item))
            w("]")
        else:
            w(_ENCODER.encode(obj[key]))
    w("}")


def render_lane(result: LaneResult, options: RenderOptions) -> str:
    return capture(lambda out: write_lane(result, options, out))


def render_diff(diff: LaneDiff, options: RenderOptions) -> str:
    """A run-vs-run diff: one `metric` per metric, one `change` per flipped case, one
    `new_case` / `vanished_case` each, then a closing `summary`."""
    payload = diff_payload(diff, options.lanes)
    lines = [_line({"type": "metric", **m}) for m in payload["metrics"]]
    lines.extend(_line({"type": "change", **c}) for c in payload["changed"])
    lines.extend(_line({"type": "new_case", **c}) for c in payload["new_cases"])
    lines.extend(_line({"type": "vanished_case", **c}) for c in payload["vanished_cases"])
    summary = {k: v for k, v in payload.items() if k not in ("metrics", "changed", "new_cases", "vanished_cases")}
    lines.append(_line({"type": "summary", **summary}))
    return "".join(line + "\n" for line in lines)
