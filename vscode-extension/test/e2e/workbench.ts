// What a person does in the VS Code workbench, as Playwright steps (selectors of VS Code 1.100).
import * as fs from "node:fs";
import * as path from "node:path";

import type { Page } from "playwright-core";

export interface Squiggle {
  /** error | warning | info | hint */
  kind: string;
  /** 1-based editor line the squiggle is drawn on. */
  line: number | null;
  /** Its centre on the page, to point the mouse at. */
  x: number;
  y: number;
}

export interface ProblemRow {
  /** The file row it sits under (the file's name). */
  file: string;
  message: string;
  code: string;
  line: number;
  column: number;
}

/** Opens a file by clicking it in the explorer (folders are expanded on the way); resolves to the
 * time (Date.now()) of the click on the file itself, once its tab is active. */
export async function openFromExplorer(page: Page, relativePath: string): Promise<number> {
  const parts = relativePath.split("/");
  const rows = page.locator(".explorer-folders-view .monaco-list-row");
  await rows.first().waitFor({ timeout: 60_000 });
  let clicked = Date.now();
  for (const [index, name] of parts.entries()) {
    const row = rows.filter({ has: page.locator(".label-name", { hasText: new RegExp(`^${name.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}$`) }) });
    await row.first().waitFor({ timeout: 15_000 });
    const isFolder = index < parts.length - 1;
    const expanded = await row.first().getAttribute("aria-expanded");
    if (!isFolder || expanded !== "true") {
      clicked = Date.now();
      await row.first().click();
    }
  }
  const fileName = parts[parts.length - 1] ?? relativePath;
  // The file's own tab (by resource name): a review beside it is titled "Review: <name>" and active in its group.
  await page.locator(`.tabs-container .tab.active[data-resource-name="${fileName}"]`).first().waitFor({ timeout: 15_000 });
  return clicked;
}

/** Every squiggle in the active editor, with the line it is drawn on. */
export function squiggles(page: Page): Promise<Squiggle[]> {
  return page.evaluate(() => {
    const editor = document.querySelector(".editor-group-container.active .monaco-editor") ?? document;
    const numbers = [...editor.querySelectorAll(".margin-view-overlays .line-numbers")].map((element) => {
      const rect = element.getBoundingClientRect();
      return { line: Number(element.textContent), top: rect.top, bottom: rect.bottom };
    });
    return [...editor.querySelectorAll('[class*="squiggly-"]')].map((element) => {
      const rect = element.getBoundingClientRect();
      const x = rect.left + rect.width / 2;
      const y = rect.top + rect.height / 2;
      const hit = numbers.find((n) => y >= n.top && y < n.bottom);
      const kind = /squiggly-(\w+)/.exec(element.className)?.[1] ?? "?";
      return { kind, line: hit?.line ?? null, x, y };
    });
  });
}

/** Opens the Problems panel and reads its marker rows (file rows skipped). */
export async function problems(page: Page): Promise<ProblemRow[]> {
  if (!(await page.locator(".markers-panel").isVisible())) {
    await page.keyboard.press("Control+Shift+M");
  }
  await page.locator(".markers-panel").waitFor({ state: "visible", timeout: 10_000 });
  const shown = await page.locator(".markers-panel .monaco-list-row").evaluateAll((elements) =>
    elements.map((element) => ({
      text: (element as HTMLElement).innerText,
      fileName: element.querySelector(".label-name")?.textContent ?? null,
    })),
  );
  const rows: ProblemRow[] = [];
  let file = "";
  for (const { text, fileName } of shown) {
    const position = /\[Ln (\d+), Col (\d+)\]/.exec(text);
    const code = /\b(SL\d{3})\b/.exec(text);
    if (position === null) {
      file = fileName ?? ""; // a file row
      continue;
    }
    if (code === null) {
      continue;
    }
    rows.push({
      file,
      message: text.split("\n")[0] ?? text,
      code: code[1] ?? "",
      line: Number(position[1]),
      column: Number(position[2]),
    });
  }
  return rows.sort((a, b) => a.file.localeCompare(b.file) || a.line - b.line || a.column - b.column);
}

/** Moves the editor cursor with Go to Line (`line:column`, 1-based). */
export async function goTo(page: Page, line: number, column: number): Promise<void> {
  await page.keyboard.press("Control+g");
  const input = page.locator(".quick-input-widget input");
  await input.waitFor({ state: "visible", timeout: 10_000 });
  await input.fill(`:${line}:${column}`);
  await page.keyboard.press("Enter");
  await input.waitFor({ state: "hidden", timeout: 10_000 });
  await page.locator(".statusbar", { hasText: `Ln ${line}, Col ${column}` }).waitFor({ timeout: 10_000 });
}

/** Hovers the first squiggle of `kind` drawn on `line` and returns the hover's text. */
export async function hoverSquiggle(page: Page, kind: string, line: number, expected: RegExp): Promise<string> {
  const hover = page.locator(".monaco-hover-content", { hasText: expected });
  for (let attempt = 1; ; attempt += 1) {
    // Measured anew each attempt: code lenses arriving after the measurement move the lines under the pointer.
    const box = (await squiggles(page)).find((squiggle) => squiggle.kind === kind && squiggle.line === line);
    if (box === undefined) {
      throw new Error(`no ${kind} squiggle on line ${line}`);
    }
    await page.mouse.move(box.x - 20, box.y - 40);
    await page.mouse.move(box.x, box.y, { steps: 5 });
    try {
      await hover.first().waitFor({ state: "visible", timeout: 5_000 });
      return await hover.first().innerText();
    } catch (error) {
      if (attempt === 3) {
        throw error;
      }
      await page.mouse.move(0, 0);
    }
  }
}

/** Opens the quick-fix menu at the cursor (Ctrl+.) and applies the action titled `title`. */
export async function applyQuickFix(page: Page, title: string): Promise<string[]> {
  await page.keyboard.press("Control+.");
  const menu = page.locator(".action-widget");
  await menu.waitFor({ state: "visible", timeout: 10_000 });
  await menu.locator(".monaco-list-row.action").first().waitFor({ timeout: 10_000 });
  const offered = await menu.locator(".monaco-list-row.action").evaluateAll((rows) =>
    rows.map((row) => row.getAttribute("aria-label") ?? ""),
  );
  if (!offered.includes(title)) {
    await page.keyboard.press("Escape");
    throw new Error(`quick fix ${JSON.stringify(title)} not offered; offered: ${JSON.stringify(offered)}`);
  }
  // The menu sits under a pointer-blocking layer: choose with the keyboard, as a person can.
  for (let step = 0; step < offered.length + 2; step += 1) {
    const focused = await menu.locator(".monaco-list-row.focused").getAttribute("aria-label");
    if (focused === title) {
      break;
    }
    await page.keyboard.press("ArrowDown");
  }
  await page.keyboard.press("Enter");
  await menu.waitFor({ state: "hidden", timeout: 10_000 });
  return offered;
}

/** The text of the active editor's line `line` (1-based), as rendered. */
export async function editorLine(page: Page, line: number): Promise<string> {
  return page.evaluate((wanted) => {
    const editor = document.querySelector(".editor-group-container.active .monaco-editor");
    if (editor === null) {
      return "";
    }
    const numbers = [...editor.querySelectorAll(".margin-view-overlays .line-numbers")];
    const number = numbers.find((element) => Number(element.textContent) === wanted);
    if (number === undefined) {
      return "";
    }
    const top = number.getBoundingClientRect().top;
    const lineElement = [...editor.querySelectorAll(".view-lines .view-line")].find(
      (element) => Math.abs(element.getBoundingClientRect().top - top) < 2,
    );
    // Monaco renders spaces as U+00A0.
    return (lineElement?.textContent ?? "").replace(/\u00a0/g, " ");
  }, line);
}

/** Runs a command from the command palette by its title. */
export async function runCommand(page: Page, title: string): Promise<void> {
  await page.keyboard.press("Control+Shift+P");
  const input = page.locator(".quick-input-widget input");
  await input.waitFor({ state: "visible", timeout: 10_000 });
  await input.fill(`>${title}`);
  const item = page.locator(".quick-input-widget .monaco-list-row", { hasText: title });
  await item.first().waitFor({ timeout: 10_000 });
  await page.keyboard.press("Enter");
}

export async function screenshot(page: Page, directory: string, name: string): Promise<string> {
  fs.mkdirSync(directory, { recursive: true });
  const file = path.join(directory, `${name}.png`);
  await page.screenshot({ path: file });
  return file;
}

/** Waits until `predicate(squiggles)` holds, returning the last squiggles seen. */
export async function waitForSquiggles(
  page: Page,
  predicate: (found: Squiggle[]) => boolean,
  timeoutMs = 20_000,
  pollMs = 200,
): Promise<Squiggle[]> {
  const deadline = Date.now() + timeoutMs;
  let found = await squiggles(page);
  while (!predicate(found)) {
    if (Date.now() > deadline) {
      throw new Error(`squiggles did not settle as expected; last seen: ${JSON.stringify(found)}`);
    }
    await page.waitForTimeout(pollMs);
    found = await squiggles(page);
  }
  return found;
}

/** Text of the first webview whose element `selector` has text matching `pattern` (webviews are nested iframes). */
export async function webviewText(
  page: Page,
  selector: string,
  pattern: RegExp = /\S/,
  timeoutMs = 15_000,
): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  let seen: string[] = [];
  for (;;) {
    seen = [];
    for (const frame of page.frames()) {
      const text = await frame
        .evaluate((wanted) => document.querySelector(wanted)?.textContent ?? null, selector)
        .catch(() => null);
      if (text !== null) {
        seen.push(text);
        if (pattern.test(text)) {
          return text;
        }
      }
    }
    if (Date.now() > deadline) {
      throw new Error(`no webview shows ${selector} matching ${String(pattern)}; seen: ${JSON.stringify(seen)}`);
    }
    await page.waitForTimeout(250);
  }
}

/** Reads the Problems panel until `predicate(rows)` holds (it updates a moment after the editor). */
export async function waitForProblems(
  page: Page,
  predicate: (rows: ProblemRow[]) => boolean,
  timeoutMs = 15_000,
): Promise<ProblemRow[]> {
  const deadline = Date.now() + timeoutMs;
  let rows = await problems(page);
  while (!predicate(rows) && Date.now() < deadline) {
    await page.waitForTimeout(250);
    rows = await problems(page);
  }
  return rows;
}

/** Waits until the active editor's line `line` matches `pattern` (Monaco renders on the next frame). */
export async function waitForEditorLine(page: Page, line: number, pattern: RegExp, timeoutMs = 10_000): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  let text = await editorLine(page, line);
  while (!pattern.test(text)) {
    if (Date.now() > deadline) {
      throw new Error(`line ${line} does not match ${String(pattern)}: ${JSON.stringify(text)}`);
    }
    await page.waitForTimeout(100);
    text = await editorLine(page, line);
  }
  return text;
}
