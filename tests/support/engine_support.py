"""Helpers for the engine tests: build documents, run the engine, compare findings exactly.

Every expected finding in these tests is a full tuple
(path, line, column, end_line, end_column, code, severity, message): 1-based lines,
columns in Unicode code points of the source line, end exclusive.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from surface_lint.engine import CaseIndex, DocResult, Engine
from surface_lint.engine.config import Config
from surface_lint.model.findings import Finding
from surface_lint.sources.base import ReadStats

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "fixtures" / "engine"
RULES = ROOT / "rules"

FindingTuple = tuple[str, int, int, int, int, str, str, str]

# A turn line as `turn()` writes it: `{"case_id": "c1", "surface": "` is 30 code points,
# so the surface's first character sits at column 31 (when it needs no escapes).
S = 31


def ft(f: Finding) -> FindingTuple:
    loc = f.location
    return (loc.path, loc.line, loc.column, loc.end_line, loc.end_column, f.code, f.severity.label, f.message)


def fts(findings: Iterable[Finding], codes: Iterable[str] | None = None) -> list[FindingTuple]:
    wanted = set(codes) if codes is not None else None
    return [ft(f) for f in findings if wanted is None or f.code in wanted]


def codes(findings: Iterable[Finding]) -> list[str]:
    return [f.code for f in findings]


def turn(surface: str, case_id: str = "c1", grounding: str | None = "pack", **extra: Any) -> str:
    """One canonical turn line; the surface first so that it starts at column S."""
    obj: dict[str, Any] = {"case_id": case_id, "surface": surface}
    if grounding is not None:
        obj["grounding_source"] = grounding
    obj.update(extra)
    return json.dumps(obj, ensure_ascii=False)


def jsonl(lines: Sequence[str | Mapping[str, Any]]) -> bytes:
    out = []
    for line in lines:
        out.append(line if isinstance(line, str) else json.dumps(line, ensure_ascii=False))
    return ("\n".join(out) + "\n").encode("utf-8")


def check(
    data: bytes | str | Sequence[str | Mapping[str, Any]],
    path: str = "t.jsonl",
    engine: Engine | None = None,
    **kwargs: Any,
) -> DocResult:
    if isinstance(data, str):
        data = data.encode("utf-8")
    elif not isinstance(data, bytes):
        data = jsonl(data)
    return (engine or Engine()).check_bytes(path, data, **kwargs)


def assert_counts(stats: ReadStats) -> None:
    """Every line read is accounted for exactly once."""
    assert stats.lines == stats.records + stats.errors + stats.blank + stats.skipped, stats


def write(path: Path, data: bytes | str | Sequence[str | Mapping[str, Any]]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(data, str):
        path.write_text(data, encoding="utf-8")
    elif isinstance(data, bytes):
        path.write_bytes(data)
    else:
        path.write_bytes(jsonl(data))
    return path


def cases_index(engine: Engine, path: Path, lane: str) -> CaseIndex:
    _, index = engine.load_cases([str(path)], engine.lane(lane))
    return index


def user_lane_config(*lane_files: Path, **kwargs: Any) -> Config:
    return Config(lane_files=list(lane_files), **kwargs)


def snapshot(paths: Iterable[Path]) -> dict[Path, tuple[bytes, int]]:
    """Bytes and mtime of files, to prove the engine never writes into its inputs."""
    return {p: (p.read_bytes(), p.stat().st_mtime_ns) for p in paths}
