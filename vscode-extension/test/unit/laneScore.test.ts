import assert from "node:assert/strict";
import { describe, it } from "node:test";

import { parseLaneScore, statusTextFor } from "../../src/core/laneScore";

const score = {
  lane: "deterministic_fluency",
  profile: "contract",
  headline: { name: "complete_punctuation_rate", value: 0.5, text: "0.5000" },
  passed: false,
  markdown: "# deterministic_fluency\n",
};

describe("parseLaneScore", () => {
  it("reads the server's answer and null", () => {
    assert.deepEqual(parseLaneScore(score), score);
    assert.equal(parseLaneScore(null), null);
    assert.equal(parseLaneScore(undefined), null);
  });

  it("accepts a null headline value and verdict", () => {
    const parsed = parseLaneScore({ ...score, headline: { name: "x", value: null, text: "-" }, passed: null });
    assert.deepEqual(parsed?.headline, { name: "x", value: null, text: "-" });
    assert.equal(parsed?.passed, null);
  });

  it("throws on a malformed answer", () => {
    assert.throws(() => parseLaneScore("x"), /expected an object/);
    assert.throws(() => parseLaneScore({ ...score, lane: 3 }), /must be strings/);
    assert.throws(() => parseLaneScore({ ...score, headline: { value: 1, text: "1" } }), /headline/);
    assert.throws(() => parseLaneScore({ ...score, headline: { name: "x", value: 1 } }), /name and text strings/);
    assert.throws(() => parseLaneScore({ ...score, headline: { name: "x", value: 1, text: 1 } }), /name and text strings/);
    assert.throws(() => parseLaneScore({ ...score, headline: { name: "x", value: "1", text: "1" } }), /number or null/);
    assert.throws(() => parseLaneScore({ ...score, passed: "yes" }), /boolean or null/);
  });
});

describe("statusTextFor", () => {
  it("shows lane, headline metric and verdict icon", () => {
    assert.deepEqual(statusTextFor(score), {
      text: "$(error) deterministic_fluency · complete_punctuation_rate 0.5000",
      tooltip:
        "surface-lint: lane deterministic_fluency fails (contract profile); complete_punctuation_rate 0.5000. Click for the full score.",
    });
    assert.match(statusTextFor({ ...score, passed: true }).text, /^\$\(pass\) /);
    assert.match(statusTextFor({ ...score, passed: null }).text, /^\$\(circle-outline\) /);
  });

  it("shows the server's text of the value, never a formatting of its own", () => {
    const shown = (value: number | null, text: string): string =>
      statusTextFor({ ...score, headline: { name: "m", value, text } }).text;
    assert.equal(shown(1, "1.0000"), "$(error) deterministic_fluency · m 1.0000");
    assert.equal(shown(0.8333333, "0.8333"), "$(error) deterministic_fluency · m 0.8333");
    assert.equal(shown(12, "12"), "$(error) deterministic_fluency · m 12");
    assert.equal(shown(null, "-"), "$(error) deterministic_fluency · m -");
  });
});
