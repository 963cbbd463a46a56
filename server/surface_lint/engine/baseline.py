"""The baseline ratchet: a lane's metrics must not fall below a previous run's.

A baseline is a previous `--lane --output-format json` output (a runtime lane report works too:
only `metrics`, and `lane` when present, are read). `--update-baseline` writes the new run in
that same JSON, which is deterministic (sorted keys, no timestamps).
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..model.jsonread import loads
from ..rules.loader import Lane
from . import LaneResult, UsageError
from .diff import MetricDelta, compare_metrics


@dataclass(frozen=True)
class BaselineReport:
    path: str
    tolerance: float
    deltas: list[MetricDelta]

    @property
    def regressions(self) -> list[MetricDelta]:
        return [d for d in self.deltas if d.regressed]

    @property
    def passed(self) -> bool:
        return not self.regressions

    def regression_lines(self) -> list[str]:
        tol = f" (tolerance {self.tolerance:g})" if self.tolerance else ""
        return [f"{d.describe()} is below the baseline {self.path}{tol}" for d in self.regressions]

    def render_text(self) -> str:
        head = f"baseline {self.path}: " + (
            "no metric below it" if self.passed else f"{len(self.regressions)} metric(s) below it")
        if self.tolerance:
            head += f" (tolerance {self.tolerance:g})"
        lines = [head]
        for d in self.deltas:
            if d.regressed or d.improved:
                lines.append(f"  {d.describe()}  {'REGRESSED' if d.regressed else 'improved'}")
        return "\n".join(lines) + "\n"


class BaselineUnreadable(UsageError):
    """A baseline that is missing, not UTF-8, not JSON or not a lane run: `--update-baseline`
    replaces it; a comparison stops with this message, at file:line:column."""

    def __init__(self, message: str, exists: bool = True) -> None:
        super().__init__(message)
        self.exists = exists


def read_baseline(path: Path) -> dict[str, Any]:
    try:
        if not path.is_dir() and not path.is_file() and path.exists():  # a device or a pipe: never read whole
            raise UsageError(f"{path}: cannot read the baseline: not a regular file (a device or a pipe)")
        data = path.read_bytes()
    except FileNotFoundError:
        raise BaselineUnreadable(f"{path}: cannot read the baseline: No such file or directory", exists=False) from None
    except IsADirectoryError:
        raise UsageError(f"{path}: cannot read the baseline: is a folder") from None
    except OSError as exc:  # a file we cannot read is not ours to replace either
        raise UsageError(f"{path}: cannot read the baseline: {exc.strerror}") from None
    body = data[3:] if data.startswith(b"\xef\xbb\xbf") else data  # a BOM is not content
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError as exc:
        line, column = _byte_position(body, exc.start)
        raise BaselineUnreadable(f"{path}:{line}:{column}: the baseline is not UTF-8 "
                                 f"(byte 0x{body[exc.start]:02x})") from None
    try:
        parsed = loads(text)
    except json.JSONDecodeError as exc:
        raise BaselineUnreadable(f"{path}:{exc.lineno}:{exc.colno}: the baseline is not JSON: {exc.msg}") from None
    except RecursionError:
        raise BaselineUnreadable(f"{path}:1:1: the baseline is not JSON: nested too deeply") from None
    if not isinstance(parsed, dict) or not isinstance(parsed.get("metrics"), dict):
        raise BaselineUnreadable(f"{path}:1:1: a baseline is a `--lane --output-format json` output "
                                 "(no `metrics` object)")
    return parsed


def _byte_position(data: bytes, offset: int) -> tuple[int, int]:
    """1-based line and column (in characters) of a byte offset."""
    start = data.rfind(b"\n", 0, offset) + 1
    line = data.count(b"\n", 0, offset) + 1
    return line, len(data[start:offset].decode("utf-8", "replace")) + 1


def check_tolerance(tolerance: float) -> None:
    """NaN would make every comparison false (a ratchet that never fails); inf allows anything."""
    if not math.isfinite(tolerance) or tolerance < 0:
        raise UsageError(f"--baseline-tolerance must be a finite number, 0 or more, not {tolerance:g}")


def check_baseline(path: Path, result: LaneResult, lane: Lane, tolerance: float) -> BaselineReport:
    check_tolerance(tolerance)
    data = read_baseline(path)
    if isinstance(data.get("lane"), str) and data["lane"] != result.lane:
        raise UsageError(f"{path}: the baseline is of lane {data['lane']}, this run of {result.lane}")
    deltas = compare_metrics(lane, data["metrics"], result.metrics, result.threshold_set, tolerance,
                             results=(result.thresholds,))
    return BaselineReport(str(path), tolerance, deltas)
