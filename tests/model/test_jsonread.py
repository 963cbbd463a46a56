"""`surface_lint.model.jsonread.loads` is `json.loads`: the same value (types, float bits, integers
of any length, key order, the last of duplicate keys in the first one's place) for every text
`json.loads` accepts, and `json.loads`'s own exception (type, message, position) for every text it
refuses, with msgspec decoding first and without it.

A differential test on generated JSON spelt many ways (numbers with every exponent spelling,
halfway points between adjacent floats, subnormals, integers far past 64 bits, every string
escape, lone and reversed surrogate escapes, U+2028, duplicate keys, odd whitespace, nesting),
damaged or not; then literal texts whose answers are written out here.
"""

from __future__ import annotations

import io
import json
import math
import struct
import subprocess
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from decimal import Context, Decimal
from pathlib import Path
from typing import Any

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from surface_lint.model import jsonread
from surface_lint.model.jsonread import loads

ROOT = Path(__file__).resolve().parents[2]
FAST = jsonread.fast_decoder()


def test_msgspec_is_installed() -> None:
    # A core dependency (pyproject.toml): the differential tests below are about its answers.
    assert FAST is not None


@contextmanager
def decoder(fast: Callable[[bytes | str], Any] | None) -> Iterator[None]:
    """The module's decoder set to `fast` (None: json.loads alone, as without msgspec)."""
    saved = jsonread._fast, jsonread._countdown
    jsonread._fast, jsonread._countdown = fast, 0
    try:
        yield
    finally:
        jsonread._fast, jsonread._countdown = saved


def same(a: Any, b: Any) -> bool:
    """Equal values of identical types all the way down: float bits (so -0.0 is not 0.0, and NaN
    is NaN), dict key order. Iterative: values nest deeper than Python's stack."""
    stack = [(a, b)]
    while stack:
        x, y = stack.pop()
        if type(x) is not type(y):
            return False
        if type(x) is float:
            if struct.pack("<d", x) != struct.pack("<d", y) and not (math.isnan(x) and math.isnan(y)):
                return False
        elif type(x) is dict:
            if list(x) != list(y):
                return False
            stack.extend((x[k], y[k]) for k in x)
        elif type(x) is list:
            if len(x) != len(y):
                return False
            stack.extend(zip(x, y, strict=True))
        elif x != y:
            return False
    return True


def outcome(parse: Callable[[Any], Any], data: str | bytes) -> tuple[str, Any]:
    try:
        return "value", parse(data)
    except json.JSONDecodeError as exc:
        return "error", (type(exc), exc.msg, exc.pos, exc.lineno, exc.colno)
    except (ValueError, RecursionError) as exc:  # UnicodeDecodeError, an integer past the digit limit, depth
        return "error", (type(exc), str(exc))


def assert_as_json_loads(data: str | bytes, raw: bytes | None = None) -> None:
    expected = outcome(json.loads, data)
    for fast in (FAST, None):
        with decoder(fast):
            got = outcome(lambda d: loads(d, raw), data)
        assert got[0] == expected[0], (data, fast, got, expected)
        if expected[0] == "value":
            assert same(got[1], expected[1]), (data, fast, got, expected)
        else:
            assert got[1] == expected[1], (data, fast, got, expected)


# --- generated JSON, spelt many ways ---------------------------------------------------------

_WIDE = Context(prec=2000)


def _exponent(draw: st.DrawFn, value: int) -> str:
    marker = draw(st.sampled_from(["e", "E"]))
    sign = "-" if value < 0 else draw(st.sampled_from(["", "+"]))
    return f"{marker}{sign}{'0' * draw(st.integers(0, 3))}{abs(value)}"


def _spell_decimal(draw: st.DrawFn, digits: str, point: int, negative: bool) -> str:
    """The number 0.`digits` x 10**`point`, written with its decimal point moved by a drawn shift
    into the exponent (no exponent, e/E, +, leading zeros)."""
    digits = digits.lstrip("0") or "0"
    shift = draw(st.integers(-5, 5))
    mantissa_point = point - shift  # where the point goes in `digits`
    if mantissa_point <= 0:
        text = "0." + "0" * -mantissa_point + digits
    elif mantissa_point >= len(digits):
        text = digits + "0" * (mantissa_point - len(digits)) + draw(st.sampled_from(["", ".0", ".000"]))
    else:
        text = digits[:mantissa_point] + "." + digits[mantissa_point:]
    if text.startswith("0") and len(text) > 1 and text[1] != ".":
        text = text.lstrip("0") or "0"
    if shift or draw(st.booleans()):
        text += _exponent(draw, shift)
    return ("-" if negative else "") + text


@st.composite
def float_text(draw: st.DrawFn) -> str:
    kind = draw(st.sampled_from(["repr", "exact", "halfway", "digits", "format"]))
    x = draw(st.floats(allow_nan=False, allow_infinity=False, allow_subnormal=True))
    if kind == "repr":
        return repr(x).replace("e", draw(st.sampled_from(["e", "E", "e+" if "e-" not in repr(x) else "e"])))
    if kind == "format":
        return f"{x:.{draw(st.integers(0, 25))}{draw(st.sampled_from(['e', 'E']))}}"
    if kind in ("exact", "halfway"):
        d = Decimal(x)
        after = math.nextafter(x, math.inf)
        if kind == "halfway" and not math.isinf(after):  # the midpoint to the next float, nudged or not: rounding's hard cases
            d = _WIDE.divide(_WIDE.add(d, Decimal(after)), 2)
            nudge = draw(st.sampled_from([0, 1, -1]))
            sign, digits, exponent = d.as_tuple()
            d = Decimal((sign, (*digits, 0, 0, 0, nudge % 10), int(exponent) - 4)) if nudge else d
        sign, digits, exponent = d.as_tuple()
        text = "".join(map(str, digits))
        return _spell_decimal(draw, text, len(text) + int(exponent), bool(sign))
    # digits: an arbitrary decimal, exponents past the float range included
    digits = draw(st.text("0123456789", min_size=1, max_size=40))
    return _spell_decimal(draw, digits, draw(st.integers(-340, 330)), draw(st.booleans()))


integer_text = st.one_of(
    st.integers(-(2**70), 2**70),
    st.integers(-(10**80), 10**80),
    st.sampled_from([2**63 - 1, 2**63, 2**64 - 1, 2**64, -(2**63), -(2**63) - 1, -(2**64), 0]),
).map(str) | st.just("-0")

_SHORT = {'"': '\\"', "\\": "\\\\", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t", "/": "\\/"}


@st.composite
def string_text(draw: st.DrawFn, key: bool = False) -> str:
    """A JSON string token: each character raw, as a short escape or as \\uXXXX (a non-BMP one as a
    surrogate pair), with lone, reversed and raw surrogates among them."""
    chars = draw(st.lists(st.one_of(
        st.characters(),
        st.sampled_from(["\u2028", "\u2029", "\x85", "\x7f", "\ufeff", "\U0001f600", '"', "\\", "/", "\x00", "\x1f"]),
        st.integers(0xD800, 0xDFFF).map(lambda c: ("lone", c)),
    ), max_size=3 if key else 12))
    out = ['"']
    for c in chars:
        if isinstance(c, tuple):
            out.append(f"\\u{c[1]:04{draw(st.sampled_from(['x', 'X']))}}")
            continue
        how = draw(st.sampled_from(["raw", "raw", "escape", "short"]))
        if how == "short" and c in _SHORT:
            out.append(_SHORT[c])
        elif how == "escape" or c in '"\\' or ord(c) < 0x20:
            if ord(c) > 0xFFFF:
                high, low = 0xD800 + ((ord(c) - 0x10000) >> 10), 0xDC00 + ((ord(c) - 0x10000) & 0x3FF)
                pair = [f"\\u{high:04x}", f"\\u{low:04X}"]
                out.extend(pair[::-1] if draw(st.integers(0, 9)) == 0 else pair)  # now and then reversed
            else:
                out.append(f"\\u{ord(c):04{draw(st.sampled_from(['x', 'X']))}}")
        else:
            out.append(c)
    out.append('"')
    return "".join(out)


whitespace = st.text(" \t\r\n", max_size=3)
literal_text = st.sampled_from(["true", "false", "null", "NaN", "Infinity", "-Infinity"])
scalar_text = st.one_of(float_text(), integer_text, string_text(), literal_text)


def _container(children: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    def array(items: list[str], ws: list[str]) -> str:
        return ws[0] + "[" + ",".join(f"{ws[1]}{item}{ws[2]}" for item in items) + (ws[3] if not items else "") + "]"

    def members(pairs: list[tuple[str, str]], ws: list[str]) -> str:
        return ws[0] + "{" + ",".join(f"{ws[1]}{k}{ws[2]}:{ws[3]}{v}{ws[1]}" for k, v in pairs) + "}"

    # Keys from a few spellings of a few names, so duplicates (spelt alike or not) are common.
    keys = st.one_of(st.sampled_from(['"a"', '"b"', '"\\u0061"', '"a\\/b"', '"a/b"', '""']), string_text(key=True))
    ws = st.lists(whitespace, min_size=4, max_size=4)
    return st.one_of(
        st.builds(array, st.lists(children, max_size=5), ws),
        st.builds(members, st.lists(st.tuples(keys, children), max_size=6), ws),
    )


json_text = st.recursive(scalar_text, _container, max_leaves=25)


@st.composite
def document(draw: st.DrawFn) -> str:
    """A JSON text with its surrounding whitespace, deepened, damaged or as it is."""
    text = draw(whitespace) + draw(json_text) + draw(whitespace)
    if draw(st.integers(0, 9)) == 0:  # deep nesting around it
        depth = draw(st.integers(1, 3000))
        text = "[" * depth + text + "]" * depth
    damage = draw(st.sampled_from(["none", "none", "none", "cut", "insert", "delete"]))
    if damage != "none" and text:
        at = draw(st.integers(0, len(text) - 1))
        if damage == "cut":
            text = text[:at]
        elif damage == "delete":
            text = text[:at] + text[at + 1:]
        else:
            junk = draw(st.sampled_from([*'{}[],:"\\x-.eE+0 ', "\x00", "\x0c", "\xa0", "\u2028", "\ufeff", "\ud800", "NaN"]))
            text = text[:at] + junk + text[at:]
    return text


def _settings(examples: int) -> settings:
    return settings(max_examples=examples, derandomize=True, deadline=None, database=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


@_settings(2500)
@given(document())
def test_loads_is_json_loads_on_generated_text(text: str) -> None:
    assert_as_json_loads(text)
    try:
        raw = text.encode("utf-8")
    except UnicodeEncodeError:  # a raw lone surrogate: no UTF-8 bytes for the reader to pass
        raw = None
    if raw is not None:
        assert_as_json_loads(text, raw)  # the reader's call: the line's text and its bytes
        assert_as_json_loads(raw)  # bytes alone (partial.py): json.loads(bytes) detects UTF-16 and reads surrogates


@_settings(800)
@given(document(), st.integers(0, 2**32), st.binary(min_size=1, max_size=3))
def test_loads_is_json_loads_on_damaged_bytes(text: str, where: int, junk: bytes) -> None:
    # Invalid UTF-8, encoded surrogates, a byte-order mark, NULs (json.loads(bytes) guesses UTF-16 from them).
    raw = text.encode("utf-8", "surrogatepass")
    at = where % (len(raw) + 1)
    assert_as_json_loads(raw[:at] + junk + raw[at:])


@_settings(1000)
@given(json_text)
def test_what_msgspec_accepts_it_reads_as_json_loads(text: str) -> None:
    # msgspec alone, where it does not refuse: the values loads returns without json.loads.
    assert FAST is not None
    try:
        value = FAST(text.encode("utf-8"))
    except Exception:
        return
    assert same(value, json.loads(text)), text


# --- literal texts ---------------------------------------------------------------------------

BIG = "123456789012345678901234567890"


@pytest.mark.parametrize(("text", "expected"), [
    (f'{{"n": {BIG}, "m": -{BIG}}}', {"n": 123456789012345678901234567890, "m": -123456789012345678901234567890}),
    ("[18446744073709551616, -9223372036854775809]", [18446744073709551616, -9223372036854775809]),
    ('{"k": 1, "j": 2, "k": 3}', {"k": 3, "j": 2}),
    ('{"a": "\\u0061", "\\u0061": 5}', {"a": 5}),
    ('["x\u2028y", "\\u2028", "\\ud83d\\ude00"]', ["x\u2028y", "\u2028", "\U0001f600"]),
    ("[1E5, 1e+05, 100000.0, 1e-400, -1e-400, 5e-324, 2.4703282292062328e-324]", [1e5, 1e5, 1e5, 0.0, -0.0, 5e-324, 5e-324]),
    ("[-0, -0.0, 0.1, 9007199254740993.0]", [0, -0.0, 0.1, 9007199254740992.0]),
    (" \t\r\n{}\n ", {}),
    ("[" + "9" * 4300 + "]", [int("9" * 4300)]),
])
def test_texts_msgspec_reads(text: str, expected: Any) -> None:
    assert FAST is not None
    assert same(FAST(text.encode()), expected)  # read by msgspec itself, not by the fallback
    for fast in (FAST, None):
        with decoder(fast):
            assert same(loads(text), expected)


@pytest.mark.parametrize(("text", "expected"), [
    ("[NaN, Infinity, -Infinity]", [math.nan, math.inf, -math.inf]),
    ("[1e400, -1e400]", [math.inf, -math.inf]),
    ('["\\ud800", "\\udc00\\ud800", "\\ud800\\u0041"]', ["\ud800", "\udc00\ud800", "\ud800A"]),
    ('{"\\udfff": 1}', {"\udfff": 1}),
    ("[-" + "9" * 4300 + "]", [-int("9" * 4300)]),  # msgspec counts the sign among Python's 4300 digits
])
def test_texts_msgspec_refuses_are_read_by_json_loads(text: str, expected: Any) -> None:
    assert FAST is not None
    with pytest.raises(msgspec.DecodeError):  # ValidationError (out of range) is one too
        FAST(text.encode("utf-8", "surrogatepass"))
    for fast in (FAST, None):
        with decoder(fast):
            assert same(loads(text), expected)


@pytest.mark.parametrize(("text", "error"), [
    ('{"a": 1,}', (json.JSONDecodeError, "Expecting property name enclosed in double quotes: line 1 column 9 (char 8)")),
    ("\ufeff{}", (json.JSONDecodeError, "Unexpected UTF-8 BOM (decode using utf-8-sig): line 1 column 1 (char 0)")),
    ('{"a": "\x01"}', (json.JSONDecodeError, "Invalid control character at: line 1 column 8 (char 7)")),
    ("{} x", (json.JSONDecodeError, "Extra data: line 1 column 4 (char 3)")),
    ("[01]", (json.JSONDecodeError, "Expecting ',' delimiter: line 1 column 3 (char 2)")),
    ("", (json.JSONDecodeError, "Expecting value: line 1 column 1 (char 0)")),
    # json.loads's plain ValueError (which no caller catches) as a JSONDecodeError at the integer.
    ("[" + "9" * 4301 + "]", (json.JSONDecodeError, "an integer of more than 4300 digits: line 1 column 2 (char 1)")),
    ('{"s": "' + "1" * 5000 + '", "n": [1.' + "5" * 5000 + ", -" + "7" * 4301 + "]}",
     (json.JSONDecodeError, "an integer of more than 4300 digits: line 1 column 10021 (char 10020)")),
    ("[" * 100_000 + "]" * 100_000, (RecursionError, "maximum recursion depth exceeded while decoding a JSON array from a unicode string")),
])
def test_refused_texts_raise_json_loads_own_error(text: str, error: tuple[type[Exception], str]) -> None:
    for fast in (FAST, None):
        with decoder(fast), pytest.raises(error[0]) as caught:
            loads(text)
        assert (type(caught.value), str(caught.value)) == error


@pytest.mark.parametrize("depth", [500, 900, 990, 1000, 1500, 3000, 10_000])
@pytest.mark.parametrize("shape", ["[{}]", '{{"a": {}}}'])
def test_deep_nesting_as_json_loads(depth: int, shape: str) -> None:
    text = "1"
    for _ in range(depth):
        text = shape.format(text)
    assert_as_json_loads(text)


def test_msgspec_is_imported_only_after_a_megabyte() -> None:
    with decoder(None):
        jsonread._countdown = jsonread.FAST_AFTER
        line = '{"surface": "' + "x" * 1000 + '"}'
        for _ in range(jsonread.FAST_AFTER // len(line)):
            assert loads(line) == {"surface": "x" * 1000}
        assert jsonread._fast is None
        assert loads(line) == {"surface": "x" * 1000}
        assert jsonread._fast is FAST


def test_a_small_check_never_imports_msgspec(tmp_path: Path) -> None:
    # The CLI on a short file pays no import for msgspec (about 35 ms: more than it saves there).
    small = tmp_path / "small.jsonl"
    small.write_text('{"case_id": "c1", "surface": "Truth is real."}\n' * 100, encoding="utf-8")
    probe = ("import sys; from surface_lint.cli.main import main; code = main(['check', sys.argv[1]]); "
             "print(code, 'msgspec' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", probe, str(small)], env={"PYTHONPATH": str(ROOT / "server")},
                          capture_output=True, text=True, timeout=120, check=True)
    assert done.stdout.split()[-2:] == ["0", "False"]
    big = tmp_path / "big.jsonl"
    big.write_text('{"case_id": "c1", "surface": "Truth is real."}\n' * 30_000, encoding="utf-8")  # 1.4 MB
    done = subprocess.run([sys.executable, "-c", probe, str(big)], env={"PYTHONPATH": str(ROOT / "server")},
                          capture_output=True, text=True, timeout=120, check=True)
    assert done.stdout.split()[-2:] == ["0", "True"]


# --- through the reader: records and findings, with msgspec and without it -----------------

LINES = [
    f'{{"id": "big", "n": {BIG}, "neg": -18446744073709551617}}',
    '{"id": "nan", "x": NaN, "y": -Infinity, "z": 1e400}',
    '{"id": "sur", "s": "a\\ud800b"}',
    '{"id": "dup", "k": 1, "m": 2, "k": 3}',
    '{"id": "ls", "s": "x\u2028y", "f": 5e-324, "g": -0.0, "h": 1E+2}',
    '{"id": "bad", "a": 1,}',
    "[1, 2]",
    '{"id": "deep", "d": ' + "[" * 100_000 + "]" * 100_000 + "}",
    '{"id": "trail"} x',
    '{"a": "\x01"}',
    '{"id": "é", "s": "caf\\u00e9 ☕"}',
    '{"id": "long", "n": ' + "9" * 4301 + "}",
]


@pytest.mark.parametrize("fast", [FAST, None], ids=["msgspec", "json-only"])
def test_the_reader_gives_json_loads_records_and_findings(fast: Callable[[bytes | str], Any] | None) -> None:
    from surface_lint.sources.base import JsonlReader, ReadStats

    reader = JsonlReader("t.jsonl")
    with decoder(fast):
        records = list(reader.records(io.BytesIO(("\n".join(LINES) + "\n").encode())))
    assert [(r.line, r.index) for r in records] == [(1, 0), (2, 1), (3, 2), (4, 3), (5, 4), (11, 5)]
    got = [r.data for r in records]
    expected = [
        {"id": "big", "n": 123456789012345678901234567890, "neg": -18446744073709551617},
        {"id": "nan", "x": math.nan, "y": -math.inf, "z": math.inf},
        {"id": "sur", "s": "a\ufffdb"},
        {"id": "dup", "k": 3, "m": 2},
        {"id": "ls", "s": "x\u2028y", "f": 5e-324, "g": -0.0, "h": 100.0},
        {"id": "é", "s": "café ☕"},
    ]
    assert same(got, expected)
    assert [r.text for r in records] == [LINES[i] for i in (0, 1, 2, 3, 4, 10)]
    assert [((f.location.path, f.location.line, f.location.column, f.location.end_line, f.location.end_column),
             f.code, f.message, f.record_id, f.record_index) for f in reader.findings] == [
        (("t.jsonl", 3, 22, 3, 28), "SL016", "unpaired UTF-16 surrogate in `s` (half of a character); read as U+FFFD", "sur", 2),
        (("t.jsonl", 6, 22, 6, 23), "SL001", "invalid JSON: Expecting property name enclosed in double quotes", None, None),
        (("t.jsonl", 7, 1, 7, 7), "SL001", "expected a JSON object, found an array", None, None),
        (("t.jsonl", 8, 1, 8, 2), "SL001", "invalid JSON: nesting too deep to read", None, None),
        (("t.jsonl", 9, 17, 9, 18), "SL001", "invalid JSON: Extra data", None, None),
        (("t.jsonl", 10, 8, 10, 9), "SL001", "invalid JSON: Invalid control character at", None, None),
        (("t.jsonl", 12, 21, 12, 22), "SL001", "invalid JSON: an integer of more than 4300 digits", None, None),
    ]
    assert reader.stats == ReadStats(lines=12, records=6, errors=6, blank=0, skipped=0)


def test_the_reader_hands_msgspec_the_line_bytes() -> None:
    # The bytes, not the text: msgspec would attach a UTF-8 copy to each non-ASCII `text` a
    # Record keeps. Every line goes to msgspec first; the ones it refuses on to json.loads.
    from surface_lint.sources.base import JsonlReader

    assert FAST is not None
    seen: list[object] = []

    def watched(data: bytes | str) -> Any:
        seen.append(data)
        return FAST(data)

    with decoder(watched):
        records = list(JsonlReader("t.jsonl").records(io.BytesIO(b'{"a": "\xc3\xa9"}\r\n{"b": NaN}\n[1]\n')))
    assert [r.text for r in records] == ['{"a": "é"}', '{"b": NaN}']
    # NaN: refused, read by json.loads. `[1]`: not an object, read again for its finding (the text then).
    assert seen == [b'{"a": "\xc3\xa9"}', b'{"b": NaN}', b"[1]", "[1]"]
