"""`--jobs N` on a case-driven lane: N parts of its cases judged in worker processes, each from
every transcript, merged in case-file order: byte-identical to `--jobs 1` in every format, on
every case-driven lane of the corpus, with a case's records in two files, with lines that are no
record and ids no case has; a worker killed by SIGKILL ends the run with exit 2 naming it."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from reporters_support import cli
from test_jobs_split import kill_a_worker

CORPUS = Path(__file__).resolve().parents[2].parent / "shared" / "corpus" / "lanes"
FORMATS = ["text", "json", "json-lines", "sarif", "junit", "github", "markdown", "html"]
LANES = ["calibration", "classical_literature_ood", "compositionality", "conversational_thread_coherence",
         "discourse_paragraph", "elementary_mathematics_ood", "english_fluency_ood", "fabrication_control",
         "foundational_physics_ood", "grammatical_coverage", "inference_closure", "self_consistency_over_time"]


def dev(lane: str) -> tuple[str, str]:
    folder = CORPUS / lane
    flat = folder / "cases" / "cases" / "dev.jsonl"  # fabrication_control's own layout
    cases = flat if flat.is_file() else folder / "cases" / "dev" / "cases.jsonl"
    return str(cases), str(folder / "captures" / "dev.jsonl")


def same_for_jobs(argv: list[str], jobs: tuple[int, ...] = (2, 7)) -> str:
    one = cli(*argv, "--jobs", "1")
    assert one.code in (0, 1), one.err
    for n in jobs:
        many = cli(*argv, "--jobs", str(n))
        assert (many.code, many.out, many.err) == (one.code, one.out, one.err), (argv, n)
    return one.out


@pytest.mark.parametrize("lane", ["calibration", "compositionality"])
@pytest.mark.parametrize("fmt", FORMATS)
def test_every_format_is_byte_identical(lane: str, fmt: str) -> None:
    cases, captures = dev(lane)
    same_for_jobs(["--lane", lane, "--cases", cases, "--transcripts", captures, "--output-format", fmt])


@pytest.mark.parametrize("lane", LANES)
def test_every_case_driven_lane(lane: str) -> None:
    cases, captures = dev(lane)
    out = same_for_jobs(["--lane", lane, "--cases", cases, "--transcripts", captures, "--output-format", "json"], (2,))
    assert json.loads(out)["cases"]


def test_a_case_in_two_files_and_what_belongs_to_no_case(tmp_path: Path) -> None:
    cases, captures = dev("compositionality")
    lines = Path(captures).read_bytes().splitlines(keepends=True)
    a, b = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    a.write_bytes(b"".join(lines[0::2]))
    b.write_bytes(b"".join(lines[1::2]) + b'not json\n{"surface": "x"}\n{"case_id": "NOPE-1"}\n{"case_id": "NOPE-1"}\n')
    out = same_for_jobs(["--lane", "compositionality", "--cases", cases, "--transcripts", str(a), str(b),
                         "--output-format", "json"], (2, 3))
    tail = [(f["code"], f["line"], f["message"]) for f in json.loads(out)["findings"] if f["path"] == str(b)
            and f["line"] > len(lines[1::2])]
    assert tail == [("SL001", len(lines[1::2]) + 1, "invalid JSON: Expecting value"),
                    ("SL015", len(lines[1::2]) + 2, "record without a string `case_id`; joined to no case"),
                    ("SL015", len(lines[1::2]) + 3, "case id `NOPE-1` matches no case in the given case files")]


def test_a_case_missing_from_the_captures(tmp_path: Path) -> None:
    cases, captures = dev("calibration")
    lines = Path(captures).read_bytes().splitlines(keepends=True)
    kept = tmp_path / "captures.jsonl"
    kept.write_bytes(b"".join(line for line in lines if b'"CAL-DEV-003"' not in line))
    out = same_for_jobs(["--lane", "calibration", "--cases", cases, "--transcripts", str(kept), "--output-format",
                         "text"], (2, 5))
    assert "case `CAL-DEV-003` has no captured turn in the transcripts; left out of the metrics" in out


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc for the worker's pid")
def test_a_case_driven_worker_killed_by_sigkill(tmp_path: Path) -> None:
    cases, captures = dev("compositionality")
    rows = [json.loads(x) for x in Path(cases).read_text(encoding="utf-8").splitlines() if x.strip()]
    records = [json.loads(x) for x in Path(captures).read_text(encoding="utf-8").splitlines() if x.strip()]
    case_file, capture_file = tmp_path / "cases.jsonl", tmp_path / "big.jsonl"
    with case_file.open("w", encoding="utf-8") as cf, capture_file.open("w", encoding="utf-8") as tf:
        for copy in range(1000):  # 3,000 cases: each worker reads the file for about half a second
            for row in rows:
                cf.write(json.dumps({**row, "id": f"{row['id']}~{copy}"}) + "\n")
            for rec in records:
                tf.write(json.dumps({**rec, "case_id": f"{rec['case_id']}~{copy}"}) + "\n")
    argv = ["--lane", "compositionality", "--cases", str(case_file), "--transcripts", str(capture_file),
            "--output-format", "json", "--jobs", "2"]
    code, err = kill_a_worker(argv, "big.jsonl", tmp_path)
    told = ("surface-lint: error: the worker reading {} (the cases of part {} of 2) was killed by SIGKILL (out of "
            "memory?); the run is incomplete: run again with fewer --jobs or more memory")
    assert code == 2
    assert err in (told.format(capture_file, 1), told.format(capture_file, 2))
