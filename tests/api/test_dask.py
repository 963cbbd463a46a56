"""The Dask recipe of docs/api.md run on a `LocalCluster` of two worker processes: the JSON
report of the merged partial scores equals `surface-lint --lane`'s, byte for byte."""

from __future__ import annotations

import importlib
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from reporters_support import cli

from surface_lint import api


def _need(module: str) -> object:
    """The dask extra's module; missing, a skip on a developer's machine and a failure in CI
    (`.ci/run` installs the test extra, which holds it: the Dask run must not go unchecked)."""
    try:
        return importlib.import_module(module)
    except ImportError:
        if os.environ.get("CI", "").strip().lower() not in ("", "0", "false", "no"):
            pytest.fail(f"{module} is missing: the test extra installs it (pip install -e '.[test]')", pytrace=False)
        pytest.skip(f"{module} missing: pip install 'surface-lint[dask]'", allow_module_level=True)


dask_bag: Any = _need("dask.bag")
distributed: Any = _need("dask.distributed")


@pytest.fixture(scope="module")
def client() -> Iterator[object]:
    with distributed.LocalCluster(n_workers=2, processes=True, threads_per_worker=1, dashboard_address=None) as c, \
            distributed.Client(c) as client:
        yield client


def score_on_dask(lane: str, cases: list[str], transcripts: list[str], parts: int) -> str:
    linter = api.Linter()
    options = api.ScoreOptions.for_format("json")
    spans = [span for path in transcripts for span in linter.split(path, parts, min_bytes=1)]
    bag = dask_bag.from_sequence(list(enumerate(spans)), npartitions=len(spans))
    scored = bag.map_partitions(lambda items: [linter.score_file(span, lane, key=k, cases=cases, options=options)
                                               for k, span in items])
    whole = scored.fold(api.PartialScore.merge, initial=linter.empty(lane, cases, options)).compute()
    return linter.render(linter.finish(whole), "json")


@pytest.mark.parametrize(("lane", "split"), [("deterministic_fluency", "public_v1"),
                                             ("multi_sentence_response", "public_v1")])
def test_a_local_cluster_gives_the_bytes_of_one_process(client: object, corpus: Path, lane: str, split: str) -> None:
    cases = [str(corpus / "cases" / lane / "public" / "v1" / "cases.jsonl")]
    captures = [str(corpus / "runtime" / "captures" / f"{lane}_{split}.jsonl")]
    one = cli("--lane", lane, "--cases", *cases, "--transcripts", *captures, "--output-format", "json")
    assert one.code in (0, 1), one.err
    assert score_on_dask(lane, cases, captures, 4) == one.out


def test_several_transcripts_on_a_local_cluster(client: object, corpus: Path) -> None:
    records = str(corpus / "surfaces" / "records.jsonl")
    captures = str(corpus / "runtime" / "captures" / "deterministic_fluency_public_v1.jsonl")
    one = cli("--lane", "deterministic_fluency", "--transcripts", records, captures, "--output-format", "json")
    assert score_on_dask("deterministic_fluency", [], [records, captures], 3) == one.out


def score_cases_on_dask(lane: str, cases: list[str], transcripts: list[str], parts: int) -> str:
    """A case-driven lane: part k of `parts` of its cases on a worker, every transcript read there."""
    linter = api.Linter()
    options = api.ScoreOptions.for_format("json")
    bag = dask_bag.from_sequence(range(parts), npartitions=parts)
    scored = bag.map(lambda k: linter.score_cases(transcripts, lane, k, parts, cases, options))
    whole = scored.fold(api.PartialScore.merge, initial=linter.empty(lane, cases, options)).compute()
    return linter.render(linter.finish(whole), "json")


@pytest.mark.parametrize("lane", ["calibration", "compositionality", "symbolic_logic"])
def test_a_case_driven_lane_on_a_local_cluster(client: object, corpus: Path, lane: str) -> None:
    if lane == "symbolic_logic":  # the runtime's captures of its public split (each case run twice)
        cases = [str(corpus / "cases" / lane / "public" / "v1" / "cases.jsonl")]
        captures = [str(corpus / "runtime" / "captures" / f"{lane}_public_v1.jsonl")]
    else:
        cases = [str(corpus / "lanes" / lane / "cases" / "dev" / "cases.jsonl")]
        captures = [str(corpus / "lanes" / lane / "captures" / "dev.jsonl")]
    one = cli("--lane", lane, "--cases", *cases, "--transcripts", *captures, "--output-format", "json")
    assert one.code in (0, 1), one.err
    assert score_cases_on_dask(lane, cases, captures, 3) == one.out


def test_the_dask_extra_and_the_test_extra_install_it() -> None:
    import tomllib

    root = Path(__file__).resolve().parents[2]
    extras = tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8"))["project"]["optional-dependencies"]
    assert extras["dask"] == ["dask[bag]>=2024.1", "distributed>=2024.1"]
    assert set(extras["dask"]) <= set(extras["test"])  # .ci/run installs '.[test]': the Dask test runs in CI
