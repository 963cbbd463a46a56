"""The JSON report from light rows (cases as text, engine/details.py DetailsPlan.encoded) is the
report from full rows, and its `failed_predicates` lists each failing case's names by sorted
case id (one text per set of names: reporters/json_format.py _failed_members)."""

from __future__ import annotations

import json
from pathlib import Path

from surface_lint.engine import Engine
from surface_lint.reporters.json_format import render_lane


def test_light_and_full_rows_write_the_same_report(tmp_path: Path) -> None:
    turns = tmp_path / "t.jsonl"
    surfaces = ["no ending", "Fine answer here.", "no ending", "also no ending", "Fine answer here."]
    ids = ["c4", "c3", "c2", "c1", "c0"]  # out of order: failed_predicates sorts them
    turns.write_text("".join(json.dumps({"case_id": i, "turn_index": 0, "scored": True, "surface": s}) + "\n"
                             for i, s in zip(ids, surfaces, strict=True)))
    engine = Engine()
    full = render_lane(engine.score("deterministic_fluency", [], [str(turns)], want_details=True))
    light = render_lane(engine.score("deterministic_fluency", [], [str(turns)], want_details=True,
                                     light_rows=True))
    assert light == full
    assert ('  "failed_predicates": {\n'
            '    "c0": [\n      "finite_predicate_shape"\n    ],\n'
            '    "c1": [\n      "complete_punctuation"\n    ],\n'
            '    "c2": [\n      "complete_punctuation"\n    ],\n'
            '    "c3": [\n      "finite_predicate_shape"\n    ],\n'
            '    "c4": [\n      "complete_punctuation"\n    ]\n'
            '  },\n') in light
    payload = json.loads(light)
    assert [case["case_id"] for case in payload["cases"]] == ids
    assert payload["cases"][2]["surface"] == "no ending"
