// Runs a real VS Code (code-server) with the packaged extension, driven by headless Chromium.
import * as cp from "node:child_process";
import * as fs from "node:fs";
import * as http from "node:http";
import * as net from "node:net";
import * as os from "node:os";
import * as path from "node:path";

import { chromium, type Browser, type Page } from "playwright-core";

import { which } from "../../src/core/which";

/** vscode-extension/, from out/test/e2e/. */
export const EXTENSION_ROOT = path.resolve(__dirname, "..", "..", "..");
export const ARTIFACTS = path.join(EXTENSION_ROOT, "test-artifacts");

export interface E2eConfig {
  codeServer: string;
  vsix: string;
  python: string;
  chromium: string;
}

/** Where everything is, overridable by environment variables. */
export function e2eConfig(): E2eConfig {
  return {
    codeServer:
      process.env.CODE_SERVER_BIN ??
      path.join(EXTENSION_ROOT, ".e2e", "code-server", "node_modules", ".bin", "code-server"),
    vsix: process.env.SURFACE_LINT_VSIX ?? path.join(EXTENSION_ROOT, "surface-lint.vsix"),
    python: process.env.SURFACE_LINT_PYTHON ?? "python3",
    chromium: process.env.CHROMIUM_BIN ?? which("chromium") ?? which("chromium-browser") ?? "chromium",
  };
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

export function writeFiles(root: string, files: Record<string, string>): void {
  for (const [relative, content] of Object.entries(files)) {
    const file = path.join(root, relative);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, content);
  }
}

function waitForHttp(url: string, timeoutMs: number, alive: () => boolean): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  return new Promise((resolve, reject) => {
    const attempt = (): void => {
      if (!alive()) {
        reject(new Error(`code-server exited before ${url} answered`));
        return;
      }
      const request = http.get(url, (response) => {
        response.resume();
        resolve();
      });
      request.on("error", () => {
        if (Date.now() > deadline) {
          reject(new Error(`${url} did not answer within ${timeoutMs} ms`));
        } else {
          setTimeout(attempt, 200);
        }
      });
    };
    attempt();
  });
}

export interface VsCodeSession {
  url: string;
  /** When the workbench's page was asked for (ms since the epoch): the launch of the editor window. */
  openedAt: number;
  /** VS Code's user data folder (its logs are under logs/). */
  userData: string;
  /** The PATH code-server (and so the extension) runs with. */
  path: string;
  workspace: string;
  /** The user settings.json that VS Code watches: writing it changes settings live. */
  userSettingsFile: string;
  page: Page;
  browser: Browser;
  /** Everything code-server printed, for failure messages. */
  log: string;
  /** Processes in code-server's process group that run in the workspace folder (the language server among them). */
  processesInWorkspace(): ProcessInfo[];
  /** Every process in code-server's process group. */
  processesInGroup(): ProcessInfo[];
  close(): Promise<void>;
}

export interface SessionOptions {
  config: E2eConfig;
  /** Temp root holding workspace/, user-data/, extensions/, home/. */
  root: string;
  workspaceFiles: Record<string, string>;
  userSettings: Record<string, unknown>;
  /** Folders put first on code-server's PATH (where the extension looks for a Python). */
  pathPrepend?: string[];
  /** Workspace files made executable (relative paths). */
  executableFiles?: string[];
  /** Keep VS Code's workspace trust on (default: off, so the workspace is trusted). */
  workspaceTrust?: boolean;
  /** More environment for code-server (and so the extension host and the server). */
  env?: Record<string, string>;
}

/** Installs the .vsix, starts code-server in its own process group and opens the workspace in Chromium. */
export async function startVsCode(options: SessionOptions): Promise<VsCodeSession> {
  const { config, root } = options;
  const workspace = path.join(root, "workspace");
  const userData = path.join(root, "user-data");
  const extensions = path.join(root, "extensions");
  const home = path.join(root, "home");
  for (const dir of [workspace, userData, extensions, home]) {
    fs.mkdirSync(dir, { recursive: true });
  }
  writeFiles(workspace, options.workspaceFiles);
  for (const relative of options.executableFiles ?? []) {
    fs.chmodSync(path.join(workspace, relative), 0o755);
  }
  writeFiles(userData, { "User/settings.json": JSON.stringify(options.userSettings, null, 2) });
  const configFile = path.join(root, "code-server.yaml");
  fs.writeFileSync(configFile, "auth: none\ncert: false\n");
  const env = {
    ...process.env,
    HOME: home,
    XDG_CONFIG_HOME: path.join(home, ".config"),
    XDG_DATA_HOME: path.join(home, ".local", "share"),
    PATH: [...(options.pathPrepend ?? []), process.env.PATH ?? ""].join(path.delimiter),
    // Else the VS Code server replaces the extension host's environment (PATH included) with a login
    // shell's ("resolveShellEnv"), and the test could not choose which Pythons the extension sees.
    VSCODE_CLI: "1",
    ...options.env,
  };

  const install = cp.spawnSync(
    config.codeServer,
    ["--user-data-dir", userData, "--extensions-dir", extensions, "--install-extension", config.vsix],
    { env, encoding: "utf8", timeout: 120_000 },
  );
  if (install.status !== 0) {
    throw new Error(`Installing ${config.vsix} failed (${String(install.status)}):\n${install.stdout}\n${install.stderr}`);
  }

  const port = await freePort();
  const logFile = path.join(root, "code-server.log");
  const logFd = fs.openSync(logFile, "w");
  // detached: its own process group (setsid), so that killing the group ends the extension host too.
  const server = cp.spawn(
    config.codeServer,
    [
      "--config", configFile,
      "--bind-addr", `127.0.0.1:${port}`,
      "--user-data-dir", userData,
      "--extensions-dir", extensions,
      "--disable-telemetry",
      "--disable-update-check",
      ...(options.workspaceTrust === true ? [] : ["--disable-workspace-trust"]),
      workspace,
    ],
    { env, detached: true, stdio: ["ignore", logFd, logFd] },
  );
  fs.closeSync(logFd);
  let exited = false;
  server.once("exit", () => {
    exited = true;
  });
  const killGroup = (signal: NodeJS.Signals): void => {
    if (server.pid !== undefined) {
      try {
        process.kill(-server.pid, signal);
      } catch {
        // already gone
      }
    }
  };
  const readLog = (): string => (fs.existsSync(logFile) ? fs.readFileSync(logFile, "utf8") : "");

  let browser: Browser | undefined;
  try {
    const base = `http://127.0.0.1:${port}`;
    await waitForHttp(`${base}/healthz`, 60_000, () => !exited);
    browser = await chromium.launch({
      executablePath: config.chromium,
      headless: true,
      args: [
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
      ],
      env,
    });
    const context = await browser.newContext({ viewport: { width: 1600, height: 1000 } });
    const page = await context.newPage();
    const url = `${base}/?folder=${encodeURIComponent(workspace)}`;
    const openedAt = Date.now();
    await page.goto(url);
    const openedBrowser = browser;
    return {
      url,
      openedAt,
      userData,
      path: env.PATH,
      workspace,
      userSettingsFile: path.join(userData, "User", "settings.json"),
      page,
      browser: openedBrowser,
      get log() {
        return readLog();
      },
      processesInWorkspace() {
        return server.pid === undefined ? [] : processesInGroupWithCwd(server.pid, workspace);
      },
      processesInGroup() {
        return server.pid === undefined ? [] : processesInGroupWithCwd(server.pid, undefined);
      },
      async close() {
        await openedBrowser.close().catch(() => undefined);
        killGroup("SIGTERM");
        const deadline = Date.now() + 5000;
        while (!exited && Date.now() < deadline) {
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
        killGroup("SIGKILL");
      },
    };
  } catch (error) {
    await browser?.close().catch(() => undefined);
    killGroup("SIGKILL");
    throw new Error(`${String(error)}\n--- code-server log ---\n${readLog()}`);
  }
}

export interface ProcessInfo {
  pid: number;
  commandLine: string;
}

/** Linux /proc lookup: processes of process group `group` whose working directory is `cwd` (any, when undefined). */
export function processesInGroupWithCwd(group: number, cwd: string | undefined): ProcessInfo[] {
  const wanted = cwd === undefined ? undefined : fs.realpathSync(cwd);
  const found: ProcessInfo[] = [];
  for (const entry of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) {
      continue;
    }
    try {
      // Fields after the ")" that ends the command name: state, ppid, pgrp, ...
      const stat = fs.readFileSync(`/proc/${entry}/stat`, "utf8");
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      if (Number(fields[2]) === group && (wanted === undefined || fs.readlinkSync(`/proc/${entry}/cwd`) === wanted)) {
        const commandLine = fs.readFileSync(`/proc/${entry}/cmdline`, "utf8").split("\0").join(" ").trim();
        found.push({ pid: Number(entry), commandLine });
      }
    } catch {
      // the process ended while we looked
    }
  }
  return found;
}

/** The extension's output channel as VS Code logged it under `userData` (empty until it exists). */
/**
 * Waits until the editor's extension host has started and activated every eagerly activated extension
 * ("Eager extensions activated" in its remoteexthost.log: `*` and workspaceContains activations done);
 * returns when that line was seen (ms since the epoch).
 */
export async function waitForExtensionHost(userData: string, timeoutMs = 60_000): Promise<number> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (extensionLog(userData, "remoteexthost.log").includes("Eager extensions activated")) {
      return Date.now();
    }
    if (Date.now() > deadline) {
      throw new Error(`the extension host did not log "Eager extensions activated" within ${timeoutMs} ms`);
    }
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

export function extensionLog(userData: string, fileName = "surface-lint.log"): string {
  const logs = path.join(userData, "logs");
  if (!fs.existsSync(logs)) {
    return "";
  }
  const file = fs
    .readdirSync(logs, { recursive: true, encoding: "utf8" })
    .find((name) => name.endsWith(fileName));
  return file === undefined ? "" : fs.readFileSync(path.join(logs, file), "utf8");
}

/**
 * A Python with nothing installed: a venv without pip or system site-packages, so that the
 * server can only come from the .vsix (no surface-lint, pygls or re2 of its own).
 */
export function makeBareVenv(python: string, where: string): string {
  const made = cp.spawnSync(python, ["-m", "venv", "--without-pip", where], { encoding: "utf8", timeout: 120_000 });
  if (made.status !== 0) {
    throw new Error(`${python} -m venv --without-pip ${where} failed:\n${made.stdout}\n${made.stderr}`);
  }
  return path.join(where, process.platform === "win32" ? "Scripts" : "bin");
}

/** Whether `python` can import `module` (with the environment the extension would give it). */
export function canImport(python: string, module: string): boolean {
  const done = cp.spawnSync(python, ["-c", `import ${module}`], {
    encoding: "utf8",
    timeout: 60_000,
    env: { ...process.env, PYTHONSAFEPATH: "1" },
    cwd: os.tmpdir(),
  });
  return done.status === 0;
}

export function makeTempRoot(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), "surface-lint-e2e-"));
}
