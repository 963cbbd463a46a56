import assert from "node:assert/strict";
import { describe, it } from "node:test";

import {
  describeLaunch,
  effectiveExecutableSetting,
  expandExecutablePath,
  preflightFor,
  resolveServerLaunch,
  serverProcessOptions,
  type LaunchInputs,
} from "../../src/core/serverCommand";

const onPath =
  (...names: string[]) =>
  (name: string): string | undefined =>
    names.includes(name) ? `/usr/bin/${name}` : undefined;

function inputs(overrides: Partial<LaunchInputs>): LaunchInputs {
  return { trusted: true, home: "/home/u", workspaceFolder: "/ws", findOnPath: onPath("python3"), ...overrides };
}

describe("effectiveExecutableSetting", () => {
  it("prefers folder over workspace over user in a trusted workspace", () => {
    const all = { globalValue: "/u/py", workspaceValue: "/w/py", workspaceFolderValue: "/f/py" };
    assert.deepEqual(effectiveExecutableSetting(all, true), { value: "/f/py", level: "workspaceFolder" });
    assert.deepEqual(effectiveExecutableSetting({ ...all, workspaceFolderValue: undefined }, true), {
      value: "/w/py",
      level: "workspace",
    });
  });

  it("ignores workspace values in an untrusted workspace and says so", () => {
    const notes: string[] = [];
    const value = effectiveExecutableSetting(
      { globalValue: "/u/py", workspaceValue: "./evil" },
      false,
      notes,
      "surfaceLint.interpreter",
    );
    assert.deepEqual(value, { value: "/u/py", level: "user" });
    assert.equal(notes.length, 1);
    assert.match(notes[0] ?? "", /surfaceLint\.interpreter.*not trusted/);
  });

  it("treats empty and blank strings as unset, and never returns the default", () => {
    assert.equal(effectiveExecutableSetting({ defaultValue: "", globalValue: "  " }, true), undefined);
    assert.equal(effectiveExecutableSetting({ defaultValue: "python9" }, true), undefined);
    assert.equal(effectiveExecutableSetting(undefined, true), undefined);
  });
});

describe("expandExecutablePath", () => {
  it("expands ~, ${userHome} and ${workspaceFolder}", () => {
    assert.equal(expandExecutablePath("~/venv/bin/python", "/home/u", "/ws"), "/home/u/venv/bin/python");
    assert.equal(expandExecutablePath("${userHome}/py", "/home/u", "/ws"), "/home/u/py");
    assert.equal(expandExecutablePath("${workspaceFolder}/.venv/bin/python", "/home/u", "/ws"), "/ws/.venv/bin/python");
  });

  it("makes a relative path absolute against the workspace folder, leaves bare names for PATH", () => {
    assert.equal(expandExecutablePath(".venv/bin/python", "/home/u", "/ws"), "/ws/.venv/bin/python");
    assert.equal(expandExecutablePath("python3.12", "/home/u", "/ws"), "python3.12");
    assert.equal(expandExecutablePath(".venv/bin/python", "/home/u", undefined), ".venv/bin/python");
  });
});

describe("resolveServerLaunch", () => {
  it("runs serverPath as `<path> server`, before the interpreter", () => {
    const result = resolveServerLaunch(
      inputs({ serverPath: { globalValue: "/opt/sl/bin/surface-lint" }, interpreter: { globalValue: "/py" } }),
    );
    assert.deepEqual(result, {
      ok: true,
      launch: { command: "/opt/sl/bin/surface-lint", args: ["server"], source: "surfaceLint.serverPath" },
      notes: [],
    });
  });

  it("runs the interpreter setting as `<python> -m surface_lint server`, before the Python extension", () => {
    const result = resolveServerLaunch(
      inputs({ interpreter: { workspaceValue: ".venv/bin/python" }, pythonExtensionInterpreter: "/pyext/python" }),
    );
    assert.ok(result.ok);
    assert.deepEqual(result.launch, {
      command: "/ws/.venv/bin/python",
      args: ["-m", "surface_lint", "server"],
      source: "surfaceLint.interpreter",
    });
  });

  it("uses the Python extension's interpreter when no setting names one", () => {
    const result = resolveServerLaunch(inputs({ pythonExtensionInterpreter: "/pyext/python" }));
    assert.ok(result.ok);
    assert.equal(result.launch.command, "/pyext/python");
    assert.equal(result.launch.source, "Python extension");
  });

  it("skips the Python extension and workspace settings when untrusted, falling back to PATH", () => {
    const result = resolveServerLaunch(
      inputs({
        trusted: false,
        interpreter: { workspaceValue: "./evil-python" },
        serverPath: { workspaceFolderValue: "./evil-server" },
        pythonExtensionInterpreter: "/ws/.venv/bin/python",
      }),
    );
    assert.ok(result.ok);
    assert.deepEqual(result.launch, {
      command: "/usr/bin/python3",
      args: ["-m", "surface_lint", "server"],
      source: "PATH",
    });
    assert.equal(result.notes.length, 3);
  });

  it("honours the user's own setting in an untrusted workspace", () => {
    const result = resolveServerLaunch(inputs({ trusted: false, interpreter: { globalValue: "~/py/bin/python" } }));
    assert.ok(result.ok);
    assert.equal(result.launch.command, "/home/u/py/bin/python");
  });

  it("falls back from python3 to python on PATH", () => {
    const result = resolveServerLaunch(inputs({ findOnPath: onPath("python") }));
    assert.ok(result.ok);
    assert.equal(result.launch.command, "/usr/bin/python");
  });

  it("explains what it looked for when there is no interpreter at all", () => {
    const result = resolveServerLaunch(inputs({ findOnPath: onPath() }));
    assert.equal(result.ok, false);
    assert.ok(!result.ok);
    assert.match(result.error, /serverPath.*interpreter.*Python extension.*python3, python/);
  });
});

describe("describeLaunch", () => {
  it("quotes parts with spaces", () => {
    assert.equal(
      describeLaunch({ command: "/My Envs/python", args: ["-m", "surface_lint", "server"], source: "PATH" }),
      '"/My Envs/python" -m surface_lint server',
    );
  });
});

describe("serverProcessOptions", () => {
  it("runs in the workspace folder only when trusted, always with PYTHONSAFEPATH", () => {
    const trusted = serverProcessOptions(true, "/ws", "/ext", { PATH: "/bin" });
    assert.equal(trusted.cwd, "/ws");
    assert.equal(trusted.env.PYTHONSAFEPATH, "1");
    assert.equal(trusted.env.PATH, "/bin");
    assert.equal(serverProcessOptions(false, "/ws", "/ext", {}).cwd, "/ext");
    assert.equal(serverProcessOptions(true, undefined, "/ext", {}).cwd, "/ext");
  });
});

describe("preflightFor", () => {
  it("imports surface_lint.lsp with the interpreter that will run the server", () => {
    assert.deepEqual(
      preflightFor({ command: "/py", args: ["-m", "surface_lint", "server"], source: "Python extension" }),
      { command: "/py", args: ["-c", "import surface_lint.lsp"], source: "Python extension" },
    );
  });

  it("has nothing to check for a serverPath executable", () => {
    assert.equal(preflightFor({ command: "/sl", args: ["server"], source: "surfaceLint.serverPath" }), undefined);
  });
});
