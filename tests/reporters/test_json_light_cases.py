"""The JSON report from light rows (cases as text, engine/details.py DetailsPlan.encoded) is the
report from full rows, and its `failed_predicates` lists each failing case's names by sorted
case id (one text per set of names: reporters/json_format.py _failed_members)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

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


def test_shared_details_read_back_from_a_spilled_spool_write_the_same_text(tmp_path: Path) -> None:
    from surface_lint.engine import score
    from surface_lint.engine.details import SharedDetails
    from surface_lint.engine.spool import Spool
    from surface_lint.reporters.json_format import SharedCases

    turns = tmp_path / "t.jsonl"
    turns.write_text("".join(json.dumps({"case_id": f"c{i}", "turn_index": 0, "scored": True,
                                         "surface": ["no ending", "Fine answer here."][i % 2]}) + "\n"
                             for i in range(7)))
    result = Engine().score("deterministic_fluency", [], [str(turns)], want_details=True, light_rows=True)
    assert result.case_rows is not None
    shared = [details for _, _, details in result.case_rows if isinstance(details, tuple)]
    assert len(shared) == 7 and len({d[0] for d in shared}) == 2
    spool: Spool[tuple[Any, ...]] = Spool(buffer=2, pack=score._pack_row, unpack=score._unpack_row)
    for i, d in enumerate(shared):
        spool.append((i, i, f"c{i}", (), "", d, (), (), (), (), ()))
    back: list[SharedDetails] = [row[5] for row in spool]
    spool.close()
    # Marshalled in batches of two: each batch its own dict objects, equal, the serials kept.
    assert back == shared and back[2][1] is not shared[2][1]
    writer = SharedCases()
    texts = [writer(d) for d in back]
    assert texts == [SharedCases()(d) for d in shared]
    assert texts[6] == texts[0].replace('"c0"', '"c6"')
