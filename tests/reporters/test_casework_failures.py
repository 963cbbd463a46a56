"""A failing case of every case-driven shipped lane is shown in every output format.

The inputs are the corpus's real dev splits (../shared/corpus/lanes). calibration,
compositionality and inference_closure fail cases there already (their runners' reports say
`passed` false); for the other lanes the first case's captured surfaces are replaced by `zzz`
(a surface no rubric accepts), so exactly that case fails.
"""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest

from surface_lint.cli.main import main as cli_main

LANES = Path(__file__).resolve().parents[2].parent / "shared" / "corpus" / "lanes"
FORMATS = ("text", "json", "json-lines", "sarif", "junit", "github", "markdown", "html")

# lane -> the dev cases that fail (the runner's own, or the one broken here) and whether the
# first case's surfaces are broken.
FAILING: dict[str, tuple[tuple[str, ...], bool]] = {
    "calibration": (("CAL-DEV-010",), False),
    "compositionality": (("CMP-DEV-001", "CMP-DEV-002"), False),
    "inference_closure": (("INF-DEV-001", "INF-DEV-003", "INF-DEV-004", "INF-DEV-005"), False),
    "classical_literature_ood": (("CLO-PUB-DEV_C01",), True),
    "elementary_mathematics_ood": (("EMO-PUB-DEV_C01",), True),
    "english_fluency_ood": (("EFO-DEV_C01",), True),
    "foundational_physics_ood": (("FPO-PUB-DEV_C01",), True),
    "discourse_paragraph": (("DP-DEV_001",), True),
    "fabrication_control": (("fab_dev_a1",), True),
    "grammatical_coverage": (("gram_C01_001",), True),
    "conversational_thread_coherence": (("dev_thread_oov_recovery_001",), True),
    "self_consistency_over_time": (("dev_consistency_long_thread_001",), True),
}


@pytest.fixture(scope="module")
def lanes_dir() -> Path:
    if not LANES.is_dir():
        pytest.fail(f"the lane corpus is not at {LANES}")
    return LANES


def _inputs(lanes_dir: Path, lane: str, tmp: Path) -> tuple[Path, Path]:
    folder = lanes_dir / lane
    flat = folder / "cases" / "cases" / "dev.jsonl"
    cases = flat if flat.is_file() else folder / "cases" / "dev" / "cases.jsonl"
    captures = folder / "captures" / "dev.jsonl"
    if not FAILING[lane][1]:
        return cases, captures
    rows = [json.loads(x) for x in captures.read_text(encoding="utf-8").splitlines() if x.strip()]
    first = rows[0]["case_id"]
    broken = tmp / f"{lane}.dev.jsonl"
    with broken.open("w", encoding="utf-8") as fh:
        for row in rows:
            if row.get("case_id") == first:
                row = {k: ("zzz" if k in ("surface", "articulation_surface", "walk_surface") and isinstance(v, str) else v)
                       for k, v in row.items()}
            fh.write(json.dumps(row, ensure_ascii=False) + "\n")
    return cases, broken


def _run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    code = cli_main(list(args))
    return code, capsys.readouterr().out


def _failing_ids(fmt: str, out: str) -> set[str]:
    """The case ids each format shows as failing, read the way a person or a CI tool reads it."""
    if fmt == "json":
        return {f["record_id"] for f in json.loads(out)["findings"] if f["record_id"]}
    if fmt == "json-lines":
        rows = [json.loads(x) for x in out.splitlines()]
        return {r["case_id"] for r in rows if r.get("type") == "case" and r.get("status") == "fail"}
    if fmt == "sarif":
        return {r["properties"]["caseId"] for r in json.loads(out)["runs"][0]["results"]}
    if fmt == "junit":
        root = ET.fromstring(out)
        return {tc.get("name", "") for tc in root.iter("testcase") if tc.find("failure") is not None
                and not (tc.get("classname") or "").endswith(".thresholds")}
    if fmt == "github":
        return {line.split("(case ", 1)[1].split(")", 1)[0] for line in out.splitlines() if "(case " in line}
    if fmt == "markdown":
        section = out.split("### Failing cases", 1)[1] if "### Failing cases" in out else ""
        return {line.split("`")[1] for line in section.splitlines() if line.startswith("| `")}
    if fmt == "html":
        found = set()
        for chunk in out.split('data-case="')[1:]:
            case_id, rest = chunk.split('"', 1)
            if 'data-status="fail"' in rest.split(">", 1)[0]:
                found.add(case_id)
        return found
    raise AssertionError(fmt)


@pytest.mark.parametrize("lane", sorted(FAILING))
@pytest.mark.parametrize("fmt", [f for f in FORMATS if f != "text"])
def test_a_failing_case_is_shown_in_every_format(lanes_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                 lane: str, fmt: str) -> None:
    cases, captures = _inputs(lanes_dir, lane, tmp_path)
    _, out = _run(capsys, "--lane", lane, "--profile", "reference", "--cases", str(cases),
                  "--transcripts", str(captures), "--output-format", fmt)
    assert _failing_ids(fmt, out) == set(FAILING[lane][0])


@pytest.mark.parametrize("lane", sorted(FAILING))
def test_text_show_lists_each_failing_case_at_its_capture_line(lanes_dir: Path, tmp_path: Path,
                                                              capsys: pytest.CaptureFixture[str], lane: str) -> None:
    cases, captures = _inputs(lanes_dir, lane, tmp_path)
    _, out = _run(capsys, "--lane", lane, "--profile", "reference", "--cases", str(cases),
                  "--transcripts", str(captures), "--show", "20")
    assert f"failing cases: {len(FAILING[lane][0])}" in out
    _, data = _run(capsys, "--lane", lane, "--profile", "reference", "--cases", str(cases),
                   "--transcripts", str(captures), "--output-format", "json")
    findings: list[dict[str, Any]] = json.loads(data)["findings"]
    shown = [line.strip() for line in out.splitlines() if line.startswith(f"  {captures}:")]
    assert shown == [f"{captures}:{f['line']}:{f['column']}: {f['code']} [{f['severity']}] {f['message']}"
                     for f in findings if f["record_id"] in FAILING[lane][0]]


def test_calibration_dev_failing_case_exactly(lanes_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cases, captures = _inputs(lanes_dir, "calibration", Path("/nonexistent"))
    base = ("--lane", "calibration", "--cases", str(cases), "--transcripts", str(captures))
    why = ('`passed` is false: inferred_class == case.expected_class (inferred_class = "coherent", '
           'case.expected_class = "correction_proposed")')
    code, out = _run(capsys, *base, "--show", "5")
    assert code == 1
    lines = out.splitlines()
    at = lines.index("failing cases: 1")
    assert lines[at - 1:at + 3] == ["result: FAIL", "failing cases: 1", "case CAL-DEV-010:",
                                      f"  {captures}:19:13: SL018 [warning] {why}"]
    code, out = _run(capsys, *base, "--output-format", "github")
    assert out.splitlines()[2] == (
        f"::warning file={captures},line=19,col=13,endLine=19,endColumn=26,title=SL018 case-check-failed "
        f"(case CAL-DEV-010)::{why}")
    code, out = _run(capsys, *base, "--output-format", "junit")
    root = ET.fromstring(out)
    suite = next(s for s in root.iter("testsuite") if s.get("name") == "calibration.cases")
    assert (suite.get("tests"), suite.get("failures")) == ("12", "1")
    failing = [tc for tc in suite.iter("testcase") if tc.find("failure") is not None]
    assert [(tc.get("name"), tc.get("line"), tc.find("failure").get("message")) for tc in failing] == [  # type: ignore[union-attr]
        ("CAL-DEV-010", "19", "failed: case-check-failed (SL018)")]
    code, out = _run(capsys, *base, "--output-format", "markdown")
    assert "12 case(s) · 1 failing" in out
    assert ("| `CAL-DEV-010` |  | `case-check-failed` (SL018, warning): \\`passed\\` is false: inferred\\_class == "
            'case.expected\\_class (inferred\\_class = "coherent", case.expected\\_class = "correction\\_proposed") |') in out
    code, out = _run(capsys, *base, "--output-format", "json-lines")
    case = next(json.loads(x) for x in out.splitlines() if '"case_id":"CAL-DEV-010"' in x and '"type":"case"' in x)
    assert (case["status"], case["failed_predicates"]) == ("fail", ["case-check-failed"])
