"""The progress bar: drawn on a terminal after a second, never in CI or into a pipe, cleared at the end."""

from __future__ import annotations

import io

import pytest

from surface_lint.cli.progress import Progress, in_ci


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_nothing_before_a_second_then_a_bar_then_cleared(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CI", raising=False)
    term, clock = Terminal(), Clock()
    with Progress(4, stream=term, clock=clock) as bar:
        bar.advance("a.jsonl")
        assert term.getvalue() == ""  # a short run shows nothing
        clock.now += 1.5
        bar.advance("b.jsonl")
        assert term.getvalue() == "\r[############------------] 2/4 files  1.5s\x1b[K"
        clock.now += 0.5
        bar.advance("c.jsonl")
        bar.advance("d.jsonl")
        assert term.getvalue().endswith("\r[########################] 4/4 files  2.0s\x1b[K")
    assert term.getvalue().endswith("\r\x1b[K")  # the line is left empty


@pytest.mark.parametrize("ci,expected", [("true", True), ("1", True), ("false", False), ("", False), ("0", False)])
def test_ci_detection(ci: str, expected: bool) -> None:
    assert in_ci({"CI": ci}) is expected
    assert in_ci({}) is False


def test_never_in_ci_or_into_a_pipe(monkeypatch: pytest.MonkeyPatch) -> None:
    clock = Clock()
    monkeypatch.setenv("CI", "true")
    term = Terminal()
    bar = Progress(2, stream=term, clock=clock)
    clock.now += 5
    bar.advance()
    bar.close()
    assert term.getvalue() == ""
    monkeypatch.delenv("CI")
    pipe = io.StringIO()  # not a terminal
    bar = Progress(2, stream=pipe, clock=clock)
    clock.now += 5
    bar.advance()
    bar.close()
    assert pipe.getvalue() == ""
