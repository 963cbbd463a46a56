"""Streaming writers: the same bytes as the stdlib's json module; spooled rows read back in
order; half an emoji never crashes a format; data cannot inject Markdown or annotations."""

from __future__ import annotations

import io
import json
import math
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from reporters_support import CASES, LANE, NEW, check_run, cli, lane_run

from surface_lint.engine.spool import Spool
from surface_lint.reporters.common import SafeOut
from surface_lint.reporters.json_format import indented
from surface_lint.reporters.markdown import md_code

FORMATS = ("text", "json", "json-lines", "sarif", "junit", "github", "markdown", "html")

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=True) | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=5), inner, max_size=4),
    max_leaves=20,
)


@settings(max_examples=300, derandomize=True, deadline=None)
@given(json_values)
def test_indented_is_json_dumps_indent_2(value: object) -> None:
    for sort_keys in (True, False):
        assert indented(value, "", sort_keys) == json.dumps(value, indent=2, sort_keys=sort_keys, ensure_ascii=False)


def test_indented_at_a_depth_is_the_nested_dump() -> None:
    value = {"b": [1, 2.5, {"x": None}], "a": {"k": True, "j": []}, "c": {}, "d": math.inf}
    whole = json.dumps({"outer": [value]}, indent=2, sort_keys=True, ensure_ascii=False)
    assert whole == '{\n  "outer": [\n    ' + indented(value, "    ") + "\n  ]\n}"


@pytest.mark.parametrize("fmt", ["json", "sarif"])
def test_streamed_json_is_what_json_dumps_gives(fmt: str) -> None:
    out = lane_run(fmt).out
    sort_keys = fmt == "json"
    assert out == json.dumps(json.loads(out), indent=2, sort_keys=sort_keys, ensure_ascii=False) + "\n"
    check = check_run(fmt).out
    assert check == json.dumps(json.loads(check), indent=2, sort_keys=sort_keys, ensure_ascii=False) + "\n"


def test_spool_keeps_order_and_sorts_across_runs_stably() -> None:
    plain: Spool[int] = Spool(buffer=7)
    plain.extend(range(100))
    assert list(plain) == list(range(100)) and list(plain) == list(range(100)) and len(plain) == 100
    keyed: Spool[tuple[int, int]] = Spool(key=lambda t: t[0], buffer=5)
    items = [(i % 4, i) for i in range(60)]
    keyed.extend(items)
    assert list(keyed) == sorted(items, key=lambda t: t[0])
    plain.close()
    keyed.close()


def test_many_sorted_runs_are_merged_in_levels_and_stay_stable() -> None:
    from surface_lint.engine import spool as spool_module

    keyed: Spool[tuple[int, int]] = Spool(key=lambda t: t[0], buffer=4)
    items = [((i * 7919) % 13, i) for i in range(4 * 300)]  # 300 runs of 4
    keyed.extend(items)
    assert len(keyed._runs) < 2 * spool_module.FAN_IN  # merged as they came, not 300 files
    assert list(keyed) == sorted(items, key=lambda t: t[0])
    keyed.close()


HALF_EMOJI = '{"case_id": "s1", "surface": "A wave \\ud83d rises.", "grounding_source": "none"}\n'


@pytest.mark.parametrize("fmt", FORMATS)
def test_half_an_emoji_never_crashes_a_lane_format(tmp_path: Path, fmt: str) -> None:
    path = tmp_path / "half.jsonl"
    path.write_text(HALF_EMOJI, encoding="utf-8")
    out = tmp_path / f"out.{fmt}"
    run = cli("--lane", LANE, "--transcripts", str(path), "--output-format", fmt, "-o", str(out))
    assert run.code in (0, 1), run.err
    text = out.read_bytes().decode("utf-8")  # valid UTF-8: the lone surrogate is escaped
    if fmt == "json":
        (case,) = json.loads(text)["cases"]
        assert case["surface"] == "A wave \ufffd rises."  # the reader's SL016: one character for one
        assert case["case_id"] == "s1"


@pytest.mark.parametrize("fmt", ["text", "json"])
def test_half_an_emoji_never_crashes_check(tmp_path: Path, fmt: str) -> None:
    path = tmp_path / "half.jsonl"
    path.write_text(HALF_EMOJI.replace("rises.", "rises"), encoding="utf-8")
    out = tmp_path / f"out.{fmt}"
    run = cli("check", str(path), "--lane", LANE, "--output-format", fmt, "-o", str(out))
    assert run.code == 1, run.err
    text = out.read_bytes().decode("utf-8")
    if fmt == "text":
        # `{"case_id": "s1", "surface": ` is 29 columns, the quote the 30th: the escape starts at 38,
        # and the last `s` is at 49 (the escape `\\ud83d` is six source characters).
        assert text.splitlines()[:2] == [
            f"{path}:1:38: SL016 [warning] unpaired UTF-16 surrogate in `surface` (half of a character); "
            "read as U+FFFD",
            f"{path}:1:49: SL103 [warning] complete_punctuation: the surface ends "
            "with `s`, not terminal punctuation (`.` `?` `!` `;`)"]


def test_a_stream_that_cannot_encode_gets_escapes_not_a_crash() -> None:
    raw = io.BytesIO()
    stream = io.TextIOWrapper(raw, encoding="utf-8", newline="")
    out = SafeOut(stream)
    out.write('{"surface": "half \ud83d"}\n')
    stream.flush()
    assert raw.getvalue() == b'{"surface": "half \\ud83d"}\n'
    assert json.loads(raw.getvalue()) == {"surface": "half \ud83d"}  # the JSON escape of the same string
    ascii_raw = io.BytesIO()
    ascii_stream = io.TextIOWrapper(ascii_raw, encoding="ascii", newline="")
    SafeOut(ascii_stream).write("Café ·\n")
    ascii_stream.flush()
    assert ascii_raw.getvalue() == b"Caf\\xe9 \\xb7\n"


def test_a_case_id_cannot_inject_markdown(tmp_path: Path) -> None:
    evil = "x`\n## Owned <script>alert(1)</script>|"
    path = tmp_path / "evil.jsonl"
    path.write_text(json.dumps({"case_id": evil, "surface": "A lamp gives ... light.", "grounding_source": "none"})
                    + "\n", encoding="utf-8")
    out = cli("--lane", LANE, "--transcripts", str(path), "--output-format", "markdown").out
    assert not [line for line in out.splitlines() if line.startswith("## Owned")]
    # The raw HTML stays inside the case id's code span, on its table row.
    assert [line for line in out.splitlines() if "<script>" in line] == [
        line for line in out.splitlines() if line.startswith("| `` x` ## Owned <script>")]
    row = next(line for line in out.splitlines() if line.startswith("| ``"))
    assert row.startswith("| `` x` ## Owned <script>alert(1)</script>\\| `` | uncategorised | ")


@pytest.mark.parametrize(("text", "code"), [
    ("plain", "`plain`"),
    ("a`b", "`` a`b ``"),
    ("a``b", "``` a``b ```"),
    ("line\nbreak", "`line break`"),
    ("pipe|", "`pipe\\|`"),
])
def test_md_code_fences_and_keeps_one_line(text: str, code: str) -> None:
    assert md_code(text) == code


def test_github_annotations_escape_data(tmp_path: Path) -> None:
    path = tmp_path / "evil.jsonl"
    path.write_text(json.dumps({"case_id": "c\n::error::forged", "surface": "A lamp gives ... light.",
                                "grounding_source": "none"}) + "\n", encoding="utf-8")
    out = cli("check", str(path), "--lane", LANE, "--output-format", "github").out
    assert out.splitlines()[0] == "surface-lint: lane deterministic_fluency, chosen by flag: --lane; profile contract"
    assert all(line.startswith(("::error ", "::warning ", "::notice ")) for line in out.splitlines()[1:])
    assert "::error::forged" not in out


def test_every_format_of_the_fixture_run_still_renders() -> None:
    for fmt in FORMATS:
        run = lane_run(fmt)
        assert run.code == 1 and run.out, fmt
    assert CASES and NEW


def test_html_stays_viewable_at_any_size(tmp_path: Path) -> None:
    path = tmp_path / "many.jsonl"
    with path.open("w", encoding="utf-8") as fh:
        for i in range(620):
            fh.write(json.dumps({"case_id": f"m{i:04d}", "surface": f"Case {i} waits ...", "grounding_source": "none"})
                     + "\n")
    out = cli("--lane", LANE, "--transcripts", str(path), "--output-format", "html").out
    assert out.count('<tr data-case="m') == 500  # the matrix: the first 500 cases
    assert ('<p class="meta">… 120 more case(s) of the matrix not shown. The JSON or SARIF output lists them '
            "all.</p>") in out
    assert out.count('<article class="case') == 20  # the first 20 failing cases of no_placeholder
    assert ('<p class="meta">… 600 more failing case(s) of no_placeholder (the first 20 of each predicate are '
            "listed) not shown. The JSON or SARIF output lists them all.</p>") in out
    assert "620 case(s) · 620 failing" in out


def test_a_reader_that_stops_early_gets_no_traceback(tmp_path: Path) -> None:
    import os
    import subprocess
    import sys

    path = tmp_path / "many.jsonl"
    with path.open("w", encoding="utf-8") as fh:
        for i in range(20000):
            fh.write(json.dumps({"case_id": f"m{i:05d}", "surface": "A lamp gives ... light.",
                                 "grounding_source": "none"}) + "\n")
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2] / "server")}
    proc = subprocess.Popen([sys.executable, "-m", "surface_lint", "--lane", LANE, "--transcripts", str(path),
                             "--output-format", "json-lines"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            env=env)
    assert proc.stdout is not None and proc.stderr is not None
    first = proc.stdout.readline()
    proc.stdout.close()  # as `| head -1` does
    err = proc.stderr.read()
    code = proc.wait()
    assert json.loads(first)["type"] == "case"
    assert (code, err) == (141, b"")
