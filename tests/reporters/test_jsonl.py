"""JSON Lines: one object per line with a `type`; the same data as the JSON output."""

from __future__ import annotations

import json
from pathlib import Path

from reporters_support import NEW, check_run, cli, lane_run


def test_lane_json_lines() -> None:
    rows = [json.loads(line) for line in lane_run("json-lines").out.splitlines()]
    assert [r["type"] for r in rows] == ["case"] * 6 + ["finding"] * 6 + ["threshold"] * 3 + ["summary"]
    assert rows[0]["case_id"] == "flu_001" and rows[0]["status"] == "fail"
    assert rows[0]["failed_predicates"] == ["no_placeholder"]
    assert rows[2]["status"] == "note" and rows[3]["status"] == "pass"
    full = json.loads(lane_run("json").out)
    assert [r["details"] for r in rows[:6]] == full["cases"]
    assert rows[-1]["metrics"] == full["metrics"] and rows[-1]["passed"] is False
    assert rows[-1]["missing_transcripts"] == ["flu_006"]


def test_check_json_lines_is_one_finding_per_line() -> None:
    out = check_run("json-lines").out
    first = out.splitlines()[0]
    assert first == (
        '{"code":"SL101","column":52,"end_column":55,"end_line":1,"line":1,"message":"no_placeholder: placeholder '
        f'marker `...` in the surface","path":"{NEW}","record_id":"flu_001","rule":"no_placeholder",'
        '"severity":"error","type":"finding"}')
    assert len(out.splitlines()) == 6
    assert json.loads(out.splitlines()[-1]) == {
        "type": "run", "profile": "contract",
        "lanes": [{"lane": "deterministic_fluency", "chosen_by": "flag", "how": "--lane", "files": [NEW]}]}


def test_diff_json_lines(corpus: Path) -> None:
    committed = corpus / "reports" / "symbolic_logic" / "v1_public_20260522T232200Z.json"
    runtime = corpus / "runtime" / "reports" / "symbolic_logic_public_v1.json"
    run = cli("diff", str(committed), str(runtime), "--output-format", "json-lines")
    assert run.code == 1
    rows = [json.loads(line) for line in run.out.splitlines()]
    assert [r["type"] for r in rows] == ["metric"] * 6 + ["change"] * 6 + ["summary"]
    assert rows[4] == {"better": "higher", "delta": -0.3333, "improved": False, "name": "proposal_storage",
                       "new": 0.6667, "old": 1.0, "regressed": True, "type": "metric"}
    assert rows[6]["case_id"] == "SYM-PUB-002" and rows[-1]["regressed"] is True
