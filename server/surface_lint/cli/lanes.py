"""Which lane a run scores or checks, and why, decided before any work: never a silent guess.

`--lane` names it (the flag); else the case files (`--cases`) decide, and every transcript must
agree; else each file's own report `lane`, path, fields, config or the default. A path that
names one lane while the records' fields (or the joined case files) say another is exit 2
naming both. A lane whose predicates read case fields is not scored without cases.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from ..engine import Engine, UsageError
from ..engine.detect import first_object
from ..engine.lanechoice import BY_CASES, BY_CONFIG, BY_DEFAULT, BY_FLAG, LaneChoice, flag_choice
from ..rules.loader import Lane
from ..sources.lintable import HEAD_BYTES
from ..sources.streams import open_input
from ..sources.transcripts import sniff


@dataclass(frozen=True)
class FileLane:
    path: str
    kind: str | None
    choice: LaneChoice


def file_choice(engine: Engine, path: str, kind: str | None = None, texts: Mapping[str, bytes] | None = None,
                strict: bool = True) -> FileLane:
    """The lane of one file as `choose_lane` decides it, strictly (a disagreement is an error);
    `texts`: the bytes of paths not on disk (stdin)."""
    given = (texts or {}).get(path)

    def whole_file() -> bytes:
        return given if given is not None else engine.read_bytes(path)

    try:
        if given is not None:
            head = given[:HEAD_BYTES]
        else:
            with open_input(path) as fh:  # a stream's copy (held before the lane is chosen)
                head = fh.read(HEAD_BYTES)
    except OSError as exc:
        raise UsageError(f"{path}: cannot read: {exc.strerror}") from None
    sniffed, whole = sniff(head)
    if sniffed == "report" and whole is None:
        sniffed, whole = sniff(whole_file())
    kind = kind or sniffed or "turns"
    hint = whole.get("lane") if isinstance(whole, dict) else None
    first = first_object(head)
    if first is None and kind == "cases":
        first = first_object(whole_file())
    choice = engine.choose_lane(path, kind, hint if isinstance(hint, str) else None, first, strict)
    if choice is None:
        raise UsageError(f"{path}: cannot tell which lane this file belongs to (use --lane)")
    return FileLane(path, kind, choice)


def cases_choice(engine: Engine, cases: Sequence[str], texts: Mapping[str, bytes] | None = None) -> LaneChoice:
    """The lane of the case files: the first one's, which every other must share."""
    first = file_choice(engine, cases[0], "cases", texts)
    for other in cases[1:]:
        theirs = file_choice(engine, other, "cases", texts)
        if theirs.choice.lane != first.choice.lane and theirs.choice.by != BY_DEFAULT:
            raise UsageError(f"{other}: {theirs.choice.how} says lane {theirs.choice.lane}, but {cases[0]} is a case "
                             f"file of {first.choice.lane} ({first.choice.how}); give --lane to choose")
    c = first.choice
    return LaneChoice(c.lane, c.by, f"{c.how} of the case file {cases[0]}")


def agree_with_cases(files: Sequence[FileLane], cases: LaneChoice) -> None:
    """A file whose path or report names another lane than the joined cases': exit 2 naming both
    (the silent green of a transcript scored as another lane, its cases joined to nothing)."""
    for f in files:
        c = f.choice
        if c.lane != cases.lane and c.by not in (BY_DEFAULT, BY_CONFIG):
            raise UsageError(f"{f.path}: {c.how} says lane {c.lane}, but the cases it is joined to are of lane "
                             f"{cases.lane} ({cases.how}); give --lane to choose")


def only_reports(engine: Engine, transcripts: Sequence[str], texts: Mapping[str, bytes] | None = None) -> bool:
    """Are all the transcripts lane reports (whose case records carry the case's fields)?"""
    return all(file_choice(engine, t, None, texts, strict=False).kind == "report" for t in transcripts)


def run_choice(engine: Engine, lane: str | None, cases: Sequence[str], transcripts: Sequence[str],
               texts: Mapping[str, bytes] | None = None) -> LaneChoice:
    """The lane of a `--lane` run (scoring) and why."""
    if lane:
        engine.lane(lane)  # an unknown lane is a usage error here, before any reading
        return flag_choice(lane)
    if cases:
        chosen = cases_choice(engine, cases, texts)
        agree_with_cases([file_choice(engine, t, None, texts) for t in transcripts], chosen)
        return LaneChoice(chosen.lane, BY_CASES if chosen.by != BY_FLAG else BY_FLAG, chosen.how)
    if not transcripts:
        raise UsageError("give --lane, --cases or --transcripts")
    first = file_choice(engine, transcripts[0], None, texts)
    c = first.choice
    return LaneChoice(c.lane, c.by, f"{c.how} of {transcripts[0]}")


def check_choices(engine: Engine, lane: str | None, cases: Sequence[str], files: Sequence[str],
                  kind: str | None, texts: Mapping[str, bytes] | None = None
                  ) -> tuple[list[tuple[str | None, list[str]]], list[tuple[LaneChoice, list[str]]]]:
    """`check`: the runs to make, (the lane every file of it is checked as, None: each its own;
    its files), and, grouped, each lane with how it was chosen and its files. With `--cases`, a
    file that names no lane itself (the default guess, config) is checked as the cases' lane."""
    if lane:
        engine.lane(lane)
        return [(lane, list(files))], [(flag_choice(lane), list(files))]
    chosen = cases_choice(engine, cases, texts) if cases else None
    notes: dict[LaneChoice, list[str]] = {}
    joined: list[str] = []
    own: list[str] = []
    for f in files:
        c = file_choice(engine, f, kind, texts).choice
        if chosen is not None and c.by in (BY_DEFAULT, BY_CONFIG):
            joined.append(f)
            c = LaneChoice(chosen.lane, BY_CASES, chosen.how)
        else:
            own.append(f)
        notes.setdefault(c, []).append(f)
    if chosen is not None and not joined and all(c.lane != chosen.lane for c in notes):
        # No file is of the cases' lane: the cases would be joined to nothing, a silent green.
        agree_with_cases([FileLane(f, kind, c) for c, fs in notes.items() for f in fs[:1]], chosen)
    runs: list[tuple[str | None, list[str]]] = []
    if joined and chosen is not None:
        runs.append((chosen.lane, joined))
    if own:
        runs.append((None, own))
    return runs, list(notes.items())


def case_needs(lane: Lane) -> list[tuple[str, list[str]]]:
    """(metric, the case fields it reads) of every metric whose predicates cannot be judged
    without the case: scored without cases they would read as a failing 0.0."""
    needing = {p.name: list(p.reads) for p in lane.predicates if p.reads and not p.judged_without_field}
    found = []
    for metric in lane.metrics:
        fields = {f for name in metric.passing for f in needing.get(name, [])}
        if metric.value is not None and metric.value.text.startswith("case."):
            fields.add(metric.value.text.removeprefix("case.").split(".")[0])
        if fields:
            found.append((metric.name, sorted(fields)))
    return found


def refuse_without_cases(lane: Lane) -> None:
    """Exit 2 when `lane` scored without cases would report metrics it cannot compute."""
    needs = case_needs(lane)
    if not needs:
        return
    named = "; ".join(f"{m} reads {', '.join(fields)}" for m, fields in needs)
    raise UsageError(f"lane {lane.name} cannot be scored without its cases ({named}): give --cases C.jsonl "
                     "or --split; without them these metrics would read as 0.0")
