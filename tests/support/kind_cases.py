"""One kind at a time: what every `tests/rules/kinds/test_<kind>.py` runs (ruff keeps a fixture and
a snapshot per rule; here each kind's file holds its reference example, the shipped lanes'
documented examples of that kind, and its own pass/fail cases with exact verdicts).

`judge` loads a one-predicate lane through the real loader (the rules file an author would write,
`reporters.docs.example_rules`) and evaluates one subject; `shipped` lists the shipped lanes'
predicates of a kind; a predicate's documented example becomes its subject as `lane test` reads
it (`engine.lanetest.example_subject`, docs/rules.md "Examples").
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import pytest

from surface_lint.engine import Engine
from surface_lint.engine.casework import load_casework
from surface_lint.engine.lanetest import _judge_by_value, example_subject
from surface_lint.engine.scoring import evaluate
from surface_lint.reporters.docs import example_rules, run_example
from surface_lint.rules.kinds.core import Context, KindExample, Subject, Verdict
from surface_lint.rules.kinds.registry import KINDS
from surface_lint.rules.loader import Lane, PredicateSpec, parse_lane

ENGINES = {profile: Engine(profile=profile) for profile in ("contract", "reference")}

# Where the reference profile reproduces the runner's literal pattern, the contract's example
# of a bare disclosure (dotted atoms) is not caught: that is the documented divergence.
REFERENCE_DIVERGES = {("deterministic_fluency", "no_provenance_only")}



@dataclass(frozen=True)
class Judged:
    """What a test compares: the verdict (None: not judged), its message and its spans."""

    passed: bool | None
    message: str = ""
    spans: tuple[tuple[int, int], ...] = ()


def judged(verdict: Verdict | None) -> Judged:
    if verdict is None:
        return Judged(None)
    return Judged(verdict.passed, verdict.message, tuple((s[0], s[1]) for s in verdict.spans))


def judge(
    kind: str,
    params: Mapping[str, Any],
    surface: str,
    *,
    case: Mapping[str, Any] | None = None,
    grounding: str = "pack",
    analysis: Mapping[str, Any] | None = None,
) -> Judged:
    """The verdict of a one-predicate lane of `kind` with `params` on one subject."""
    example = KindExample(params, surface, True, case=case, grounding=grounding, analysis=analysis)
    lane = parse_lane(example_rules(kind, KINDS[kind], example), f"<{kind}>")
    subject = Subject(surface, grounding, case, primed=False)
    return judged(evaluate(lane, subject, None, dict(case or {})).get("example"))


def reference_example(kind: str) -> tuple[Judged, Judged]:
    """(what the kind's reference example gives, what it declares)."""
    spec = KINDS[kind]
    assert spec.example is not None, f"kind {kind} has no example for the reference"
    assert spec.summary, kind
    for key, value in spec.params.items():
        assert value.doc, f"{kind}.{key} has no doc"
    got = run_example(kind, spec, spec.example)
    assert got is not None
    return Judged(got.passed, got.message), Judged(spec.example.passes, spec.example.message)


def shipped(kind: str) -> list[tuple[str, str]]:
    """(lane, predicate) of every shipped predicate of this kind, the loader's hidden ones aside."""
    lanes = ENGINES["contract"].lane_set.lanes
    return [(name, spec.name) for name, lane in sorted(lanes.items()) for spec in lane.predicates if spec.kind == kind and not spec.hidden]


def verdict(lane: Lane, spec: PredicateSpec, example: str) -> Verdict:
    return spec.evaluate(Context(example_subject(example, spec), lane.analysis))


def documented_examples(lane_name: str, name: str) -> dict[tuple[str, str], bool]:
    """Each profile's verdict on the predicate's example_pass and example_fail."""
    out: dict[tuple[str, str], bool] = {}
    for profile, engine in ENGINES.items():
        lane = engine.lane(lane_name)
        spec = lane.predicate(name)
        assert spec is not None
        casework = load_casework(lane)
        if spec.kind == "case_value" and casework is not None:
            # Judged by a [[casework.values]] value: each example names a [[casework.examples]]
            # entry that expects it true (pass) or false (fail) (engine/lanetest.py).
            out[(profile, "example_pass")] = _judge_by_value(casework, spec, "example_pass", spec.example_pass) == ""
            out[(profile, "example_fail")] = _judge_by_value(casework, spec, "example_fail", spec.example_fail) != ""
            continue
        out[(profile, "example_pass")] = verdict(lane, spec, spec.example_pass).passed
        out[(profile, "example_fail")] = verdict(lane, spec, spec.example_fail).passed
    return out


def expected_documented(lane_name: str, name: str) -> dict[tuple[str, str], bool]:
    """What the documented examples must give: pass passes, fail fails (but the one divergence)."""
    return {
        ("contract", "example_pass"): True,
        ("contract", "example_fail"): False,
        ("reference", "example_pass"): True,
        ("reference", "example_fail"): (lane_name, name) in REFERENCE_DIVERGES,
    }


def kind_tests(kind: str, shipped_predicates: list[tuple[str, str]], cases: list[Any]) -> tuple[Callable[..., None], ...]:
    """The four tests of a kind's file, bound to its data (the file names them `test_*`)."""

    def test_the_reference_example_gives_its_declared_verdict() -> None:
        got, declared = reference_example(kind)
        assert got == declared

    def test_the_shipped_predicates_of_this_kind() -> None:
        assert shipped(kind) == shipped_predicates

    def test_documented_examples_give_their_verdicts() -> None:
        got = {(lane, name): documented_examples(lane, name) for lane, name in shipped_predicates}
        assert got == {(lane, name): expected_documented(lane, name) for lane, name in shipped_predicates}

    @pytest.mark.parametrize(("params", "surface", "subject", "expected"), cases)
    def test_cases(params: dict[str, Any], surface: str, subject: dict[str, Any], expected: Judged) -> None:
        assert judge(kind, params, surface, **subject) == expected

    return (test_the_reference_example_gives_its_declared_verdict, test_the_shipped_predicates_of_this_kind,
            test_documented_examples_give_their_verdicts, test_cases)
