// The cold open (docs/editor.md): activation must not evaluate vscode-languageclient, most of the
// bundle's load; serverController.ts loads it after spawning the server. Checked on the sources
// (no value import of it anywhere) and on the bundle esbuild makes of them (the import is deferred).
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, it } from "node:test";

import * as esbuild from "esbuild";

const ROOT = path.resolve(__dirname, "..", "..", "..");
const SRC = path.join(ROOT, "src");

function sources(dir: string): string[] {
  return fs
    .readdirSync(dir, { recursive: true, encoding: "utf8" })
    .filter((name) => name.endsWith(".ts"))
    .map((name) => path.join(dir, name));
}

describe("vscode-languageclient is loaded lazily", () => {
  it("is imported for its types only in the sources", () => {
    const valueImports = sources(SRC).flatMap((file) =>
      [...fs.readFileSync(file, "utf8").matchAll(/^import\s+(?!type\b)[^;]*?from\s+"vscode-languageclient[^"]*";/gms)].map(
        (m) => `${path.relative(ROOT, file)}: ${m[0]}`,
      ),
    );
    assert.deepEqual(valueImports, []);
    const controller = fs.readFileSync(path.join(SRC, "serverController.ts"), "utf8");
    assert.match(controller, /await import\("vscode-languageclient\/node"\)/);
  });

  it("is not evaluated when the bundle's entry runs", async () => {
    const built = await esbuild.build({
      entryPoints: [path.join(SRC, "extension.ts")],
      bundle: true,
      write: false,
      external: ["vscode"],
      format: "cjs",
      platform: "node",
      target: "node20",
      logLevel: "silent",
    });
    const text = built.outputFiles[0]?.text ?? "";
    // esbuild wraps each CommonJS module in a function called on first require; the deferred import
    // is `Promise.resolve().then(() => __toESM(require_x()))`, and nothing else may call require_x.
    const wrapper = /Promise\.resolve\(\)\.then\(\(\) => __toESM\((require_\w+)\(\)\)\)/.exec(text)?.[1];
    assert.ok(wrapper !== undefined, "no deferred import in the bundle");
    const defined = text.indexOf(`var ${wrapper} = __commonJS({`);
    assert.ok(defined >= 0);
    assert.match(text.slice(defined, defined + 200), /"node_modules\/vscode-languageclient\/lib\/node\/main\.js"/);
    const calls = [...text.matchAll(new RegExp(`\\b${wrapper}\\(\\)`, "g"))].map((m) => text.slice(Math.max(0, (m.index ?? 0) - 40), m.index));
    assert.equal(calls.length, 1, "vscode-languageclient is required once, lazily");
    assert.match(calls[0] ?? "", /Promise\.resolve\(\)\.then\(\(\) => __toESM\($/);
  });
});
