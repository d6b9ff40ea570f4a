#!/usr/bin/env bash
# Installs what the project needs, once, and again only when the lockfile changes.
# The project runs on Node 22 (Lambda's nodejs22.x); the npm package `node@22` brings it onto a
# machine that has an older Node. npm skips Hardhat's native EDR binding when it installs under an
# older Node, so the install runs a second time under the Node 22 it just brought.
set -euo pipefail
cd "$(dirname "$0")/.."

stamp_of() { cat package.json package-lock.json 2>/dev/null | sha256sum | cut -d' ' -f1; }
node22() { node_modules/.bin/node --version 2>/dev/null | grep -q '^v22\.'; }

if [ -f node_modules/.install-stamp ] && [ "$(cat node_modules/.install-stamp)" = "$(stamp_of)" ] && node22; then
  exit 0
fi

echo "Installing dependencies (first run, or the lockfile changed)..." >&2
if ! node22; then
  npm install --no-audit --no-fund --loglevel=error >&2
fi
PATH="$PWD/node_modules/.bin:$PATH" npm install --no-audit --no-fund --loglevel=error >&2
stamp_of > node_modules/.install-stamp
