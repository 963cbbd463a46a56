"""Predicate kinds: surface (+ metadata) -> verdict + spans. Pure; no I/O.

A lane's TOML names a `kind` per predicate and gives its parameters; each kind below
declares the parameters it takes (name -> type) and builds an evaluator from them.
Spans are [start, end) offsets into the decoded surface string.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from .patterns import RegexBudgetExceeded, RegexTimeout, SafePattern
from .rule_schema import REQUIRED, Value

__all__ = ["KINDS", "Kind", "RegexBudgetExceeded", "RegexTimeout", "SafePattern", "register_kind"]

Span = tuple[int, int]


class Subject:
    """Everything a predicate may look at for one scored turn or chain (a plain slots class:
    built once per turn on the hot path)."""

    __slots__ = ("case", "grounding", "primed", "proposal_count", "proposal_count_replay",
                 "surface", "trace_hash", "trace_hash_replay", "vault_hits", "vault_hits_replay")

    def __init__(
        self,
        surface: str,
        grounding: str = "none",  # the runner's `grounding_source or "none"`
        case: Mapping[str, Any] | None = None,
        primed: bool = False,
        vault_hits: int | None = None,
        trace_hash: str | None = None,
        proposal_count: int | None = None,
        vault_hits_replay: int | None = None,
        trace_hash_replay: str | None = None,
        proposal_count_replay: int | None = None,
    ) -> None:
        self.surface = surface
        self.grounding = grounding
        self.case = case
        self.primed = primed
        # Symbolic chains: the first run and the replay (None where not captured).
        self.vault_hits = vault_hits
        self.trace_hash = trace_hash
        self.proposal_count = proposal_count
        self.vault_hits_replay = vault_hits_replay
        self.trace_hash_replay = trace_hash_replay
        self.proposal_count_replay = proposal_count_replay


class Verdict:
    """One predicate's answer on one subject: passed, and where it broke (spans)."""

    __slots__ = ("message", "passed", "spans", "target", "timed_out")

    def __init__(
        self,
        passed: bool,
        spans: tuple[Span, ...] = (),
        message: str = "",
        target: str | None = None,  # for chain predicates: which record field to point at
        timed_out: bool = False,
    ) -> None:
        self.passed = passed
        self.spans = spans
        self.message = message
        self.target = target
        self.timed_out = timed_out

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Verdict):
            return NotImplemented
        return (self.passed, self.spans, self.message, self.target, self.timed_out) == (
            other.passed, other.spans, other.message, other.target, other.timed_out)

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

    __slots__ = ("_analysis", "lane_analysis", "subject")

    def __init__(self, subject: Subject, lane_analysis: LaneAnalysis) -> None:
        self.subject = subject
        self.lane_analysis = lane_analysis
        self._analysis: Analysis | None = None

    @property
    def analysis(self) -> Analysis:
        if self._analysis is None:
            self._analysis = self.lane_analysis.analyse(self.subject.surface)
        return self._analysis


Evaluator = Callable[[Context], Verdict]


def _whole(surface: str) -> tuple[Span, ...]:
    """The whole surface, minus surrounding whitespace (a zero-width span when empty)."""
    stripped = surface.strip()
    if not stripped:
        return ((0, 0),)
    start = surface.find(stripped)
    return ((start, start + len(stripped)),)


# --- kinds -----------------------------------------------------------------------------


def _substring_absent(params: Mapping[str, Any]) -> Evaluator:
    markers: list[str] = list(params["markers"])

    def evaluate(ctx: Context) -> Verdict:
        surface = ctx.subject.surface
        for marker in markers:
            if marker in surface:
                break
        else:
            return PASS
        spans: list[Span] = []
        names: list[str] = []
        for marker in markers:
            pos = surface.find(marker)
            while pos != -1:
                spans.append((pos, pos + len(marker)))
                pos = surface.find(marker, pos + len(marker))
            if marker in surface:
                names.append(marker)
        spans.sort()
        found = ", ".join(f"`{n}`" for n in names)
        return Verdict(False, tuple(spans), f"placeholder marker {found} in the surface")

    return evaluate


def _pattern_absent(params: Mapping[str, Any]) -> Evaluator:
    pattern: SafePattern = params["pattern"]
    whole_match = params.get("mode", "search") == "match"
    strip = bool(params.get("strip", False))
    # Substrings every match contains: a surface lacking one cannot match (a cheap prefilter).
    requires: tuple[str, ...] = tuple(params.get("requires", ()))
    message: str = params.get("message", "the surface matches `{match}`")

    def evaluate(ctx: Context) -> Verdict:
        surface = ctx.subject.surface
        for needle in requires:
            if needle not in surface:
                return PASS
        text = surface.strip() if strip else surface
        offset = surface.find(text) if strip and text else 0
        if whole_match:
            m = pattern.match(text)
            if m is None:
                return PASS
            return Verdict(False, _whole(surface), message.replace("{match}", m.group()))
        m = pattern.search(text)
        if m is None:
            return PASS
        spans = tuple((offset + x.start(), offset + x.end()) for x in pattern.finditer(text))
        return Verdict(False, spans, message.replace("{match}", m.group()))

    return evaluate


def _ends_with(params: Mapping[str, Any]) -> Evaluator:
    endings = tuple(params["endings"])
    shown = " ".join(f"`{e}`" for e in endings)

    def evaluate(ctx: Context) -> Verdict:
        surface = ctx.subject.surface
        stripped = surface.rstrip()
        if stripped and stripped.endswith(endings):
            return PASS
        if not stripped:
            return Verdict(False, ((0, 0),), f"the surface is empty; it must end with {shown}")
        last = len(stripped) - 1
        # Point at the whole last character: a base emoji plus its variation selector or marks.
        while last > 0 and unicodedata.category(stripped[last]) in ("Mn", "Me", "Cf"):
            last -= 1
        return Verdict(
            False,
            ((last, len(stripped)),),
            f"the surface ends with `{stripped[last:]}`, not terminal punctuation ({shown})",
        )

    return evaluate


def _words_present(params: Mapping[str, Any]) -> Evaluator:
    pattern: SafePattern = params["_compiled"]
    lowercase = bool(params.get("lowercase", True))

    def evaluate(ctx: Context) -> Verdict:
        surface = ctx.subject.surface
        text = surface.lower() if lowercase else surface
        if pattern.search(text) is not None:
            return PASS
        return Verdict(False, _whole(surface), "no finite verb or inflected verb form in the surface")

    return evaluate


def _compile_words(params: dict[str, Any]) -> None:
    words = [re.escape(w) for w in params.get("words", [])]
    suffixes = list(params.get("suffix_patterns", []))
    alternatives = []
    if words:
        alternatives.append(r"\b(?:" + "|".join(words) + r")\b")
    for suffix in suffixes:
        alternatives.append(r"\b(?:" + suffix + r")\b")
    # Escaped words alone are a pattern of our own making; suffix fragments are the rule's.
    params["_compiled"] = SafePattern(
        "|".join(alternatives) or r"(?!)", bool(params.get("_trusted")), built=not suffixes
    )


def _grounding_marker_consistent(params: Mapping[str, Any]) -> Evaluator:
    grounded = set(params["grounded_sources"])
    markers = list(params["markers"])

    def evaluate(ctx: Context) -> Verdict:
        surface = ctx.subject.surface
        if ctx.subject.grounding in grounded:
            return PASS
        spans = []
        for marker in markers:
            pos = surface.find(marker)
            if pos != -1:
                spans.append((pos, pos + len(marker)))
        if not spans:
            return PASS
        spans.sort()
        marker = surface[spans[0][0] : spans[0][1]]
        return Verdict(
            False,
            tuple(spans),
            f"the surface says `{marker}` but grounding_source is `{ctx.subject.grounding}`",
        )

    return evaluate


def _sentence_count_min(params: Mapping[str, Any]) -> Evaluator:
    minimum = int(params["minimum"])

    def evaluate(ctx: Context) -> Verdict:
        count = len(ctx.analysis.sentences)
        if count >= minimum:
            return PASS
        noun = "sentence" if count == 1 else "sentences"
        return Verdict(
            False,
            _whole(ctx.subject.surface),
            f"{count} substantive {noun} (tails stripped); at least {minimum} required",
        )

    return evaluate


def _sentence_min_tokens(params: Mapping[str, Any]) -> Evaluator:
    minimum = int(params["minimum"])

    def evaluate(ctx: Context) -> Verdict:
        sentences = ctx.analysis.sentences
        if not sentences:
            return Verdict(False, _whole(ctx.subject.surface), "no substantive sentence")
        short = [
            (text, start)
            for text, start in sentences
            if ctx.lane_analysis.tokens(text) < minimum
        ]
        if not short:
            return PASS
        spans = tuple((start, start + len(text)) for text, start in short)
        counts = ", ".join(str(ctx.lane_analysis.tokens(t)) for t, _ in short)
        return Verdict(
            False,
            spans,
            f"{len(short)} sentence(s) with fewer than {minimum} alphabetic tokens ({counts})",
        )

    return evaluate


def _connective_present(params: Mapping[str, Any]) -> Evaluator:
    pattern: SafePattern = params["_compiled"]

    def evaluate(ctx: Context) -> Verdict:
        if pattern.search(ctx.analysis.stripped.lower()) is not None:
            return PASS
        return Verdict(False, _whole(ctx.subject.surface), "no connective in the surface")

    return evaluate


def _compile_connectives(params: dict[str, Any]) -> None:
    words = [re.escape(c) for c in params["connectives"]]
    pattern = r"\b(?:" + "|".join(words) + r")\b" if words else r"(?!)"
    params["_compiled"] = SafePattern(pattern, True, built=True)


def _not_only_tail(params: Mapping[str, Any]) -> Evaluator:
    def evaluate(ctx: Context) -> Verdict:
        surface = ctx.subject.surface
        if not surface.strip() or ctx.analysis.stripped:
            return PASS
        return Verdict(False, _whole(surface), "the surface is only a provenance / trust tail")

    return evaluate


def _grounding_in(params: Mapping[str, Any]) -> Evaluator:
    sources = set(params["sources"])
    shown = ", ".join(sorted(sources))

    def evaluate(ctx: Context) -> Verdict:
        if ctx.subject.grounding in sources:
            return PASS
        return Verdict(
            False,
            _whole(ctx.subject.surface),
            f"grounding_source `{ctx.subject.grounding}` is not one of {shown}",
            target="grounding_source",
        )

    return evaluate


def _case_field_in_surface(params: Mapping[str, Any]) -> Evaluator:
    name = str(params["field"])

    def evaluate(ctx: Context) -> Verdict:
        case = ctx.subject.case or {}
        value = case.get(name)
        needle = value.lower() if isinstance(value, str) else ""
        if not needle or needle in ctx.subject.surface.lower():
            return PASS
        return Verdict(
            False, _whole(ctx.subject.surface), f"the surface never names `{value}` ({name})"
        )

    return evaluate


def _primed(params: Mapping[str, Any]) -> Evaluator:
    def evaluate(ctx: Context) -> Verdict:
        return Verdict(ctx.subject.primed)

    return evaluate


def _case_int(ctx: Context, params: Mapping[str, Any]) -> int:
    case = ctx.subject.case or {}
    value = case.get(str(params["field"]), params.get("default", 0))
    try:
        return int(value)
    except (TypeError, ValueError):
        return int(params.get("default", 0))


def _vault_hits_min(params: Mapping[str, Any]) -> Evaluator:
    def evaluate(ctx: Context) -> Verdict:
        need = _case_int(ctx, params)
        have = ctx.subject.vault_hits or 0
        if have >= need:
            return PASS
        return Verdict(
            False, (), f"probe vault_hits {have} < min_vault_hits {need}", target="vault_hits"
        )

    return evaluate


def _replay_identical(params: Mapping[str, Any]) -> Evaluator:
    def evaluate(ctx: Context) -> Verdict:
        s = ctx.subject
        if s.trace_hash_replay is None and s.vault_hits_replay is None and s.proposal_count_replay is None:
            return Verdict(False, (), "no replay run captured (chain 1)", target="trace_hash")
        problems = []
        if not s.trace_hash:
            problems.append("empty trace_hash")
        elif s.trace_hash != s.trace_hash_replay:
            problems.append(f"trace_hash {s.trace_hash[:12]}… != replay {str(s.trace_hash_replay)[:12]}…")
        if s.vault_hits != s.vault_hits_replay:
            problems.append(f"vault_hits {s.vault_hits} != replay {s.vault_hits_replay}")
        if s.proposal_count != s.proposal_count_replay:
            problems.append(
                f"proposal_count {s.proposal_count} != replay {s.proposal_count_replay}"
            )
        if not problems:
            return PASS
        return Verdict(False, (), "replay differs: " + "; ".join(problems), target="trace_hash")

    return evaluate


def _proposal_count_equal(params: Mapping[str, Any]) -> Evaluator:
    def evaluate(ctx: Context) -> Verdict:
        want = _case_int(ctx, params)
        have = ctx.subject.proposal_count or 0
        if have == want:
            return PASS
        return Verdict(
            False,
            (),
            f"{have} pack-mutation proposal(s) fired; expected_proposals is {want}",
            target="proposal_count",
        )

    return evaluate


@dataclass(frozen=True, slots=True)
class Kind:
    """A predicate kind: the parameters it declares (name -> typed Value with its default)
    and how to build an evaluator from them (every declared default already filled in)."""

    build: Callable[[Mapping[str, Any]], Evaluator]
    params: Mapping[str, Value]
    prepare: Callable[[dict[str, Any]], None] | None = None
    # Which subjects it can judge: "surface" (a turn's text) or "chain" (symbolic runs).
    unit: str = "surface"
    summary: str = ""

    @property
    def regex_params(self) -> tuple[str, ...]:
        return tuple(k for k, v in self.params.items() if v.type == "regex")


KINDS: dict[str, Kind] = {}


def register_kind(name: str, kind: Kind) -> Kind:
    """Add a kind to the registry (a lane module's own kinds too). A name is registered once."""
    if name in KINDS:
        raise ValueError(f"predicate kind {name!r} is already registered")
    if not name or not name.replace("_", "").isalnum():
        raise ValueError(f"predicate kind name {name!r} must be letters, digits and underscores")
    KINDS[name] = kind
    return kind


_TERMS = "list[string]"
register_kind("substring_absent", Kind(
    _substring_absent,
    {"markers": Value(_TERMS, REQUIRED, "Substrings that must not occur (case-sensitive).", non_empty=True)},
    summary="No listed substring occurs in the surface; every occurrence is a span.",
))
register_kind("pattern_absent", Kind(
    _pattern_absent,
    {
        "pattern": Value("regex", REQUIRED, "The pattern that must not match."),
        "mode": Value("string", "search", "`search` anywhere, or `match` the whole (stripped) surface.",
                      choices=("search", "match")),
        "strip": Value("boolean", False, "Match against the surface with surrounding whitespace removed."),
        "requires": Value(_TERMS, [], "Substrings every match contains: a surface lacking one is not searched.",
                          non_empty=True),
        "message": Value("string", "the surface matches `{match}`", "The finding's message; `{match}` is the match.",
                         non_empty=True),
    },
    summary="A regular expression does not match the surface.",
))
register_kind("ends_with", Kind(
    _ends_with,
    {"endings": Value(_TERMS, REQUIRED, "Accepted last characters (after trailing whitespace).", non_empty=True)},
    summary="The surface, right-stripped, ends with one of the endings.",
))
register_kind("words_present", Kind(
    _words_present,
    {
        "words": Value(_TERMS, REQUIRED, "Whole words, any of which passes.", non_empty=True),
        "suffix_patterns": Value("list[regex]", [], "Regex fragments matched as whole words.", non_empty=True),
        "lowercase": Value("boolean", True, "Lower-case the surface before matching."),
    },
    prepare=_compile_words,
    summary="At least one listed word (or a word matching a suffix pattern) occurs.",
))
register_kind("grounding_marker_consistent", Kind(
    _grounding_marker_consistent,
    {
        "grounded_sources": Value(_TERMS, REQUIRED, "grounding_source values that allow a marker.", non_empty=True),
        "markers": Value(_TERMS, REQUIRED, "Substrings that claim grounding.", non_empty=True),
    },
    summary="A grounding marker in the surface agrees with the turn's grounding_source.",
))
register_kind("sentence_count_min", Kind(
    _sentence_count_min,
    {"minimum": Value("integer", REQUIRED, "The fewest sentences (tails stripped).", minimum=0)},
    summary="At least `minimum` sentences after the lane's tails are stripped.",
))
register_kind("sentence_min_tokens", Kind(
    _sentence_min_tokens,
    {"minimum": Value("integer", REQUIRED, "The fewest tokens per sentence.", minimum=0)},
    summary="Every sentence has at least `minimum` tokens (the lane's token_pattern).",
))
register_kind("connective_present", Kind(
    _connective_present,
    {"connectives": Value(_TERMS, REQUIRED, "Whole words or phrases, matched case-insensitively.", non_empty=True)},
    prepare=_compile_connectives,
    summary="A listed connective occurs in the tail-stripped surface.",
))
register_kind("not_only_tail", Kind(_not_only_tail, {}, summary="The surface is more than its tails."))
register_kind("grounding_in", Kind(
    _grounding_in,
    {"sources": Value(_TERMS, REQUIRED, "Accepted grounding_source values.", non_empty=True)},
    summary="The turn's grounding_source is one of `sources`.",
))
register_kind("case_field_in_surface", Kind(
    _case_field_in_surface,
    {"field": Value("string", REQUIRED, "The case field whose text must occur (case-insensitive).", non_empty=True)},
    summary="The case field's string occurs in the surface.",
))
register_kind("primed", Kind(_primed, {}, summary="The case ran priming prompts."))
register_kind("vault_hits_min", Kind(
    _vault_hits_min,
    {
        "field": Value("string", REQUIRED, "The case field holding the minimum.", non_empty=True),
        "default": Value("integer", 0, "The minimum when the case lacks the field."),
    },
    unit="chain",
    summary="The probe's vault_hits is at least the case field's value.",
))
register_kind("replay_identical", Kind(
    _replay_identical, {}, unit="chain", summary="Both runs agree on trace_hash, vault_hits and proposal count."
))
register_kind("proposal_count_equal", Kind(
    _proposal_count_equal,
    {
        "field": Value("string", REQUIRED, "The case field holding the expected count.", non_empty=True),
        "default": Value("integer", 0, "The count when the case lacks the field."),
    },
    unit="chain",
    summary="The fired proposal count equals the case field's value.",
))
