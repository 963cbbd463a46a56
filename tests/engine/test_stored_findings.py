"""A run's findings read as the spool stores them (engine/score.py KeptFindings.stored_items: a packed
tuple for a marshalled batch, a Finding for a pickled one) and encoded from either form by
reporters/records.py FindingRecords, text for text as from the Finding; and a JSON run's light
case rows (engine/score.py light_row)."""

from __future__ import annotations

import enum
import hashlib
import json
from pathlib import Path

import pytest

from surface_lint.engine import score
from surface_lint.engine.score import KeptFindings
from surface_lint.engine.spool import Spool
from surface_lint.model.findings import Finding, Fix, Location, Related, Severity, packed_finding
from surface_lint.reporters.records import FindingRecords, stored_findings


class Level(enum.IntEnum):  # a type marshal refuses: its batch is pickled
    LOW = 1


def _finding(i: int, **extra: object) -> Finding:
    at = Location("a.jsonl", 20 - i, 3, 20 - i, 9)  # appended in reverse order: the spool sorts them
    return Finding(location=at, code="SL101", rule="grounded", severity=Severity.WARNING, message=f"m{i} \u00e9",
                   record_id=f"case{i}" if i % 2 else None, record_index=i,
                   related=(Related(Location("b.jsonl", 2, 1, 2, 4), "twin"),) if i % 3 == 0 else (),
                   fixes=(Fix("Add `.`", Location("a.jsonl", 20 - i, 9, 20 - i, 9), "."),) if i % 4 == 0 else (),
                   extra=dict(extra))


def _compact(record: object) -> str:
    return json.dumps(record, sort_keys=True, ensure_ascii=False)  # as the formats' encoders


def test_a_packed_finding_encodes_as_its_finding() -> None:
    records = FindingRecords(_compact, {"type": "finding"})
    for i in range(8):
        f = _finding(i)
        assert records(packed_finding(f)) == records(f) == _compact({"type": "finding", **f.to_dict()})
    f = _finding(3)
    assert records(packed_finding(f)) == (
        '{"code": "SL101", "column": 3, "end_column": 9, "end_line": 17, "line": 17, "message": "m3 é", '
        '"path": "a.jsonl", "record_id": "case3", "related": [{"column": 1, "end_column": 4, "end_line": 2, '
        '"line": 2, "message": "twin", "path": "b.jsonl"}], "rule": "grounded", "severity": "warning", '
        '"type": "finding"}')


def test_a_value_the_template_does_not_encode_takes_the_encoder() -> None:
    """A line that is a bool (an int subclass) is written as the encoder writes it: `true`."""
    f = _finding(1)
    odd = (("a.jsonl", True, 3, 19, 9), *packed_finding(f)[1:])
    assert FindingRecords(_compact)(odd) == (
        '{"code": "SL101", "column": 3, "end_column": 9, "end_line": 19, "line": true, "message": "m1 é", '
        '"path": "a.jsonl", "record_id": "case1", "rule": "grounded", "severity": "warning"}')


def test_stored_findings_are_packed_or_whole_and_in_the_spools_order() -> None:
    spool: Spool[tuple[int, Finding]] = Spool(key=score._finding_order, buffer=8, pack=score._pack_kept,
                                              unpack=score._unpack_kept)
    items = [(i, _finding(i)) for i in range(8)] + [(8, _finding(8, level=Level.LOW))]
    items += [(i, _finding(i)) for i in range(9, 13)]
    for item in items:
        spool.append(item)
    kept = KeptFindings(spool, {5}, 12)  # position 5 replaced by a later record: left out
    whole = list(kept)
    assert [f.record_index for f in whole] == [12, 11, 10, 9, 8, 7, 6, 4, 3, 2, 1, 0]  # sorted by line
    stored = list(stored_findings(kept))
    # Items 0-7 spilled as one sorted run (batches of two, a quarter of the buffer); 8-12 as a second
    # run when read, batches (12, 11), (10, 9), (8): the one holding the enum pickled, a Finding.
    assert [type(f).__name__ for f in stored] == ["tuple"] * 4 + ["Finding"] + ["tuple"] * 7
    assert stored == [f if f.record_index == 8 else packed_finding(f) for f in whole]
    records = FindingRecords(_compact)
    assert [records(f) for f in stored] == [records(f) for f in whole]
    assert list(stored_findings(whole)) == whole  # a plain list is read as it is
    spool.close()


def test_a_sorted_spool_needs_a_key_for_its_stored_items() -> None:
    spool: Spool[int] = Spool(key=lambda x: x, buffer=2)
    for x in (3, 1, 2):
        spool.append(x)
    with pytest.raises(ValueError, match="need a key"):
        list(spool.stored())
    assert list(spool.stored(lambda x: x)) == [1, 2, 3]
    spool.close()


def test_light_rows_keep_what_the_json_report_reads(tmp_path: Path) -> None:
    from surface_lint.engine import Engine

    turns = tmp_path / "t.jsonl"
    turns.write_text("".join(json.dumps({"case_id": f"c{i}", "turn_index": 0, "scored": True, "surface": s}) + "\n"
                             for i, s in enumerate(["Fine answer here.", "no ending", "Fine answer here."])))
    engine = Engine()
    full = engine.score("deterministic_fluency", [], [str(turns)], want_details=True)
    light = engine.score("deterministic_fluency", [], [str(turns)], want_details=True, light_rows=True)
    assert full.case_rows is not None and light.case_rows is not None
    full_rows, light_rows = list(full.case_rows), list(light.case_rows)
    assert [row[:2] for row in light_rows] == [row[:2] for row in full_rows]
    assert [row[0] for row in light_rows] == ["c0", "c1", "c2"]
    # A light row's details: (serial, one dict shared by repeats, the id's key, the case's id).
    serials = [row[2][0] for row in light_rows]
    assert serials[0] == serials[2] != serials[1]
    assert light_rows[2][2][1] is light_rows[0][2][1]
    assert [row[2][2:] for row in light_rows] == [("case_id", "c0"), ("case_id", "c1"), ("case_id", "c2")]
    for (_, _, shared), (_, _, details) in zip(light_rows, full_rows, strict=True):
        assert {**shared[1], shared[2]: shared[3]} == details
    assert len(light.outcomes) == len(full.outcomes) == 3
    with pytest.raises(RuntimeError, match="outcomes were not kept"):
        list(light.outcomes)
    assert list(light.findings) == list(full.findings)


def test_a_packed_finding_makes_the_sarif_result_of_its_finding() -> None:
    from surface_lint.reporters.sarif import Fingerprints, _ResultText

    findings = [_finding(i) for i in range(6)]  # 0 and 3 have related locations: the whole path
    index = {"SL101": 0}
    text, fps = _ResultText("  "), Fingerprints()
    expected = [text(f, index, fps(f)) for f in findings]
    text, fps = _ResultText("  "), Fingerprints()
    assert [text.stored(packed_finding(f), index, fps) for f in findings] == expected
    # A plain one, written out: its fingerprint (code, path, case id) and the occurrence count.
    assert expected[1] == (
        '{\n    "ruleId": "SL101",\n    "ruleIndex": 0,\n    "level": "warning",\n    "message": {\n'
        '      "text": "m1 é"\n    },\n    "locations": [\n      {\n        "physicalLocation": {\n'
        '          "artifactLocation": {\n            "uri": "a.jsonl",\n            "uriBaseId": "%SRCROOT%"\n'
        '          },\n          "region": {\n            "startLine": 19,\n            "startColumn": 3,\n'
        '            "endLine": 19,\n            "endColumn": 9\n          }\n        }\n      }\n    ],\n'
        '    "partialFingerprints": {\n      "surfaceLint/v1": "e21c135ac42817af:1"\n    },\n'
        '    "properties": {\n      "caseId": "case1"\n    }\n  }')
    # sha256 of "SL101\0a.jsonl\0case:case1", its first 16 hex digits; the first of its key.
    assert hashlib.sha256(b"SL101\0a.jsonl\0case:case1").hexdigest()[:16] == "e21c135ac42817af"


def test_findings_merged_from_workers_are_stored_as_findings() -> None:
    """`--jobs`: the merged findings are no Spool (partial.MergedFindings): read as Findings."""
    items = [(0, _finding(2)), (1, _finding(1)), (2, _finding(0))]
    kept = KeptFindings(items, {1}, 2)
    assert list(kept.stored_items()) == [_finding(2), _finding(0)]
    assert list(kept) == [_finding(2), _finding(0)]
