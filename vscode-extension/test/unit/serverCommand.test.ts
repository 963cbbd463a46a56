import assert from "node:assert/strict";
import * as cp from "node:child_process";
import * as path from "node:path";
import { describe, it } from "node:test";

import { which } from "../../src/core/which";

import {
  bundledCheckProblem,
  checksItself,
  checkExecutableSetting,
  describeLaunch,
  effectiveRestrictedSetting,
  expandExecutablePath,
  importStrategyOf,
  isInside,
  LAUNCHER_REPORT_PREFIX,
  launcherReport,
  preflightAdvice,
  resolveServerLaunch,
  sameCandidates,
  serverProcessOptions,
  type LaunchInputs,
  type ServerLaunch,
} from "../../src/core/serverCommand";

const BUNDLED = "/ext/bundled/tool/surface_lint_server.py";

const onPath =
  (found: Record<string, string>) =>
  (name: string): string | undefined =>
    found[name];

/** A file system where only `links` are symlinks (link -> target); everything else is itself. */
const realPaths =
  (links: Record<string, string> = {}) =>
  (file: string): string | undefined => {
    for (const [link, target] of Object.entries(links)) {
      if (file === link || file.startsWith(`${link}/`)) {
        return target + file.slice(link.length);
      }
    }
    return file;
  };

function inputs(overrides: Partial<LaunchInputs>): LaunchInputs {
  return {
    trusted: true,
    home: "/home/u",
    workspaceFolders: ["/ws"],
    findOnPath: onPath({ python3: "/usr/bin/python3" }),
    realPath: realPaths(),
    bundledScript: BUNDLED,
    ...overrides,
  };
}

const bundled = (command: string, source: ServerLaunch["source"]): ServerLaunch => ({
  command,
  args: [BUNDLED],
  source,
  strategy: "useBundled",
});
const fromEnvironment = (command: string, source: ServerLaunch["source"]): ServerLaunch => ({
  command,
  args: [BUNDLED, "--from-environment"],
  source,
  strategy: "fromEnvironment",
});

describe("effectiveRestrictedSetting", () => {
  it("prefers folder over workspace over user in a trusted workspace", () => {
    const all = { globalValue: "/u/py", workspaceValue: "/w/py", workspaceFolderValue: "/f/py" };
    assert.deepEqual(effectiveRestrictedSetting(all, true), { value: "/f/py", level: "workspaceFolder" });
    assert.deepEqual(effectiveRestrictedSetting({ ...all, workspaceFolderValue: undefined }, true), {
      value: "/w/py",
      level: "workspace",
    });
  });

  it("ignores workspace values in an untrusted workspace and says so", () => {
    const notes: string[] = [];
    const value = effectiveRestrictedSetting(
      { globalValue: "/u/py", workspaceValue: "./evil" },
      false,
      notes,
      "surfaceLint.interpreter",
    );
    assert.deepEqual(value, { value: "/u/py", level: "user" });
    assert.deepEqual(notes, ["surfaceLint.interpreter from the workspace settings is ignored: the workspace is not trusted."]);
  });

  it("treats empty and blank strings as unset, and never returns the default", () => {
    assert.equal(effectiveRestrictedSetting({ defaultValue: "", globalValue: "  " }, true), undefined);
    assert.equal(effectiveRestrictedSetting({ defaultValue: "python9" }, true), undefined);
    assert.equal(effectiveRestrictedSetting(undefined, true), undefined);
  });
});

describe("importStrategyOf", () => {
  it("defaults to useBundled and takes fromEnvironment", () => {
    assert.equal(importStrategyOf(undefined, true), "useBundled");
    assert.equal(importStrategyOf({ globalValue: "fromEnvironment" }, true), "fromEnvironment");
    assert.equal(importStrategyOf({ workspaceValue: "fromEnvironment" }, true), "fromEnvironment");
  });

  it("ignores an untrusted workspace's choice and an unknown value, with a note each", () => {
    const notes: string[] = [];
    assert.equal(importStrategyOf({ workspaceValue: "fromEnvironment" }, false, notes), "useBundled");
    assert.equal(importStrategyOf({ globalValue: "bundled" }, true, notes), "useBundled");
    assert.deepEqual(notes, [
      "surfaceLint.importStrategy from the workspace settings is ignored: the workspace is not trusted.",
      'surfaceLint.importStrategy: "bundled" is not one of useBundled, fromEnvironment; using useBundled.',
    ]);
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

describe("isInside", () => {
  it("holds for the folder itself and what lies under it, not for a sibling with the same prefix", () => {
    assert.equal(isInside("/ws", "/ws"), true);
    assert.equal(isInside("/ws/.venv/bin/python", "/ws"), true);
    assert.equal(isInside("/ws-other/python", "/ws"), false);
    assert.equal(isInside("/usr/bin/python3", "/ws"), false);
    assert.equal(isInside("/ws/../etc/python", "/ws"), false);
  });
});

describe("checkExecutableSetting in an untrusted workspace", () => {
  const untrusted = (overrides: Partial<LaunchInputs> = {}): LaunchInputs => inputs({ trusted: false, ...overrides });
  const advice = "the workspace is not trusted, so surface-lint will not run it. Trust the workspace, or set surfaceLint.interpreter to an absolute path outside the workspace.";

  it("refuses ${workspaceFolder} and other workspace variables", () => {
    assert.deepEqual(checkExecutableSetting("surfaceLint.interpreter", "${workspaceFolder}/.venv/bin/python", untrusted()), {
      ok: false,
      error: `surfaceLint.interpreter is "\${workspaceFolder}/.venv/bin/python", which names a workspace folder or file; ${advice}`,
    });
    for (const value of ["${workspaceFolder:app}/py", "${fileDirname}/py", "${workspaceRoot}/py", "${cwd}/py"]) {
      assert.equal(checkExecutableSetting("surfaceLint.interpreter", value, untrusted()).ok, false, value);
    }
  });

  it("refuses a relative path", () => {
    assert.deepEqual(checkExecutableSetting("surfaceLint.interpreter", ".venv/bin/python", untrusted()), {
      ok: false,
      error: `surfaceLint.interpreter is ".venv/bin/python", a relative path, which would resolve into the workspace; ${advice}`,
    });
    assert.equal(checkExecutableSetting("surfaceLint.interpreter", "../py/python", untrusted()).ok, false);
  });

  it("refuses an absolute path, a PATH hit or a symlink target inside a workspace folder", () => {
    assert.deepEqual(
      checkExecutableSetting("surfaceLint.serverPath", "/ws/tools/surface-lint", untrusted()),
      {
        ok: false,
        error:
          'surfaceLint.serverPath is "/ws/tools/surface-lint", which resolves to /ws/tools/surface-lint, inside the workspace folder /ws; ' +
          "the workspace is not trusted, so surface-lint will not run it. Trust the workspace, or set surfaceLint.serverPath to an absolute path outside the workspace.",
      },
    );
    const second = untrusted({ workspaceFolders: ["/ws", "/other"] });
    assert.equal(checkExecutableSetting("surfaceLint.interpreter", "/other/bin/python", second).ok, false);
    const viaPath = untrusted({ findOnPath: onPath({ "python3.12": "/ws/.venv/bin/python3.12" }) });
    assert.equal(checkExecutableSetting("surfaceLint.interpreter", "python3.12", viaPath).ok, false);
    const viaLink = untrusted({ realPath: realPaths({ "/home/u/bin": "/ws/.venv/bin" }) });
    assert.equal(checkExecutableSetting("surfaceLint.interpreter", "~/bin/python", viaLink).ok, false);
  });

  it("accepts a user path outside the workspace, expanding ~ and resolving bare names on PATH", () => {
    assert.deepEqual(checkExecutableSetting("surfaceLint.interpreter", "~/py/bin/python", untrusted()), {
      ok: true,
      command: "/home/u/py/bin/python",
    });
    const found = untrusted({ findOnPath: onPath({ "python3.12": "/usr/bin/python3.12" }) });
    assert.deepEqual(checkExecutableSetting("surfaceLint.interpreter", "python3.12", found), {
      ok: true,
      command: "/usr/bin/python3.12",
    });
  });

  it("lets a trusted workspace use its own folder", () => {
    assert.deepEqual(checkExecutableSetting("surfaceLint.interpreter", "${workspaceFolder}/.venv/bin/python", inputs({})), {
      ok: true,
      command: "/ws/.venv/bin/python",
    });
  });
});

describe("resolveServerLaunch", () => {
  it("runs the bundled server with the first Python on PATH when nothing is set", () => {
    const found = onPath({ python3: "/usr/bin/python3", python: "/usr/bin/python", "python3.12": "/usr/bin/python3.12" });
    assert.deepEqual(resolveServerLaunch(inputs({ findOnPath: found })), {
      ok: true,
      candidates: [
        bundled("/usr/bin/python3", "PATH"),
        bundled("/usr/bin/python", "PATH"),
        bundled("/usr/bin/python3.12", "PATH"),
      ],
      notes: [],
    });
  });

  it("tries the Python extension's interpreter first, then PATH, without repeating one", () => {
    const result = resolveServerLaunch(
      inputs({ pythonExtensionInterpreter: "/usr/bin/python3", findOnPath: onPath({ python3: "/usr/bin/python3", python: "/opt/python" }) }),
    );
    assert.deepEqual(result, {
      ok: true,
      candidates: [bundled("/usr/bin/python3", "Python extension"), bundled("/opt/python", "PATH")],
      notes: [],
    });
  });

  it("runs serverPath as `<path> server`, alone, before the interpreter", () => {
    const result = resolveServerLaunch(
      inputs({ serverPath: { globalValue: "/opt/sl/bin/surface-lint" }, interpreter: { globalValue: "/py" } }),
    );
    assert.deepEqual(result, {
      ok: true,
      candidates: [{ command: "/opt/sl/bin/surface-lint", args: ["server"], source: "surfaceLint.serverPath", strategy: "serverPath" }],
      notes: [],
    });
  });

  it("runs the interpreter setting alone; fromEnvironment makes it the launcher's --from-environment", () => {
    const result = resolveServerLaunch(
      inputs({
        interpreter: { workspaceValue: ".venv/bin/python" },
        importStrategy: { globalValue: "fromEnvironment" },
        pythonExtensionInterpreter: "/pyext/python",
      }),
    );
    assert.deepEqual(result, {
      ok: true,
      candidates: [fromEnvironment("/ws/.venv/bin/python", "surfaceLint.interpreter")],
      notes: [],
    });
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
    assert.deepEqual(result, {
      ok: true,
      candidates: [bundled("/usr/bin/python3", "PATH")],
      notes: [
        "surfaceLint.serverPath from the workspace settings is ignored: the workspace is not trusted.",
        "surfaceLint.interpreter from the workspace settings is ignored: the workspace is not trusted.",
        "The Python extension's interpreter is not used: the workspace is not trusted and may have chosen it.",
      ],
    });
  });

  it("refuses a user-level interpreter that resolves into the untrusted workspace (no PATH fallback)", () => {
    const result = resolveServerLaunch(inputs({ trusted: false, interpreter: { globalValue: "${workspaceFolder}/.venv/bin/python" } }));
    assert.equal(result.ok, false);
    assert.ok(!result.ok);
    assert.equal(result.refused, true);
    assert.match(result.error, /^surfaceLint\.interpreter is "\$\{workspaceFolder\}\/\.venv\/bin\/python", which names a workspace folder/);
  });

  it("skips a PATH interpreter inside an untrusted workspace folder", () => {
    const found = onPath({ python3: "/ws/.venv/bin/python3", python: "/usr/bin/python" });
    assert.deepEqual(resolveServerLaunch(inputs({ trusted: false, findOnPath: found })), {
      ok: true,
      candidates: [bundled("/usr/bin/python", "PATH")],
      notes: ["/ws/.venv/bin/python3 (python3 on PATH) is not used: it is inside the untrusted workspace folder /ws."],
    });
  });

  it("honours the user's own setting in an untrusted workspace", () => {
    const result = resolveServerLaunch(inputs({ trusted: false, interpreter: { globalValue: "~/py/bin/python" } }));
    assert.deepEqual(result, { ok: true, candidates: [bundled("/home/u/py/bin/python", "surfaceLint.interpreter")], notes: [] });
  });

  it("explains what it looked for when there is no interpreter at all", () => {
    const result = resolveServerLaunch(inputs({ findOnPath: onPath({}) }));
    assert.ok(!result.ok);
    assert.equal(result.refused, false);
    assert.equal(
      result.error,
      "No Python interpreter found: surfaceLint.serverPath and surfaceLint.interpreter are not set, no interpreter is selected " +
        "in the Python extension, and none of python3, python, python3.14, python3.13, python3.12, python3.11, python3.10 is on PATH. " +
        "Install Python 3.10 or newer, or set surfaceLint.interpreter.",
    );
  });
});

/** The bundled launcher run by a Python on PATH with -S and no PYTHONPATH: nothing but the standard library is importable. */
function runLauncherBare(args: string[]): { executable: string; served: cp.SpawnSyncReturns<string> } {
  const python = which("python3") ?? which("python");
  assert.ok(python !== undefined, "a Python on PATH");
  const env = { PATH: process.env.PATH ?? "" };
  const executable = cp.spawnSync(python, ["-S", "-c", "import sys; print(sys.executable)"], { encoding: "utf8", env }).stdout.trim();
  const launcher = path.resolve(__dirname, "../../../bundled/tool/surface_lint_server.py");
  return { executable, served: cp.spawnSync(python, ["-S", launcher, ...args], { encoding: "utf8", env, input: "" }) };
}

describe("checksItself and launcherReport (no separate preflight Python)", () => {
  it("lets the bundled launcher check its own Python, either strategy, and has nothing to check for serverPath", () => {
    assert.equal(checksItself(bundled("/py", "PATH")), true);
    assert.equal(checksItself(fromEnvironment("/py", "Python extension")), true);
    assert.equal(checksItself({ command: "/sl", args: ["server"], source: "surfaceLint.serverPath", strategy: "serverPath" }), false);
  });

  it("reads the launcher's report line on stderr, and only that line", () => {
    assert.equal(LAUNCHER_REPORT_PREFIX, "surface-lint launcher: ");
    assert.deepEqual(launcherReport('surface-lint launcher: {"ok": true, "python": "/py", "version": "3.12.1"}'), { problem: undefined });
    assert.deepEqual(launcherReport('surface-lint launcher: {"ok": false, "problem": "no re2"}'), { problem: "no re2" });
    assert.deepEqual(launcherReport("surface-lint launcher: oops"), {
      problem: "the bundled launcher's check printed no report (\"oops\")",
    });
    assert.equal(launcherReport("surface-lint: no re2"), null);
    assert.equal(launcherReport('{"ok": true}'), null);
  });

  it("gets the report from the launcher run as the server, in a real Python, before it exits 1", () => {
    const { executable, served } = runLauncherBare(["--from-environment"]);
    assert.equal(served.status, 1);
    assert.equal(served.stdout, "");
    const problem = `${executable} does not have surface_lint, pygls, lsprotocol installed`;
    const lines = served.stderr.trimEnd().split("\n");
    assert.equal(lines.length, 2);
    assert.equal(lines[0], `surface-lint: ${problem}`);
    assert.deepEqual(launcherReport(lines[1] ?? ""), { problem });
  });

  it("runs the environment check in a real Python, with a report saying what is missing", () => {
    const { executable, served: bare } = runLauncherBare(["--from-environment", "--check"]);
    assert.equal(bare.status, 1);
    assert.equal(bundledCheckProblem(bare.stdout), `${executable} does not have surface_lint, pygls, lsprotocol installed`);
  });

  it("advises per strategy", () => {
    assert.equal(preflightAdvice(bundled("/py", "PATH")), "Choose a Python 3.10 or newer with surfaceLint.interpreter.");
    assert.match(preflightAdvice(fromEnvironment("/py", "PATH")), /^Install surface-lint into that Python \(`\/py -m pip install surface-lint`\)/);
  });
});

describe("bundledCheckProblem", () => {
  it("reads the launcher's one-line JSON report", () => {
    assert.equal(bundledCheckProblem('{"ok": true, "python": "/py", "version": "3.12.1"}\n'), undefined);
    assert.equal(
      bundledCheckProblem('{"ok": false, "problem": "surface-lint needs Python >= 3.10; /py is Python 3.9"}'),
      "surface-lint needs Python >= 3.10; /py is Python 3.9",
    );
  });

  it("says so when there is no report (a Python 2 SyntaxError, a crash)", () => {
    assert.equal(bundledCheckProblem(""), "the bundled launcher's check printed no report (\"\")");
    assert.equal(bundledCheckProblem("null"), "the bundled launcher's check printed no report");
    assert.equal(bundledCheckProblem('{"ok": false}'), "the bundled launcher's check failed");
  });
});

describe("describeLaunch", () => {
  it("quotes parts with spaces", () => {
    assert.equal(
      describeLaunch({ command: "/My Envs/python", args: ["-m", "surface_lint", "server"] }),
      '"/My Envs/python" -m surface_lint server',
    );
  });
});

describe("sameCandidates", () => {
  it("compares command, arguments, source and strategy", () => {
    assert.equal(sameCandidates([bundled("/py", "PATH")], [bundled("/py", "PATH")]), true);
    assert.equal(sameCandidates([bundled("/py", "PATH")], [bundled("/py", "Python extension")]), false);
    assert.equal(sameCandidates([bundled("/py", "PATH")], [fromEnvironment("/py", "PATH")]), false);
  });
});

describe("serverProcessOptions", () => {
  it("runs in the workspace folder only when trusted, always with PYTHONSAFEPATH", () => {
    const trusted = serverProcessOptions(true, "/ws", "/ext", { PATH: "/bin" });
    assert.deepEqual(trusted, { cwd: "/ws", env: { PATH: "/bin", PYTHONSAFEPATH: "1", PYTHONUNBUFFERED: "1" } });
    assert.equal(serverProcessOptions(false, "/ws", "/ext", {}).cwd, "/ext");
    assert.equal(serverProcessOptions(true, undefined, "/ext", {}).cwd, "/ext");
  });

  it("caches the bundled server's bytecode in the extension's storage, even under PYTHONDONTWRITEBYTECODE", () => {
    assert.deepEqual(serverProcessOptions(false, "/ws", "/ext", { PATH: "/bin", PYTHONDONTWRITEBYTECODE: "1" }, "/store/pycache"), {
      cwd: "/ext",
      env: { PATH: "/bin", PYTHONSAFEPATH: "1", PYTHONUNBUFFERED: "1", PYTHONPYCACHEPREFIX: "/store/pycache" },
    });
    assert.equal(serverProcessOptions(true, "/ws", "/ext", { PYTHONDONTWRITEBYTECODE: "1" }).env.PYTHONDONTWRITEBYTECODE, "1");
  });
});
