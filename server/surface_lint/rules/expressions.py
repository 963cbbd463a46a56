"""Expressions of case-driven lanes: a small, safe subset of Python syntax, interpreted here.

A lane file writes conditions (`case.expected_outcome == "answer"`), derived values
(`len(split("[.!?]\\s+|[.!?]$", target.surface))`) and verdicts (`exact or not failures`)
as text. They are parsed once with `ast` and only the nodes below are accepted; nothing is
ever passed to `eval`. Attribute access reads mapping keys and is null-safe (`case.a.b` is
None when `a` is missing), so a rule reads missing case fields without guards.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

from .kinds.core import SafePattern
from .patterns import PatternError, RegexTimeout

Scope = Mapping[str, Any]
_MISSING = object()
_NO_FUNCTIONS: Mapping[str, Callable[..., Any]] = {}


class ExprError(Exception):
    """An expression that does not parse or uses what the language does not have."""


@dataclass(frozen=True, slots=True)
class Limits:
    """The evaluation budget of one case (docs/lanes/README.md, "Limits"): counted, never timed,
    so two runs stop at the same place."""

    steps: int = 1_000_000  # expression nodes evaluated, plus one per item a function consumes
    cells: int = 10_000_000  # characters and list items created (all strings and lists together)
    string: int = 1_000_000  # characters of one string an expression builds
    items: int = 100_000  # items of one list an expression builds
    digits: int = 4_300  # decimal digits of one integer
    depth: int = 100  # nesting of one expression (checked when the lane file loads)


LIMITS = Limits()


class BudgetExceeded(Exception):
    """An evaluation past one of the `Limits` (its message says which)."""


class Budget:
    """What one case may still spend; every expression evaluated for the case draws on it."""

    __slots__ = ("_max_bits", "cells", "limits", "matches", "steps")

    def __init__(self, limits: Limits = LIMITS) -> None:
        self.limits = limits
        # What split()/findall()/search() gave for one pattern and text, while this budget lasts
        # (one case): a pattern's result depends on the two strings alone; at most MATCH_MEMO.
        self.matches: dict[tuple[str, str, str], Any] = {}
        self.steps = limits.steps
        self.cells = limits.cells
        self._max_bits = int(limits.digits * 3.3219280948873626) + 1  # log2(10)

    def reset(self) -> Budget:
        """This budget as a new one is (nothing spent, no match kept): for a caller that gives
        each of many evaluations a budget of its own without building one each time."""
        self.steps = self.limits.steps
        self.cells = self.limits.cells
        if self.matches:
            self.matches = {}
        return self

    def step(self, n: int = 1) -> None:
        self.steps -= n
        if self.steps < 0:
            raise BudgetExceeded(f"more than {self.limits.steps:,} evaluation steps")

    def size(self, value: Any) -> Any:
        """Charge a value an expression built (a string, a list, an integer); refuse one too large."""
        if isinstance(value, str):
            self._sized(len(value), "string", "characters", self.limits.string)
        elif isinstance(value, (list, dict)):
            self._sized(len(value), "list", "items", self.limits.items)
        elif isinstance(value, int) and value.bit_length() > self._max_bits:
            raise BudgetExceeded(f"an integer of more than {self.limits.digits:,} digits")
        return value

    def would_build(self, n: int, what: str) -> None:
        """Refuse, before it is built, a string (`what` "string") or list of `n` items too large."""
        if what == "string":
            self._sized(n, "string", "characters", self.limits.string)
        else:
            self._sized(n, "list", "items", self.limits.items)

    def bits(self, n: int) -> None:
        if n > self._max_bits:
            raise BudgetExceeded(f"an integer of more than {self.limits.digits:,} digits")

    def _sized(self, n: int, kind: str, unit: str, limit: int) -> None:
        if n > limit:
            raise BudgetExceeded(f"a {kind} of {n:,} {unit} (at most {limit:,})")
        self.cells -= n
        if self.cells < 0:
            raise BudgetExceeded(f"more than {self.limits.cells:,} characters and list items built for one case")


class EvalFailure(Exception):
    """A user expression that failed at run time (`budget` False) or ran past its budget (True).
    `message` names the expression and where the lane file wrote it."""

    def __init__(self, expr: Expr, reason: str, budget: bool) -> None:
        self.expr = expr
        self.reason = reason
        self.budget = budget
        shown = expr.shown()
        where = f" ({expr.where})" if expr.where else ""
        if budget:
            message = f"expression `{shown}`{where} ran past the evaluation budget: {reason}"
        else:
            message = f"expression `{shown}`{where} failed: {reason}"
        super().__init__(message)
        self.message = message


def _reason(exc: BaseException) -> str:
    """What went wrong, in words a lane author reads (no Python advice)."""
    text = str(exc).split("; use sys.set_int_max_str_digits", 1)[0].strip()
    return text or type(exc).__name__


_CMP: dict[type[ast.cmpop], Callable[[Any, Any], bool]] = {
    ast.Eq: lambda a, b: bool(a == b),
    ast.NotEq: lambda a, b: bool(a != b),
    ast.Lt: lambda a, b: bool(a < b),
    ast.LtE: lambda a, b: bool(a <= b),
    ast.Gt: lambda a, b: bool(a > b),
    ast.GtE: lambda a, b: bool(a >= b),
    ast.In: lambda a, b: a in b if b is not None else False,
    ast.NotIn: lambda a, b: a not in b if b is not None else True,
    ast.Is: lambda a, b: a is b,
    ast.IsNot: lambda a, b: a is not b,
}
_BIN: dict[type[ast.operator], Callable[[Any, Any], Any]] = {
    ast.Add: lambda a, b: a + b,
    ast.Sub: lambda a, b: a - b,
    ast.Mult: lambda a, b: a * b,
    ast.Div: lambda a, b: a / b,
    ast.FloorDiv: lambda a, b: a // b,
    ast.Mod: lambda a, b: a % b,
}

_FORMAT_WIDTH = re.compile(r"%(?:\([^)]*\))?[-#0 +]*(\*|\d+)?(?:\.(\*|\d+))?")


def _binop(op: ast.operator, a: Any, b: Any, budget: Budget) -> Any:
    """`a op b`, refused before it is built when the result would be past the budget."""
    if isinstance(op, ast.Mult):
        for seq, n in ((a, b), (b, a)):
            if isinstance(seq, (str, list)) and isinstance(n, int):
                budget.would_build(len(seq) * max(n, 0), "string" if isinstance(seq, str) else "list")
                return seq * n
        if isinstance(a, int) and isinstance(b, int):
            budget.bits(a.bit_length() + b.bit_length())
    elif isinstance(op, ast.Add):
        if isinstance(a, str) and isinstance(b, str):
            budget.would_build(len(a) + len(b), "string")
            return a + b
        if isinstance(a, list) and isinstance(b, list):
            budget.would_build(len(a) + len(b), "list")
            return a + b
    elif isinstance(op, ast.Mod) and isinstance(a, str):
        for width, precision in _FORMAT_WIDTH.findall(a):
            for number in (width, precision):
                if number.isdigit():
                    budget.would_build(int(number) if len(number) < 12 else budget.limits.string + 1, "string")
    return budget.size(_BIN[type(op)](a, b))


def _sum(values: Iterable[Any], start: Any = 0, budget: Budget | None = None) -> Any:
    """sum() with each step of a sum of lists (or strings) charged: never quadratic past the budget."""
    total = start
    for value in values:
        if budget is not None:
            budget.step()
            if isinstance(total, list) and isinstance(value, list):
                budget.would_build(len(total) + len(value), "list")
        total = total + value
    return total


def _unique_budgeted(values: Iterable[Any], budget: Budget | None = None) -> list[Any]:
    """The distinct items in first-seen order; hashable items are looked up, not scanned."""
    out: list[Any] = []
    seen: set[Any] = set()
    others: list[Any] = []  # lists and objects: compared one by one
    for v in values:
        if budget is not None:
            budget.step(1 + len(others))
        try:
            if v in seen:
                continue
            seen.add(v)
        except TypeError:
            if v in others:
                continue
            others.append(v)
        out.append(v)
    return out


_PATTERNS: dict[str, SafePattern] = {}


def _pattern(text: str) -> SafePattern:
    """Patterns written in expressions are user-supplied: they run with the time limit."""
    found = _PATTERNS.get(text)
    if found is None:
        if len(_PATTERNS) > 1024:
            _PATTERNS.clear()
        found = _PATTERNS[text] = SafePattern(text, False)
    return found


MATCH_MEMO = 256  # results of split()/findall()/search() kept per case (Budget.matches)


def _memo(kind: str, pattern: str, text: str | None, budget: Budget | None, run: Callable[[], Any]) -> Any:
    """`run()`, or what it gave for the same pattern and text earlier in the case (a copy of a list)."""
    if budget is None or type(pattern) is not str or type(text) is not str:
        return run()
    key = (kind, pattern, text)
    memo = budget.matches
    found = memo.get(key, _MISSING)
    if found is _MISSING:
        found = run()
        if len(memo) < MATCH_MEMO:
            memo[key] = found
    return list(found) if type(found) is list else found


def _split(pattern: str, text: str | None, budget: Budget | None = None) -> list[str]:
    """Non-blank parts of `text` split on `pattern`, stripped (a runner's sentence split)."""
    return _memo("split", pattern, text, budget,  # type: ignore[no-any-return]
                 lambda: [p.strip() for p in _pattern(pattern).split(text or "") if p and p.strip()])


def _findall(pattern: str, text: str | None, budget: Budget | None = None) -> list[Any]:
    return _memo("findall", pattern, text, budget,  # type: ignore[no-any-return]
                 lambda: _pattern(pattern).findall(text or ""))


def _search(pattern: str, text: str | None, budget: Budget | None = None) -> bool:
    return _memo("search", pattern, text, budget,  # type: ignore[no-any-return]
                 lambda: _pattern(pattern).search(text or "") is not None)


def _rstrip(text: str | None, chars: str | None = None) -> str:
    return (text or "").rstrip(chars)


def _strip(text: str | None, chars: str | None = None) -> str:
    return (text or "").strip(chars)


def _lower(text: str | None) -> str:
    return (text or "").lower()


def _default(value: Any, fallback: Any) -> Any:
    return fallback if value is None else value


def _rate(values: Iterable[Any], empty: Any = 1.0) -> Any:
    items = [bool(v) for v in values]
    return sum(items) / len(items) if items else empty


def _mean(values: Iterable[Any], empty: Any = 0.0) -> Any:
    items = [float(v) for v in values]
    return sum(items) / len(items) if items else empty


def _count(values: Iterable[Any]) -> int:
    return sum(1 for v in values if v)


def _first(values: Sequence[Any] | None, fallback: Any = None) -> Any:
    return values[0] if values else fallback


def _last(values: Sequence[Any] | None, fallback: Any = None) -> Any:
    return values[-1] if values else fallback


def _round(value: Any, digits: int = 0) -> Any:
    return None if value is None else round(value, digits)


def _is_subsequence(needles: Sequence[Any] | None, haystack: Sequence[Any] | None) -> bool:
    it = iter(haystack or ())
    return all(any(n == h for h in it) for n in (needles or ()))


# Every function an expression may call, with what it does: one table (the docs print it).
FUNCTION_TABLE: dict[str, tuple[Callable[..., Any], str]] = {
    "len": (lambda x: len(x) if x is not None else 0, "Length of a list or string; 0 for null."),
    "bool": (bool, "Truthiness: an empty list, string or null is false."),
    "str": (lambda x: "" if x is None else str(x), "Text of a value; null gives \"\"."),
    "int": (int, "An integer."),
    "float": (float, "A number."),
    "abs": (abs, "Absolute value."),
    "min": (min, "Smallest of a list (or of the arguments)."),
    "max": (max, "Largest of a list (or of the arguments)."),
    "sum": (_sum, "Sum of a list of numbers."),
    "any": (any, "Some item is true."),
    "all": (all, "Every item is true (true for none)."),
    "sorted": (sorted, "The items in order."),
    "round": (_round, "round(x, digits), as Python rounds; null stays null."),
    "lower": (_lower, "Lower-cased text (str.lower); null gives \"\"."),
    "strip": (_strip, "strip(text[, chars]): surrounding whitespace (or chars) removed."),
    "rstrip": (_rstrip, "rstrip(text[, chars]): trailing whitespace (or chars) removed."),
    "words": (lambda text: (text or "").split(), "Whitespace-separated tokens of a text."),
    "split": (_split, "split(regex, text): the non-blank parts between matches, stripped."),
    "findall": (_findall, "findall(regex, text): every match (the group, if the regex has one)."),
    "search": (_search, "search(regex, text): the regex matches somewhere."),
    "default": (_default, "default(x, fallback): fallback when x is null."),
    "rate": (_rate, "rate(flags[, empty]): share of true items; `empty` (1.0) for none."),
    "mean": (_mean, "mean(numbers[, empty]): average; `empty` (0.0) for none."),
    "count": (_count, "count(flags): how many items are true."),
    "unique": (_unique_budgeted, "The distinct items, in first-seen order."),
    "first": (_first, "first(list[, fallback]): the first item, else fallback (null)."),
    "last": (_last, "last(list[, fallback]): the last item, else fallback (null)."),
    "is_subsequence": (_is_subsequence, "is_subsequence(needles, haystack): needles appear in this order."),
}
FUNCTIONS: dict[str, Callable[..., Any]] = {name: fn for name, (fn, _) in FUNCTION_TABLE.items()}

_ALLOWED = (
    ast.Expression, ast.BoolOp, ast.And, ast.Or, ast.UnaryOp, ast.Not, ast.USub, ast.Compare,
    ast.BinOp, ast.IfExp, ast.Call, ast.Name, ast.Attribute, ast.Subscript, ast.Constant,
    ast.List, ast.Tuple, ast.Dict, ast.Load, ast.ListComp, ast.GeneratorExp, ast.comprehension,
    ast.Store, ast.Slice, *tuple(_CMP), *tuple(_BIN),
)


def _parse(text: str) -> ast.Expression:
    try:
        return ast.parse(text.strip(), mode="eval")
    except (RecursionError, MemoryError):
        raise ExprError(f"expression {_short(text)!r} nests more than {LIMITS.depth} levels deep") from None
    except SyntaxError as exc:
        if "\n" in text:
            try:  # an expression written over several lines reads as if in parentheses
                return ast.parse("(" + text.strip() + "\n)", mode="eval")
            except (SyntaxError, RecursionError, MemoryError):
                pass
        if "too many nested parentheses" in str(exc.msg):
            raise ExprError(f"expression {_short(text)!r} nests more than {LIMITS.depth} levels deep") from None
        raise ExprError(f"expression {_short(text)!r} does not parse: {exc.msg}") from None


def _short(text: str, width: int = 80) -> str:
    """An expression as a message shows it: on one line, at most `width` characters."""
    flat = " ".join(text.split())
    return flat if len(flat) <= width else flat[: width - 1] + "…"


def _depth(tree: ast.AST) -> int:
    """How deeply the expression nests (iteratively: the bound is checked before any recursion)."""
    deepest = 0
    stack: list[tuple[ast.AST, int]] = [(tree, 1)]
    while stack:
        node, depth = stack.pop()
        deepest = max(deepest, depth)
        stack.extend((child, depth + 1) for child in ast.iter_child_nodes(node)
                     if not isinstance(child, (ast.expr_context, ast.operator, ast.boolop, ast.unaryop, ast.cmpop)))
    return deepest


# Functions whose first argument is a regular expression: a literal one is compiled at load.
_PATTERN_FUNCTIONS = frozenset({"split", "findall", "search"})


class Expr:
    """One parsed expression; `evaluate(scope)` interprets it. `where` is the lane file's
    `file:line:column` of the expression (empty when it has none), shown in its failures."""

    __slots__ = ("_code", "_cost", "_path", "_recorded", "_strings", "names", "text", "tree", "where")

    def __init__(self, text: str, extra_functions: Iterable[str] = (), where: str = "") -> None:
        self.text = text
        self.where = where
        tree = _parse(text)
        if _depth(tree) > LIMITS.depth + 1:  # + the Expression node
            raise ExprError(f"expression {_short(text)!r} nests more than {LIMITS.depth} levels deep")
        known = set(FUNCTIONS) | set(extra_functions)
        for node in ast.walk(tree):
            if not isinstance(node, _ALLOWED):
                raise ExprError(f"expression {_short(text)!r}: `{type(node).__name__}` is not part of the language")
            if isinstance(node, ast.Constant) and not (node.value is None or isinstance(node.value, (bool, int, float, str))):
                raise ExprError(f"expression {_short(text)!r}: a {type(node.value).__name__} literal is not part of "
                                "the language (numbers, strings, true, false and null are)")
        for node in ast.walk(tree):
            if isinstance(node, ast.Call):
                if not isinstance(node.func, ast.Name) or node.func.id not in known:
                    shown = ast.unparse(node.func)
                    raise ExprError(
                        f"expression {_short(text)!r}: unknown function `{shown}` (known: {', '.join(sorted(known))})"
                    )
                if node.keywords:
                    raise ExprError(f"expression {_short(text)!r}: keyword arguments are not supported")
                first = node.args[0] if node.args else None
                if (node.func.id in _PATTERN_FUNCTIONS and isinstance(first, ast.Constant)
                        and isinstance(first.value, str)):
                    try:
                        _pattern(first.value)
                    except PatternError as exc:
                        raise ExprError(f"expression {_short(text)!r}: the pattern {first.value!r} of "
                                        f"`{node.func.id}` {exc}") from None
            if isinstance(node, ast.comprehension) and node.is_async:
                raise ExprError(f"expression {_short(text)!r}: async comprehensions are not supported")
        self.tree = tree.body
        self.names = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
        self._strings = frozenset(n.value for n in ast.walk(tree) if isinstance(n, ast.Constant) and isinstance(n.value, str))
        self._cost = _cost(self.tree)  # steps charged per evaluation (a comprehension's items: per item)
        self._code = _Compiler(self.tree, recording=False).code(self.tree, frozenset())
        self._recorded: Code | None = None  # the recording variant, compiled when first needed
        # A name or a field path (`passed`, `case.id`, `first_turn.record.role`): read without
        # the compiled code's environment (`evaluate`), the same value, charged the same.
        self._path = _field_path(self.tree)

    def strings(self) -> frozenset[str]:
        """Every string literal of the expression (the predicate names it passes to functions)."""
        return self._strings

    def shown(self) -> str:
        """The expression on one line, shortened, as messages quote it."""
        return _short(self.text)

    def evaluate(self, scope: Scope, functions: Mapping[str, Callable[..., Any]] | None = None,
                 budget: Budget | None = None) -> Any:
        """The expression's value. Total: any failure of the expression (a division by zero,
        `len(5)`, past the `budget`) is an `EvalFailure` naming it; only a pattern's own
        character budget (RegexTimeout, SL013) passes through as it is."""
        spend = budget if budget is not None else Budget()
        recording = _RECORDING.get()
        recorded = recording is not None and id(self) in recording.exprs
        path = self._path
        code: Code | None = None
        env: Any = None
        if recorded:  # `recording()`: what it reads is noted
            assert recording is not None
            env = recording.env(self, scope, functions or _NO_FUNCTIONS, spend)
            code = self._recorded
            if code is None:
                code = self._recorded = _Compiler(self.tree, recording=True).code(self.tree, frozenset())
        elif path is None:
            env = _Env(scope, functions or _NO_FUNCTIONS, spend)
            code = self._code
        try:
            spend.steps -= self._cost  # _charge, inlined
            if spend.steps < 0:
                spend.step(0)
            if code is None:  # a name or a field path: the compiled code's reads, without its environment
                assert path is not None
                name = path[0]
                value = scope[name] if name in scope else _NAME_DEFAULTS.get(name)
                for attr in path[1:]:  # _Compiler._Attribute's `plain`
                    value = value.get(attr) if isinstance(value, dict) else get_field(value, attr)
                return value
            return code(env)
        except (EvalFailure, RegexTimeout):
            raise
        except Exception as exc:  # a user expression's error is the case's finding, never a traceback
            raise self._failed(exc) from None

    def _failed(self, exc: Exception) -> EvalFailure:
        """The failure `evaluate` raises for an error of the expression's evaluation."""
        if isinstance(exc, BudgetExceeded):
            return EvalFailure(self, str(exc), True)
        if isinstance(exc, RecursionError):  # pragma: no cover - the depth bound at load keeps it out
            return EvalFailure(self, f"nests more than {LIMITS.depth} levels deep", True)
        return EvalFailure(self, _reason(exc), False)

    def bind(self, functions: Mapping[str, Callable[..., Any]] | None, budget: Budget) -> Callable[[Scope], Any]:
        """`evaluate(scope, functions, budget)` as a function of the scope alone, for a caller that
        evaluates the expression many times with the same functions and budget (a view's `where`
        on each record of a case): the same value, failure and charge, its set-up done once (one
        environment, reused). An evaluation that is being recorded (`recording()`), or one
        within another of the bound function, is `evaluate`'s own. The bound function is its
        caller's: one thread's."""
        if self._path is not None:  # `evaluate` reads a name or a field path without an environment
            return lambda scope: self.evaluate(scope, functions, budget)
        cost, code, key = self._cost, self._code, id(self)
        env = _Env({}, functions or _NO_FUNCTIONS, budget)
        busy = False
        test = _leading_test(self.tree)
        name, attr, wanted = test if test is not None else ("", "", None)
        fallback = _NAME_DEFAULTS.get(name)

        def bound(scope: Scope) -> Any:
            nonlocal busy
            recording = _RECORDING.get()
            if busy or (recording is not None and key in recording.exprs):
                return self.evaluate(scope, functions, budget)
            try:
                budget.steps -= cost  # _charge, inlined
                if budget.steps < 0:
                    budget.step(0)
                if test is not None:  # `name.attr == wanted and ...` (`_leading_test`): false, it is False
                    base = scope[name] if name in scope else fallback
                    left = base.get(attr) if isinstance(base, dict) else get_field(base, attr)
                    try:
                        same = left == wanted
                    except TypeError:  # pragma: no cover - as `_field_equal`: false
                        same = False
                    if not same:
                        return False
                busy = True
                env.scopes = [scope]
                return code(env)
            except (EvalFailure, RegexTimeout):
                raise
            except Exception as exc:
                raise self._failed(exc) from None
            finally:
                busy = False
        return bound

    def __repr__(self) -> str:
        return f"Expr({self.text!r})"


_SIZED_RESULTS = (str, list, dict, int)
_BUDGETED = frozenset({_sum, _unique_budgeted, _split, _findall, _search})  # builtins given the case's budget
_NAME_DEFAULTS: dict[str, Any] = {"true": True, "True": True, "false": False, "False": False,
                                  "null": None, "None": None}  # else an unknown name reads as null

Code = Callable[["_Env"], Any]


def _cost(node: ast.AST) -> int:
    """The steps one evaluation of `node` is charged when it starts: its nodes, a comprehension
    counting only itself and its first source (its items are charged one by one, `_per_item`).
    A branch not taken is charged too: counting per evaluation, not per node, keeps the count
    deterministic and the check off the path of every node."""
    if isinstance(node, (ast.ListComp, ast.GeneratorExp)):
        return 1 + _cost(node.generators[0].iter)
    return 1 + sum(_cost(child) for child in ast.iter_child_nodes(node)
                   if not isinstance(child, (ast.expr_context, ast.operator, ast.boolop, ast.unaryop, ast.cmpop)))


def _field_path(node: ast.AST) -> tuple[str, ...] | None:
    """`a.b.c` as ("a", "b", "c"): a name read from the caller's scope, then fields; else None."""
    attrs: list[str] = []
    while isinstance(node, ast.Attribute):
        attrs.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    return (node.id, *reversed(attrs))


def _per_item(node: ast.ListComp | ast.GeneratorExp, index: int) -> int:
    """The steps each item of a comprehension's `index`-th `for` is charged: its conditions and
    what it evaluates next (the next `for`'s source, else the element)."""
    gens = node.generators
    after = gens[index + 1].iter if index + 1 < len(gens) else node.elt
    return sum(_cost(c) for c in gens[index].ifs) + _cost(after)


def _target_names(target: ast.AST) -> frozenset[str]:
    return frozenset(n.id for n in ast.walk(target) if isinstance(n, ast.Name))


def _charge(budget: Budget, n: int) -> None:
    budget.steps -= n  # Budget.step, inlined
    if budget.steps < 0:
        budget.step(0)


class _Env:
    """One evaluation: the scopes (the caller's, then one per comprehension `for` being iterated),
    the functions and the budget."""

    __slots__ = ("budget", "functions", "scopes")

    def __init__(self, scope: Scope, functions: Mapping[str, Callable[..., Any]], budget: Budget) -> None:
        self.scopes: list[Mapping[str, Any]] = [scope]
        self.functions = functions
        self.budget = budget

    def lookup(self, name: str) -> Any:
        for scope in reversed(self.scopes):
            if name in scope:
                return scope[name]
        return _NAME_DEFAULTS.get(name)


class _Compiler:
    """An expression's tree compiled, once, to nested closures (`Code`: env -> value); no node is
    dispatched at run time. `recording` compiles the variant that notes its `Reads` (what it
    reads, on the path it takes) into a `_RecordingEnv`: the same values, charged the same."""

    def __init__(self, tree: ast.AST, recording: bool) -> None:
        self.recording = recording
        # Quantified sources (`all(... for x in xs)`): a recording keeps their values (`_RecordingEnv.last`).
        self.sources = {id(g.iter) for n in ast.walk(tree) for g in _quantified(n)} if recording else set()

    def code(self, node: ast.AST, bound: frozenset[str]) -> Code:
        make = getattr(self, "_" + type(node).__name__, None)
        if make is None:
            what = type(node).__name__

            def unsupported(env: _Env) -> Any:  # pragma: no cover - the load check keeps these out
                raise ExprError(f"unsupported expression node {what}")
            return unsupported
        made: Code = make(node, bound)
        if id(node) in self.sources:
            key, inner = id(node), made

            def kept(env: Any) -> Any:
                value = inner(env)
                env.last[key] = value
                return value
            return kept
        return made

    def _Constant(self, node: ast.Constant, bound: frozenset[str]) -> Code:
        value = node.value
        return lambda env: value

    def _Name(self, node: ast.Name, bound: frozenset[str]) -> Code:
        name = node.id
        fallback = _NAME_DEFAULTS.get(name)
        if name not in bound:  # no comprehension around it binds the name: the caller's scope
            if self.recording:
                def recorded_outer(env: Any) -> Any:
                    env.reads.names.add(name)
                    scope = env.scopes[0]
                    return scope[name] if name in scope else fallback
                return recorded_outer

            def outer(env: _Env) -> Any:
                scope = env.scopes[0]
                return scope[name] if name in scope else fallback
            return outer
        if self.recording:
            def recorded(env: Any) -> Any:
                if env.outer(name):
                    env.reads.names.add(name)
                return env.lookup(name)
            return recorded

        def inner(env: _Env) -> Any:  # most often the innermost `for`'s: its scope first, as `lookup` reads
            top = env.scopes[-1]
            return top[name] if name in top else env.lookup(name)
        return inner

    def _Attribute(self, node: ast.Attribute, bound: frozenset[str]) -> Code:
        # `a.b.c` is one closure: the root read once, then each field (not one closure per level).
        attrs: list[str] = []
        root: ast.AST = node
        while isinstance(root, ast.Attribute):
            attrs.append(root.attr)
            root = root.value
        names = tuple(reversed(attrs))
        if self.recording:
            base_code = self.code(root, bound)

            def recorded(env: Any) -> Any:
                value = base_code(env)
                fields = env.reads.fields
                for attr in names:
                    if isinstance(value, dict) or isinstance(value, Mapping):
                        fields.add((id(value), attr))
                    value = value.get(attr) if isinstance(value, dict) else get_field(value, attr)
                return value
            return recorded
        if isinstance(root, ast.Name) and root.id not in bound:  # a field path of the caller's scope
            name, fallback = root.id, _NAME_DEFAULTS.get(root.id)

            def path(env: _Env) -> Any:
                scope = env.scopes[0]
                value = scope[name] if name in scope else fallback
                for attr in names:  # get_field, its common case (a dict) first
                    value = value.get(attr) if isinstance(value, dict) else get_field(value, attr)
                return value
            return path
        base_code = self.code(root, bound)

        def plain(env: _Env) -> Any:
            value = base_code(env)
            for attr in names:
                value = value.get(attr) if isinstance(value, dict) else get_field(value, attr)
            return value
        return plain

    def _Subscript(self, node: ast.Subscript, bound: frozenset[str]) -> Code:
        base_code = self.code(node.value, bound)
        if isinstance(node.slice, ast.Slice):
            lower = self.code(node.slice.lower, bound) if node.slice.lower else None
            upper = self.code(node.slice.upper, bound) if node.slice.upper else None

            def sliced(env: _Env) -> Any:
                base = base_code(env)
                low = lower(env) if lower is not None else None
                high = upper(env) if upper is not None else None
                return env.budget.size(base[low:high]) if base is not None else None
            return sliced
        key_code = self.code(node.slice, bound)

        def item(env: _Env) -> Any:
            base = base_code(env)
            key = key_code(env)
            if isinstance(base, Mapping):
                return base.get(key)
            if isinstance(base, (list, tuple, str)) and isinstance(key, int) and -len(base) <= key < len(base):
                return base[key]
            return None
        return item

    def _BoolOp(self, node: ast.BoolOp, bound: frozenset[str]) -> Code:
        parts = tuple(self.code(v, bound) for v in node.values)
        every = isinstance(node.op, ast.And)
        if self.recording:
            nodes = tuple(node.values)
            stoppers = tuple(frozenset(n.id for n in ast.walk(v) if isinstance(n, ast.Name)) for v in nodes)
            last = len(parts) - 1

            def recorded(env: Any) -> Any:
                value: Any = every
                for i, part in enumerate(parts):
                    value = part(env)
                    if (not value) if every else value:
                        # It stopped before the end: does each operand not evaluated hold the result too?
                        for j in range(i + 1, last + 1):
                            env.note_pure(nodes[j], bool(value), stoppers[i])
                        return value
                return value
            return recorded
        if len(parts) == 2:  # the loops below, unrolled: the same operand returned
            first, second = parts
            if every:
                return lambda env: first(env) and second(env)
            return lambda env: first(env) or second(env)
        if len(parts) == 3:
            first, second, third = parts
            if every:
                return lambda env: first(env) and second(env) and third(env)
            return lambda env: first(env) or second(env) or third(env)
        if every:
            def conjunction(env: _Env) -> Any:
                value: Any = True
                for part in parts:
                    value = part(env)
                    if not value:
                        return value
                return value
            return conjunction

        def disjunction(env: _Env) -> Any:
            value: Any = False
            for part in parts:
                value = part(env)
                if value:
                    return value
            return value
        return disjunction

    def _UnaryOp(self, node: ast.UnaryOp, bound: frozenset[str]) -> Code:
        operand = self.code(node.operand, bound)
        if isinstance(node.op, ast.Not):
            return lambda env: not operand(env)
        return lambda env: -operand(env)

    def _Compare(self, node: ast.Compare, bound: frozenset[str]) -> Code:
        left = node.left
        if (not self.recording and len(node.ops) == 1 and type(node.ops[0]) in (ast.Eq, ast.NotEq)
                and isinstance(node.comparators[0], ast.Constant) and isinstance(left, ast.Attribute)
                and isinstance(left.value, ast.Name) and left.value.id not in bound):
            # `record.role == 'probe'`: the caller's name, its field and the comparison in one closure
            return _field_equal(left.value.id, left.attr, type(node.ops[0]) is ast.Eq, node.comparators[0].value)
        left_code = self.code(left, bound)
        if len(node.ops) == 1:
            literal = _compare_literal(type(node.ops[0]), left_code, node.comparators[0])
            if literal is not None:
                return literal
        pairs = tuple((_CMP[type(op)], self.code(c, bound)) for op, c in zip(node.ops, node.comparators, strict=True))
        if len(pairs) == 1:
            ((cmp, right_code),) = pairs

            def single(env: _Env) -> bool:
                left = left_code(env)
                right = right_code(env)
                try:
                    return cmp(left, right)
                except TypeError:
                    return False  # null compared with a number: not satisfied
            return single

        def chained(env: _Env) -> bool:
            left = left_code(env)
            for cmp, right_code in pairs:
                right = right_code(env)
                try:
                    ok = cmp(left, right)
                except TypeError:
                    ok = False
                if not ok:
                    return False
                left = right
            return True
        return chained

    def _BinOp(self, node: ast.BinOp, bound: frozenset[str]) -> Code:
        op, left, right = node.op, self.code(node.left, bound), self.code(node.right, bound)
        return lambda env: _binop(op, left(env), right(env), env.budget)

    def _IfExp(self, node: ast.IfExp, bound: frozenset[str]) -> Code:
        test, body, orelse = (self.code(n, bound) for n in (node.test, node.body, node.orelse))
        return lambda env: body(env) if test(env) else orelse(env)

    def _List(self, node: ast.List | ast.Tuple, bound: frozenset[str]) -> Code:
        elts = tuple(self.code(e, bound) for e in node.elts)
        return lambda env: env.budget.size([e(env) for e in elts])

    _Tuple = _List

    def _Dict(self, node: ast.Dict, bound: frozenset[str]) -> Code:
        pairs = tuple((self.code(k, bound) if k is not None else None, self.code(v, bound))
                      for k, v in zip(node.keys, node.values, strict=True))
        return lambda env: env.budget.size({k(env) if k is not None else None: v(env) for k, v in pairs})

    def _Call(self, node: ast.Call, bound: frozenset[str]) -> Code:
        assert isinstance(node.func, ast.Name)
        name = node.func.id
        builtin = FUNCTIONS.get(name)
        args_code: tuple[Callable[[Any], Any], ...] = tuple(self._items(a, bound) if isinstance(a, ast.GeneratorExp) else self.code(a, bound)
                          for a in node.args)
        recording = self.recording
        quantified = _quantified(node) if recording else ()
        of_any = name == "any"

        def call(env: Any) -> Any:
            fn: Callable[..., Any] | None = env.functions.get(name)
            given = fn is not None
            if fn is None:
                fn = builtin
                if fn is None:
                    raise KeyError(name)
            args = [a(env) for a in args_code]
            if recording and given:  # a function the caller passed in: noted as `Reads.calls`
                second = args[1] if len(args) > 1 and isinstance(args[1], str) else None
                env.reads.calls.append((name, id(args[0]) if args else 0, second))
            budget = env.budget
            consumed = 0
            for a in args:
                if isinstance(a, (list, dict)):
                    consumed += len(a)
            if consumed:
                _charge(budget, consumed)
            if fn in _BUDGETED:
                result = fn(*args, budget=budget)
            else:
                result = fn(*args)
            if isinstance(result, _SIZED_RESULTS) and not isinstance(result, bool):
                budget.size(result)
            if quantified and result is of_any:  # all() false / any() true: it stopped at the item that decided
                env.peek_items(node, quantified[0], bool(result))
            return result
        return call

    def _ListComp(self, node: ast.ListComp | ast.GeneratorExp, bound: frozenset[str]) -> Code:
        items = self._items(node, bound)

        def listed(env: _Env) -> Any:
            out: list[Any] = []
            limit = env.budget.limits.items
            for item in items(env):
                out.append(item)
                if len(out) > limit:
                    env.budget.would_build(len(out), "list")
            return env.budget.size(out)
        return listed

    _GeneratorExp = _ListComp

    def _items(self, node: ast.ListComp | ast.GeneratorExp, bound: frozenset[str]) -> Callable[[_Env], Iterator[Any]]:
        """The comprehension's items, lazily (an argument's generator is consumed by its function)."""
        gens = node.generators
        levels: list[tuple[Code, ast.AST, tuple[Code, ...], int]] = []
        names = bound
        for index, gen in enumerate(gens):
            source = self.code(gen.iter, names)  # in the scope of the `for`s before it
            names = names | _target_names(gen.target)
            levels.append((source, gen.target, tuple(self.code(c, names) for c in gen.ifs), _per_item(node, index)))
        elt = self.code(node.elt, names)
        depth = len(levels)
        if depth == 1 and not levels[0][2] and isinstance(levels[0][1], ast.Name):
            return _one_for(levels[0][0], levels[0][1].id, levels[0][3], elt)

        def run(env: _Env, index: int) -> Iterator[Any]:
            source_code, target, ifs, cost = levels[index]
            budget, scopes = env.budget, env.scopes
            source = source_code(env) or ()
            if isinstance(source, (str, list, dict)):
                _charge(budget, len(source))
            for item in list(source):
                _charge(budget, cost)
                bound_here: dict[str, Any] = {}
                _bind(target, item, bound_here)
                scopes.append(bound_here)
                try:
                    if all(c(env) for c in ifs):
                        if index + 1 < depth:
                            yield from run(env, index + 1)
                        else:
                            yield elt(env)
                finally:
                    scopes.pop()
        return lambda env: run(env, 0)


def _one_for(source_code: Code, name: str, cost: int, elt: Code) -> Callable[[_Env], Iterator[Any]]:
    """`_Compiler._items` of one `for` binding a name, without conditions (`f(x.a for x in xs)`):
    its loop without the target binding's walk and the conditions' test, charged the same."""

    def run(env: _Env) -> Iterator[Any]:
        budget, scopes = env.budget, env.scopes
        source = source_code(env) or ()
        if isinstance(source, (str, list, dict)):
            _charge(budget, len(source))
        for item in list(source):
            budget.steps -= cost  # _charge, inlined
            if budget.steps < 0:
                budget.step(0)
            scopes.append({name: item})
            try:
                yield elt(env)
            finally:
                scopes.pop()
    return run


def _leading_test(tree: ast.AST) -> tuple[str, str, Any] | None:
    """(name, field, constant) when the expression is `name.field == constant`, or an `and` whose
    first operand is: where that comparison is false, the expression's value is False and its
    evaluation reads nothing more (`Expr.bind` tests it before setting the evaluation up)."""
    first = tree.values[0] if isinstance(tree, ast.BoolOp) and isinstance(tree.op, ast.And) else tree
    if (isinstance(first, ast.Compare) and len(first.ops) == 1 and isinstance(first.ops[0], ast.Eq)
            and isinstance(first.comparators[0], ast.Constant) and isinstance(first.left, ast.Attribute)
            and isinstance(first.left.value, ast.Name)):
        return first.left.value.id, first.left.attr, first.comparators[0].value
    return None


def _field_equal(name: str, attr: str, equal: bool, value: Any) -> Code:
    """`name.attr == value` (`!=` when not `equal`), `name` read from the caller's scope: the
    `_Attribute` path and the `_compare_literal` comparison in one closure, the same value."""
    fallback = _NAME_DEFAULTS.get(name)

    def field_equal(env: _Env) -> bool:
        scope = env.scopes[0]
        base = scope[name] if name in scope else fallback
        left = base.get(attr) if isinstance(base, dict) else get_field(base, attr)
        try:
            if equal:
                return True if left == value else False
            return True if left != value else False
        except TypeError:  # pragma: no cover - no JSON value raises on == or !=
            return False
    return field_equal


def _compare_literal(op: type[ast.cmpop], left_code: Code, right: ast.AST) -> Code | None:
    """`left op literal`, the comparison inline (None: not this shape). The literal is a constant
    (`record.role == 'probe'`), or for `in`/`not in` a list or tuple of constants (`x not in [None,
    False]`): built once, charged per evaluation as `_List` charges the list it builds. As
    `_Compare` gives it: a comparison of values that do not compare (TypeError) is false."""
    if isinstance(right, ast.Constant):
        value = right.value
        if op is ast.Eq:
            def equal(env: _Env) -> bool:
                left = left_code(env)
                try:
                    return True if left == value else False
                except TypeError:  # pragma: no cover - no JSON value raises on ==
                    return False
            return equal
        if op is ast.NotEq:
            def unequal(env: _Env) -> bool:
                left = left_code(env)
                try:
                    return True if left != value else False
                except TypeError:  # pragma: no cover - no JSON value raises on !=
                    return False
            return unequal
        cmp = _CMP[op]

        def against(env: _Env) -> bool:
            left = left_code(env)
            try:
                return cmp(left, value)
            except TypeError:
                return False
        return against
    if (op in (ast.In, ast.NotIn) and isinstance(right, (ast.List, ast.Tuple))
            and all(isinstance(e, ast.Constant) for e in right.elts)):
        items = tuple(e.value for e in right.elts)  # type: ignore[attr-defined]
        built, within = len(items), op is ast.In

        def member(env: _Env) -> bool:
            left = left_code(env)
            env.budget.would_build(built, "list")  # what `_List`'s budget.size charges
            try:
                return (left in items) is within
            except TypeError:
                return False
        return member
    return None


class Reads:
    """What one evaluation of an expression read (`recording`), on the path it took: the scope
    names it looked up (never a comprehension's own variables; an untaken branch reads nothing),
    each field read of a mapping, as (the mapping's id, the key), and each call of a function the
    caller passed in, as (its name, its first argument's id, its second argument when a string:
    `passes(t, 'name')`). The items a false `all(... for x in xs)` (a true `any`) stopped before
    decide it as much as the one that stopped it: when they evaluate purely (names, fields,
    `==`/`!=`/`is`, `and`/`or`/`not`, `all`/`any` of those; at most `PURE_STEPS` nodes for one
    evaluation, no call) to what the result holds, their reads are noted too. An operand a
    false `and` (a true `or`) stopped before that evaluates purely to its result is in `peeks`,
    with the names of the operand that stopped it: whether it decides too (`a and b`, both false
    checks) or not (`not control and b`: a guard) is the caller's to say."""

    __slots__ = ("calls", "expr", "fields", "names", "peeks", "scope")

    def __init__(self, expr: Expr, scope: Scope) -> None:
        self.expr = expr
        self.scope = scope
        self.names: set[str] = set()
        self.fields: set[tuple[int, str]] = set()
        self.calls: list[tuple[str, int, str | None]] = []
        self.peeks: list[tuple[frozenset[str], set[str], set[tuple[int, str]]]] = []


PURE_STEPS = 100_000  # nodes `Reads` may evaluate purely past a short-circuit, per evaluation


class Recording:
    """The evaluations of some expressions (by identity), each with its `Reads`, in order."""

    __slots__ = ("exprs", "log")

    def __init__(self, exprs: Collection[Expr]) -> None:
        self.exprs = {id(e) for e in exprs}
        self.log: list[Reads] = []

    def env(self, expr: Expr, scope: Scope, functions: Mapping[str, Callable[..., Any]],
            budget: Budget) -> _RecordingEnv:
        """The state of one evaluation of `expr`, noting its `Reads` into the log."""
        reads = Reads(expr, scope)
        self.log.append(reads)
        return _RecordingEnv(scope, functions, budget, reads)


_RECORDING: ContextVar[Recording | None] = ContextVar("surface_lint_expr_recording", default=None)


@contextmanager
def recording(exprs: Collection[Expr]) -> Iterator[Recording]:
    """Within the block, every evaluation of one of `exprs` (in this thread) notes its `Reads`."""
    found = Recording(exprs)
    token = _RECORDING.set(found)
    try:
        yield found
    finally:
        _RECORDING.reset(token)


class _RecordingEnv(_Env):
    """An evaluation that notes what it reads (`Reads`), run by the recording variant of the
    compiled code (`_Compiler(recording=True)`): the same values, charged the same."""

    __slots__ = ("_pure_steps", "last", "reads")

    def __init__(self, scope: Scope, functions: Mapping[str, Callable[..., Any]], budget: Budget,
                 reads: Reads) -> None:
        super().__init__(scope, functions, budget)
        self.reads = reads
        self.last: dict[int, Any] = {}  # a quantified source's node -> its latest value
        self._pure_steps = PURE_STEPS

    def outer(self, name: str) -> bool:
        return not any(name in scope for scope in self.scopes[1:])

    def note_pure(self, node: ast.AST, result: bool, stopped_by: frozenset[str]) -> None:
        """The reads of an operand not evaluated, when it evaluates purely to what `result`
        holds (`Reads.peeks`, with the names of the operand that stopped the `and`/`or`)."""
        names: set[str] = set()
        fields: set[tuple[int, str]] = set()
        try:
            held = bool(self._pure(node, names, fields)) == result
        except _Impure:
            return
        if held:
            self.reads.peeks.append((stopped_by, names, fields))

    def peek_items(self, node: ast.Call, gen: ast.comprehension, result: bool) -> None:
        """The items an `all()`/`any()` stopped before, each whose item holds what the result
        holds (evaluated purely: names, fields, comparisons, `and`/`or`/`not`, else skipped)."""
        assert isinstance(node.args[0], ast.GeneratorExp)
        elt = node.args[0].elt
        source = self.last.get(id(gen.iter))
        if not isinstance(source, (list, tuple)):
            return
        for item in source:
            bound: dict[str, Any] = {}
            try:
                _bind(gen.target, item, bound)
            except (ExprError, TypeError):
                return
            self.scopes.append(bound)
            try:
                names: set[str] = set()
                fields: set[tuple[int, str]] = set()
                if all(self._pure(c, set(), set()) for c in gen.ifs) and bool(self._pure(elt, names, fields)) == result:
                    self.reads.names.update(names)
                    self.reads.fields.update(fields)
            except _Impure:
                return
            finally:
                self.scopes.pop()

    def _pure_quantified(self, every: bool, gen: ast.comprehension, elt: ast.AST, names: set[str],
                         fields: set[tuple[int, str]]) -> bool:
        """`all()` (`every`) or `any()` of a generator, purely: the reads of each item that holds the result."""
        source = self._pure(gen.iter, names, fields)
        if not isinstance(source, (list, tuple)):
            raise _Impure
        items: list[tuple[bool, set[str], set[tuple[int, str]]]] = []
        for item in source:
            bound: dict[str, Any] = {}
            try:
                _bind(gen.target, item, bound)
            except (ExprError, TypeError):
                raise _Impure from None
            self.scopes.append(bound)
            try:
                if all(self._pure(c, set(), set()) for c in gen.ifs):
                    item_names: set[str] = set()
                    item_fields: set[tuple[int, str]] = set()
                    items.append((bool(self._pure(elt, item_names, item_fields)), item_names, item_fields))
            finally:
                self.scopes.pop()
        result = all(v for v, _, _ in items) if every else any(v for v, _, _ in items)
        for v, item_names, item_fields in items:
            if v == result:
                names.update(item_names)
                fields.update(item_fields)
        return result

    def _pure(self, node: ast.AST, names: set[str], fields: set[tuple[int, str]]) -> Any:
        """A node's value without a call or a cost (else `_Impure`), noting into `names` and
        `fields` the reads that decide it: of an `and`/`or`, those of each operand that holds its result."""
        self._pure_steps -= 1
        if self._pure_steps < 0:
            raise _Impure
        if isinstance(node, ast.Constant):
            return node.value
        if isinstance(node, ast.Name):
            if self.outer(node.id):
                names.add(node.id)
            return self.lookup(node.id)
        if isinstance(node, ast.Attribute):
            base = self._pure(node.value, names, fields)
            if isinstance(base, Mapping):
                fields.add((id(base), node.attr))
            return get_field(base, node.attr)
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            return not self._pure(node.operand, names, fields)
        if isinstance(node, ast.BoolOp):
            parts = []
            for part in node.values:
                part_names: set[str] = set()
                part_fields: set[tuple[int, str]] = set()
                parts.append((self._pure(part, part_names, part_fields), part_names, part_fields))
            result = all(v for v, _, _ in parts) if isinstance(node.op, ast.And) else any(v for v, _, _ in parts)
            for v, part_names, part_fields in parts:
                if bool(v) == result:
                    names.update(part_names)
                    fields.update(part_fields)
            return result
        for gen in _quantified(node):
            assert isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and isinstance(node.args[0], ast.GeneratorExp)
            return self._pure_quantified(node.func.id == "all", gen, node.args[0].elt, names, fields)
        if isinstance(node, ast.Compare) and all(type(op) in (ast.Eq, ast.NotEq, ast.Is, ast.IsNot) for op in node.ops):
            left = self._pure(node.left, names, fields)
            for op, right_node in zip(node.ops, node.comparators, strict=True):
                right = self._pure(right_node, names, fields)
                if not _CMP[type(op)](left, right):
                    return False
                left = right
            return True
        raise _Impure


def _quantified(node: ast.AST) -> tuple[ast.comprehension, ...]:
    """`all(... for x in xs)` / `any(...)` (one `for`, which stops at the first item that
    decides): its comprehension, else nothing."""
    if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("all", "any")
            and len(node.args) == 1 and isinstance(node.args[0], ast.GeneratorExp)
            and len(node.args[0].generators) == 1):
        return (node.args[0].generators[0],)
    return ()


class _Impure(Exception):
    """A node `_RecordingEnv._pure` does not evaluate (a call, arithmetic, a comprehension)."""


def _bind(target: ast.AST, value: Any, into: dict[str, Any]) -> None:
    if isinstance(target, ast.Name):
        into[target.id] = value
    elif isinstance(target, (ast.Tuple, ast.List)):
        for sub, v in zip(target.elts, value, strict=False):
            _bind(sub, v, into)
    else:
        raise ExprError("a comprehension target must be a name or a tuple of names")


def get_field(base: Any, name: str) -> Any:
    """Null-safe field access: a mapping's key, else an attribute the object exposes."""
    if base is None:
        return None
    if isinstance(base, Mapping):
        return base.get(name)
    fields = getattr(base, "FIELDS", None)
    if fields is not None and name in fields:
        return getattr(base, name)
    return None


def resolve_path(scope: Mapping[str, Any] | None, path: str) -> Any:
    """`constraints.must_contain` inside a case (dotted path; missing -> None)."""
    value: Any = scope
    for part in path.split("."):
        value = get_field(value, part)
        if value is None:
            return None
    return value
