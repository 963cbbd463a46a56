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

export type LaunchSource =
  | "surfaceLint.serverPath"
  | "surfaceLint.interpreter"
  | "Python extension"
  | "PATH";

export interface ServerLaunch {
  command: string;
  args: string[];
  source: LaunchSource;
}

export type LaunchResolution =
  | { ok: true; launch: ServerLaunch; notes: string[] }
  | { ok: false; error: string; notes: string[] };

export interface LaunchInputs {
  serverPath?: InspectedSetting<string> | undefined;
  interpreter?: InspectedSetting<string> | undefined;
  /** Whether the workspace is trusted (`vscode.workspace.isTrusted`). */
  trusted: boolean;
  /** The Python extension's selected interpreter, or undefined when it is absent or has none. */
  pythonExtensionInterpreter?: string | undefined;
  /** First workspace folder's path: base for relative paths and `${workspaceFolder}`. */
  workspaceFolder?: string | undefined;
  home: string;
  /** PATH lookup: absolute path of an executable, or undefined. */
  findOnPath: (name: string) => string | undefined;
}

/** Interpreter names tried on PATH when nothing else names one, in order. */
export const PATH_INTERPRETERS: readonly string[] = ["python3", "python"];

export const SERVER_MODULE_ARGS: readonly string[] = ["-m", "surface_lint", "server"];

function nonEmpty(value: unknown): string | undefined {
  return typeof value === "string" && value.trim() !== "" ? value.trim() : undefined;
}

/**
 * The value of a setting that names an executable. Workspace and folder values
 * win over the user's, but only in a trusted workspace: an untrusted one must not
 * choose what we run.
 */
export function effectiveExecutableSetting(
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

/**
 * Expands `~`, `${userHome}` and `${workspaceFolder}`, and makes a relative path
 * that contains a separator absolute against the workspace folder. A bare name
 * (`python3.12`) is left for the PATH lookup of the process spawn.
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
  const hasSeparator = expanded.includes("/") || expanded.includes("\\");
  if (hasSeparator && !path.isAbsolute(expanded) && workspaceFolder !== undefined) {
    expanded = path.resolve(workspaceFolder, expanded);
  }
  return expanded;
}

/**
 * Picks the server command: `surfaceLint.serverPath` (`<path> server`), else
 * `surfaceLint.interpreter`, else the Python extension's interpreter (trusted
 * workspaces only), else `python3`/`python` on PATH (`<python> -m surface_lint server`).
 */
export function resolveServerLaunch(inputs: LaunchInputs): LaunchResolution {
  const notes: string[] = [];
  const expand = (value: string): string =>
    expandExecutablePath(value, inputs.home, inputs.workspaceFolder);

  const serverPath = effectiveExecutableSetting(
    inputs.serverPath,
    inputs.trusted,
    notes,
    "surfaceLint.serverPath",
  );
  if (serverPath !== undefined) {
    return {
      ok: true,
      launch: { command: expand(serverPath.value), args: ["server"], source: "surfaceLint.serverPath" },
      notes,
    };
  }

  const interpreter = effectiveExecutableSetting(
    inputs.interpreter,
    inputs.trusted,
    notes,
    "surfaceLint.interpreter",
  );
  if (interpreter !== undefined) {
    return {
      ok: true,
      launch: {
        command: expand(interpreter.value),
        args: [...SERVER_MODULE_ARGS],
        source: "surfaceLint.interpreter",
      },
      notes,
    };
  }

  const fromPythonExtension = nonEmpty(inputs.pythonExtensionInterpreter);
  if (fromPythonExtension !== undefined) {
    if (inputs.trusted) {
      return {
        ok: true,
        launch: {
          command: fromPythonExtension,
          args: [...SERVER_MODULE_ARGS],
          source: "Python extension",
        },
        notes,
      };
    }
    notes.push(
      "The Python extension's interpreter is not used: the workspace is not trusted and may have chosen it.",
    );
  }

  for (const name of PATH_INTERPRETERS) {
    const found = inputs.findOnPath(name);
    if (found !== undefined) {
      return {
        ok: true,
        launch: { command: found, args: [...SERVER_MODULE_ARGS], source: "PATH" },
        notes,
      };
    }
  }
  return {
    ok: false,
    error:
      `No Python interpreter found: surfaceLint.serverPath and surfaceLint.interpreter are not set, ` +
      `no interpreter is selected in the Python extension, and none of ${PATH_INTERPRETERS.join(", ")} is on PATH.`,
    notes,
  };
}

/**
 * A quick check to run before starting the server: `<python> -c "import surface_lint.lsp"`.
 * It turns the commonest failure (wrong interpreter, package or its [lsp] extra missing) into
 * one clear message instead of a failed LSP handshake. None for `serverPath` launches.
 */
export function preflightFor(launch: ServerLaunch): ServerLaunch | undefined {
  if (launch.source === "surfaceLint.serverPath") {
    return undefined;
  }
  return { ...launch, args: ["-c", "import surface_lint.lsp"] };
}

/** The command line as a user would type it, for messages. */
export function describeLaunch(launch: ServerLaunch): string {
  const quote = (part: string): string => (/[\s"'$`\\]/.test(part) ? JSON.stringify(part) : part);
  return [launch.command, ...launch.args].map(quote).join(" ");
}

/**
 * Working directory and environment of the server process. The workspace folder is
 * the natural cwd, but only when trusted; PYTHONSAFEPATH keeps `python -m` from
 * importing a `surface_lint` that happens to sit in the cwd.
 */
export function serverProcessOptions(
  trusted: boolean,
  workspaceFolder: string | undefined,
  fallbackCwd: string,
  baseEnv: NodeJS.ProcessEnv,
): { cwd: string; env: NodeJS.ProcessEnv } {
  return {
    cwd: trusted && workspaceFolder !== undefined ? workspaceFolder : fallbackCwd,
    env: { ...baseEnv, PYTHONSAFEPATH: "1", PYTHONUNBUFFERED: "1" },
  };
}
