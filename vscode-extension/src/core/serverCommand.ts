// Which command starts the surface-lint language server: pure logic, no `vscode` import.
import * as path from "node:path";

/** What `WorkspaceConfiguration.inspect()` returns for one setting (the parts we read). */
export interface InspectedSetting<T> {
  defaultValue?: T;
  globalValue?: T;
  workspaceValue?: T;
  workspaceFolderValue?: T;
}

export type SettingLevel = "workspaceFolder" | "workspace" | "user";

export interface EffectiveSetting {
  value: string;
  level: SettingLevel;
}

/** `useBundled`: the server shipped in the .vsix; `fromEnvironment`: the interpreter's own surface-lint. */
export const IMPORT_STRATEGIES = ["useBundled", "fromEnvironment"] as const;
export type ImportStrategy = (typeof IMPORT_STRATEGIES)[number];
export const DEFAULT_IMPORT_STRATEGY: ImportStrategy = "useBundled";

export type LaunchSource =
  | "surfaceLint.serverPath"
  | "surfaceLint.interpreter"
  | "Python extension"
  | "PATH";

export interface ServerLaunch {
  command: string;
  args: string[];
  source: LaunchSource;
  /** How the server is found: the bundled one, the interpreter's, or an executable (serverPath). */
  strategy: ImportStrategy | "serverPath";
}

export type LaunchResolution =
  /** Candidates in order: the first whose preflight passes is started. */
  | { ok: true; candidates: ServerLaunch[]; notes: string[] }
  /** `refused`: a setting names an executable that an untrusted workspace could have planted. */
  | { ok: false; error: string; refused: boolean; notes: string[] };

export interface LaunchInputs {
  serverPath?: InspectedSetting<string> | undefined;
  interpreter?: InspectedSetting<string> | undefined;
  importStrategy?: InspectedSetting<string> | undefined;
  /** Whether the workspace is trusted (`vscode.workspace.isTrusted`). */
  trusted: boolean;
  /** The Python extension's selected interpreter, or undefined when it is absent or has none. */
  pythonExtensionInterpreter?: string | undefined;
  /** Every workspace folder's path; the first is the base for relative paths and `${workspaceFolder}`. */
  workspaceFolders: readonly string[];
  home: string;
  /** PATH lookup: absolute path of an executable, or undefined. */
  findOnPath: (name: string) => string | undefined;
  /** The file's path with symlinks resolved, or undefined when it does not exist. */
  realPath: (file: string) => string | undefined;
  /** The bundled launcher script (bundled/tool/surface_lint_server.py in the extension). */
  bundledScript: string;
}

/** Interpreter names tried on PATH when nothing else names one, in order (versioned names catch a
 * machine whose `python3` is older than 3.10 but that has a newer one installed). */
export const PATH_INTERPRETERS: readonly string[] = [
  "python3",
  "python",
  "python3.14",
  "python3.13",
  "python3.12",
  "python3.11",
  "python3.10",
];

/** The bundled launcher's flag for `fromEnvironment`: run (or `--check`) the interpreter's own
 * surface-lint. Not `python -m surface_lint`: that puts the working directory (the workspace) first
 * on sys.path, and Python 3.10 ignores PYTHONSAFEPATH; the launcher takes it off sys.path itself. */
export const FROM_ENVIRONMENT_FLAG = "--from-environment";

/** VS Code variables whose value is (or lies in) a workspace folder or an open file. */
const WORKSPACE_VARIABLE = /\$\{(?:workspaceFolder|workspaceFolderBasename|workspaceRoot|file|fileDirname|relativeFile|relativeFileDirname|fileWorkspaceFolder|cwd)\b[^}]*\}/;

function nonEmpty(value: unknown): string | undefined {
  return typeof value === "string" && value.trim() !== "" ? value.trim() : undefined;
}

/**
 * The value of a setting the workspace must not choose in an untrusted workspace. Workspace and
 * folder values win over the user's, but only in a trusted workspace.
 */
export function effectiveRestrictedSetting(
  inspected: InspectedSetting<string> | undefined,
  trusted: boolean,
  notes: string[] = [],
  name = "setting",
): EffectiveSetting | undefined {
  if (inspected === undefined) {
    return undefined;
  }
  const folder = nonEmpty(inspected.workspaceFolderValue);
  const workspace = nonEmpty(inspected.workspaceValue);
  if (trusted) {
    if (folder !== undefined) {
      return { value: folder, level: "workspaceFolder" };
    }
    if (workspace !== undefined) {
      return { value: workspace, level: "workspace" };
    }
  } else if (folder !== undefined || workspace !== undefined) {
    notes.push(`${name} from the workspace settings is ignored: the workspace is not trusted.`);
  }
  const user = nonEmpty(inspected.globalValue);
  return user === undefined ? undefined : { value: user, level: "user" };
}

/** The import strategy in force; an unknown value falls back to the default, with a note. */
export function importStrategyOf(
  inspected: InspectedSetting<string> | undefined,
  trusted: boolean,
  notes: string[] = [],
): ImportStrategy {
  const setting = effectiveRestrictedSetting(inspected, trusted, notes, "surfaceLint.importStrategy");
  if (setting === undefined) {
    return DEFAULT_IMPORT_STRATEGY;
  }
  if ((IMPORT_STRATEGIES as readonly string[]).includes(setting.value)) {
    return setting.value as ImportStrategy;
  }
  notes.push(
    `surfaceLint.importStrategy: ${JSON.stringify(setting.value)} is not one of ${IMPORT_STRATEGIES.join(", ")}; using ${DEFAULT_IMPORT_STRATEGY}.`,
  );
  return DEFAULT_IMPORT_STRATEGY;
}

/**
 * Expands `~`, `${userHome}` and `${workspaceFolder}`, and makes a relative path
 * that contains a separator absolute against the workspace folder. A bare name
 * (`python3.12`) is left for the PATH lookup.
 */
export function expandExecutablePath(
  value: string,
  home: string,
  workspaceFolder: string | undefined,
): string {
  let expanded = value.replace(/\$\{userHome\}/g, home);
  if (workspaceFolder !== undefined) {
    expanded = expanded.replace(/\$\{workspaceFolder\}/g, workspaceFolder);
  }
  if (expanded === "~" || expanded.startsWith("~/") || expanded.startsWith("~\\")) {
    expanded = path.join(home, expanded.slice(1));
  }
  if (hasSeparator(expanded) && !path.isAbsolute(expanded) && workspaceFolder !== undefined) {
    expanded = path.resolve(workspaceFolder, expanded);
  }
  return expanded;
}

function hasSeparator(value: string): boolean {
  return value.includes("/") || value.includes("\\");
}

/** Whether `file` is `folder` or lies under it (both absolute). */
export function isInside(file: string, folder: string): boolean {
  const relative = path.relative(folder, file);
  return relative === "" || (!relative.startsWith("..") && !path.isAbsolute(relative));
}

/** The workspace folder that `file` (or, through symlinks, its target) lies in, if any. */
function workspaceFolderHolding(file: string, inputs: LaunchInputs): string | undefined {
  const real = inputs.realPath(file);
  for (const folder of inputs.workspaceFolders) {
    const realFolder = inputs.realPath(folder) ?? folder;
    if (isInside(file, folder) || (real !== undefined && isInside(real, realFolder))) {
      return folder;
    }
  }
  return undefined;
}

type Checked = { ok: true; command: string } | { ok: false; error: string };

/**
 * The executable a user-level setting names, made absolute. In an untrusted workspace it is
 * refused when it could resolve into a workspace folder: a workspace variable, a relative path,
 * or a path (or a PATH hit, or a symlink's target) inside a folder.
 */
export function checkExecutableSetting(name: string, value: string, inputs: LaunchInputs): Checked {
  const folder = inputs.workspaceFolders[0];
  if (inputs.trusted) {
    const expanded = expandExecutablePath(value, inputs.home, folder);
    return { ok: true, command: hasSeparator(expanded) ? expanded : (inputs.findOnPath(expanded) ?? expanded) };
  }
  const refuse = (why: string): Checked => ({
    ok: false,
    error:
      `${name} is ${JSON.stringify(value)}, ${why}; the workspace is not trusted, so surface-lint will not run it. ` +
      `Trust the workspace, or set ${name} to an absolute path outside the workspace.`,
  });
  if (WORKSPACE_VARIABLE.test(value)) {
    return refuse("which names a workspace folder or file");
  }
  const expanded = expandExecutablePath(value, inputs.home, undefined);
  if (hasSeparator(expanded) && !path.isAbsolute(expanded)) {
    return refuse("a relative path, which would resolve into the workspace");
  }
  const command = hasSeparator(expanded) ? expanded : inputs.findOnPath(expanded);
  if (command === undefined) {
    return { ok: true, command: expanded }; // not found: the spawn reports it
  }
  const holder = workspaceFolderHolding(command, inputs);
  if (holder !== undefined) {
    return refuse(`which resolves to ${command}, inside the workspace folder ${holder}`);
  }
  return { ok: true, command };
}

function pythonLaunch(command: string, source: LaunchSource, strategy: ImportStrategy, inputs: LaunchInputs): ServerLaunch {
  return {
    command,
    args: strategy === "useBundled" ? [inputs.bundledScript] : [inputs.bundledScript, FROM_ENVIRONMENT_FLAG],
    source,
    strategy,
  };
}

/**
 * The server commands to try: `surfaceLint.serverPath` (`<path> server`) alone; else
 * `surfaceLint.interpreter` alone; else the Python extension's interpreter (trusted workspaces
 * only), then every interpreter on PATH. With `useBundled` a Python runs the bundled launcher;
 * with `fromEnvironment`, `<python> <launcher> --from-environment` (the interpreter's surface-lint).
 */
export function resolveServerLaunch(inputs: LaunchInputs): LaunchResolution {
  const notes: string[] = [];
  const strategy = importStrategyOf(inputs.importStrategy, inputs.trusted, notes);

  for (const [name, source] of [
    ["surfaceLint.serverPath", "surfaceLint.serverPath"],
    ["surfaceLint.interpreter", "surfaceLint.interpreter"],
  ] as const) {
    const setting = effectiveRestrictedSetting(
      name === "surfaceLint.serverPath" ? inputs.serverPath : inputs.interpreter,
      inputs.trusted,
      notes,
      name,
    );
    if (setting === undefined) {
      continue;
    }
    const checked = checkExecutableSetting(name, setting.value, inputs);
    if (!checked.ok) {
      return { ok: false, error: checked.error, refused: true, notes };
    }
    const launch: ServerLaunch =
      source === "surfaceLint.serverPath"
        ? { command: checked.command, args: ["server"], source, strategy: "serverPath" }
        : pythonLaunch(checked.command, source, strategy, inputs);
    return { ok: true, candidates: [launch], notes };
  }

  const candidates: ServerLaunch[] = [];
  const fromPythonExtension = nonEmpty(inputs.pythonExtensionInterpreter);
  if (fromPythonExtension !== undefined) {
    if (inputs.trusted) {
      candidates.push(pythonLaunch(fromPythonExtension, "Python extension", strategy, inputs));
    } else {
      notes.push(
        "The Python extension's interpreter is not used: the workspace is not trusted and may have chosen it.",
      );
    }
  }
  const seen = new Set(candidates.map((launch) => launch.command));
  for (const name of PATH_INTERPRETERS) {
    const found = inputs.findOnPath(name);
    if (found === undefined || seen.has(found)) {
      continue;
    }
    seen.add(found);
    const holder = inputs.trusted ? undefined : workspaceFolderHolding(found, inputs);
    if (holder !== undefined) {
      notes.push(`${found} (${name} on PATH) is not used: it is inside the untrusted workspace folder ${holder}.`);
      continue;
    }
    candidates.push(pythonLaunch(found, "PATH", strategy, inputs));
  }
  if (candidates.length === 0) {
    return {
      ok: false,
      error:
        `No Python interpreter found: surfaceLint.serverPath and surfaceLint.interpreter are not set, ` +
        `no interpreter is selected in the Python extension, and none of ${PATH_INTERPRETERS.join(", ")} is on PATH. ` +
        `Install Python 3.10 or newer, or set surfaceLint.interpreter.`,
      refused: false,
      notes,
    };
  }
  return { ok: true, candidates, notes };
}

/** The bundled launcher's stderr line carrying its check's report (surface_lint_server.py's REPORT_PREFIX). */
export const LAUNCHER_REPORT_PREFIX = "surface-lint launcher: ";

/**
 * Whether `launch` runs the bundled launcher, which checks its Python before it serves (too old a
 * Python, surface-lint missing from it: with `--from-environment`, Python >= 3.10 with surface-lint,
 * pygls and lsprotocol found) and says so first, on stderr, in one report line. Not `serverPath`.
 */
export function checksItself(launch: ServerLaunch): boolean {
  return launch.strategy !== "serverPath";
}

/** A stderr line of the launcher, read: null when it is not the report line, else the report's problem (undefined: it serves). */
export function launcherReport(line: string): { problem: string | undefined } | null {
  if (!line.startsWith(LAUNCHER_REPORT_PREFIX)) {
    return null;
  }
  return { problem: bundledCheckProblem(line.slice(LAUNCHER_REPORT_PREFIX.length)) };
}

/** What the bundled launcher's `--check` printed: its problem, or undefined when it can run. */
export function bundledCheckProblem(stdout: string): string | undefined {
  const last = stdout.trim().split(/\r?\n/).pop() ?? "";
  let report: unknown;
  try {
    report = JSON.parse(last);
  } catch {
    return `the bundled launcher's check printed no report (${JSON.stringify(last.slice(0, 200))})`;
  }
  if (typeof report !== "object" || report === null) {
    return "the bundled launcher's check printed no report";
  }
  const { ok, problem } = report as { ok?: unknown; problem?: unknown };
  if (ok === true) {
    return undefined;
  }
  return typeof problem === "string" ? problem : "the bundled launcher's check failed";
}

/** What to tell the user when no candidate's check passes, per strategy. */
export function preflightAdvice(launch: ServerLaunch): string {
  return launch.strategy === "fromEnvironment"
    ? `Install surface-lint into that Python (\`${launch.command} -m pip install surface-lint\`), ` +
        `set surfaceLint.importStrategy to useBundled, or choose another with surfaceLint.interpreter.`
    : `Choose a Python 3.10 or newer with surfaceLint.interpreter.`;
}

/** The command line as a user would type it, for messages. */
export function describeLaunch(launch: Pick<ServerLaunch, "command" | "args">): string {
  const quote = (part: string): string => (/[\s"'$`\\]/.test(part) ? JSON.stringify(part) : part);
  return [launch.command, ...launch.args].map(quote).join(" ");
}

/**
 * Working directory and environment of the server process. The workspace folder is
 * the natural cwd, but only when trusted. The launcher keeps the cwd off sys.path itself (on every
 * Python); PYTHONSAFEPATH stays set for what the server may start, on the Pythons that read it. With `bytecodeCache` (the bundled
 * server) compiled modules are cached there, in the extension's own storage, even when
 * PYTHONDONTWRITEBYTECODE is set: the user's folders get no __pycache__ either way, and each
 * start no longer compiles the server from source (2.5 s -> 1.6 s measured on a loaded machine).
 */
export function serverProcessOptions(
  trusted: boolean,
  workspaceFolder: string | undefined,
  fallbackCwd: string,
  baseEnv: NodeJS.ProcessEnv,
  bytecodeCache?: string,
): { cwd: string; env: NodeJS.ProcessEnv } {
  const env: NodeJS.ProcessEnv = { ...baseEnv, PYTHONSAFEPATH: "1", PYTHONUNBUFFERED: "1" };
  if (bytecodeCache !== undefined) {
    env.PYTHONPYCACHEPREFIX = bytecodeCache;
    delete env.PYTHONDONTWRITEBYTECODE;
  }
  return { cwd: trusted && workspaceFolder !== undefined ? workspaceFolder : fallbackCwd, env };
}

/** Whether two resolutions would start the same server (so trust can be granted without a restart). */
export function sameCandidates(a: readonly ServerLaunch[], b: readonly ServerLaunch[]): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}
