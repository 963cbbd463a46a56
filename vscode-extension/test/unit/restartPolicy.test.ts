import assert from "node:assert/strict";
import { describe, it } from "node:test";

import { crashMessage, MAX_RESTARTS, RESTART_WINDOW_MS, RestartPolicy } from "../../src/core/restartPolicy";

describe("RestartPolicy", () => {
  it("restarts four times within three minutes, then gives up", () => {
    assert.equal(MAX_RESTARTS, 4);
    assert.equal(RESTART_WINDOW_MS, 180_000);
    const policy = new RestartPolicy();
    assert.deepEqual(policy.onCrash(0), { restart: true, attempt: 1, of: 4 });
    assert.deepEqual(policy.onCrash(1_000), { restart: true, attempt: 2, of: 4 });
    assert.deepEqual(policy.onCrash(2_000), { restart: true, attempt: 3, of: 4 });
    assert.deepEqual(policy.onCrash(3_000), { restart: true, attempt: 4, of: 4 });
    assert.deepEqual(policy.onCrash(4_000), { restart: false, crashes: 5, windowMs: 180_000 });
  });

  it("forgets crashes older than the window", () => {
    const policy = new RestartPolicy(2, 10_000);
    assert.deepEqual(policy.onCrash(0), { restart: true, attempt: 1, of: 2 });
    assert.deepEqual(policy.onCrash(5_000), { restart: true, attempt: 2, of: 2 });
    assert.deepEqual(policy.onCrash(10_000), { restart: true, attempt: 2, of: 2 }); // the crash at 0 left the window
    assert.deepEqual(policy.onCrash(12_000), { restart: false, crashes: 3, windowMs: 10_000 });
  });

  it("starts afresh after a restart the user asked for", () => {
    const policy = new RestartPolicy(1, 10_000);
    policy.onCrash(0);
    assert.equal(policy.onCrash(1).restart, false);
    policy.reset();
    assert.deepEqual(policy.onCrash(2), { restart: true, attempt: 1, of: 1 });
  });
});

describe("crashMessage", () => {
  it("says what happened and what happens next", () => {
    assert.equal(
      crashMessage({ restart: true, attempt: 1, of: 4 }, "signal SIGKILL", undefined),
      "surface-lint server stopped unexpectedly (signal SIGKILL). Restarting it (attempt 1 of 4).",
    );
    assert.equal(
      crashMessage({ restart: false, crashes: 5, windowMs: 180_000 }, "exit code 1", "MemoryError"),
      "surface-lint server stopped unexpectedly (exit code 1): MemoryError. It crashed 5 times in 3 minutes, so it is not restarted again on its own.",
    );
    assert.equal(
      crashMessage({ restart: false, crashes: 2, windowMs: 60_000 }, "exit code 1", undefined),
      "surface-lint server stopped unexpectedly (exit code 1). It crashed 2 times in 1 minute, so it is not restarted again on its own.",
    );
  });
});
