"""Input paths: the same file named twice (`a.jsonl ./a.jsonl`, a symlink) is read once."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Sequence


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


def walk(root: str | os.PathLike[str],
         onerror: Callable[[OSError], None] | None = None) -> Iterator[tuple[str, list[str], list[str]]]:
    """`os.walk(root, onerror=onerror)` (top-down, links to folders listed but not entered, so a
    link loop is never followed) with an explicit stack: a tree of any depth, no recursion limit
    (os.walk recurses once per level before Python 3.12). The caller may prune `subfolders` in
    place, as with os.walk; the order is os.walk's."""
    stack: list[str] = [os.fspath(root)]
    while stack:
        top = stack.pop()
        folders: list[str] = []
        names: list[str] = []
        entered: set[str] = set()  # the subfolders that are folders, not links to one
        try:
            with os.scandir(top) as entries:
                for entry in entries:
                    try:
                        is_folder = entry.is_dir()
                    except OSError:
                        is_folder = False
                    if is_folder:
                        folders.append(entry.name)
                        try:
                            if not entry.is_symlink():
                                entered.add(entry.name)
                        except OSError:
                            pass
                    else:
                        names.append(entry.name)
        except OSError as exc:
            if onerror is not None:
                onerror(exc)
            continue
        yield top, folders, names
        stack.extend(os.path.join(top, name) for name in reversed(folders) if name in entered)
