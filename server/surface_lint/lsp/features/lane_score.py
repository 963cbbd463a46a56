"""The lane score of a transcript or report buffer: a code lens and `surfaceLint/laneScore`."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from lsprotocol import types

from ...engine import LaneResult
from ...reporters.common import fmt_value
from ..host import Host
from ..lint import LintResult
from ..wire import ParamField, RawResult
from .common import md_code

LANE_SCORE_METHOD = "surfaceLint/laneScore"
SCORE_COMMAND = "surfaceLint.scoreLane"
LANE_SCORE_PARAMS = {"uri": ParamField(str, required=True)}


def register(server: Host) -> None:
    @server.handle(types.TEXT_DOCUMENT_CODE_LENS, types.CodeLensOptions(resolve_provider=False))
    async def on_code_lens(params: types.CodeLensParams) -> list[types.CodeLens]:
        uri = params.text_document.uri
        score = await score_of(server, uri)
        if score is None:
            return []
        top = types.Range(start=types.Position(line=0, character=0), end=types.Position(line=0, character=0))
        return [types.CodeLens(range=top, command=types.Command(title=lens_title(score), command=SCORE_COMMAND,
                                                                arguments=[uri]))]

    @server.handle(LANE_SCORE_METHOD, params=LANE_SCORE_PARAMS)
    async def on_lane_score(params: Any) -> RawResult:
        # A method of ours: no lsprotocol type to give (the wire checked `uri`); the answer is plain JSON.
        uri = params.get("uri") if isinstance(params, Mapping) else getattr(params, "uri", None)
        if not isinstance(uri, str):
            return RawResult("null")
        return RawResult(json.dumps(await score_of(server, uri)))


async def score_of(server: Host, uri: str) -> dict[str, Any] | None:
    """The lane score of a transcript or report buffer (cached per version)."""
    result = await server.current_result(uri)
    run = server.scheduler.runs.get(uri)
    if result is None or run is None or result.lane is None or result.entry is None \
            or result.kind not in ("turns", "telemetry", "report"):
        return None
    generation = server.state.generation
    cached = run.score
    if cached is not None and cached[1] == generation:
        fresh = cached[0] == result.version
        # A big transcript is rescored at most every few seconds while it is being edited.
        if fresh or (len(result.lines) > 5000 and time.monotonic() - cached[2] < 5.0):
            return cached[3]
    if run.score_task is None or run.score_task.done():
        loop = asyncio.get_running_loop()
        run.score_task = loop.run_in_executor(server.score_pool, _score_job, server, result)
    task = run.score_task
    try:
        score = await asyncio.shield(task)
    except Exception as exc:
        server.log_error(f"{result.path}: could not score the lane: {type(exc).__name__}: {exc}")
        return None
    run.score = (result.version, generation, time.monotonic(), score)
    return score


def _score_job(server: Host, result: LintResult) -> dict[str, Any] | None:
    assert result.entry is not None and result.lane is not None
    engine = result.entry.engine
    texts = {result.path: "\n".join(result.lines).encode("utf-8", "surrogatepass")}
    for path in result.case_paths:
        doc = next((d for d in list(server.state.docs.values()) if d.path == path), None)
        if doc is not None:
            texts[path] = doc.text.encode("utf-8", "surrogatepass")
    lane_result = engine.score(result.lane, list(result.case_paths), [result.path], None, False, 0, texts)
    return lane_score(lane_result, Path(result.path).name)


def verdict_word(passed: bool | None) -> str:
    return "passes" if passed is True else "fails" if passed is False else "no verdict"


def lane_score(result: LaneResult, file_name: str) -> dict[str, Any]:
    """The `surfaceLint/laneScore` answer: lane, profile, headline, pass/fail and a Markdown table."""
    value = result.metrics.get(result.headline)
    number = float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None
    checks = {t.check.metric: t for t in result.thresholds}
    rows = ["| metric | value | threshold | |", "|---|---|---|---|"]
    for name, metric in result.metrics.items():
        t = checks.get(name)
        rows.append(f"| `{name}` | {fmt_value(metric)} | {t.check.describe() if t else ''} | "
                    f"{('✓' if t.passed else '✗') if t else ''} |")
    sets = f", thresholds `{result.threshold_set}`" if result.threshold_set else ""
    scored = result.case_count
    notes = [f"{scored} case(s) scored from {md_code(file_name)}."]  # a file name is data
    if result.missing_transcripts:
        notes.append(f"{len(result.missing_transcripts)} case(s) have no transcript here.")
    if result.unknown_cases:
        notes.append(f"{len(result.unknown_cases)} turn case id(s) match no case.")
    markdown = "\n".join([
        f"### Lane `{result.lane}` {verdict_word(result.passed)} (profile `{result.profile}`{sets})",
        "",
        f"Headline: `{result.headline}` = {fmt_value(value)}",
        "",
        *rows,
        "",
        " ".join(notes),
    ]) + "\n"
    return {"lane": result.lane, "profile": result.profile,
            "headline": {"name": result.headline, "value": number, "text": fmt_value(value)},
            "passed": result.passed, "markdown": markdown}


def lens_title(score: Mapping[str, Any]) -> str:
    head = score["headline"]
    return f"surface-lint · {score['lane']}: {head['name']} {head['text']} · {verdict_word(score['passed'])} ({score['profile']})"
