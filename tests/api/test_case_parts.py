"""surface_lint.api on case-driven lanes: parts of a run's cases (`Linter.score_cases`), pickled,
merged in a shuffled order and finished, give the bytes one `surface-lint --lane` process prints,
on the real corpus's case files and captures of every case-driven lane."""

from __future__ import annotations

import functools
import json
import pickle
import random
from pathlib import Path

import pytest
from reporters_support import cli

from surface_lint import api
from surface_lint.engine import UsageError

FORMATS = ["text", "json", "json-lines", "sarif", "junit", "github", "markdown", "html"]
# Every case-driven lane of ../shared/corpus/lanes, on its dev split (written out: a lane lost
# from the corpus fails here instead of shrinking the test).
LANES = ["calibration", "classical_literature_ood", "compositionality", "conversational_thread_coherence",
         "discourse_paragraph", "elementary_mathematics_ood", "english_fluency_ood", "fabrication_control",
         "foundational_physics_ood", "grammatical_coverage", "inference_closure", "self_consistency_over_time"]


@pytest.fixture(scope="module")
def linter() -> api.Linter:
    return api.Linter()


def dev(corpus: Path, lane: str) -> tuple[str, str]:
    if lane == "symbolic_logic":  # the runtime's own captures: its public split, each case run twice
        return (str(corpus / "cases" / lane / "public" / "v1" / "cases.jsonl"),
                str(corpus / "runtime" / "captures" / f"{lane}_public_v1.jsonl"))
    folder = corpus / "lanes" / lane
    flat = folder / "cases" / "cases" / "dev.jsonl"  # fabrication_control's own layout
    cases = flat if flat.is_file() else folder / "cases" / "dev" / "cases.jsonl"
    return str(cases), str(folder / "captures" / "dev.jsonl")


def in_parts(linter: api.Linter, lane: str, cases: str, captures: list[str], parts: int, fmt: str,
             seed: int = 5) -> str:
    options = api.ScoreOptions.for_format(fmt)
    pieces = [pickle.loads(pickle.dumps(linter.score_cases(captures, lane, part, parts, [cases], options)))
              for part in range(parts)]
    random.Random(seed).shuffle(pieces)
    whole = functools.reduce(api.PartialScore.merge, pieces, linter.empty(lane, [cases], options))
    return linter.render(linter.finish(whole), fmt)


@pytest.mark.parametrize("lane", ["calibration", "compositionality", "symbolic_logic"])
@pytest.mark.parametrize("fmt", FORMATS)
def test_parts_of_the_cases_give_the_bytes_of_one_process(linter: api.Linter, corpus: Path, lane: str,
                                                         fmt: str) -> None:
    cases, captures = dev(corpus, lane)
    one = cli("--lane", lane, "--cases", cases, "--transcripts", captures, "--output-format", fmt)
    assert one.code in (0, 1), one.err
    for parts in (1, 2, 7):
        assert in_parts(linter, lane, cases, [captures], parts, fmt) == one.out, (lane, fmt, parts)


@pytest.mark.parametrize("lane", LANES)
def test_every_case_driven_lane_in_parts(linter: api.Linter, corpus: Path, lane: str) -> None:
    cases, captures = dev(corpus, lane)
    one = cli("--lane", lane, "--cases", cases, "--transcripts", captures, "--output-format", "json")
    assert one.code in (0, 1), one.err
    assert json.loads(one.out)["cases"]
    for parts in (2, 7):
        assert in_parts(linter, lane, cases, [captures], parts, "json") == one.out, (lane, parts)


def test_a_case_whose_records_are_in_two_files(linter: api.Linter, corpus: Path, tmp_path: Path) -> None:
    # compositionality's captures dealt line by line into two files: every case has records in
    # both, judged whole in its one part.
    cases, captures = dev(corpus, "compositionality")
    lines = Path(captures).read_bytes().splitlines(keepends=True)
    a, b = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    a.write_bytes(b"".join(lines[0::2]))
    b.write_bytes(b"".join(lines[1::2]))
    one = cli("--lane", "compositionality", "--cases", cases, "--transcripts", str(a), str(b),
              "--output-format", "json")
    whole = cli("--lane", "compositionality", "--cases", cases, "--transcripts", captures, "--output-format", "json")
    assert json.loads(one.out)["metrics"] == json.loads(whole.out)["metrics"]
    for parts in (2, 3):
        assert in_parts(linter, "compositionality", cases, [str(a), str(b)], parts, "json") == one.out


def test_what_belongs_to_no_case_is_reported_once(linter: api.Linter, corpus: Path, tmp_path: Path) -> None:
    # A line that is no record, a record without a case id and an unknown id twice, beside the
    # real captures: each finding once, as one reader gives them, whichever part reads them.
    cases, captures = dev(corpus, "calibration")
    assert len(Path(captures).read_bytes().splitlines()) == 24
    bad = tmp_path / "captures.jsonl"
    bad.write_bytes(Path(captures).read_bytes() + b'not json\n{"surface": "x"}\n'
                    b'{"case_id": "NOPE-1", "surface": "x"}\n{"case_id": "NOPE-1", "surface": "y"}\n')
    one = cli("--lane", "calibration", "--cases", cases, "--transcripts", str(bad), "--output-format", "json")
    report = json.loads(one.out)
    assert [(f["code"], f["line"], f["column"], f["message"]) for f in report["findings"] if f["line"] > 24] == [
        ("SL001", 25, 1, "invalid JSON: Expecting value"),
        ("SL015", 26, 1, "record without a string `case_id`; joined to no case"),
        ("SL015", 27, 13, "case id `NOPE-1` matches no case in the given case files")]
    for parts in (1, 2, 7):
        assert in_parts(linter, "calibration", cases, [str(bad)], parts, "json") == one.out, parts


def test_parts_that_do_not_make_a_run(linter: api.Linter, corpus: Path) -> None:
    cases, captures = dev(corpus, "calibration")
    part = functools.partial(linter.score_cases, [captures], "calibration", cases=[cases])
    with pytest.raises(UsageError) as missing:
        linter.finish(part(0, 3).merge(part(2, 3)))
    assert str(missing.value) == ("lane calibration is case-driven: finish needs each of its parts 0 to 2 of 3 once "
                                  "(have 0 of 3, 2 of 3)")
    with pytest.raises(UsageError) as mixed:
        linter.finish(part(0, 2).merge(part(1, 3)))
    assert str(mixed.value) == ("lane calibration is case-driven: finish needs each of its parts 0 to 1 of 2 once "
                                "(have 0 of 2, 1 of 3)")
    with pytest.raises(ValueError, match=r"two parts have the key \(1,\)"):
        part(1, 2).merge(part(1, 2))
    with pytest.raises(UsageError) as outside:
        part(3, 3)
    assert str(outside.value) == "part 3 of 3: a part's number is 0 to 2"
    with pytest.raises(UsageError) as classic:
        linter.score_cases([captures], "deterministic_fluency")
    assert str(classic.value) == ("lane deterministic_fluency is not case-driven: score its transcripts (or spans "
                                  "of them) with Linter.score_file")
    with pytest.raises(UsageError) as spans:
        linter.score_file(captures, "calibration", cases=[cases])
    assert str(spans.value) == ("lane calibration is case-driven: a case is judged from all its records, wherever "
                                "they are; score it in parts of its cases with Linter.score_cases")
    with pytest.raises(UsageError) as no_cases:
        linter.score_cases([captures], "calibration")
    assert str(no_cases.value) == ("lane calibration scores captures joined with their cases: give cases (or only "
                                   "lane reports, which carry their cases' records)")


def test_a_part_is_small_beside_its_captures(linter: api.Linter, corpus: Path) -> None:
    cases, captures = dev(corpus, "compositionality")
    parts = [linter.score_cases([captures], "compositionality", k, 2, [cases]) for k in range(2)]
    size = Path(captures).stat().st_size
    assert sum(p.nbytes for p in parts) < size and parts[0].records == len(Path(captures).read_bytes().splitlines())
    assert parts[1].records == 0  # part 0 counts the lines; the others read the same ones
