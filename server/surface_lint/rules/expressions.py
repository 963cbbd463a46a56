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

    __slots__ = ("_max_bits", "cells", "limits", "steps")

    def __init__(self, limits: Limits = LIMITS) -> None:
        self.limits = limits
        self.steps = limits.steps
        self.cells = limits.cells
        self._max_bits = int(limits.digits * 3.3219280948873626) + 1  # log2(10)

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


def _split(pattern: str, text: str | None) -> list[str]:
    """Non-blank parts of `text` split on `pattern`, stripped (a runner's sentence split)."""
    return [p.strip() for p in _pattern(pattern).split(text or "") if p and p.strip()]


def _findall(pattern: str, text: str | None) -> list[Any]:
    return _pattern(pattern).findall(text or "")


def _search(pattern: str, text: str | None) -> bool:
    return _pattern(pattern).search(text or "") is not None


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

    __slots__ = ("_bases", "_strings", "names", "text", "tree", "where")

    def __init__(self, text: str, extra_functions: Iterable[str] = (), where: str = "") -> None:
        self.text = text
        self.where = where
        self._bases: frozenset[int] | None = None  # what a recording keeps the values of (`recorded_bases`)
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

    def recorded_bases(self) -> frozenset[int]:
        """The nodes whose values a recording keeps (attribute bases, quantified sources), found
        once per expression (a failing case's recorded evaluation would walk the tree each time)."""
        if self._bases is None:
            tree = self.tree
            bases = {id(n.value) for n in ast.walk(tree) if isinstance(n, ast.Attribute)}
            bases |= {id(g.iter) for n in ast.walk(tree) for g in _quantified(n)}
            self._bases = frozenset(bases)
        return self._bases

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
        if recording is not None and id(self) in recording.exprs:  # `recording()`: what it reads is noted
            interpreter: _Interpreter = recording.interpreter(self, scope, functions or {}, spend)
        else:
            interpreter = _Interpreter(scope, functions or {}, spend)
        try:
            return interpreter.run(self.tree)
        except (EvalFailure, RegexTimeout):
            raise
        except BudgetExceeded as exc:
            raise EvalFailure(self, str(exc), True) from None
        except RecursionError:  # pragma: no cover - the depth bound at load keeps it out
            raise EvalFailure(self, f"nests more than {LIMITS.depth} levels deep", True) from None
        except Exception as exc:  # a user expression's error is the case's finding, never a traceback
            raise EvalFailure(self, _reason(exc), False) from None

    def __repr__(self) -> str:
        return f"Expr({self.text!r})"


_SIZED_RESULTS = (str, list, dict, int)


class _Interpreter:
    __slots__ = ("budget", "functions", "scopes")

    def __init__(self, scope: Scope, functions: Mapping[str, Callable[..., Any]], budget: Budget) -> None:
        self.scopes: list[Mapping[str, Any]] = [scope]
        self.functions = functions
        self.budget = budget

    def lookup(self, name: str) -> Any:
        for scope in reversed(self.scopes):
            if name in scope:
                return scope[name]
        if name in ("true", "True"):
            return True
        if name in ("false", "False"):
            return False
        if name in ("null", "None"):
            return None
        return None  # an unknown name reads as null, like a missing case field

    def run(self, node: ast.AST) -> Any:
        budget = self.budget
        budget.steps -= 1  # Budget.step, inlined: this runs once per node
        if budget.steps < 0:
            budget.step(0)
        if isinstance(node, ast.Constant):
            return node.value
        if isinstance(node, ast.Name):
            return self.lookup(node.id)
        if isinstance(node, ast.Attribute):
            return get_field(self.run(node.value), node.attr)
        if isinstance(node, ast.Subscript):
            base = self.run(node.value)
            if isinstance(node.slice, ast.Slice):
                lower = self.run(node.slice.lower) if node.slice.lower else None
                upper = self.run(node.slice.upper) if node.slice.upper else None
                return self.budget.size(base[lower:upper]) if base is not None else None
            key = self.run(node.slice)
            if isinstance(base, Mapping):
                return base.get(key)
            if isinstance(base, (list, tuple, str)) and isinstance(key, int) and -len(base) <= key < len(base):
                return base[key]
            return None
        if isinstance(node, ast.BoolOp):
            if isinstance(node.op, ast.And):
                value: Any = True
                for part in node.values:
                    value = self.run(part)
                    if not value:
                        return value
                return value
            value = False
            for part in node.values:
                value = self.run(part)
                if value:
                    return value
            return value
        if isinstance(node, ast.UnaryOp):
            operand = self.run(node.operand)
            return (not operand) if isinstance(node.op, ast.Not) else -operand
        if isinstance(node, ast.Compare):
            left = self.run(node.left)
            for op, right_node in zip(node.ops, node.comparators, strict=True):
                right = self.run(right_node)
                try:
                    ok = _CMP[type(op)](left, right)
                except TypeError:
                    ok = False  # null compared with a number: not satisfied
                if not ok:
                    return False
                left = right
            return True
        if isinstance(node, ast.BinOp):
            return _binop(node.op, self.run(node.left), self.run(node.right), self.budget)
        if isinstance(node, ast.IfExp):
            return self.run(node.body) if self.run(node.test) else self.run(node.orelse)
        if isinstance(node, (ast.List, ast.Tuple)):
            return self.budget.size([self.run(e) for e in node.elts])
        if isinstance(node, ast.Dict):
            return self.budget.size({self.run(k) if k is not None else None: self.run(v)
                                     for k, v in zip(node.keys, node.values, strict=True)})
        if isinstance(node, ast.Call):
            assert isinstance(node.func, ast.Name)
            name = node.func.id
            fn = self.functions.get(name) or FUNCTIONS[name]
            args = [self._arg(a) for a in node.args]
            self.budget.step(sum(len(a) for a in args if isinstance(a, (list, dict))))
            if fn is _sum or fn is _unique_budgeted:
                result = fn(*args, budget=self.budget)
            else:
                result = fn(*args)
            if isinstance(result, _SIZED_RESULTS) and not isinstance(result, bool):
                self.budget.size(result)
            return result
        if isinstance(node, (ast.ListComp, ast.GeneratorExp)):
            out: list[Any] = []
            for item in self._comprehend(node.elt, node.generators, 0):
                out.append(item)
                if len(out) > self.budget.limits.items:
                    self.budget.would_build(len(out), "list")
            return self.budget.size(out)
        raise ExprError(f"unsupported expression node {type(node).__name__}")  # pragma: no cover

    def _arg(self, node: ast.AST) -> Any:
        if isinstance(node, ast.GeneratorExp):
            return iter(self._comprehend(node.elt, node.generators, 0))
        return self.run(node)

    def _comprehend(self, elt: ast.AST, gens: Sequence[ast.comprehension], index: int) -> Iterator[Any]:
        gen = gens[index]
        source = self.run(gen.iter) or ()
        if isinstance(source, (str, list, dict)):
            self.budget.step(len(source))
        for item in list(source):
            bound: dict[str, Any] = {}
            _bind(gen.target, item, bound)
            self.scopes.append(bound)
            try:
                if all(self.run(cond) for cond in gen.ifs):
                    if index + 1 < len(gens):
                        yield from self._comprehend(elt, gens, index + 1)
                    else:
                        yield self.run(elt)
            finally:
                self.scopes.pop()


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

    def interpreter(self, expr: Expr, scope: Scope, functions: Mapping[str, Callable[..., Any]],
                    budget: Budget) -> _Interpreter:
        """The interpreter of one evaluation of `expr`, noting its `Reads` into the log."""
        reads = Reads(expr, scope)
        self.log.append(reads)

        def noted(name: str, fn: Callable[..., Any]) -> Callable[..., Any]:
            def call(*args: Any) -> Any:
                second = args[1] if len(args) > 1 and isinstance(args[1], str) else None
                reads.calls.append((name, id(args[0]) if args else 0, second))
                return fn(*args)
            return call

        wrapped = {name: noted(name, fn) for name, fn in functions.items()}
        return _Recorder(scope, wrapped, budget, reads, expr.recorded_bases())


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


class _Recorder(_Interpreter):
    """The interpreter, noting what it reads (`Reads`); every node is still evaluated by
    `_Interpreter.run`, so values (and what they cost) are the same."""

    __slots__ = ("_bases", "_last", "_pure_steps", "_seen", "reads")

    def __init__(self, scope: Scope, functions: Mapping[str, Callable[..., Any]], budget: Budget, reads: Reads,
                 bases: frozenset[int]) -> None:
        super().__init__(scope, functions, budget)
        self.reads = reads
        self._bases = bases  # attribute bases and quantified sources: their values are kept
        self._last: dict[int, Any] = {}  # an attribute's base node -> its latest value
        self._seen: dict[int, int] = {}  # node -> times evaluated
        self._pure_steps = PURE_STEPS

    def _outer(self, name: str) -> bool:
        return not any(name in scope for scope in self.scopes[1:])

    def run(self, node: ast.AST) -> Any:
        operands = [self._seen.get(id(p), 0) for p in node.values] if isinstance(node, ast.BoolOp) else None
        value = super().run(node)
        key = id(node)
        self._seen[key] = self._seen.get(key, 0) + 1
        if isinstance(node, ast.Name):
            if self._outer(node.id):
                self.reads.names.add(node.id)
        elif isinstance(node, ast.Attribute):
            base = self._last.get(id(node.value))
            if isinstance(base, Mapping):
                self.reads.fields.add((id(base), node.attr))
        elif operands is not None and isinstance(node, ast.BoolOp):
            done = [self._seen.get(id(part), 0) > before for part, before in zip(node.values, operands, strict=True)]
            if not all(done):  # it stopped: at the last operand evaluated
                stopper = node.values[max(i for i, d in enumerate(done) if d)]
                stopped_by = frozenset(n.id for n in ast.walk(stopper) if isinstance(n, ast.Name))
                for part, evaluated in zip(node.values, done, strict=True):
                    if not evaluated:  # does it hold the result too?
                        self._note_pure(part, bool(value), stopped_by)
        else:
            for gen in _quantified(node):  # all() false / any() true: it stopped at the item that decided
                assert isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                if value is (node.func.id == "any"):
                    self._peek_items(node, gen, bool(value))
        if key in self._bases:
            self._last[key] = value
        return value

    def _note_pure(self, node: ast.AST, result: bool, stopped_by: frozenset[str]) -> None:
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

    def _peek_items(self, node: ast.Call, gen: ast.comprehension, result: bool) -> None:
        """The items an `all()`/`any()` stopped before, each whose item holds what the result
        holds (evaluated purely: names, fields, comparisons, `and`/`or`/`not`, else skipped)."""
        assert isinstance(node.args[0], ast.GeneratorExp)
        elt = node.args[0].elt
        source = self._last.get(id(gen.iter))
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
            if self._outer(node.id):
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
    """A node `_Recorder._pure` does not evaluate (a call, arithmetic, a comprehension)."""


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
