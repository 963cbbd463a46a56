// The Python extension's selected interpreter, through its public `environments` API.
import * as vscode from "vscode";

const PYTHON_EXTENSION_ID = "ms-python.python";

interface EnvironmentPath {
  id: string;
  path: string;
}

interface ResolvedEnvironment {
  executable?: { uri?: vscode.Uri | undefined };
}

/** The subset of ms-python.python's exported API that we use. */
interface PythonEnvironmentsApi {
  environments?: {
    getActiveEnvironmentPath(resource?: vscode.Uri): EnvironmentPath | undefined;
    resolveEnvironment(environment: EnvironmentPath | string): Promise<ResolvedEnvironment | undefined>;
    onDidChangeActiveEnvironmentPath?: vscode.Event<unknown>;
  };
}

async function pythonApi(): Promise<PythonEnvironmentsApi | undefined> {
  const extension = vscode.extensions.getExtension<PythonEnvironmentsApi>(PYTHON_EXTENSION_ID);
  if (extension === undefined) {
    return undefined;
  }
  return extension.isActive ? extension.exports : await extension.activate();
}

/** Path of the interpreter the Python extension has selected for `resource`, if any. */
export async function pythonExtensionInterpreter(
  resource: vscode.Uri | undefined,
  log: (line: string) => void,
): Promise<string | undefined> {
  try {
    const environments = (await pythonApi())?.environments;
    if (environments === undefined) {
      return undefined;
    }
    const active = environments.getActiveEnvironmentPath(resource);
    if (active === undefined) {
      return undefined;
    }
    const resolved = await environments.resolveEnvironment(active);
    return resolved?.executable?.uri?.fsPath ?? active.path;
  } catch (error) {
    log(`Could not ask the Python extension for its interpreter: ${String(error)}`);
    return undefined;
  }
}

/** Subscribes to interpreter changes in the Python extension (no-op when it is absent). */
export async function onPythonInterpreterChange(
  listener: () => void,
): Promise<vscode.Disposable | undefined> {
  try {
    const event = (await pythonApi())?.environments?.onDidChangeActiveEnvironmentPath;
    return event === undefined ? undefined : event(() => listener());
  } catch {
    return undefined;
  }
}
