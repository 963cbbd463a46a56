"""Rule patterns whose cost is bounded by the text's length, never by a clock (docs/regex.md).

Three kinds of pattern, three ways to run them:

* **vetted** — a pattern that appears in the shipped rules (in any file that uses it): the
  runner's own engine, the stdlib `re`, on texts up to FAST_PATH_MAX_CHARS characters; on
  longer texts its exact RE2 form (rules/pyre.py) when it has one, else `re` (the one vetted
  pattern without it, a lookbehind, is proven linear in docs/regex.md);
* **built** — a pattern the engine builds from literal word lists (`\\b(?:w1|w2)\\b`): `re`,
  linear by construction;
* **user** — anything else: Python `re`'s meaning, run by RE2 only (rules/pyre.py: linear time
  in the text; what has no exact linear-time form is refused), with a deterministic budget: a text longer than USER_REGEX_STEPS / program size characters
  is not searched and the verdict is SL013 for that record.
"""

from __future__ import annotations

import functools
import re
from typing import Any

import re2  # type: ignore[import-untyped]  # google-re2 ships no type information

from .pyre import Compiled, TranslateError, translate

# Vetted patterns run on `re` up to this many characters (their worst case is polynomial of a
# low degree, so bounded here); longer texts take their exact RE2 form when there is one.
FAST_PATH_MAX_CHARS = 4096
# A user pattern runs on a text only when len(text) * its RE2 program size is at most this
# (RE2's work is linear in both): about a second of matching at worst, the same on every machine.
USER_REGEX_STEPS = 1 << 28
# RE2's memory for one compiled pattern (a bigger pattern is refused when the rules load).
RE2_MAX_MEM = 8 << 20


class PatternError(ValueError):
    """A pattern that cannot be used; the message says why (the rules loader adds file:line)."""


class RegexBudgetExceeded(Exception):
    """A user pattern was not run on a text longer than its budget (SL013 for that record)."""


RegexTimeout = RegexBudgetExceeded  # the name scoring.py catches (kept: no clock is involved any more)


def _re2_options() -> Any:
    options = re2.Options()
    options.log_errors = False
    options.max_mem = RE2_MAX_MEM
    return options


def _re2_message(exc: Exception) -> str:
    text = exc.args[0] if exc.args else exc
    reason = text.decode("utf-8", "replace") if isinstance(text, bytes) else str(text)
    if reason.startswith("invalid perl operator: "):
        operator = reason.split(": ", 1)[1]
        return (f"uses `{operator}`, which the linear-time engine that runs user patterns (RE2) does not "
                "support (no lookaround, backreference, possessive or atomic group)")
    if "pattern too large" in reason:
        return f"is too large for the linear-time engine (RE2 program over {RE2_MAX_MEM >> 20} MiB)"
    return f"is not accepted by the linear-time engine (RE2): {reason}"


@functools.lru_cache(maxsize=512)
def _compile_user(pattern: str) -> Any:
    """A user pattern: Python `re`'s meaning, run by RE2 (rules/pyre.py), or PatternError saying why not."""
    try:
        translation = translate(pattern)
    except TranslateError as exc:
        raise PatternError(str(exc)) from None
    try:
        return Compiled(translation, _re2_options())
    except re2.error as exc:
        raise PatternError(_re2_message(exc)) from None


_UNRESOLVED: Any = object()  # a vetted pattern's RE2 form before a text past the fast path asks for it


class SafePattern:
    """A compiled rule pattern whose cost is bounded by the text's length (see the module).

    A vetted pattern's RE2 form is translated when a text past FAST_PATH_MAX_CHARS first needs
    it, not when the rules load: most runs never need it, and translating the shipped lanes'
    patterns was most of the cost of loading them (the language server's start)."""

    __slots__ = ("_budget_chars", "_linear", "_py", "origin", "pattern")

    def __init__(self, pattern: str, trusted: bool, built: bool = False) -> None:
        self.pattern = pattern
        self._budget_chars: int | None = None
        if not built and not trusted:
            self.origin = "user"
            self._py: re.Pattern[str] | None = None
            self._linear: Any = _compile_user(pattern)
            self._budget_chars = USER_REGEX_STEPS // max(int(self._linear.programsize), 1)
            return
        try:
            python = re.compile(pattern)  # the syntax check (and its messages) users know
        except re.error as exc:
            raise PatternError(f"does not compile: {exc}") from None
        if built:
            self.origin = "built"
            self._py = python
            self._linear = None
        else:
            self.origin = "vetted"
            self._py = python
            self._linear = _UNRESOLVED  # re's meaning on RE2, for texts past the fast path: `_re2`

    @property
    def _re2(self) -> Any:
        """The RE2 form (None: run on `re` at any length); a vetted pattern's is translated on first use."""
        linear = self._linear
        if linear is _UNRESOLVED:
            try:
                linear = _compile_user(self.pattern)
            except PatternError:
                linear = None  # no exact linear-time form: `re` at any length (proven linear, docs/regex.md)
            self._linear = linear
        return linear

    @property
    def budget_chars(self) -> int | None:
        """The longest text a user pattern runs on (None: no limit)."""
        return self._budget_chars

    def _engine(self, text: str) -> Any:
        python = self._py
        if python is not None and (len(text) <= FAST_PATH_MAX_CHARS or self._re2 is None):
            return python
        budget = self._budget_chars
        if budget is not None and len(text) > budget:
            raise RegexBudgetExceeded(
                f"was not run: the text's {len(text):,} characters exceed this pattern's budget of "
                f"{budget:,} ({USER_REGEX_STEPS:,} steps / RE2 program size {self._linear.programsize})")
        return self._linear

    def search(self, text: str) -> Any:
        return self._engine(text).search(text)

    def searcher(self) -> Any:
        """`search` as one callable: the `re` method itself when no text ever takes another engine."""
        if self._py is not None and self._linear is None and self._budget_chars is None:
            return self._py.search
        return self.search

    def match(self, text: str) -> Any:
        return self._engine(text).match(text)

    def finditer(self, text: str) -> list[Any]:
        return list(self._engine(text).finditer(text))

    def sub(self, replacement: str, text: str) -> str:
        return str(self._engine(text).sub(replacement, text))

    def split(self, text: str) -> list[str]:
        return list(self._engine(text).split(text))

    def findall(self, text: str) -> list[Any]:
        return list(self._engine(text).findall(text))
