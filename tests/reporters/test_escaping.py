"""Data is escaped the same way in every format a terminal, a browser or GitHub renders: a case
id and a surface carrying ESC, \\x01, U+202E and U+2066 (bidi override and isolate), U+2028 and
U+0085 (line ends) come out as backslash escapes (`reporters.common.printable`), never raw."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from reporters_support import LANE, cli

from surface_lint.reporters.common import printable
from surface_lint.reporters.github import escape_data
from surface_lint.reporters.markdown import md_code, md_text

HOSTILE = ("\x1b", "\x01", "\u202e", "\u2066", "\u2028", "\x85")
CASE_ID = "c\x1b[31m\u202e1"
SURFACE = "Bad\x01 <pending>\u2028\x85 end \u2066x\u202e"


def test_printable_escapes_controls_separators_and_bidi_overrides() -> None:
    assert printable("a\x1b[31m\x01\x7f\x85\u2028\u2029\u202a\u202e\u2066\u2069\n\t\r\u200fz") == (
        "a\\x1b[31m\\x01\\x7f\\x85\\u2028\\u2029\\u202a\\u202e\\u2066\\u2069\\n\\t\\r\u200fz")
    assert printable("a\nb\tc\x1b", keep="\n\t") == "a\nb\tc\\x1b"
    assert escape_data("x\u202e\ny\x1b") == "x\\u202e%0Ay\\x1b"
    assert md_text("a\u2028b\x85c\u202ed") == "a<br>b<br>c\\u202ed"
    assert md_code("id\x1b\u2028\u2066") == "`id\\x1b \\u2066`"


@pytest.fixture
def hostile(tmp_path: Path) -> str:
    turn = {"case_id": CASE_ID, "turn_index": 0, "role": "prompt", "prompt": "Hi?", "surface": SURFACE,
            "grounding_source": "none"}
    path = tmp_path / "t.jsonl"
    path.write_text(json.dumps(turn, ensure_ascii=False) + "\n", encoding="utf-8")
    return str(path)


PUNCTUATION = ("complete_punctuation: the surface ends with `x\\u202e`, not terminal punctuation "
               "(`.` `?` `!` `;`)")


@pytest.mark.parametrize(("fmt", "fragment"), [
    ("text", f"SL103 [warning] {PUNCTUATION}\n"),
    ("github", f"title=SL103 complete_punctuation (case c\\x1b[31m\\u202e1)::{PUNCTUATION}\n"),
    ("markdown", "| `c\\x1b[31m\\u202e1` | uncategorised | `no_placeholder` (SL101, error): placeholder marker "
                 "\\`&lt;pending&gt;\\` in the surface<br>`complete_punctuation` (SL103, warning): the surface ends "
                 "with \\`x\\u202e\\`, not terminal punctuation (\\`.\\` \\`?\\` \\`!\\` \\`;\\`) | Bad\\x01 "
                 "**&lt;pending&gt;**<br><br> end \\u2066**x\\u202e** |"),
    ("html", '<div class="surface">Bad\\x01 <mark data-predicates="no_placeholder" title="no_placeholder">'
             '&lt;pending&gt;</mark>\\u2028\\x85 end \\u2066<mark data-predicates="complete_punctuation" '
             'title="complete_punctuation">x\\u202e</mark></div>'),
    ("junit", "<system-out>surface: Bad\\x01 &lt;pending&gt;\\u2028\\x85 end \\u2066x\\u202e</system-out>"),
    ("sarif", f'"text": "{PUNCTUATION}"'.replace("\\u202e", "\\\\u202e")),
])
def test_every_rendered_format_escapes_data(hostile: str, fmt: str, fragment: str) -> None:
    run = cli("--lane", LANE, "--transcripts", hostile, "--output-format", fmt)
    assert run.code == 1, run.err
    assert fragment in run.out
    shown = run.out
    if fmt == "sarif":  # JSON data (not rendered) keeps the case id as it is: only message texts are shown
        shown = "\n".join(line for line in run.out.splitlines() if '"caseId"' not in line)
    assert [c for c in HOSTILE if c in shown] == []


@pytest.mark.parametrize("fmt", ["text", "github", "markdown", "html", "junit", "sarif"])
def test_check_output_escapes_data_too(hostile: str, fmt: str) -> None:
    run = cli("check", hostile, "--lane", LANE, "--output-format", fmt)
    assert run.code == 1, run.err
    shown = "\n".join(line for line in run.out.splitlines() if '"caseId"' not in line)
    assert [c for c in HOSTILE if c in shown] == []
