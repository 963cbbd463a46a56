"""JSON Lines case lines: a str encoded by the C function the encoder calls for it, the failed
names one text per set (reporters/jsonl.py `_text`, `_FailedText`). Texts written by hand."""

from __future__ import annotations

from surface_lint.reporters import jsonl


def test_text_is_the_encoders_text() -> None:
    assert jsonl._text('é"\n') == '"é\\"\\n"'  # ensure_ascii off: é as it is
    assert jsonl._text(7) == "7"
    assert jsonl._text(None) == "null"
    assert jsonl._text(True) == "true"
    assert jsonl._text(["b", "a"]) == '["b","a"]'


def test_failed_names_one_text_per_set() -> None:
    texts = jsonl._FailedText()
    first = texts(["no_placeholder", "complete_punctuation"])
    assert first == '["no_placeholder","complete_punctuation"]'
    assert texts(["no_placeholder", "complete_punctuation"]) is first
    assert texts([]) == "[]"
    line = jsonl._case_line("c1", None, ["no_placeholder"], "fail", failed_text=texts(["no_placeholder"]))
    assert line == ('{"case_id":"c1","details":null,"failed_predicates":["no_placeholder"],"status":"fail",'
                    '"type":"case"}')
    assert line == jsonl._case_line("c1", None, ["no_placeholder"], "fail")
