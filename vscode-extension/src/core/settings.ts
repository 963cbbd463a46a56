// VS Code's `surfaceLint.*` settings -> what the server is told; pure, no `vscode` import.

export const CONFIG_SECTION = "surfaceLint";

/** `auto` leaves the profile to the project's surface-lint config (whose default is `contract`). */
export const PROFILES = ["auto", "contract", "reference"] as const;
export type Profile = (typeof PROFILES)[number];

/** The levels and aliases of server/surface_lint/model/severity_levels.json (the one table; a unit test holds them equal). */
export const SEVERITIES = ["error", "warning", "information", "hint", "off"] as const;
export type Severity = (typeof SEVERITIES)[number];
export const SEVERITY_ALIASES: Readonly<Record<string, Severity>> = { err: "error", warn: "warning", info: "information" };

/** `" Warn"` -> `"warning"`; undefined for anything that is not a level or an alias. */
export function normalizeSeverity(value: unknown): Severity | undefined {
  if (typeof value !== "string") {
    return undefined;
  }
  const key = value.trim().toLowerCase();
  const level = Object.hasOwn(SEVERITY_ALIASES, key) ? SEVERITY_ALIASES[key] : key;
  return isOneOf(SEVERITIES, level) ? level : undefined;
}

export const RUN_MODES = ["onType", "onSave"] as const;
export type RunMode = (typeof RUN_MODES)[number];

/**
 * The files linted when `surfaceLint.include` is unset (package.json's default; a unit test holds them equal):
 * case files, the runtime's run layout (`<lane>/captures`, `telemetry`, `reports`, `committed/results`,
 * `baselines`), `transcripts/` and `runs/` folders, and every run folder of `surfaceLint.review.transcripts`.
 * The server reads a `.json` only when it is a lane report, so other JSON in those folders gets nothing.
 */
export const DEFAULT_INCLUDE: readonly string[] = [
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
];

/**
 * Lane and config files, always sent to the server (whatever `surfaceLint.include` says): it gives them the
 * loader's diagnostics, hover and completion. The same patterns as package.json's `tomlValidation`.
 */
export const LANE_FILE_GLOBS: readonly string[] = [
  "**/rules/*.toml",
  "**/*.lane.toml",
  "**/surface-lint.toml",
  "**/.surface-lint.toml",
];

/** The settings the server reads (initializationOptions.settings and workspace/configuration). */
export interface ServerSettings {
  profile: Profile;
  severity: Record<string, Severity>;
  run: RunMode;
}

export const DEFAULT_SERVER_SETTINGS: Readonly<ServerSettings> = {
  profile: "auto",
  severity: {},
  run: "onType",
};

/** Sent (no params) when the workspace becomes trusted: the server may then load its lane files and config. */
export const DID_GRANT_TRUST_METHOD = "surfaceLint/didGrantTrust";

/** Settings whose change needs a new server process (the others are sent live). */
export const RESTART_SETTINGS: readonly string[] = [
  `${CONFIG_SECTION}.interpreter`,
  `${CONFIG_SECTION}.serverPath`,
  `${CONFIG_SECTION}.importStrategy`,
  `${CONFIG_SECTION}.include`,
];

/** Settings the running server asks for again (workspace/configuration) after a bare workspace/didChangeConfiguration. */
export const LIVE_SETTINGS: readonly string[] = [
  `${CONFIG_SECTION}.profile`,
  `${CONFIG_SECTION}.severity`,
  `${CONFIG_SECTION}.run`,
];

export interface RawSettings {
  profile?: unknown;
  severity?: unknown;
  run?: unknown;
}

export interface MappedSettings {
  settings: ServerSettings;
  /** One line per value that was not understood and replaced by its default. */
  problems: string[];
}

function isOneOf<T extends string>(values: readonly T[], value: unknown): value is T {
  return typeof value === "string" && (values as readonly string[]).includes(value);
}

/** Maps the user's settings to the server's, keeping defaults for values it cannot use. */
export function toServerSettings(raw: RawSettings): MappedSettings {
  const problems: string[] = [];
  const settings: ServerSettings = { ...DEFAULT_SERVER_SETTINGS, severity: {} };

  if (raw.profile !== undefined) {
    if (isOneOf(PROFILES, raw.profile)) {
      settings.profile = raw.profile;
    } else {
      problems.push(
        `${CONFIG_SECTION}.profile: ${JSON.stringify(raw.profile)} is not one of ${PROFILES.join(", ")}; using "${DEFAULT_SERVER_SETTINGS.profile}".`,
      );
    }
  }

  if (raw.run !== undefined) {
    if (isOneOf(RUN_MODES, raw.run)) {
      settings.run = raw.run;
    } else {
      problems.push(
        `${CONFIG_SECTION}.run: ${JSON.stringify(raw.run)} is not one of ${RUN_MODES.join(", ")}; using "${DEFAULT_SERVER_SETTINGS.run}".`,
      );
    }
  }

  if (raw.severity !== undefined && raw.severity !== null) {
    if (typeof raw.severity !== "object" || Array.isArray(raw.severity)) {
      problems.push(`${CONFIG_SECTION}.severity: expected an object of predicate name -> level; ignored.`);
    } else {
      for (const [predicate, level] of Object.entries(raw.severity as Record<string, unknown>)) {
        const normalized = normalizeSeverity(level);
        if (normalized !== undefined) {
          settings.severity[predicate] = normalized;
        } else {
          problems.push(
            `${CONFIG_SECTION}.severity.${predicate}: ${JSON.stringify(level)} is not one of ${SEVERITIES.join(", ")} ` +
              `(or ${Object.keys(SEVERITY_ALIASES).join(", ")}); ignored.`,
          );
        }
      }
    }
  }
  return { settings, problems };
}

/** The include globs: non-empty strings only; undefined or a non-array means the defaults. */
export function includeGlobs(raw: unknown): string[] {
  if (!Array.isArray(raw)) {
    return [...DEFAULT_INCLUDE];
  }
  return raw.filter((glob): glob is string => typeof glob === "string" && glob.trim() !== "");
}

export interface FilePatternSelector {
  scheme: string;
  pattern: string;
}

/** The language client's documentSelector: one entry per glob, on disk files only. */
export function documentSelectorFor(globs: readonly string[]): FilePatternSelector[] {
  return globs.map((pattern) => ({ scheme: "file", pattern }));
}
