// The `surfaceLint/laneScore` request's result and how the status bar shows it; pure.

export const LANE_SCORE_METHOD = "surfaceLint/laneScore";

export interface LaneScoreParams {
  uri: string;
}

export interface LaneScore {
  lane: string;
  profile: string;
  /** `text` is the value as the terminal and every report print it (the server formats it, once). */
  headline: { name: string; value: number | null; text: string };
  passed: boolean | null;
  markdown: string;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The server's answer as a LaneScore; null for "not a lane file"; throws on a malformed answer. */
export function parseLaneScore(value: unknown): LaneScore | null {
  if (value === null || value === undefined) {
    return null;
  }
  if (!isRecord(value)) {
    throw new Error(`${LANE_SCORE_METHOD}: expected an object or null, got ${JSON.stringify(value)}`);
  }
  const { lane, profile, headline, passed, markdown } = value;
  if (typeof lane !== "string" || typeof profile !== "string" || typeof markdown !== "string") {
    throw new Error(`${LANE_SCORE_METHOD}: lane, profile and markdown must be strings`);
  }
  if (!isRecord(headline) || typeof headline.name !== "string" || typeof headline.text !== "string") {
    throw new Error(`${LANE_SCORE_METHOD}: headline must be {name, value, text} with name and text strings`);
  }
  const headlineValue = headline.value;
  if (headlineValue !== null && headlineValue !== undefined && typeof headlineValue !== "number") {
    throw new Error(`${LANE_SCORE_METHOD}: headline.value must be a number or null`);
  }
  if (passed !== null && passed !== undefined && typeof passed !== "boolean") {
    throw new Error(`${LANE_SCORE_METHOD}: passed must be a boolean or null`);
  }
  return {
    lane,
    profile,
    headline: { name: headline.name, value: headlineValue ?? null, text: headline.text },
    passed: passed ?? null,
    markdown,
  };
}

export interface StatusText {
  text: string;
  tooltip: string;
}

/** Status bar text (with a codicon) and tooltip for a lane score. */
export function statusTextFor(score: LaneScore): StatusText {
  const icon = score.passed === true ? "$(pass)" : score.passed === false ? "$(error)" : "$(circle-outline)";
  const verdict =
    score.passed === true ? "passes" : score.passed === false ? "fails" : "has no verdict yet";
  const metric = `${score.headline.name} ${score.headline.text}`;
  return {
    text: `${icon} ${score.lane} · ${metric}`,
    tooltip: `surface-lint: lane ${score.lane} ${verdict} (${score.profile} profile); ${metric}. Click for the full score.`,
  };
}
