"""A case's details shared by its repeats (engine/details.py DetailsPlan.shared: one dict and
serial for cases whose values but the id are the same) and written from that by the JSON
report (reporters/json_format.py SharedCases: the text around the id made once per serial),
byte for byte the report's text of the case's own details whatever the values."""

from __future__ import annotations

import json
from typing import Any

from surface_lint.engine.details import DetailsPlan, SharedDetails
from surface_lint.engine.scoring import evaluate
from surface_lint.reporters.json_format import SharedCases, case_text
from surface_lint.rules.kinds.core import Subject
from surface_lint.rules.loader import parse_lane

LANE = """\
[lane]
name = "det"
expected_field = "expected"

[case_schema.fields.id]
type = "string"
[case_schema.fields.expected]
type = "list[string]"
predicate_list = true

[[predicates]]
name = "no_x"
code = "DT1"
kind = "substring_absent"
[predicates.params]
markers = ["x"]

[details]
"""

DETAILS = "\n".join([
    'id = "case.id"',
    'expected = "default(case.expected, [])"',
    'passes = "verdicts"',
    'prompt = "turn.prompt"',
]) + "\n"


def _plan(details: str = DETAILS) -> tuple[Any, DetailsPlan]:
    lane = parse_lane(LANE + details, "det.toml")
    return lane, DetailsPlan(lane)


def _shared(lane: Any, plan: DetailsPlan, surface: str, prompt: Any, case_id: str,
            case: dict[str, Any] | None = None, verdicts: Any = None,
            writer: SharedCases | None = None) -> tuple[SharedDetails, str]:
    subject = Subject(surface, "none", case)
    if verdicts is None:
        verdicts = evaluate(lane, subject, None, case)
    got = plan.shared(verdicts, subject, case, {"prompt": prompt}, None, case_id)
    text = (writer or SharedCases())(got)
    # Whatever is shared, the text is the report's text of `build`'s details.
    assert text == case_text(plan.build(verdicts, subject, case, {"prompt": prompt}, None, case_id))
    return got, text


def test_repeats_share_one_dict_and_the_id_is_their_own() -> None:
    lane, plan = _plan()
    subject = Subject("fine", "none", None)
    verdicts = evaluate(lane, subject, None, None)
    writer = SharedCases()
    first, text = _shared(lane, plan, "fine", "p", "r1", verdicts=verdicts, writer=writer)
    assert first[2:] == ("id", "r1")
    assert first[1] == {"id": "r1", "expected": [], "passes": {"no_x": True}, "prompt": "p"}
    assert text == ('{\n      "expected": [],\n      "id": "r1",\n      "passes": {\n        "no_x": true\n'
                    '      },\n      "prompt": "p"\n    }')
    again, text = _shared(lane, plan, "fine", "p", "r\u00e9\"2", verdicts=verdicts, writer=writer)
    assert again[0] == first[0] and again[1] is first[1] and again[3] == "r\u00e9\"2"
    assert '"id": "r\u00e9\\"2",' in text
    # Another prompt, or another verdicts mapping (equal or not): details of their own.
    other, text = _shared(lane, plan, "fine", "q", "r3", verdicts=verdicts, writer=writer)
    assert other[0] != first[0] and text.endswith('"prompt": "q"\n    }')
    failing, text = _shared(lane, plan, "a x", "p", "r4", writer=writer)
    assert failing[0] not in (first[0], other[0]) and '"no_x": false' in text


def test_values_equal_in_python_but_written_apart_keep_their_own_text() -> None:
    lane, plan = _plan()
    subject = Subject("fine", "none", None)
    verdicts = evaluate(lane, subject, None, None)
    writer = SharedCases()
    texts = [_shared(lane, plan, "fine", prompt, "r", verdicts=verdicts, writer=writer)[1].rpartition('"prompt": ')[2]
             for prompt in (1, True, 1.0, 0.0, -0.0, [1], [True], None, 0, False)]
    assert texts == ["1\n    }", "true\n    }", "1.0\n    }", "0.0\n    }", "-0.0\n    }",
                     "[\n        1\n      ]\n    }", "[\n        true\n      ]\n    }", "null\n    }",
                     "0\n    }", "false\n    }"]


def test_case_fields_and_an_id_that_is_not_a_string() -> None:
    lane, plan = _plan()
    got, text = _shared(lane, plan, "fine", "p", "ignored", {"id": 7, "expected": ["no_x"]})
    assert got[2:] == ("id", 7)
    assert text == ('{\n      "expected": [\n        "no_x"\n      ],\n      "id": 7,\n      "passes": {\n'
                    '        "no_x": true\n      },\n      "prompt": "p"\n    }')


def test_a_value_holding_the_mark_gives_the_whole_text() -> None:
    lane, plan = _plan()
    prompt = "\x00surface-lint case id\x00"
    writer = SharedCases()
    subject = Subject("fine", "none", None)
    verdicts = evaluate(lane, subject, None, None)
    for case_id in ("r1", "r2"):  # the second from the remembered refusal
        _, text = _shared(lane, plan, "fine", prompt, case_id, verdicts=verdicts, writer=writer)
        assert text == ('{\n      "expected": [],\n      "id": "' + case_id + '",\n      "passes": {\n'
                        '        "no_x": true\n      },\n      "prompt": "\\u0000surface-lint case id\\u0000"\n    }')


def test_details_without_the_case_id_are_one_text() -> None:
    lane, plan = _plan('prompt = "turn.prompt"\nsurface = "turn.surface"\n')
    verdicts = evaluate(lane, Subject("fine", "none", None), None, None)
    writer = SharedCases()
    first, text = _shared(lane, plan, "fine", "p", "r1", verdicts=verdicts, writer=writer)
    assert first[2:] == ("", None)
    assert text == '{\n      "prompt": "p",\n      "surface": "fine"\n    }'
    again, text2 = _shared(lane, plan, "fine", "p", "r2", verdicts=verdicts, writer=writer)
    assert again[0] == first[0] and text2 is text  # the remembered text itself


def test_details_read_by_an_expression_are_known_by_their_values() -> None:
    # `len(words(...))` is no plain input: the values decide, whatever the verdicts mapping.
    lane, plan = _plan('id = "case.id"\nwords = "len(words(turn.surface))"\nsurface = "turn.surface"\n')
    first, text = _shared(lane, plan, "one two", "p", "r1")
    assert text == '{\n      "id": "r1",\n      "surface": "one two",\n      "words": 2\n    }'
    again, _ = _shared(lane, plan, "one two", "p", "r2")  # another verdicts mapping, equal values
    assert again[0] == first[0] and again[1] is first[1] and again[3] == "r2"
    assert _shared(lane, plan, "one two three", "p", "r3")[1].endswith('"words": 3\n    }')


def test_without_a_record_id_the_id_is_its_default() -> None:
    lane, plan = _plan("id = \"default(case.id, 'anon')\"\nprompt = \"turn.prompt\"\n")
    verdicts = evaluate(lane, Subject("fine", "none", None), None, None)
    assert _shared(lane, plan, "fine", "p", "", verdicts=verdicts)[0][3] == "anon"
    assert _shared(lane, plan, "fine", "p", "r9", verdicts=verdicts)[0][3] == "r9"
    lane, plan = _plan()
    assert _shared(lane, plan, "fine", "p", "")[0][3] == ""


def test_the_text_is_json_dumps_of_the_details() -> None:
    lane, plan = _plan()
    _, text = _shared(lane, plan, "fine", {"b": [1, 2.5], "a": None}, "r1")
    details = {"id": "r1", "expected": [], "passes": {"no_x": True}, "prompt": {"b": [1, 2.5], "a": None}}
    assert text == json.dumps(details, indent=2, sort_keys=True).replace("\n", "\n    ")
