"""`surface-lint lane test FILE...`: every predicate's documented examples judged as a test would.

A predicate's `example_pass` must pass and its `example_fail` must fail, in the profile asked for.
An example is written as (docs/rules.md, "Examples"):

* a surface, optionally followed by metadata `  [key: value]` (two spaces first, one or more):
  `grounding_source` is the turn's grounding (default `pack`), any other key a case field
  (digits read as an integer);
* a JSON object: a whole case; its `prompt` is the surface, a non-blank `priming_prompts` item
  makes it primed.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..rules.kinds.core import Context, Subject
from ..rules.loader import CaseExample, Lane, LaneError, PredicateSpec, load_lane_document
from .casework import Casework, CaseworkEvaluator, load_casework

_META = re.compile(r"\s{2}\[(\w+): ([^\]]*)\]\s*$")
_INTEGER = re.compile(r"-?[0-9]+")


class ExampleError(ValueError):
    """An example that is not written in the documented form."""


def _value(text: str) -> Any:
    text = text.strip()
    return int(text) if _INTEGER.fullmatch(text) else text


def example_subject(example: str, spec: PredicateSpec) -> Subject:
    """The subject a documented example describes (the module's docstring gives the forms)."""
    if example.lstrip().startswith("{"):
        try:
            case = json.loads(example)
        except ValueError as exc:
            raise ExampleError(f"is not a JSON object: {exc}") from None
        if not isinstance(case, dict):
            raise ExampleError("is not a JSON object")
        primed = any(isinstance(p, str) and p.strip() for p in case.get("priming_prompts", []) or [])
        prompt = case.get("prompt", "")
        return Subject(surface=prompt if isinstance(prompt, str) else "", grounding="pack", case=case, primed=primed)
    meta: dict[str, Any] = {}
    surface = example
    while (m := _META.search(surface)) is not None:
        meta.setdefault(m.group(1), _value(m.group(2)))
        surface = surface[: m.start()]
    grounding = meta.pop("grounding_source", "pack")
    return Subject(surface=surface, grounding=str(grounding), case=meta or None)


@dataclass(frozen=True, slots=True)
class ExampleOutcome:
    """One example judged: where it is written, what it must give and what it gave."""

    path: str
    line: int
    column: int
    lane: str
    predicate: str
    key: str  # example_pass | example_fail | expect (a [[casework.examples]] entry)
    example: str
    problem: str  # "" when the example gives its stated verdict

    @property
    def ok(self) -> bool:
        return not self.problem

    @property
    def shown_example(self) -> str:
        """The example as the report quotes it: a predicate's text as a JSON string, an expect table as JSON."""
        return self.example if self.key == "expect" else json.dumps(self.example, ensure_ascii=False)


def _verdict_text(passed: bool | None) -> str:
    return "is not judged" if passed is None else ("passes" if passed else "fails")


def run_examples(path: Path, profile: str) -> tuple[Lane, list[ExampleOutcome], list[str]]:
    """Load a lane file and judge each predicate's examples. Raises LaneError when it does not
    load. Also returns the predicates that document no example (reported, never failed)."""
    lane, document, positions = load_lane_document(path, profile)  # the file read and parsed once
    written = document.get("predicates")
    index = {entry.get("name"): i for i, entry in enumerate(written) if isinstance(entry, dict)} \
        if isinstance(written, list) else {}
    outcomes: list[ExampleOutcome] = []
    untested: list[str] = []
    casework = load_casework(lane)
    for spec in lane.predicates:
        if spec.hidden:
            continue
        pairs = [(key, text) for key, text in (("example_pass", spec.example_pass), ("example_fail", spec.example_fail))
                 if text.strip()]
        if len(pairs) < 2:
            untested.append(spec.name)
        for key, text in pairs:
            shown, line, column = positions.locate(("predicates", index.get(spec.name, 0), key))
            judged = _judge_by_value(casework, spec, key, text) if spec.kind == "case_value" and casework \
                else _judge(lane, spec, key, text)
            outcomes.append(ExampleOutcome(shown, line, column, lane.name, spec.name, key, text, judged))
    if casework is not None and casework.examples:
        evaluator = CaseworkEvaluator(casework)
        for example in casework.examples:
            shown, line, column = positions.locate(("casework", "examples", example.index, "name"))
            outcomes.append(ExampleOutcome(shown, line, column, lane.name, f"examples[{example.name!r}]", "expect",
                                           json.dumps(dict(example.expect), ensure_ascii=False, sort_keys=True),
                                           _expected_values(evaluator, example)))
    return lane, outcomes, untested


def _judge_by_value(casework: Casework, spec: PredicateSpec, key: str, text: str) -> str:
    """A check judged by a [[casework.values]] value (kind `case_value`): its example names a
    [[casework.examples]] entry whose `expect` gives that value true (example_pass) or false
    (example_fail); the entry itself is judged with the other examples."""
    values = [v.name for v in casework.values if v.check == spec.name]
    if not values:
        return f"{key}: no [[casework.values]] entry names `{spec.name}` as its `check`"
    example = next((e for e in casework.examples if e.name == text.strip()), None)
    if example is None:
        known = ", ".join(repr(e.name) for e in casework.examples) or "none"
        return f"{key} names no [[casework.examples]] entry (known: {known})"
    want = key == "example_pass"
    if example.expect.get(values[0]) is not want:
        return f"{key}: [[casework.examples]] {example.name!r} must expect `{values[0]} = {str(want).lower()}`"
    return ""


def _expected_values(evaluator: CaseworkEvaluator, example: CaseExample) -> str:
    """"" when the case's values are what the example expects, else what differs."""
    outcome = evaluator.evaluate_case(example.case, example.records)
    if outcome.error is not None:
        return f"the case is not judged: {outcome.error.message}"
    wrong = [f"`{key}` is {_shown(outcome.values.get(key))}, it must be {_shown(want)}"
             for key, want in example.expect.items() if _shown(outcome.values.get(key)) != _shown(want)]
    return "; ".join(wrong)


def _shown(value: Any) -> str:
    """A value as JSON (so `true` never equals `1`, nor `2.0` the integer `2`)."""
    return json.dumps(value, ensure_ascii=False, sort_keys=True, default=repr)


def _judge(lane: Lane, spec: PredicateSpec, key: str, text: str) -> str:
    try:
        subject = example_subject(text, spec)
    except ExampleError as exc:
        return f"{key} {exc}"
    verdict = spec.evaluate(Context(subject, lane.analysis))
    passed = None if verdict is None else verdict.passed
    want = key == "example_pass"
    if passed is want:
        return ""
    return f"{key} {_verdict_text(passed)}; it must {'pass' if want else 'fail'}"


def lane_test_lines(paths: list[Path], profile: str) -> Iterator[tuple[str, str]]:
    """The report, a line at a time, with each line's kind: `error` (a file that does not load),
    `failed` (an example that does not give its stated verdict), `note`, then the summary:
    `passed`, or `failed` (nothing tested counts as failed: no green without a check)."""
    failed = errors = loaded = ran = 0
    for path in paths:
        try:
            lane, outcomes, untested = run_examples(path, profile)
        except LaneError as exc:
            errors += 1
            yield f"{exc}", "error"
            continue
        loaded += 1
        for outcome in outcomes:
            ran += 1
            if not outcome.ok:
                failed += 1
                yield (f"{outcome.path}:{outcome.line}:{outcome.column}: {outcome.lane}.{outcome.predicate}: "
                       f"{outcome.problem}: {outcome.shown_example}"), "failed"
        for name in untested:
            yield f"{path}: {lane.name}.{name}: documents no example_pass and example_fail (not tested)", "note"
    scope = f"{loaded} lane file(s), {profile} profile"
    if failed or errors:
        yield f"{failed} of {ran} example(s) failed, {errors} file(s) did not load ({scope})", "failed"
    elif ran == 0:
        yield f"nothing tested: no predicate documents an example ({scope})", "failed"
    else:
        yield f"all {ran} example(s) give their stated verdicts ({scope})", "passed"
