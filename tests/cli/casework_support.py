"""Runs of the case-driven lanes for `diff` and `--baseline` tests: a real scored run of a lane's
dev split (the corpus's cases and captures), and the same captures edited so that one case that
passed fails now (written in the test's own folder; the corpus is only read)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from cli_support import cli

# Every case-driven shipped lane (rules/*.toml with [casework], directly or through `extends`):
# the case of its dev split made to fail, and the capture fields edited on that case's records
# (each field only where the record has it as a string, or as given).
SURFACES = {"surface": "zzz", "articulation_surface": "zzz", "walk_surface": "zzz"}
FLIPS: dict[str, tuple[str, dict[str, Any]]] = {
    "calibration": ("CAL-DEV-001", {"vault_hits": 3}),  # no_grounding inferred as coherent
    "classical_literature_ood": ("CLO-PUB-DEV_C01", SURFACES),
    "compositionality": ("CMP-DEV-003", SURFACES),
    "conversational_thread_coherence": ("dev_thread_oov_recovery_001", SURFACES),
    "discourse_paragraph": ("DP-DEV_001", SURFACES),
    "elementary_mathematics_ood": ("EMO-PUB-DEV_C01", SURFACES),
    "english_fluency_ood": ("EFO-DEV_C01", SURFACES),
    "fabrication_control": ("fab_dev_a1", {"surface": "Alpha means beta."}),  # a fabrication, not a refusal
    "foundational_physics_ood": ("FPO-PUB-DEV_C01", SURFACES),
    "grammatical_coverage": ("gram_C01_001", SURFACES),
    "inference_closure": ("INF-DEV-002", SURFACES),
    "self_consistency_over_time": ("dev_consistency_long_thread_001", SURFACES),
}
CASE_DRIVEN = sorted(FLIPS)


def dev_cases(lanes: Path, lane: str) -> Path:
    if lane == "fabrication_control":
        return lanes / lane / "cases" / "cases" / "dev.jsonl"
    return lanes / lane / "cases" / "dev" / "cases.jsonl"


def dev_captures(lanes: Path, lane: str) -> Path:
    return lanes / lane / "captures" / "dev.jsonl"


def flipped_captures(lanes: Path, lane: str, out: Path) -> Path:
    """The dev captures with FLIPS[lane] applied to its case's records, written to `out`."""
    case_id, edits = FLIPS[lane]
    lines = []
    touched = 0
    for line in dev_captures(lanes, lane).read_text("utf-8").splitlines():
        record = json.loads(line)
        if record.get("case_id") == case_id:
            for key, value in edits.items():
                if key in record and (isinstance(record[key], str) or not isinstance(value, str)):
                    record[key] = value
                    touched += 1
        lines.append(json.dumps(record, ensure_ascii=False))
    assert touched, f"{lane}: no capture of {case_id} was edited"
    out.write_text("".join(line + "\n" for line in lines), "utf-8")
    return out


def scored_report(lanes: Path, lane: str, captures: Path, out: Path) -> Path:
    """`--lane LANE --cases <dev cases> --transcripts CAPTURES --output-format json -o OUT`."""
    run = cli("--lane", lane, "--cases", str(dev_cases(lanes, lane)), "--transcripts", str(captures),
              "--output-format", "json", "-o", str(out))
    assert run.code in (0, 1) and run.err == "", run.err
    return out
