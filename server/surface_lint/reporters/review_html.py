"""HTML of the editor's review views, from the HTML report's pieces (its CSS, its marking of
failing spans, its diff page). Pure. Nothing from data is emitted unescaped, and no script is
emitted: the editor shows this in a webview whose CSP allows none. Filters and "go to turn"
are `command:` links, which a webview follows without scripts.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from html import escape
from pathlib import Path
from typing import Any
from urllib.parse import quote

from ..engine.diff import LaneDiff
from ..engine.review import Review, ReviewTurn
from . import RenderOptions
from . import html as report_html
from .common import CaseView

OPEN_TURN_COMMAND = "surfaceLint.openTurn"  # arguments: [uri, 0-based line]
FILTER_COMMAND = "surfaceLint.reviewFilter"  # arguments: [{uri, predicate, category, failingOnly}]
REVIEW_TURN_LIMIT = 500  # turns rendered at most; the filters narrow a bigger transcript

REVIEW_CSS = """
.chips{display:flex;flex-wrap:wrap;gap:6px;align-items:center;margin:6px 0}
.chips b{margin-right:4px}.chip{border:1px solid var(--line);border-radius:10px;padding:0 8px;
text-decoration:none;color:var(--fg)}.chip.on{background:var(--fg);color:var(--bg)}
.case.pass{border-left-color:var(--pass)}.case.context{border-left-color:var(--line)}
.case h3 a{color:inherit}.prompt{margin:2px 0;color:var(--muted)}
.verdicts{margin:2px 0}.verdicts .ok{color:var(--pass)}.verdicts .ko{color:var(--fail);font-weight:600}
details.case>summary{cursor:pointer;list-style-position:outside}details.case>summary h3{display:inline;margin:0}
details.case:not([open]){padding-top:6px;padding-bottom:6px;color:var(--muted)}
"""


def _e(text: object) -> str:
    return escape(str(text), quote=True)


def command_uri(command: str, arguments: Sequence[Any]) -> str:
    """A `command:` link with JSON arguments, percent-encoded (no character of data survives raw)."""
    return f"command:{command}?{quote(json.dumps(list(arguments), ensure_ascii=False), safe='')}"


def surface_html(surface: str | None, view: CaseView | None) -> str:
    """The surface with its failing characters marked: the HTML report's own marking (its
    `_surface_html`, called rather than copied; it has no public name yet)."""
    return report_html._surface_html(surface, view.failures if view is not None else ())


def _verdicts(view: CaseView) -> str:
    failed = set(view.failed_names())
    marks = [f'<span class="ko">✗ {_e(n)}</span>' if n in failed else f'<span class="ok">✓ {_e(n)}</span>'
             for n in view.judged]
    return f'<p class="verdicts">{" · ".join(marks)}</p>'


def turn_html(item: ReviewTurn, uri: str) -> str:
    """One turn: its place (a link to it), case, category, role and status; the prompt; each
    judged check's verdict and the failures' messages; the decoded surface with its failing
    characters marked. A context turn (the runner scores none of it: priming, premises) is
    folded (`<details>`, opened without a script) and has no verdicts."""
    turn = item.turn
    name = Path(turn.path).name
    line = turn.location.line
    link = command_uri(OPEN_TURN_COMMAND, [uri, line - 1])
    where = " · ".join(x for x in (item.category, turn.role) if x)
    status = item.status
    badge = f' <span class="badge {"fail" if status == "fail" else "pass" if status == "pass" else "none"}">' \
            f"{_e(status)}</span>"
    head = (f'<h3><a href="{_e(link)}" title="Go to this turn">{_e(name)}:{line}</a> <code>{_e(turn.case_id)}</code>'
            f' <span class="where">{_e(where)}</span>{badge}</h3>')
    folded = item.view is None
    tag = "details" if folded else "article"
    parts = [
        f'<{tag} class="case {status}" data-case="{_e(turn.case_id)}" data-line="{line}">',
        f"<summary>{head} <span class=\"where\">not scored</span></summary>" if folded else head,
    ]
    if turn.prompt is not None:
        parts.append(f'<p class="prompt"><b>prompt</b> {_e(turn.prompt)}</p>')
    view = item.view
    if view is not None:
        parts.append(_verdicts(view))
        if view.failures:
            parts.append("<ul>" + "".join(
                f"<li><b>{_e(f.name)}</b> <code>{_e(f.code)}</code> · {_e(f.severity_label)} — {_e(f.message)}</li>"
                for f in view.failures) + "</ul>")
    parts.append(surface_html(turn.surface, view))
    parts.append(f"</{tag}>")
    return "".join(parts)


def _chip(label: str, on: bool, uri: str, predicate: str | None, category: str | None,
          failing_only: bool) -> str:
    args = {"uri": uri, "predicate": predicate, "category": category, "failingOnly": failing_only}
    cls = "chip on" if on else "chip"
    return f'<a class="{cls}" href="{_e(command_uri(FILTER_COMMAND, [args]))}">{_e(label)}</a>'


def filters_html(review: Review, uri: str, predicate: str | None, category: str | None,
                 failing_only: bool) -> str:
    groups: dict[str, int] = {}
    for t in review.turns:
        if t.category and t.view is not None:
            groups[t.category] = groups.get(t.category, 0) + 1
    cats = [_chip("all", category is None, uri, predicate, None, failing_only)]
    cats += [_chip(f"{g} ({groups.get(g, 0)})", category == g, uri, predicate, g, failing_only)
             for g in review.categories()]
    counts = review.failing_counts()
    preds = [_chip("any", predicate is None, uri, None, category, failing_only)]
    preds += [_chip(f"{code} {name} ({counts.get(name, 0)})", predicate == name, uri, name, category, failing_only)
              for name, code in review.predicates]
    status = _chip("failing only" if not failing_only else "failing only ✓", failing_only, uri, predicate,
                   category, not failing_only)
    return ('<nav class="review-filters">'
            f'<div class="chips"><b>Category</b>{"".join(cats)}</div>'
            f'<div class="chips"><b>Predicate failing</b>{"".join(preds)}</div>'
            f'<div class="chips"><b>Status</b>{status}</div></nav>')


def review_html(review: Review, uri: str, shown: Sequence[ReviewTurn], predicate: str | None,
                category: str | None, failing_only: bool) -> str:
    """The review body: header, filter links, the shown turns (at most REVIEW_TURN_LIMIT)."""
    scored = [t for t in review.turns if t.view is not None]
    failing = sum(1 for t in scored if t.view is not None and t.view.failing)
    body = [
        f"<header><h1>surface-lint review · <code>{_e(Path(review.path).name)}</code></h1>",
        f'<p class="meta">lane <code>{_e(review.lane)}</code> · profile <code>{_e(review.profile)}</code> · '
        f"{len(review.turns)} turn(s), {len(scored)} scored, {failing} failing · {len(shown)} shown</p></header>",
        filters_html(review, uri, predicate, category, failing_only),
        '<section id="turns">',
    ]
    body += [turn_html(t, uri) for t in shown[:REVIEW_TURN_LIMIT]]
    if len(shown) > REVIEW_TURN_LIMIT:
        body.append(f'<p class="empty">{len(shown) - REVIEW_TURN_LIMIT} more turn(s) not shown: '
                    "narrow them with the filters.</p>")
    if not shown:
        body.append('<p class="empty">No turn matches these filters.</p>')
    body.append("</section>")
    return "".join(body)


def page_css() -> str:
    """The HTML report's stylesheet plus the review's few additions."""
    return report_html.CSS + REVIEW_CSS


def diff_page(diff: LaneDiff, options: RenderOptions) -> str:
    """`surface-lint diff --output-format html`, as it is (the webview adds its own CSP)."""
    return report_html.render_diff(diff, options)
