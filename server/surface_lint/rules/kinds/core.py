"""Predicate kinds: surface (+ metadata) -> verdict + spans. Pure; no I/O.

A lane's TOML names a `kind` per predicate and gives its parameters; each kind below
declares the parameters it takes (name -> type) and builds an evaluator from them.
Spans are [start, end) offsets into the decoded surface string.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ...model.positions import UNICODE_FORMS, NormalisedText, normalise_text
from ..patterns import RegexBudgetExceeded, RegexTimeout, SafePattern
from ..schema import REQUIRED, Value

__all__ = ["SURFACE_KINDS", "UNICODE_FORM", "Kind", "RegexBudgetExceeded", "RegexTimeout", "SafePattern", "normalising"]

Span = tuple[int, int]


class Subject:
    """Everything a predicate may look at for one scored turn (a plain slots class:
    built once per turn on the hot path)."""

    __slots__ = ("case", "grounding", "primed", "surface")

    def __init__(
        self,
        surface: str,
        grounding: str = "none",  # the runner's `grounding_source or "none"`; UNRECORDED: the record kind has none
        case: Mapping[str, Any] | None = None,
        primed: bool = False,
    ) -> None:
        self.surface = surface
        self.grounding = grounding
        self.case = case
        self.primed = primed

    def with_surface(self, surface: str) -> Subject:
        """The same subject with another surface (its normalised form)."""
        out = Subject.__new__(Subject)
        for slot in Subject.__slots__:
            setattr(out, slot, getattr(self, slot))
        out.surface = surface
        return out


class Verdict:
    """One predicate's answer on one subject: passed, where it broke (spans), and the facts its
    message is written from (`facts` for the whole verdict, `span_facts` per span)."""

    __slots__ = ("facts", "message", "passed", "span_facts", "span_messages", "spans", "target", "timed_out")

    def __init__(
        self,
        passed: bool,
        spans: tuple[Span, ...] = (),
        message: str = "",
        target: str | None = None,  # a verdict with no span: which record field to point at
        timed_out: bool = False,
        facts: Mapping[str, str] | None = None,
        span_facts: tuple[Mapping[str, str], ...] | None = None,
        span_messages: tuple[str, ...] | None = None,
    ) -> None:
        self.passed = passed
        self.spans = spans
        self.message = message
        self.target = target
        self.timed_out = timed_out
        self.facts = facts
        self.span_facts = span_facts
        self.span_messages = span_messages

    def span_message(self, index: int) -> str:
        """The message of the finding at spans[index] (its own match), else the verdict's."""
        messages = self.span_messages
        if messages is not None and 0 <= index < len(messages):
            return messages[index]
        return self.message

    def with_spans(self, spans: tuple[Span, ...]) -> Verdict:
        """The same verdict (of the same class) pointing at other spans."""
        out = object.__new__(type(self))
        for cls in type(self).__mro__:
            for slot in getattr(cls, "__slots__", ()):
                setattr(out, slot, getattr(self, slot))
        out.spans = spans
        return out

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Verdict):
            return NotImplemented
        return (self.passed, self.spans, self.message, self.target, self.timed_out, self.span_messages) == (
            other.passed, other.spans, other.message, other.target, other.timed_out, other.span_messages)

    def __repr__(self) -> str:
        return f"Verdict(passed={self.passed!r}, spans={self.spans!r}, message={self.message!r})"


PASS = Verdict(True)  # shared: most verdicts pass, and a pass carries nothing else


@dataclass(slots=True)
class Analysis:
    """Per-surface derived text shared by the multi-sentence predicates (computed once)."""

    stripped: str
    stripped_start: int  # offset of `stripped` inside the surface
    sentences: list[tuple[str, int]]  # (sentence, offset in surface)


@dataclass(slots=True)
class LaneAnalysis:
    """The lane-level text analysis parameters (tails, sentence split, tokens)."""

    tail_patterns: list[SafePattern] = field(default_factory=list)
    sentence_split: SafePattern | None = None
    token_pattern: SafePattern | None = None

    def analyse(self, surface: str) -> Analysis:
        # Strip tails the way the runner does: sub, strip, sub, strip.
        text = surface
        for pat in self.tail_patterns:
            text = pat.sub("", text).strip()
        stripped = text
        # Tails only come off the end, so the rest starts where the surface's text starts.
        start = max(surface.find(stripped), 0) if stripped else 0
        sentences: list[tuple[str, int]] = []
        if stripped and self.sentence_split is not None:
            pos = 0
            for part in self.sentence_split.split(stripped):
                idx = stripped.find(part, pos)
                if idx < 0:
                    idx = pos
                pos = idx + len(part)
                piece = part.strip()
                if piece:
                    lead = len(part) - len(part.lstrip())
                    sentences.append((piece, start + idx + lead))
        return Analysis(stripped, start, sentences)

    def tokens(self, text: str) -> int:
        if self.token_pattern is None:
            return len(text.split())
        return len(self.token_pattern.findall(text))


class Context:
    """One evaluation: the subject plus lazily computed shared analysis."""

    __slots__ = ("_analysis", "_forms", "lane_analysis", "subject")

    def __init__(self, subject: Subject, lane_analysis: LaneAnalysis) -> None:
        self.subject = subject
        self.lane_analysis = lane_analysis
        self._analysis: Analysis | None = None
        self._forms: dict[str, tuple[Context, NormalisedText]] | None = None

    def normalised(self, form: str) -> tuple[Context, NormalisedText]:
        """The evaluation of the surface in Unicode `form` (computed once per form; this context
        itself when the surface is already in it) and the map of its offsets back."""
        forms = self._forms
        if forms is None:
            forms = self._forms = {}
        found = forms.get(form)
        if found is None:
            text = normalise_text(self.subject.surface, form)
            inner = self if text.identity else Context(self.subject.with_surface(text.text), self.lane_analysis)
            found = forms[form] = (inner, text)
        return found

    @property
    def analysis(self) -> Analysis:
        if self._analysis is None:
            self._analysis = self.lane_analysis.analyse(self.subject.surface)
        return self._analysis


Evaluator = Callable[[Context], 'Verdict | None']  # None: not judged (the case gives it nothing)


UNICODE_FORM = Value(
    "string", "none", "Unicode normalisation of the surface before judging: `none`, `NFC` (composed: `e` + U+0301 "
    "reads as U+00E9) or `NFKC` (also compatibility forms: U+FB01 `\ufb01` reads as `fi`); default: the lane's "
    "`[lane] unicode_form`. Spans point at the original characters (a span covering part of a composed character "
    "covers all it was composed from); messages quote the normalised text.", choices=UNICODE_FORMS)


def normalising(evaluate: Evaluator, form: str) -> Evaluator:
    """The evaluator judging the surface in Unicode `form`, its spans mapped back to the original."""

    def judged(ctx: Context) -> Verdict | None:
        inner, text = ctx.normalised(form)
        verdict = evaluate(inner)
        if verdict is None or verdict.passed or text.identity or not verdict.spans:
            return verdict
        return verdict.with_spans(tuple(text.span(a, b) for a, b in verdict.spans))

    return judged


def _whole(surface: str) -> tuple[Span, ...]:
    """The whole surface, minus surrounding whitespace (a zero-width span when empty)."""
    stripped = surface.strip()
    if not stripped:
        return ((0, 0),)
    start = surface.find(stripped)
    return ((start, start + len(stripped)),)


# --- messages: every verdict carries facts; a rule's `message` template is written from them ----


class _Facts(dict[str, str]):
    def __missing__(self, key: str) -> str:
        return "{" + key + "}"


def render(template: str, facts: Mapping[str, str]) -> str:
    """`template` with `{name}` replaced by the fact of that name (`{{` is a brace)."""
    return template.format_map(_Facts(facts))


def failed(
    spans: tuple[Span, ...],
    template: str,
    facts: Mapping[str, str],
    span_facts: tuple[Mapping[str, str], ...] | None = None,
    target: str | None = None,
) -> Verdict:
    """A failing verdict whose message (and each span's) is `template` written from its facts."""
    span_messages = None
    if span_facts is not None:
        span_messages = tuple(render(template, {**facts, **one}) for one in span_facts)
    return Verdict(False, spans, render(template, facts), target, facts=facts, span_facts=span_facts,
                   span_messages=span_messages)


def with_template(verdict: Verdict, template: str) -> Verdict:
    """The verdict with its messages rewritten from the rule's own `message` template."""
    if verdict.passed or verdict.timed_out:
        return verdict
    return failed(verdict.spans, template, verdict.facts or {}, verdict.span_facts, verdict.target)


def ticked(items: Sequence[str]) -> str:
    return ", ".join(f"`{item}`" for item in items)


# --- kinds -----------------------------------------------------------------------------


def _substring_absent(params: Mapping[str, Any]) -> Evaluator:
    markers: list[str] = list(params["markers"])
    template = str(params["_message"])

    def evaluate(ctx: Context) -> Verdict:
        surface = ctx.subject.surface
        for marker in markers:
            if marker in surface:
                break
        else:
            return PASS
        found: list[tuple[Span, str]] = []
        names: list[str] = []
        for marker in markers:
            pos = surface.find(marker)
            while pos != -1:
                found.append(((pos, pos + len(marker)), marker))
                pos = surface.find(marker, pos + len(marker))
            if marker in surface:
                names.append(marker)
        found.sort()
        return failed(tuple(span for span, _ in found), template,
                      {"found": ticked(names), "match": names[0], "count": str(len(found))},
                      tuple({"match": marker} for _, marker in found))

    return evaluate


def _pattern_absent(params: Mapping[str, Any]) -> Evaluator:
    pattern: SafePattern = params["pattern"]
    whole_match = params["mode"] == "match"
    strip = bool(params["strip"])
    # Substrings every match contains: a surface lacking one cannot match (a cheap prefilter).
    requires: tuple[str, ...] = tuple(params["requires"])
    template = str(params["_message"])

    def evaluate(ctx: Context) -> Verdict:
        surface = ctx.subject.surface
        for needle in requires:
            if needle not in surface:
                return PASS
        text = surface.strip() if strip else surface
        if whole_match:
            m = pattern.match(text)
            if m is None:
                return PASS
            return failed(_whole(surface), template, {"match": m.group(), "count": "1"})
        matches = pattern.finditer(text)
        if not matches:
            return PASS
        offset = surface.find(text) if strip and text else 0
        spans = tuple((offset + x.start(), offset + x.end()) for x in matches)
        return failed(spans, template, {"match": matches[0].group(), "count": str(len(matches))},
                      tuple({"match": x.group()} for x in matches))

    return evaluate


def _ends_with(params: Mapping[str, Any]) -> Evaluator:
    endings = tuple(params["endings"])
    shown = " ".join(f"`{e}`" for e in endings)
    template = params.get("_rule_message")

    def evaluate(ctx: Context) -> Verdict:
        surface = ctx.subject.surface
        stripped = surface.rstrip()
        if stripped and stripped.endswith(endings):
            return PASS
        if not stripped:
            return failed(((0, 0),), template or "the surface is empty; it must end with {endings}",
                          {"endings": shown, "last": ""})
        last = len(stripped) - 1
        # Point at the whole last character: a base emoji plus its variation selector or marks.
        while last > 0 and unicodedata.category(stripped[last]) in ("Mn", "Me", "Cf"):
            last -= 1
        return failed(((last, len(stripped)),),
                      template or "the surface ends with `{last}`, not terminal punctuation ({endings})",
                      {"endings": shown, "last": stripped[last:]})

    return evaluate


def _words_present(params: Mapping[str, Any]) -> Evaluator:
    search = params["_compiled"].searcher()
    lowercase = bool(params["lowercase"])
    template = str(params["_message"])

    def evaluate(ctx: Context) -> Verdict:
        surface = ctx.subject.surface
        if search(surface.lower() if lowercase else surface) is not None:
            return PASS
        return failed(_whole(surface), template, {})

    return evaluate


def _compile_words(params: dict[str, Any]) -> None:
    # One `\b(?:w1|w2|...|(?:fragment)|...)\b`: the same match, tried in the same order, as
    # `\b(?:w1|...)\b|\b(?:fragment)\b|...` (the leading `\b` is shared), with fewer steps.
    alternatives = [re.escape(w) for w in params.get("words", [])]
    suffixes = list(params.get("suffix_patterns", []))
    alternatives += [f"(?:{suffix})" for suffix in suffixes]
    # Escaped words alone are a pattern of our own making; suffix fragments are the rule's.
    params["_compiled"] = SafePattern(
        r"\b(?:" + "|".join(alternatives) + r")\b" if alternatives else r"(?!)", bool(params.get("_trusted")),
        built=not suffixes,
    )


def _grounding_marker_consistent(params: Mapping[str, Any]) -> Evaluator:
    grounded = set(params["grounded_sources"])
    markers = list(params["markers"])
    template = str(params["_message"])

    def evaluate(ctx: Context) -> Verdict | None:
        surface = ctx.subject.surface
        if ctx.subject.grounding in grounded:
            return PASS
        if ctx.subject.grounding == UNRECORDED:
            return NOT_JUDGED
        spans = []
        for marker in markers:
            pos = surface.find(marker)
            if pos != -1:
                spans.append((pos, pos + len(marker)))
        if not spans:
            return PASS
        spans.sort()
        marker = surface[spans[0][0] : spans[0][1]]
        return failed(tuple(spans), template, {"match": marker, "grounding": ctx.subject.grounding},
                      tuple({"match": surface[a:b]} for a, b in spans))

    return evaluate


def _sentence_count_min(params: Mapping[str, Any]) -> Evaluator:
    minimum = int(params["minimum"])
    template = str(params["_message"])

    def evaluate(ctx: Context) -> Verdict:
        count = len(ctx.analysis.sentences)
        if count >= minimum:
            return PASS
        noun = "sentence" if count == 1 else "sentences"
        return failed(_whole(ctx.subject.surface), template,
                      {"count": str(count), "noun": noun, "bound": str(minimum)})

    return evaluate


def _sentence_min_tokens(params: Mapping[str, Any]) -> Evaluator:
    minimum = int(params["minimum"])
    template = params.get("_rule_message")

    def evaluate(ctx: Context) -> Verdict:
        sentences = ctx.analysis.sentences
        if not sentences:
            return failed(_whole(ctx.subject.surface), template or "no substantive sentence",
                          {"bound": str(minimum), "short": "0", "counts": "", "match": ""})
        short = [(text, start) for text, start in sentences if ctx.lane_analysis.tokens(text) < minimum]
        if not short:
            return PASS
        spans = tuple((start, start + len(text)) for text, start in short)
        counts = [str(ctx.lane_analysis.tokens(t)) for t, _ in short]
        return failed(spans,
                      template or "{short} sentence(s) with fewer than {bound} alphabetic tokens ({counts})",
                      {"bound": str(minimum), "short": str(len(short)), "counts": ", ".join(counts),
                       "match": short[0][0]},
                      tuple({"match": text, "count": n} for (text, _), n in zip(short, counts, strict=True)))

    return evaluate


def _connective_present(params: Mapping[str, Any]) -> Evaluator:
    pattern: SafePattern = params["_compiled"]
    template = str(params["_message"])

    def evaluate(ctx: Context) -> Verdict:
        if pattern.search(ctx.analysis.stripped.lower()) is not None:
            return PASS
        return failed(_whole(ctx.subject.surface), template, {})

    return evaluate


def _compile_connectives(params: dict[str, Any]) -> None:
    words = [re.escape(c) for c in params["connectives"]]
    pattern = r"\b(?:" + "|".join(words) + r")\b" if words else r"(?!)"
    params["_compiled"] = SafePattern(pattern, True, built=True)


def _not_only_tail(params: Mapping[str, Any]) -> Evaluator:
    template = str(params["_message"])

    def evaluate(ctx: Context) -> Verdict:
        surface = ctx.subject.surface
        if not surface.strip() or ctx.analysis.stripped:
            return PASS
        return failed(_whole(surface), template, {})

    return evaluate


def _grounding_in(params: Mapping[str, Any]) -> Evaluator:
    constant = list(dict.fromkeys(params["sources"]))
    field = params.get("sources_field")
    missing = str(params["missing"])
    empty_passes = bool(params["empty_passes"])
    template = str(params["_message"])

    def evaluate(ctx: Context) -> Verdict | None:
        if ctx.subject.grounding == UNRECORDED:
            return NOT_JUDGED
        sources = constant
        if field:
            listed = case_value(ctx.subject.case, str(field))
            if isinstance(listed, str):
                listed = [listed]
            if not isinstance(listed, list):  # the case lacks the list (or holds no list there)
                if missing == "not_judged":
                    return NOT_JUDGED
                if missing == "pass":
                    return PASS
                return failed(_whole(ctx.subject.surface), "the case has no `{field}`", {"field": str(field)},
                              target="grounding_source")
            sources = list(dict.fromkeys(s for s in listed if isinstance(s, str)))
        if ctx.subject.grounding in sources or (empty_passes and not sources):
            return PASS
        return failed(_whole(ctx.subject.surface), template,
                      {"grounding": ctx.subject.grounding, "sources": ", ".join(sources) or "(none)",
                       "field": str(field or "")},
                      target="grounding_source")

    return evaluate


def _case_field_in_surface(params: Mapping[str, Any]) -> Evaluator:
    name = str(params["field"])
    template = str(params["_message"])

    def evaluate(ctx: Context) -> Verdict:
        value = case_value(ctx.subject.case, name)
        needles = [value] if isinstance(value, str) else value if isinstance(value, list) else []
        surface = ctx.subject.surface.lower()
        missing = [n for n in needles if isinstance(n, str) and n and n.lower() not in surface]
        if not missing:
            return PASS
        return failed(_whole(ctx.subject.surface), template,
                      {"value": missing[0], "field": name, "missing": ticked(missing)})

    return evaluate


def _primed(params: Mapping[str, Any]) -> Evaluator:
    def evaluate(ctx: Context) -> Verdict:
        return Verdict(ctx.subject.primed)

    return evaluate


def _case_value(params: Mapping[str, Any]) -> Evaluator:
    def evaluate(ctx: Context) -> Verdict:
        return PASS  # the case's value judges it (casework), never a turn

    return evaluate


# --- reading the case ------------------------------------------------------------------------

MISSING: Any = object()  # a case path that leads nowhere
NOT_JUDGED: Verdict | None = None  # an evaluator's answer when the case gives it nothing to judge
# A subject's grounding when its record kind carries no `grounding_source` (runtime telemetry):
# the kinds that read it give no verdict, so no finding speaks of a field the record lacks.
UNRECORDED = ""


def case_value(case: Mapping[str, Any] | None, path: str) -> Any:
    """The value at a dotted path (`constraints.must_contain`) of the case, or MISSING."""
    node: Any = case
    for part in path.split("."):
        if not isinstance(node, Mapping) or part not in node:
            return MISSING
        node = node[part]
    return node


# --- the kinds of this module (kinds.py is the registry) --------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class KindExample:
    """An executed example for the generated reference: the rule's params, the subject, the
    verdict it must give (the reference test runs every one)."""

    params: Mapping[str, Any]
    surface: str
    passes: bool
    message: str = ""  # the expected message when it fails (the kind's default template)
    case: Mapping[str, Any] | None = None
    grounding: str = "none"
    analysis: Mapping[str, Any] | None = None  # the example lane's [analysis] table


@dataclass(frozen=True, slots=True)
class Kind:
    """A predicate kind: the parameters it declares (name -> typed Value with its default),
    the facts its messages are written from, and how to build an evaluator from them (every
    declared default already filled in; `_message` is the rule's template or the kind's)."""

    build: Callable[[Mapping[str, Any]], Evaluator]
    params: Mapping[str, Value]
    prepare: Callable[[dict[str, Any]], None] | None = None
    summary: str = ""
    message: str = ""  # the default message template ("" when the kind words its own by case)
    facts: Mapping[str, str] = field(default_factory=dict)  # placeholder -> what it holds
    case_params: tuple[str, ...] = ()  # params naming a case field path the verdict needs
    judged_without_case: bool = False  # judged (not skipped) when the case lacks that field
    example: KindExample | None = None
    check: Callable[[Mapping[str, Any]], str | None] | None = None  # a rule across params ("give one of ...")

    @property
    def regex_params(self) -> tuple[str, ...]:
        return tuple(k for k, v in self.params.items() if v.type == "regex")


# This module's kinds (the surface ones); kinds.py lists every family in one registry.
SURFACE_KINDS: dict[str, Kind] = {}


_TERMS = "list[string]"
_SENTENCES = {"sentence_split": r"(?<=[.!?])\s+(?=[A-Z0-9])", "token_pattern": "[A-Za-z]+"}  # the shipped sentence rule (vetted)
_MATCH = {"match": "the text that matched (per finding)", "count": "how many matches"}
SURFACE_KINDS["substring_absent"] = Kind(
    _substring_absent,
    {"markers": Value(_TERMS, REQUIRED, "Substrings that must not occur (case-sensitive).", non_empty=True)},
    summary="No listed substring occurs in the surface; every occurrence is a span.",
    message="{found} in the surface",
    facts={**_MATCH, "found": "every marker found, ticked and comma-separated"},
    example=KindExample({"markers": ["<pending>"]}, "The answer is <pending>.", False,
                        "`<pending>` in the surface"),
)
SURFACE_KINDS["pattern_absent"] = Kind(
    _pattern_absent,
    {
        "pattern": Value("regex", REQUIRED, "The pattern that must not match."),
        "mode": Value("string", "search", "`search` anywhere, or `match` the whole (stripped) surface.",
                      choices=("search", "match")),
        "strip": Value("boolean", False, "Match against the surface with surrounding whitespace removed."),
        "requires": Value(_TERMS, [], "Substrings every match contains: a surface lacking one is not searched.",
                          non_empty=True),
        "unicode_form": UNICODE_FORM,
    },
    summary="A regular expression does not match the surface; each match is a finding.",
    message="the surface matches `{match}`",
    facts=_MATCH,
    example=KindExample({"pattern": r"\bTODO\b"}, "Done. TODO: check.", False, "the surface matches `TODO`"),
)
SURFACE_KINDS["ends_with"] = Kind(
    _ends_with,
    {"endings": Value(_TERMS, REQUIRED, "Accepted last characters (after trailing whitespace).", non_empty=True)},
    summary="The surface, right-stripped, ends with one of the endings.",
    facts={"last": "the surface's last character (empty when the surface is)", "endings": "the endings, ticked"},
    example=KindExample({"endings": ["."]}, "river flows valley", False,
                        "the surface ends with `y`, not terminal punctuation (`.`)"),
)
SURFACE_KINDS["words_present"] = Kind(
    _words_present,
    {
        "words": Value(_TERMS, REQUIRED, "Whole words, any of which passes.", non_empty=True),
        "suffix_patterns": Value("list[regex]", [], "Regex fragments matched as whole words.", non_empty=True),
        "lowercase": Value("boolean", True, "Lower-case the surface before matching."),
        "unicode_form": UNICODE_FORM,
    },
    prepare=_compile_words,
    summary="At least one listed word (or a word matching a suffix pattern) occurs.",
    message="none of the listed words in the surface",
    example=KindExample({"words": ["is", "are"]}, "Light, truth, order.", False,
                        "none of the listed words in the surface"),
)
SURFACE_KINDS["grounding_marker_consistent"] = Kind(
    _grounding_marker_consistent,
    {
        "grounded_sources": Value(_TERMS, REQUIRED, "grounding_source values that allow a marker.", non_empty=True),
        "markers": Value(_TERMS, REQUIRED, "Substrings that claim grounding.", non_empty=True),
    },
    summary="A grounding marker in the surface agrees with the turn's grounding_source.",
    message="the surface says `{match}` but grounding_source is `{grounding}`",
    facts={"match": "the marker found (per finding)", "grounding": "the turn's grounding_source"},
    example=KindExample({"grounded_sources": ["pack"], "markers": ["pack-grounded"]},
                        "Truth is real. pack-grounded (p).", False,
                        "the surface says `pack-grounded` but grounding_source is `none`"),
)
SURFACE_KINDS["sentence_count_min"] = Kind(
    _sentence_count_min,
    {"minimum": Value("integer", REQUIRED, "The fewest sentences (tails stripped).", minimum=0),
     "unicode_form": UNICODE_FORM},
    summary="At least `minimum` sentences after the lane's tails are stripped.",
    message="{count} substantive {noun} (tails stripped); at least {bound} required",
    facts={"count": "the sentences found", "noun": "`sentence` or `sentences`", "bound": "the minimum"},
    example=KindExample({"minimum": 2}, "One sentence.", False,
                        "1 substantive sentence (tails stripped); at least 2 required", analysis=_SENTENCES),
)
SURFACE_KINDS["sentence_min_tokens"] = Kind(
    _sentence_min_tokens,
    {"minimum": Value("integer", REQUIRED, "The fewest tokens per sentence.", minimum=0), "unicode_form": UNICODE_FORM},
    summary="Every sentence has at least `minimum` tokens (the lane's token_pattern).",
    facts={"bound": "the minimum", "short": "how many sentences are short", "counts": "their token counts",
           "match": "the short sentence (per finding)", "count": "its token count (per finding)"},
    example=KindExample({"minimum": 3}, "Light. It reveals the truth.", False,
                        "1 sentence(s) with fewer than 3 alphabetic tokens (1)", analysis=_SENTENCES),
)
SURFACE_KINDS["connective_present"] = Kind(
    _connective_present,
    {"connectives": Value(_TERMS, REQUIRED, "Whole words or phrases, matched case-insensitively.", non_empty=True),
     "unicode_form": UNICODE_FORM},
    prepare=_compile_connectives,
    summary="A listed connective occurs in the tail-stripped surface.",
    message="no connective in the surface",
    example=KindExample({"connectives": ["because"]}, "It is. It was.", False, "no connective in the surface"),
)
SURFACE_KINDS["not_only_tail"] = Kind(
    _not_only_tail, {"unicode_form": UNICODE_FORM}, summary="The surface is more than the lane's tails ([analysis] tail_patterns).",
    message="the surface is only a provenance / trust tail",
    example=KindExample({}, "Some words.", True),
)
SURFACE_KINDS["grounding_in"] = Kind(
    _grounding_in,
    {
        "sources": Value(_TERMS, [], "Accepted grounding_source values.", non_empty=True),
        "sources_field": Value("string", None, "A case field (dotted path) listing the accepted values, "
                               "instead of `sources`.", non_empty=True),
        "missing": Value("string", "not_judged", "A case without `sources_field`: `not_judged` (no verdict), "
                         "`pass`, or `fail` (the case has no field).", choices=("pass", "fail", "not_judged")),
        "empty_passes": Value("boolean", False, "An empty list accepts any grounding_source."),
    },
    summary="The turn's grounding_source is one of `sources` (or of the case's `sources_field` list).",
    message="grounding_source `{grounding}` is not one of {sources}",
    facts={"grounding": "the turn's grounding_source", "sources": "the accepted values, as listed",
           "field": "sources_field"},
    case_params=("sources_field",),
    judged_without_case=True,  # `missing` decides
    check=lambda p: None if bool(p.get("sources")) != bool(p.get("sources_field"))
    else "give exactly one of `sources` and `sources_field`",
    example=KindExample({"sources_field": "allowed_sources"}, "From the vault.", False,
                        "grounding_source `vault` is not one of pack, teaching",
                        case={"allowed_sources": ["pack", "teaching"]}, grounding="vault"),
)
SURFACE_KINDS["case_field_in_surface"] = Kind(
    _case_field_in_surface,
    {"field": Value("string", REQUIRED, "The case field (dotted path; a string or a list of strings) whose "
                    "text must occur, case-insensitively.", non_empty=True)},
    summary="The case field's string (each string of a list) occurs in the surface.",
    message="the surface never names `{value}` ({field})",
    facts={"value": "the first missing string", "missing": "every missing string, ticked", "field": "the field"},
    case_params=("field",),
    judged_without_case=True,
    example=KindExample({"field": "subject_lemma"}, "Light reveals meaning.", False,
                        "the surface never names `truth` (subject_lemma)", case={"subject_lemma": "truth"}),
)
SURFACE_KINDS["primed"] = Kind(_primed, {}, summary="The case ran priming prompts (a signal).",
                             example=KindExample({}, "Anything.", False))
SURFACE_KINDS["case_value"] = Kind(
    _case_value, {},
    summary="A case-driven lane's check judged by the `[[casework.values]]` entry that names it as `check`: a "
            "false value is this predicate's finding (its code, severity, name), worded by the value's `message`. "
            "On a turn it passes.",
    example=KindExample({}, "Anything.", True),
)
