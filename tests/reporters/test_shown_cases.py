"""Markdown and HTML lane reports scored for what they show (`Engine.score`'s `shown`: every
case counted in the caseless fold, a row only for the cases shown) are byte for byte the
reports of the general path (a row per case, counted by the writer): notes-only cases, a
predicate whose severity is off, failing cases past the per-predicate quota, a case id that
repeats and a lane report read back (both scored again on the general path)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from cli_support import LANE, cli

from surface_lint.engine.score import LaneScorer
from surface_lint.engine.views import PerPredicateQuota

PASS = "Lamp one gives light."
NO_STOP = "Lamp three gives light"  # SL103 complete_punctuation (warning)
NOTE = "Doubt is not sure: meta.mental.state; meta.mental; cognition.epistemic."  # SL105 (information) only
BOTH = "A river carries ... to the sea"  # SL101 no_placeholder (error) and SL103


def placeholder(i: int) -> str:  # SL101: every third one the same surface (the evaluation memo's hits)
    return "A river carries ... to the sea." if i % 3 == 0 else f"A river carries ... to sea {i}."


ROWS = [
    {"case_id": "ok1", "surface": PASS},
    {"case_id": "warn1", "surface": NO_STOP},
    {"case_id": "note1", "surface": NOTE},
    *({"case_id": f"ph{i:02d}", "surface": placeholder(i)} for i in range(1, 24)),  # 23: 3 past the quota of 20
    {"case_id": "both1", "surface": BOTH},
]

# The second record of `a` replaces its first: the cases are b, a, c (a at its last record's place).
REPEATED = [
    {"case_id": "a", "surface": PASS},
    {"case_id": "b", "surface": "A lamp ... glows."},
    {"case_id": "a", "surface": NO_STOP},
    {"case_id": "c", "surface": "A cup <pending> holds tea."},
]


def _write(path: Path, rows: list[dict[str, str]]) -> None:
    path.write_text("".join(json.dumps({**r, "grounding_source": "none"}) + "\n" for r in rows), "utf-8")


@pytest.fixture
def reads(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[tuple[bool, bool]]]:
    """Each scorer read's (folded for `shown`, had to fall back)."""
    seen: list[tuple[bool, bool]] = []
    read = LaneScorer.read

    def spy(self: LaneScorer, *args: object, **kwargs: object) -> None:
        read(self, *args, **kwargs)  # type: ignore[arg-type]
        seen.append((self._shown_folded, self.shown_missed))

    monkeypatch.setattr(LaneScorer, "read", spy)
    yield seen


def _report(tmp_path: Path, fmt: str, source: str, monkeypatch: pytest.MonkeyPatch, general: bool = False,
            *extra: str) -> str:
    out = tmp_path / f"out.{fmt}.{'general' if general else 'shown'}"
    with monkeypatch.context() as patch:
        if general:  # no probe: the general path, a row per case
            patch.setattr(LaneScorer, "_shown_probe", lambda self: None)
        run = cli("--lane", LANE, "--transcripts", source, "--output-format", fmt, "-o", str(out), *extra,
                  cwd=tmp_path)
    assert run.code == 1, run.err
    return out.read_text("utf-8")


def _both(tmp_path: Path, fmt: str, source: str, monkeypatch: pytest.MonkeyPatch, reads: list[tuple[bool, bool]],
          expect_reads: list[tuple[bool, bool]]) -> str:
    fast = _report(tmp_path, fmt, source, monkeypatch)
    assert reads == expect_reads
    reads.clear()
    slow = _report(tmp_path, fmt, source, monkeypatch, True)
    assert reads == [(False, False)]
    assert fast == slow
    return fast


def _meta(html: str) -> str:
    return next(line for line in html.splitlines() if line.startswith('<p class="meta">profile'))


def _anchors(html: str) -> list[str]:
    return [line.split('id="', 1)[1].split('"', 1)[0] for line in html.splitlines()
            if line.startswith("<article class=\"case")]


def test_markdown_counts_notes_and_the_quota_as_the_general_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                  reads: list[tuple[bool, bool]]) -> None:
    _write(tmp_path / "t.jsonl", ROWS)
    lines = _both(tmp_path, "markdown", "t.jsonl", monkeypatch, reads, [(True, False)]).splitlines()
    assert lines[2] == "Profile `contract` · thresholds `v1` · 27 case(s) · 25 failing · 1 with notes only"
    rows = [line.split(" | ", 1)[0] for line in lines if line.startswith("| `")]
    assert rows[-22:] == ["| `warn1`", *(f"| `ph{i:02d}`" for i in range(1, 21)), "| `both1`"]
    assert ("_… 3 more failing case(s) of `no_placeholder` not shown (the first 20 of each predicate are listed). "
            "The JSON, SARIF or HTML output lists them all._") in lines


def test_html_counts_groups_articles_and_the_matrix_as_the_general_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                        reads: list[tuple[bool, bool]]) -> None:
    _write(tmp_path / "t.jsonl", ROWS)
    html = _both(tmp_path, "html", "t.jsonl", monkeypatch, reads, [(True, False)])
    assert _meta(html) == ('<p class="meta">profile <code>contract</code> · thresholds <code>v1</code> · '
                           "27 case(s) · 25 failing · 1 with notes only</p>")
    # Anchored by the case's place among all cases: warn1 is the 2nd, note1 the 3rd, both1 the 27th.
    assert _anchors(html) == ["case-2", "case-3", *(f"case-{i}" for i in range(4, 24)), "case-27"]
    assert html.count('<tr data-case="') == 27  # the matrix: every case (fewer than LIST_LIMIT)
    assert '<option value="uncategorised">' in html


@pytest.mark.parametrize("fmt", ["markdown", "html"])
def test_a_predicate_whose_severity_is_off_leaves_notes_as_the_general_path(
        tmp_path: Path, fmt: str, monkeypatch: pytest.MonkeyPatch, reads: list[tuple[bool, bool]]) -> None:
    _write(tmp_path / "t.jsonl", ROWS)
    (tmp_path / "surface-lint.toml").write_text('[severity]\nSL103 = "off"\n', "utf-8")
    out = _both(tmp_path, fmt, "t.jsonl", monkeypatch, reads, [(True, False)])
    if fmt == "markdown":  # warn1 fails on an off predicate: a note; both1 is shown no more (quota)
        lines = out.splitlines()
        assert lines[2] == "Profile `contract` · thresholds `v1` · 27 case(s) · 24 failing · 2 with notes only"
        assert [line.split(" | ", 1)[0] for line in lines if line.startswith("| `")][-20:] == [
            f"| `ph{i:02d}`" for i in range(1, 21)]
        assert any(line.startswith("_… 4 more failing case(s) of `no_placeholder` not shown") for line in lines)
    else:  # an article by any failure: warn1's and both1's complete_punctuation (off) is shown
        assert _meta(out).endswith(" · 27 case(s) · 24 failing · 2 with notes only</p>")
        assert _anchors(out) == ["case-2", "case-3", *(f"case-{i}" for i in range(4, 24)), "case-27"]
        assert "<b>complete_punctuation</b> <code>SL103</code> · off — " in out


@pytest.mark.parametrize("fmt", ["markdown", "html"])
def test_a_repeated_case_id_is_scored_again_on_the_general_path(tmp_path: Path, fmt: str,
                                                                monkeypatch: pytest.MonkeyPatch,
                                                                reads: list[tuple[bool, bool]]) -> None:
    _write(tmp_path / "t.jsonl", REPEATED)
    out = _both(tmp_path, fmt, "t.jsonl", monkeypatch, reads, [(True, True), (False, False)])
    if fmt == "markdown":
        lines = out.splitlines()
        assert lines[2] == "Profile `contract` · thresholds `v1` · 3 case(s) · 3 failing · 0 with notes only"
        assert [line.split(" | ", 1)[0] for line in lines if line.startswith("| `")][-3:] == [
            "| `b`", "| `a`", "| `c`"]
    else:
        assert _meta(out).endswith(" · 3 case(s) · 3 failing · 0 with notes only</p>")
        assert _anchors(out) == ["case-1", "case-2", "case-3"]
        assert [line.split('"', 2)[1] for line in out.splitlines() if line.startswith('<tr data-case="')] == [
            "b", "a", "c"]


@pytest.mark.parametrize("fmt", ["markdown", "html"])
def test_a_lane_report_read_back_is_scored_again_on_the_general_path(tmp_path: Path, fmt: str,
                                                                     monkeypatch: pytest.MonkeyPatch,
                                                                     reads: list[tuple[bool, bool]]) -> None:
    _write(tmp_path / "t.jsonl", ROWS[:4])
    run = cli("--lane", LANE, "--transcripts", "t.jsonl", "--output-format", "json", "-o", "report.json",
              cwd=tmp_path)
    assert run.code == 1, run.err
    reads.clear()
    out = _both(tmp_path, fmt, "report.json", monkeypatch, reads, [(True, True), (False, False)])
    counts = " · 4 case(s) · 2 failing · 1 with notes only"
    assert (out.splitlines()[2].endswith(counts) if fmt == "markdown" else _meta(out).endswith(counts + "</p>"))


def test_select_and_baseline_runs_keep_every_row(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                 reads: list[tuple[bool, bool]]) -> None:
    _write(tmp_path / "t.jsonl", ROWS)
    _report(tmp_path, "markdown", "t.jsonl", monkeypatch, False, "--select", "SL101")
    _report(tmp_path, "html", "t.jsonl", monkeypatch, False, "--github-summary")
    assert reads == [(False, False), (False, False)]


def test_the_quota_admits_a_case_while_one_of_its_names_is_under_the_limit() -> None:
    quota = PerPredicateQuota(2)
    asked = (["a"], ["a", "b"], ["a"], ["a", "b"], ["b"], ["a", "b"])
    assert [quota.admit(names) for names in asked] == [True, True, False, True, False, False]
    assert quota.shown == {"a": 3, "b": 2}
    assert quota.hidden == {"a": 2, "b": 2}
    assert quota.notes() == [("a", 2), ("b", 2)]


@pytest.mark.parametrize("fmt", ["markdown", "html"])
def test_input_problems_and_unscored_turns_are_reported_as_on_the_general_path(
        tmp_path: Path, fmt: str, monkeypatch: pytest.MonkeyPatch, reads: list[tuple[bool, bool]]) -> None:
    _write(tmp_path / "t.jsonl", ROWS[:4])
    with (tmp_path / "t.jsonl").open("a", encoding="utf-8") as fh:
        fh.write('{"case_id": "broken", "surface": \n')  # not JSON: SL001
        fh.write(json.dumps({"surface": "No id here."}) + "\n")  # no case id: not scored
        fh.write(json.dumps({"case_id": "off", "surface": "Not scored.", "scored": False}) + "\n")
    out = _both(tmp_path, fmt, "t.jsonl", monkeypatch, reads, [(True, False)])
    counts = " · 4 case(s) · 2 failing · 1 with notes only"
    if fmt == "markdown":
        assert out.splitlines()[2].endswith(counts)
    else:
        assert _meta(out).endswith(counts + "</p>")
        other = out[out.index('<section id="findings"><h2>Other findings</h2>'):]
        assert other.count("<tr><td") == 1 and "<code>SL001</code>" in other
