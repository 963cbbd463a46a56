"""Python `re` patterns run on RE2 with exactly `re`'s meaning, in linear time (docs/regex.md).

A pattern is parsed by Python's own parser (so every construct means what it means in `re`),
then written out in RE2 syntax with every character class spelled as explicit code-point ranges
that the running Python's `re` itself reports (`\\w`, `\\d`, `\\s`, `.`, classes, and each literal
under `(?i)`): the sets are `re`'s by construction, whatever Unicode version the interpreter has.

Three things RE2 cannot say are rebuilt from what it can:

* Unicode `\\b` / `\\B` next to the start or end of the match: RE2 consumes the one character
  outside the match that decides the boundary (or sees the text's edge), and the match is then
  trimmed back to what `re` reports. Between two parts of the pattern, a boundary whose two
  sides are each known to be word or non-word characters is decided when the pattern is built.
* `$` (without `(?m)`) at the end of the pattern: the end of the text, or a final newline that is
  consumed and trimmed.
* `re`'s iteration after an empty match (a match at the same place must then be non-empty): the
  patterns whose empty matches could come before a longer match at the same place are refused.

Anything else without an exact linear-time form (lookaround, backreferences, conditionals,
atomic groups, possessive quantifiers, a boundary whose sides are not known) is refused with
a message that names the construct and what to write instead.
"""

from __future__ import annotations

import array
import bisect
import functools
import importlib
import re
import sys
import unicodedata
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import re2  # type: ignore[import-untyped]  # google-re2 ships no type information

_sre: Any = importlib.import_module("re._parser" if sys.version_info >= (3, 11) else "sre_parse")

Ranges = tuple[tuple[int, int], ...]
MAX_CODE_POINT = 0x10FFFF
SURROGATES = (0xD800, 0xDFFF)
REPLACEMENT = 0xFFFD  # a lone surrogate of the text is matched as U+FFFD (RE2 reads UTF-8 only)
RE2_MAX_REPEAT = 1000
_IGNORECASE, _MULTILINE, _DOTALL, _ASCII = re.IGNORECASE.value, re.MULTILINE.value, re.DOTALL.value, re.ASCII.value
_MAXREPEAT = _sre.MAXREPEAT
_POSSESSIVE = getattr(_sre, "POSSESSIVE_REPEAT", None)
_ATOMIC = getattr(_sre, "ATOMIC_GROUP", None)
_NEVER = r"[^\x00-\x{10ffff}]"


class TranslateError(ValueError):
    """A pattern with no exact linear-time form; the message names the construct and the fix."""


# ---------------------------------------------------------------- character sets, from `re` itself

@functools.cache
def _all_chars() -> str:
    """Every code point once, in order (surrogates included: `re` matches them)."""
    codec = "utf-32-le" if sys.byteorder == "little" else "utf-32-be"
    return array.array("I", range(MAX_CODE_POINT + 1)).tobytes().decode(codec, "surrogatepass")


_CASE_BLOCK = 256  # code points tested at once by _cased


@functools.cache
def _cased() -> str:
    """The code points that have a case mapping: the only ones a `(?i)` literal can match besides itself.

    A block whose `lower()` and `upper()` are itself has none (every code point maps to at least
    one, and final sigma only picks which lower case Σ gets), so only the few blocks with cased
    letters are looked at one by one: the same string as testing each code point, 6x faster."""
    chars = _all_chars()
    parts = []
    for at in range(0, len(chars), _CASE_BLOCK):
        block = chars[at:at + _CASE_BLOCK]
        if block.lower() != block or block.upper() != block:
            parts.append("".join(c for c in block if c.lower() != c or c.upper() != c))
    return "".join(parts)


@functools.lru_cache(maxsize=4096)
def scan(source: str, flags: int) -> Ranges:
    """The code points the one-character Python pattern `source` matches under `flags`, as `re` says."""
    return tuple((m.start(), m.end() - 1) for m in re.compile(f"(?:{source})+", flags).finditer(_all_chars()))


@functools.lru_cache(maxsize=4096)
def literal_set(code: int, flags: int) -> Ranges:
    """The code points a literal matches: itself, or under `(?i)` what `re` folds to it."""
    if not flags & _IGNORECASE:
        return ((code, code),)
    rx = re.compile(_py_char(code), flags)
    found = sorted({code} | {ord(c) for c in _cased() if rx.fullmatch(c)})
    return _normalise((c, c) for c in found)


def _normalise(pairs: Any) -> Ranges:
    out: list[list[int]] = []
    for lo, hi in sorted(pairs):
        if out and lo <= out[-1][1] + 1:
            out[-1][1] = max(out[-1][1], hi)
        else:
            out.append([lo, hi])
    return tuple((a, b) for a, b in out)


def complement(ranges: Ranges) -> Ranges:
    out: list[tuple[int, int]] = []
    at = 0
    for lo, hi in ranges:
        if lo > at:
            out.append((at, lo - 1))
        at = hi + 1
    if at <= MAX_CODE_POINT:
        out.append((at, MAX_CODE_POINT))
    return tuple(out)


def _last(pair: tuple[int, int]) -> int:
    return pair[1]


def intersect(a: Ranges, b: Ranges) -> Ranges:
    """The code points in both (each sorted and disjoint, as every `Ranges` is)."""
    if len(b) > len(a):
        a, b = b, a
    if len(b) * 8 < len(a):  # a few ranges against many (a class against `\w`): find each by bisection
        found: list[tuple[int, int]] = []
        for lo, hi in b:
            k = bisect.bisect_left(a, lo, key=_last)
            while k < len(a) and a[k][0] <= hi:
                found.append((max(lo, a[k][0]), min(hi, a[k][1])))
                k += 1
        return tuple(found)
    out: list[tuple[int, int]] = []
    i = j = 0
    while i < len(a) and j < len(b):
        lo, hi = max(a[i][0], b[j][0]), min(a[i][1], b[j][1])
        if lo <= hi:
            out.append((lo, hi))
        if a[i][1] < b[j][1]:
            i += 1
        else:
            j += 1
    return tuple(out)


def _subset(a: Ranges, b: Ranges) -> bool:
    return intersect(a, b) == a


@functools.cache
def word_set() -> Ranges:
    """Python's Unicode `\\w`."""
    return scan(r"\w", re.UNICODE.value)


@functools.cache
def _categories() -> dict[str, Ranges]:
    found: dict[str, list[tuple[int, int]]] = {}
    for code in range(MAX_CODE_POINT + 1):
        cat = unicodedata.category(chr(code))
        runs = found.setdefault(cat, [])
        if runs and runs[-1][1] == code - 1:
            runs[-1] = (runs[-1][0], code)
        else:
            runs.append((code, code))
    return {k: tuple(v) for k, v in found.items()}


def category_set(name: str) -> Ranges:
    """`\\p{name}`: a Unicode general category (`Lu`) or a group of them (`L`), from `unicodedata`."""
    cats = _categories()
    if name in ("Any",):
        return ((0, MAX_CODE_POINT),)
    picked = [r for cat, r in cats.items() if cat == name or (len(name) == 1 and cat[0] == name)]
    if name == "L&":
        picked = [cats.get(c, ()) for c in ("Lu", "Ll", "Lt")]
    if not picked:
        known = sorted({c[0] for c in cats} | set(cats))
        raise TranslateError(f"uses `\\p{{{name}}}`, which is not a Unicode general category (known: "
                             f"{', '.join(known)}, L& and Any; for a script write its range, e.g. "
                             "`[\\u0590-\\u05FF]` for Hebrew)")
    return _normalise(p for r in picked for p in r)


# ---------------------------------------------------------------- the pre-pass: \p{..}, \x{..}

def _py_char(code: int) -> str:
    return f"\\U{code:08x}"


def py_ranges(ranges: Ranges) -> str:
    return "".join(_py_char(lo) if lo == hi else f"{_py_char(lo)}-{_py_char(hi)}" for lo, hi in ranges)


_EXTENSION = re.compile(r"\\(?:(?P<p>[pP])(?:\{(?P<name>[^}]*)\}|(?P<short>[A-Za-z]))|x\{(?P<hex>[0-9A-Fa-f]{1,6})\})")


def expand_extensions(pattern: str) -> str:
    """`\\p{..}`, `\\P{..}`, `\\pL` and `\\x{HHHH}` written in the syntax `re` reads (ranges, `\\U`)."""
    if "\\p" not in pattern and "\\P" not in pattern and "\\x{" not in pattern:
        return pattern
    out: list[str] = []
    i, n = 0, len(pattern)
    in_class = False
    class_start = -1
    while i < n:
        ch = pattern[i]
        if ch == "\\" and i + 1 < n:
            m = _EXTENSION.match(pattern, i)
            if m is None:
                out.append(pattern[i:i + 2])
                i += 2
                continue
            if m.group("hex") is not None:
                code = int(m.group("hex"), 16)
                if code > MAX_CODE_POINT:
                    raise TranslateError(f"uses `{m.group()}` at character {i + 1}, beyond U+10FFFF")
                out.append(_py_char(code))
            else:
                ranges = category_set(m.group("name") if m.group("name") is not None else m.group("short"))
                negated = m.group("p") == "P"
                if in_class:
                    out.append(py_ranges(complement(ranges) if negated else ranges))
                else:
                    out.append(("[^" if negated else "[") + py_ranges(ranges) + "]")
            i = m.end()
            continue
        if in_class:
            if ch == "]" and i > class_start:
                in_class = False
        elif ch == "[":
            in_class = True
            class_start = i + 1
            if pattern.startswith("[^", i):
                class_start = i + 2
            out.append(pattern[i:class_start])
            i = class_start
            continue
        out.append(ch)
        i += 1
    return "".join(out)


# ---------------------------------------------------------------- the tree, written for RE2

_CATEGORY_SOURCE = {"CATEGORY_DIGIT": r"\d", "CATEGORY_NOT_DIGIT": r"\D", "CATEGORY_SPACE": r"\s",
                    "CATEGORY_NOT_SPACE": r"\S", "CATEGORY_WORD": r"\w", "CATEGORY_NOT_WORD": r"\W"}


def _class_source(items: list[Any]) -> str:
    parts: list[str] = []
    for op, av in items:
        name = str(op)
        if name == "NEGATE":
            parts.append("^")
        elif name == "LITERAL":
            parts.append(_py_char(av))
        elif name == "RANGE":
            parts.append(f"{_py_char(av[0])}-{_py_char(av[1])}")
        elif name == "CATEGORY":
            parts.append(_CATEGORY_SOURCE[str(av)])
        else:  # pragma: no cover - the parser puts nothing else in a class
            raise TranslateError(f"has a class item `{name}` this translation does not know")
    return "[" + "".join(parts) + "]"


def char_set(node: tuple[Any, Any], flags: int) -> Ranges | None:
    """What a one-character node matches, or None when the node is not one character."""
    op, av = node
    name = str(op)
    if name == "_SET":
        return tuple(av)
    if name == "LITERAL":
        return literal_set(av, flags)
    if name == "NOT_LITERAL":
        return scan(f"[^{_py_char(av)}]", flags)
    if name == "IN":
        return scan(_class_source(av), flags)
    if name == "ANY":
        return scan(".", flags)
    return None


def re2_class(ranges: Ranges) -> str:
    """A set of code points in RE2 syntax (a lone surrogate of the text is read as U+FFFD)."""
    sur_lo, sur_hi = SURROGATES
    inside = intersect(ranges, ((sur_lo, sur_hi),))
    has_fffd = bool(intersect(ranges, ((REPLACEMENT, REPLACEMENT),)))
    if inside not in ((), ((sur_lo, sur_hi),)) or bool(inside) != has_fffd:
        raise TranslateError("has a class that tells lone surrogates (U+D800-U+DFFF) or U+FFFD apart; "
                             "the linear-time engine reads a lone surrogate as U+FFFD: list neither or all of them")
    valid = intersect(ranges, ((0, sur_lo - 1), (sur_hi + 1, MAX_CODE_POINT)))
    if not valid:
        return _NEVER
    negated = intersect(complement(ranges), ((0, sur_lo - 1), (sur_hi + 1, MAX_CODE_POINT)))

    def spell(rs: Ranges) -> str:
        return "".join(f"\\x{{{lo:x}}}" if lo == hi else f"\\x{{{lo:x}}}-\\x{{{hi:x}}}" for lo, hi in rs)

    if not negated:
        return r"[\x00-\x{10ffff}]"
    if len(negated) < len(valid):
        return f"[^{spell(negated)}]"
    if len(valid) == 1 and valid[0][0] == valid[0][1]:
        code = valid[0][0]
        return chr(code) if chr(code).isascii() and chr(code).isalnum() else f"\\x{{{code:x}}}"
    return f"[{spell(valid)}]"


def _min_width(items: list[Any], flags: int) -> int:
    return int(_sre.SubPattern(_sre.State(), list(items)).getwidth()[0]) if items else 0


def _max_width(items: list[Any]) -> int:
    return int(_sre.SubPattern(_sre.State(), list(items)).getwidth()[1]) if items else 0


@dataclass
class _Edge:
    """The characters that can come first (or last) in a node's matches, and whether it can be empty."""

    chars: Ranges
    nullable: bool


def _edge(items: list[Any], flags: int, last: bool) -> _Edge:
    seq = list(reversed(items)) if last else list(items)
    chars: Ranges = ()
    for node in seq:
        e = _node_edge(node, flags, last)
        chars = _normalise((*chars, *e.chars))
        if not e.nullable:
            return _Edge(chars, False)
    return _Edge(chars, True)


def _node_edge(node: Any, flags: int, last: bool) -> _Edge:
    op, av = node
    name = str(op)
    single = char_set(node, flags)
    if single is not None:
        return _Edge(single, False)
    if name == "AT":
        return _Edge((), True)
    if name == "SUBPATTERN":
        return _edge(list(av[3]), (flags | av[1]) & ~av[2], last)
    if name == "BRANCH":
        edges = [_edge(list(b), flags, last) for b in av[1]]
        return _Edge(_normalise(p for e in edges for p in e.chars), any(e.nullable for e in edges))
    if name in ("MAX_REPEAT", "MIN_REPEAT"):
        e = _edge(list(av[2]), flags, last)
        return _Edge(e.chars if av[1] != 0 else (), e.nullable or av[0] == 0)
    raise TranslateError(f"uses `{name}`")  # pragma: no cover - refused before the edges are read


def _purity(chars: Ranges) -> str | None:
    """'w' when every character is a word character, 'n' when none is, None when mixed or empty."""
    if not chars:
        return None
    if _subset(chars, word_set()):
        return "w"
    if not intersect(chars, word_set()):
        return "n"
    return None


_REFUSED = {
    "ASSERT": ("a lookahead `(?=...)` or lookbehind `(?<=...)`",
               "match the text itself (the match then includes it), or test it in a second predicate"),
    "ASSERT_NOT": ("a negative lookahead `(?!...)` or lookbehind `(?<!...)`",
                   "write the characters allowed there as a class (`[^...]`), or give the case a second "
                   "predicate that must not match"),
    "GROUPREF": ("a backreference (`\\1`, `(?P=name)`)", "list the alternatives it stands for (`(a|b)\\1` -> `aa|bb`)"),
    "GROUPREF_EXISTS": ("a conditional `(?(1)...|...)`", "write the two alternatives as two patterns"),
    "ATOMIC_GROUP": ("an atomic group `(?>...)`", "write it as a plain group `(?:...)`"),
    "POSSESSIVE_REPEAT": ("a possessive quantifier (`*+`, `++`, `?+`, `{m,n}+`)",
                          "use the greedy quantifier (`*`, `+`, `?`, `{m,n}`)"),
}
_TOKENS = {"ASSERT": r"\(\?<?=", "ASSERT_NOT": r"\(\?<?!", "GROUPREF": r"\\[1-9]|\(\?P=",
           "GROUPREF_EXISTS": r"\(\?\(", "ATOMIC_GROUP": r"\(\?>", "POSSESSIVE_REPEAT": r"[*+?}]\+"}


def _refuse(name: str, source: str) -> TranslateError:
    what, instead = _REFUSED[name]
    at = _locate(source, _TOKENS[name])
    where = f" at character {at + 1}" if at is not None else ""
    return TranslateError(f"uses {what}{where}, which has no exact linear-time form: {instead}")


def _locate(source: str, token: str) -> int | None:
    """Where `token` first occurs in `source` outside a class and not escaped."""
    rx = re.compile(token)
    i, n, in_class = 0, len(source), False
    while i < n:
        if source[i] == "\\" and not in_class and rx.match(source, i):
            return i
        if source[i] == "\\":
            i += 2
            continue
        if in_class:
            in_class = source[i] != "]"
        elif source[i] == "[":
            in_class = True
            i += 2 if source.startswith(("[]", "[^"), i) else 1
            continue
        elif rx.match(source, i):
            return i
        i += 1
    return None


_BOUNDARY_HELP = ("put `\\b` where the characters on its two sides are known: next to the start or "
                  "end of the pattern, or between a word character and a non-word one (`\\bword\\b`, "
                  "`\\b\\w+`), or write the characters out (`(?:^|\\W)word`)")


@dataclass(frozen=True)
class Translation:
    """A pattern in RE2 syntax and how to read RE2's spans back as `re`'s."""

    first: str          # the RE2 pattern for a search from the text's start
    later: str          # the same for a search that starts later (its `\\A` alternatives removed)
    groups: int         # the Python pattern's groups
    group_map: tuple[int, ...]   # Python group i (1-based) -> RE2 group
    heads: tuple[int, ...]       # RE2 groups that consumed the character before the match
    tails: tuple[int, ...]       # RE2 groups that consumed the character (or newline) after it
    consumes_before: bool        # a search from `pos` > 0 starts one character earlier
    cost: int = 1                # the automaton's work per character of text at worst (see `search_cost`)
    rescans: bool = False        # iterating may scan the same text once per match (see `rescans`)


class _Writer:
    def __init__(self, source: str) -> None:
        self.source = source
        self.count = 0        # RE2 groups so far
        self.group_map: dict[int, int] = {}
        self.heads: list[int] = []
        self.tails: list[int] = []

    def group(self) -> int:
        self.count += 1
        return self.count

    def marker(self, body: str, tail: bool) -> str:
        g = self.group()
        (self.tails if tail else self.heads).append(g)
        return f"({body})"

    # -- the context a boundary needs
    def nonword(self) -> str:
        return re2_class(complement(word_set()))

    def word(self) -> str:
        return re2_class(word_set())

    def suffix(self, kind: str, before: str) -> str:
        """What must follow a match that ends in a `before` ('w'/'n') character for `kind` (b/B) to hold."""
        wants_nonword = (kind == "b") == (before == "w")
        if wants_nonword:
            return f"(?:\\z|{self.marker(self.nonword(), True)})"
        return self.marker(self.word(), True)

    def prefix_alternatives(self, kind: str, after: str) -> tuple[bool, str]:
        """(whether the text's start counts, the consumed class) before an `after` character."""
        wants_nonword = (kind == "b") == (after == "w")
        return wants_nonword, (self.nonword() if wants_nonword else self.word())

    # -- the tree
    def kind(self, node: Any, flags: int) -> str | None:
        """'b', 'B' or '$' for a boundary `re` means otherwise than RE2 (None for any other node)."""
        op, av = node
        if str(op) != "AT":
            return None
        name = str(av)
        if name in ("AT_BOUNDARY", "AT_NON_BOUNDARY") and not flags & _ASCII:
            return "b" if name == "AT_BOUNDARY" else "B"
        if name == "AT_END" and not flags & _MULTILINE:
            return "$"
        return None

    def seq(self, items: list[Any], flags: int, head: bool = False, tail: bool = False,
            before: Ranges | None = None) -> str:
        """`items` in RE2 syntax; `head`/`tail`: they begin/end every match; `before`: the characters
        that can come just before them inside the match (None: unknown)."""
        items = list(items)
        if tail and items and self.kind(items[-1], flags) == "$":
            return self.seq(items[:-1], flags, head, False, before) + f"(?:\\z|{self.marker(chr(92) + 'n', True)}\\z)"
        first_kind = self.kind(items[0], flags) if items else None
        if head and len(items) > 1 and first_kind in ("b", "B"):
            return self.head(items[1:], flags, first_kind, tail)
        last_kind = self.kind(items[-1], flags) if items else None
        if tail and len(items) > 1 and last_kind in ("b", "B"):
            return self.tail(items[:-1], flags, last_kind, head, before)
        out: list[str] = []
        for i, node in enumerate(items):
            kind = self.kind(node, flags)
            if kind == "$":
                raise TranslateError("uses `$` (without `(?m)`) before the end of the pattern, where `re` reads it as "
                                     "\"at the end or before a final newline\", which has no exact linear-time form "
                                     "there: write `\\Z` (the end of the text), `\\n?\\Z`, or `(?m)$`")
            if kind is not None:
                if 0 < i < len(items) - 1:
                    resolved = self.middle(items, i, flags, kind)
                    if resolved is not None:
                        items, replacement = resolved
                        if replacement is not None:
                            out.append(replacement)
                        continue
                raise TranslateError(f"uses `\\{kind}` where the characters on its two sides are not known, which has "
                                     f"no exact linear-time form (a Unicode word boundary): {_BOUNDARY_HELP}")
            out.append(self.node(node, flags, head and i == 0, tail and i == len(items) - 1))
        return "".join(out)

    def middle(self, items: list[Any], i: int, flags: int, kind: str) -> tuple[list[Any], str | None] | None:
        left, right = items[i - 1], items[i + 1]
        le, ri = _node_edge(left, flags, True), _node_edge(right, flags, False)
        lp = None if le.nullable else _purity(le.chars)
        rp = None if ri.nullable else _purity(ri.chars)
        if lp is not None and rp is not None:
            holds = (lp != rp) == (kind == "b")
            return items, None if holds else _NEVER
        right_set = char_set(right, flags)
        if lp is not None and right_set is not None:
            allowed = word_set() if (lp == "n") == (kind == "b") else complement(word_set())
            return [*items[:i + 1], ("_SET", intersect(right_set, allowed)), *items[i + 2:]], None
        return None

    def head(self, items: list[Any], flags: int, kind: str, tail: bool) -> str:
        """`\\b`/`\\B` first in the pattern, then `items`."""
        first = items[0]
        single = char_set(first, flags)
        rest = items[1:]
        if single is None and str(first[0]) == "MAX_REPEAT" and first[1][0] >= 1 and len(first[1][2]) == 1 \
                and char_set(first[1][2][0], flags) is not None:
            lo, hi, body = first[1]
            single = char_set(body[0], flags)
            if hi is _MAXREPEAT or hi > 1:
                rest = [(_sre.MAX_REPEAT, (lo - 1, hi if hi is _MAXREPEAT else hi - 1, body)), *rest]
        if single is not None:
            parts = (("w", intersect(single, word_set())), ("n", intersect(single, complement(word_set()))))
            closes = tail and len(rest) == 1 and self.kind(rest[0], flags) in ("b", "B")
            end_kind = self.kind(rest[0], flags) if closes else None
            # RE2 numbers groups in the order they are written: every marker is made where it is written.
            starts: list[str] = []
            consumed: list[str] = []
            for purity, part in parts:
                if part and self.prefix_alternatives(kind, purity)[0]:
                    after = self.suffix(end_kind, purity) if end_kind is not None else ""
                    starts.append(f"\\A{_A_MARK}{re2_class(part)}{after}")
            for purity, part in parts:
                if part:
                    before_part = self.marker(self.prefix_alternatives(kind, purity)[1], False)
                    after = self.suffix(end_kind, purity) if end_kind is not None else ""
                    consumed.append(before_part + re2_class(part) + after)
            if closes:
                return "(?:" + "|".join(starts + consumed) + ")"
            return "(?:" + "|".join(starts + consumed) + ")" + self.seq(rest, flags, tail=tail, before=single)
        edge = _node_edge(first, flags, False)
        side = None if edge.nullable else _purity(edge.chars)
        if side is None:
            raise TranslateError(f"uses `\\{kind}` at the start of the pattern before something that can begin with a "
                                 f"word or a non-word character, which has no exact linear-time form: {_BOUNDARY_HELP}")
        start_ok, context = self.prefix_alternatives(kind, side)
        pre = f"(?:\\A{_A_MARK}|{self.marker(context, False)})" if start_ok else self.marker(context, False)
        return pre + self.seq(items, flags, tail=tail)

    def tail(self, items: list[Any], flags: int, kind: str, head: bool = False, before: Ranges | None = None) -> str:
        """`items` then `\\b`/`\\B` last in the pattern; `before`: what can precede `items` (None: unknown)."""
        last, init = items[-1], items[:-1]
        init_edge = _edge(init, flags, True)
        context: Ranges | None = init_edge.chars
        if init_edge.nullable:
            context = None if before is None else _normalise((*init_edge.chars, *before))
        written = self.seq(init, flags, head=head, before=before)
        name = str(last[0])
        single = char_set(last, flags)
        if single is not None:
            return written + self.split_last(single, kind)
        if name == "SUBPATTERN":
            g, add, rem, body = last[1]
            if not body:
                raise TranslateError(f"uses `\\{kind}` after an empty group: {_BOUNDARY_HELP}")
            opened = "(?:"
            if g is not None:
                self.group_map[g] = self.group()
                opened = "("
            return written + opened + self.tail(list(body), (flags | add) & ~rem, kind, False, context) + ")"
        if name == "BRANCH":
            return written + "(?:" + "|".join(self.tail(list(b), flags, kind, False, context) for b in last[1][1]) + ")"
        if name == "MAX_REPEAT" and len(last[1][2]) == 1 and char_set(last[1][2][0], flags) is not None:
            lo, hi, body = last[1]
            one = char_set(body[0], flags) or ()
            fewer = self.repeat(self.node(body[0], flags), max(lo - 1, 0), hi if hi is _MAXREPEAT else hi - 1, True) \
                if (hi is _MAXREPEAT or hi > 1) else ""
            taken = fewer + self.split_last(one, kind)
            if lo >= 1:
                return written + taken
            purity = None if context is None else _purity(context)
            if purity is None:
                raise TranslateError(f"uses `\\{kind}` at the end of the pattern after an optional part whose preceding "
                                     f"characters can be word or non-word characters: {_BOUNDARY_HELP}")
            return written + f"(?:{taken}|{self.suffix(kind, purity)})"
        edge = _node_edge(last, flags, True)
        purity = None if edge.nullable else _purity(edge.chars)
        if purity is None:
            raise TranslateError(f"uses `\\{kind}` at the end of the pattern after something that can end with a word "
                                 f"or a non-word character, which has no exact linear-time form: {_BOUNDARY_HELP}")
        return written + self.node(last, flags) + self.suffix(kind, purity)

    def split_last(self, chars: Ranges, kind: str) -> str:
        alts = [re2_class(part) + self.suffix(kind, purity)
                for purity, part in (("w", intersect(chars, word_set())), ("n", intersect(chars, complement(word_set()))))
                if part]
        return "(?:" + "|".join(alts) + ")" if alts else _NEVER

    def repeat(self, body: str, lo: int, hi: Any, greedy: bool) -> str:
        if (lo > RE2_MAX_REPEAT) or (hi is not _MAXREPEAT and hi > RE2_MAX_REPEAT):
            raise TranslateError(f"repeats something {hi if hi is not _MAXREPEAT else lo} times; the linear-time "
                                 f"engine counts at most {RE2_MAX_REPEAT} repetitions: write a smaller count, or "
                                 "`{m,}` with no upper bound")
        if hi is _MAXREPEAT:
            q = "*" if lo == 0 else "+" if lo == 1 else f"{{{lo},}}"
        elif lo == hi:
            q = f"{{{lo}}}"
        elif (lo, hi) == (0, 1):
            q = "?"
        else:
            q = f"{{{lo},{hi}}}"
        return f"(?:{body}){q}{'' if greedy else '?'}"

    def node(self, node: Any, flags: int, head: bool = False, tail: bool = False) -> str:
        op, av = node
        name = str(op)
        if name == "_SET":
            return re2_class(av)
        single = char_set(node, flags)
        if single is not None:
            return re2_class(single)
        if name in _REFUSED or op is _POSSESSIVE or op is _ATOMIC:
            raise _refuse(name, self.source)
        if name == "SUBPATTERN":
            g, add, rem, body = av
            inner_flags = (flags | add) & ~rem
            if g is None:
                return "(?:" + self.seq(list(body), inner_flags, head, tail) + ")"
            self.group_map[g] = self.group()
            return "(" + self.seq(list(body), inner_flags, head, tail) + ")"
        if name == "BRANCH":
            return "(?:" + "|".join(self.seq(list(b), flags, False, tail) for b in av[1]) + ")"
        if name in ("MAX_REPEAT", "MIN_REPEAT"):
            lo, hi, body = av
            if _min_width(list(body), flags) == 0 and _has(body, "SUBPATTERN", capturing=True):
                raise TranslateError("repeats a capturing group that can match the empty string, whose captured text "
                                     "`re` reports differently: make the group match at least one character, or "
                                     "use `(?:...)`")
            if _has(body, "AT"):
                raise TranslateError("repeats an anchor or boundary (`^`, `$`, `\\b` inside `*`, `+` or `{m,n}`): "
                                     "write it outside the repetition")
            return self.repeat(self.seq(list(body), flags), lo, hi, name == "MAX_REPEAT")
        if name == "AT":
            code = str(av)
            if code == "AT_BEGINNING" and flags & _MULTILINE:
                return "(?m:^)"
            if code == "AT_END" and flags & _MULTILINE:
                return "(?m:$)"
            if code in ("AT_BEGINNING", "AT_BEGINNING_STRING"):
                return "\\A"
            if code == "AT_BEGINNING_LINE":
                return "(?m:^)"
            if code == "AT_END_STRING":
                return "\\z"
            if code == "AT_END_LINE":
                return "(?m:$)"
            if code in ("AT_BOUNDARY", "AT_NON_BOUNDARY"):  # (?a): RE2's ASCII boundary is `re`'s
                return "\\b" if code == "AT_BOUNDARY" else "\\B"
            raise TranslateError(f"uses `{code}` where it has no exact linear-time form: {_BOUNDARY_HELP}")
        raise TranslateError(f"uses `{name}`, which this translation does not know")


def _utf8_width(ranges: Ranges) -> int:
    """The bytes of the widest character of a class in UTF-8 (RE2 reads UTF-8: a class of wider
    characters is a deeper automaton, about one step a byte)."""
    top = max((hi for _, hi in ranges), default=0)
    return 1 if top < 0x80 else 2 if top < 0x800 else 3 if top < 0x10000 else 4


def search_cost(items: list[Any], flags: int) -> int:
    """An upper bound of the automaton's work per character of text, in steps: the pattern's
    positions (one per one-character atom, a counted repetition `X{m,n}` counting its body n
    times, `X*` and `X+` once), each weighted by its class's UTF-8 width. RE2's work on a text
    is at most its length times the positions that can be live at once; a Unicode class is one
    position here, however many ranges it lists (RE2's program size counts those, and was the
    old, much larger, bound; docs/regex.md "The character budget")."""
    total = 0
    for node in items:
        op, av = node
        name = str(op)
        if name == "_SET":
            total += _utf8_width(av)
            continue
        single = char_set(node, flags)
        if single is not None:
            total += _utf8_width(single)
        elif name == "SUBPATTERN":
            total += search_cost(list(av[3]), (flags | av[1]) & ~av[2])
        elif name == "BRANCH":
            total += sum(search_cost(list(b), flags) for b in av[1])
        elif name in ("MAX_REPEAT", "MIN_REPEAT"):
            lo, hi, body = av
            copies = max(lo, 1) if hi is _MAXREPEAT else hi
            total += copies * search_cost(list(body), flags)
        else:
            total += 1  # an anchor or boundary (a boundary consumes one character outside the match)
    return total


def _unbounded(items: Any) -> bool:
    for op, av in items:
        name = str(op)
        if name in ("MAX_REPEAT", "MIN_REPEAT") and (av[1] is _MAXREPEAT or _unbounded(av[2])):
            return True
        if name == "SUBPATTERN" and _unbounded(av[3]):
            return True
        if name == "BRANCH" and any(_unbounded(b) for b in av[1]):
            return True
    return False


def rescans(items: Any, at_end: bool = True, guarded: bool = False) -> bool:
    """Whether finding every match may scan the same text again for each match: an unbounded
    repetition, with more of the pattern after it, inside an alternative (`a.*b|a`) or inside an
    optional or repeated group (`a(?:.*b)?c`, `(?:a+b)*a`). There a search that ends with a
    short match may first have scanned on to where a longer attempt failed, and the next search
    scans that text again, so the work is not linear in the text; such patterns are charged per
    search (patterns.py). A repetition at the pattern's end (`[.!?]\\s+|[.!?]$`) cannot fail
    after it has consumed, so it is not counted."""
    items = list(items)
    for i, (op, av) in enumerate(items):
        name = str(op)
        end = at_end and i == len(items) - 1
        if name == "BRANCH":
            inner = guarded or len(av[1]) > 1
            if any(rescans(b, end, inner) for b in av[1]):
                return True
        elif name in ("MAX_REPEAT", "MIN_REPEAT"):
            lo, hi, body = av
            if hi is _MAXREPEAT and guarded and not end:
                return True
            # Inside a variable repetition the body is followed by itself again: never at the end.
            if rescans(body, end and lo == hi, guarded or lo != hi):
                return True
        elif name == "SUBPATTERN" and rescans(av[3], end, guarded):
            return True
    return False


_A_MARK = "\x00A\x00"  # where a `\A` alternative of a boundary prefix stands (removed for later searches)


def _has(items: Any, name: str, capturing: bool = False) -> bool:
    for op, av in items:
        if str(op) == name and (not capturing or av[0] is not None):
            return True
        if str(op) == "SUBPATTERN" and _has(av[3], name, capturing):
            return True
        if str(op) == "BRANCH" and any(_has(b, name, capturing) for b in av[1]):
            return True
        if str(op) in ("MAX_REPEAT", "MIN_REPEAT") and _has(av[2], name, capturing):
            return True
    return False


def _prefers_longer(items: list[Any], flags: int) -> bool:
    """Whether, wherever the pattern can match both the empty string and something longer at one
    place, the longer match comes first (then RE2's iteration after an empty match is `re`'s)."""
    for op, av in items:
        name = str(op)
        if name == "MIN_REPEAT" and av[0] == 0 and av[1] != 0 and _max_width(list(av[2])) > 0:
            return False
        if name == "BRANCH":
            branches = list(av[1])
            for k, b in enumerate(branches[:-1]):
                if _min_width(list(b), flags) == 0 and any(_max_width(list(later)) > 0
                                                           for later in branches[k + 1:]):
                    return False
            if not all(_prefers_longer(list(b), flags) for b in branches):
                return False
        if name == "SUBPATTERN" and not _prefers_longer(list(av[3]), flags):
            return False
        if name in ("MAX_REPEAT", "MIN_REPEAT") and (_min_width(list(av[2]), flags) == 0
                                                     or not _prefers_longer(list(av[2]), flags)):
            return False
    return True


def translate(pattern: str) -> Translation:
    """The RE2 form of a Python pattern with `re`'s exact meaning, or TranslateError."""
    source = expand_extensions(pattern)
    try:
        parsed = _sre.parse(source)
    except re.error as exc:
        raise TranslateError(f"does not compile: {exc}") from None
    flags = int(parsed.state.flags)
    items = list(parsed)
    writer = _Writer(pattern)
    body = writer.seq(items, flags, head=True, tail=True)
    if int(parsed.getwidth()[0]) == 0 and not _prefers_longer(items, flags):
        raise TranslateError("can match the empty string where a longer match starts at the same place (a lazy `*?` "
                             "or `??`, or an empty alternative before a longer one), which `re` orders in a way the "
                             "linear-time engine cannot after an empty match: put the longer alternative first, or "
                             "use a greedy quantifier")
    groups = int(parsed.state.groups) - 1
    for g in range(1, groups + 1):
        writer.group_map.setdefault(g, 0)
    later = body.replace(f"\\A{_A_MARK}", _NEVER)
    first = body.replace(_A_MARK, "")
    return Translation(first, later, groups, tuple(writer.group_map[g] for g in range(1, groups + 1)),
                       tuple(writer.heads), tuple(writer.tails), bool(writer.heads),
                       1 + search_cost(items, flags), rescans(items))


# ---------------------------------------------------------------- running a translation

class Match:
    """A match with `re`'s spans (RE2's, trimmed of the context a boundary consumed)."""

    __slots__ = ("_spans", "string")

    def __init__(self, string: str, spans: list[tuple[int, int]]) -> None:
        self.string = string
        self._spans = spans

    def span(self, group: int = 0) -> tuple[int, int]:
        return self._spans[group]

    def start(self, group: int = 0) -> int:
        return self._spans[group][0]

    def end(self, group: int = 0) -> int:
        return self._spans[group][1]

    def group(self, *groups: int) -> Any:
        if not groups:
            groups = (0,)
        found = [None if self._spans[g][0] < 0 else self.string[self._spans[g][0]:self._spans[g][1]] for g in groups]
        return found[0] if len(found) == 1 else tuple(found)

    def __getitem__(self, group: int) -> Any:
        return self.group(group)

    def groups(self, default: Any = None) -> tuple[Any, ...]:
        return tuple(default if s[0] < 0 else self.string[s[0]:s[1]] for s in self._spans[1:])

    def __repr__(self) -> str:
        return f"<Match span={self._spans[0]} match={self.group()!r}>"


def _clip(span: tuple[int, int], start: int, end: int) -> tuple[int, int]:
    """A group's span inside its match (a boundary's consumed context trimmed), (-1, -1) if unset."""
    a, b = span
    return (max(a, start), min(b, end)) if a >= 0 else (-1, -1)


def _text(string: str, span: tuple[int, int]) -> str:
    """findall()'s text of a group: "" for a group that took no part."""
    return string[span[0]:span[1]] if span[0] >= 0 else ""


# What one match of an iteration costs, in steps of the automaton: reading RE2's spans back as
# `re`'s in Python (bench/regex_budget.py: 7 to 18 µs a match, about 35 ns a step at worst).
MATCH_STEPS = 512


class StepsExceeded(Exception):
    """An iteration stopped at its step limit (`Compiled._iterate`); args[0] is the matches found."""


class Compiled:
    """A translation compiled by RE2, with `re`'s search, match, finditer, findall, split and sub."""

    def __init__(self, translation: Translation, options: Any) -> None:
        self.translation = translation
        self._first = re2.compile(translation.first, options)
        self._later = re2.compile(translation.later, options) if translation.consumes_before else self._first
        self.programsize = max(int(self._first.programsize), int(self._later.programsize))
        self.groups = translation.groups
        self.cost = translation.cost

    def _encode(self, text: str) -> tuple[str, bytes]:
        try:
            return text, text.encode("utf-8")
        except UnicodeEncodeError:
            clean = re.sub("[\\ud800-\\udfff]", "\ufffd", text)
            return clean, clean.encode("utf-8")

    def _iterate(self, text: str, anchor: Any, once: bool, limit: int | None = None) -> Iterator[Match]:
        """`re`'s matches, one RE2 search each (`_found`)."""
        group_map = self.translation.group_map
        for start, end, spans in self._found(text, anchor, once, limit):
            yield Match(text, [(start, end), *[_clip(spans[g], start, end) if g else (-1, -1) for g in group_map]])

    def _found(self, text: str, anchor: Any, once: bool,
               limit: int | None = None) -> Iterator[tuple[int, int, list[tuple[int, int]]]]:
        """`re`'s matches as (start, end, the character spans of RE2's groups, not yet clipped to
        the match), one RE2 search each. With `limit` (steps) the iteration is charged the
        text's length times the pattern's cost, MATCH_STEPS a match, and, for a pattern that
        `rescans`, each later search's remaining text again; StepsExceeded stops it once the sum
        passes the limit (docs/regex.md "The character budget")."""
        clean, data = self._encode(text)
        t = self.translation
        spent = len(clean) * t.cost
        found_count = 0
        ascii_text = len(data) == len(clean)
        pos, byte = 0, 0           # where `re` searches next (characters, bytes)
        must_advance = False
        while pos <= len(clean):
            if limit is not None and not once:
                if found_count and t.rescans:
                    spent += (len(clean) - pos) * t.cost
                if spent > limit:
                    raise StepsExceeded(found_count)
            found = self._search(clean, data, pos, byte, anchor, ascii_text)
            if found is not None and must_advance and found[0] == pos and found[1] == pos:
                if pos == len(clean) or anchor != re2._Anchor.UNANCHORED:
                    return
                step = len(clean[pos].encode("utf-8"))
                found = self._search(clean, data, pos + 1, byte + step, anchor, ascii_text)
            if found is None:
                return
            start, end, end_byte, spans = found
            yield start, end, spans
            if once:
                return
            found_count += 1
            spent += MATCH_STEPS
            must_advance = start == end
            pos, byte = end, end_byte

    def _search(self, clean: str, data: bytes, pos: int, byte: int, anchor: Any,
                ascii_text: bool) -> tuple[int, int, int, list[tuple[int, int]]] | None:
        """One RE2 search from `pos`: (start, end, the byte after the match, the groups' character
        spans as RE2 gives them), with the context a boundary consumed trimmed from the match."""
        t = self.translation
        regexp = self._first._regexp
        from_char, from_byte = pos, byte
        if t.consumes_before and pos > 0:
            regexp = self._later._regexp
            from_char = pos - 1
            from_byte = byte - len(clean[pos - 1].encode("utf-8"))
        raw = regexp.Match(anchor, data, from_byte, len(data))
        if raw[0][0] < 0:
            return None
        if ascii_text:
            spans = raw  # bytes are characters; RE2 gives (-1, -1) for a group that took no part
        else:
            offsets = sorted({o for span in raw for o in span if o >= 0})
            chars: dict[int, int] = {}
            at_b, at_c = from_byte, from_char
            for o in offsets:
                at_c += re2._re2.BytesToCharLen(data, at_b, o) if o > at_b else 0
                at_b = o
                chars[o] = at_c
            spans = [(chars[a], chars[b]) if a >= 0 else (-1, -1) for a, b in raw]
        start, end = spans[0]
        end_byte = raw[0][1]
        for g in t.heads:
            if spans[g][0] >= 0:
                start = spans[g][1]
        for g in t.tails:
            if spans[g][0] >= 0:
                end = spans[g][0]
                end_byte = raw[g][0]
        if anchor != re2._Anchor.UNANCHORED and start != pos:
            return None
        return start, end, end_byte, spans

    def search(self, text: str) -> Match | None:
        return next(self._iterate(text, re2._Anchor.UNANCHORED, True), None)

    def match(self, text: str) -> Match | None:
        if self.translation.consumes_before:  # the consumed character is outside the text at 0: search, then check
            found = self.search(text)
            return found if found is not None and found.start() == 0 else None
        return next(self._iterate(text, re2._Anchor.ANCHOR_START, True), None)

    def finditer(self, text: str, limit: int | None = None) -> Iterator[Match]:
        return self._iterate(text, re2._Anchor.UNANCHORED, False, limit)

    def findall(self, text: str, limit: int | None = None) -> list[Any]:
        # Straight from the spans (no Match): the expressions' findall() runs once a premise.
        found = self._found(text, re2._Anchor.UNANCHORED, False, limit)
        if self.groups == 0:
            return [text[start:end] for start, end, _ in found]
        group_map = self.translation.group_map
        if self.groups == 1:
            g = group_map[0]
            return [_text(text, _clip(spans[g], start, end) if g else (-1, -1)) for start, end, spans in found]
        return [tuple(_text(text, _clip(spans[g], start, end) if g else (-1, -1)) for g in group_map)
                for start, end, spans in found]

    def split(self, text: str, limit: int | None = None) -> list[Any]:
        pieces: list[Any] = []
        end = 0
        for m in self.finditer(text, limit):
            pieces.append(text[end:m.start()])
            pieces.extend(m.groups())
            end = m.end()
        pieces.append(text[end:])
        return pieces

    def sub(self, replacement: str, text: str, limit: int | None = None) -> str:
        if "\\" in replacement:
            raise TranslateError("sub() with a template (`\\1`) is not supported for user patterns")
        pieces: list[str] = []
        end = 0
        for m in self.finditer(text, limit):
            pieces.append(text[end:m.start()])
            pieces.append(replacement)
            end = m.end()
        pieces.append(text[end:])
        return "".join(pieces)
