"""One metric table and one threshold model for every lane (rules/loader.py, engine/scoring.py,
engine/fold.py): `[[metrics]]` with the expression keys in a case-driven lane, the old
`[[casework.metrics]]` beside it, thresholds on `NAME.CATEGORY` and on a whole `by` table,
helper metrics (`report = false`), `round = N`, `[thresholds.NAME]` sets of a case-driven lane,
`surface-lint lanes` listing every set, `section` refused unless it means something."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from surface_lint.cli.main import main
from surface_lint.engine import Engine
from surface_lint.engine.config import Config
from surface_lint.rules.loader import LaneError, parse_lane

ROOT = Path(__file__).resolve().parents[2]
SCORING = ROOT / "tests" / "fixtures" / "engine" / "scoring"

HEAD = '''[lane]
name = "mm_demo"

[case_schema]
id_field = "id"
[case_schema.fields.id]
type = "string"
required = true
[case_schema.fields.group]
type = "string"
[case_schema.fields.score]
type = "number"

[casework]
[casework.views.answers]

[[casework.values]]
name = "passed"
expr = "len(answers) > 0 and 'ok' in answers[0].surface"
'''
METRICS = '''
[[metrics]]
name = "accuracy"
value = "passed"
round = 2

[[metrics]]
name = "by_group"
value = "passed"
by = "case.group"

[[metrics]]
name = "cases"
kind = "count"
report = false

[[metrics]]
name = "low"
kind = "min"
value = "case.score"

[[metrics]]
name = "high"
kind = "max"
value = "case.score"

[[metrics]]
name = "tripled"
kind = "value"
value = "accuracy * 3"
round = 4
'''
GATE = '''
[[metrics]]
name = "gate"
kind = "thresholds"
checks = [
  { metric = "by_group.y", op = ">=", value = 1.0 },
  { metric = "accuracy", op = ">=", value = 0.67 },
  { metric = "cases", op = ">=", value = 3 },
]

[thresholds.strict]
description = "every group at 0.9 or more"
checks = [{ metric = "by_group", op = ">=", value = 0.9 }]
'''
CASES = [{"id": "a", "group": "x", "score": 2.5}, {"id": "b", "group": "x", "score": 1},
         {"id": "c", "group": "y", "score": 4}]
CAPTURES = [{"case_id": "a", "surface": "ok then"}, {"case_id": "b", "surface": "no"},
            {"case_id": "c", "surface": "ok"}]


def _jsonl(path: Path, rows: list[dict[str, Any]]) -> str:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return str(path)


def _run(tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str, *extra: str) -> tuple[int, dict[str, Any]]:
    lane_file = tmp_path / "mm_demo.toml"
    lane_file.write_text(text, encoding="utf-8")
    code = main(["--lane", "mm_demo", "--lane-file", str(lane_file),
                 "--cases", _jsonl(tmp_path / "cases.jsonl", CASES),
                 "--transcripts", _jsonl(tmp_path / "captures.jsonl", CAPTURES), "--output-format", "json", *extra])
    return code, json.loads(capsys.readouterr().out)


def _error(text: str) -> tuple[int, int, str]:
    with pytest.raises(LaneError) as info:
        parse_lane(text, "mm_demo.toml")
    return info.value.line, info.value.column, info.value.message


def test_one_metric_table_with_category_thresholds_helpers_and_rounding(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, report = _run(tmp_path, capsys, HEAD + METRICS + GATE)
    assert code == 0
    # `cases` is a helper (report = false): the gate reads it, no output shows it. `accuracy` is
    # 2/3 rounded to 2 digits where it is computed, so the gate and `tripled` see 0.67.
    assert report["metrics"] == {"accuracy": 0.67, "by_group": {"x": 0.5, "y": 1.0}, "gate": True, "high": 4,
                                 "low": 1, "tripled": 2.01}
    assert report["threshold_set"] == "gate"
    assert [(t["metric"], t["op"], t["value"], t["actual"], t["passed"]) for t in report["thresholds"]] == [
        ("by_group.y", ">=", 1.0, 1.0, True), ("accuracy", ">=", 0.67, 0.67, True), ("cases", ">=", 3.0, 3.0, True)]


def test_a_threshold_set_of_a_case_driven_lane_checks_a_whole_table_per_category(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, report = _run(tmp_path, capsys, HEAD + METRICS + GATE, "--thresholds", "strict")
    assert code == 1
    assert (report["threshold_set"], report["passed"]) == ("strict", False)
    assert [(t["metric"], t["actual"], t["passed"]) for t in report["thresholds"]] == [
        ("by_group.x", 0.5, False), ("by_group.y", 1.0, True)]


def test_a_failing_category_fails_the_run(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, report = _run(tmp_path, capsys, HEAD + METRICS + GATE.replace('"by_group.y"', '"by_group.x"'))
    assert code == 1
    assert report["metrics"]["gate"] is False
    assert [(t["metric"], t["actual"], t["passed"]) for t in report["thresholds"]] == [
        ("by_group.x", 0.5, False), ("accuracy", 0.67, True), ("cases", 3.0, True)]


def test_without_round_the_threshold_sees_the_unrounded_metric(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, report = _run(tmp_path, capsys, HEAD + METRICS.replace("round = 2\n", "") + GATE)
    assert code == 1
    assert (report["metrics"]["accuracy"], report["metrics"]["tripled"]) == (0.6667, 2.0)
    assert [(t["metric"], t["actual"], t["passed"]) for t in report["thresholds"]] == [
        ("by_group.y", 1.0, True), ("accuracy", 0.6666666666666666, False), ("cases", 3.0, True)]


def test_the_old_casework_metrics_table_still_loads_and_gives_the_same_report(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    old = (METRICS + GATE.split("[thresholds.strict]")[0]).replace("[[metrics]]", "[[casework.metrics]]")
    _, new_report = _run(tmp_path, capsys, HEAD + METRICS + GATE.split("[thresholds.strict]")[0])
    _, old_report = _run(tmp_path, capsys, HEAD + old)
    assert old_report == new_report


def test_old_entries_extending_a_migrated_lane_keep_loading_and_cannot_shadow_its_metrics(tmp_path: Path) -> None:
    base = (ROOT / "rules" / "grammatical_coverage.toml").read_text(encoding="utf-8")
    base = base.replace('name = "grammatical_coverage"', 'name = "gc_base"', 1).replace('code = "SLC4', 'code = "SLX4')
    (tmp_path / "gc_base.toml").write_text(base, encoding="utf-8")  # migrated: it writes [[metrics]]
    lane_file = tmp_path / "my_gc.toml"
    lane_file.write_text('[lane]\nname = "my_gc"\nextends = "gc_base"\n\n'
                         '[[casework.metrics]]\nname = "cases_seen"\nkind = "count"\n', encoding="utf-8")
    engine = Engine(Config(lane_files=[lane_file]))
    assert engine.lane_errors == []
    casework = engine.lane_set.lanes["my_gc"].casework
    assert [m.name for m in casework.metrics] == [
        "total", "passed", "accuracy", "by_construction", "serving_passed", "serving_accuracy", "cases_seen"]
    lane_file.write_text('[lane]\nname = "my_gc"\nextends = "gc_base"\n\n'
                         '[[casework.metrics]]\nname = "accuracy"\nkind = "count"\n', encoding="utf-8")
    assert [str(e) for e in Engine(Config(lane_files=[lane_file])).lane_errors] == [
        f"{lane_file}:6:1: metric 'accuracy' is also a `[[metrics]]` entry: write this `[[casework.metrics]]` entry "
        "as `[[metrics]]` (same keys), where an entry of the same name merges into it"]


@pytest.mark.parametrize(
    ("old", "new", "expected"),
    [
        ('name = "gate"', 'name = "gate"\nsection = "elsewhere"',
         (54, 1, "metric 'gate': `section` 'elsewhere' is neither \"metrics\" nor the metric's own name 'gate' "
                 "(a section of its own); write one of those")),
        ('{ metric = "by_group.y"', '{ metric = "by_grop.y"',
         (56, 5, "metric 'gate': check 1 names 'by_grop.y', not an earlier metric (nor `NAME.CATEGORY` of an "
                  "earlier `by` metric) (did you mean 'by_group'?)")),
        ('{ metric = "accuracy", op = ">=", value = 0.67 }', '{ metric = "accuracy.x", op = ">=", value = 0.67 }',
         (57, 5, "metric 'gate': check 2 names 'accuracy.x', not an earlier metric (nor `NAME.CATEGORY` of an "
                  "earlier `by` metric) (did you mean 'accuracy'?)")),
        ('value = 0.9 }', 'value = 0.9, message = "{metric} {nope}" }',
         (63, 58, "threshold set 'strict' `message`: unknown placeholder `{nope}` (it may use: {metric}, {actual}, "
                  "{bound})")),
        ('name = "cases"\nkind = "count"', 'name = "cases"\nkind = "count"\npassing = ["passed"]',
         (34, 1, "metric 'cases': `passing` is for classic lanes; write `value`, an expression over the case's "
                 "values (`\"a and not b\"`)")),
        ('name = "cases"\nkind = "count"', 'name = "cases"\nkind = "thresholds_pass"',
         (33, 1, "metric 'cases': kind 'thresholds_pass' is not computed by a case-driven lane; write "
                 "`kind = \"thresholds\"` instead")),
    ],
)
def test_metric_and_threshold_problems_name_their_position(old: str, new: str, expected: tuple[int, int, str]) -> None:
    text = HEAD + METRICS + GATE
    assert old in text
    assert _error(text.replace(old, new, 1)) == expected


def test_lanes_lists_every_threshold_set_and_its_checks(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    lane_file = tmp_path / "mm_demo.toml"
    lane_file.write_text(HEAD.replace('name = "mm_demo"', 'name = "mm_demo"\nheadline = "accuracy"') + METRICS + GATE,
                         encoding="utf-8")
    assert main(["lanes", "--lane-file", str(lane_file)]) == 0
    out = capsys.readouterr().out.splitlines()
    at = next(i for i, line in enumerate(out) if line.startswith("mm_demo "))
    assert out[at:at + 3] == [
        f"mm_demo v1  headline accuracy  thresholds: gate, strict  ({lane_file})",
        "  gate (default): by_group.y >= 1, accuracy >= 0.67, cases >= 3",
        "  strict: by_group >= 0.9 (each category)",
    ]
    calibration = next(i for i, line in enumerate(out) if line.startswith("calibration "))
    assert out[calibration + 1] == ("  overall_pass (default): no_grounding_accuracy >= 0.8, coherent_accuracy >= 0.8, "
                                    "correction_proposed_accuracy >= 0.8, overall_accuracy >= 0.8 (null skipped)")


# --- a classic lane: the same keys -------------------------------------------------------------


def _fluency(extra: str, old: str = "", new: str = "") -> str:
    text = (ROOT / "rules" / "deterministic_fluency.toml").read_text(encoding="utf-8")
    text = text.replace('name = "deterministic_fluency"', 'name = "flu_demo"', 1).replace('code = "SL1', 'code = "SLQ1')
    return text.replace(old, new, 1) + extra


def test_a_classic_lane_takes_helpers_and_rounding(tmp_path: Path) -> None:
    helper = '\n[[metrics]]\nname = "helper_rate"\npassing = ["no_placeholder"]\nreport = false\nround = 0\n'
    text = _fluency(helper, "checks = [\n  { metric = \"no_placeholder_rate\", op = \">=\", value = 1.0 },",
                    "checks = [\n  { metric = \"helper_rate\", op = \">=\", value = 1.0 },")
    lane_file = tmp_path / "flu_demo.toml"
    lane_file.write_text(text, encoding="utf-8")
    result = Engine(Config(lane_files=[lane_file]), profile="contract").score(
        "flu_demo", [str(SCORING / "fluency_cases.jsonl")], [str(SCORING / "fluency_turns.jsonl")])
    assert "helper_rate" not in result.metrics
    # 4 of 5 pass (0.8), rounded to 0 digits: 1.0, so the check on the helper passes.
    assert [(t.check.metric, t.actual, t.passed) for t in result.thresholds] == [
        ("helper_rate", 1.0, True), ("complete_punctuation_rate", 0.8, False), ("finite_predicate_shape_rate", 0.8, False)]


def test_a_classic_lane_refuses_the_case_driven_keys_and_takes_where() -> None:
    with pytest.raises(LaneError) as info:
        parse_lane(_fluency('\n[[metrics]]\nname = "x_rate"\npassing = ["no_placeholder"]\nper = "answers"\n'),
                   "flu_demo.toml", trusted=True)
    assert info.value.message == ("metric 'x_rate': `per` is for case-driven lanes ([casework]); a classic lane's "
                                  "metric does not take it")
    lane = parse_lane(_fluency('\n[[metrics]]\nname = "x_rate"\npassing = ["no_placeholder"]\n'
                               'where = "case.category == \'composition\'"\n'), "flu_demo.toml", trusted=True)
    metric = lane.metric("x_rate")
    assert metric is not None and metric.over == ("x_rate:when",)
