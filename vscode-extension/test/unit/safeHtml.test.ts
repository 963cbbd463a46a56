import assert from "node:assert/strict";
import { describe, it } from "node:test";

import { safeMarkdownHtml } from "../../src/core/safeHtml";

describe("safeMarkdownHtml", () => {
  it("keeps what Markdown renders: tables with alignment, code, emphasis, lists", () => {
    const html =
      '<h2>Lane <code>deterministic_fluency</code> fails</h2>\n<table>\n<thead>\n<tr>\n<th>metric</th>\n<th style="text-align:right">value</th>\n</tr>\n</thead>\n' +
      "<tbody>\n<tr>\n<td><code>cases</code></td>\n<td style=\"text-align:right\">4</td>\n</tr>\n</tbody>\n</table>\n<ul>\n<li><strong>a</strong> &amp; <em>b</em></li>\n</ul>\n";
    assert.equal(safeMarkdownHtml(html), html);
  });

  it("shows raw HTML from data as text", () => {
    assert.equal(
      safeMarkdownHtml('<p>scored from <img src=x onerror="alert(1)"> and <script>alert(2)</script></p>'),
      '<p>scored from &lt;img src=x onerror="alert(1)"&gt; and &lt;script&gt;alert(2)&lt;/script&gt;</p>',
    );
    assert.equal(safeMarkdownHtml("<iframe srcdoc='<b>'></iframe>"), "&lt;iframe srcdoc='&lt;b&gt;'&gt;&lt;/iframe&gt;");
  });

  it("drops every attribute of an allowed tag but table alignment", () => {
    assert.equal(
      safeMarkdownHtml('<a href="javascript:alert(1)" onclick="x()">turn 3</a><span style="background:url(x)">s</span>'),
      "<a>turn 3</a><span>s</span>",
    );
    assert.equal(safeMarkdownHtml('<td style="text-align:right" onmouseover="x()">1</td>'), '<td style="text-align:right">1</td>');
    assert.equal(safeMarkdownHtml('<p style="text-align:right">x</p>'), "<p>x</p>");
    assert.equal(safeMarkdownHtml("<TD>1</TD>"), "<td>1</td>");
  });

  it("leaves no tag a browser could complete: unclosed tags, stray brackets and comments", () => {
    assert.equal(safeMarkdownHtml('<p>x</p><img src=x onerror="alert(1)"'), '<p>x</p>&lt;img src=x onerror="alert(1)"');
    assert.equal(safeMarkdownHtml("a < b > c"), "a &lt; b &gt; c");
    assert.equal(safeMarkdownHtml("<p>a<!-- <script>x</script> -->b</p><!-- open"), "<p>ab</p>");
    assert.equal(safeMarkdownHtml("<<p>>"), "&lt;<p>&gt;");
  });
});
