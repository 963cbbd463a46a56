// End to end: the packaged extension in a real VS Code (code-server) shows surface-lint's server
// findings as a person sees them, with zero set-up: no surfaceLint setting, and the only Python
// first on PATH is a bare venv (made from SURFACE_LINT_PYTHON) with nothing installed, so the
// server and its dependencies (the compiled google-re2 included) come from the .vsix. Needs code-server and
// Chromium (see scripts/ci-e2e.sh).
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { after, before, describe, it } from "node:test";

import { which } from "../../src/core/which";
import { PATH_INTERPRETERS } from "../../src/core/serverCommand";
import {
  ARTIFACTS,
  EXTENSION_ROOT,
  canImport,
  e2eConfig,
  extensionLog,
  makeBareVenv,
  makeTempRoot,
  startVsCode,
  waitForExtensionHost,
  type VsCodeSession,
} from "./harness";
import {
  applyQuickFix,
  goTo,
  hoverSquiggle,
  openFromExplorer,
  runCommand,
  screenshot,
  squiggles,
  waitForSquiggles,
  waitForEditorLine,
  waitForProblems,
  webviewText,
  type ProblemRow,
} from "./workbench";

const CASE_FILE = "evals/deterministic_fluency/dev/cases.jsonl";
const TRANSCRIPT = "transcript.jsonl";

// Our own fixtures. Case dev_truth misspells a predicate (SL004, with a "did you mean" quick fix).
const CASE_LINES = [
  '{"id": "dev_truth", "prompt": "What is truth?", "category": "pack_definition", "expected_predicates": ["no_placeholder", "complete_punctation", "finite_predicate_shape"]}',
  '{"id": "dev_river", "prompt": "Where does the river go?", "category": "pack_definition", "expected_predicates": ["no_placeholder", "complete_punctuation"]}',
  '{"id": "dev_light", "prompt": "What is light?", "category": "pack_definition", "expected_predicates": ["no_placeholder", "complete_punctuation"]}',
  '{"id": "dev_smile", "prompt": "What is a smile?", "category": "pack_definition", "expected_predicates": ["no_placeholder", "complete_punctuation"]}',
];
// Turn 1 passes; 2 lacks terminal punctuation (SL103); 3 and 4 hold a placeholder (SL101), 4 after
// an emoji, so its column is right only if the server counts UTF-16 code units as VS Code does.
// Each failing predicate is in its case's expected_predicates, so each finding is an error.
const TRANSCRIPT_LINES = [
  '{"case_id": "dev_truth", "turn_index": 0, "prompt": "What is truth?", "surface": "Truth is what is real. pack-grounded (en_demo_epistemic_v1).", "grounding_source": "pack"}',
  '{"case_id": "dev_river", "turn_index": 0, "prompt": "Where does the river go?", "surface": "river flows valley", "grounding_source": "none"}',
  '{"case_id": "dev_light", "turn_index": 0, "prompt": "What is light?", "surface": "Light is ... bright.", "grounding_source": "none"}',
  '{"case_id": "dev_smile", "turn_index": 0, "prompt": "What is a smile?", "surface": "A smile \u{1F642} is ... warm.", "grounding_source": "none"}',
];

/** 1-based UTF-16 column of `needle` in `line` (what VS Code shows as Col). */
function columnOf(line: string, needle: string, offset = 0): number {
  const index = line.indexOf(needle);
  assert.ok(index >= 0, `${needle} not in ${line}`);
  return index + offset + 1;
}

const RIVER_END = columnOf(TRANSCRIPT_LINES[1] ?? "", "river flows valley", "river flows valley".length - 1);
type Where = Pick<ProblemRow, "code" | "line" | "column">;
const EXPECTED_TRANSCRIPT_PROBLEMS: Where[] = [
  { code: "SL103", line: 2, column: RIVER_END },
  { code: "SL101", line: 3, column: columnOf(TRANSCRIPT_LINES[2] ?? "", "...") },
  { code: "SL101", line: 4, column: columnOf(TRANSCRIPT_LINES[3] ?? "", "...") },
];
const TYPO_COLUMN = columnOf(CASE_LINES[0] ?? "", '"complete_punctation"');
const TYPO_FIX = "Replace with `complete_punctuation`";

const SCREENSHOTS = path.join(ARTIFACTS, "e2e");
/**
 * Issue 18's target: first squiggles within 2 s of opening a file in a cold editor (its window and extension host
 * up, surface-lint not activated, no server), from the click on it to its first squiggle (docs/editor.md). The
 * time, its timeline (from the launch of the window too) and the load are written to test-artifacts
 * (e2e-cold-open.json) and printed.
 */
const COLD_OPEN_TARGET_MS = 2000;
const COLD_OPEN_CEILING_MS = 15000;
/** The 1-minute load average at most which the 2 s target is asserted (a quiet machine). */
const COLD_OPEN_QUIET_LOAD = 1.0;
/** After writing the files, before the click: the explorer's file watcher shows them and the editor settles. */
const COLD_OPEN_SETTLE_MS = 1500;

describe("surface-lint in a real VS Code (code-server + headless Chromium)", { timeout: 600_000 }, () => {
  let vscode: VsCodeSession;
  let root: string;
  let firstSquiggleMs = Number.NaN;
  let coldOpenLoad = Number.NaN;
  const started = Date.now();

  before(async () => {
    root = makeTempRoot();
    const config = e2eConfig();
    const bareBin = makeBareVenv(config.python, path.join(root, "bare-python"));
    vscode = await startVsCode({
      config,
      root,
      pathPrepend: [bareBin],
      // Nothing surface-lint lints or activates on (workspaceContains) until the editor is up: the
      // case file and the transcript are written then, so the transcript is the session's first file.
      workspaceFiles: { "README.md": "A workspace for the end-to-end test.\n" },
      // The server says on stderr when it answered the first pull before its import (lsp/first.py).
      env: { SURFACE_LINT_TRACE_TIMING: "1" },
      // No surfaceLint.* setting at all: zero set-up.
      userSettings: {
        "workbench.startupEditor": "none",
        "workbench.tips.enabled": false,
        "explorer.compactFolders": false,
        "files.autoSave": "off",
        "extensions.autoCheckUpdates": false,
        "extensions.autoUpdate": false,
        "extensions.ignoreRecommendations": true,
        "telemetry.telemetryLevel": "off",
        "editor.hover.delay": 200,
        "editor.minimap.enabled": false,
      },
    });
    // A cold editor (docs/editor.md, "Cold open"): the window is up and its extension host has activated
    // every eager extension, surface-lint has not activated and no server runs; the transcript is then
    // the first file opened. The clock runs from the click on it to its first squiggle.
    const hostReady = await waitForExtensionHost(vscode.userData);
    const hostLog = (): string => extensionLog(vscode.userData, "remoteexthost.log");
    assert.ok(!hostLog().includes("_doActivateExtension surface-lint.surface-lint"), "surface-lint activated before the click");
    assert.deepEqual(vscode.processesInWorkspace().filter((p) => p.commandLine.includes("surface_lint")), [], "a server runs before the click");
    for (const [relative, text] of Object.entries({
      [CASE_FILE]: CASE_LINES.join("\n") + "\n",
      [TRANSCRIPT]: TRANSCRIPT_LINES.join("\n") + "\n",
    })) {
      fs.mkdirSync(path.dirname(path.join(vscode.workspace, relative)), { recursive: true });
      fs.writeFileSync(path.join(vscode.workspace, relative), text);
    }
    await vscode.page.waitForTimeout(COLD_OPEN_SETTLE_MS); // the explorer shows the new files; the editor is idle again
    const loadAtClick = os.loadavg()[0];
    const clicked = await openFromExplorer(vscode.page, TRANSCRIPT);
    await waitForSquiggles(vscode.page, (s) => s.length >= 1, 60_000, 25);
    firstSquiggleMs = Date.now() - clicked;
    // Where the time went: the extension's own log lines, in ms from the click (negative: before it).
    const log = extensionLog(vscode.userData);
    // The editor's own: when its extension host started, and when it began to activate this extension.
    const hostAt = (needle: string): number | null => {
      const line = hostLog().split("\n").find((l) => l.includes(needle));
      const stamp = line === undefined ? Number.NaN : Date.parse(line.slice(0, 23).replace(" ", "T"));
      return Number.isNaN(stamp) ? null : stamp - clicked;
    };
    // The time a line says it was said (epochStamp), else its log timestamp (the channel's flush, later).
    const at = (needle: string): number | null => {
      const line = log.split("\n").find((l) => l.includes(needle));
      const said = line === undefined ? undefined : /\(at (\d+) ms since the epoch\)/.exec(line)?.[1];
      const stamp = said !== undefined ? Number(said) : line === undefined ? Number.NaN : Date.parse(line.slice(0, 23).replace(" ", "T"));
      return Number.isNaN(stamp) ? null : stamp - clicked;
    };
    const timeline = {
      firstSquiggleMs,
      // From the launch of the window (the page asked for) to the click: the editor's own start.
      launchMs: vscode.openedAt - clicked,
      extensionHostStartedMs: hostAt("Extension host with pid"),
      extensionHostReadyMs: hostReady - clicked,
      activatingMs: hostAt("_doActivateExtension surface-lint.surface-lint"),
      activatedMs: at("Activated"),
      serverStartingMs: at("Starting the server"),
      checkedMs: at("Checked "),
      serverRunningMs: at("Server is running"),
      // lsp/first.py's answer to the first pull (null: the whole server answered it).
      firstPullAnsweredMs: at("answered before the server's import"),
      // The old measure: from the launch of the window to the first squiggle (the click as soon as it could be).
      fromLaunchMs: Date.now() - vscode.openedAt,
      // The machine is shared: its load (1-minute average) and cores, with the time they qualify.
      loadAtClick,
      loadAtSquiggle: os.loadavg()[0],
      cores: os.cpus().length,
    };
    coldOpenLoad = Math.max(loadAtClick, timeline.loadAtSquiggle);
    fs.mkdirSync(ARTIFACTS, { recursive: true });
    fs.writeFileSync(path.join(ARTIFACTS, "e2e-cold-open.json"), JSON.stringify(timeline) + "\n");
    console.log(`first squiggles ${firstSquiggleMs} ms after clicking the file in a cold editor ` +
      `(from the click: the window launched ${timeline.launchMs} ms, its extension host started ${timeline.extensionHostStartedMs} ms ` +
      `and was ready ${timeline.extensionHostReadyMs} ms; activating the ` +
      `extension ${timeline.activatingMs} ms, activated ${timeline.activatedMs} ms, server starting ${timeline.serverStartingMs} ms, its launcher ` +
      `checked its Python ${timeline.checkedMs} ms, initialized ${timeline.serverRunningMs} ms, ` +
      `first pull answered before the server's import ${timeline.firstPullAnsweredMs} ms; load ${loadAtClick.toFixed(2)} → ` +
      `${timeline.loadAtSquiggle.toFixed(2)} on ${timeline.cores} cores)`);
    // Opening the transcript showed its review beside it (openTranscripts `both`, the default): the
    // steps below work in the text, at its full width, so the review's group is closed, as a user may.
    const review = vscode.page.locator(".tabs-container .tab", { hasText: `Review: ${TRANSCRIPT}` });
    await review.first().waitFor({ timeout: 30_000 });
    await screenshot(vscode.page, SCREENSHOTS, "00-transcript-and-review");
    await review.first().hover();
    await review.first().locator(".tab-actions .action-label").first().click();
    await openFromExplorer(vscode.page, TRANSCRIPT);
    await vscode.page.locator(".tabs-container .tab", { hasText: `Review: ${TRANSCRIPT}` }).waitFor({ state: "detached", timeout: 10_000 });
  });

  after(async () => {
    await vscode?.close();
    const logs = path.join(root, "user-data", "logs");
    if (fs.existsSync(logs)) {
      // Keep the extension's output channel next to the screenshots, for a failed run.
      for (const file of fs.readdirSync(logs, { recursive: true, encoding: "utf8" })) {
        if (file.endsWith("surface-lint.log")) {
          fs.mkdirSync(ARTIFACTS, { recursive: true });
          fs.copyFileSync(path.join(logs, file), path.join(ARTIFACTS, "extension-output.log"));
        }
      }
    }
    fs.writeFileSync(path.join(ARTIFACTS, "code-server.log"), vscode?.log ?? "");
    if (process.env.KEEP_E2E_ROOT === undefined) {
      fs.rmSync(root, { recursive: true, force: true });
    } else {
      console.log(`e2e workspace, user data and logs kept in ${root}`);
    }
    console.log(`e2e wall time: ${((Date.now() - started) / 1000).toFixed(1)} s`);
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

  step("has no surface-lint in any Python the extension can find (nor pygls, lsprotocol or re2 in the first)", () => {
    const found = [...new Set(PATH_INTERPRETERS.map((name) => which(name, { pathValue: vscode.path })).filter((p) => p !== undefined))];
    assert.ok(found.length > 0, `no Python on ${vscode.path}`);
    assert.equal(path.dirname(found[0] ?? ""), path.join(root, "bare-python", "bin"));
    for (const python of found) {
      assert.equal(canImport(python, "surface_lint"), false, `${python} has surface_lint`);
    }
    for (const module of ["pygls", "lsprotocol", "re2"]) {
      assert.equal(canImport(found[0] ?? "", module), false, `the bare venv has ${module}`);
    }
    assert.ok(!fs.readFileSync(vscode.userSettingsFile, "utf8").includes("surfaceLint"), "no surfaceLint setting");
    return Promise.resolve();
  });

  step("draws the first squiggles of a cold open within 2 s on a quiet machine, within the ceiling always", () => {
    // The 2 s target (issue 18) is asserted when the machine was quiet at the click (1-minute load
    // average at most COLD_OPEN_QUIET_LOAD); at load 3.8-7.7 on 2 cores it took 1.4-2.1 s (docs/editor.md). Under more
    // load the time follows the CPU the editor and the server get, so the step asserts the ceiling, a
    // regression guard, and prints the target's verdict with the load.
    const cores = os.cpus().length;
    const quiet = coldOpenLoad <= COLD_OPEN_QUIET_LOAD;
    const limit = quiet ? COLD_OPEN_TARGET_MS : COLD_OPEN_CEILING_MS;
    console.log(`first squiggles after ${firstSquiggleMs} ms: target ${COLD_OPEN_TARGET_MS} ms ` +
      `${firstSquiggleMs <= COLD_OPEN_TARGET_MS ? "(met)" : "(not met)"}; load ${coldOpenLoad.toFixed(2)} on ${cores} cores: ` +
      `asserting ${quiet ? "the target" : `the ${limit} ms ceiling (load above ${COLD_OPEN_QUIET_LOAD})`}`);
    assert.ok(firstSquiggleMs <= limit, `first squiggles after ${firstSquiggleMs} ms (limit ${limit} ms at load ${coldOpenLoad.toFixed(2)})`);
    return Promise.resolve();
  });

  step("draws squiggles on the failing surfaces' lines, and none on the passing one", async () => {
    const found = await waitForSquiggles(vscode.page, (s) => s.length >= 3);
    const lines = (kind: string): number[] =>
      [...new Set(found.filter((s) => s.kind === kind).map((s) => s.line))].sort() as number[];
    assert.deepEqual(lines("error"), [2, 3, 4]);
    assert.deepEqual(
      found.filter((s) => s.kind !== "error"),
      [],
      "every finding here breaks an expected predicate: errors only",
    );
    await screenshot(vscode.page, SCREENSHOTS, "01-squiggles");
  });

  step("lists the expected codes at [Ln, Col] in the Problems panel", async () => {
    const inTranscript = (rows: ProblemRow[]): Where[] =>
      rows.filter((row) => row.file === TRANSCRIPT).map(({ code, line, column }) => ({ code, line, column }));
    const rows = await waitForProblems(
      vscode.page,
      (found) => JSON.stringify(inTranscript(found)) === JSON.stringify(EXPECTED_TRANSCRIPT_PROBLEMS),
    );
    assert.deepEqual(inTranscript(rows), EXPECTED_TRANSCRIPT_PROBLEMS);
    const messages = rows.filter((row) => row.file === TRANSCRIPT).map((row) => row.message);
    assert.match(messages[0] ?? "", /complete_punctuation/);
    assert.match(messages[1] ?? "", /no_placeholder/);
    await screenshot(vscode.page, SCREENSHOTS, "02-problems");
  });

  step("shows the predicate's verdict on hover", async () => {
    // The diagnostic's own hover, then the server's: every predicate's verdict on this surface.
    const text = await hoverSquiggle(vscode.page, "error", 3, /✗ no_placeholder/);
    assert.match(text, /SL101/);
    assert.match(text, /case dev_light/);
    assert.match(text, /✗ no_placeholder — placeholder marker \.\.\. in the surface/);
    assert.match(text, /✓ complete_punctuation — passes/);
    const shot = await screenshot(vscode.page, SCREENSHOTS, "03-hover");
    fs.mkdirSync(path.join(EXTENSION_ROOT, "docs"), { recursive: true });
    fs.copyFileSync(shot, path.join(EXTENSION_ROOT, "docs", "screenshot.png"));
    await vscode.page.keyboard.press("Escape");
  });

  step("shows the file's lane and headline metric in the status bar", async () => {
    const item = vscode.page.locator(".statusbar-item", { hasText: "deterministic_fluency" });
    await item.first().waitFor({ timeout: 15_000 });
    // The server's text of the value (fmt_value: rates to 4 places, counts whole, `-` when unknown).
    assert.match(await item.first().innerText(), /deterministic_fluency · \S+ (\d+\.\d{4}|\d+|-)(?!\S)/);
  });

  step("clears a squiggle when the surface is fixed by typing, without saving", async () => {
    const onDisk = fs.readFileSync(path.join(vscode.workspace, TRANSCRIPT), "utf8");
    await vscode.page.locator(".editor-group-container.active .monaco-editor .view-lines").click();
    await goTo(vscode.page, 2, RIVER_END + 1);
    await vscode.page.keyboard.type(".");
    await waitForSquiggles(vscode.page, (s) => !s.some((q) => q.line === 2));
    await waitForEditorLine(vscode.page, 2, /"river flows valley\."/);
    const remaining = await squiggles(vscode.page);
    assert.deepEqual([...new Set(remaining.map((s) => s.line))].sort(), [3, 4]);
    assert.equal(fs.readFileSync(path.join(vscode.workspace, TRANSCRIPT), "utf8"), onDisk, "the file was not saved");
    await vscode.page.locator(".tabs-container .tab.active.dirty").waitFor({ timeout: 5_000 });
    await screenshot(vscode.page, SCREENSHOTS, "04-fixed-by-typing");
  });

  step("applies a quick fix from the editor and its diagnostic goes away", async () => {
    await openFromExplorer(vscode.page, CASE_FILE);
    await waitForSquiggles(vscode.page, (s) => s.some((q) => q.kind === "error" && q.line === 1));
    const before = await waitForProblems(vscode.page, (rows) => rows.some((row) => row.code === "SL004"));
    assert.ok(
      before.some(
        (row) => row.file === "cases.jsonl" && row.code === "SL004" && row.line === 1 && row.column === TYPO_COLUMN,
      ),
      `SL004 at [Ln 1, Col ${TYPO_COLUMN}] expected; got ${JSON.stringify(before)}`,
    );
    await vscode.page.locator(".editor-group-container.active .monaco-editor .view-lines").click();
    await goTo(vscode.page, 1, TYPO_COLUMN + 2);
    await screenshot(vscode.page, SCREENSHOTS, "05-before-quick-fix");
    await applyQuickFix(vscode.page, TYPO_FIX);
    await waitForSquiggles(vscode.page, (s) => !s.some((q) => q.line === 1));
    await waitForEditorLine(vscode.page, 1, /"no_placeholder", "complete_punctuation", "finite_predicate_shape"/);
    const after = await waitForProblems(vscode.page, (rows) => !rows.some((row) => row.code === "SL004"));
    assert.ok(!after.some((row) => row.code === "SL004"), `SL004 should be gone: ${JSON.stringify(after)}`);
    await screenshot(vscode.page, SCREENSHOTS, "06-after-quick-fix");
  });

  step("shows the lane score from the command palette", async () => {
    await openFromExplorer(vscode.page, TRANSCRIPT);
    await runCommand(vscode.page, "surface-lint: Score lane for this file");
    await vscode.page
      .locator(".tabs-container .tab", { hasText: "surface-lint: deterministic_fluency" })
      .waitFor({ timeout: 15_000 });
    const shown = await webviewText(vscode.page, "body.surface-lint-score", /deterministic_fluency/);
    assert.match(shown, /expected_predicates_pass_rate = 0\.5000\b/, "the score counts the unsaved fix of turn 2");
    await screenshot(vscode.page, SCREENSHOTS, "07-lane-score");
  });

  step("restarts a crashed server on its own (4 times), then stops and offers a restart", async () => {
    const bundledServers = (): number[] =>
      vscode
        .processesInWorkspace()
        .filter((p) => p.commandLine.includes("surface_lint_server.py") && !p.commandLine.includes("--check"))
        .map((p) => p.pid);
    const oneServerOtherThan = async (previous: number | undefined): Promise<number> => {
      const deadline = Date.now() + 30_000;
      for (;;) {
        const running = bundledServers();
        if (running.length === 1 && running[0] !== previous) {
          return running[0] ?? 0;
        }
        assert.ok(Date.now() < deadline, `one new server expected, found ${JSON.stringify(vscode.processesInWorkspace())}`);
        await vscode.page.waitForTimeout(200);
      }
    };
    const toasts = vscode.page.locator(".notifications-toasts .notification-toast");
    let server = await oneServerOtherThan(undefined);
    assert.match(
      vscode.processesInWorkspace().find((p) => p.pid === server)?.commandLine ?? "",
      /bare-python\/bin\/python3? \S+\/bundled\/tool\/surface_lint_server\.py$/,
      "the bundled server, run by the bare venv's Python",
    );
    for (let attempt = 1; attempt <= 4; attempt += 1) {
      process.kill(server, "SIGKILL");
      const toast = toasts.filter({
        // The server's last stderr line, if any, is quoted after the exit.
        hasText: new RegExp(`surface-lint server stopped unexpectedly \\(signal SIGKILL\\)(: .*)?\\. Restarting it \\(attempt ${attempt} of 4\\)\\.`),
      });
      await toast.first().waitFor({ timeout: 20_000 });
      if (attempt === 1) {
        await vscode.page.waitForTimeout(500); // let the toast finish sliding in
        await screenshot(vscode.page, SCREENSHOTS, "08-crash-restarted");
      }
      server = await oneServerOtherThan(server);
      await waitForSquiggles(vscode.page, (s) => s.some((q) => q.line === 3), 30_000);
    }
    process.kill(server, "SIGKILL");
    const gaveUp = toasts.filter({ hasText: "It crashed 5 times in 3 minutes, so it is not restarted again on its own." });
    await gaveUp.first().waitFor({ timeout: 20_000 });
    await vscode.page.waitForTimeout(1_500);
    assert.deepEqual(bundledServers(), [], "no restart after the fifth crash");
    await screenshot(vscode.page, SCREENSHOTS, "09-crash-gave-up");
    await gaveUp.first().locator(".monaco-button", { hasText: "Restart server" }).click();
    await oneServerOtherThan(server);
    await openFromExplorer(vscode.page, TRANSCRIPT);
    await waitForSquiggles(vscode.page, (s) => s.some((q) => q.line === 3), 30_000);
  });

  step("sends a settings change to the running server (run: onSave lints only on save)", async () => {
    // As a person would: edit settings.json in VS Code (a write behind its back goes unnoticed here).
    const settings = JSON.parse(fs.readFileSync(vscode.userSettingsFile, "utf8")) as Record<string, unknown>;
    const wanted = { ...settings, "surfaceLint.run": "onSave" };
    await runCommand(vscode.page, "Preferences: Open User Settings (JSON)");
    await vscode.page.locator(".tabs-container .tab.active", { hasText: "settings.json" }).waitFor({ timeout: 15_000 });
    await vscode.page.locator(".editor-group-container.active .monaco-editor .view-lines").click();
    await vscode.page.keyboard.press("Control+a");
    await vscode.page.keyboard.press("Delete");
    await vscode.page.keyboard.insertText(JSON.stringify(wanted));
    await vscode.page.keyboard.press("Control+s");
    await vscode.page.locator(".tabs-container .tab.active.dirty").waitFor({ state: "detached", timeout: 10_000 });
    assert.deepEqual(JSON.parse(fs.readFileSync(vscode.userSettingsFile, "utf8")), wanted);
    await vscode.page.waitForTimeout(1_500); // the client sends didChangeConfiguration, the server pulls the section
    await openFromExplorer(vscode.page, TRANSCRIPT);
    // Break turn 1's surface: drop its final period. onType would flag it at once.
    const line = TRANSCRIPT_LINES[0] ?? "";
    const period = columnOf(line, "(en_demo_epistemic_v1).", "(en_demo_epistemic_v1)".length);
    await vscode.page.locator(".editor-group-container.active .monaco-editor .view-lines").click();
    await goTo(vscode.page, 1, period + 1);
    await vscode.page.keyboard.press("Backspace");
    await waitForEditorLine(vscode.page, 1, /\(en_demo_epistemic_v1\)", "grounding_source"/);
    await vscode.page.waitForTimeout(2_500);
    assert.ok(
      !(await squiggles(vscode.page)).some((s) => s.line === 1),
      "with run=onSave an unsaved edit is not linted",
    );
    await vscode.page.keyboard.press("Control+s");
    // A warning: transcripts join the case files as saved, and dev_truth's saved case still
    // misspells complete_punctuation, so it is not an expected predicate there.
    await waitForSquiggles(vscode.page, (s) => s.some((q) => q.line === 1 && q.kind === "warning"));
    const rows = await waitForProblems(vscode.page, (found) =>
      found.some((row) => row.file === TRANSCRIPT && row.code === "SL103" && row.line === 1),
    );
    assert.ok(rows.some((row) => row.file === TRANSCRIPT && row.code === "SL103" && row.line === 1 && row.column === period - 1));
    // The score view follows the document it was opened for.
    await webviewText(vscode.page, "body.surface-lint-score", /expected_predicates_pass_rate = 0\.2500\b/);
    await screenshot(vscode.page, SCREENSHOTS, "10-run-on-save");
  });
});
