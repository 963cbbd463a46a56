"""Verdicts of one lane on one subject, per-case outcomes, a classic lane's signals and value
slots (what its tally keeps; engine.fold computes the metrics from it) and thresholds. Pure."""

from __future__ import annotations

import json
import math
from array import array
from collections.abc import Container, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from ..rules.kinds.core import MISSING, Context, RegexTimeout, Subject, Verdict, case_value
from ..rules.loader import EXPECTED, Lane, MetricSpec, PredicateSpec, ThresholdCheck, ThresholdSet
from .sums import Sum

# A predicate that needs a case field (spec.case_field, declared by its kind) is not judged
# without it (and without a stored verdict), unless its kind says it is (spec.judged_without_field).


_Plan = tuple[tuple[PredicateSpec, str | None, str, Any], ...]


def _plan(lane: Lane) -> _Plan:
    """Each predicate of the lane with the case field it needs, its name and its evaluator (read
    once per evaluation, not per subject)."""
    return tuple((spec, spec.case_field, spec.name, spec.evaluate) for spec in lane.predicates)


MEMO_SIZE = 16384  # verdict sets kept per evaluation; the memo is cleared when it fills


class EvaluationMemo:
    """One evaluation's state (a run, a `check`, an editor request): the lane's predicate plan,
    built once, and its verdicts by key, bounded, and paused while it misses (on all-distinct
    surfaces a memo only costs, so after a window with almost no hits it stands aside for a
    while). It belongs to whoever evaluates (engine.pipeline.Evaluator), never to the `Lane`:
    two evaluations of one lane share nothing, and a thread evaluating owns its memo."""

    __slots__ = ("absent", "entries", "hits", "lane", "lookups", "needed", "paused", "plan")

    WINDOW = 4096  # lookups per check of the hit rate
    PAUSE = 65536  # evaluations without the memo after a window with under 1% hits

    def __init__(self, lane: Lane) -> None:
        self.lane = lane
        # Verdicts by (surface, grounding, primed, the case fields predicates read): a deterministic
        # runtime repeats its surfaces, and a verdict depends on nothing else.
        self.entries: dict[tuple[Any, ...], Any] = {}
        self.hits = 0
        self.lookups = 0
        self.paused = 0
        self.plan: _Plan = _plan(lane)
        # The case fields those predicates read, in plan order (the memo key's tail).
        self.needed: tuple[str, ...] = tuple(dict.fromkeys(name for spec in lane.predicates for name in spec.reads))
        self.absent: tuple[tuple[None, bool], ...] = tuple((None, False) for _ in self.needed)  # the key's tail without a case


def evaluate(
    lane: Lane,
    subject: Subject,
    stored: Mapping[str, Any] | None = None,
    case_fields: Mapping[str, Any] | None = None,
    memo: EvaluationMemo | None = None,
) -> Mapping[str, Verdict]:
    """Every predicate of the lane on one subject. A predicate that needs a case field the
    case lacks takes the report's stored verdict when there is one, else it is skipped.

    With an evaluation's `memo` (of this lane), surface lanes memoise the result (read-only:
    callers copy before changing it) by everything a surface predicate can read: the surface,
    grounding, priming and the case fields its predicates name; report entries with stored
    verdicts do not. Without one nothing is kept."""
    if memo is None:
        return _evaluate(lane, _plan(lane), subject, stored, case_fields)
    if memo.lane is not lane:
        raise ValueError(f"an evaluation memo of lane {memo.lane.name!r} used for lane {lane.name!r}")
    plan = memo.plan
    if stored is not None:
        return _evaluate(lane, plan, subject, stored, case_fields)
    if memo.paused:
        memo.paused -= 1
        return _evaluate(lane, plan, subject, stored, case_fields)
    # Predicates read the subject's case; `case_fields` decides which of them are judged.
    key: tuple[Any, ...] = (subject.surface, subject.grounding, subject.primed)
    needed = memo.needed
    if needed:
        read = subject.case or {}
        given = case_fields or {}
        key += tuple((_hashable(read.get(name)), name in given) for name in needed)
    entries = memo.entries
    memo.lookups += 1
    hit = entries.get(key)
    if hit is not None:
        memo.hits += 1
        return hit  # type: ignore[no-any-return]
    return _remember(memo, key, _evaluate(lane, plan, subject, stored, case_fields))


def evaluate_turn(lane: Lane, memo: EvaluationMemo, surface: str, grounding: str, primed: bool) -> Mapping[str, Verdict]:
    """`evaluate(lane, Subject(surface, grounding, None, primed), None, None, memo)`, for a turn
    read without case files or stored verdicts (the scoring fast path): the same memo key and
    the same pausing, without the subject on a memo hit."""
    if memo.paused or memo.lane is not lane:
        return evaluate(lane, Subject(surface, grounding, None, primed), None, None, memo)
    # No case: each field the predicates read is absent (None) and not given (False).
    key = (surface, grounding, primed, *memo.absent)
    entries = memo.entries
    memo.lookups += 1
    hit = entries.get(key)
    if hit is not None:
        memo.hits += 1
        return hit  # type: ignore[no-any-return]
    return _remember(memo, key, _evaluate(lane, memo.plan, Subject(surface, grounding, None, primed), None, None))


def _remember(memo: EvaluationMemo, key: tuple[Any, ...], out: Mapping[str, Verdict]) -> Mapping[str, Verdict]:
    """A missed evaluation kept under its key (the memo cleared when full), and the memo paused
    for a while when fewer than 1 in 100 of the window's lookups hit."""
    entries = memo.entries
    if len(entries) >= MEMO_SIZE:
        entries.clear()
    entries[key] = out
    if memo.lookups >= memo.WINDOW:
        if memo.hits * 100 < memo.lookups:
            memo.paused = memo.PAUSE
            entries.clear()
        memo.hits = memo.lookups = 0
    return out


def _hashable(value: Any) -> Any:
    if isinstance(value, list):
        return tuple(_hashable(v) for v in value)
    if isinstance(value, dict):
        return tuple(sorted((k, _hashable(v)) for k, v in value.items()))
    return value


def _evaluate(
    lane: Lane,
    plan: _Plan,
    subject: Subject,
    stored: Mapping[str, Any] | None,
    case_fields: Mapping[str, Any] | None,
) -> dict[str, Verdict]:
    ctx = Context(subject, lane.analysis)
    out: dict[str, Verdict] = {}
    for spec, needed, name, judge in plan:
        if needed is not None and (case_fields is None or needed not in case_fields):
            if stored is not None and isinstance(stored.get(name), bool):
                out[name] = Verdict(bool(stored[name]), message="stored verdict")
                continue
            if not spec.judged_without_field:
                continue
        try:
            verdict = judge(ctx)
            if verdict is not None:  # None: the case gives this predicate nothing to judge
                out[name] = verdict
        except RegexTimeout as exc:  # a user pattern's character budget (patterns.py): no clock
            out[name] = Verdict(False, message=f"a pattern of `{name}` {exc}", timed_out=True)
    return out


def expected_names(lane: Lane, case_fields: Mapping[str, Any] | None) -> list[str]:
    """The case's expected predicates, canonicalised (aliases resolved, unknown names dropped)."""
    if not lane.expected_field or not case_fields:
        return []
    names = case_fields.get(lane.expected_field)
    if not isinstance(names, list):
        return []
    out = []
    for name in names:
        spec = lane.predicate(name) if isinstance(name, str) else None
        if spec is not None:
            out.append(spec.name)
    return out


def signal(
    name: str,
    lane: Lane,
    verdicts: Mapping[str, Verdict],
    case_fields: Mapping[str, Any] | None,
) -> bool:
    negate = name.startswith("!")
    bare = name.lstrip("!")
    if bare == EXPECTED:
        value = all(verdicts[n].passed for n in expected_names(lane, case_fields) if n in verdicts)
    elif bare in verdicts:
        value = verdicts[bare].passed
    elif lane.predicate(bare) is not None:
        value = False  # a predicate that could not be judged does not pass
    else:
        value = bool((case_fields or {}).get(bare, False))
    return value != negate


def signal_values(
    lane: Lane,
    names: tuple[str, ...],
    verdicts: Mapping[str, Verdict],
    case_fields: Mapping[str, Any] | None,
) -> tuple[bool, ...]:
    """`signal` for every name at once (the hot path of scoring)."""
    out: list[Any] = []
    for name in names:
        if name[0] in VALUE_SLOTS:  # a metric's per-case value or category (v2), not a signal
            out.append(_slot_value(name, case_fields))
            continue
        v = verdicts.get(name)
        if v is not None:
            out.append(v.passed)
        elif name == EXPECTED and not case_fields:
            out.append(True)  # no case, nothing expected
        else:
            out.append(signal(name, lane, verdicts, case_fields))
    return tuple(out)


def lane_signals(lane: Lane) -> tuple[str, ...]:
    """Every signal any metric reads, in a fixed order (one tuple slot each per outcome); then
    the per-case values (`=case.PATH`) and categories (`#case.PATH`) of v2 metrics."""
    names: list[str] = []
    for metric in lane.metrics:
        for s in (*metric.passing, *metric.over):
            bare = s.lstrip("!")
            if bare not in names:
                names.append(bare)
    for metric in lane.metrics:
        value, by = metric.value_path, metric.by_path
        for slot in (f"={value}" if value else "", f"#{by}" if by else ""):
            if slot and slot not in names:
                names.append(slot)
    return tuple(names)


VALUE_SLOTS = "=#"  # the first character of a value slot's name: = a number, # a category


def _slot_value(name: str, case_fields: Mapping[str, Any] | None) -> Any:
    """A case's value for a metric slot: a finite number (`=`) or a category string (`#`), else None.
    Distinct values take distinct tally entries: categories and small integer counts stay few."""
    value = case_value(case_fields, name[1:].removeprefix("case."))
    if name[0] == "=":
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
            return None
        return value
    if value is MISSING or isinstance(value, (dict, list)) or value is None:
        return None
    return json.dumps(value) if not isinstance(value, str) else value


@dataclass(slots=True)
class Outcome:
    """One scored case: its id, the signal values metrics read, details for reports."""

    case_id: str
    signals: tuple[bool, ...]
    grounding: str = "none"
    details: dict[str, Any] | None = None
    failed: tuple[str, ...] = ()  # predicates that failed (expected or not)
    findings: tuple[Any, ...] = ()
    verdicts: dict[str, Verdict] | None = None  # the failed predicates' verdicts (messages, spans)
    judged: tuple[str, ...] = ()  # reported predicates that had a verdict, in lane order
    levels: dict[str, Any] | None = None  # failed predicate -> its finding's Severity (None: reports none)


class SlotValues:
    """The per-case numbers of a lane's value slots (`=case.PATH`), kept out of the tally key so
    that a float-valued metric does not take one tally entry per distinct value: the key holds
    whether a case has a number (True) or not (None); the numbers stay in flat arrays (8 bytes a
    case and slot, plus a kind byte; the owner may write them to disk in chunks, `columns`) and
    are summed exactly per key once the last record of each case is known (`add_sums`)."""

    NONE, INT, FLOAT = 0, 1, 2

    def __init__(self, names: tuple[str, ...]) -> None:
        self.slots = tuple(i for i, n in enumerate(names) if n[0] == "=")
        self.numbers = [array("d") for _ in self.slots]
        self.kinds = [array("B") for _ in self.slots]
        self.taken = 0  # records taken: the position of the next one
        # (position, slot) -> an int a float cannot hold exactly, in position order (the owner may
        # move them to disk with the chunk they belong to).
        self.big: dict[tuple[int, int], int] = {}

    def columns(self) -> list[array[Any]]:
        """The flat arrays, one entry each per record taken (for the owner to spill)."""
        return [*self.numbers, *self.kinds]

    def take(self, signals: tuple[Any, ...]) -> tuple[Any, ...]:
        """Note one scored record's numbers (at the next position); its signals as the tally keys them."""
        if not self.slots:
            return signals
        out = list(signals)
        position = self.taken
        self.taken = position + 1
        for j, i in enumerate(self.slots):
            x = signals[i]
            kinds = self.kinds[j]
            if x is None:
                kinds.append(self.NONE)
                self.numbers[j].append(0.0)
                continue
            out[i] = True
            if isinstance(x, int):
                kinds.append(self.INT)
                if -(2 ** 53) <= x <= 2 ** 53:
                    self.numbers[j].append(float(x))
                else:
                    self.big[(position, j)] = x
                    self.numbers[j].append(0.0)
            else:
                kinds.append(self.FLOAT)
                self.numbers[j].append(x)
        return tuple(out)

    def add_sums(self, out: dict[tuple[Any, ...], tuple[Sum, ...]], base: int, keys: Sequence[int],
                 key_signals: Sequence[tuple[Any, ...]], dropped: Container[int],
                 numbers: Sequence[Sequence[float]], kinds: Sequence[Sequence[int]],
                 big: Mapping[tuple[int, int], int]) -> None:
        """Add one run of positions (`base` onwards: their keys, each slot's numbers and kinds, the
        big ints among them) to `out`, per tally key (signal tuple) each slot's Sum over the
        positions not `dropped`. Called in position order, it sums exactly what the arrays hold."""
        slots = range(len(self.slots))
        for offset, key in enumerate(keys):
            position = base + offset
            if position in dropped:
                continue
            signals = key_signals[key]
            per_slot = out.get(signals)
            if per_slot is None:
                per_slot = out[signals] = tuple(Sum() for _ in self.slots)
            for j in slots:
                kind = kinds[j][offset]
                if kind == self.NONE:
                    continue
                if kind == self.INT:
                    x = big.get((position, j))
                    per_slot[j].add(x if x is not None else int(numbers[j][offset]))
                else:
                    per_slot[j].add(numbers[j][offset])


@dataclass(frozen=True, slots=True)
class ThresholdResult:
    check: ThresholdCheck
    actual: float | None
    passed: bool
    value: Any = field(default=None, compare=False)  # the metric as computed (a flag, a text or null)


def threshold_results(
    lane: Lane, metrics: Mapping[str, Any], set_name: str | None
) -> list[ThresholdResult]:
    """The lane's threshold set `set_name` checked on its metrics (none: no set)."""
    if set_name is None or set_name not in lane.thresholds:
        return []
    return check_thresholds(lane.thresholds[set_name], metrics)


def metric_value(metrics: Mapping[str, Any], name: str) -> Any:
    """A metric by name, or one category of a `by` table (`NAME.CATEGORY`); None when absent."""
    if name in metrics:
        return metrics[name]
    table, dot, category = name.rpartition(".")
    found = metrics.get(table) if dot else None
    return found.get(category) if isinstance(found, dict) else None


def check_thresholds(threshold_set: ThresholdSet, metrics: Mapping[str, Any]) -> list[ThresholdResult]:
    """The one threshold check of every lane: each check of the set on the metrics (as the lane
    computed them: a classic lane's rounded, a case-driven lane's unrounded unless `round`). A
    check naming a whole category table (a case-driven `by` metric) gives one result per
    category, named `metric.category`, in the table's order; a null is skipped with `skip_null`
    and fails otherwise, as does anything but a number."""
    out: list[ThresholdResult] = []
    for check in threshold_set.checks:
        actual = metric_value(metrics, check.metric)
        named: list[tuple[ThresholdCheck, Any]]
        if isinstance(actual, dict):
            named = [(replace(check, metric=f"{check.metric}.{k}"), v) for k, v in actual.items()]
        else:
            named = [(check, actual)]
        for one, value in named:
            if value is None and threshold_set.skip_null:
                continue
            number = float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None
            out.append(ThresholdResult(one, number, one.passes(number), value))
    return out


def reported_metrics(specs: Sequence[MetricSpec], metrics: Mapping[str, Any]) -> dict[str, Any]:
    """The metrics without the helpers (`report = false`: a metric and its `NAME.CATEGORY`s)."""
    hidden = {spec.name for spec in specs if not spec.report}
    if not hidden:
        return dict(metrics)
    return {k: v for k, v in metrics.items() if k not in hidden and k.rpartition(".")[0] not in hidden}
