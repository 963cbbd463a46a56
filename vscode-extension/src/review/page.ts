// The review webviews' HTML and the arguments of their commands; pure (no vscode import).

/** Commands the server's HTML links to (command: URIs, followed without any script). */
export const OPEN_TURN_COMMAND = "surfaceLint.openTurn";
export const FILTER_COMMAND = "surfaceLint.reviewFilter";
/** The only commands a review webview may run from a link. */
export const WEBVIEW_COMMANDS: readonly string[] = [OPEN_TURN_COMMAND, FILTER_COMMAND];

export const REVIEW_METHOD = "surfaceLint/review";
export const RUNS_METHOD = "surfaceLint/runs";
export const RUN_DIFF_METHOD = "surfaceLint/runDiff";
export const SETTINGS_METHOD = "surfaceLint/reviewSettings";

/**
 * No script at all, nothing fetched: the page is the server's HTML (data escaped there) and
 * its inline stylesheet; images only as data: URIs (the report's SVG plots are inline).
 */
export const REVIEW_CSP = "default-src 'none'; script-src 'none'; style-src 'unsafe-inline'; img-src data:; form-action 'none'; frame-src 'none'";

export function escapeHtml(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;").replace(/'/g, "&#39;");
}

const CSP_META = `<meta http-equiv="Content-Security-Policy" content="${REVIEW_CSP}">`;

/** A transcript review: the server's stylesheet and body in a page under the strict CSP. */
export function reviewPage(title: string, css: string, body: string): string {
  return [
    "<!DOCTYPE html>",
    '<html lang="en">',
    "<head>",
    '<meta charset="utf-8">',
    CSP_META,
    `<title>${escapeHtml(title)}</title>`,
    `<style>${css.replace(/<\//g, "<\\/")}</style>`,
    "</head>",
    `<body>${body}</body>`,
    "</html>",
  ].join("\n");
}

/** Extra rules for the report's diff page in a webview: its filters need its script, which never runs. */
const DIFF_EXTRA_CSS = "<style>.filters{display:none!important}</style>";

/**
 * The report's own diff page (`surface-lint diff --output-format html`), with the strict CSP put
 * first in its head: a page under two policies obeys both, so its script never runs.
 */
export function diffPage(reportHtml: string): string {
  const head = reportHtml.search(/<head>/i);
  if (head < 0) {
    return reviewPage("surface-lint diff", "", "<p>The server's diff page has no head.</p>");
  }
  const at = head + "<head>".length;
  return `${reportHtml.slice(0, at)}\n${CSP_META}\n${DIFF_EXTRA_CSS}${reportHtml.slice(at)}`;
}

/** What a review shows: which transcript and which filters. */
export interface ReviewFilter {
  uri: string;
  predicate: string | null;
  category: string | null;
  failingOnly: boolean;
}

/** The filter argument of a `surfaceLint.reviewFilter` link (null when it is not one). */
export function parseFilter(value: unknown): ReviewFilter | null {
  if (typeof value !== "object" || value === null) {
    return null;
  }
  const v = value as Record<string, unknown>;
  if (typeof v.uri !== "string") {
    return null;
  }
  const text = (x: unknown): string | null => (typeof x === "string" && x !== "" ? x : null);
  return { uri: v.uri, predicate: text(v.predicate), category: text(v.category), failingOnly: v.failingOnly === true };
}

/** The `[uri, line]` arguments of a `surfaceLint.openTurn` link or lens. */
export function parseTurnTarget(uri: unknown, line: unknown): { uri: string; line: number } | null {
  if (typeof uri !== "string" || typeof line !== "number" || !Number.isInteger(line) || line < 0) {
    return null;
  }
  return { uri, line };
}

/** The review's title: the file name and the filters in force. */
export function reviewTitle(filter: ReviewFilter): string {
  const name = filter.uri.split("/").pop() ?? filter.uri;
  const parts = [filter.category, filter.predicate, filter.failingOnly ? "failing" : null].filter((x) => x !== null);
  return parts.length > 0 ? `Review: ${decodeURIComponent(name)} (${parts.join(", ")})` : `Review: ${decodeURIComponent(name)}`;
}

/** The transcript globs setting, with the server's default when it is unusable. */
export function transcriptGlobs(value: unknown): string[] | null {
  if (!Array.isArray(value) || !value.every((g) => typeof g === "string" && g !== "")) {
    return null;
  }
  return value as string[];
}

/** Numbers a view's requests so that only the newest one's answer is shown. */
export class NewestOnly {
  private issued = 0;

  /** A number for a request about to be sent. */
  next(): number {
    this.issued += 1;
    return this.issued;
  }

  /** Whether the answer to request `ticket` is still the one to show. */
  isNewest(ticket: number): boolean {
    return ticket === this.issued;
  }
}

/** `surfaceLint.review.openTranscripts`: what opening a run file shows. */
export const OPEN_MODES = ["both", "review", "text"] as const;
export type OpenMode = (typeof OPEN_MODES)[number];
export const DEFAULT_OPEN_MODE: OpenMode = "both";

/** The setting's value as a mode; anything else (unset, a typo, a number) is the default, `both`. */
export function openMode(value: unknown): OpenMode {
  return typeof value === "string" && (OPEN_MODES as readonly string[]).includes(value) ? (value as OpenMode) : DEFAULT_OPEN_MODE;
}

/** A picker's entry for a run: its workspace-relative path, then its lane and turns (no absolute path). */
export function runPickItem(run: { name: string; lane: string; turns: number }): { label: string; description: string } {
  return { label: run.name, description: `${run.lane} · ${run.turns} turn(s)` };
}
