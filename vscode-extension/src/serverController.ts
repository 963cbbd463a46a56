// Starts, stops and restarts the surface-lint language server, and says why when it cannot.
import * as cp from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import * as readline from "node:readline";
import * as vscode from "vscode";
// Types only here: the client library is loaded when the first server has been spawned (languageClient()).
import type { LanguageClient, LanguageClientOptions } from "vscode-languageclient/node";

import { crashMessage, RestartPolicy } from "./core/restartPolicy";
import {
  checksItself,
  describeLaunch,
  launcherReport,
  preflightAdvice,
  resolveServerLaunch,
  sameCandidates,
  serverProcessOptions,
  type InspectedSetting,
  type LaunchInputs,
  type ServerLaunch,
} from "./core/serverCommand";
import {
  CONFIG_SECTION,
  DID_GRANT_TRUST_METHOD,
  documentSelectorFor,
  LANE_FILE_GLOBS,
  includeGlobs,
  toServerSettings,
  type ServerSettings,
} from "./core/settings";
import { which } from "./core/which";
import { pythonExtensionInterpreter } from "./pythonExtension";

const STDERR_TAIL_LINES = 40;
const STOP_GRACE_MS = 2000;
/** How long the bundled launcher may take to report on its Python before it is given up on. */
const CHECK_TIMEOUT_MS = 30_000;
/** Connection errors tolerated before the client gives up on a server. */
const MAX_CONNECTION_ERRORS = 3;
/** The launcher of the server bundled in the .vsix, relative to the extension. */
const BUNDLED_SCRIPT = path.join("bundled", "tool", "surface_lint_server.py");

type ClientLibrary = typeof import("vscode-languageclient/node");
let clientLibrary: ClientLibrary | undefined;

/**
 * vscode-languageclient, loaded on first use: evaluating it is most of the bundle's load, so the
 * extension spawns the server first and loads the client while the server's Python starts (the cold
 * open: docs/editor.md).
 */
async function languageClient(): Promise<ClientLibrary> {
  clientLibrary ??= await import("vscode-languageclient/node");
  return clientLibrary;
}

/**
 * When a line of the cold open's timeline was said (e2e-cold-open.json): the log's own timestamps
 * are the channel's flush, which can come seconds later and bunch lines together.
 */
export function epochStamp(): string {
  return `(at ${Date.now()} ms since the epoch)`;
}

function realPath(file: string): string | undefined {
  try {
    return fs.realpathSync(file);
  } catch {
    return undefined;
  }
}

/** Lines kept from the server's stderr, to quote when it fails. */
class StderrTail {
  private lines: string[] = [];

  push(line: string): void {
    this.lines.push(line);
    if (this.lines.length > STDERR_TAIL_LINES) {
      this.lines.shift();
    }
  }

  clear(): void {
    this.lines = [];
  }

  text(): string {
    return this.lines.join("\n");
  }

  /** The most telling line: the last non-empty one (a traceback's error line). */
  last(): string | undefined {
    return [...this.lines].reverse().find((line) => line.trim() !== "");
  }
}

function firstWorkspaceFolder(): vscode.WorkspaceFolder | undefined {
  return vscode.workspace.workspaceFolders?.[0];
}

/** The settings the server reads, for one resource (or the window). */
export function serverSettingsFor(
  scope: vscode.Uri | undefined,
  output: vscode.LogOutputChannel,
): ServerSettings {
  const config = vscode.workspace.getConfiguration(CONFIG_SECTION, scope);
  const { settings, problems } = toServerSettings({
    profile: config.get("profile"),
    severity: config.get("severity"),
    run: config.get("run"),
  });
  for (const problem of problems) {
    output.warn(problem);
  }
  return settings;
}

export class ServerController implements vscode.Disposable {
  private client: LanguageClient | undefined;
  private child: cp.ChildProcess | undefined;
  private launch: ServerLaunch | undefined;
  private readonly stderr = new StderrTail();
  /** Set while we stop the server on purpose, so its exit is not reported as a crash. */
  private stopping = false;
  private readonly stateEmitter = new vscode.EventEmitter<void>();
  /** Fires when the server becomes ready or goes away. */
  readonly onDidChangeState = this.stateEmitter.event;
  private queue: Promise<void> = Promise.resolve();
  /** Counts starts, so that a failure is reported once per start. */
  private generation = 0;
  private reportedGeneration = -1;
  /** Whether the current server answered `initialize`. */
  private started = false;
  /** The candidates the running server was chosen from, to tell whether granting trust changes them. */
  private candidates: ServerLaunch[] = [];
  /** How the last server process ended, for the crash message. */
  private lastExit = "exit code unknown";
  private readonly restarts = new RestartPolicy();

  constructor(
    private readonly context: vscode.ExtensionContext,
    readonly output: vscode.LogOutputChannel,
  ) {}

  get runningClient(): LanguageClient | undefined {
    return clientLibrary !== undefined && this.client?.state === clientLibrary.State.Running ? this.client : undefined;
  }

  /** Serializes start/stop/restart so that quick setting changes do not race. */
  private enqueue(work: () => Promise<void>): Promise<void> {
    this.queue = this.queue.then(work, work);
    return this.queue;
  }

  start(): Promise<void> {
    return this.enqueue(() => this.doStart());
  }

  stop(): Promise<void> {
    return this.enqueue(() => this.doStop());
  }

  /** A restart the user asked for: the crash count starts afresh. */
  restartByUser(reason: string): Promise<void> {
    this.restarts.reset();
    return this.restart(reason);
  }

  restart(reason: string): Promise<void> {
    return this.enqueue(async () => {
      this.output.info(`Restarting the server: ${reason}`);
      await this.doStop();
      await this.doStart();
    });
  }

  /** What decides the server command, read from VS Code now. */
  private async launchInputs(log: (line: string) => void): Promise<LaunchInputs> {
    const folders = vscode.workspace.workspaceFolders ?? [];
    const folder = folders[0];
    const config = vscode.workspace.getConfiguration(CONFIG_SECTION, folder?.uri);
    const trusted = vscode.workspace.isTrusted;
    return {
      serverPath: config.inspect<string>("serverPath") as InspectedSetting<string> | undefined,
      interpreter: config.inspect<string>("interpreter") as InspectedSetting<string> | undefined,
      importStrategy: config.inspect<string>("importStrategy") as InspectedSetting<string> | undefined,
      trusted,
      // Untrusted: not even asked, since the workspace may have chosen it.
      pythonExtensionInterpreter: trusted ? await pythonExtensionInterpreter(folder?.uri, log) : undefined,
      workspaceFolders: folders.map((f) => f.uri.fsPath),
      home: os.homedir(),
      findOnPath: (name) => which(name),
      realPath,
      bundledScript: path.join(this.context.extensionPath, BUNDLED_SCRIPT),
    };
  }

  private async resolveCandidates(): Promise<ServerLaunch[] | undefined> {
    const resolution = resolveServerLaunch(await this.launchInputs((line) => this.output.warn(line)));
    for (const note of resolution.notes) {
      this.output.warn(note);
    }
    if (!resolution.ok) {
      this.output.error(resolution.error);
      void this.notifyFailure(`surface-lint: ${resolution.error}`, true, resolution.refused);
      return undefined;
    }
    return resolution.candidates;
  }

  private processOptions(launch: ServerLaunch): { cwd: string; env: NodeJS.ProcessEnv } {
    return serverProcessOptions(
      vscode.workspace.isTrusted,
      firstWorkspaceFolder()?.uri.fsPath,
      this.context.extensionPath,
      process.env,
      launch.strategy === "useBundled" ? path.join(this.context.globalStorageUri.fsPath, "pycache") : undefined,
    );
  }

  /**
   * Spawns a bundled-launcher candidate; resolves with the process once its launcher's report line
   * says this Python can serve, else with why not (one line). No Python is started just to check:
   * the launcher checks itself first, then imports and runs the server in the same process.
   */
  private spawnChecked(launch: ServerLaunch): Promise<{ child: cp.ChildProcess } | { problem: string }> {
    return new Promise((resolve) => {
      let settled = false;
      let timer: NodeJS.Timeout | undefined;
      const settle = (result: { child: cp.ChildProcess } | { problem: string }): void => {
        if (!settled) {
          settled = true;
          clearTimeout(timer);
          resolve(result);
        }
      };
      const child = this.spawnProcess(launch, (line) => {
        const report = launcherReport(line);
        if (report !== null) {
          settle(report.problem === undefined ? { child } : { problem: report.problem });
        }
      });
      timer = setTimeout(() => {
        settle({ problem: `\`${describeLaunch(launch)}\` did not report on its Python within ${CHECK_TIMEOUT_MS / 1000} s` });
        child.kill();
      }, CHECK_TIMEOUT_MS);
      child.once("error", (error: NodeJS.ErrnoException) => {
        settle({
          problem: error.code === "ENOENT" ? `\`${launch.command}\` (from ${launch.source}) was not found` : `\`${describeLaunch(launch)}\` cannot start: ${error.message}`,
        });
      });
      child.once("exit", (code, signal) => {
        // Exited before its report (a Python too old to run the launcher, a crash): quote its last words.
        const last = this.stderr.last();
        const how = signal !== null ? `signal ${signal}` : `code ${String(code)}`;
        settle({ problem: `\`${describeLaunch(launch)}\` exited (${how}) before reporting on its Python${last !== undefined ? `: ${last}` : ""}` });
      });
    });
  }

  /** The first candidate that can serve, started; logs and reports when none can. */
  private async firstRunnable(candidates: readonly ServerLaunch[]): Promise<{ launch: ServerLaunch; child: cp.ChildProcess } | undefined> {
    const failures: string[] = [];
    const trust = vscode.workspace.isTrusted ? "trusted" : "untrusted";
    for (const launch of candidates) {
      this.launch = launch;
      this.stderr.clear();
      this.output.info(`Starting the server ${epochStamp()} (${launch.strategy}, from ${launch.source}, workspace ${trust}): ${describeLaunch(launch)}`);
      if (!checksItself(launch)) {
        try {
          // Spawned here, not by the client, so that "not found" is reported once and clearly.
          return { launch, child: await this.spawnServer(launch) };
        } catch (error) {
          const message = error instanceof Error ? error.message : String(error);
          this.output.error(message);
          void this.notifyFailure(`surface-lint: ${message}`, true);
          return undefined;
        }
      }
      const checking = Date.now();
      const result = await this.spawnChecked(launch);
      if ("child" in result) {
        // Said with its time: from the spawn to the launcher's report (the cold open's timeline).
        this.output.info(`Checked ${launch.command} (from ${launch.source}) in ${Date.now() - checking} ms, by the server's own launcher ${epochStamp()}.`);
        return { launch, child: result.child };
      }
      this.output.warn(`Not using ${launch.command} (from ${launch.source}): ${result.problem}`);
      failures.push(result.problem);
    }
    const last = candidates[candidates.length - 1];
    const advice = last !== undefined ? ` ${preflightAdvice(last)}` : "";
    const message =
      candidates.length === 1
        ? `surface-lint server cannot start: ${failures[0] ?? "?"}.${advice}`
        : `surface-lint server cannot start: none of the ${candidates.length} Pythons found can run it (${failures.join("; ")}).${advice}`;
    this.output.error(message);
    void this.notifyFailure(message, true);
    return undefined;
  }

  /**
   * Spawns `launch` with its stderr read line by line, here and only here: each line is kept for the
   * failure messages, logged, and passed to `onLine` (the launcher's report).
   */
  private spawnProcess(launch: ServerLaunch, onLine?: (line: string) => void): cp.ChildProcess {
    const { cwd, env } = this.processOptions(launch);
    const child = cp.spawn(launch.command, launch.args, { cwd, env, stdio: "pipe" });
    readline.createInterface({ input: child.stderr, terminal: false }).on("line", (line) => {
      // The launcher's report is no error: logged, not kept for the failure messages to quote.
      if (launcherReport(line) === null) {
        this.stderr.push(line);
      }
      this.output.appendLine(`[server stderr] ${line}`);
      onLine?.(line);
    });
    child.once("spawn", () => {
      this.child = child;
      child.once("exit", (code, signal) => {
        this.lastExit = signal !== null ? `signal ${signal}` : `exit code ${String(code)}`;
        this.output.info(
          `Server process ${child.pid ?? "?"} exited (${signal !== null ? `signal ${signal}` : `code ${String(code)}`}).`,
        );
        if (this.child === child) {
          this.child = undefined;
        }
      });
    });
    return child;
  }

  /** Spawns the server and resolves once the process exists (rejects when it cannot start). */
  private spawnServer(launch: ServerLaunch): Promise<cp.ChildProcess> {
    return new Promise((resolve, reject) => {
      const child = this.spawnProcess(launch);
      child.once("error", (error: NodeJS.ErrnoException) => {
        const detail =
          error.code === "ENOENT" ? `${launch.command} was not found` : `${error.message}`;
        reject(new Error(`Cannot start \`${describeLaunch(launch)}\`: ${detail}.`));
      });
      child.once("spawn", () => resolve(child));
    });
  }

  private clientOptions(generation: number, library: ClientLibrary): LanguageClientOptions {
    const { CloseAction, ErrorAction, RevealOutputChannelOn } = library;
    const output = this.output;
    return {
      documentSelector: documentSelectorFor([
        ...includeGlobs(vscode.workspace.getConfiguration(CONFIG_SECTION).get("include")),
        ...LANE_FILE_GLOBS,
      ]),
      outputChannel: output,
      // Failures are reported by this controller, once, with the command and stderr.
      revealOutputChannelOn: RevealOutputChannelOn.Never,
      // The settings' one channel is workspace/configuration (answered below); the initial values ride
      // along so that the first lint need not wait for it. `trusted`: see HELPERS.md's trust interface.
      initializationOptions: {
        settings: serverSettingsFor(firstWorkspaceFolder()?.uri, output),
        trusted: vscode.workspace.isTrusted,
      },
      // Pull diagnostics again on save too: with surfaceLint.run = onSave that is when they change.
      diagnosticPullOptions: { onChange: true, onSave: true },
      middleware: {
        workspace: {
          // The server asks for section "surfaceLint": answer with the checked, mapped settings.
          configuration: async (params, token, next) => {
            const answers = await next(params, token);
            if (!Array.isArray(answers)) {
              return answers;
            }
            return params.items.map((item, index) =>
              item.section === CONFIG_SECTION
                ? serverSettingsFor(
                    item.scopeUri !== undefined ? vscode.Uri.parse(item.scopeUri) : undefined,
                    output,
                  )
                : answers[index],
            );
          },
        },
      },
      stdioOptions: {
        stdout: (input, channel) => {
          readline.createInterface({ input, terminal: false }).on("line", (line) => channel.info(line));
        },
        // Read (kept, logged) by spawnProcess since the spawn, before the client existed.
        stderr: () => undefined,
      },
      errorHandler: {
        // Failures are reported by reportFailure, once; the client must not add its own toast.
        error: (_error, _message, count) => ({
          action: (count ?? 0) <= MAX_CONNECTION_ERRORS ? ErrorAction.Continue : ErrorAction.Shutdown,
          handled: true,
        }),
        // The controller restarts a crashed server itself (bounded): it spawns the process, so the
        // client's own restart would reconnect to the dead one.
        closed: () => {
          if (!this.stopping) {
            void this.onServerClosed(generation);
          }
          // The message replaces the client's "Server will not be restarted", untrue here.
          return { action: CloseAction.DoNotRestart, handled: true, message: "The connection to the server closed." };
        },
      },
      initializationFailedHandler: () => false,
    };
  }

  private async doStart(): Promise<void> {
    const candidates = await this.resolveCandidates();
    if (candidates === undefined) {
      this.stateEmitter.fire();
      return;
    }
    this.candidates = candidates;
    this.stderr.clear();
    this.stopping = false;
    this.started = false;
    const generation = ++this.generation;
    // The first candidate is spawned before firstRunnable's first await; the client library loads
    // meanwhile, while that Python starts.
    const starting = this.firstRunnable(candidates);
    const loading = languageClient();
    const started = await starting;
    if (started === undefined) {
      this.stateEmitter.fire();
      return;
    }
    const { launch, child } = started;
    this.launch = launch;
    const library = await loading;
    const client = new library.LanguageClient(
      CONFIG_SECTION,
      "surface-lint",
      () => Promise.resolve(child),
      this.clientOptions(generation, library),
    );
    this.client = client;
    client.onDidChangeState(() => this.stateEmitter.fire());
    try {
      await client.start();
      this.started = true;
      this.output.info(`Server is running ${epochStamp()}.`);
    } catch (error) {
      if (!this.stopping) {
        const message = error instanceof Error ? error.message : String(error);
        this.output.error(`The server did not start: ${message}`);
        await this.reportFailure(generation);
        await this.disposeClient();
      }
    }
    this.stateEmitter.fire();
  }

  /** The server went away on its own: restart it (bounded), or report it once it keeps crashing. */
  private async onServerClosed(generation: number): Promise<void> {
    if (!this.started || this.reportedGeneration === generation) {
      await this.reportFailure(generation);
      return;
    }
    this.reportedGeneration = generation;
    await this.waitForExit(STOP_GRACE_MS);
    this.logStderr();
    const decision = this.restarts.onCrash(Date.now());
    const message = crashMessage(decision, this.lastExit, this.stderr.last());
    this.output.error(message);
    if (!decision.restart) {
      this.stateEmitter.fire();
      await this.notifyFailure(message, false);
      return;
    }
    void vscode.window.showWarningMessage(message, "Show output").then((choice) => {
      if (choice !== undefined) {
        this.output.show(true);
      }
    });
    await this.restart(`the server crashed (attempt ${decision.attempt} of ${decision.of})`);
  }

  /** Settings the server reads changed: it pulls them again through workspace/configuration. */
  async settingsChanged(keys: readonly string[]): Promise<void> {
    const client = this.runningClient;
    if (client === undefined) {
      return;
    }
    this.output.info(`${keys.join(", ")} changed: telling the server, which asks for them again.`);
    await client.sendNotification((await languageClient()).DidChangeConfigurationNotification.type, { settings: null });
  }

  /**
   * The workspace became trusted. When that changes which server would run (workspace settings,
   * the Python extension's interpreter), restart; else tell the running server.
   */
  async trustGranted(): Promise<void> {
    const before = this.candidates;
    const client = this.runningClient;
    const after = await this.resolveCandidatesQuietly();
    if (client === undefined || after === undefined || !sameCandidates(before, after)) {
      await this.restart("the workspace is now trusted (and that changes which server runs)");
      return;
    }
    this.output.info(`The workspace is now trusted: sending ${DID_GRANT_TRUST_METHOD}.`);
    // `{}`, not no params: pygls answers a notification without `params` with "Error in server: Internal Error".
    await client.sendNotification(DID_GRANT_TRUST_METHOD, {});
  }

  /** Candidates as they would be resolved now, without notifying (undefined when none). */
  private async resolveCandidatesQuietly(): Promise<ServerLaunch[] | undefined> {
    const resolution = resolveServerLaunch(await this.launchInputs(() => undefined));
    return resolution.ok ? resolution.candidates : undefined;
  }

  /** Tells the user, once per start, that the server did not start or stopped. */
  private async reportFailure(generation: number): Promise<void> {
    if (this.reportedGeneration === generation) {
      return;
    }
    this.reportedGeneration = generation;
    const launch = this.launch;
    const command = launch !== undefined ? describeLaunch(launch) : "(unknown command)";
    const what = this.started ? "stopped unexpectedly" : "did not start";
    await this.waitForExit(STOP_GRACE_MS);
    this.output.error(`The server ${what}. Command: ${command}`);
    this.logStderr();
    const last = this.stderr.last();
    this.stateEmitter.fire();
    await this.notifyFailure(
      `surface-lint server ${what} (\`${command}\`)${last !== undefined ? `: ${last}` : "."}`,
      !this.started,
    );
  }

  private logStderr(): void {
    const tail = this.stderr.text();
    this.output.error(tail === "" ? "The server wrote nothing to stderr." : `Server stderr (last lines):\n${tail}`);
  }

  private async notifyFailure(message: string, offerSettings: boolean, offerTrust = false): Promise<void> {
    const actions = [
      ...(offerTrust ? ["Manage Workspace Trust"] : ["Restart server"]),
      "Show output",
      ...(offerSettings ? ["Open settings"] : []),
    ];
    const choice = await vscode.window.showErrorMessage(message, ...actions);
    if (choice === "Restart server") {
      await this.restartByUser("asked from the error notification");
    } else if (choice === "Manage Workspace Trust") {
      await vscode.commands.executeCommand("workbench.trust.manage");
    } else if (choice === "Show output") {
      this.output.show(true);
    } else if (choice === "Open settings") {
      await vscode.commands.executeCommand("workbench.action.openSettings", "surfaceLint.interpreter");
    }
  }

  /** Resolves when the server process has exited, or after `ms`. */
  private waitForExit(ms: number): Promise<void> {
    const child = this.child;
    if (child === undefined || child.exitCode !== null || child.signalCode !== null) {
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, ms);
      child.once("exit", () => {
        clearTimeout(timer);
        // Let readline deliver the last stderr lines before they are quoted.
        setTimeout(resolve, 50);
      });
    });
  }

  private async disposeClient(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    if (client !== undefined) {
      try {
        // dispose() stops a running client; one that never started has nothing to stop.
        await client.dispose(STOP_GRACE_MS);
      } catch (error) {
        this.output.debug(`Disposing the client: ${String(error)}`);
      }
    }
    const child = this.child;
    if (child !== undefined && child.exitCode === null && child.signalCode === null) {
      await this.waitForExit(STOP_GRACE_MS);
      if (child.exitCode === null && child.signalCode === null) {
        this.output.warn(`Server process ${child.pid ?? "?"} did not exit after shutdown; killing it.`);
        child.kill();
      }
    }
  }

  private async doStop(): Promise<void> {
    this.stopping = true;
    await this.disposeClient();
    this.stateEmitter.fire();
  }

  dispose(): void {
    void this.stop();
    this.stateEmitter.dispose();
  }
}
