import assert from "node:assert/strict";
import { describe, it } from "node:test";

import {
  DEFAULT_INCLUDE,
  documentSelectorFor,
  includeGlobs,
  toServerSettings,
} from "../../src/core/settings";

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
    assert.equal(problems.length, 4);
    assert.match(problems[0] ?? "", /surfaceLint\.profile: "strict"/);
    assert.match(problems[2] ?? "", /surfaceLint\.severity\.a: "fatal"/);
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

  it("defaults cover case files, transcripts, lane results and .surface.jsonl", () => {
    assert.deepEqual(DEFAULT_INCLUDE, [
      "**/evals/**/cases*.jsonl",
      "**/*transcript*.jsonl",
      "**/evals/**/results/*.json",
      "**/*.surface.jsonl",
    ]);
  });
});
