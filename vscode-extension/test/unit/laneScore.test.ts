import assert from "node:assert/strict";
import { describe, it } from "node:test";

import { formatMetric, parseLaneScore, statusTextFor } from "../../src/core/laneScore";

const score = {
  lane: "deterministic_fluency",
  profile: "contract",
  headline: { name: "complete_punctuation_rate", value: 0.5 },
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
    const parsed = parseLaneScore({ ...score, headline: { name: "x", value: null }, passed: null });
    assert.deepEqual(parsed?.headline, { name: "x", value: null });
    assert.equal(parsed?.passed, null);
  });

  it("throws on a malformed answer", () => {
    assert.throws(() => parseLaneScore("x"), /expected an object/);
    assert.throws(() => parseLaneScore({ ...score, lane: 3 }), /must be strings/);
    assert.throws(() => parseLaneScore({ ...score, headline: { value: 1 } }), /headline/);
    assert.throws(() => parseLaneScore({ ...score, headline: { name: "x", value: "1" } }), /number or null/);
    assert.throws(() => parseLaneScore({ ...score, passed: "yes" }), /boolean or null/);
  });
});

describe("statusTextFor", () => {
  it("shows lane, headline metric and verdict icon", () => {
    assert.deepEqual(statusTextFor(score), {
      text: "$(error) deterministic_fluency · complete_punctuation_rate 0.50",
      tooltip:
        "surface-lint: lane deterministic_fluency fails (contract profile); complete_punctuation_rate 0.50. Click for the full score.",
    });
    assert.match(statusTextFor({ ...score, passed: true }).text, /^\$\(pass\) /);
    assert.match(statusTextFor({ ...score, passed: null }).text, /^\$\(circle-outline\) /);
  });

  it("formats rates with two decimals, counts as integers, unknown as n/a", () => {
    assert.equal(formatMetric(1), "1.00");
    assert.equal(formatMetric(0.8333), "0.83");
    assert.equal(formatMetric(12), "12");
    assert.equal(formatMetric(null), "n/a");
    assert.equal(formatMetric(Number.NaN), "n/a");
  });
});
