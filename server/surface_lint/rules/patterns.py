"""Rule patterns whose cost is bounded by the text's length, never by a clock (docs/regex.md).

Three kinds of pattern, three ways to run them:

* **vetted** — a pattern that appears in the shipped rules (in any file that uses it): the
  runner's own engine, the stdlib `re`, on texts up to FAST_PATH_MAX_CHARS characters; on
  longer texts its RE2 translation when that translation is exact (`to_re2`), else `re`
  (the vetted patterns without an exact translation are each proven linear in docs/regex.md);
* **built** — a pattern the engine builds from literal word lists (`\\b(?:w1|w2)\\b`): `re`,
  linear by construction;
* **user** — anything else: RE2 only (linear time in the text for every pattern it accepts),
  with a deterministic budget: a text longer than USER_REGEX_STEPS / program size characters
  is not searched and the verdict is SL013 for that record.
"""

from __future__ import annotations

import re
from typing import Any

import re2  # type: ignore[import-untyped]  # google-re2 ships no type information

from .pyre import Compiled, TranslateError, translate

# Vetted patterns run on `re` up to this many characters (their worst case is polynomial of a
# low degree, so bounded here); longer texts take their exact RE2 translation when there is one.
FAST_PATH_MAX_CHARS = 4096
# A user pattern runs on a text only when len(text) * its RE2 program size is at most this
# (RE2's work is linear in both): about a second of matching at worst, the same on every machine.
USER_REGEX_STEPS = 1 << 28
# RE2's memory for one compiled pattern (a bigger pattern is refused when the rules load).
RE2_MAX_MEM = 8 << 20

# Python's `\s` on str patterns is str.isspace(); RE2's is ASCII. Every such character is below U+3001.
PYTHON_SPACES = "".join(chr(c) for c in range(0x3001) if chr(c).isspace())
_SPACE_CLASS_ITEMS = "".join(f"\\x{{{ord(c):x}}}" for c in PYTHON_SPACES)


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


def to_re2(pattern: str) -> tuple[str, bool]:
    """The pattern in RE2 syntax, and whether RE2 then matches exactly what `re` matches.

    Exact translations: `\\s`/`\\S` become Python's whitespace set; `\\Z` becomes `\\z`; a
    final top-level `\\s*$` becomes `[spaces]*\\z` (both consume the trailing whitespace and end
    at the text's end). Anything whose meaning differs between the engines (`\\b`, `\\w`, `\\d`,
    inline flags, any other `$`, escapes RE2 reads differently) makes the translation inexact."""
    out: list[str] = []
    exact = True
    i, n = 0, len(pattern)
    in_class = False
    while i < n:
        ch = pattern[i]
        if ch == "\\" and i + 1 < n:
            nxt = pattern[i + 1]
            if nxt == "s":
                out.append(_SPACE_CLASS_ITEMS if in_class else f"[{_SPACE_CLASS_ITEMS}]")
            elif nxt == "S" and not in_class:
                out.append(f"[^{_SPACE_CLASS_ITEMS}]")
            elif nxt == "Z" and not in_class:
                out.append(r"\z")
            else:
                if nxt.isalnum() and nxt not in "tnrfvx":
                    exact = False  # \b \w \d \A \u, backreferences...: not the same in RE2
                out.append(ch + nxt)
            i += 2
            continue
        if in_class:
            if ch == "]":
                in_class = False
            if ch == "[" and i + 1 < n and pattern[i + 1] in ":=.":
                exact = False  # POSIX classes mean something in RE2 only
            out.append(ch)
        elif ch == "[":
            in_class = True
            if pattern.startswith("[^", i):
                out.append("[^")
                i += 2
                if i < n and pattern[i] == "]":
                    out.append("]")
                    i += 1
                continue
            out.append("[")
            if i + 1 < n and pattern[i + 1] == "]":
                out.append("]")
                i += 2
                continue
        elif ch == "$":
            tail = "".join(out)
            if i == n - 1 and tail.endswith(f"[{_SPACE_CLASS_ITEMS}]*") and _top_level(pattern):
                out.append(r"\z")
            else:
                exact = False
                out.append(ch)
        elif ch == "{" and pattern.startswith("{,", i):
            exact = False  # `{,n}` is a count in `re` and literal text in RE2
            out.append(ch)
        elif ch == "(" and pattern.startswith("(?", i) and not pattern.startswith(("(?:", "(?P<"), i):
            exact = False  # flags and lookarounds: RE2 refuses or reads them otherwise
            out.append(ch)
        else:
            out.append(ch)
        i += 1
    return "".join(out), exact


def _top_level(pattern: str) -> bool:
    """Whether the pattern's end is outside every group and no top-level `|` precedes it."""
    depth = 0
    i = 0
    in_class = False
    while i < len(pattern):
        ch = pattern[i]
        if ch == "\\":
            i += 2
            continue
        if in_class:
            in_class = ch != "]"
        elif ch == "[":
            in_class = True
        elif ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        elif ch == "|" and depth == 0:
            return False
        i += 1
    return depth == 0


def _compile_re2(pattern: str) -> Any:
    try:
        return re2.compile(pattern, _re2_options())
    except re2.error as exc:
        raise PatternError(_re2_message(exc)) from None


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


class SafePattern:
    """A compiled rule pattern whose cost is bounded by the text's length (see the module)."""

    __slots__ = ("_budget_chars", "_py", "_re2", "origin", "pattern")

    def __init__(self, pattern: str, trusted: bool, built: bool = False) -> None:
        self.pattern = pattern
        self._budget_chars: int | None = None
        if not built and not trusted:
            self.origin = "user"
            self._py: re.Pattern[str] | None = None
            self._re2: Any = _compile_user(pattern)
            self._budget_chars = USER_REGEX_STEPS // max(int(self._re2.programsize), 1)
            return
        try:
            python = re.compile(pattern)  # the syntax check (and its messages) users know
        except re.error as exc:
            raise PatternError(f"does not compile: {exc}") from None
        if built:
            self.origin = "built"
            self._py = python
            self._re2 = None
        else:
            self.origin = "vetted"
            self._py = python
            translated, exact = to_re2(pattern)
            self._re2 = None
            if exact:
                try:
                    self._re2 = _compile_re2(translated)
                except PatternError:
                    self._re2 = None

    @property
    def budget_chars(self) -> int | None:
        """The longest text a user pattern runs on (None: no limit)."""
        return self._budget_chars

    def _engine(self, text: str) -> Any:
        python = self._py
        if python is not None and (self._re2 is None or len(text) <= FAST_PATH_MAX_CHARS):
            return python
        budget = self._budget_chars
        if budget is not None and len(text) > budget:
            raise RegexBudgetExceeded(
                f"was not run: the text's {len(text):,} characters exceed this pattern's budget of "
                f"{budget:,} ({USER_REGEX_STEPS:,} steps / RE2 program size {self._re2.programsize})")
        return self._re2

    def search(self, text: str) -> Any:
        return self._engine(text).search(text)

    def searcher(self) -> Any:
        """`search` as one callable: the `re` method itself when no text ever takes another engine."""
        if self._py is not None and self._re2 is None and self._budget_chars is None:
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
