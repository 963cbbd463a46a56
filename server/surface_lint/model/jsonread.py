"""JSON text -> Python values exactly as `json.loads` gives them, faster where msgspec is installed.

`loads(text)` is `json.loads(text)`, value for value and exception for exception. Where msgspec
can be imported, `msgspec.json.decode` parses first (about 5x `json.loads` on issue 17's records),
and every text it refuses is parsed again by `json.loads`: NaN and Infinity, 1e400, a lone
surrogate escape (`"\\ud800"`), an integer longer than Python reads, nesting deeper than it
walks, and anything malformed. What msgspec accepts it reads as `json.loads` does (the same types,
float bits, integers of any length, key order, the last of duplicate keys in the first one's
place: tests/model/test_jsonread.py holds it to that), so every text gives `json.loads`'s value,
or `json.loads`'s own exception with its message, line and column. Without msgspec (not installed,
or no build for this Python): `json.loads` alone, the same results.

msgspec is imported only once a process has decoded `FAST_AFTER` characters: its import
(about 35 ms) costs more than it saves on a small file, and a CLI run or an editor's first
lint of a short document never pays it.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from typing import Any

FAST_AFTER = 1 << 20  # characters decoded by json.loads before msgspec is imported (about 3 MB pays for its import)

_json_loads = json.loads
_fast: Callable[[bytes | str], Any] | None = None
_countdown = FAST_AFTER  # characters left before the import is tried; <= 0: tried


def fast_decoder() -> Callable[[bytes | str], Any] | None:
    """msgspec's JSON decoder, or None where it cannot be imported."""
    try:
        from msgspec.json import decode
    except ImportError:
        return None
    return decode


def loads(text: str | bytes, raw: bytes | None = None) -> Any:
    """`json.loads(text)`. `raw`: the same text as UTF-8 bytes, when the caller has them
    (msgspec reads bytes without attaching a UTF-8 copy to a `str` that outlives the call)."""
    return decode(text, raw)[0]


def decode(text: str | bytes, raw: bytes | None = None) -> tuple[Any, bool]:
    """`loads(text, raw)`, and whether msgspec read it: then the text holds no lone surrogate
    escape (`"\\ud800"`), which msgspec refuses and `json.loads` reads (a reader that flags
    them need not look)."""
    global _countdown, _fast
    fast = _fast
    if fast is None:
        if _countdown > 0:
            _countdown -= len(text)
            if _countdown <= 0:
                _fast = fast_decoder()
        return _slow(text), False
    try:
        if raw is not None:
            return fast(raw), True
        if type(text) is str and not text.isascii():
            return fast(text.encode("utf-8")), True
        return fast(text), True
    except Exception:  # any refusal (DecodeError, RecursionError, a lone surrogate to encode): json.loads says
        return _slow(text), False


def _slow(text: str | bytes) -> Any:
    """`json.loads(text)`; an integer longer than Python converts (`sys.get_int_max_str_digits`,
    a plain ValueError from json.loads, which no caller expects) is a JSONDecodeError at it."""
    try:
        return _json_loads(text)
    except json.JSONDecodeError:
        raise
    except ValueError as exc:
        doc = text if isinstance(text, str) else text.decode("utf-8", "replace")
        limit = sys.get_int_max_str_digits()
        at = _long_integer(doc, limit) if limit else None
        if at is None:
            raise
        raise json.JSONDecodeError(f"an integer of more than {limit} digits", doc, at) from exc


_DIGITS = frozenset("0123456789")
_NUMBER = frozenset("0123456789.eE+-")


def _long_integer(doc: str, limit: int) -> int | None:
    """Where the first integer of more than `limit` digits outside a string starts (a scan of
    the text, only after json.loads refused it)."""
    i, n = 0, len(doc)
    while i < n:
        c = doc[i]
        if c == '"':  # a string: to its closing quote, escapes skipped
            i += 1
            while i < n and doc[i] != '"':
                i += 2 if doc[i] == "\\" else 1
            i += 1
        elif c in _DIGITS or c == "-":
            j = k = i + (c == "-")
            while k < n and doc[k] in _DIGITS:
                k += 1
            if k - j > limit and (k == n or doc[k] not in ".eE"):
                return i
            while k < n and doc[k] in _NUMBER:  # a fraction or exponent: the same number
                k += 1
            i = max(k, i + 1)
        else:
            i += 1
    return None
