"""reporters/sarif.py `_ResultText.stored`: packed findings sharing code, severity, message and
path are written by one template with those already in (`partial`), each with its own positions,
fingerprint and case id; the same text as a Finding's result."""

from __future__ import annotations

import hashlib

import pytest

from surface_lint.model.findings import Finding, Location, Severity, packed_finding
from surface_lint.reporters import sarif
from surface_lint.reporters.sarif import Fingerprints, _ResultText

MESSAGE = "ends with `l` 100%\nnext"


def _result(line: int, column: int, fingerprint: str, case: str | None) -> str:
    properties = f',\n  "properties": {{\n    "caseId": "{case}"\n  }}' if case is not None else ""
    return (
        '{\n  "ruleId": "SL103",\n  "ruleIndex": 2,\n  "level": "warning",\n  "message": {\n'
        '    "text": "ends with `l` 100%\\nnext"\n  },\n  "locations": [\n    {\n      "physicalLocation": {\n'
        '        "artifactLocation": {\n          "uri": "a.jsonl",\n          "uriBaseId": "%SRCROOT%"\n'
        f'        }},\n        "region": {{\n          "startLine": {line},\n          "startColumn": {column},\n'
        f'          "endLine": {line},\n          "endColumn": {column + 1}\n        }}\n      }}\n    }}\n  ],\n'
        f'  "partialFingerprints": {{\n    "surfaceLint/v1": "{fingerprint}"\n  }}{properties}\n}}')


def test_packed_results_of_one_message_at_other_positions_and_cases(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sarif, "PARTIAL_AFTER", 1)  # a template from the first result of its strings
    findings = [
        Finding(Location("a.jsonl", 1, 50, 1, 51), "SL103", "complete_punctuation", Severity.WARNING, MESSAGE, "c1"),
        Finding(Location("a.jsonl", 4, 7, 4, 8), "SL103", "complete_punctuation", Severity.WARNING, MESSAGE, "c1"),
        Finding(Location("a.jsonl", 12, 30, 12, 31), "SL103", "complete_punctuation", Severity.WARNING, MESSAGE),
    ]
    index = {"SL101": 0, "SL102": 1, "SL103": 2}
    text, fingerprints = _ResultText(""), Fingerprints()
    written = [text.stored(packed_finding(f), index, fingerprints) for f in findings]
    # sha256 of "SL103\0a.jsonl\0case:c1" (twice: occurrences 1 and 2) and of "SL103\0a.jsonl\0line:12".
    assert written == [_result(1, 50, "529d8f4dd0df230e:1", "c1"), _result(4, 7, "529d8f4dd0df230e:2", "c1"),
                       _result(12, 30, "e1ec9fb1a57bb458:1", None)]
    assert len(text.partials) == 2  # with and without a case id
    assert hashlib.sha256(b"SL103\0a.jsonl\0line:12").hexdigest()[:16] == "e1ec9fb1a57bb458"
    # The same as each Finding's own result.
    whole, again = _ResultText(""), Fingerprints()
    assert [whole(f, index, again(f)) for f in findings] == written
    # A Finding itself (a small run's, a --jobs merge's) takes the same templates.
    direct, counted = _ResultText(""), Fingerprints()
    assert [direct.stored(f, index, counted) for f in findings] == written
    assert len(direct.partials) == 2


def test_a_finding_of_other_types_is_written_whole(monkeypatch: pytest.MonkeyPatch) -> None:
    """A case id that is no string: the whole result's way, no template kept."""
    monkeypatch.setattr(sarif, "PARTIAL_AFTER", 1)
    odd = Finding(Location("a.jsonl", 2, 3, 2, 4), "SL103", "r", Severity.WARNING, "m", 7)  # type: ignore[arg-type]
    text, fingerprints = _ResultText(""), Fingerprints()
    written = text.stored(odd, {"SL103": 0}, fingerprints)
    assert '"caseId": 7' in written and '"startColumn": 3' in written
    assert text.partials == {}


def test_a_template_is_made_once_its_strings_come_back() -> None:
    """Results of one message: the first PARTIAL_AFTER - 1 (7) written field by field, then a
    template; the text the same all along (occurrence numbers 1 to 9 of one case's fingerprint)."""
    f = Finding(Location("a.jsonl", 1, 50, 1, 51), "SL103", "complete_punctuation", Severity.WARNING, MESSAGE, "c1")
    text, fingerprints = _ResultText(""), Fingerprints()
    written = []
    for _ in range(9):
        written.append(text.stored(packed_finding(f), {"SL103": 2}, fingerprints))
        if len(written) == 7:
            assert text.partials == {} and list(text.seen.values()) == [7]
    assert written == [_result(1, 50, f"529d8f4dd0df230e:{n}", "c1") for n in range(1, 10)]
    assert len(text.partials) == 1 and text.seen == {}
