"""Rule patterns whose cost is bounded by the text's length, never by a clock (docs/regex.md).

Three kinds of pattern, three ways to run them:

* **vetted** — a pattern that appears in the shipped rules (in any file that uses it): the
  runner's own engine, the stdlib `re`, on texts up to FAST_PATH_MAX_CHARS characters; on
  longer texts its exact RE2 form (rules/pyre.py) when it has one, else `re` (the one vetted
  pattern without it, a lookbehind, is proven linear in docs/regex.md);
* **built** — a pattern the engine builds from literal word lists (`\\b(?:w1|w2)\\b`): `re`,
  linear by construction;
* **user** — anything else: Python `re`'s meaning, run by RE2 only (rules/pyre.py: linear time
  in the text; what has no exact linear-time form is refused), with a deterministic budget of
  USER_REGEX_STEPS steps: a text longer than USER_REGEX_STEPS / the pattern's cost a character
  (pyre.search_cost) is not searched, and a pattern whose iteration rescans (pyre.rescans) is
  charged each search's remaining text; past the budget the verdict is SL013 for that record.
"""

from __future__ import annotations

import functools
import re
from typing import Any

import re2  # type: ignore[import-untyped]  # google-re2 ships no type information

from .pyre import MATCH_STEPS, Compiled, StepsExceeded, TranslateError, translate

# Vetted patterns run on `re` up to this many characters (their worst case is polynomial of a
# low degree, so bounded here); longer texts take their exact RE2 form when there is one.
FAST_PATH_MAX_CHARS = 4096
# A user pattern runs on a text only when len(text) * its cost a character (pyre.search_cost: the
# automaton's positions, weighted by UTF-8 width) is at most this; bench/regex_budget.py measures
# the worst time at the budget (docs/regex.md "The character budget"). The same on every machine.
USER_REGEX_STEPS = 1 << 26
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


_UNSET: Any = object()


class SafePattern:
    """A compiled rule pattern whose cost is bounded by the text's length (see the module)."""

    __slots__ = ("_budget_chars", "_linear", "_py", "origin", "pattern")

    def __init__(self, pattern: str, trusted: bool, built: bool = False) -> None:
        self.pattern = pattern
        self._budget_chars: int | None = None
        if not built and not trusted:
            self.origin = "user"
            self._py: re.Pattern[str] | None = None
            self._linear: Any = _compile_user(pattern)
            # A text at the budget is scanned once and gives its first match (a search's one result).
            self._budget_chars = (USER_REGEX_STEPS - MATCH_STEPS) // max(int(self._linear.cost), 1)
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
            self._linear = _UNSET  # its RE2 form is translated when a text first needs it (see `_re2`)

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickled as its source (compiled again where it is loaded; a vetted pattern's RE2 form on use)."""
        return SafePattern, (self.pattern, self.origin != "user", self.origin == "built")

    @property
    def _re2(self) -> Any:
        """The RE2 engine (None: `re` at any length). A vetted pattern's is built on first use: the
        translation reads `re`'s character sets over every code point, which a start-up need not pay."""
        linear = self._linear
        if linear is _UNSET:
            try:
                linear = _compile_user(self.pattern)  # re's meaning on RE2, for texts past the fast path
            except PatternError:
                linear = None  # no exact linear-time form: `re` at any length (proven linear, docs/regex.md)
            self._linear = linear
        return linear

    @property
    def budget_chars(self) -> int | None:
        """The longest text a user pattern runs on (None: no limit)."""
        return self._budget_chars

    @property
    def cost(self) -> int | None:
        """A user pattern's steps a character (None: not a user pattern)."""
        return None if self._budget_chars is None else int(self._re2.cost)

    def _engine(self, text: str) -> Any:
        python = self._py
        if python is not None:
            if len(text) <= FAST_PATH_MAX_CHARS:
                return python
            linear = self._re2
            return python if linear is None else linear
        budget = self._budget_chars
        if budget is not None and len(text) > budget:
            raise RegexBudgetExceeded(
                f"was not run: the text's {len(text):,} characters exceed this pattern's budget of "
                f"{budget:,} (({USER_REGEX_STEPS:,} steps - {MATCH_STEPS} for a match) / {self._re2.cost} a character)")
        return self._re2

    def _limit(self, engine: Any) -> int | None:
        return USER_REGEX_STEPS if self._budget_chars is not None and engine is self._re2 else None

    def _iterated(self, text: str, run: Any) -> Any:
        """Run an iteration on the RE2 path with the step limit; SL013's reason when it is passed."""
        engine = self._engine(text)
        limit = self._limit(engine)
        if limit is None:
            return run(engine, text)
        try:
            return run(engine, text, limit)
        except StepsExceeded as stop:
            rescan = ("; this pattern has a repetition inside an alternative or an optional or repeated group, so "
                      "each search may scan the rest of the text again, and is charged for it"
                      if self._re2.translation.rescans else "")
            raise RegexBudgetExceeded(
                f"was not run to the end: after {stop.args[0]:,} matches it passed the budget of "
                f"{USER_REGEX_STEPS:,} steps (the text's {len(text):,} characters at {self._re2.cost} a character, "
                f"{MATCH_STEPS} a match{rescan})") from None

    def search(self, text: str) -> Any:
        return self._engine(text).search(text)

    def searcher(self) -> Any:
        """`search` as one callable: the `re` method itself when no text ever takes another engine."""
        if self._py is not None and self._linear is None:
            return self._py.search
        return self.search

    def match(self, text: str) -> Any:
        return self._engine(text).match(text)

    def finditer(self, text: str) -> list[Any]:
        return list(self._iterated(text, lambda engine, t, *limit: list(engine.finditer(t, *limit))))

    def sub(self, replacement: str, text: str) -> str:
        return str(self._iterated(text, lambda engine, t, *limit: engine.sub(replacement, t, *limit)))

    def split(self, text: str) -> list[str]:
        return list(self._iterated(text, lambda engine, t, *limit: engine.split(t, *limit)))

    def findall(self, text: str) -> list[Any]:
        return list(self._iterated(text, lambda engine, t, *limit: engine.findall(t, *limit)))
