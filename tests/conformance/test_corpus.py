"""Conformance with the runtime's own runners, on the real corpus in ../shared/corpus."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from surface_lint.engine import Engine
from surface_lint.rules.kinds.core import Context, Subject
from surface_lint.rules.loader import load_lanes

FLUENCY = ("no_placeholder", "no_provenance_only", "complete_punctuation",
           "finite_predicate_shape", "no_dotted_inventory", "surface_provenance_match")


def _oracle(corpus: Path) -> list[dict]:
    rows = [json.loads(line) for line in (corpus / "surfaces" / "oracle.jsonl").open(encoding="utf-8")]
    assert len(rows) == 867
    return rows


@pytest.fixture(params=["stdlib-fast-path", "re2-long-text-path"])
def pattern_path(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Shipped patterns run on `re` for short text and on their exact RE2 translation otherwise: test both."""
    if request.param == "re2-long-text-path":
        import surface_lint.rules.patterns as patterns

        monkeypatch.setattr(patterns, "FAST_PATH_MAX_CHARS", -1)
    return str(request.param)


def test_reference_profile_reproduces_every_oracle_verdict(corpus: Path, pattern_path: str) -> None:
    lanes = load_lanes("reference")
    fluency = lanes.get("deterministic_fluency")
    multi = lanes.get("multi_sentence_response")
    assert fluency is not None and multi is not None
    mismatches = []
    for row in _oracle(corpus):
        subject = Subject(surface=row["surface"], grounding=row["grounding_used"])
        ctx = Context(subject, fluency.analysis)
        got = {p.name: p.evaluate(ctx).passed for p in fluency.predicates}
        if got != row["fluency"]:
            mismatches.append(("fluency", row["surface"], got, row["fluency"]))
        mctx = Context(subject, multi.analysis)
        analysis = mctx.analysis
        long_enough = multi.predicate("each_sentence_>=_4_tokens")
        connective = multi.predicate("connective_present")
        assert long_enough is not None and connective is not None
        features = {
            "stripped": analysis.stripped,
            "sentences": [s for s, _ in analysis.sentences],
            "sentence_count": len(analysis.sentences),
            "each_sentence_long_enough": long_enough.evaluate(mctx).passed,
            "connective_present": connective.evaluate(mctx).passed,
        }
        if features != row["multi"]:
            mismatches.append(("multi", row["surface"], features, row["multi"]))
        # Every sentence's offset points at its own characters in the surface.
        for sentence, offset in analysis.sentences:
            assert row["surface"][offset : offset + len(sentence)] == sentence
    assert mismatches == []


def _is_bare_disclosure(surface: str) -> bool:
    """Independent of the rules file: lemma — X-grounded (pack): atoms; atoms. trailer."""
    head, sep, rest = surface.partition(" — ")
    if not sep or not head.replace("_", " ").replace(" ", "").isalpha() or head != head.lower():
        return False
    if not (rest.startswith("pack-grounded (") or rest.startswith("teaching-grounded (")):
        return False
    _, sep, body = rest.partition("): ")
    if not sep:
        return False
    for trailer in (" No session evidence yet.", " No prior turn in this session to correct yet."):
        if body.endswith(trailer):
            atoms = body[: -len(trailer)]
            break
    else:
        return False
    if not atoms.endswith("."):
        return False
    parts = atoms[:-1].split("; ")
    return all(p and all(seg.replace("_", "").isalnum() and seg == seg.lower() for seg in p.split(".")) for p in parts)


def test_contract_profile_catches_the_real_bare_disclosures(corpus: Path) -> None:
    contract = load_lanes("contract").get("deterministic_fluency")
    reference = load_lanes("reference").get("deterministic_fluency")
    assert contract is not None and reference is not None
    spec_c = contract.predicate("no_provenance_only")
    spec_r = reference.predicate("no_provenance_only")
    assert spec_c is not None and spec_r is not None
    bare = []
    differ = []
    for row in _oracle(corpus):
        subject = Subject(surface=row["surface"], grounding=row["grounding_used"])
        c = spec_c.evaluate(Context(subject, contract.analysis)).passed
        r = spec_r.evaluate(Context(subject, reference.analysis)).passed
        assert r is True  # the runner's pattern never fires on a real surface
        if _is_bare_disclosure(row["surface"].strip()):
            bare.append(row["surface"])
            assert c is False, row["surface"]
        if c != r:
            differ.append(row["surface"])
    # The only verdicts that differ between profiles are the bare disclosures (README lists them).
    assert sorted(differ) == sorted(bare)
    assert len(differ) == 12


def _runtime_pairs(corpus: Path) -> list[tuple[Path, Path, Path]]:
    out = []
    for report in sorted((corpus / "runtime" / "reports").glob("*.json")):
        meta = json.loads(report.read_text(encoding="utf-8"))
        lane, split, version = meta["lane"], meta["split"], meta["version"]
        folder = corpus / "cases" / lane / split
        cases = folder / "cases.jsonl" if split == "dev" else folder / version / "cases.jsonl"
        out.append((report, corpus / "runtime" / "captures" / report.name.replace(".json", ".jsonl"), cases))
    assert len(out) == 10
    return out


@pytest.mark.parametrize("index", range(10))
def test_runtime_reports_reproduce_as_reports_and_from_captures(corpus: Path, index: int) -> None:
    report, captures, cases = _runtime_pairs(corpus)[index]
    stored = json.loads(report.read_text(encoding="utf-8"))
    engine = Engine(profile="reference")
    as_report = engine.score(None, [], [str(report)])
    from_captures = engine.score(stored["lane"], [str(cases)], [str(captures)])
    for result in (as_report, from_captures):
        runner_metrics = {k: v for k, v in result.metrics.items() if k in stored["metrics"]}
        assert runner_metrics == stored["metrics"]
        assert set(stored["metrics"]) <= set(result.metrics)
        assert [o.details for o in result.outcomes] == stored["cases"]
        assert result.profile == "reference"
    assert from_captures.missing_transcripts == []
    assert from_captures.unknown_cases == []


def test_committed_symbolic_reports_reproduce(corpus: Path) -> None:
    engine = Engine(profile="reference")
    checked = 0
    for report in sorted((corpus / "reports" / "symbolic_logic").glob("*.json")):
        stored = json.loads(report.read_text(encoding="utf-8"))
        cases = stored.get("cases") or stored.get("case_details")
        if not cases:
            continue  # v1_structural_zero.json: a baseline with no cases
        result = engine.score(None, [], [str(report)])
        assert result.metrics == stored["metrics"], report.name
        assert [o.details for o in result.outcomes] == cases
        checked += 1
    assert checked == 6


def test_real_case_files_lint_without_false_findings(corpus: Path) -> None:
    """The only findings on the real case files are the two real holdout leaks."""
    engine = Engine()
    found = []
    files = sorted((corpus / "cases").rglob("cases.jsonl"))
    assert len(files) == 10
    for path in files:
        result = engine.check_bytes(str(path), path.read_bytes())
        found.extend((Path(f.path).relative_to(corpus / "cases").as_posix(), f.location.line, f.code)
                     for f in result.findings)
    assert sorted(found) == [
        ("multi_sentence_response/public/v1/cases.jsonl", 9, "SL006"),
        ("symbolic_logic/public/v2/cases.jsonl", 14, "SL006"),
    ]


def test_telemetry_lines_without_surface_are_skipped(corpus: Path) -> None:
    engine = Engine()
    path = corpus / "runtime" / "telemetry" / "deterministic_fluency_dev.jsonl"
    result = engine.check_bytes(str(path), path.read_bytes())
    s = result.stats
    assert (s.lines, s.records, s.errors, s.blank, s.skipped) == (3, 2, 0, 0, 1)
    assert s.lines == s.records + s.errors + s.blank + s.skipped
    assert result.kind == "telemetry"
    assert len(result.records) == 2
