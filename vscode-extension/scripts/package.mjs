// Packages the extension with the surface-lint server bundled: one .vsix per VS Code platform target.
//   node scripts/package.mjs                   this machine's target -> surface-lint.vsix
//   node scripts/package.mjs --target T        T (linux-x64, darwin-arm64, win32-x64, ..., or universal)
//   node scripts/package.mjs --target all      every target -> surface-lint-<target>.vsix
// SURFACE_LINT_BUNDLE_PYTHON: the Python (>= 3.10, with pip) that fills bundled/; default python3.
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";

const TARGETS = ["linux-x64", "linux-arm64", "alpine-x64", "alpine-arm64", "darwin-x64", "darwin-arm64", "win32-x64", "win32-arm64"];

function hostTarget() {
  const arch = { x64: "x64", arm64: "arm64" }[process.arch];
  if (arch === undefined) {
    return "universal";
  }
  if (process.platform === "linux" && fs.existsSync("/etc/alpine-release")) {
    return `alpine-${arch}`;
  }
  return ["linux", "darwin", "win32"].includes(process.platform) ? `${process.platform}-${arch}` : "universal";
}

function run(command, args) {
  const done = spawnSync(command, args, { stdio: "inherit", shell: process.platform === "win32" });
  if (done.status !== 0) {
    console.error(`package: ${command} ${args.join(" ")} failed (${done.status ?? done.signal})`);
    process.exit(1);
  }
}

function packageTarget(target, out) {
  const python = process.env.SURFACE_LINT_BUNDLE_PYTHON ?? (process.platform === "win32" ? "python" : "python3");
  run(python, ["scripts/bundle_python.py", "--target", target]);
  const targetArgs = target === "universal" ? [] : ["--target", target];
  run("npx", ["vsce", "package", "--no-dependencies", "--allow-missing-repository", "--no-rewrite-relative-links", ...targetArgs, "--out", out]);
}

const index = process.argv.indexOf("--target");
const wanted = index >= 0 ? process.argv[index + 1] : hostTarget();
if (wanted === "all") {
  for (const target of [...TARGETS, "universal"]) {
    packageTarget(target, `surface-lint-${target}.vsix`);
  }
} else if (wanted === "universal" || TARGETS.includes(wanted)) {
  packageTarget(wanted, "surface-lint.vsix");
} else {
  console.error(`package: unknown target ${wanted}; one of ${TARGETS.join(", ")}, universal, all`);
  process.exit(2);
}
