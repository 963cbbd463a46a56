// End to end, secure by default: in an untrusted (restricted mode) workspace, a user-level
// surfaceLint.interpreter of `${workspaceFolder}/.venv/bin/python` is refused and never run;
// without it the bundled server starts, told `trusted: false`; granting trust then sends
// surfaceLint/didGrantTrust to that same server instead of restarting it.
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { after, before, describe, it } from "node:test";

import { ARTIFACTS, e2eConfig, extensionLog, makeBareVenv, makeTempRoot, startVsCode, type VsCodeSession } from "./harness";
import { openFromExplorer, runCommand, screenshot, waitForSquiggles } from "./workbench";

const TRANSCRIPT = "transcript.jsonl";
const PLANTED = ".venv/bin/python";
const MARKER = "planted-python-ran";
// A workspace's own "python": it leaves a mark, then runs the real one (so that once trusted it works).
const PLANTED_PYTHON = `#!/bin/sh\necho "$@" >> "$(dirname "$0")/../../${MARKER}"\nexec python3 "$@"\n`;
const SETTING = "${workspaceFolder}/.venv/bin/python";
const REFUSAL =
  `surface-lint: surfaceLint.interpreter is "${SETTING}", which names a workspace folder or file; the workspace is not trusted, ` +
  "so surface-lint will not run it. Trust the workspace, or set surfaceLint.interpreter to an absolute path outside the workspace.";
const SCREENSHOTS = path.join(ARTIFACTS, "e2e-untrusted");

describe("surface-lint in an untrusted workspace (code-server + headless Chromium)", { timeout: 300_000 }, () => {
  let vscode: VsCodeSession;
  let root: string;

  before(async () => {
    root = makeTempRoot();
    const config = e2eConfig();
    vscode = await startVsCode({
      config,
      root,
      pathPrepend: [makeBareVenv(config.python, path.join(root, "bare-python"))],
      workspaceTrust: true,
      workspaceFiles: {
        [TRANSCRIPT]:
          '{"case_id": "c1", "turn_index": 0, "prompt": "What is light?", "surface": "Light is ... bright.", "grounding_source": "none"}\n',
        [PLANTED]: PLANTED_PYTHON,
      },
      executableFiles: [PLANTED],
      userSettings: {
        "surfaceLint.interpreter": SETTING,
        // Open in restricted mode without the modal trust prompt.
        "security.workspace.trust.startupPrompt": "never",
        "workbench.startupEditor": "none",
        "workbench.tips.enabled": false,
        "extensions.autoCheckUpdates": false,
        "extensions.autoUpdate": false,
        "extensions.ignoreRecommendations": true,
        "telemetry.telemetryLevel": "off",
      },
    });
  });

  after(async () => {
    await vscode?.close();
    fs.writeFileSync(path.join(ARTIFACTS, "code-server-untrusted.log"), vscode?.log ?? "");
    if (process.env.KEEP_E2E_ROOT === undefined) {
      fs.rmSync(root, { recursive: true, force: true });
    }
  });

  const marker = (): string => path.join(vscode.workspace, MARKER);
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

  step("refuses the user-level interpreter that resolves into the workspace, and never runs it", async () => {
    await openFromExplorer(vscode.page, TRANSCRIPT);
    const toast = vscode.page.locator(".notifications-toasts .notification-toast", { hasText: "which names a workspace folder or file" });
    await toast.first().waitFor({ timeout: 60_000 });
    assert.equal((await toast.first().locator(".notification-list-item-message").innerText()).trim(), REFUSAL);
    assert.ok(await toast.first().locator(".monaco-button", { hasText: "Manage Workspace Trust" }).isVisible());
    await vscode.page.waitForTimeout(1_500);
    assert.equal(fs.existsSync(marker()), false, "the planted python ran");
    assert.deepEqual(
      vscode.processesInWorkspace().filter((p) => p.commandLine.includes(PLANTED)),
      [],
    );
    await screenshot(vscode.page, SCREENSHOTS, "01-refused");
  });

  const bundledServers = (): number[] =>
    vscode
      .processesInGroup()
      .filter((p) => p.commandLine.includes("surface_lint_server.py") && !p.commandLine.includes("--check"))
      .map((p) => p.pid);
  const waitForLog = async (pattern: RegExp): Promise<string> => {
    const deadline = Date.now() + 30_000;
    for (;;) {
      const log = extensionLog(path.join(root, "user-data"));
      if (pattern.test(log)) {
        return log;
      }
      assert.ok(Date.now() < deadline, `${String(pattern)} not in the extension's log:\n${log}`);
      await vscode.page.waitForTimeout(250);
    }
  };
  let server = 0;

  step("without that setting, runs the bundled server, told the workspace is untrusted", async () => {
    // As a person would: edit settings.json in VS Code, dropping surfaceLint.interpreter.
    const settings = JSON.parse(fs.readFileSync(vscode.userSettingsFile, "utf8")) as Record<string, unknown>;
    delete settings["surfaceLint.interpreter"];
    await runCommand(vscode.page, "Preferences: Open User Settings (JSON)");
    await vscode.page.locator(".tabs-container .tab.active", { hasText: "settings.json" }).waitFor({ timeout: 15_000 });
    await vscode.page.locator(".editor-group-container.active .monaco-editor .view-lines").click();
    await vscode.page.keyboard.press("Control+a");
    await vscode.page.keyboard.press("Delete");
    await vscode.page.keyboard.insertText(JSON.stringify(settings));
    await vscode.page.keyboard.press("Control+s");
    await vscode.page.locator(".tabs-container .tab.active.dirty").waitFor({ state: "detached", timeout: 10_000 });
    await openFromExplorer(vscode.page, TRANSCRIPT);
    await waitForSquiggles(vscode.page, (s) => s.some((q) => q.line === 1), 60_000);
    const log = await waitForLog(/Starting the server \(at \d+ ms since the epoch\) \(useBundled, from PATH, workspace untrusted\): \S*bare-python\/bin\/python3 /);
    assert.doesNotMatch(log, /didGrantTrust/);
    const running = bundledServers();
    assert.equal(running.length, 1, JSON.stringify(vscode.processesInGroup()));
    server = running[0] ?? 0;
    assert.equal(fs.existsSync(marker()), false, "the planted python ran");
    await screenshot(vscode.page, SCREENSHOTS, "02-untrusted-running");
  });

  step("granting trust tells the running server (surfaceLint/didGrantTrust), without a restart", async () => {
    await runCommand(vscode.page, "Workspaces: Manage Workspace Trust");
    const trust = vscode.page.locator(".workspace-trust-editor .monaco-button", { hasText: /^Trust/ });
    await trust.first().waitFor({ timeout: 15_000 });
    await screenshot(vscode.page, SCREENSHOTS, "03-trust-editor");
    await trust.first().click();
    await waitForLog(/The workspace is now trusted: sending surfaceLint\/didGrantTrust\./);
    assert.deepEqual(bundledServers(), [server], "the same server process");
    await vscode.page.waitForTimeout(1_000);
    const errors = vscode.page.locator(".notifications-toasts .notification-toast", { hasText: "Error in server" });
    assert.equal(await errors.count(), 0, "the server took the notification without an error");
    assert.equal(fs.existsSync(marker()), false, "the planted python ran");
  });
});
