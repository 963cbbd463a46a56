"""reporters/records.py: a finding encoded by template is the text its format's own encoder writes
for `Finding.to_dict()` (json's indented records, json-lines' compact ones), whatever the values."""

from __future__ import annotations

import json
import marshal
from typing import cast

import pytest

from surface_lint.model.findings import Finding, Fix, Location, Related, Severity, packed_finding
from surface_lint.reporters.json_format import indented
from surface_lint.reporters.records import PARTIAL_AFTER, FindingRecords, slot_template


def _indented(pad: str) -> FindingRecords:
    return FindingRecords(lambda record: indented(record, pad))


def _compact() -> FindingRecords:
    encoder = json.JSONEncoder(sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return FindingRecords(encoder.encode, {"type": "finding"})


def test_a_plain_finding_as_json_writes_it() -> None:
    f = Finding(Location("t.jsonl", 3, 11, 3, 14), "SL101", "no_placeholder", Severity.ERROR, "a `...` 100%",
                record_id="c1")
    assert _indented("    ")(f) == (
        '{\n'
        '      "code": "SL101",\n'
        '      "column": 11,\n'
        '      "end_column": 14,\n'
        '      "end_line": 3,\n'
        '      "line": 3,\n'
        '      "message": "a `...` 100%",\n'
        '      "path": "t.jsonl",\n'
        '      "record_id": "c1",\n'
        '      "rule": "no_placeholder",\n'
        '      "severity": "error"\n'
        '    }')
    assert _compact()(f) == ('{"code":"SL101","column":11,"end_column":14,"end_line":3,"line":3,'
                             '"message":"a `...` 100%","path":"t.jsonl","record_id":"c1","rule":"no_placeholder",'
                             '"severity":"error","type":"finding"}')


def test_a_fix_and_no_record_id() -> None:
    f = Finding(Location("a", 1, 5, 1, 5), "SL103", "complete_punctuation", Severity.WARNING, "m",
                fixes=(Fix("Add `.`", Location("a", 1, 5, 1, 5), "."),))
    assert _compact()(f) == ('{"code":"SL103","column":5,"end_column":5,"end_line":1,"fixes":[{"column":5,'
                             '"end_column":5,"end_line":1,"line":1,"replacement":".","title":"Add `.`"}],"line":1,'
                             '"message":"m","path":"a","rule":"complete_punctuation","severity":"warning",'
                             '"type":"finding"}')


HOSTILE = [
    # Related locations and fixes, several of each (their own template each).
    Finding(Location("p", 2, 1, 2, 9), "SL900", "dup", Severity.HINT, "twin",
            related=(Related(Location("q", 7, 1, 7, 2), "first"), Related(Location("r", 8, 3, 9, 1), "second")),
            fixes=(Fix("a", Location("p", 2, 1, 2, 2), ""), Fix("b", Location("p", 2, 3, 2, 4), "%s"))),
    # Escapes, a lone surrogate, separators, `%` and a slot-like string in the values.
    Finding(Location("d\u2028ir/\"x\".jsonl", 1, 1, 1, 2), "SL1", "r", Severity.INFORMATION,
            "tab\t nul\0 \ud800 %(x)s %d \u202e", record_id="\0surface-lint-slot-0\0"),
    # Values of other types than a Finding declares: written as the encoder writes them.
    Finding(Location("p", True, 2**70, -1, 0), "SL2", "r", Severity.ERROR, "m", record_id=7),  # type: ignore[arg-type]
    Finding(Location("p", Severity.WARNING, 1, 1, 1), "SL3", "r", Severity.ERROR, "m"),  # type: ignore[arg-type]
]


@pytest.mark.parametrize("f", HOSTILE)
def test_any_finding_as_the_encoders_write_its_dict(f: Finding) -> None:
    for pad in ("", "    "):
        records = _indented(pad)
        for _ in range(2):  # the template made, then the template remembered
            assert records(f) == json.dumps(f.to_dict(), indent=2, sort_keys=True, ensure_ascii=False).replace(
                "\n", "\n" + pad)
    compact = _compact()
    for _ in range(2):
        assert compact(f) == json.dumps({"type": "finding", **f.to_dict()}, sort_keys=True, ensure_ascii=False,
                                        separators=(",", ":"))


def test_a_slot_template_puts_values_in_the_order_they_were_asked_for() -> None:
    text, reorder = slot_template(lambda slot: {"b": slot(), "a": slot(), "c%": [slot()]},
                                  lambda v: json.dumps(v, sort_keys=True))
    assert text == '{"a": %s, "b": %s, "c%%": [%s]}'
    assert text % reorder(["B", "A", "C"]) == '{"a": A, "b": B, "c%": [C]}'
    one, single = slot_template(lambda slot: [slot()], json.dumps)
    assert one % single(["x"]) == "[x]"


def _stored(f: Finding) -> tuple[object, ...]:
    """A finding as a run's spool gives it back (packed, through marshal)."""
    return cast("tuple[object, ...]", marshal.loads(marshal.dumps(packed_finding(f))))  # type: ignore[arg-type]


def test_packed_findings_sharing_their_strings_at_other_positions() -> None:
    """A packed finding's record by the template with its strings written (`_partly`): the
    second finding of the same strings, fix and case-id shape reuses it with its own positions."""
    first = Finding(Location("a", 1, 5, 1, 6), "SL103", "complete_punctuation", Severity.WARNING, "m 100%",
                    "c1", (), (Fix("Add `.`", Location("a", 1, 6, 1, 6), "."),), 0)
    second = Finding(Location("a", 12, 40, 12, 41), "SL103", "complete_punctuation", Severity.WARNING, "m 100%",
                     "c\u00e9\"2", (), (Fix("Add `.`", Location("a", 12, 41, 12, 41), "."),), 1)
    compact = _compact()
    for _ in range(PARTIAL_AFTER - 1):  # written the whole template's way until its strings come back enough
        compact(_stored(first))
    assert compact.partials == {} and list(compact.seen.values()) == [7]
    assert compact(_stored(first)) == (
        '{"code":"SL103","column":5,"end_column":6,"end_line":1,"fixes":[{"column":6,"end_column":6,"end_line":1,'
        '"line":1,"replacement":".","title":"Add `.`"}],"line":1,"message":"m 100%","path":"a","record_id":"c1",'
        '"rule":"complete_punctuation","severity":"warning","type":"finding"}')
    assert compact(_stored(second)) == (
        '{"code":"SL103","column":40,"end_column":41,"end_line":12,"fixes":[{"column":41,"end_column":41,'
        '"end_line":12,"line":12,"replacement":".","title":"Add `.`"}],"line":12,"message":"m 100%","path":"a",'
        '"record_id":"c\u00e9\\"2","rule":"complete_punctuation","severity":"warning","type":"finding"}')
    assert len(compact.partials) == 1 and compact.seen == {}
    unsorted = FindingRecords(lambda record: indented(record, "", sort_keys=False))
    for _ in range(PARTIAL_AFTER - 1):
        unsorted(_stored(first))
    assert unsorted(_stored(second)) == (
        '{\n  "path": "a",\n  "line": 12,\n  "column": 40,\n  "end_line": 12,\n  "end_column": 41,\n'
        '  "code": "SL103",\n  "rule": "complete_punctuation",\n  "severity": "warning",\n  "message": "m 100%",\n'
        '  "record_id": "c\u00e9\\"2",\n  "fixes": [\n    {\n      "title": "Add `.`",\n      "line": 12,\n'
        '      "column": 41,\n      "end_line": 12,\n      "end_column": 41,\n      "replacement": "."\n    }\n  ]\n}')


# HOSTILE[3] is not marshalled (an enum member in a position): the spool pickles it, unpacked.
@pytest.mark.parametrize("f", [*HOSTILE[:3], Finding(Location("a", 1, 5, 1, 5), "SL103", "r", Severity.WARNING, "m%s",
                                                 fixes=(Fix("%d", Location("a", True, 5, 1, 5), "."),))])
def test_any_packed_finding_as_the_encoders_write_its_dict(f: Finding) -> None:
    for sort_keys in (True, False):
        records = FindingRecords(lambda record, s=sort_keys: indented(record, "  ", s))  # type: ignore[misc]
        for _ in range(PARTIAL_AFTER + 1):  # the whole template, then the partly written one
            assert records(_stored(f)) == json.dumps(f.to_dict(), indent=2, sort_keys=sort_keys,
                                                     ensure_ascii=False).replace("\n", "\n  ")
    compact = _compact()
    for _ in range(PARTIAL_AFTER + 1):
        assert compact(_stored(f)) == json.dumps({"type": "finding", **f.to_dict()}, sort_keys=True,
                                                 ensure_ascii=False, separators=(",", ":"))
