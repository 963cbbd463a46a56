"""`--watch`: run, then poll the inputs' modification times and run again on a change.

No file-system notification library (none is a dependency): the run's inputs, lane files and
config (and every file under a folder given) are stat'ed every `interval` seconds. Each run
starts from a cleared screen; nothing is kept from one run to the next but the list of paths
and their stat signatures, so memory stays flat however many runs there are.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable, Iterable, Sequence

CLEAR = "\x1b[2J\x1b[H"  # erase the screen, cursor home (what ruff --watch prints)
INTERVAL = 0.5
Signature = tuple[tuple[str, int, int], ...]


def signature(paths: Iterable[str]) -> Signature:
    """(path, mtime in ns, size) of each file (a folder: every file under it, sorted); a file that
    is gone counts as (path, -1, -1), so its deletion and return are changes too."""
    out: list[tuple[str, int, int]] = []
    for path in paths:
        if os.path.isdir(path):
            for folder, subfolders, names in os.walk(path):
                subfolders[:] = sorted(d for d in subfolders if not d.startswith("."))
                out.extend(_stat(os.path.join(folder, name)) for name in sorted(names))
        else:
            out.append(_stat(path))
    return tuple(out)


def _stat(path: str) -> tuple[str, int, int]:
    try:
        st = os.stat(path)
    except OSError:
        return (path, -1, -1)
    return (path, st.st_mtime_ns, st.st_size)


def watch(run: Callable[[list[str]], int], runs: int | None = None, interval: float = INTERVAL,
          sleep: Callable[[float], None] = time.sleep) -> int:
    """Call `run(inputs)` (it appends the paths it read to `inputs`) now and after each change;
    until interrupted, or `runs` runs (tests). The last run's exit code is returned."""
    done = 0
    code = 0
    while True:
        sys.stdout.write(CLEAR)
        inputs: list[str] = []
        code = run(inputs)
        done += 1
        sys.stdout.write(f"[watching {len(set(inputs))} path(s) for changes; Ctrl-C to stop]\n")
        sys.stdout.flush()
        if runs is not None and done >= runs:
            return code
        before = signature(dict.fromkeys(inputs))
        while signature(dict.fromkeys(inputs)) == before:
            sleep(interval)


def without_watch(argv: Sequence[str]) -> list[str]:
    """`argv` less `--watch` and `--watch-runs N` (the run each change repeats)."""
    out: list[str] = []
    skip = False
    for a in argv:
        if skip:
            skip = False
        elif a == "--watch-runs":
            skip = True
        elif a != "--watch" and not a.startswith("--watch-runs="):
            out.append(a)
    return out
