"""JUnit XML in the common shape (testsuites > testsuite > testcase > failure), as CI systems read it.

`--lane`: a `<lane>.thresholds` suite (one case per threshold check) and a `<lane>.cases` suite
(one case per case of the lane; a failure names the predicates that failed at warning or
above; cases without a transcript are skipped). `check`: one case per finding, or one passing
case when clean. `diff`: one case per metric and per case, failing where something regressed.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections.abc import Sequence
from typing import TYPE_CHECKING

from ..engine import LaneResult
from ..findings import Finding
from .common import CaseView, case_views, display_path, fmt_value, where

if TYPE_CHECKING:
    from ..diff import LaneDiff
    from . import CheckRun, RenderOptions

# Characters XML 1.0 cannot hold, even escaped.
_INVALID_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


def _clean(text: str) -> str:
    return _INVALID_XML.sub(lambda m: f"\\x{ord(m.group()):02x}", text)


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


def _case_element(suite: ET.Element, lane: str, view: CaseView) -> ET.Element:
    attrs = {"classname": f"{lane}.{view.group}" if view.group else lane, "name": view.case_id}
    if view.findings:
        first = min(view.findings, key=Finding.sort_key)
        attrs.update(file=display_path(first.path), line=str(first.location.line))
    case = _el(suite, "testcase", **attrs)
    if view.failing:
        names = ", ".join(f"{f.name} ({f.code})" for f in view.failures if f.blocking)
        worst = view.worst
        assert worst is not None
        body = []
        for f in view.failures:
            sev = f.severity_label
            places = [where(x) for x in view.findings if x.rule == f.name]
            at = f" at {', '.join(places)}" if places else ""
            body.append(f"{f.name} ({f.code}, {sev}): {f.message}{at}")
        _el(case, "failure", "\n".join(body), message=f"failed: {names}", type=worst.label)
    out = []
    if view.surface is not None:
        out.append(f"surface: {view.surface}")
    if not view.failing and view.failures:
        out += [f"note: {f.name} ({f.code}) failed: {f.message}" for f in view.failures]
    if out:
        _el(case, "system-out", "\n".join(out))
    return case


def render_lane(result: LaneResult, options: RenderOptions) -> str:
    root = ET.Element("testsuites", name=f"surface-lint {result.lane}")
    info = [("lane", result.lane), ("version", result.version), ("profile", result.profile),
            ("threshold_set", result.threshold_set or "none")]
    if result.thresholds:
        suite = _suite(root, f"{result.lane}.thresholds")
        _properties(suite, info)
        for t in result.thresholds:
            case = _el(suite, "testcase", classname=f"{result.lane}.thresholds",
                       name=f"{t.check.metric} {t.check.describe()}")
            if not t.passed:
                _el(case, "failure", message=f"{t.check.metric} is {fmt_value(t.actual)}; needs {t.check.describe()}",
                    type="threshold")
    if options.baseline is not None:
        suite = _suite(root, f"{result.lane}.baseline")
        _properties(suite, [("baseline", display_path(options.baseline.path)),
                            ("tolerance", f"{options.baseline.tolerance:g}")])
        for d in options.baseline.deltas:
            if d.better is None:
                continue
            case = _el(suite, "testcase", classname=f"{result.lane}.baseline", name=d.name)
            if d.regressed:
                _el(case, "failure", message=f"below the baseline: {d.describe()}", type="baseline")
    suite = _suite(root, f"{result.lane}.cases")
    _properties(suite, info)
    for view in case_views(result, options.lane):
        _case_element(suite, result.lane, view)
    for case_id in result.missing_transcripts:
        case = _el(suite, "testcase", classname=result.lane, name=case_id)
        _el(case, "skipped", message="no transcript for this case")
    return _count(root)


def render_check(run: CheckRun, options: RenderOptions) -> str:
    root = ET.Element("testsuites", name="surface-lint check")
    suite = _suite(root, "surface-lint check")
    _properties(suite, [("profile", run.profile), ("files", str(len(run.files)))])
    if not run.findings:
        _el(suite, "testcase", classname="surface-lint", name="no findings")
    for f in run.findings:
        case = _el(suite, "testcase", classname=display_path(f.path),
                   name=f"{f.code} {f.rule} at {f.location.line}:{f.location.column}",
                   file=display_path(f.path), line=str(f.location.line))
        _el(case, "failure", f"{where(f)}: {f.code} [{f.severity.label}] {f.message}",
            message=f.message, type=f.severity.label)
    return _count(root)


def render_diff(diff: LaneDiff, options: RenderOptions) -> str:
    lane = diff.new.lane
    root = ET.Element("testsuites", name=f"surface-lint diff {lane}")
    suite = _suite(root, f"{lane}.metrics")
    _properties(suite, [("old", display_path(diff.old_label)), ("new", display_path(diff.new_label))])
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
        lines = [f"{f.predicate} ({f.code}): {'pass' if f.old_passed else 'fail'} -> "
                 f"{'pass' if f.new_passed else 'fail'}" + (f": {f.new_message}" if f.new_message else "")
                 for f in change.flips]
        if change.old.surface is not None or change.new.surface is not None:
            lines += [f"old surface: {change.old.surface}", f"new surface: {change.new.surface}"]
        lines += [f"{k}: {v!r} -> {w!r}" for k, v, w in change.fields]
        regressed = [f for f in change.flips if f.regressed]
        if regressed:
            names = ", ".join(f"{f.predicate} ({f.code})" for f in regressed)
            _el(case, "failure", "\n".join(lines), message=f"regressed: {names}", type="regression")
        else:
            _el(case, "system-out", "\n".join(lines))
    for view in diff.vanished:
        case = _el(suite, "testcase", classname=lane, name=view.case_id)
        _el(case, "skipped", message="vanished: not in the new run")
    return _count(root)
