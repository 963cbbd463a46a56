// End to end, review: a case file's code lenses show each case in its newest run and open the
// turn; Peek References lists a case's turns in every run; the transcript review marks failing
// spans, filters from its own links and follows unsaved edits; two runs side by side. Needs what
// vscode.e2e.test.ts needs (scripts/ci-e2e.sh). Screenshots land in test-artifacts/e2e-review/
// and, for the README, in ../docs/.
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { after, before, describe, it } from "node:test";

import type { Frame, Page } from "playwright-core";

import { REVIEW_CSP } from "../../src/review/page";
import { ARTIFACTS, EXTENSION_ROOT, e2eConfig, makeBareVenv, makeTempRoot, startVsCode, type VsCodeSession } from "./harness";
import { goTo, openFromExplorer, runCommand, screenshot, waitForEditorLine } from "./workbench";

// Our own fixtures, shared with the Python tests (tests/fixtures/review/workspace).
const FIXTURES = path.resolve(EXTENSION_ROOT, "..", "tests", "fixtures", "review", "workspace");
const CASES = "evals/deterministic_fluency/public/v1/cases.jsonl";
const RUN_A = "transcripts/run_a.jsonl";
const RUN_B = "transcripts/run_b.jsonl";
const RUN_C = "runs/run_c.jsonl";
const SCREENSHOTS = path.join(ARTIFACTS, "e2e-review");
const DOCS = path.resolve(EXTENSION_ROOT, "..", "docs");

function fixtureFiles(): Record<string, string> {
  const out: Record<string, string> = {};
  for (const relative of [CASES, RUN_A, RUN_B, RUN_C]) {
    out[relative] = fs.readFileSync(path.join(FIXTURES, relative), "utf8");
  }
  return out;
}

/** Code lens titles drawn in the active editor, per line of text they sit above (top to bottom). */
async function lensTitles(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const editor = document.querySelector(".editor-group-container.active .monaco-editor") ?? document;
    return [...editor.querySelectorAll(".codelens-decoration")]
      .sort((a, b) => a.getBoundingClientRect().top - b.getBoundingClientRect().top)
      .map((element) => (element.textContent ?? "").replace(/\u00a0/g, " "));
  });
}

async function waitForLenses(page: Page, predicate: (titles: string[]) => boolean, timeoutMs = 30_000): Promise<string[]> {
  const deadline = Date.now() + timeoutMs;
  let titles = await lensTitles(page);
  while (!predicate(titles)) {
    if (Date.now() > deadline) {
      throw new Error(`code lenses not as expected; last seen: ${JSON.stringify(titles)}`);
    }
    await page.waitForTimeout(250);
    titles = await lensTitles(page);
  }
  return titles;
}

/** The webview frame whose document has `selector` with text matching `pattern`. */
async function webviewFrame(page: Page, selector: string, pattern: RegExp, timeoutMs = 20_000): Promise<Frame> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    for (const frame of page.frames()) {
      const text = await frame
        .evaluate((wanted) => document.querySelector(wanted)?.textContent ?? null, selector)
        .catch(() => null);
      if (text !== null && pattern.test(text)) {
        return frame;
      }
    }
    if (Date.now() > deadline) {
      throw new Error(`no webview shows ${selector} matching ${String(pattern)}`);
    }
    await page.waitForTimeout(250);
  }
}

interface ShownTurn {
  where: string;
  caseId: string;
  status: string;
  marks: string[];
}

async function shownTurns(frame: Frame): Promise<ShownTurn[]> {
  return frame.evaluate(() =>
    [...document.querySelectorAll("#turns article")].map((article) => ({
      where: article.querySelector("h3 a")?.textContent ?? "",
      caseId: article.querySelector("h3 code")?.textContent ?? "",
      status: article.querySelector(".badge")?.textContent ?? "",
      marks: [...article.querySelectorAll(".surface mark")].map((m) => m.textContent ?? ""),
    })),
  );
}

async function waitForTurns(page: Page, predicate: (turns: ShownTurn[]) => boolean, timeoutMs = 20_000): Promise<{ frame: Frame; turns: ShownTurn[] }> {
  const deadline = Date.now() + timeoutMs;
  let last: ShownTurn[] = [];
  for (;;) {
    const frame = await webviewFrame(page, "#turns", /\S|^$/, Math.max(1000, deadline - Date.now())).catch(() => null);
    if (frame !== null) {
      last = await shownTurns(frame).catch(() => []);
      if (predicate(last)) {
        return { frame, turns: last };
      }
    }
    if (Date.now() > deadline) {
      throw new Error(`the review did not show the expected turns; last seen: ${JSON.stringify(last)}`);
    }
    await page.waitForTimeout(250);
  }
}

describe("surface-lint review in a real VS Code (code-server + headless Chromium)", { timeout: 600_000 }, () => {
  let vscode: VsCodeSession;
  let root: string;
  const started = Date.now();

  before(async () => {
    root = makeTempRoot();
    const config = e2eConfig();
    // As a new user: no surfaceLint setting, a Python with nothing installed; the .vsix's server.
    const bareBin = makeBareVenv(config.python, path.join(root, "bare-python"));
    vscode = await startVsCode({
      config,
      root,
      pathPrepend: [bareBin],
      workspaceFiles: fixtureFiles(),
      userSettings: {
        "workbench.startupEditor": "none",
        "workbench.tips.enabled": false,
        "explorer.compactFolders": false,
        "files.autoSave": "off",
        "extensions.autoCheckUpdates": false,
        "extensions.autoUpdate": false,
        "extensions.ignoreRecommendations": true,
        "telemetry.telemetryLevel": "off",
        "editor.minimap.enabled": false,
      },
    });
    // Oldest to newest: run_c, run_a, run_b (the server orders runs by modification time).
    [RUN_C, RUN_A, RUN_B].forEach((relative, i) => {
      const when = new Date(Date.UTC(2026, 0, 1, 0, i));
      fs.utimesSync(path.join(vscode.workspace, relative), when, when);
    });
  });

  after(async () => {
    await vscode?.close();
    fs.mkdirSync(ARTIFACTS, { recursive: true });
    const logs = path.join(root, "user-data", "logs");
    if (fs.existsSync(logs)) {
      for (const file of fs.readdirSync(logs, { recursive: true, encoding: "utf8" })) {
        if (file.endsWith("surface-lint.log")) {
          fs.copyFileSync(path.join(logs, file), path.join(ARTIFACTS, "extension-output-review.log"));
        }
      }
    }
    fs.writeFileSync(path.join(ARTIFACTS, "code-server-review.log"), vscode?.log ?? "");
    if (process.env.KEEP_E2E_ROOT === undefined) {
      fs.rmSync(root, { recursive: true, force: true });
    } else {
      console.log(`e2e workspace, user data and logs kept in ${root}`);
    }
    console.log(`review e2e wall time: ${((Date.now() - started) / 1000).toFixed(1)} s`);
  });

  const step = (name: string, fn: () => Promise<void>): void => {
    it(name, { timeout: 120_000 }, async () => {
      try {
        await fn();
      } catch (error) {
        await screenshot(vscode.page, SCREENSHOTS, `failed-${name.replace(/\W+/g, "-")}`).catch(() => undefined);
        throw error;
      }
    });
  };

  const keep = async (name: string): Promise<void> => {
    const shot = await screenshot(vscode.page, SCREENSHOTS, name);
    fs.mkdirSync(DOCS, { recursive: true });
    fs.copyFileSync(shot, path.join(DOCS, `${name}.png`));
  };

  step("shows each case's verdicts in its newest run above it in the case file", async () => {
    await openFromExplorer(vscode.page, CASES);
    const titles = await waitForLenses(vscode.page, (t) => t.length === 4, 60_000);
    assert.deepEqual(titles, [
      "✓ pass in run_b.jsonl:1 (newest of 2 runs) · ✓ SL101 SL102 SL103 SL104 SL105 SL106 | surface: “A river is water that moves toward the sea.”",
      "✗ fail in run_b.jsonl:2 (newest of 3 runs) · ✗ no_placeholder · ✓ SL102 SL103 SL104 SL105 SL106 | surface: “💡 A lamp is <pending> light...”",
      "✗ fail in run_b.jsonl:3 (newest of 2 runs) · ✗ complete_punctuation · ✗ finite_predicate_shape · ✓ SL101 SL102 SL105 SL106 | " +
        "surface: “zephyr <b>wind</b> & \"breeze\"”",
      "surface-lint: no run of this case found (3 run file(s) of deterministic_fluency searched)",
    ]);
    await keep("review-case-lenses");
  });

  step("opens the turn when its lens is clicked", async () => {
    await vscode.page.locator(".codelens-decoration a", { hasText: "✗ fail in run_b.jsonl:2" }).first().click();
    await vscode.page.locator('.tabs-container .tab.active[data-resource-name="run_b.jsonl"]').first().waitFor({ timeout: 15_000 });
    await vscode.page.locator(".statusbar", { hasText: "Ln 2, Col 1" }).waitFor({ timeout: 10_000 });
  });

  step("lists a case's turns in every run with Peek References", async () => {
    await openFromExplorer(vscode.page, CASES);
    await waitForLenses(vscode.page, (t) => t.length === 4);
    await vscode.page.locator(".editor-group-container.active .monaco-editor .view-lines").click();
    await goTo(vscode.page, 2, 3);
    await vscode.page.keyboard.press("Shift+F12");
    const tree = vscode.page.locator(".peekview-widget .ref-tree");
    await tree.waitFor({ timeout: 20_000 });
    await vscode.page.locator(".peekview-widget .peekview-title", { hasText: "References (5)" }).waitFor({ timeout: 20_000 });
    const rows = await tree.locator(".monaco-list-row").evaluateAll((elements) =>
      elements.map((e) => (e as HTMLElement).innerText.replace(/\s+/g, " ").trim()),
    );
    // One group per file (name, folder, count; the case itself first, as includeDeclaration asks).
    assert.deepEqual(rows.filter((row) => /^\S+\.jsonl/.test(row)), [
      "cases.jsonlevals/deterministic_fluency/public/v1 1",
      "run_c.jsonlruns 2",
      "run_a.jsonltranscripts 1",
      "run_b.jsonltranscripts 1",
    ], JSON.stringify(rows));
    await keep("review-references");
    await vscode.page.keyboard.press("Escape");
  });

  step("reviews a transcript: readable turns, failing spans marked, no script", async () => {
    await openFromExplorer(vscode.page, RUN_B);
    await runCommand(vscode.page, "surface-lint: Review this transcript");
    const { frame, turns } = await waitForTurns(vscode.page, (t) => t.length === 3);
    assert.deepEqual(turns, [
      { where: "run_b.jsonl:1", caseId: "rv_river_001", status: "pass", marks: [] },
      { where: "run_b.jsonl:2", caseId: "rv_lamp_002", status: "fail", marks: ["<pending>", "..."] },
      { where: "run_b.jsonl:3", caseId: "rv_zephyr_003", status: "fail", marks: ['zephyr <b>wind</b> & "breeze', '"'] },
    ]);
    const page = await frame.evaluate(() => ({
      csp: document.querySelector('meta[http-equiv="Content-Security-Policy"]')?.getAttribute("content") ?? null,
      scripts: document.querySelectorAll("script").length,
      bold: document.querySelectorAll(".surface b").length,
    }));
    assert.deepEqual(page, { csp: REVIEW_CSP, scripts: 0, bold: 0 });
    await keep("review-transcript");
  });

  step("filters the review from its own links", async () => {
    const { frame } = await waitForTurns(vscode.page, (t) => t.length === 3);
    await frame.locator("a.chip", { hasText: "SL103 complete_punctuation (1)" }).click();
    const filtered = await waitForTurns(vscode.page, (t) => t.length === 1);
    assert.deepEqual(filtered.turns.map((t) => t.caseId), ["rv_zephyr_003"]);
    await vscode.page.locator(".tabs-container .tab", { hasText: "Review: run_b.jsonl (complete_punctuation)" }).waitFor({ timeout: 10_000 });
    await filtered.frame.locator("a.chip", { hasText: "any" }).click();
    await waitForTurns(vscode.page, (t) => t.length === 3);
  });

  step("follows unsaved edits of the transcript", async () => {
    // The transcript is in the first editor group (the review sits beside it).
    await vscode.page.keyboard.press("Control+1");
    await vscode.page.locator('.editor-group-container.active .tab.active[data-resource-name="run_b.jsonl"]').waitFor({ timeout: 10_000 });
    const line = fixtureFiles()[RUN_B]?.split("\n")[0] ?? "";
    const afterStop = line.indexOf('sea."') + "sea.".length + 1; // 1-based column just after the full stop
    await vscode.page.locator(".editor-group-container.active .monaco-editor .view-lines").click();
    await goTo(vscode.page, 1, afterStop);
    await vscode.page.keyboard.press("Backspace");
    await waitForEditorLine(vscode.page, 1, /toward the sea", "grounding_source"/);
    const { turns } = await waitForTurns(vscode.page, (t) => t[0]?.status === "fail");
    assert.deepEqual(turns[0], { where: "run_b.jsonl:1", caseId: "rv_river_001", status: "fail", marks: ["a"] });
    assert.equal(fs.readFileSync(path.join(vscode.workspace, RUN_B), "utf8"), fixtureFiles()[RUN_B], "not saved");
  });

  step("compares two runs of the lane side by side", async () => {
    await runCommand(vscode.page, "surface-lint: Compare two runs of this lane");
    const pick = async (name: string): Promise<void> => {
      const row = vscode.page.locator(".quick-input-widget .monaco-list-row", { hasText: name });
      await row.first().waitFor({ timeout: 15_000 });
      await vscode.page.locator(".quick-input-widget input").fill(name);
      await vscode.page.keyboard.press("Enter");
    };
    await pick("run_b.jsonl");
    await vscode.page.locator(".quick-input-widget", { hasText: "the OLD run" }).waitFor({ timeout: 15_000 });
    await pick("run_a.jsonl");
    const frame = await webviewFrame(vscode.page, "#flips", /Flipped verdicts/);
    const shown = await frame.evaluate(() => ({
      header: document.querySelector("header h1")?.textContent ?? "",
      rows: [...document.querySelectorAll("table.flips tr[data-case]")].map((tr) =>
        [...tr.querySelectorAll("td")].map((td) => td.textContent ?? "").join(" | "),
      ),
      sides: [...document.querySelectorAll("article .sides")].map((s) =>
        [...s.querySelectorAll(".surface")].map((d) => d.textContent ?? ""),
      ),
      filtersShown: [...document.querySelectorAll(".filters")].some((f) => (f as HTMLElement).offsetParent !== null),
    }));
    assert.equal(shown.header, "surface-lint diff · deterministic_fluency REGRESSED");
    // The unsaved edit of run_b (river lost its full stop) is what is compared: river did not flip.
    assert.deepEqual(shown.rows, [
      "rv_lamp_002 | SL101 no_placeholder | pass | FAIL",
      "rv_zephyr_003 | SL103 complete_punctuation | pass | FAIL",
      "rv_zephyr_003 | SL104 finite_predicate_shape | pass | FAIL",
    ]);
    assert.deepEqual(shown.sides, [
      ["A lamp is a light you carry.", "💡 A lamp is <pending> light..."],
      ["I do not know zephyr yet; teach me.", 'zephyr <b>wind</b> & "breeze"'],
    ]);
    assert.equal(shown.filtersShown, false, "the report's script-driven filters are hidden in the webview");
    await keep("review-run-diff");
  });

  step("follows edits of either run in the diff", async () => {
    // Put run_b's full stop back (unsaved): river flips fail -> pass again. The diff opened as a
    // tab next to run_b's editor.
    await vscode.page.locator('.tabs-container .tab[data-resource-name="run_b.jsonl"]').first().click();
    await vscode.page.locator('.editor-group-container.active .tab.active[data-resource-name="run_b.jsonl"]').waitFor({ timeout: 10_000 });
    const line = fixtureFiles()[RUN_B]?.split("\n")[0] ?? "";
    await vscode.page.locator(".editor-group-container.active .monaco-editor .view-lines").click();
    await goTo(vscode.page, 1, line.indexOf('sea."') + "sea".length + 1);
    await vscode.page.keyboard.type(".");
    await waitForEditorLine(vscode.page, 1, /toward the sea\.", "grounding_source"/);
    await vscode.page.locator(".tabs-container .tab", { hasText: "Diff: run_a.jsonl → run_b.jsonl" }).first().click();
    const frame = await webviewFrame(vscode.page, "#flips", /Flipped verdicts \(3 case/);
    const rows = await frame.evaluate(() =>
      [...document.querySelectorAll("table.flips tr[data-case]")].map((tr) =>
        [...tr.querySelectorAll("td")].map((td) => td.textContent ?? "").join(" | "),
      ),
    );
    assert.deepEqual(rows[0], "rv_river_001 | SL103 complete_punctuation | fail | pass");
    assert.equal(rows.length, 4);
  });

  step("opening a run shows its review beside the text: context turns folded, the text keeps the focus", async () => {
    // No surfaceLint setting: surfaceLint.review.openTranscripts is `both`.
    await openFromExplorer(vscode.page, RUN_C);
    const frame = await webviewFrame(vscode.page, "header h1", /run_c\.jsonl/);
    const shown = await frame.evaluate(() => ({
      meta: document.querySelector("header .meta")?.textContent ?? "",
      scored: [...document.querySelectorAll("#turns article h3 code")].map((c) => c.textContent ?? ""),
      folded: [...document.querySelectorAll("#turns details")].map((d) => ({
        open: (d as HTMLDetailsElement).open,
        summary: (d.querySelector("summary") as HTMLElement | null)?.innerText.replace(/\s+/g, " ").trim() ?? "",
      })),
    }));
    assert.deepEqual(shown, {
      meta: "lane deterministic_fluency · profile contract · 2 turn(s), 1 scored, 0 failing · 2 shown",
      scored: ["rv_lamp_002"],
      folded: [{ open: false, summary: "run_c.jsonl:1 rv_lamp_002 pack_definition · priming context not scored" }],
    });
    await vscode.page.locator('.editor-group-container.active .tab.active[data-resource-name="run_c.jsonl"]').waitFor({ timeout: 10_000 });
    await screenshot(vscode.page, SCREENSHOTS, "review-opened-beside");
  });
});
