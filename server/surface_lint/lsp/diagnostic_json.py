"""Findings -> LSP Diagnostic JSON: the hot path, pre-serialised and cached per finding.

Plain JSON, not typed lsprotocol objects, on this measured hot path (bench transcript, 4,041
diagnostics, CPU): built once 56 ms, then 0.9 ms per publish from the cache; typed, each publish
would unstructure and dump them again, 46 ms (more than a whole edit's p95, about 20 ms).
The scheduler (push) and the pull handlers (`features.diagnostics`) use the same builder.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from ..model.checks import CHECKS
from ..model.findings import Finding
from ..reporters.docs import check_url, rule_url
from .documents import Bare
from .lint import EngineEntry, LintResult
from .positions import LSP_SEVERITY, SOURCE, JsonRange, Positions, lsp_range

_COMPACT = (",", ":")


def href(entry: EngineEntry | None, lane_name: str | None, f: Finding) -> str | None:
    """Where the finding's rule is documented: its lane file (predicates) or checks.py."""
    if entry is None:
        return None
    key = (lane_name or "", f.code)
    cached = entry.hrefs.get(key)
    if cached is not None:
        return cached
    url: str | None = None
    lane = entry.engine.lane_set.get(lane_name) if lane_name else None
    spec = lane.predicate(f.rule) if lane is not None else None
    if lane is not None and spec is not None and spec.code == f.code:
        url = rule_url(spec, lane)
    elif f.code in CHECKS:
        url = check_url(f.code)
    if url is not None:
        entry.hrefs[key] = url
    return url


class DiagnosticBuilder:
    """Findings -> LSP Diagnostic JSON, memoised per finding object of one document."""

    def __init__(self, positions: Positions, related: bool, code_description: bool = True,
                 data: bool = True) -> None:
        self.positions = positions
        self.related = related  # only what the client says it supports is sent
        self.code_description = code_description
        self.data = data
        self._cache: dict[int, tuple[Finding, str]] = {}
        self._bare: Bare = {}  # the bare CRs the cached ranges were computed with

    def diagnostic(self, f: Finding, result: LintResult) -> dict[str, Any]:
        pos = self.positions
        out: dict[str, Any] = {
            "range": pos.range(f.location, result),
            "severity": LSP_SEVERITY[f.severity],
            "code": f.code,
            "source": SOURCE,
            "message": f.message,
        }
        url = href(result.entry, result.lane, f) if self.code_description else None
        if url is not None:
            out["codeDescription"] = {"href": url}
        if self.related and f.related:
            out["relatedInformation"] = [
                {"location": pos.location(r.location, result), "message": r.message} for r in f.related
            ]
        data: dict[str, Any] = {}
        if f.fixes:
            data["fixes"] = [
                {"title": x.title, "range": pos.range(x.location, result), "newText": x.replacement}
                for x in f.fixes if x.location.path == result.path
            ]
        if f.record_index is not None:
            data["record"] = f.location.line - 1  # the line the record starts on (for "disable")
        if self.data and data:
            out["data"] = data
        return out

    def json_items(self, result: LintResult, extra: Iterable[dict[str, Any]] = (), keep: bool = False) -> list[str]:
        """Each finding's Diagnostic as JSON text (cached), plus any extra diagnostics.

        The cache is replaced by this result's findings, or only added to with `keep`
        (a partial result while a long lint runs)."""
        if result.bare != self._bare:  # client line numbers moved: no cached range holds
            self._cache = {}
            self._bare = dict(result.bare)
        cache = self._cache
        fresh: dict[int, tuple[Finding, str]] = cache if keep else {}
        items: list[str] = []
        for f in result.findings:
            hit = cache.get(id(f))
            if hit is None or hit[0] is not f:
                hit = (f, json.dumps(self.diagnostic(f, result), separators=_COMPACT))
            fresh[id(f)] = hit
            items.append(hit[1])
        self._cache = fresh
        items.extend(json.dumps(d, separators=_COMPACT) for d in extra)
        return items


def diagnostic_support(text: Mapping[str, Any] | None) -> tuple[bool, bool, bool, bool]:
    """From the client's `textDocument` capabilities (JSON): whether it pulls diagnostics, and
    whether they may carry relatedInformation, codeDescription and data. What diagnostics may
    carry: the pull capabilities (LSP 3.18) when they say, else the publishDiagnostics ones (VS
    Code declares them there only)."""
    pulled = text.get("diagnostic") if text is not None else None
    pushed = text.get("publishDiagnostics") if text is not None else None

    def supports(name: str) -> bool:
        for caps in (pulled, pushed):
            value = caps.get(name) if isinstance(caps, Mapping) else None
            if value is not None:
                return bool(value)
        return False

    return (pulled is not None, supports("relatedInformation"), supports("codeDescriptionSupport"),
            supports("dataSupport"))


def error_diagnostic(message: str, code: str | None = None, line: int = 0,
                     rng: JsonRange | None = None) -> dict[str, Any]:
    out: dict[str, Any] = {"range": rng or lsp_range(line, 0, line, 0), "severity": 1, "source": SOURCE,
                           "message": message}
    if code is not None:
        out["code"] = code
        if code in CHECKS:
            out["codeDescription"] = {"href": check_url(code)}
    return out


def items_json(items: Sequence[str]) -> str:
    return "[" + ",".join(items) + "]"


def publish_message(uri: str, version: int | None, items: Sequence[str]) -> str:
    """A `textDocument/publishDiagnostics` notification, as JSON text: the server's publish
    (`server.publish`), and the first publish of a cold open (`first.py`), so both give the same bytes."""
    params = '{"uri":' + json.dumps(uri)
    if version is not None:
        params += ',"version":' + json.dumps(version)
    params += ',"diagnostics":' + items_json(items) + "}"
    return '{"jsonrpc":"2.0","method":"textDocument/publishDiagnostics","params":' + params + "}"


def result_id(result: LintResult) -> str:
    """The resultId of a pulled report of this lint (`textDocument/diagnostic`)."""
    return f"{result.generation}:{result.version}:{id(result)}"


def full_report(result: LintResult, items: Sequence[str]) -> str:
    """A full `textDocument/diagnostic` report of this lint, as JSON text."""
    return '{"kind":"full","resultId":' + json.dumps(result_id(result)) + ',"items":' + items_json(items) + "}"
