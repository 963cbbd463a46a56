"""What `check --cases` blames when a case of a case-driven lane fails
(`CaseworkEvaluator.case_findings`): only what the verdict read on the path its evaluation
took (`caseexpr.recording`), followed down; a false value with a `message` is reported with
that message, at the capture lines that made it false. On the real compositionality captures
(`../shared/corpus/lanes/compositionality`, dev split) with a lane of our own that reads a
speculative marker only for the cases that are not controls."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from surface_lint.engine import Engine
from surface_lint.engine.config import Config
from surface_lint.rules.expressions import Expr, recording

# The corpus as tests/conftest.py finds it: SURFACE_LINT_CORPUS, else ../shared/corpus.
_ROOT = os.environ.get("SURFACE_LINT_CORPUS") or Path(__file__).resolve().parents[2].parent / "shared" / "corpus"
CORPUS = Path(_ROOT) / "lanes" / "compositionality"
CASES = CORPUS / "cases" / "dev" / "cases.jsonl"
CAPTURES = CORPUS / "captures" / "dev.jsonl"

# Controls (`composed_predicate`) must name an expected token; the other cases must carry the
# runtime's speculative marker. CMP-DEV-001 is the dev split's control: its probe names none of
# its tokens, and has no speculative marker either (its line 5), which nothing reads for it.
LANE = r'''
[lane]
name = "speculation_control"
version = "v1"
title = "Speculation control"
unit = "surface"

[case_schema]
id_field = "id"
[case_schema.fields.id]
type = "string"
required = true
[case_schema.fields.pattern]
type = "string"
[case_schema.fields.premises]
type = "list[string]"
[case_schema.fields.probe]
type = "string"
[case_schema.fields.expected_entailment_tokens]
type = "list[string]"
required = true
[case_schema.fields.expected_proposals]
type = "integer"

[[predicates]]
name = "entailment_token"
code = "SPX1"
kind = "terms_present"
default_severity = "warning"
message = "none of the expected tokens ({terms}) is in the answer"
[predicates.params]
field = "expected_entailment_tokens"
quantifier = "any"
match = "token"
token_pattern = "\\b[a-z][a-z'\\-]*\\b"
fold = "lower"
empty_passes = false

[[predicates]]
name = "speculative_marker"
code = "SPX2"
kind = "pattern_present"
default_severity = "warning"
message = "no speculative marker"
[predicates.params]
pattern = '\(speculative, not yet reviewed\)'

[casework]

[casework.views.probe]
where = "record.chain == 0 and record.role == 'probe'"

[[casework.values]]
name = "hit"
predicate = "entailment_token"
view = "probe"
quantifier = "first"

[[casework.values]]
name = "speculative"
predicate = "speculative_marker"
view = "probe"
quantifier = "first"
__SPECULATIVE__
[[casework.values]]
name = "control"
expr = "case.pattern == 'composed_predicate'"

[[casework.values]]
name = "passed"
expr = "__PASSED__"

[[casework.metrics]]
name = "pass_rate"
value = "passed"
'''

Row = tuple[int, int, str, str, str]


def check(tmp_path: Path, passed: str, speculative: str = "") -> list[Row]:
    lane_file = tmp_path / "speculation_control.toml"
    lane_file.write_text(LANE.replace("__PASSED__", passed).replace("__SPECULATIVE__", speculative), encoding="utf-8")
    engine = Engine(Config(lane_files=[lane_file]), profile="reference")
    assert engine.lane_errors == []
    _, index = engine.load_cases([str(CASES)], engine.lane("speculation_control"))
    found: list[Any] = []
    engine.check_file(str(CAPTURES), None, "speculation_control", index, found.append)
    return [(f.location.line, f.location.column, f.code, f.record_id or "", f.message)
            for f in sorted(found, key=lambda f: f.sort_key())]


# CMP-DEV-002 is not a control: it carries the marker, but names none of its tokens either.
DEV_002 = (15, 431, "SPX1", "CMP-DEV-002",
           "entailment_token: none of the expected tokens (clarity, knowledge) is in the answer")
NO_TOKEN = (5, 325, "SPX1", "CMP-DEV-001", "entailment_token: none of the expected tokens (decision) is in the answer")


def test_a_control_failing_on_its_first_pattern_is_not_blamed_for_the_branch_not_taken(tmp_path: Path) -> None:
    """The verdict reads `speculative` only for a case that is not a control: CMP-DEV-001 is
    a control, so its missing marker (also false) is not why it fails."""
    assert check(tmp_path, "hit if control else speculative") == [NO_TOKEN]


def test_the_other_branch_is_blamed_when_it_is_the_one_taken(tmp_path: Path) -> None:
    """The same verdict the other way round: now CMP-DEV-001 is judged on the marker alone."""
    assert check(tmp_path, "speculative if control else hit") == [
        (5, 325, "SPX2", "CMP-DEV-001", "speculative_marker: no speculative marker"), DEV_002]


def test_a_false_and_blames_every_false_operand_it_reads_or_stopped_before(tmp_path: Path) -> None:
    """`a and b` with both false: each alone fails the case (fixing one does not pass it)."""
    assert check(tmp_path, "hit and speculative") == [
        NO_TOKEN, (5, 325, "SPX2", "CMP-DEV-001", "speculative_marker: no speculative marker"), DEV_002]


def test_an_operand_a_guard_stopped_is_not_blamed(tmp_path: Path) -> None:
    """`not control` stops the second `and` of a control: its `speculative`, false too, is
    not why it fails (CMP-DEV-002 and -003 carry the marker and pass)."""
    assert check(tmp_path, "(control and hit) or (not control and speculative)") == [NO_TOKEN]


def test_a_false_value_with_a_message_is_reported_with_it_at_the_turn_that_made_it_false(tmp_path: Path) -> None:
    """SL018 says the value's own `message`, at the probe whose verdict made it false (the
    predicate's own finding is the same fact: not repeated)."""
    message = 'message = "case {case.id}: the probe is not marked speculative"\n'
    assert check(tmp_path, "speculative", message) == [
        (5, 69, "SL018", "CMP-DEV-001", "case CMP-DEV-001: the probe is not marked speculative")]


def test_a_message_of_an_expression_value_reading_a_verdict_is_reported_too(tmp_path: Path) -> None:
    spec = ('\n[[casework.values]]\nname = "marked"\nexpr = "passes(first(probe), \'speculative_marker\')"\n'
            'message = "the probe of {case.pattern} is not marked"\n')
    assert check(tmp_path, "hit or marked", spec) == [
        (5, 69, "SL018", "CMP-DEV-001", "the probe of composed_predicate is not marked"), NO_TOKEN]


def test_a_case_level_verdict_lists_only_the_values_it_read(tmp_path: Path) -> None:
    """A verdict false on a case value alone says what it read, not what the untaken branch names."""
    assert check(tmp_path, "False if control else hit") == [
        (1, 97, "SL018", "CMP-DEV-001", "`passed` is false: False if control else hit (control = true)"), DEV_002]


@pytest.mark.parametrize(("source", "scope", "value", "names", "peeks"), [
    ("a if c else b", {"a": 1, "b": 2, "c": True}, 1, {"a", "c"}, []),
    ("a if c else b", {"a": 1, "b": 2, "c": False}, 2, {"b", "c"}, []),
    # `b`: stopped before, false too (whether it decides is the caller's: what stopped it is `a`)
    ("a and b", {"a": False, "b": False}, False, {"a"}, [({"a"}, {"b"})]),
    ("a and b", {"a": False, "b": True}, False, {"a"}, []),
    ("a or not b", {"a": 1, "b": 0}, 1, {"a"}, [({"a"}, {"b"})]),
    ("a and f(b)", {"a": False, "b": False}, False, {"a"}, []),  # a call is never evaluated to peek
    ("all(x.ok for x in xs)", {"xs": [{"ok": True}, {"ok": False}, {"ok": False}]}, False, {"xs"}, []),
    ("[y for y in xs]", {"xs": [1]}, [1], {"xs"}, []),  # a comprehension's variable is not a read
])
def test_reads_are_the_path_taken(source: str, scope: dict[str, Any], value: Any, names: set[str],
                                  peeks: list[tuple[set[str], set[str]]]) -> None:
    expr = Expr(source, ["f"])
    with recording([expr]) as noted:
        assert expr.evaluate(scope, {"f": lambda x: x}) == value
    assert [r.names for r in noted.log] == [names]
    assert [(set(stopped_by), peeked) for stopped_by, peeked, _ in noted.log[0].peeks] == peeks


def test_the_items_an_all_stopped_before_are_noted_when_they_fail_too() -> None:
    items = [{"ok": True}, {"ok": False}, {"ok": True}, {"ok": False}]
    expr = Expr("all(x.ok for x in xs)")
    with recording([expr]) as noted:
        assert expr.evaluate({"xs": items}) is False
    read = {(ident, key) for ident, key in noted.log[0].fields}
    assert [(id(item), "ok") in read for item in items] == [True, True, False, True]
    assert Expr("a").evaluate({"a": 3}) == 3  # outside the block: nothing noted
    assert len(noted.log) == 1
