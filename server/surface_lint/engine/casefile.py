"""`check <case file>` from disk, streamed: the findings `DocumentChecker.cases` gives, in its
order, without holding the file (or its sibling case files) in memory.

The file and its lane's sibling case files (in split order) are streamed into a `CaseIndex`,
which keeps them on disk past `caseindex.MEMORY_CASES` cases. The file's own findings (its
records', its reader's, its duplicates within it) come first, then the duplicates across the
files and the holdout leaks that land in it, less any already reported at the same place (the
editor's rule: a later twin within the file is flagged once). Suppressions are read from the
parsed records as they stream.
"""

from __future__ import annotations

from collections.abc import Callable
from itertools import chain
from typing import IO

from ..model.checks import CHECK_CODES as C
from ..model.findings import Finding
from ..rules.loader import Lane
from ..sources.base import ReadStats
from ..sources.cases import CaseFile, sibling_case_files, split_of
from ..sources.suppress import Suppressions
from .caseindex import CaseIndex, IdSet
from .detect import first_object
from .services import EngineServices

HEAD_BYTES = 65536  # what lane detection reads of a case file first (as `Engine.load_cases`)
# The codes of the findings across files: only an own finding with one of them can be the same one.
ACROSS_CODES = frozenset({C.DUPLICATE_ID, C.HOLDOUT_LEAK})


def _place(finding: Finding) -> str:
    loc = finding.location
    return f"{finding.code}:{loc.line}:{loc.column}:{loc.end_line}:{loc.end_column}"


def check_case_file(engine: EngineServices, lane_of: Callable[[dict[str, object] | None], Lane], path: str,
                    stream: IO[bytes], lane_name: str | None, sink: Callable[[Finding], None], memory_cases: int | None = None) -> ReadStats:
    """One case file's findings to `sink` and its read counts; `stream` is at its start. `lane_of`:
    the lane of the file given its first record (`--lane`, else detected)."""
    first = first_object(stream.read(HEAD_BYTES))
    if first is None and not lane_name:  # no whole record in the head: as `load_cases`, the whole file
        stream.seek(0)
        first = first_object(stream.read())
    stream.seek(0)
    lane = lane_of(first)
    max_line = engine.config.max_line_bytes
    # Canonical split order (dev, public, holdouts): the later twin is the one flagged, whichever file is checked.
    siblings = [str(p) for p in sibling_case_files(path, lane.name)]
    order = sorted([path, *siblings], key=lambda p: split_rank(CaseFile(p, lane, split_of(p))))
    suppressions = Suppressions()
    index = CaseIndex(memory_cases)
    try:
        mine = -1
        for name in order:
            if name == path:
                mine = len(index.files)
                index.read(path, stream, lane, max_line, note=suppressions.note)
                continue
            try:
                with open(name, "rb") as fh:
                    index.read(name, fh, lane, max_line)
            except OSError:
                continue  # an unreadable sibling is left out, as when it is read whole
        seen = IdSet()  # bounded: on disk past a few thousand places
        for finding in index.file_findings(mine):
            if finding.code in ACROSS_CODES:
                seen.add(_place(finding))
            if suppressions.keeps(finding):
                sink(finding)
        if len(index.files) > 1:
            for finding in chain(index.cross_duplicates(), index.leaks()):
                if finding.path == path and _place(finding) not in seen and suppressions.keeps(finding):
                    sink(finding)
        return index.files[mine].stats
    finally:
        index.close()


def split_rank(case_file: CaseFile) -> int:
    return {"dev": 0, "public": 1, "holdouts": 2}.get(case_file.split or "", 3)
