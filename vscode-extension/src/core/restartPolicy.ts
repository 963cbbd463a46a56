// When a crashed server is restarted on its own: pure, no `vscode` import.

/** Restarts allowed within WINDOW_MS before the client gives up (vscode-languageclient's own default is 4 in 3 minutes). */
export const MAX_RESTARTS = 4;
export const RESTART_WINDOW_MS = 3 * 60_000;

export type CrashDecision =
  | { restart: true; attempt: number; of: number }
  | { restart: false; crashes: number; windowMs: number };

/** Counts crashes in a sliding window; a server that keeps crashing is left stopped. */
export class RestartPolicy {
  private crashes: number[] = [];

  constructor(
    private readonly maxRestarts = MAX_RESTARTS,
    private readonly windowMs = RESTART_WINDOW_MS,
  ) {}

  /** Records a crash at `now` (ms) and says whether to restart. */
  onCrash(now: number): CrashDecision {
    this.crashes = this.crashes.filter((at) => now - at < this.windowMs);
    this.crashes.push(now);
    if (this.crashes.length <= this.maxRestarts) {
      return { restart: true, attempt: this.crashes.length, of: this.maxRestarts };
    }
    return { restart: false, crashes: this.crashes.length, windowMs: this.windowMs };
  }

  /** A restart the user asked for starts the count afresh. */
  reset(): void {
    this.crashes = [];
  }
}

/** The notification for a crash, given the decision and what the server said last. */
export function crashMessage(decision: CrashDecision, exit: string, lastStderr: string | undefined): string {
  const said = lastStderr !== undefined ? `: ${lastStderr}` : "";
  if (decision.restart) {
    return `surface-lint server stopped unexpectedly (${exit})${said}. Restarting it (attempt ${decision.attempt} of ${decision.of}).`;
  }
  const minutes = decision.windowMs / 60_000;
  return (
    `surface-lint server stopped unexpectedly (${exit})${said}. It crashed ${decision.crashes} times in ` +
    `${minutes} minute${minutes === 1 ? "" : "s"}, so it is not restarted again on its own.`
  );
}
