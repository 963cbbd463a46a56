import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { after, describe, it } from "node:test";

import { which } from "../../src/core/which";

describe("which", () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "sl-which-"));
  const first = path.join(root, "a");
  const second = path.join(root, "b");
  fs.mkdirSync(first);
  fs.mkdirSync(second);
  fs.writeFileSync(path.join(first, "python3"), "not executable", { mode: 0o644 });
  fs.writeFileSync(path.join(second, "python3"), "#!/bin/sh\n", { mode: 0o755 });
  fs.mkdirSync(path.join(first, "python"));
  after(() => fs.rmSync(root, { recursive: true, force: true }));

  it("finds the first executable file on PATH, skipping non-executables and folders", () => {
    const pathValue = [first, second].join(":");
    assert.equal(which("python3", { pathValue, platform: "linux" }), path.join(second, "python3"));
    assert.equal(which("python", { pathValue, platform: "linux" }), undefined);
  });

  it("never looks in the cwd through an empty PATH entry", () => {
    assert.equal(which("python3", { pathValue: `:${first}`, platform: "linux", isExecutable: (f) => f === "python3" }), undefined);
  });

  it("tries PATHEXT suffixes on Windows", () => {
    const seen: string[] = [];
    const found = which("python", {
      pathValue: "C:\\Py;D:\\Tools",
      pathExt: ".EXE;.CMD",
      platform: "win32",
      isExecutable: (file) => {
        seen.push(file);
        return file === "D:\\Tools\\python.EXE";
      },
    });
    assert.equal(found, "D:\\Tools\\python.EXE");
    assert.deepEqual(seen.slice(0, 3), ["C:\\Py\\python", "C:\\Py\\python.EXE", "C:\\Py\\python.CMD"]);
  });
});
