"""JUnit XML in the common shape (testsuites > testsuite > testcase > failure), as CI systems read it.

`--lane`: a `<lane>.thresholds` suite (one case per threshold check) and a `<lane>.cases` suite
(one case per case of the lane; a failure names the predicates that failed at warning or
above; cases without a transcript are skipped). `check`: one case per finding, or one passing
case when clean. `diff`: one case per metric and per case, failing where something regressed.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, TextIO

from ..engine import LaneResult
from ..engine.spool import ScratchText
from ..model.findings import Severity
from .common import CaseView, PredicateFailure, SafeOut, capture, display_path, fmt_value, lane_notes, printable, printable_class, shown_views, where

if TYPE_CHECKING:
    from ..engine.diff import LaneDiff
    from .options import CheckRun, RenderOptions

# Characters XML 1.0 cannot hold, even escaped.
_INVALID_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


def _clean(text: str) -> str:
    """XML 1.0 text, with what a CI page would render from data escaped (`printable`)."""
    return _INVALID_XML.sub(lambda m: f"\\x{ord(m.group()):02x}", printable(text, keep="\n\r\t"))


def _el(parent: ET.Element, tag: str, text: str | None = None, **attrs: str) -> ET.Element:
    el = ET.SubElement(parent, tag, {k: _clean(v) for k, v in attrs.items()})
    if text is not None:
        el.text = _clean(text)
    return el


def _suite(root: ET.Element, name: str) -> ET.Element:
    return _el(root, "testsuite", name=name)


def _count(root: ET.Element) -> str:
    """Fill in tests/failures/errors/skipped on every suite and on the root."""
    totals = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0}
    for suite in root.iter("testsuite"):
        cases = suite.findall("testcase")
        counts = {
            "tests": len(cases),
            "failures": sum(1 for c in cases if c.find("failure") is not None),
            "errors": sum(1 for c in cases if c.find("error") is not None),
            "skipped": sum(1 for c in cases if c.find("skipped") is not None),
        }
        for key, value in counts.items():
            suite.set(key, str(value))
            totals[key] += value
    for key, value in totals.items():
        root.set(key, str(value))
    ET.indent(root, space="  ")
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"


def _properties(suite: ET.Element, values: Sequence[tuple[str, str]]) -> None:
    props = _el(suite, "properties")
    for name, value in values:
        _el(props, "property", name=name, value=value)


# Any character `_esc_text` / `_esc_attr` change (one `printable` escapes, one XML 1.0 cannot hold,
# one XML escapes): most text has none and is written as it is, after one search.
_TEXT_CHANGES = re.compile("[&<>" + printable_class("\n\r\t") + _INVALID_XML.pattern[1:-1] + "]").search
_ATTR_CHANGES = re.compile('[&<>"\r\n\t' + printable_class("\n\r\t") + _INVALID_XML.pattern[1:-1] + "]").search


def _esc_text(text: str) -> str:
    if _TEXT_CHANGES(text) is None:
        return text
    return _clean(text).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _esc_attr(text: str) -> str:
    if _ATTR_CHANGES(text) is None:
        return text
    return (_esc_text(text).replace('"', "&quot;").replace("\r", "&#13;").replace("\n", "&#10;")
            .replace("\t", "&#09;"))


class XmlWriter:
    """Elements written as they come, indented two spaces a level (as ET.indent lays them out)."""

    def __init__(self, write: Callable[[str], None]) -> None:
        self.write = write
        self.stack: list[str] = []

    def _attrs(self, attrs: Mapping[str, str]) -> str:
        return "".join(f' {k}="{_esc_attr(v)}"' for k, v in attrs.items())

    def open(self, tag: str, **attrs: str) -> None:
        self.write(f"{'  ' * len(self.stack)}<{tag}{self._attrs(attrs)}>\n")
        self.stack.append(tag)

    def leaf(self, tag: str, text: str | None = None, **attrs: str) -> None:
        pad = "  " * len(self.stack)
        if text is None or text == "":
            self.write(f"{pad}<{tag}{self._attrs(attrs)} />\n")
        else:
            self.write(f"{pad}<{tag}{self._attrs(attrs)}>{_esc_text(text)}</{tag}>\n")

    def close(self) -> None:
        tag = self.stack.pop()
        self.write(f"{'  ' * len(self.stack)}</{tag}>\n")


def _counts(tests: int, failures: int, skipped: int) -> dict[str, str]:
    return {"tests": str(tests), "failures": str(failures), "errors": "0", "skipped": str(skipped)}


def _properties_xml(x: XmlWriter, values: Sequence[tuple[str, str]]) -> None:
    x.open("properties")
    for name, value in values:
        x.leaf("property", name=name, value=value)
    x.close()


# `Severity.label` and `PredicateFailure.severity_label` (None: a failure that reports nothing), looked up.
_LABELS: dict[Severity | None, str] = {**{s: s.label for s in Severity}, None: "off"}


_MEMO_SIZE = 4096  # class names and display paths a report remembers (cleared when full)


class _CaseXml:
    """Each case's `<testcase>` of the cases suite (two levels in), written as one string: what
    `XmlWriter` would write of it, without its per-element attribute dicts, and with what
    repeats across cases (a group's class name, a file's display path, a set of failures) escaped
    and formatted once per report."""

    def __init__(self, lane: str, write: Callable[[str], None]) -> None:
        self.lane = lane
        self.write = write
        self._classnames: dict[str | None, str] = {}
        # path -> its display path escaped as text and as an attribute (the working directory is one report's)
        self._files: dict[str, tuple[str, str]] = {}
        # Text escaped (`_esc_text`) by the text: what repeats across cases (a surface's line, a
        # failure's message); `_esc_text` maps character by character, so pieces escape apart.
        self._escaped: dict[str, str] = {}
        # What a case's failures make of it (`_tell`), by the case's verdict and the failures
        # tuple's identity: the cases of a run repeat a few such sets.
        self._told: dict[tuple[bool | None, int], tuple[tuple[PredicateFailure, ...], _Told]] = {}

    def _file(self, path: str) -> tuple[str, str]:
        shown = self._files.get(path)
        if shown is None:
            if len(self._files) >= _MEMO_SIZE:
                self._files.clear()
            display = display_path(path)
            shown = self._files[path] = (_esc_text(display), _esc_attr(display))
        return shown

    def _text(self, text: str) -> str:
        escaped = self._escaped.get(text)
        if escaped is None:
            if len(self._escaped) >= _MEMO_SIZE:
                self._escaped.clear()
            escaped = self._escaped[text] = _esc_text(text)
        return escaped

    def _tell(self, failures: tuple[PredicateFailure, ...], verdict: bool | None) -> _Told:
        """Whether a case with these failures (and this verdict) fails, its `<failure` element's
        attributes, each failure's escaped line (by its predicate's name) and, for a passing case,
        its escaped notes."""
        deciding: tuple[PredicateFailure, ...]
        if verdict is not None:
            failing = not verdict
            deciding = () if verdict else failures
        else:
            deciding = tuple([f for f in failures if f.blocking]) if failures else ()
            failing = bool(deciding)
        labels = _LABELS
        attrs = ""
        said: tuple[tuple[str, str], ...] = ()
        notes = ""
        if failing:
            names = ", ".join([f"{f.name} ({f.code})" for f in deciding]) or "checks not selected (--select/--ignore)"
            levels = [f.severity for f in failures if f.severity is not None]
            worst = max(levels) if levels else None
            # A case-driven case fails on its verdict even when no reported check says why.
            attrs = (f' message="{_esc_attr(f"failed: {names}")}"'
                     f' type="{_esc_attr(labels[worst] if worst is not None else "error")}"')
            said = tuple([(f.name, self._text(f"{f.name} ({f.code}, {labels[f.severity]}): {f.message}"))
                          for f in failures])
        elif failures:
            notes = "\n".join([self._text(f"note: {f.name} ({f.code}) failed: {f.message}") for f in failures])
        return failing, attrs, said, notes

    def case(self, view: CaseView) -> bool:
        """Writes the case; whether it fails (`view.failing`)."""
        failures = view.failures
        verdict = view.verdict
        if failures or verdict is not None:
            # By the failures' identity: views.case_view gives the cases that share failures one tuple.
            seen = self._told.get((verdict, id(failures)))
            if seen is not None and seen[0] is failures:
                told = seen[1]
            else:
                if len(self._told) >= _MEMO_SIZE:
                    self._told.clear()
                told = self._tell(failures, verdict)
                self._told[verdict, id(failures)] = (failures, told)  # held: its id is not reused while here
            failing, attrs, said, notes = told
        else:
            failing, attrs, said, notes = _PASSING
        group = view.group
        classname = self._classnames.get(group)
        if classname is None:
            if len(self._classnames) >= _MEMO_SIZE:  # groups are the data's: as many as the cases, at worst
                self._classnames.clear()
            classname = self._classnames[group] = _esc_attr(f"{self.lane}.{group}" if group else self.lane)
        head = f'    <testcase classname="{classname}" name="{_esc_attr(view.case_id)}"'
        findings = view.findings
        if findings:
            if len(findings) == 1:
                at = findings[0].location
                path, line = at.path, at.line
            else:  # the first by `Finding.sort_key`, whose key begins (path, line)
                path, line = min([(z.location.path, z.location.line) for z in findings])
            # A number's digits need no escape.
            head += (f' file="{self._file(path)[1]}" '
                     f'line="{line if type(line) is int else _esc_attr(str(line))}"')
        surface = view.surface
        if not failing and surface is None and not notes:
            self.write(head + " />\n")
            return False
        parts = [head, ">\n"]
        if failing:
            places: dict[str, list[str]] = {}  # each predicate's finding places, in the findings' order
            shown_path: str | None = None
            escaped_path = ""
            for z in findings:
                at = z.location
                line, column = at.line, at.column
                if type(line) is int and type(column) is int:  # a number's digits need no escape
                    if at.path != shown_path:  # a case's findings are mostly of one file
                        shown_path = at.path
                        escaped_path = self._file(shown_path)[0]
                    place = f"{escaped_path}:{line}:{column}"
                else:
                    place = _esc_text(f"{display_path(at.path)}:{line}:{column}")
                got = places.get(z.rule)
                if got is None:
                    places[z.rule] = [place]
                else:
                    got.append(place)
            body = []
            for name, line_said in said:
                at_places = places.get(name)
                body.append(f"{line_said} at {', '.join(at_places)}" if at_places else line_said)
            text = "\n".join(body)  # a line end is not escaped
            parts.append(f"      <failure{attrs}>{text}</failure>\n" if text else
                         f"      <failure{attrs} />\n")
        if surface is not None:
            shown = self._text(f"surface: {surface}")
            parts.append(f"      <system-out>{shown}\n{notes}</system-out>\n" if notes else
                         f"      <system-out>{shown}</system-out>\n")
        elif notes:
            parts.append(f"      <system-out>{notes}</system-out>\n")
        parts.append("    </testcase>\n")
        self.write("".join(parts))
        return failing

# A case's failures as `_CaseXml._tell` gives them: whether it fails, the `<failure` element's
# attributes, each failure's (predicate name, escaped line), a passing case's escaped notes.
_Told = tuple[bool, str, tuple[tuple[str, str], ...], str]
_PASSING: _Told = (False, "", (), "")


def write_lane(result: LaneResult, options: RenderOptions, out: TextIO) -> None:
    """Totals come first in JUnit: the cases are written once, to scratch text, as they are
    counted, and copied out after the totals."""
    w = SafeOut(out).write
    lane = result.lane
    n_cases = failing = 0
    cases = ScratchText()
    case_xml = _CaseXml(lane, cases.write).case  # written inside the cases suite
    for view in shown_views(result, options.lane, options.findings_filter):
        n_cases += 1
        failing += case_xml(view)
    missing = len(result.missing_transcripts)
    threshold_fail = sum(1 for t in result.thresholds if not t.passed)
    baseline = [d for d in options.baseline.deltas if d.better is not None] if options.baseline else []
    baseline_fail = sum(1 for d in baseline if d.regressed)
    # A lane with thresholds that scored nothing failed (SL017): one failing test says why, never a green run.
    unscored = 1 if result.nothing_scored is not None and result.passed is False else 0
    tests = n_cases + missing + len(result.thresholds) + len(baseline) + unscored
    w('<?xml version="1.0" encoding="UTF-8"?>\n')
    x = XmlWriter(w)
    x.open("testsuites", name=f"surface-lint {lane}",
           **_counts(tests, failing + threshold_fail + baseline_fail + unscored, missing))
    info = [("lane", lane), *[("lane_choice", n) for n in lane_notes(options.lanes)],
            *([("selection", options.findings_filter.note())] if options.findings_filter is not None else []),
            ("version", result.version), ("profile", result.profile),
            ("threshold_set", result.threshold_set or "none")]
    if unscored:
        x.open("testsuite", name=f"{lane}.run", **_counts(1, 1, 0))
        x.open("testcase", classname=f"{lane}.run", name="cases scored")
        x.leaf("failure", message=f"no case was scored: {result.nothing_scored}", type="nothing-scored")
        x.close()
        x.close()
    if result.thresholds:
        x.open("testsuite", name=f"{lane}.thresholds", **_counts(len(result.thresholds), threshold_fail, 0))
        _properties_xml(x, info)
        for t in result.thresholds:
            name = f"{t.check.metric} {t.check.describe()}"
            if t.passed:
                x.leaf("testcase", classname=f"{lane}.thresholds", name=name)
            else:
                x.open("testcase", classname=f"{lane}.thresholds", name=name)
                x.leaf("failure", message=f"{t.check.metric} is {fmt_value(t.actual)}; needs {t.check.describe()}",
                       type="threshold")
                x.close()
        x.close()
    if options.baseline is not None:
        x.open("testsuite", name=f"{lane}.baseline", **_counts(len(baseline), baseline_fail, 0))
        _properties_xml(x, [("baseline", display_path(options.baseline.path)),
                            ("tolerance", f"{options.baseline.tolerance:g}")])
        for d in baseline:
            if d.regressed:
                x.open("testcase", classname=f"{lane}.baseline", name=d.name)
                x.leaf("failure", message=f"below the baseline: {d.describe()}", type="baseline")
                x.close()
            else:
                x.leaf("testcase", classname=f"{lane}.baseline", name=d.name)
        x.close()
    x.open("testsuite", name=f"{lane}.cases", **_counts(n_cases + missing, failing, missing))
    _properties_xml(x, info)
    cases.copy_to(w)
    for case_id in result.missing_transcripts:
        x.open("testcase", classname=lane, name=case_id)
        x.leaf("skipped", message="no transcript for this case")
        x.close()
    x.close()
    x.close()


def render_lane(result: LaneResult, options: RenderOptions) -> str:
    return capture(lambda out: write_lane(result, options, out))


def write_check(run: CheckRun, options: RenderOptions, out: TextIO) -> None:
    w = SafeOut(out).write
    n = len(run.findings)
    w('<?xml version="1.0" encoding="UTF-8"?>\n')
    x = XmlWriter(w)
    x.open("testsuites", name="surface-lint check", **_counts(max(n, 1), n, 0))
    x.open("testsuite", name="surface-lint check", **_counts(max(n, 1), n, 0))
    _properties_xml(x, [*[("lane", n) for n in lane_notes(options.lanes, len(run.files))],
                        ("profile", run.profile), ("files", str(len(run.files)))])
    if not n:
        x.leaf("testcase", classname="surface-lint", name="no findings")
    for f in run.findings:
        x.open("testcase", classname=display_path(f.path),
               name=f"{f.code} {f.rule} at {f.location.line}:{f.location.column}",
               file=display_path(f.path), line=str(f.location.line))
        x.leaf("failure", f"{where(f)}: {f.code} [{f.severity.label}] {f.message}",
               message=f.message, type=f.severity.label)
        x.close()
    x.close()
    x.close()


def render_check(run: CheckRun, options: RenderOptions) -> str:
    return capture(lambda out: write_check(run, options, out))


def render_diff(diff: LaneDiff, options: RenderOptions) -> str:
    lane = diff.new.lane
    root = ET.Element("testsuites", name=f"surface-lint diff {lane}")
    suite = _suite(root, f"{lane}.metrics")
    _properties(suite, [("old", display_path(diff.old_label)), ("new", display_path(diff.new_label)),
                        *[("lane_choice", n) for n in lane_notes(options.lanes)], ("profile", diff.new.profile)])
    for d in diff.metrics:
        case = _el(suite, "testcase", classname=f"{lane}.metrics", name=d.name)
        if d.regressed:
            _el(case, "failure", message=f"regressed: {d.describe()}", type="regression")
    suite = _suite(root, f"{lane}.cases")
    changes = {c.case_id: c for c in diff.changed}
    for outcome in diff.new.outcomes:
        change = changes.get(outcome.case_id)
        case = _el(suite, "testcase", classname=lane, name=outcome.case_id)
        if change is None:
            continue
        lines = [f"{f.label}: {'pass' if f.old_passed else 'fail'} -> "
                 f"{'pass' if f.new_passed else 'fail'}" + (f": {f.new_message}" if f.new_message else "")
                 for f in change.flips]
        if change.old.surface is not None or change.new.surface is not None:
            lines += [f"old surface: {change.old.surface}", f"new surface: {change.new.surface}"]
        lines += [f"{k}: {v!r} -> {w!r}" for k, v, w in change.fields]
        regressed = [f for f in change.flips if f.regressed]
        if regressed:
            names = ", ".join(f.label for f in regressed)
            _el(case, "failure", "\n".join(lines), message=f"regressed: {names}", type="regression")
        else:
            _el(case, "system-out", "\n".join(lines))
    for view in diff.vanished:
        case = _el(suite, "testcase", classname=lane, name=view.case_id)
        _el(case, "skipped", message="vanished: not in the new run")
    return _count(root)
