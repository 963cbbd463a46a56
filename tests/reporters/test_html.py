"""The HTML report: one self-contained, deterministic file; rendered in headless Chromium.

The browser test uses the `playwright` package with the system Chromium (/usr/bin/chromium);
it never downloads a browser. It saves screenshots into test-artifacts/ (gitignored).
"""

from __future__ import annotations

import re
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from reporters_support import ARTIFACTS, CASES, LANE, NEW, OLD, check_run, cli, lane_run

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]


def test_lane_html_is_deterministic_and_self_contained() -> None:
    first, again = lane_run("html"), lane_run("html")
    assert first.code == 1
    assert first.out == again.out
    html = first.out
    assert html.startswith("<!DOCTYPE html>\n<html lang=\"en\">")
    # Nothing is fetched: no external URL, no stylesheet or script file, no image file.
    assert not re.search(r"https?://", html)
    assert not re.search(r"<(link|img|iframe)\b", html)
    assert not re.search(r'\b(src|href)="(?!#)', html)
    assert "default-src 'none'" in html


def test_lane_html_content() -> None:
    html = lane_run("html").out
    # One plot per rate (7 of the 8 metrics; `cases` is a count) and the headline card's, a
    # threshold line on the three checked.
    assert len(re.findall(r'<svg class="metric-plot"', html)) == 8
    assert len(re.findall(r'<line class="threshold"', html)) == 3
    assert ('<svg class="metric-plot" data-metric="no_placeholder_rate" width="248" height="22" viewBox="-4 0 248 22"'
            ' role="img" aria-label="no_placeholder_rate 0.6667, threshold &gt;= 1">'
            '<rect class="track" x="0" y="5" width="240" height="12"/>'
            '<rect class="bar fail" x="0" y="5" width="160.0" height="12"/>'
            '<line class="threshold" x1="240.0" x2="240.0" y1="1" y2="21"/></svg>') in html
    # The matrix: a row per case, a column per reported predicate.
    assert len(re.findall(r"<tr data-case=", html)) == 6
    assert html.count('<th class="pred"') == 6
    assert ('<tr data-case="flu_003" data-group="disclosure" data-failed="no_provenance_only no_dotted_inventory"'
            ' data-status="note">') in html
    # Failing characters are marked in the decoded surface (escaped for HTML).
    assert ('<div class="surface">A river carries <mark data-predicates="no_placeholder" title="no_placeholder">'
            "...</mark> to the sea. pack-grounded (en_demo_nature_v1).</div>") in html
    assert ('Café 🌊 <mark data-predicates="no_placeholder" title="no_placeholder">&lt;pending&gt;</mark>'
            " | a café serves coffee.") in html
    assert 'A lamp gives light in a dark roo<mark data-predicates="complete_punctuation"' in html
    # Overlapping spans of two predicates: the overlap names both.
    assert '<mark data-predicates="no_provenance_only no_dotted_inventory"' in html
    assert "<h2>Failing surfaces (4)</h2>" in html  # three failing, one with notes only
    assert "<h2>Cases without a transcript (1)</h2>" in html


def test_check_and_diff_html_are_deterministic() -> None:
    assert check_run("html").out == check_run("html").out
    argv = ("diff", OLD, NEW, "--lane", LANE, "--cases", CASES, "--output-format", "html")
    first = cli(*argv)
    assert first.code == 1 and first.out == cli(*argv).out
    assert len(re.findall(r'<svg class="delta-plot"', first.out)) == 7
    assert '<div><h4>new</h4><div class="surface">A lamp gives light in a dark roo<mark' in first.out


# --- in a real browser ---------------------------------------------------------------------


@pytest.fixture(scope="module")
def page() -> Iterator[Any]:
    sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is in the test extra")
    if not Path(CHROMIUM).exists():
        pytest.skip(f"no Chromium at {CHROMIUM} (Debian package `chromium`)")
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        # The report must not try to reach anything.
        requests: list[str] = []
        page.on("request", lambda r: requests.append(r.url))
        page.requests = requests
        yield page
        browser.close()


def _open(page: Any, html: str, name: str) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    path = ARTIFACTS / f"{name}.html"
    path.write_text(html, "utf-8")
    page.requests.clear()
    page.goto(path.as_uri())
    assert page.requests == [path.as_uri()]


def _box(page: Any, selector: str) -> dict[str, float]:
    box = page.locator(selector).first.bounding_box()
    assert box is not None, selector
    return dict(box)


def test_lane_report_renders_in_chromium(page: Any) -> None:
    _open(page, lane_run("html").out, "lane-report")
    plots = page.locator("svg.metric-plot")
    assert plots.count() == 8  # seven rates and the headline card
    for i in range(plots.count()):
        box = plots.nth(i).bounding_box()
        assert box is not None and box["width"] == 248 and box["height"] == 22
    bar = _box(page, 'svg[data-metric="no_placeholder_rate"] rect.bar')
    assert bar["width"] == pytest.approx(160.0) and bar["height"] == 12
    line = _box(page, 'svg[data-metric="no_placeholder_rate"] line.threshold')
    assert line["height"] > 0
    assert _box(page, "table.matrix")["width"] > 300
    assert page.locator("table.matrix tbody tr").count() == 6
    assert page.locator(".surface mark").count() == 6  # flu_003: before, inside and after the overlap
    assert _box(page, ".surface mark")["width"] > 0
    page.screenshot(path=str(ARTIFACTS / "html-report.png"), full_page=True)
    # Filters (inline JS): by predicate, by category, failing only.
    visible = 'table.matrix tbody tr:not([hidden])'
    page.select_option("#f-pred", "no_placeholder")
    assert page.locator(visible).count() == 2
    assert page.locator("#f-count").inner_text() == "2 of 6 rows shown"
    assert page.locator("article.case:not([hidden])").count() == 2
    page.select_option("#f-pred", "")
    page.select_option("#f-group", "oov")
    assert page.locator(visible).count() == 1
    page.select_option("#f-group", "")
    page.check("#f-failing")
    assert page.locator(visible).count() == 4
    page.uncheck("#f-failing")
    assert page.locator(visible).count() == 6


def test_diff_and_check_reports_render_in_chromium(page: Any) -> None:
    html = cli("diff", OLD, NEW, "--lane", LANE, "--cases", CASES, "--output-format", "html").out
    _open(page, html, "diff-report")
    assert page.locator("svg.delta-plot").count() == 7
    assert _box(page, 'svg[data-metric="no_placeholder_rate"] rect.bar.fail')["width"] == pytest.approx(160.0)
    assert _box(page, 'svg[data-metric="no_placeholder_rate"] rect.bar.old')["width"] == pytest.approx(240.0)
    assert page.locator("article.case .sides").count() == 4
    page.screenshot(path=str(ARTIFACTS / "diff-report.png"), full_page=True)
    _open(page, check_run("html").out, "check-report")
    assert page.locator("tr[data-case]").count() == 5
    page.select_option("#f-pred", "no_placeholder")
    assert page.locator("tr[data-case]:not([hidden])").count() == 2
