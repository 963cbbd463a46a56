"""A case's details as the JSON report's text (engine/details.py DetailsPlan.encoded): the text
around the case id is made once for cases whose other values are the same, and is byte for byte
what the report writes (reporters/json_format.py case_text) whatever the values."""

from __future__ import annotations

import json
from typing import Any

from surface_lint.engine.details import DetailsPlan
from surface_lint.engine.scoring import evaluate
from surface_lint.reporters.json_format import case_text
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


def _encoded(lane: Any, plan: DetailsPlan, surface: str, prompt: Any, case_id: str,
             case: dict[str, Any] | None = None, verdicts: Any = None) -> tuple[str, str, str]:
    subject = Subject(surface, "none", case)
    if verdicts is None:
        verdicts = evaluate(lane, subject, None, case)
    got = plan.encoded(verdicts, subject, case, {"prompt": prompt}, None, case_id)
    # Whatever the parts, joined they are the report's text of `build`'s details.
    assert "".join(got) == case_text(plan.build(verdicts, subject, case, {"prompt": prompt}, None, case_id))
    return got


def test_the_text_is_split_around_the_case_id_and_shared_by_repeats() -> None:
    lane, plan = _plan()
    subject = Subject("fine", "none", None)
    verdicts = evaluate(lane, subject, None, None)
    first = _encoded(lane, plan, "fine", "p", "r1", verdicts=verdicts)
    assert first == (
        '{\n      "expected": [],\n      "id": ',
        '"r1"',
        ',\n      "passes": {\n        "no_x": true\n      },\n      "prompt": "p"\n    }',
    )
    again = _encoded(lane, plan, "fine", "p", "r\u00e9\"2", verdicts=verdicts)
    assert again[0] is first[0] and again[2] is first[2]
    assert again[1] == '"r\u00e9\\"2"'
    # Another prompt, or another verdicts mapping (equal or not): text of its own.
    other = _encoded(lane, plan, "fine", "q", "r3", verdicts=verdicts)
    assert other[2].endswith('"prompt": "q"\n    }') and other[0] is not first[0]
    failing = _encoded(lane, plan, "a x", "p", "r4")
    assert failing[2] == ',\n      "passes": {\n        "no_x": false\n      },\n      "prompt": "p"\n    }'


def test_values_equal_in_python_but_written_apart_keep_their_own_text() -> None:
    lane, plan = _plan()
    subject = Subject("fine", "none", None)
    verdicts = evaluate(lane, subject, None, None)
    texts = [_encoded(lane, plan, "fine", prompt, "r", verdicts=verdicts)[2].rpartition('"prompt": ')[2]
             for prompt in (1, True, 1.0, 0.0, -0.0, [1], [True], None, 0, False)]
    assert texts == ["1\n    }", "true\n    }", "1.0\n    }", "0.0\n    }", "-0.0\n    }",
                     "[\n        1\n      ]\n    }", "[\n        true\n      ]\n    }", "null\n    }",
                     "0\n    }", "false\n    }"]


def test_case_fields_and_an_id_that_is_not_a_string() -> None:
    lane, plan = _plan()
    got = _encoded(lane, plan, "fine", "p", "ignored", {"id": 7, "expected": ["no_x"]})
    assert got == (
        '{\n      "expected": [\n        "no_x"\n      ],\n      "id": ',
        "7",
        ',\n      "passes": {\n        "no_x": true\n      },\n      "prompt": "p"\n    }',
    )


def test_a_value_holding_the_mark_gives_the_whole_text() -> None:
    lane, plan = _plan()
    prompt = "\x00surface-lint case id\x00"
    got = _encoded(lane, plan, "fine", prompt, "r1")
    assert got == (
        '{\n      "expected": [],\n      "id": "r1",\n      "passes": {\n        "no_x": true\n      },\n'
        '      "prompt": "\\u0000surface-lint case id\\u0000"\n    }', "", "")


def test_details_without_the_case_id_are_one_text() -> None:
    lane, plan = _plan('prompt = "turn.prompt"\nsurface = "turn.surface"\n')
    verdicts = evaluate(lane, Subject("fine", "none", None), None, None)
    first = _encoded(lane, plan, "fine", "p", "r1", verdicts=verdicts)
    assert first == ('{\n      "prompt": "p",\n      "surface": "fine"\n    }', "", "")
    assert _encoded(lane, plan, "fine", "p", "r2", verdicts=verdicts)[0] is first[0]


def test_details_read_by_an_expression_are_known_by_their_values() -> None:
    # `len(words(...))` is no plain input: the values decide, whatever the verdicts mapping.
    lane, plan = _plan('id = "case.id"\nwords = "len(words(turn.surface))"\nsurface = "turn.surface"\n')
    first = _encoded(lane, plan, "one two", "p", "r1")
    assert first == ('{\n      "id": ', '"r1"', ',\n      "surface": "one two",\n      "words": 2\n    }')
    again = _encoded(lane, plan, "one two", "p", "r2")  # another verdicts mapping, equal values
    assert again[0] is first[0] and again[2] is first[2] and again[1] == '"r2"'
    assert _encoded(lane, plan, "one two three", "p", "r3")[2] == (
        ',\n      "surface": "one two three",\n      "words": 3\n    }')


def test_the_joined_text_is_json_dumps_of_the_details() -> None:
    lane, plan = _plan()
    got = _encoded(lane, plan, "fine", {"b": [1, 2.5], "a": None}, "r1")
    details = {"id": "r1", "expected": [], "passes": {"no_x": True}, "prompt": {"b": [1, 2.5], "a": None}}
    assert "".join(got) == json.dumps(details, indent=2, sort_keys=True).replace("\n", "\n    ")


def test_without_a_record_id_the_id_is_its_default() -> None:
    lane, plan = _plan("id = \"default(case.id, 'anon')\"\nprompt = \"turn.prompt\"\n")
    verdicts = evaluate(lane, Subject("fine", "none", None), None, None)
    assert _encoded(lane, plan, "fine", "p", "", verdicts=verdicts)[1] == '"anon"'
    assert _encoded(lane, plan, "fine", "p", "r9", verdicts=verdicts)[1] == '"r9"'
    lane, plan = _plan()
    assert _encoded(lane, plan, "fine", "p", "")[1] == '""'
