// PATH lookup of an executable, like `which`: no `vscode` import.
import * as fs from "node:fs";
import * as path from "node:path";

export interface WhichOptions {
  /** The PATH value; defaults to process.env.PATH. */
  pathValue?: string | undefined;
  /** Windows executable suffixes (PATHEXT); defaults to process.env.PATHEXT on Windows. */
  pathExt?: string | undefined;
  platform?: NodeJS.Platform;
  isExecutable?: (file: string) => boolean;
}

function isExecutableFile(file: string): boolean {
  try {
    if (!fs.statSync(file).isFile()) {
      return false;
    }
    fs.accessSync(file, fs.constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** Absolute path of `name` found on PATH, or undefined. */
export function which(name: string, options: WhichOptions = {}): string | undefined {
  const platform = options.platform ?? process.platform;
  const delimiter = platform === "win32" ? ";" : ":";
  const pathValue = options.pathValue ?? process.env.PATH ?? "";
  const isExecutable = options.isExecutable ?? isExecutableFile;
  const suffixes =
    platform === "win32"
      ? ["", ...(options.pathExt ?? process.env.PATHEXT ?? ".EXE;.CMD;.BAT;.COM").split(";")]
      : [""];
  const join = platform === "win32" ? path.win32.join : path.posix.join;
  for (const dir of pathValue.split(delimiter)) {
    if (dir === "") {
      continue; // an empty entry means the cwd: never look there
    }
    for (const suffix of suffixes) {
      const candidate = join(dir, name + suffix);
      if (isExecutable(candidate)) {
        return candidate;
      }
    }
  }
  return undefined;
}
