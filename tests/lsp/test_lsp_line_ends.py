"""`\\r\\n`, `\\n` and a bare `\\r` all end lines for the client (LSP 3.17), while JSON Lines
records end at `\\n` only: positions and incremental edits map exactly between the two."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st
from lsp_support import RecordingClient, change, no_server_errors, open_file, published, rng, spans, start

from surface_lint.lsp.documents import LineMap, TextDoc, scan_bare

_ENDS = re.compile(r"\r\n|\r|\n")


def _client_lines(text: str) -> list[tuple[int, int]]:
    """[start, end) offsets of each client line (written apart from the server's code)."""
    out, at = [], 0
    for m in _ENDS.finditer(text):
        out.append((at, m.start()))
        at = m.end()
    out.append((at, len(text)))
    return out


def _units(s: str, encoding: str) -> int:
    return len(s.encode("utf-16-le")) // 2 if encoding == "utf-16" else len(s.encode("utf-8")) if encoding == "utf-8" \
        else len(s)


def _client_position(text: str, offset: int, encoding: str) -> tuple[int, int]:
    for number, (a, b) in enumerate(_client_lines(text)):
        if a <= offset <= b:
            return number, _units(text[a:offset], encoding)
    raise AssertionError(offset)


def _client_offset(text: str, line: int, units: int, encoding: str) -> int:
    a, b = _client_lines(text)[line]
    count = 0
    for i in range(a, b):
        if count >= units:
            return i
        count += _units(text[i], encoding)
    return b


def _engine_position(text: str, offset: int) -> tuple[int, int]:
    head = text[:offset]
    return head.count("\n"), offset - (head.rfind("\n") + 1)


_TEXT = st.lists(st.sampled_from(["a", "é", "😀", "\r", "\n", "\r\n", "{"]), max_size=40).map("".join)


@settings(max_examples=400, deadline=None, derandomize=True)
@given(_TEXT, st.data(), st.sampled_from(["utf-16", "utf-8", "utf-32"]))
def test_positions_map_both_ways_exactly(text: str, data: st.DataObject, encoding: str) -> None:
    lines = LineMap.scan(text.split("\n"))
    assert lines.client_line_count == len(_client_lines(text))
    offsets = [o for o in range(len(text) + 1) if not (0 < o < len(text) and text[o - 1:o + 1] == "\r\n")]
    offset = data.draw(st.sampled_from(offsets))
    client = _client_position(text, offset, encoding)
    engine = _engine_position(text, offset)
    assert lines.to_client(*engine, encoding) == client
    assert lines.to_engine(*client, encoding) == engine
    for number, (a, b) in enumerate(_client_lines(text)):
        assert lines.client_text(number) == text[a:b]


@settings(max_examples=300, deadline=None, derandomize=True)
@given(_TEXT, st.lists(st.tuples(st.integers(0, 60), st.integers(0, 60), _TEXT), max_size=5),
       st.sampled_from(["utf-16", "utf-8"]))
def test_incremental_edits_keep_the_servers_copy_in_step(text: str, edits: list[tuple[int, int, str]],
                                                        encoding: str) -> None:
    doc = TextDoc("file:///x.jsonl", text, 1)
    expected = text
    for a, b, new in edits:
        ends = [o for o in range(len(expected) + 1)
                if not (0 < o < len(expected) and expected[o - 1:o + 1] == "\r\n")]
        lo, hi = sorted((ends[a % len(ends)], ends[b % len(ends)]))
        sl, sc = _client_position(expected, lo, encoding)
        el, ec = _client_position(expected, hi, encoding)
        assert _client_offset(expected, sl, sc, encoding) == lo
        doc.apply_change((sl, sc, el, ec), new, encoding)
        expected = expected[:lo] + new + expected[hi:]
        assert doc.text == expected
        assert doc.bare == scan_bare(doc.lines)


def test_bare_cr_unit_cases() -> None:
    lines = LineMap.scan('{"a": 1}\r{"b": 2}\n{"c": 3}\r\n{"d": 4}\r'.split("\n"))
    # client lines: {"a": 1} | {"b": 2} | {"c": 3} | {"d": 4} | (empty)
    assert [lines.client_text(i) for i in range(lines.client_line_count)] == \
        ['{"a": 1}', '{"b": 2}', '{"c": 3}', '{"d": 4}', ""]
    assert lines.to_client(1, 0, "utf-16") == (2, 0)
    assert lines.to_client(0, 9, "utf-16") == (1, 0)
    assert lines.to_client(0, 8, "utf-16") == (0, 8)
    assert lines.to_engine(1, 3, "utf-16") == (0, 12)
    assert lines.to_engine(4, 0, "utf-16") == (2, 9)
    assert lines.to_engine(99, 0, "utf-16") == (2, 9)


async def test_findings_after_a_bare_cr_and_an_edit_there(client: RecordingClient, workspace: Path) -> None:
    """A bare CR inside a record's JSON whitespace: the client sees two lines, the engine one
    record. The next record's finding is on the client's line 3, and an edit on the client's
    line 2 lands where the client means it (no phantom invalid JSON)."""
    await start(client, workspace)
    plain = json.dumps({"case_id": "fl_tide_001", "surface": "A tide rises", "grounding_source": "pack"})
    split = '{"case_id": "fl_tide_001",\r"surface": "A tide rises", "grounding_source": "pack"}'
    text = plain + "\n" + split + "\n" + plain + "\n"
    uri = open_file(client, workspace / "transcripts" / "cr_deterministic_fluency_transcript.jsonl", text)
    diags = await published(client, uri, 1)
    # SL103 (no terminal punctuation) sits on the last character of each surface.
    assert spans(diags) == [(0, 50, 0, 51, "SL103"), (2, 23, 2, 24, "SL103"), (3, 50, 3, 51, "SL103")]
    # The client's line 2 is `"surface": "A tide rises", ...`: end that surface with a stop.
    v2 = change(client, uri, [(rng(2, 24, 2, 24), ".")])
    assert client.texts[uri].split("\n")[1] == split.replace('rises"', 'rises."')
    assert spans(await published(client, uri, v2)) == [(0, 50, 0, 51, "SL103"), (3, 50, 3, 51, "SL103")]
    # Deleting the bare CR joins the two client lines: the last record moves up a line.
    v3 = change(client, uri, [(rng(1, 26, 2, 0), " ")])
    assert client.texts[uri].split("\n")[1] == split.replace('rises"', 'rises."').replace("\r", " ")
    assert spans(await published(client, uri, v3)) == [(0, 50, 0, 51, "SL103"), (2, 50, 2, 51, "SL103")]
    no_server_errors(client)


async def test_a_bare_cr_in_the_first_record(client: RecordingClient, workspace: Path) -> None:
    """The file's kind comes from the records (a CR in line 1 no longer makes it a report)."""
    await start(client, workspace)
    split = '{"case_id": "fl_tide_001",\r"surface": "A tide rises", "grounding_source": "pack"}'
    plain = json.dumps({"case_id": "fl_tide_001", "surface": "A tide rises", "grounding_source": "pack"})
    uri = open_file(client, workspace / "transcripts" / "cr1_deterministic_fluency_transcript.jsonl",
                    split + "\n" + plain + "\n")
    assert spans(await published(client, uri, 1)) == [(1, 23, 1, 24, "SL103"), (2, 50, 2, 51, "SL103")]
    no_server_errors(client)


async def test_cr_before_crlf_gives_one_sl009_as_the_cli_does(client: RecordingClient, workspace: Path) -> None:
    """`\\r\\r\\n` ends two client lines; the engine strips one CR per line and counts the CRLFs
    once: one SL009 for the file, as `surface-lint check` prints (QA: it was three notices)."""
    await start(client, workspace)
    plain = json.dumps({"case_id": "fl_tide_001", "surface": "A tide rises", "grounding_source": "pack"})
    text = plain + "\r\r\n" + plain + "\r\r\n" + plain + "\n"
    path = workspace / "transcripts" / "crcrlf_deterministic_fluency_transcript.jsonl"
    uri = open_file(client, path, text)
    diags = await published(client, uri, 1)
    assert spans(diags) == [(0, 0, 0, 0, "SL009"), (0, 50, 0, 51, "SL103"), (2, 50, 2, 51, "SL103"),
                            (4, 50, 4, 51, "SL103")]
    assert diags[0].message == "CRLF line endings on 2 line(s) (read as LF)"
    path.write_bytes(text.encode("utf-8"))
    cli = subprocess.run([sys.executable, "-m", "surface_lint", "check", str(path)], capture_output=True, text=True)
    assert [line for line in cli.stdout.splitlines() if "SL009" in line] == [
        f"{path}:1:1: SL009 [information] CRLF line endings on 2 line(s) (read as LF)"]
    no_server_errors(client)
