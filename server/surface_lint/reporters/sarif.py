"""SARIF 2.1.0, as GitHub code scanning accepts it.

Rule ids are our codes; regions are 1-based with columns in Unicode code points (the run says
so with `columnKind`), end column exclusive as SARIF defines it; `partialFingerprints` hash the
code, the path and the case (or line), never positions inside a surface, so they stay stable
across runs.
"""

from __future__ import annotations

import functools
import hashlib
import json
from array import array
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import replace
from json.encoder import encode_basestring
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO
from urllib.parse import quote

from .. import __version__
from ..engine import LaneResult
from ..model.findings import Finding, Location, Severity, stored_code, unpacked_finding
from .common import LaneChoices, RuleInfo, SafeOut, capture, display_path, lane_records, printable
from .json_format import indented
from .records import PARTIAL_AFTER, slot_template, stored_findings

if TYPE_CHECKING:
    from ..engine.diff import LaneDiff
    from .options import CheckRun, RenderOptions

SCHEMA_URI = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
FINGERPRINT_KEY = "surfaceLint/v1"
SRCROOT = "%SRCROOT%"
_PARTIALS_KEPT = 1024  # partly written result templates per log (cleared when full)
_SEEN_KEPT = 4096  # strings counted toward their template (cleared when full)
FINGERPRINT_MEMORY = 65536  # distinct fingerprint keys whose occurrence counts are kept
LEVELS = {
    Severity.ERROR: "error",
    Severity.WARNING: "warning",
    Severity.INFORMATION: "note",
    Severity.HINT: "note",
}
_LEVEL_OF = {int(s): level for s, level in LEVELS.items()}  # a packed finding's severity is its number


def artifact_location(path: str) -> dict[str, str]:
    """Relative to the source root when the file is under the working directory; else a file URI."""
    return dict(_artifact(display_path(path)))


@functools.lru_cache(maxsize=1024)
def _artifact(shown: str) -> dict[str, str]:
    """The artifact location of a displayed path (a run's findings name few files: each is parsed once)."""
    if Path(shown).is_absolute():
        return {"uri": Path(shown).as_uri()}
    return {"uri": quote(shown, safe="/"), "uriBaseId": SRCROOT}


def region(loc: Location) -> dict[str, int]:
    return {"startLine": loc.line, "startColumn": loc.column, "endLine": loc.end_line, "endColumn": loc.end_column}


def physical(loc: Location) -> dict[str, Any]:
    return {"physicalLocation": {"artifactLocation": artifact_location(loc.path), "region": region(loc)}}


class Fingerprints:
    """Per finding: a hash of (code, path, case id or line) and its occurrence number among equals.

    Equal keys sit together in the sorted findings (one record's); the counts of the last
    FINGERPRINT_MEMORY distinct keys (least recently used first out) are kept in flat arrays
    allocated once, so memory is bounded and does not grow with the findings."""

    def __init__(self) -> None:
        self.seen = _FlatLru(FINGERPRINT_MEMORY)
        # (code, path) -> the hashed key's start, code and displayed path (a log's findings name few).
        self._heads: dict[tuple[str, str], str] = {}

    def __call__(self, f: Finding) -> str:
        return self.of(f.code, f.path, f.record_id, f.location.line)

    def of(self, code: str, path: str, record_id: str | None, line: int) -> str:
        """The fingerprint of a finding of these fields (`self(f)`, from a packed finding)."""
        head = self._heads.get((code, path))
        if head is None:
            head = f"{code}\0{display_path(path)}\0"
            if len(self._heads) >= _PARTIALS_KEPT:
                self._heads.clear()
            self._heads[(code, path)] = head
        key = f"{head}case:{record_id}" if record_id is not None else f"{head}line:{line}"
        digest = hashlib.sha256(key.encode("utf-8", "surrogatepass")).hexdigest()[:16]
        return f"{digest}:{self.seen.bump(int(digest, 16))}"


class _FlatLru:
    """A count per 64-bit key for the last `capacity` distinct keys used (an OrderedDict's
    pop-and-reinsert with the oldest evicted), in a linear-probing table of flat arrays with a
    recency list through its slots: a fixed size from the start, however many keys pass through."""

    def __init__(self, capacity: int) -> None:
        self.capacity = capacity
        size = 1 << max(2, (2 * capacity - 1).bit_length())  # load at most a half
        self.mask = size - 1
        self.keys = array("Q", bytes(8 * size))
        self.counts = array("i", bytes(4 * size))
        self.full = bytearray(size)
        self.older = array("i", [-1]) * size  # the recency list: slot -> the slot used before / after it
        self.newer = array("i", [-1]) * size
        self.oldest = self.newest = -1
        self.used = 0

    def _find(self, key: int) -> int:
        """The slot holding `key`, or the empty slot that ends its probe path."""
        mask, full, keys = self.mask, self.full, self.keys
        i = key & mask
        while full[i] and keys[i] != key:
            i = (i + 1) & mask
        return i

    def _unlink(self, slot: int) -> None:
        older, newer = self.older[slot], self.newer[slot]
        if older >= 0:
            self.newer[older] = newer
        else:
            self.oldest = newer
        if newer >= 0:
            self.older[newer] = older
        else:
            self.newest = older

    def _link_newest(self, slot: int) -> None:
        self.older[slot], self.newer[slot] = self.newest, -1
        if self.newest >= 0:
            self.newer[self.newest] = slot
        else:
            self.oldest = slot
        self.newest = slot

    def bump(self, key: int) -> int:
        """The key's count plus one (1 if it is not among the kept), now its most recent use."""
        # `_find` and, for a new key, `_link_newest` inlined (a log bumps once per result).
        mask, full, keys = self.mask, self.full, self.keys
        slot = key & mask
        while full[slot] and keys[slot] != key:
            slot = (slot + 1) & mask
        if full[slot]:
            self.counts[slot] += 1
            if slot != self.newest:
                self._unlink(slot)
                self._link_newest(slot)
            return self.counts[slot]
        full[slot] = 1
        keys[slot], self.counts[slot] = key, 1
        newest = self.newest
        self.older[slot], self.newer[slot] = newest, -1
        if newest >= 0:
            self.newer[newest] = slot
        else:
            self.oldest = slot
        self.newest = slot
        self.used += 1
        if self.used > self.capacity:
            self._evict(self.oldest)
        return 1

    def _evict(self, slot: int) -> None:
        """Empty `slot`, shifting later entries of its probe run back (no tombstones)."""
        self._unlink(slot)
        self.used -= 1
        mask, full, keys = self.mask, self.full, self.keys
        hole, j = slot, slot
        full[hole] = 0
        while True:
            j = (j + 1) & mask
            if not full[j]:
                break
            home = keys[j] & mask
            # The entry at j stays if its home lies cyclically in (hole, j].
            if (hole < home <= j) if hole <= j else (home > hole or home <= j):
                continue
            self._move(j, hole)
            full[j] = 0
            hole = j

    def _move(self, src: int, dst: int) -> None:
        self.keys[dst], self.counts[dst], self.full[dst] = self.keys[src], self.counts[src], 1
        older, newer = self.older[src], self.newer[src]
        self.older[dst], self.newer[dst] = older, newer
        if older >= 0:
            self.newer[older] = dst
        else:
            self.oldest = dst
        if newer >= 0:
            self.older[newer] = dst
        else:
            self.newest = dst


def fingerprints(findings: Sequence[Finding]) -> list[str]:
    fp = Fingerprints()
    return [fp(f) for f in findings]


def _rule(code: str, info: RuleInfo | None) -> dict[str, Any]:
    if info is None:
        return {"id": code}
    level = LEVELS[Severity.parse(info.default_severity)]
    return {
        "id": code,
        "name": info.name,
        "shortDescription": {"text": info.summary},
        "fullDescription": {"text": info.what},
        "help": {"text": f"{info.what}\n\nWhy: {info.why}"},
        "helpUri": info.help_uri,
        "defaultConfiguration": {"level": level},
        "properties": {"tags": ["surface-lint", info.lane or "files"]},
    }


def _result(f: Finding, index: Mapping[str, int], fp: str) -> dict[str, Any]:
    result: dict[str, Any] = {
        "ruleId": f.code,
        "ruleIndex": index[f.code],
        "level": LEVELS[f.severity],
        "message": {"text": printable(f.message, keep="\n")},  # rendered by code scanning
        "locations": [physical(f.location)],
        "partialFingerprints": {FINGERPRINT_KEY: fp},
    }
    if f.related:
        result["relatedLocations"] = [
            {"id": i, **physical(r.location), "message": {"text": printable(r.message, keep="\n")}}
            for i, r in enumerate(f.related, 1)
        ]
    if f.record_id is not None:
        result["properties"] = {"caseId": f.record_id}
    return result


_RESULTS = "\0surface-lint-results\0"  # where the streamed results go in the log's text


class _ResultText:
    """`indented(_result(f, index, fp), pad, sort_keys=False)` for a finding without related
    locations: one %-template per shape (artifact keys, with or without a case id), made by
    that same `indented` from a result whose values are slots (`records.slot_template`), and the
    values encoded as it encodes them (strings by json's `encode_basestring`, ints by `int.__repr__`)."""

    def __init__(self, pad: str) -> None:
        self.pad = pad
        self.templates: dict[tuple[tuple[str, ...], bool], str] = {}
        # (code, severity, message, path, has a case id) -> `partial`'s template.
        self.partials: dict[tuple[str, int, str, str, bool], str] = {}
        self.seen: dict[tuple[str, int, str, str, bool], int] = {}  # results of those strings so far

    def template(self, artifact: tuple[str, ...], case: bool) -> str:
        key = (artifact, case)
        found = self.templates.get(key)
        if found is None:
            found = self.templates[key] = _result_template(self.pad, case, None, artifact)
        return found

    def __call__(self, f: Finding, index: Mapping[str, int], fp: str) -> str:
        if f.related or (f.record_id is not None and type(f.record_id) is not str):
            return indented(_result(f, index, fp), self.pad, sort_keys=False)
        loc = f.location
        return self.plain(f.code, index[f.code], LEVELS[f.severity], f.message, loc.path, loc.line, loc.column,
                          loc.end_line, loc.end_column, fp, f.record_id)

    def plain(self, code: str, rule_index: int, level: str, message: str, path: str, line: int, column: int,
              end_line: int, end_column: int, fp: str, record_id: str | None) -> str:
        """The result of a finding without related locations, from its fields."""
        enc, num = encode_basestring, int.__repr__
        artifact = _artifact(display_path(path))
        values = [enc(code), num(rule_index), enc(level), enc(printable(message, keep="\n")),
                  *map(enc, artifact.values()), num(line), num(column), num(end_line), num(end_column), enc(fp)]
        if record_id is not None:
            values.append(enc(record_id))
        return self.template(tuple(artifact), record_id is not None) % tuple(values)

    def stored(self, f: Finding | tuple[Any, ...], index: Mapping[str, int], fingerprints: Fingerprints) -> str:
        """`self(f, index, fingerprints(f))` of a finding or of its packed tuple (engine/score.py
        KeptFindings.stored_items): a plain one from its fields, any other as its Finding."""
        if type(f) is not tuple:
            assert isinstance(f, Finding)
            if not f.related and type(f.severity) is Severity:
                loc = f.location
                text = self._filled(f.code, int(f.severity), f.message, loc.path, loc.line, loc.column, loc.end_line,
                                    loc.end_column, f.record_id, index, fingerprints)
                if text is not None:
                    return text
            return self(f, index, fingerprints(f))
        loc, code, _, severity, message, record_id, related, _, _, _ = f
        if not related:
            path, line, column, end_line, end_column = loc
            text = self._filled(code, severity, message, path, line, column, end_line, end_column, record_id, index,
                                fingerprints)
            if text is not None:
                return text
        whole = unpacked_finding(f)
        return self(whole, index, fingerprints(whole))

    def _filled(self, code: str, severity: int, message: str, path: str, line: int, column: int, end_line: int,
                end_column: int, record_id: str | None, index: Mapping[str, int], fingerprints: Fingerprints) -> str | None:
        """`plain`'s result of these fields by `partial`'s template of its strings, None (and no
        fingerprint counted) when a field is not of the type `plain` writes so."""
        if (record_id is not None and type(record_id) is not str) or not (
                type(line) is type(column) is type(end_line) is type(end_column) is int
                and type(code) is type(path) is type(message) is str):
            return None
        key = (code, severity, message, path, record_id is not None)
        partial = self.partials.get(key)
        if partial is None and self._count(key):
            return self.plain(code, index[code], _LEVEL_OF[severity], message, path, line, column, end_line,
                              end_column, fingerprints.of(code, path, record_id, line), record_id)
        if partial is None:
            try:
                partial = self.partial(code, index[code], _LEVEL_OF[severity], message, path, record_id is not None)
            except ValueError:  # a value spelled like a slot: written whole
                return self.plain(code, index[code], _LEVEL_OF[severity], message, path, line, column, end_line,
                                  end_column, fingerprints.of(code, path, record_id, line), record_id)
            if len(self.partials) >= _PARTIALS_KEPT:
                self.partials.clear()
            self.partials[key] = partial
        fp = encode_basestring(fingerprints.of(code, path, record_id, line))
        if record_id is None:
            return partial % (line, column, end_line, end_column, fp)
        return partial % (line, column, end_line, end_column, fp, encode_basestring(record_id))

    def _count(self, key: tuple[str, int, str, str, bool]) -> bool:
        """Whether these strings are still under PARTIAL_AFTER results (counted; records.py): a
        template costs tens of results, made only for strings that come back."""
        seen = self.seen.get(key, 0) + 1
        if seen < PARTIAL_AFTER:
            if len(self.seen) >= _SEEN_KEPT:
                self.seen.clear()
            self.seen[key] = seen
            return True
        self.seen.pop(key, None)
        return False

    def partial(self, code: str, rule_index: int, level: str, message: str, path: str, case: bool) -> str:
        """`plain`'s result with these fields written and a slot at each position, the fingerprint
        and the case id (a run's findings repeat a few messages: `stored` fills only those)."""
        return _result_template(self.pad, case, (code, rule_index, level, printable(message, keep="\n")),
                                _artifact(display_path(path)))


def _result_template(pad: str, case: bool, head: tuple[str, int, str, str] | None,
                     artifact: Mapping[str, str] | tuple[str, ...]) -> str:
    """A result's %-template: `head` (ruleId, ruleIndex, level, message text) and the artifact's
    values written in, or (`head` None, `artifact` its keys) a slot for each; a slot at each
    position, the fingerprint and, with `case`, the case id. Keys unsorted: the slots are written
    in the order they were made."""

    def build(slot: Callable[[], str]) -> dict[str, Any]:
        rule_id, rule_index, level, text = head if head is not None else (slot(), slot(), slot(), slot())
        where = dict(artifact) if isinstance(artifact, Mapping) else {k: slot() for k in artifact}
        result: dict[str, Any] = {
            "ruleId": rule_id, "ruleIndex": rule_index, "level": level, "message": {"text": text},
            "locations": [{"physicalLocation": {"artifactLocation": where,
                                                "region": {"startLine": slot(), "startColumn": slot(),
                                                           "endLine": slot(), "endColumn": slot()}}}],
            "partialFingerprints": {FINGERPRINT_KEY: slot()},
        }
        if case:
            result["properties"] = {"caseId": slot()}
        return result

    return slot_template(build, lambda r: indented(r, pad, sort_keys=False))[0]


def write_log(findings: Iterable[Finding], rules: Mapping[str, RuleInfo], out: TextIO,
              properties: Mapping[str, Any] | None = None) -> None:
    """The SARIF log, its results written as the findings stream by (a first pass collects the
    rule codes the driver lists before them)."""
    w = SafeOut(out).write
    stored = stored_findings(findings)  # packed findings where the run keeps them so: none rebuilt
    codes = sorted(set(map(stored_code, stored)))
    index = {code: i for i, code in enumerate(codes)}
    run: dict[str, Any] = {
        "tool": {"driver": {
            "name": "surface-lint",
            "version": __version__,
            "semanticVersion": __version__,
            "rules": [_rule(code, rules.get(code)) for code in codes],
        }},
        "columnKind": "unicodeCodePoints",
        "results": _RESULTS,
    }
    if properties:
        run["properties"] = dict(properties)
    log = {"$schema": SCHEMA_URI, "version": "2.1.0", "runs": [run]}
    head, tail = indented(log, "", sort_keys=False).split(indented(_RESULTS), 1)
    w(head)
    pad = "        "  # results sit in runs[0]: three levels down
    fp = Fingerprints()
    text = _ResultText(pad)
    empty = True
    for f in stored_findings(findings):
        w(("[\n" if empty else ",\n") + pad + text.stored(f, index, fp))
        empty = False
    w("[]" if empty else "\n      ]")
    w(tail + "\n")


def sarif_log(findings: Iterable[Finding], rules: Mapping[str, RuleInfo],
              properties: Mapping[str, Any] | None = None) -> dict[str, Any]:
    ordered = list(findings)
    return json.loads(capture(lambda out: write_log(ordered, rules, out, properties)))  # type: ignore[no-any-return]


def _lane_properties(result: LaneResult, lanes: LaneChoices = ()) -> dict[str, Any]:
    return {
        "lane": result.lane,
        **({"laneChoice": lane_records(lanes)[0]} if lanes else {}),
        "version": result.version,
        "profile": result.profile,
        "thresholdSet": result.threshold_set,
        "passed": result.passed,
        "metrics": result.metrics,
        "thresholds": [
            {"metric": t.check.metric, "op": t.check.op, "value": t.check.value,
             "tolerance": t.check.tolerance, "actual": t.actual, "passed": t.passed}
            for t in result.thresholds
        ],
    }


def write_check(run: CheckRun, options: RenderOptions, out: TextIO) -> None:
    write_log(run.findings, options.rules, out,
              {"profile": run.profile, **({"lanes": lane_records(options.lanes)} if options.lanes else {})})


def render_check(run: CheckRun, options: RenderOptions) -> str:
    return capture(lambda out: write_check(run, options, out))


def write_lane(result: LaneResult, options: RenderOptions, out: TextIO) -> None:
    properties = _lane_properties(result, options.lanes)
    if options.findings_filter is not None:  # --select/--ignore: the results shown and hidden
        properties["selection"] = options.findings_filter.record()
    write_log(result.findings, options.rules, out, properties)


def render_lane(result: LaneResult, options: RenderOptions) -> str:
    return capture(lambda out: write_lane(result, options, out))


def diff_regressions(diff: LaneDiff) -> list[Finding]:
    """Each predicate that passed in the old run and fails in the new one, at its new finding."""
    out: list[Finding] = []
    for change in diff.changed:
        for flip in change.flips:
            if not flip.regressed:
                continue
            anchor = change.anchor(flip)
            if anchor is None:
                continue
            out.append(replace(anchor, message=f"{change.case_id}: {flip.subject} passed before and fails now: "
                                               f"{flip.new_message}", severity=Severity.ERROR))
    return out


def render_diff(diff: LaneDiff, options: RenderOptions) -> str:
    """SARIF for a run-vs-run diff: a result per regressed verdict; metric deltas as properties."""
    properties = {
        "lane": diff.new.lane,
        **({"lanes": lane_records(options.lanes)} if options.lanes else {}),
        "profile": diff.new.profile,
        "old": diff.old_label,
        "new": diff.new_label,
        "regressed": diff.regressed,
        "metrics": [
            {"name": d.name, "old": d.old, "new": d.new, "delta": d.delta, "better": d.better,
             "regressed": d.regressed}
            for d in diff.metrics
        ],
    }
    return capture(lambda out: write_log(diff_regressions(diff), options.rules, out, properties))
