#!/usr/bin/env bash
# Builds, checks, unit-tests and packages the VS Code extension, then proves it end to end
# in a real VS Code: code-server 4.100.3 serving the workbench to headless Debian Chromium.
#
# Usage: vscode-extension/scripts/ci-e2e.sh
#   SURFACE_LINT_PYTHON  a Python >= 3.10 with pip: fills the .vsix's bundled/ (pip, from PyPI) and makes the
#                        test's bare venv (nothing installed: the server must come from the .vsix); default python3
#   SKIP_E2E=1           stop after lint, unit tests, packaging and the bundled server's smoke check
set -euo pipefail

CODE_SERVER_VERSION=4.100.3
ext_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ext_dir"
say() { printf '\n== %s\n' "$*"; }

# --- system packages: Chromium, and what code-server's native modules need -------------------
missing=()
command -v chromium >/dev/null 2>&1 || missing+=(chromium)
command -v rg >/dev/null 2>&1 || missing+=(ripgrep)
command -v pkg-config >/dev/null 2>&1 || missing+=(pkg-config)
dpkg -s libkrb5-dev >/dev/null 2>&1 || missing+=(libkrb5-dev)
command -v g++ >/dev/null 2>&1 && command -v make >/dev/null 2>&1 || missing+=(g++ make)
if ((${#missing[@]})); then
  say "apt-get install ${missing[*]}"
  sudo=""
  [ "$(id -u)" = 0 ] || sudo="sudo"
  # Wait for another apt run's lock rather than failing on it.
  $sudo apt-get -o DPkg::Lock::Timeout=600 update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get -o DPkg::Lock::Timeout=600 install -y -qq "${missing[@]}"
fi

# --- the extension: install, type-check, unit tests, bundle, .vsix ----------------------------
say "npm ci"
npm ci --no-audit --no-fund
say "npm run lint (tsc --noEmit, strict)"
npm run lint
say "npm test (unit tests)"
npm test
python="${SURFACE_LINT_PYTHON:-python3}"
say "npm run package (esbuild bundle, bundled server for this platform, vsce)"
SURFACE_LINT_BUNDLE_PYTHON="$python" npm run package

# The bundled server, run by a Python with nothing installed, must answer its check.
smoke="$(mktemp -d)"
trap 'rm -rf "$smoke"' EXIT
"$python" -m venv --without-pip "$smoke/venv"
"$python" -m zipfile -e surface-lint.vsix "$smoke/vsix"
if ! check="$("$smoke/venv/bin/python" "$smoke/vsix/extension/bundled/tool/surface_lint_server.py" --check)"; then
  echo "error: the bundled server does not run with a bare venv: $check" >&2
  exit 1
fi
say "bundled server check with a bare venv: $check"

if [ "${SKIP_E2E:-0}" = 1 ]; then
  say "SKIP_E2E=1: end-to-end test skipped"
  exit 0
fi

# --- code-server, cached under .e2e/ -----------------------------------------------------------
# @vscode/ripgrep's postinstall downloads rg from a host that is not reachable here: pre-fill its
# cache with Debian's rg, which it then unpacks instead.
case "$(uname -m)" in
  x86_64) rg_target=x86_64-unknown-linux-musl ;;
  aarch64 | arm64) rg_target=aarch64-unknown-linux-musl ;;
  *) rg_target="" ;;
esac
if [ -n "$rg_target" ]; then
  rg_cache="${TMPDIR:-/tmp}/vscode-ripgrep-cache-1.15.11"
  rg_archive="$rg_cache/ripgrep-v13.0.0-10-$rg_target.tar.gz"
  if [ ! -s "$rg_archive" ]; then
    mkdir -p "$rg_cache"
    tar czf "$rg_archive" -C "$(dirname "$(command -v rg)")" rg
  fi
fi

cs_dir="$ext_dir/.e2e/code-server"
cs_bin="$cs_dir/node_modules/.bin/code-server"
installed="$(node -p "require('$cs_dir/node_modules/code-server/package.json').version" 2>/dev/null || true)"
if [ "$installed" != "$CODE_SERVER_VERSION" ] || [ ! -x "$cs_bin" ]; then
  say "installing code-server $CODE_SERVER_VERSION into $cs_dir"
  rm -rf "$cs_dir"
  mkdir -p "$cs_dir"
  # allowScripts: npm >= 11 skips dependencies' install scripts unless they are listed.
  cat >"$cs_dir/package.json" <<EOF
{
  "name": "surface-lint-e2e-code-server",
  "private": true,
  "dependencies": { "code-server": "$CODE_SERVER_VERSION" },
  "allowScripts": { "code-server": true, "argon2": true }
}
EOF
  # As root, code-server's postinstall needs unsafe-perm; node-pty's `npx node-gyp` needs yes.
  (cd "$cs_dir" && npm_config_yes=true npm_config_unsafe_perm=true npm install --no-audit --no-fund)
fi

# --- the end-to-end test ------------------------------------------------------------------------
say "end-to-end test in code-server $CODE_SERVER_VERSION (bare venv made from: $python)"
SURFACE_LINT_PYTHON="$python" CODE_SERVER_BIN="$cs_bin" SURFACE_LINT_VSIX="$ext_dir/surface-lint.vsix" \
  npm run e2e
