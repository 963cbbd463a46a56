"""A progress bar on stderr for long runs: only on a terminal, never in CI, and only after a second."""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable
from typing import TextIO

WIDTH = 24


def in_ci(environ: dict[str, str] | None = None) -> bool:
    value = (os.environ if environ is None else environ).get("CI", "")
    return value.strip().lower() not in ("", "0", "false", "no")


class Progress:
    """`done/total` files as a bar redrawn in place; drawn once `delay` seconds have passed.

    Draws nothing unless the stream is a terminal and CI is not set (so logs stay clean); the
    line is cleared on close, leaving the output as if there had been no bar.
    """

    def __init__(self, total: int, unit: str = "files", stream: TextIO | None = None,
                 delay: float = 1.0, clock: Callable[[], float] = time.monotonic,
                 enabled: bool | None = None) -> None:
        self.stream = stream if stream is not None else sys.stderr
        self.total = total
        self.unit = unit
        self.done = 0
        self.delay = delay
        self.clock = clock
        self.start = clock()
        self.drawn = False
        if enabled is None:
            enabled = self.stream.isatty() and not in_ci()
        self.enabled = enabled and total > 0

    def advance(self, *_: object) -> None:
        self.done += 1
        if self.enabled and self.clock() - self.start >= self.delay:
            self._draw()

    def _draw(self) -> None:
        filled = WIDTH * self.done // self.total
        bar = "#" * filled + "-" * (WIDTH - filled)
        elapsed = self.clock() - self.start
        self.stream.write(f"\r[{bar}] {self.done}/{self.total} {self.unit}  {elapsed:.1f}s\x1b[K")
        self.stream.flush()
        self.drawn = True

    def close(self) -> None:
        if self.drawn:
            self.stream.write("\r\x1b[K")
            self.stream.flush()
            self.drawn = False

    def __enter__(self) -> Progress:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()
