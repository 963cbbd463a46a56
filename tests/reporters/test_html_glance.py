"""The HTML report at a glance: pass-rate cards first, every per-category metric as an inline
SVG bar chart, the failing cases with their surfaces; on our fixture and on the real corpus
(grammatical_coverage holdouts v1, calibration dev), rendered in headless Chromium, which
also takes the README's screenshots (test-artifacts/, copied to docs/ by hand).
"""

from __future__ import annotations

import os
import re
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from reporters_support import ARTIFACTS, ROOT, cli, lane_run

from surface_lint.reporters.html import category_svg

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]


def _cards(html: str) -> str:
    found = re.search(r'<section class="cards" id="cards">\n(.*?)\n</section>', html, re.S)
    assert found is not None
    return found.group(1)


def test_cards_come_first_with_headline_thresholds_and_cases_failing() -> None:
    html = lane_run("html").out
    # Before the metric table: the cards are what a reader sees first.
    assert html.index('id="cards"') < html.index('id="metrics"')
    assert _cards(html).split("\n") == [
        '<div class="card none"><div class="label">Headline · <code>expected_predicates_pass_rate</code></div>'
        '<div class="big">0.5000</div><div class="sub">no threshold <svg class="metric-plot" '
        'data-metric="expected_predicates_pass_rate" width="248" height="22" viewBox="-4 0 248 22" role="img" '
        'aria-label="expected_predicates_pass_rate 0.5000"><rect class="track" x="0" y="5" width="240" height="12"/>'
        '<rect class="bar info" x="0" y="5" width="120.0" height="12"/></svg></div></div>',
        '<div class="card fail"><div class="label">Thresholds · <code>v1</code></div><div class="big">1 of 3 pass</div>'
        '<div class="sub">failing: <code>no_placeholder_rate</code>, <code>complete_punctuation_rate</code></div></div>',
        '<div class="card fail"><div class="label">Cases failing</div><div class="big">3 of 6</div>'
        '<div class="sub"><a href="#failing">listed below</a> · 1 with notes only</div></div>',
    ]
    # A lane without per-category metrics has no chart section.
    assert 'id="categories"' not in html


def test_category_chart_of_rates_and_of_counts() -> None:
    assert category_svg("by_construction", {"C01": 1.0, "C<2>": 0.25}) == (
        '<svg class="category-chart" data-metric="by_construction" width="540" height="44" viewBox="0 0 540 44" '
        'role="img" aria-label="by_construction per category, 0 to 1">'
        '<g class="row" data-category="C01"><text class="label" x="142" y="16">C01</text>'
        '<rect class="track" x="150" y="5" width="320" height="14"/>'
        '<rect class="bar cat" x="150" y="5" width="320.0" height="14"/>'
        '<text class="value" x="478" y="16">1.0000</text></g>'
        '<g class="row" data-category="C&lt;2&gt;"><text class="label" x="142" y="36">C&lt;2&gt;</text>'
        '<rect class="track" x="150" y="25" width="320" height="14"/>'
        '<rect class="bar cat" x="150" y="25" width="80.0" height="14"/>'
        '<text class="value" x="478" y="36">0.2500</text></g></svg>')
    # Counts: scaled to the largest.
    counts = category_svg("class_counts", {"a": 4, "b": 1})
    assert 'aria-label="class_counts per category, 0 to 4"' in counts
    assert re.findall(r'class="bar cat" x="150" y="\d+" width="([0-9.]+)"', counts) == ["320.0", "80.0"]
    # Anything but an object of numbers is not a per-category metric.
    assert category_svg("m", {"a": "x"}) == category_svg("m", {}) == category_svg("m", 0.5) == ""
    assert category_svg("m", {"a": True}) == ""


def _lane_html(corpus: Path, lane: str, split: str, capture: str) -> tuple[int, str]:
    # Relative to the repository root (where `cli` runs): the report names no machine path.
    root = Path(os.path.relpath(corpus, ROOT)) / "lanes" / lane
    run = cli("--lane", lane, "--cases", str(root / "cases" / split / "cases.jsonl"),
              "--transcripts", str(root / "captures" / f"{capture}.jsonl"), "--output-format", "html")
    return run.code, run.out


def test_grammatical_coverage_holdouts_chart_every_construction(corpus: Path) -> None:
    code, html = _lane_html(corpus, "grammatical_coverage", "holdouts/v1", "holdouts_v1")
    assert code == 0
    assert _cards(html).split("\n")[1:] == [
        '<div class="card none"><div class="label">Thresholds</div><div class="big">none checked</div>'
        '<div class="sub">the lane has no threshold set</div></div>',
        '<div class="card fail"><div class="label">Cases failing</div><div class="big">7 of 52</div>'
        '<div class="sub"><a href="#failing">listed below</a></div></div>',
    ]
    assert '<td class="num"><a href="#cat-by_construction">13 categories, charted below</a></td>' in html
    rows = re.findall(r'<g class="row" data-category="(C\d\d)">.*?<text class="value" [^>]*>([0-9.]+)</text></g>', html)
    assert rows == [("C01", "1.0000"), ("C02", "1.0000"), ("C03", "1.0000"), ("C04", "1.0000"),
                    ("C05", "1.0000"), ("C06", "1.0000"), ("C07", "0.0000"), ("C08", "0.2500"),
                    ("C09", "1.0000"), ("C10", "1.0000"), ("C11", "1.0000"), ("C12", "1.0000"),
                    ("C13", "1.0000")]
    # Every failing case is listed with its surface.
    assert len(re.findall(r'<article class="case fail"', html)) == 7
    assert len(re.findall(r'<article class="case fail"[^>]*>.*?<div class="surface">', html)) == 7
    # No script in a chart.
    charts = re.findall(r'<svg class="category-chart".*?</svg>', html)
    assert len(charts) == 1 and "<script" not in charts[0]


def test_calibration_dev_cards(corpus: Path) -> None:
    code, html = _lane_html(corpus, "calibration", "dev", "dev")
    assert code == 1
    cards = _cards(html).split("\n")
    assert cards[0].startswith('<div class="card pass"><div class="label">Headline · <code>overall_accuracy</code>'
                               '</div><div class="big">0.9167</div><div class="sub">threshold &gt;= 0.8 · pass <svg')
    assert cards[1:] == [
        '<div class="card fail"><div class="label">Thresholds · <code>overall_pass</code></div>'
        '<div class="big">3 of 4 pass</div><div class="sub">failing: <code>correction_proposed_accuracy</code></div></div>',
        '<div class="card fail"><div class="label">Cases failing</div><div class="big">1 of 12</div>'
        '<div class="sub"><a href="#failing">listed below</a></div></div>',
    ]
    rows = re.findall(r'<g class="row" data-category="([a-z_]+)">.*?<text class="value" [^>]*>(\d+)</text></g>', html)
    assert rows == [("coherent", "4"), ("correction_proposed", "4"), ("no_grounding", "4")]


# --- in a real browser: what a reader sees, and the README's screenshots --------------------


@pytest.fixture(scope="module")
def page() -> Iterator[Any]:
    sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is in the test extra")
    if not Path(CHROMIUM).exists():
        pytest.skip(f"no Chromium at {CHROMIUM} (Debian package `chromium`)")
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        requests: list[str] = []
        page.on("request", lambda r: requests.append(r.url))
        page.requests = requests
        yield page
        browser.close()


def _render(page: Any, html: str, name: str) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    path = ARTIFACTS / f"{name}.html"
    path.write_text(html, "utf-8")
    page.requests.clear()
    page.goto(path.as_uri())
    assert page.requests == [path.as_uri()]  # nothing fetched


def test_corpus_reports_render_at_a_glance(page: Any, corpus: Path) -> None:
    _, html = _lane_html(corpus, "grammatical_coverage", "holdouts/v1", "holdouts_v1")
    _render(page, html, "html-grammatical-coverage-holdouts")
    cards = page.locator("#cards .card")
    assert cards.count() == 3
    # The three cards sit side by side in the first screen.
    boxes = [cards.nth(i).bounding_box() for i in range(3)]
    assert all(b is not None and b["y"] < 200 and b["width"] > 300 for b in boxes)
    assert page.locator("#cards .card").nth(2).locator(".big").inner_text() == "7 of 52"
    bars = page.locator('svg.category-chart[data-metric="by_construction"] rect.bar')
    assert bars.count() == 13
    widths = [bars.nth(i).bounding_box()["width"] for i in range(13)]
    assert widths[6] == 0 and widths[7] == pytest.approx(80.0) and widths[0] == pytest.approx(320.0)
    assert page.locator("article.case .surface").count() == 7
    page.screenshot(path=str(ARTIFACTS / "html-grammatical-coverage-holdouts.png"))
    # Narrow: the cards stack and the chart shrinks to the window (the tables scroll).
    page.set_viewport_size({"width": 480, "height": 900})
    narrow = [cards.nth(i).bounding_box() for i in range(3)]
    assert all(b is not None and b["x"] + b["width"] <= 480 for b in narrow)
    assert narrow[0]["y"] < narrow[1]["y"] < narrow[2]["y"]
    chart = page.locator('svg.category-chart[data-metric="by_construction"]').bounding_box()
    assert chart is not None and chart["x"] + chart["width"] <= 480
    page.set_viewport_size({"width": 1280, "height": 900})

    _, html = _lane_html(corpus, "calibration", "dev", "dev")
    _render(page, html, "html-calibration-dev")
    assert page.locator("#cards .card.fail").count() == 2
    assert page.locator('svg.category-chart[data-metric="class_counts"] rect.bar').count() == 3
    page.screenshot(path=str(ARTIFACTS / "html-calibration-dev.png"), full_page=True)
