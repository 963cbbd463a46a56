import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, it } from "node:test";

import {
  diffPage,
  escapeHtml,
  NewestOnly,
  OPEN_MODES,
  openMode,
  parseFilter,
  parseTurnTarget,
  REVIEW_CSP,
  reviewPage,
  reviewTitle,
  runPickItem,
  transcriptGlobs,
  WEBVIEW_COMMANDS,
} from "../../src/review/page";

describe("review webview pages", () => {
  it("allow no script, no fetch and only the review's command links", () => {
    assert.equal(
      REVIEW_CSP,
      "default-src 'none'; script-src 'none'; style-src 'unsafe-inline'; img-src data:; form-action 'none'; frame-src 'none'",
    );
    assert.deepEqual(WEBVIEW_COMMANDS, ["surfaceLint.openTurn", "surfaceLint.reviewFilter"]);
  });

  it("wrap the server's body under the CSP, the title escaped", () => {
    const page = reviewPage('run "<b>".jsonl', ".x{color:red}", "<p>body</p>");
    assert.equal(
      page,
      [
        "<!DOCTYPE html>",
        '<html lang="en">',
        "<head>",
        '<meta charset="utf-8">',
        `<meta http-equiv="Content-Security-Policy" content="${REVIEW_CSP}">`,
        "<title>run &quot;&lt;b&gt;&quot;.jsonl</title>",
        "<style>.x{color:red}</style>",
        "</head>",
        "<body><p>body</p></body>",
        "</html>",
      ].join("\n"),
    );
  });

  it("cannot be closed early by a stylesheet holding </style>", () => {
    const page = reviewPage("t", "a{}</style><script>alert(1)</script>", "");
    assert.ok(page.includes("<style>a{}<\\/style><script>alert(1)<\\/script></style>"));
    assert.equal(page.split("</style>").length, 2);
  });

  it("put the strict CSP first in the report's diff page, hiding its script-driven filters", () => {
    const report = '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta http-equiv="Content-Security-Policy" content="script-src \'unsafe-inline\'">\n</head><body><script>x()</script></body></html>';
    const page = diffPage(report);
    const csp = page.indexOf(REVIEW_CSP);
    assert.ok(csp > 0 && csp < page.indexOf("script-src 'unsafe-inline'"));
    assert.ok(page.includes("<style>.filters{display:none!important}</style>"));
    assert.ok(page.endsWith("</head><body><script>x()</script></body></html>"));
    assert.ok(diffPage("no head here").includes("<p>The server's diff page has no head.</p>"));
  });

  it("escape the five HTML characters", () => {
    assert.equal(escapeHtml(`<a href="x">Tom & 'Jo'</a>`), "&lt;a href=&quot;x&quot;&gt;Tom &amp; &#39;Jo&#39;&lt;/a&gt;");
  });
});

describe("review command arguments", () => {
  it("read a filter link's argument", () => {
    assert.deepEqual(parseFilter({ uri: "file:///w/run.jsonl", predicate: "no_placeholder", category: null, failingOnly: true }), {
      uri: "file:///w/run.jsonl",
      predicate: "no_placeholder",
      category: null,
      failingOnly: true,
    });
    assert.deepEqual(parseFilter({ uri: "file:///w/r.jsonl", predicate: "", category: 3, failingOnly: "yes" }), {
      uri: "file:///w/r.jsonl",
      predicate: null,
      category: null,
      failingOnly: false,
    });
    assert.equal(parseFilter({ predicate: "x" }), null);
    assert.equal(parseFilter("file:///w/r.jsonl"), null);
    assert.equal(parseFilter(null), null);
  });

  it("read a turn link's [uri, line]", () => {
    assert.deepEqual(parseTurnTarget("file:///w/run.jsonl", 2), { uri: "file:///w/run.jsonl", line: 2 });
    assert.equal(parseTurnTarget("file:///w/run.jsonl", -1), null);
    assert.equal(parseTurnTarget("file:///w/run.jsonl", 1.5), null);
    assert.equal(parseTurnTarget("file:///w/run.jsonl", "2"), null);
    assert.equal(parseTurnTarget(7, 2), null);
  });

  it("title a review by file name and filters", () => {
    const base = { uri: "file:///w/runs/run%20b.jsonl", predicate: null, category: null, failingOnly: false };
    assert.equal(reviewTitle(base), "Review: run b.jsonl");
    assert.equal(reviewTitle({ ...base, predicate: "no_placeholder", category: "pack_definition", failingOnly: true }),
      "Review: run b.jsonl (pack_definition, no_placeholder, failing)");
  });

  it("accept only a list of non-empty glob strings", () => {
    assert.deepEqual(transcriptGlobs(["**/runs/*.jsonl"]), ["**/runs/*.jsonl"]);
    assert.deepEqual(transcriptGlobs([]), []);
    assert.equal(transcriptGlobs("**/runs/*.jsonl"), null);
    assert.equal(transcriptGlobs(["ok", ""]), null);
    assert.equal(transcriptGlobs([3]), null);
  });
});

describe("NewestOnly", () => {
  it("keeps only the newest request's answer", () => {
    const requests = new NewestOnly();
    const first = requests.next();
    assert.equal(requests.isNewest(first), true);
    const second = requests.next();
    assert.equal(requests.isNewest(first), false, "an answer overtaken by a newer request is dropped");
    assert.equal(requests.isNewest(second), true);
    assert.notEqual(first, second);
  });
});

describe("opening a run file", () => {
  it("reads surfaceLint.review.openTranscripts, `both` unless a mode is given", () => {
    assert.equal(openMode("review"), "review");
    assert.equal(openMode("text"), "text");
    assert.equal(openMode("both"), "both");
    for (const other of [undefined, null, "Review", 3, ["text"]]) {
      assert.equal(openMode(other), "both");
    }
  });

  it("has the setting in package.json with the same modes and default", () => {
    const manifest = JSON.parse(fs.readFileSync(path.join(__dirname, "..", "..", "..", "package.json"), "utf8")) as {
      contributes: { configuration: { properties: Record<string, { enum: string[]; default: string }> } };
    };
    const setting = manifest.contributes.configuration.properties["surfaceLint.review.openTranscripts"];
    assert.deepEqual(setting?.enum, [...OPEN_MODES]);
    assert.equal(setting?.default, "both");
  });

  it("names a run in the picker by its workspace-relative path, never its absolute one", () => {
    assert.deepEqual(runPickItem({ name: "captures/dev.jsonl", lane: "calibration", turns: 36 }), {
      label: "captures/dev.jsonl",
      description: "calibration · 36 turn(s)",
    });
  });
});
