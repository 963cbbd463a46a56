"""`surface-lint check --cases` on a case-driven lane judges a case once however many files its
turns come in (engine/check.py `CaseSession`): the real compositionality public captures split
in two (chain 0 and its replay; or premises and probes) give the whole file's 12 findings, each
at its line of the file it is in, and `--jobs` gives the same output (a case-driven lane's
files are read in one process, the others still spread)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from cli_support import ROOT, cli

# The corpus as tests/conftest.py finds it: SURFACE_LINT_CORPUS, else ../shared/corpus.
CORPUS = Path(os.environ.get("SURFACE_LINT_CORPUS") or ROOT.parent / "shared" / "corpus") / "lanes" / "compositionality"
CASES = str(CORPUS / "cases" / "public" / "v1" / "cases.jsonl")
CAPTURES = CORPUS / "captures" / "public_v1.jsonl"

PREMISES = "`premises_stored_pass` is false: proposals >= expected_proposals (expected_proposals = 2, proposals = {})"
TOKENS = "entailment_token: none of the expected tokens ({}) is in the answer"
# The whole file's findings: (line, column, code, message).
WHOLE = [
    (1, 97, "SL018", PREMISES.format(0)),
    (5, 323, "SLC901", TOKENS.format("decision")),
    (15, 465, "SLC901", TOKENS.format("recognition")),
    (45, 423, "SLC901", TOKENS.format("conclusion")),
    (71, 97, "SL018", PREMISES.format(1)),
    (91, 97, "SL018", PREMISES.format(1)),
    (95, 670, "SLC901", TOKENS.format("clarity, truth")),
    (105, 558, "SLC901", TOKENS.format("decision, judgment")),
    (125, 490, "SLC901", TOKENS.format("recognition, clarity")),
    (135, 419, "SLC901", TOKENS.format("judgment, knowledge")),
    (141, 97, "SL018", PREMISES.format(1)),
    (145, 687, "SLC901", TOKENS.format("coherence")),
]


def split(tmp_path: Path, key: str, first: object) -> tuple[str, str]:
    """The captures in two files: the records whose `key` is `first`, and the others (each
    in the order it had)."""
    lines = CAPTURES.read_text(encoding="utf-8").splitlines(keepends=True)
    one = [line for line in lines if json.loads(line).get(key) == first]
    two = [line for line in lines if json.loads(line).get(key) != first]
    (tmp_path / "a.jsonl").write_text("".join(one), encoding="utf-8")
    (tmp_path / "b.jsonl").write_text("".join(two), encoding="utf-8")
    return "a.jsonl", "b.jsonl"


def check(tmp_path: Path, *argv: str) -> tuple[int, list[str]]:
    run = cli("check", "--profile", "reference", "--colour", "never", *argv, "--cases", CASES, cwd=tmp_path)
    return run.code, run.out.splitlines()


def shown(path: str, rows: list[tuple[int, int, str, str]]) -> list[str]:
    return [f"{path}:{line}:{column}: {code} [warning] {message}" for line, column, code, message in rows]


# The same findings in the chain-0 file (the whole file's lines 1-5, 11-15, ...).
AT_CHAIN0 = {1: 1, 5: 5, 15: 10, 45: 25, 71: 36, 91: 46, 95: 50, 105: 55, 125: 65, 135: 70, 141: 71, 145: 75}
CHAIN0 = [(AT_CHAIN0[line], column, code, message) for line, column, code, message in WHOLE]
FLAG_NOTE = "lane compositionality, chosen by flag: --lane"
TAIL = ["Found 12 finding(s) (12 warning) in 2 file(s); profile: reference.",
        "160 lines read: 160 records, 0 errors, 0 blank, 0 skipped.", FLAG_NOTE]


def test_the_whole_file_gives_its_cases_findings(tmp_path: Path) -> None:
    (tmp_path / "all.jsonl").write_bytes(CAPTURES.read_bytes())
    assert check(tmp_path, "--lane", "compositionality", "all.jsonl") == (1, [
        *shown("all.jsonl", WHOLE), "Found 12 finding(s) (12 warning) in 1 file(s); profile: reference.",
        "160 lines read: 160 records, 0 errors, 0 blank, 0 skipped.", FLAG_NOTE])


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_a_run_and_its_replay_in_two_files_are_one_case_each(tmp_path: Path, jobs: str) -> None:
    """Chain 0 is the file's lines 1-5, 11-15, ...: each finding at its line there (the replay
    passes: nothing lands in b.jsonl), not 76 findings for cases judged half at a time."""
    a, b = split(tmp_path, "chain", 0)
    assert check(tmp_path, "--lane", "compositionality", "--jobs", jobs, a, b) == (1, [*shown(a, CHAIN0), *TAIL])


def test_each_finding_is_in_the_file_of_the_line_that_decided_it(tmp_path: Path) -> None:
    """Premises in one file, probes in the other: a case-level value at the case's first turn
    (a premise), a probe's verdict at the probe, in the probes' file."""
    a, b = split(tmp_path, "role", "premise")
    premises = [(1, 97, "SL018", PREMISES.format(0)), (57, 97, "SL018", PREMISES.format(1)),
                (73, 97, "SL018", PREMISES.format(1)), (113, 97, "SL018", PREMISES.format(1))]
    probes = [(1, 323, "SLC901", TOKENS.format("decision")), (3, 465, "SLC901", TOKENS.format("recognition")),
              (9, 423, "SLC901", TOKENS.format("conclusion")), (19, 670, "SLC901", TOKENS.format("clarity, truth")),
              (21, 558, "SLC901", TOKENS.format("decision, judgment")),
              (25, 490, "SLC901", TOKENS.format("recognition, clarity")),
              (27, 419, "SLC901", TOKENS.format("judgment, knowledge")), (29, 687, "SLC901", TOKENS.format("coherence"))]
    expected = (1, [*shown(a, premises), *shown(b, probes), *TAIL])
    assert check(tmp_path, "--lane", "compositionality", a, b) == expected
    assert check(tmp_path, "--lane", "compositionality", "--jobs", "2", a, b) == expected


def test_under_jobs_the_other_lanes_files_still_spread_with_the_same_output(tmp_path: Path) -> None:
    """A case-driven file beside two classic ones (lanes detected, from the names): -j 2 prints
    what -j 1 does."""
    (tmp_path / "compositionality.jsonl").write_bytes(CAPTURES.read_bytes())
    for lane in ("deterministic_fluency", "multi_sentence_response"):
        (tmp_path / f"{lane}.jsonl").write_bytes((ROOT / "examples" / "transcripts" / f"{lane}.jsonl").read_bytes())
    files = ["deterministic_fluency.jsonl", "compositionality.jsonl", "multi_sentence_response.jsonl"]
    one, two = check(tmp_path, *files), check(tmp_path, "--jobs", "2", *files)
    assert one == two
    assert [line for line in one[1] if line.startswith("compositionality.jsonl:")] == shown(
        "compositionality.jsonl", WHOLE)
    # The multi_sentence_response example's priming turn (line 2) is context: no finding (issue 18).
    assert one[1][-5:] == ["Found 30 finding(s) (1 error, 12 information, 17 warning) in 3 file(s); profile: reference.",
                           "171 lines read: 171 records, 0 errors, 0 blank, 0 skipped.",
                           # each file's lane, named by its file name
                           "lane deterministic_fluency for 1 of 3 file(s), chosen by path: the file name "
                           "deterministic_fluency.jsonl",
                           "lane compositionality for 1 of 3 file(s), chosen by path: the file name compositionality.jsonl",
                           "lane multi_sentence_response for 1 of 3 file(s), chosen by path: the file name "
                           "multi_sentence_response.jsonl"]


def test_past_the_memory_bound_the_cases_of_both_files_are_grouped_on_disk_alike(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from surface_lint.engine import casegroup

    monkeypatch.setattr(casegroup, "MEMORY_RECORDS", 3)
    a, b = split(tmp_path, "chain", 0)
    assert check(tmp_path, "--lane", "compositionality", a, b) == (1, [*shown(a, CHAIN0), *TAIL])
