"""A self-contained HTML report: inline CSS, SVG and a little JS; no network; same bytes for the same input.

`--lane`: cards first (the headline metric, the thresholds, the cases failing), each metric
plotted against its threshold, every per-category metric as a bar chart (inline SVG), the
predicate x case pass matrix, the failing surfaces with their failing characters marked
(the first N of each predicate), filters by category and predicate.
`diff`: metric deltas (old and new bars), flipped verdicts with both surfaces side by side.
`check`: the findings, filterable by code.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Iterator, Sequence
from html import escape
from typing import TYPE_CHECKING, Any, TextIO

from .. import __version__
from ..engine import LaneResult
from ..engine.spool import ScratchText
from ..model.findings import Finding, Severity, stored_code, unpacked_finding
from .common import (
    LIST_LIMIT,
    CaseView,
    HtmlCases,
    MetricRow,
    PerPredicateQuota,
    PredicateFailure,
    SafeOut,
    capture,
    case_view,
    display_path,
    fmt_value,
    highlight_segments,
    lane_notes,
    metric_rows,
    numeric,
    printable,
    reported_predicates,
    shown_views,
    verdict_word,
    where,
)
from .records import stored_findings

if TYPE_CHECKING:
    from ..engine.diff import LaneDiff, MetricDelta
    from .options import CheckRun, RenderOptions

PLOT_W, PLOT_H, BAR_Y, BAR_H = 240, 22, 5, 12
PAD = 4  # room on both sides so a threshold line at 0 or 1 is drawn whole

CSS = """
:root{--fg:#1f2328;--muted:#59636e;--line:#d1d9e0;--bg:#fff;--pass:#1a7f37;--fail:#cf222e;
--note:#9a6700;--track:#eef1f4;--mark:#ffd8d3;--na:#8c959f}
*{box-sizing:border-box}
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",Helvetica,Arial,sans-serif;color:var(--fg);
background:var(--bg);margin:0;padding:24px 32px;max-width:1400px}
h1{font-size:22px;margin:0 0 4px}h2{font-size:17px;margin:28px 0 10px;border-bottom:1px solid var(--line);
padding-bottom:4px}h3{font-size:14px;margin:0 0 6px}
code,.mono{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:12.5px}
.meta{color:var(--muted);margin:0}
.badge{display:inline-block;padding:1px 9px;border-radius:10px;font-size:13px;color:#fff;vertical-align:middle}
.badge.pass{background:var(--pass)}.badge.fail{background:var(--fail)}.badge.none{background:var(--na)}
table{border-collapse:collapse}th,td{padding:4px 8px;border-bottom:1px solid var(--line);text-align:left;
vertical-align:top}th{font-weight:600;background:#f6f8fa}
td.num{text-align:right;font-variant-numeric:tabular-nums}
tr.fail td.verdict{color:var(--fail);font-weight:600}tr.pass td.verdict{color:var(--pass)}
svg .track{fill:var(--track)}svg .bar.pass{fill:var(--pass)}svg .bar.fail{fill:var(--fail)}
svg .bar.info{fill:#0969da}svg .bar.old{fill:#afb8c1}svg .threshold{stroke:var(--fg);stroke-width:2}
svg .band{fill:rgba(31,35,40,.15)}
.matrix td.cell{text-align:center;font-weight:600;width:28px}
.matrix td.pass{color:var(--pass)}.matrix td.fail{color:#fff;background:var(--fail)}
.matrix td.note{color:#fff;background:var(--note)}.matrix td.na{color:var(--na)}
.matrix th.pred{writing-mode:vertical-rl;transform:rotate(180deg);white-space:nowrap;font-size:12px}
.filters{display:flex;gap:16px;align-items:center;margin:8px 0 12px;flex-wrap:wrap}
.filters select{font:inherit;padding:2px 4px}#f-count{color:var(--muted)}
.case{border:1px solid var(--line);border-left:4px solid var(--fail);border-radius:6px;padding:10px 14px;
margin:0 0 12px}.case.note{border-left-color:var(--note)}
.case ul{margin:4px 0 8px;padding-left:18px}.where{color:var(--muted)}
.surface{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:13px;
background:#f6f8fa;padding:8px 10px;border-radius:4px;white-space:pre-wrap;word-break:break-word;margin:4px 0}
.surface mark{background:var(--mark);color:var(--fg);border-bottom:2px solid var(--fail);padding:0 1px}
.empty{color:var(--muted);font-style:italic}
.sides{display:grid;grid-template-columns:1fr 1fr;gap:12px}.sides h4{margin:0;font-size:12px;color:var(--muted)}
.cards{display:flex;gap:12px;flex-wrap:wrap;margin:16px 0 4px}
.card{border:1px solid var(--line);border-top:4px solid var(--na);border-radius:6px;padding:10px 14px;
min-width:220px;flex:1 1 220px;max-width:420px}.card.pass{border-top-color:var(--pass)}
.card.fail{border-top-color:var(--fail)}.card .label{color:var(--muted);font-size:12.5px}
.card .big{font-size:26px;font-weight:600;font-variant-numeric:tabular-nums;margin:2px 0}
.card.pass .big{color:var(--pass)}.card.fail .big{color:var(--fail)}.card .sub{font-size:12.5px}
figure.category{margin:0 0 18px}figure.category figcaption{font-weight:600;margin:0 0 4px}
svg.category-chart{max-width:100%;height:auto}svg.category-chart text{font:12px ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;fill:var(--fg)}
svg.category-chart text.label{text-anchor:end}svg .bar.cat{fill:#0969da}
ul.plain{padding-left:18px}footer{margin-top:32px;color:var(--muted);font-size:12px}
[hidden]{display:none!important}
"""

# Filters: every element with data-case is shown when it matches the category, predicate and status.
JS = """
(function(){
  var g=document.getElementById('f-group'),p=document.getElementById('f-pred'),
      s=document.getElementById('f-failing'),n=document.getElementById('f-count');
  if(!g||!p||!s)return;
  function apply(){
    var shown=0,total=0;
    document.querySelectorAll('[data-case]').forEach(function(el){
      var failed=(el.getAttribute('data-failed')||'').split(' ');
      var ok=(!g.value||el.getAttribute('data-group')===g.value)&&
             (!p.value||failed.indexOf(p.value)>=0)&&
             (!s.checked||el.getAttribute('data-status')!=='pass');
      el.hidden=!ok;
      if(el.tagName==='TR'){total++;if(ok)shown++;}
    });
    if(n)n.textContent=shown+' of '+total+' rows shown';
  }
  [g,p,s].forEach(function(e){e.addEventListener('change',apply);});
  apply();
})();
"""


def _e(text: object) -> str:
    """Data as HTML text: escaped, and its controls and bidi overrides shown as escapes (a line
    end and a tab stay: surfaces are shown as written)."""
    return escape(printable(str(text), keep="\n\t"), quote=True)


def _page_head(title: str) -> str:
    return "\n".join([
        "<!DOCTYPE html>",
        '<html lang="en">',
        "<head>",
        '<meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        # No network: nothing may be fetched, and the page says so to the browser too.
        "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
        "style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:\">",
        f"<title>{_e(title)}</title>",
        f"<style>{CSS}</style>",
        "</head>",
        "<body>",
    ]) + "\n"


def _page_foot() -> str:
    return "\n".join([
        f"<footer>Generated by surface-lint {_e(__version__)}.</footer>",
        f"<script>{JS}</script>",
        "</body>",
        "</html>",
    ]) + "\n"


def _page(title: str, body: Iterable[str]) -> str:
    return _page_head(title) + "".join(line + "\n" for line in body) + _page_foot()


def _more(n: int, what: str) -> str:
    return f'<p class="meta">… {n} more {_e(what)} not shown. The JSON or SARIF output lists them all.</p>'


def _badge(passed: bool | None, word: str | None = None) -> str:
    cls = "none" if passed is None else ("pass" if passed else "fail")
    return f'<span class="badge {cls}">{_e(word or verdict_word(passed))}</span>'


def _x(value: float) -> str:
    """An x coordinate on the plot for a value in [0, 1] (clamped), to 0.1 px."""
    return f"{max(0.0, min(1.0, value)) * PLOT_W:.1f}"


def metric_svg(row: MetricRow) -> str:
    """A bar for a rate in [0, 1] with its threshold marked (a line; a band for `≈ v ± t`)."""
    value = numeric(row.value)
    if value is None or isinstance(row.value, bool) or not isinstance(row.value, float):
        return ""
    cls = "info" if row.passed is None else ("pass" if row.passed else "fail")
    label = f"{row.name} {fmt_value(row.value)}" + (f", threshold {row.threshold}" if row.threshold else "")
    parts = [
        f'<svg class="metric-plot" data-metric="{_e(row.name)}" width="{PLOT_W + 2 * PAD}" height="{PLOT_H}" '
        f'viewBox="{-PAD} 0 {PLOT_W + 2 * PAD} {PLOT_H}" role="img" aria-label="{_e(label)}">',
        f'<rect class="track" x="0" y="{BAR_Y}" width="{PLOT_W}" height="{BAR_H}"/>',
        f'<rect class="bar {cls}" x="0" y="{BAR_Y}" width="{_x(value)}" height="{BAR_H}"/>',
    ]
    if row.target is not None:
        if row.op == "~=":
            lo, hi = row.target - row.tolerance, row.target + row.tolerance
            width = f"{float(_x(hi)) - float(_x(lo)):.1f}"
            parts.append(f'<rect class="band" x="{_x(lo)}" y="1" width="{width}" height="{PLOT_H - 2}"/>')
        x = _x(row.target)
        parts.append(f'<line class="threshold" x1="{x}" x2="{x}" y1="1" y2="{PLOT_H - 1}"/>')
    parts.append("</svg>")
    return "".join(parts)


CHART_LABEL_W, CHART_BAR_W, CHART_VALUE_W, CHART_ROW_H, CHART_BAR_H = 150, 320, 70, 20, 14


def category_values(value: object) -> list[tuple[str, float, str]] | None:
    """A per-category metric (an object of numbers: `{"C01": 1.0, ...}`) as (category, number,
    the number as reports print it) in the metric's own order; None for any other value."""
    if not isinstance(value, dict) or not value:
        return None
    out = []
    for key, item in value.items():
        if isinstance(item, bool) or not isinstance(item, (int, float)):
            return None
        out.append((str(key), float(item), fmt_value(item)))
    return out


def category_svg(name: str, value: object) -> str:
    """A horizontal bar per category. Rates (every value a float in [0, 1]) on a 0 to 1 scale;
    counts on 0 to the largest count. No script: labels and values are SVG text."""
    pairs = category_values(value)
    if pairs is None or not isinstance(value, dict):
        return ""
    rates = all(isinstance(v, float) for v in value.values()) and all(0.0 <= n <= 1.0 for _, n, _ in pairs)
    top = 1.0 if rates else max(1.0, max(n for _, n, _ in pairs))
    width = CHART_LABEL_W + CHART_BAR_W + CHART_VALUE_W
    height = CHART_ROW_H * len(pairs) + 4
    scale = "0 to 1" if rates else f"0 to {fmt_value(int(top) if top.is_integer() else top)}"
    parts = [f'<svg class="category-chart" data-metric="{_e(name)}" width="{width}" height="{height}" '
             f'viewBox="0 0 {width} {height}" role="img" aria-label="{_e(name)} per category, {scale}">']
    for i, (key, number, text) in enumerate(pairs):
        y = 2 + i * CHART_ROW_H
        bar = max(0.0, min(1.0, number / top)) * CHART_BAR_W
        parts.append(
            f'<g class="row" data-category="{_e(key)}">'
            f'<text class="label" x="{CHART_LABEL_W - 8}" y="{y + 14}">{_e(key)}</text>'
            f'<rect class="track" x="{CHART_LABEL_W}" y="{y + 3}" width="{CHART_BAR_W}" height="{CHART_BAR_H}"/>'
            f'<rect class="bar cat" x="{CHART_LABEL_W}" y="{y + 3}" width="{bar:.1f}" height="{CHART_BAR_H}"/>'
            f'<text class="value" x="{CHART_LABEL_W + CHART_BAR_W + 8}" y="{y + 14}">{_e(text)}</text></g>')
    parts.append("</svg>")
    return "".join(parts)


def _category_section(rows: Sequence[MetricRow]) -> list[str]:
    charts = [(row.name, category_svg(row.name, row.value)) for row in rows]
    charts = [(name, svg) for name, svg in charts if svg]
    if not charts:
        return []
    out = ['<section id="categories"><h2>Per-category metrics</h2>']
    for name, svg in charts:
        out.append(f'<figure class="category" id="cat-{_e(name)}"><figcaption><code>{_e(name)}</code></figcaption>'
                   f"{svg}</figure>")
    out.append("</section>")
    return out


def _card(cls: str, label: str, big: str, sub: str) -> str:
    return (f'<div class="card {cls}"><div class="label">{label}</div><div class="big">{_e(big)}</div>'
            f'<div class="sub">{sub}</div></div>')


def _cards(result: LaneResult, rows: Sequence[MetricRow], n_views: int, n_fail: int, n_notes: int) -> list[str]:
    """Three cards: the headline metric (value, threshold, verdict), the threshold set (how
    many checks pass, which fail) and the cases failing."""
    out = ['<section class="cards" id="cards">']
    head = next((r for r in rows if r.headline), None)
    if head is not None:
        cls = "none" if head.passed is None else ("pass" if head.passed else "fail")
        verdict = "no threshold" if head.passed is None else f"threshold {_e(head.threshold)} · {'pass' if head.passed else 'FAIL'}"
        out.append(_card(cls, f"Headline · <code>{_e(head.name)}</code>", fmt_value(head.value),
                         verdict + (f" {metric_svg(head)}" if metric_svg(head) else "")))
    checks = result.thresholds
    if checks:
        passing = sum(1 for t in checks if t.passed)
        failing = [t.check.metric for t in checks if not t.passed]
        sub = ("failing: " + ", ".join(f"<code>{_e(m)}</code>" for m in failing)) if failing else "every check passes"
        out.append(_card("fail" if failing else "pass",
                         f"Thresholds · <code>{_e(result.threshold_set or '')}</code>",
                         f"{passing} of {len(checks)} pass", sub))
    else:
        out.append(_card("none", "Thresholds", "none checked",
                         "the lane has no threshold set" if result.threshold_set is None else _e(result.threshold_set)))
    notes = f" · {n_notes} with notes only" if n_notes else ""
    out.append(_card("fail" if n_fail else "pass", "Cases failing", f"{n_fail} of {n_views}",
                     (f'<a href="#failing">listed below</a>{notes}' if n_fail or n_notes else "no case fails")))
    out.append("</section>")
    return out


def _surface_html(surface: str | None, failures: Sequence[PredicateFailure]) -> str:
    if surface is None:
        return ""
    if surface == "":
        return '<div class="surface"><span class="empty">(empty surface)</span></div>'
    out = []
    for text, names in highlight_segments(surface, failures):
        if names:
            out.append(f'<mark data-predicates="{_e(" ".join(names))}" title="{_e(", ".join(names))}">{_e(text)}</mark>')
        else:
            out.append(_e(text))
    return f'<div class="surface">{"".join(out)}</div>'


def _filters(groups: Iterable[str], predicates: Sequence[tuple[str, str]], group_label: str,
             status_label: str = "with a failing predicate only") -> str:
    g_opts = "".join(f'<option value="{_e(g)}">{_e(g)}</option>' for g in sorted(set(groups)))
    p_opts = "".join(f'<option value="{_e(n)}">{_e(c)} {_e(n)}</option>' for n, c in predicates)
    return (
        '<div class="filters">'
        f'<label>{_e(group_label)} <select id="f-group"><option value="">all</option>{g_opts}</select></label>'
        f'<label>Predicate failing <select id="f-pred"><option value="">any</option>{p_opts}</select></label>'
        f'<label><input type="checkbox" id="f-failing"> {_e(status_label)}</label>'
        '<span id="f-count"></span></div>'
    )


def _data_attrs(view: CaseView) -> str:
    failed = " ".join(view.failed_names())
    return (f'data-case="{_e(view.case_id)}" data-group="{_e(view.group or "")}" '
            f'data-failed="{_e(failed)}" data-status="{view.status}"')


def _case_article(view: CaseView, anchor: str) -> str:
    items = []
    for f in view.failures:
        sev = f.severity_label
        places = ", ".join(where(x) for x in view.findings if x.rule == f.name)
        at = f' <span class="where mono">{_e(places)}</span>' if places else ""
        items.append(f"<li><b>{_e(f.name)}</b> <code>{_e(f.code)}</code> · {_e(sev)} — {_e(f.message)}{at}</li>")
    group = f' <span class="where">{_e(view.group)}</span>' if view.group else ""
    return (
        f'<article class="case {view.status}" id="{anchor}" {_data_attrs(view)}>'
        f"<h3><code>{_e(view.case_id)}</code>{group}</h3>"
        f'<ul>{"".join(items)}</ul>{_surface_html(view.surface, view.failures)}</article>'
    )


def _metric_table(rows: Sequence[MetricRow], options: RenderOptions) -> list[str]:
    baseline = {d.name: d for d in options.baseline.deltas} if options.baseline else {}
    head = "<tr><th>Metric</th><th>Value</th><th>Threshold</th><th>Result</th><th>Plot</th>"
    head += "<th>Baseline</th></tr>" if baseline else "</tr>"
    out = ['<table class="metrics">', head]
    for row in rows:
        cls = "none" if row.passed is None else ("pass" if row.passed else "fail")
        name = f"<b>{_e(row.name)}</b> (headline)" if row.headline else _e(row.name)
        verdict = "" if row.passed is None else ("pass" if row.passed else "FAIL")
        pairs = category_values(row.value)
        shown = (f'<a href="#cat-{_e(row.name)}">{len(pairs)} categories, charted below</a>' if pairs is not None
                 else _e(fmt_value(row.value)))
        cells = (f'<td>{name}</td><td class="num">{shown}</td>'
                 f"<td>{_e(row.threshold or '')}</td><td class=\"verdict\">{verdict}</td>"
                 f"<td>{metric_svg(row)}</td>")
        if baseline:
            d = baseline.get(row.name)
            text = "" if d is None or d.old is None else fmt_value(d.old) + (" — below" if d.regressed else "")
            cells += f'<td class="num">{_e(text)}</td>'
        out.append(f'<tr class="metric {cls}" data-metric="{_e(row.name)}">{cells}</tr>')
    out.append("</table>")
    return out


def _id_list(title: str, ids: Sequence[str]) -> list[str]:
    if not ids:
        return []
    out = [f"<h2>{_e(title)} ({len(ids)})</h2>", '<ul class="plain mono">',
           *(f"<li>{_e(i)}</li>" for i in ids[:LIST_LIMIT]), "</ul>"]
    if len(ids) > LIST_LIMIT:
        out.append(_more(len(ids) - LIST_LIMIT, "case id(s)"))
    return out


def _other_findings(findings: Iterable[Finding], codes: Collection[str]) -> Iterator[Finding]:
    """The findings whose code is not in `codes`. Most of a run's are the predicates' own: read
    as the run keeps them (a packed tuple, reporters/records.py stored_findings), only the others
    rebuilt."""
    for item in stored_findings(findings):
        if stored_code(item) not in codes:
            yield unpacked_finding(item) if isinstance(item, tuple) else item


def write_lane(result: LaneResult, options: RenderOptions, out: TextIO) -> None:
    """Every metric; the predicate x case matrix of the first LIST_LIMIT cases; the first
    SHOW_PER_PREDICATE failing cases of each predicate; counts of the rest. A first pass over
    the cases counts them (the header comes first)."""
    w = SafeOut(out).write
    predicates = reported_predicates(options.lane, result.outcomes if options.lane is None else ())
    n_views = n_fail = n_failures = 0
    groups: set[str] = set()
    surfaces = False
    pattern = False
    # The failing cases' articles are written in the same pass, to scratch text (copied out below).
    quota = PerPredicateQuota()
    articles = ScratchText()
    lane = options.lane
    matrix: Iterable[CaseView]
    if lane is not None and lane.casework is None and options.findings_filter is None:
        # Every case counted (by the engine as it scored, else here from its outcome); a view
        # built only for the cases shown: the matrix's first LIST_LIMIT and the quota's articles.
        counted = result.shown
        if not isinstance(counted, HtmlCases):
            counted = HtmlCases(predicates)
            for outcome in result.outcomes:
                counted.see(outcome)
        views: dict[tuple[Any, ...], Any] = {}
        first: list[CaseView] = []
        for i, outcome in counted.shown:
            view = case_view(outcome, predicates, views)
            if i in counted.articles:
                articles.write(_case_article(view, f"case-{i + 1}") + "\n")
            if i < LIST_LIMIT:
                first.append(view)
        matrix = first
        n_views, n_fail, n_failures = counted.cases, counted.failing, counted.with_failures
        groups, surfaces, pattern, quota = counted.groups, counted.surfaces, counted.pattern, counted.quota
    else:
        for i, view in enumerate(shown_views(result, lane, options.findings_filter)):
            n_views += 1
            n_fail += view.failing
            if view.failures or view.failing:  # failing on checks --select/--ignore hides: no failure shown
                n_failures += 1
                surfaces = surfaces or view.surface is not None
            if view.group and len(groups) < LIST_LIMIT:
                groups.add(view.group)
            if view.failures and quota.admit(view.failed_names()):
                articles.write(_case_article(view, f"case-{i + 1}") + "\n")
        for o in result.outcomes:
            pattern = any(k == "pattern" for k in (o.details or {}))
            break
        matrix = shown_views(result, options.lane, options.findings_filter)
    title = f"surface-lint · {result.lane} {result.version} · {verdict_word(result.passed)}"
    w(_page_head(title))
    rows = metric_rows(result)
    lines = [
        f"<header><h1>surface-lint · <code>{_e(result.lane)}</code> {_e(result.version)} "
        f"{_badge(result.passed)}</h1>",
        f'<p class="meta">profile <code>{_e(result.profile)}</code> · thresholds '
        f"<code>{_e(result.threshold_set or 'none')}</code> · {n_views} case(s) · {n_fail} failing · "
        f"{n_failures - n_fail} with notes only</p>",
        *[f'<p class="meta lane">{_e(n)}</p>' for n in lane_notes(options.lanes)],
        *([f'<p class="meta selection">{_e(options.findings_filter.note())}</p>']
          if options.findings_filter is not None else []),
        "</header>",
        *_cards(result, rows, n_views, n_fail, n_failures - n_fail),
    ]
    if result.nothing_scored is not None:
        lines.append(f'<p class="meta"><b>No case was scored:</b> {_e(result.nothing_scored)}.</p>')
    lines += [
        '<section id="metrics"><h2>Metrics against thresholds</h2>',
        *_metric_table(rows, options),
        '<p class="meta">Bars: the value on a 0 to 1 scale; black line: the threshold; grey band: its tolerance.</p>',
        "</section>",
        *_category_section(rows),
        '<section id="matrix"><h2>Predicate &times; case</h2>',
        _filters(groups, predicates, "Pattern" if pattern else "Category"),
        '<table class="matrix"><thead><tr><th>Case</th><th>Group</th>'
        + "".join(f'<th class="pred" title="{_e(n)}"><code>{_e(c)}</code> {_e(n)}</th>' for n, c in predicates)
        + "</tr></thead><tbody>",
    ]
    w("".join(line + "\n" for line in lines))
    # Failing cases get anchors numbered by their place among all cases.
    for i, view in enumerate(matrix):
        if i >= LIST_LIMIT:
            break
        cells = []
        failed = {f.name: f for f in view.failures}
        deciding = {f.name for f in view.deciding}
        for name, _code in predicates:
            state = view.passed(name)
            if state is None:
                cells.append('<td class="cell na" title="not judged">·</td>')
            elif state:
                cells.append('<td class="cell pass" title="pass">✓</td>')
            else:
                cls = "fail" if name in deciding else "note"
                cells.append(f'<td class="cell {cls}" title="{_e(failed[name].message)}">✗</td>')
        link = (f'<a href="#case-{i + 1}">{_e(view.case_id)}</a>' if view.failures else _e(view.case_id))
        w(f"<tr {_data_attrs(view)}><td class=\"mono\">{link}</td><td>{_e(view.group or '')}</td>"
          + "".join(cells) + "</tr>\n")
    w("</tbody></table>\n")
    if n_views > LIST_LIMIT:
        w(_more(n_views - LIST_LIMIT, "case(s) of the matrix") + "\n")
    w("</section>\n")
    w(f'<section id="failing"><h2>Failing {"surfaces" if surfaces else "cases"} ({n_failures})</h2>\n')
    articles.copy_to(w)
    for name, n in quota.notes():
        w(_more(n, f"failing case(s) of {name} (the first {quota.limit} of each predicate are listed)") + "\n")
    if not n_failures:
        w('<p class="empty">No case has a failing predicate.</p>\n')
    w("</section>\n")
    codes = {c for _, c in predicates}
    others = 0
    for f in _other_findings(result.findings, codes):
        if not others:
            w('<section id="findings"><h2>Other findings</h2><table>\n'
              "<tr><th>Where</th><th>Code</th><th>Severity</th><th>Message</th></tr>\n")
        others += 1
        if others <= LIST_LIMIT:
            w(f'<tr><td class="mono">{_e(where(f))}</td><td><code>{_e(f.code)}</code> {_e(f.rule)}</td>'
              f"<td>{_e(f.severity.label)}</td><td>{_e(f.message)}</td></tr>\n")
    if others:
        w("</table>\n")
        if others > LIST_LIMIT:
            w(_more(others - LIST_LIMIT, "finding(s)") + "\n")
        w("</section>\n")
    tail = _id_list("Cases without a transcript", result.missing_transcripts)
    tail += _id_list("Transcript case ids without a case", result.unknown_cases)
    tail += _id_list("Multi-sentence cases outside the three buckets", result.remainder)
    w("".join(line + "\n" for line in tail))
    w(_page_foot())


def render_lane(result: LaneResult, options: RenderOptions) -> str:
    return capture(lambda out: write_lane(result, options, out))


# --- diff ------------------------------------------------------------------------------


def delta_svg(d: MetricDelta, threshold: float | None) -> str:
    """Old (grey) and new (coloured) bars of a rate, with the threshold (or `~=` target) marked."""
    old, new = d.old, d.new
    if not isinstance(old, float) and not isinstance(new, float):
        return ""
    cls = "fail" if d.regressed else ("pass" if d.improved else "info")
    h = 30
    parts = [f'<svg class="delta-plot" data-metric="{_e(d.name)}" width="{PLOT_W + 2 * PAD}" height="{h}" '
             f'viewBox="{-PAD} 0 {PLOT_W + 2 * PAD} {h}" role="img" aria-label="{_e(d.describe())}">',
             f'<rect class="track" x="0" y="3" width="{PLOT_W}" height="24"/>']
    if isinstance(old, float):
        parts.append(f'<rect class="bar old" x="0" y="4" width="{_x(old)}" height="10"/>')
    if isinstance(new, float):
        parts.append(f'<rect class="bar {cls}" x="0" y="16" width="{_x(new)}" height="10"/>')
    if threshold is not None:
        x = _x(threshold)
        parts.append(f'<line class="threshold" x1="{x}" x2="{x}" y1="1" y2="{h - 1}"/>')
    parts.append("</svg>")
    return "".join(parts)


def render_diff(diff: LaneDiff, options: RenderOptions) -> str:
    lane = diff.new.lane
    word = "REGRESSED" if diff.regressed else "no regression"
    predicates = reported_predicates(options.lane, diff.new.outcomes)
    body = [
        f"<header><h1>surface-lint diff · <code>{_e(lane)}</code> {_badge(not diff.regressed, word)}</h1>",
        f'<p class="meta"><code>{_e(display_path(diff.old_label))}</code> → '
        f"<code>{_e(display_path(diff.new_label))}</code> · profile <code>{_e(diff.new.profile)}</code> · "
        f"{len(diff.changed)} case(s) with flipped verdicts, {len(diff.new_cases)} new, "
        f"{len(diff.vanished)} vanished, {diff.unchanged} unchanged</p>",
        *[f'<p class="meta lane">{_e(n)}</p>' for n in lane_notes(options.lanes)],
        "</header>",
        '<section id="metrics"><h2>Metrics</h2><table class="metrics">',
        "<tr><th>Metric</th><th>Old</th><th>New</th><th>Change</th><th></th><th>Plot (old grey, new below)</th></tr>",
    ]
    checks = {t.check.metric: t.check.value for t in diff.new.thresholds}
    for d in diff.metrics:
        cls = "fail" if d.regressed else ("pass" if d.improved else "none")
        mark = "REGRESSED" if d.regressed else ("improved" if d.improved else "")
        change = d.change
        body.append(f'<tr class="metric {cls}" data-metric="{_e(d.name)}"><td>{_e(d.name)}</td>'
                    f'<td class="num">{_e(fmt_value(d.old))}</td><td class="num">{_e(fmt_value(d.new))}</td>'
                    f'<td class="num">{_e(change)}</td><td class="verdict">{mark}</td>'
                    f"<td>{delta_svg(d, checks.get(d.name))}</td></tr>")
    body += ["</table></section>",
             f'<section id="flips"><h2>Flipped verdicts ({len(diff.changed)} case(s))</h2>',
             _filters((c.group for c in diff.changed if c.group), predicates, "Group", "regressions only"),
             '<table class="flips"><tr><th>Case</th><th>Predicate</th><th>Old</th><th>New</th></tr>']
    for c in diff.changed:
        for f in c.flips:
            status = "fail" if f.regressed else "pass"
            body.append(
                f'<tr data-case="{_e(c.case_id)}" data-group="{_e(c.group or "")}" data-failed="{_e(f.predicate)}" '
                f'data-status="{status}" class="{status}"><td class="mono">{_e(c.case_id)}</td>'
                + (f"<td><code>{_e(f.code)}</code> {_e(f.predicate)}</td>" if f.code else f"<td>{_e(f.predicate)}</td>")
                + f'<td>{"pass" if f.old_passed else "fail"}</td>'
                f'<td class="verdict">{"pass" if f.new_passed else "FAIL"}</td></tr>')
    body.append("</table>")
    for c in diff.changed:
        names = " ".join(f.predicate for f in c.flips)
        status = "fail" if c.regressed else "pass"
        fields = "".join(f"<li><code>{_e(k)}</code>: {_e(a)} → {_e(b)}</li>" for k, a, b in c.fields)
        body.append(
            f'<article class="case {"fail" if c.regressed else "note"}" data-case="{_e(c.case_id)}" '
            f'data-group="{_e(c.group or "")}" data-failed="{_e(names)}" data-status="{status}">'
            f"<h3><code>{_e(c.case_id)}</code> {_e(', '.join(f.predicate for f in c.flips))}</h3>"
            + (f"<ul>{fields}</ul>" if fields else "")
            + '<div class="sides">'
            f"<div><h4>old</h4>{_surface_html(c.old.surface, c.old.failures)}</div>"
            f"<div><h4>new</h4>{_surface_html(c.new.surface, c.new.failures)}</div></div></article>")
    body.append("</section>")
    body += _id_list("New cases", [v.case_id for v in diff.new_cases])
    body += _id_list("Vanished cases", [v.case_id for v in diff.vanished])
    return _page(f"surface-lint diff · {lane} · {word}", body)


# --- check -----------------------------------------------------------------------------


def write_check(run: CheckRun, options: RenderOptions, out: TextIO) -> None:
    w = SafeOut(out).write
    codes = sorted({(f.rule, f.code) for f in run.findings}, key=lambda rc: rc[1])
    n = len(run.findings)
    title = f"surface-lint check · {n} finding(s)"
    body = [
        f"<header><h1>surface-lint check {_badge(not n, f'{n} finding(s)')}</h1>",
        f'<p class="meta">{len(run.files)} file(s) · {run.records} record(s) · profile '
        f"<code>{_e(run.profile)}</code></p>",
        *[f'<p class="meta lane">{_e(n)}</p>' for n in lane_notes(options.lanes, len(run.files))],
        "</header>",
        '<section id="findings"><h2>Findings</h2>',
        _filters((display_path(f) for f in run.files), codes, "File", "errors and warnings only"),
        "<table><tr><th>Where</th><th>Code</th><th>Severity</th><th>Message</th></tr>",
    ]
    w(_page_head(title) + "".join(line + "\n" for line in body))
    for i, f in enumerate(run.findings):
        if i >= LIST_LIMIT:
            break
        w(f'<tr data-case="{_e(where(f))}" data-group="{_e(display_path(f.path))}" '
          f'data-failed="{_e(f.rule)}" data-status="{"fail" if f.severity >= Severity.WARNING else "pass"}">'
          f'<td class="mono">{_e(where(f))}</td><td><code>{_e(f.code)}</code> {_e(f.rule)}</td>'
          f"<td>{_e(f.severity.label)}</td><td>{_e(f.message)}</td></tr>\n")
    w("</table>\n")
    if n > LIST_LIMIT:
        w(_more(n - LIST_LIMIT, "finding(s)") + "\n")
    w("</section>\n" + _page_foot())


def render_check(run: CheckRun, options: RenderOptions) -> str:
    return capture(lambda out: write_check(run, options, out))
