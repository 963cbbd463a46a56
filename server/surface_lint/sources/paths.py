"""Input paths: the same file named twice (`a.jsonl ./a.jsonl`, a symlink) is read once."""

from __future__ import annotations

import os
from collections.abc import Sequence


def unique_paths(paths: Sequence[str]) -> list[str]:
    """`paths` in order without the later names of a file already named (same device and inode;
    a path that cannot be stat'ed, such as an unsaved editor buffer, by its absolute name)."""
    seen: set[object] = set()
    out: list[str] = []
    for path in paths:
        try:
            st = os.stat(path)
            key: object = (st.st_dev, st.st_ino)
        except (OSError, ValueError):
            key = os.path.normcase(os.path.abspath(path))
        if key in seen:
            continue
        seen.add(key)
        out.append(path)
    return out
