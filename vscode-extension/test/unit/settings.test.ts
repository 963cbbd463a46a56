import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, it } from "node:test";

import {
  DEFAULT_INCLUDE,
  documentSelectorFor,
  LANE_FILE_GLOBS,
  includeGlobs,
  normalizeSeverity,
  SEVERITIES,
  SEVERITY_ALIASES,
  toServerSettings,
} from "../../src/core/settings";

/** vscode-extension/, from out/test/unit/. */
const EXTENSION_ROOT = path.resolve(__dirname, "..", "..", "..");
const SEVERITY_TABLE = path.join(EXTENSION_ROOT, "..", "server", "surface_lint", "model", "severity_levels.json");

describe("the severity table shared with Python (server/surface_lint/model/severity_levels.json)", () => {
  const table = JSON.parse(fs.readFileSync(SEVERITY_TABLE, "utf8")) as { levels: string[]; aliases: Record<string, string> };

  it("has the same levels and aliases as the TypeScript side", () => {
    assert.deepEqual([...SEVERITIES], table.levels);
    assert.deepEqual({ ...SEVERITY_ALIASES }, table.aliases);
  });

  it("is what the surfaceLint.severity setting's schema offers", () => {
    const manifest = JSON.parse(fs.readFileSync(path.join(EXTENSION_ROOT, "package.json"), "utf8")) as {
      contributes: { configuration: { properties: Record<string, { additionalProperties?: { enum?: string[] } }> } };
    };
    const offered = manifest.contributes.configuration.properties["surfaceLint.severity"]?.additionalProperties?.enum;
    assert.deepEqual(offered, [...table.levels, ...Object.keys(table.aliases)]);
  });
});

describe("normalizeSeverity", () => {
  it("maps each level and alias, in any case and spacing", () => {
    assert.equal(normalizeSeverity("error"), "error");
    assert.equal(normalizeSeverity(" Warn"), "warning");
    assert.equal(normalizeSeverity("ERR"), "error");
    assert.equal(normalizeSeverity("info "), "information");
    assert.equal(normalizeSeverity("Off"), "off");
  });

  it("refuses anything else, including inherited object keys", () => {
    assert.equal(normalizeSeverity("fatal"), undefined);
    assert.equal(normalizeSeverity("toString"), undefined);
    assert.equal(normalizeSeverity("constructor"), undefined);
    assert.equal(normalizeSeverity(3), undefined);
    assert.equal(normalizeSeverity(null), undefined);
  });
});

describe("toServerSettings", () => {
  it("gives the defaults for unset settings", () => {
    assert.deepEqual(toServerSettings({}), {
      settings: { profile: "auto", severity: {}, run: "onType" },
      problems: [],
    });
  });

  it("passes valid values through", () => {
    const { settings, problems } = toServerSettings({
      profile: "reference",
      run: "onSave",
      severity: { complete_punctuation: "warning", no_dotted_inventory: "off", no_placeholder: "hint" },
    });
    assert.deepEqual(settings, {
      profile: "reference",
      run: "onSave",
      severity: { complete_punctuation: "warning", no_dotted_inventory: "off", no_placeholder: "hint" },
    });
    assert.deepEqual(problems, []);
  });

  it("normalizes severity spelling and accepts `info`", () => {
    const { settings } = toServerSettings({ severity: { a: "Warning", b: " info ", c: "INFORMATION" } });
    assert.deepEqual(settings.severity, { a: "warning", b: "information", c: "information" });
  });

  it("keeps defaults for values it cannot use, with one problem each", () => {
    const { settings, problems } = toServerSettings({
      profile: "strict",
      run: "always",
      severity: { a: "fatal", b: 3, c: "error" },
    });
    assert.deepEqual(settings, { profile: "auto", run: "onType", severity: { c: "error" } });
    assert.deepEqual(problems, [
      'surfaceLint.profile: "strict" is not one of auto, contract, reference; using "auto".',
      'surfaceLint.run: "always" is not one of onType, onSave; using "onType".',
      'surfaceLint.severity.a: "fatal" is not one of error, warning, information, hint, off (or err, warn, info); ignored.',
      "surfaceLint.severity.b: 3 is not one of error, warning, information, hint, off (or err, warn, info); ignored.",
    ]);
  });

  it("rejects a severity that is not an object", () => {
    for (const severity of [["error"], "error"]) {
      const { settings, problems } = toServerSettings({ severity });
      assert.deepEqual(settings.severity, {});
      assert.equal(problems.length, 1);
    }
    assert.deepEqual(toServerSettings({ severity: null }).problems, []);
  });

  it("does not share the severity object between calls", () => {
    toServerSettings({ severity: { a: "error" } });
    assert.deepEqual(toServerSettings({}).settings.severity, {});
  });
});

describe("includeGlobs and documentSelectorFor", () => {
  it("uses the defaults when unset, keeps an explicit empty list", () => {
    assert.deepEqual(includeGlobs(undefined), [...DEFAULT_INCLUDE]);
    assert.deepEqual(includeGlobs([]), []);
    assert.deepEqual(includeGlobs(["**/*.jsonl", "", 4, "  "]), ["**/*.jsonl"]);
  });

  it("selects files on disk by pattern", () => {
    assert.deepEqual(documentSelectorFor(["**/*transcript*.jsonl"]), [
      { scheme: "file", pattern: "**/*transcript*.jsonl" },
    ]);
  });

  it("defaults cover case files, the runtime's run layout, transcripts/runs folders and lane reports", () => {
    assert.deepEqual(DEFAULT_INCLUDE, [
      "**/cases*.jsonl",
      "**/cases/**/*.jsonl",
      "**/*.surface.jsonl",
      "**/transcripts/**/*.jsonl",
      "**/runs/**/*.jsonl",
      "**/captures/**/*.jsonl",
      "**/telemetry/**/*.jsonl",
      "**/*transcript*.jsonl",
      "**/reports/**/*.json",
      "**/results/**/*.json",
      "**/baselines/**/*.json",
    ]);
  });

  describe("are one list with the manifest", () => {
    const manifest = JSON.parse(fs.readFileSync(path.join(EXTENSION_ROOT, "package.json"), "utf8")) as {
      activationEvents: string[];
      contributes: { configuration: { properties: Record<string, { default?: unknown }> } };
    };
    const properties = manifest.contributes.configuration.properties;

    it("is the surfaceLint.include setting's default", () => {
      assert.deepEqual(properties["surfaceLint.include"]?.default, [...DEFAULT_INCLUDE]);
    });

    it("wakes the extension where it would lint", () => {
      assert.deepEqual(manifest.activationEvents, ["onLanguage:jsonl", ...DEFAULT_INCLUDE.map((g) => `workspaceContains:${g}`)]);
    });

    it("sends lane and config files, the ones tomlValidation gives the schemas", () => {
      assert.deepEqual(LANE_FILE_GLOBS, ["**/rules/*.toml", "**/*.lane.toml", "**/surface-lint.toml", "**/.surface-lint.toml"]);
      const toml = (manifest.contributes as unknown as { tomlValidation: { fileMatch: string; url: string }[] }).tomlValidation;
      assert.deepEqual(toml.map((entry) => entry.url), [
        "./bundled/libs/surface_lint/schemas/config.schema.json",
        "./bundled/libs/surface_lint/schemas/lane.schema.json",
      ]);
      const matches = (file: string): string[] => toml.filter((entry) => new RegExp(entry.fileMatch).test(file)).map((entry) => entry.url);
      assert.deepEqual(matches("/w/lanes/rules/mine.toml"), ["./bundled/libs/surface_lint/schemas/lane.schema.json"]);
      assert.deepEqual(matches("/w/my.lane.toml"), ["./bundled/libs/surface_lint/schemas/lane.schema.json"]);
      assert.deepEqual(matches("/w/surface-lint.toml"), ["./bundled/libs/surface_lint/schemas/config.schema.json"]);
      assert.deepEqual(matches("/w/Cargo.toml"), []);
    });

    it("holds every run folder the review reads (a run outside the include is not synced)", () => {
      const review = properties["surfaceLint.review.transcripts"]?.default as string[];
      assert.deepEqual(review.filter((glob) => !DEFAULT_INCLUDE.includes(glob)), []);
    });
  });
});
