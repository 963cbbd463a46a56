"""engine/fold.py: the one fold every lane's metrics come from. A classic lane's signals compile to
the `where`/`value` expressions a case-driven lane writes; a classic metric reports the exact sum,
a case-driven one the in-order sum (as its runner sums), and the two differ on a crafted input."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from surface_lint.engine import Engine
from surface_lint.engine.config import Config
from surface_lint.engine.fold import MetricsFold, classic_metrics
from surface_lint.engine.sums import Sum
from surface_lint.rules.loader import parse_lane

SCORES = [1e16, 1.0, -1e16]  # in order: (0 + 1e16) + 1.0 is 1e16, so the sum is 0.0; exactly it is 1.0

CLASSIC = '''[lane]
name = "fold_classic"
[case_schema.fields.id]
type = "string"
[case_schema.fields.score]
type = "number"
[case_schema.fields.group]
type = "string"
[case_schema.fields.flagged]
type = "boolean"

[[predicates]]
name = "ends"
code = "FC1"
kind = "ends_with"
[predicates.params]
endings = ["."]

[[metrics]]
name = "ends_rate"
passing = ["ends"]

[[metrics]]
name = "unflagged_ends_rate"
passing = ["ends"]
over = ["!flagged"]

[[metrics]]
name = "cases"
kind = "count"

[[metrics]]
name = "score_sum"
kind = "sum"
value = "case.score"
round = 6

[[metrics]]
name = "score_mean"
kind = "mean"
value = "case.score"
by = "case.group"

[[metrics]]
name = "ended_score_max"
kind = "max"
value = "case.score"
passing = ["ends"]
'''

CASE_DRIVEN = '''[lane]
name = "fold_cases"

[case_schema]
id_field = "id"
[case_schema.fields.id]
type = "string"
required = true
[case_schema.fields.score]
type = "number"

[casework]
[casework.views.answers]

[[casework.values]]
name = "ended"
expr = "len(answers) > 0 and search('[.]$', answers[0].surface)"

[[metrics]]
name = "ended_rate"
value = "ended"

[[metrics]]
name = "score_sum"
kind = "sum"
value = "case.score"

[[metrics]]
name = "score_mean"
kind = "mean"
value = "case.score"
'''


def _jsonl(path: Path, rows: list[dict[str, Any]]) -> str:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return str(path)


def _score(tmp_path: Path, text: str, name: str, cases: list[dict[str, Any]],
           turns: list[dict[str, Any]]) -> dict[str, Any]:
    lane_file = tmp_path / f"{name}.toml"
    lane_file.write_text(text, encoding="utf-8")
    result = Engine(Config(lane_files=[lane_file])).score(
        name, [_jsonl(tmp_path / "cases.jsonl", cases)], [_jsonl(tmp_path / "turns.jsonl", turns)])
    return dict(result.metrics)


def test_classic_signals_compile_to_where_and_value_expressions() -> None:
    lane = parse_lane(CLASSIC, "fold_classic.toml")
    compiled = {m.name: (m.where.text if m.where else None, m.value.text if m.value else None,
                         m.by.text if m.by else None, m.exact, m.rounding, m.flat) for m in classic_metrics(lane)}
    assert compiled == {
        "ends_rate": (None, 's["ends"]', None, True, 4, True),
        "unflagged_ends_rate": ('not s["flagged"]', 's["ends"]', None, True, 4, True),
        "cases": (None, None, None, True, 4, True),
        "score_sum": (None, 's["=case.score"]', None, True, 6, True),
        "score_mean": (None, 's["=case.score"]', 's["#case.group"]', True, 4, True),
        "ended_score_max": (None, 's["=case.score"] if s["ends"] else nothing', None, True, 4, True),
    }


def test_a_classic_lane_reports_the_exact_sum(tmp_path: Path) -> None:
    cases = [{"id": f"c{i}", "score": x, "group": "ab"[i % 2], "flagged": i == 2} for i, x in enumerate(SCORES)]
    cases.append({"id": "c3", "group": "b", "flagged": False})  # no score: counted, no number
    turns = [{"case_id": "c0", "surface": "Done."}, {"case_id": "c1", "surface": "Open"},
             {"case_id": "c2", "surface": "Done."}, {"case_id": "c3", "surface": "Open"}]
    assert _score(tmp_path, CLASSIC, "fold_classic", cases, turns) == {
        "cases": 4,
        "ended_score_max": 1e16,
        "ends_rate": 0.5,
        "score_mean": 0.3333,  # 1.0 / 3
        "score_mean.a": 0.0,  # c0 and c2: 1e16 + -1e16
        "score_mean.b": 1.0,  # c1 (c3 has no score)
        "score_sum": 1.0,
        "unflagged_ends_rate": 0.3333,  # c0, c1, c3: one ends
    }


def test_a_case_driven_lane_reports_the_in_order_sum(tmp_path: Path) -> None:
    cases = [{"id": f"c{i}", "score": x} for i, x in enumerate(SCORES)]
    turns = [{"case_id": "c0", "surface": "Done."}, {"case_id": "c1", "surface": "Open"},
             {"case_id": "c2", "surface": "Done."}]
    assert _score(tmp_path, CASE_DRIVEN, "fold_cases", cases, turns) == {
        "ended_rate": 0.6667,
        "score_mean": 0.0,
        "score_sum": 0.0,
    }


def test_one_fold_weighs_a_classic_group_and_counts_a_case_driven_case() -> None:
    lane = parse_lane(CLASSIC, "fold_classic.toml")
    fold = MetricsFold.for_classic(lane)
    numbers = Sum()
    for x in SCORES:
        numbers.add(x)
    fold.add_group({"ends": True, "flagged": False, "=case.score": numbers, "#case.group": "g"}, 3)
    fold.add_group({"ends": False, "flagged": True, "=case.score": Sum(), "#case.group": None}, 1)
    assert fold.cases == 4
    assert fold.finish() == {
        "ends_rate": 0.75, "unflagged_ends_rate": 1.0, "cases": 4, "score_sum": 1.0,
        "score_mean": 0.3333, "score_mean.g": 0.3333, "ended_score_max": 1e16,
    }
    assert fold.errors == []
