#!/usr/bin/env bash
# Installs what the project needs, once, and again only when the lockfile changes.
# The project runs on Node 22 (Lambda's nodejs22.x); the npm package `node@22` brings it onto a
# machine that has an older Node. npm skips Hardhat's native EDR binding when it installs under an
# older Node, so the install runs a second time under the Node 22 it just brought.
set -euo pipefail
cd "$(dirname "$0")/.."

stamp_of() { cat package.json package-lock.json 2>/dev/null | sha256sum | cut -d' ' -f1; }
node22() { node_modules/.bin/node --version 2>/dev/null | grep -q '^v22\.'; }

# The test suites' system tools, Debian packages installed once when missing (apt-get update first)
# by `npm test` (BOOTSTRAP_TEST_TOOLS=1); `npm start` needs neither:
#  - chromium: the dashboard's browser tests drive /usr/bin/chromium;
#  - redis-server: the Upstash rate-limit adapter is tested against a real Redis;
#  - python3, python3-pytest, python3-venv, python3-mypy: the Python SDK's suite (a Python 3.10+ with
#    pytest and venv; mypy for its strict type check).
# If they cannot be installed, the suites that need them fail and say what to install.
if [ "${BOOTSTRAP_TEST_TOOLS:-0}" = "1" ] && command -v apt-get >/dev/null 2>&1; then
  missing=()
  [ -x /usr/bin/chromium ] || missing+=(chromium)
  command -v redis-server >/dev/null 2>&1 || missing+=(redis-server)
  python_ok() { "$1" -c 'import sys, venv, ensurepip, pytest, mypy; assert sys.version_info >= (3, 10)' >/dev/null 2>&1; }
  python_ok "${PYTHON:-python3}" || python_ok /usr/bin/python3 || missing+=(python3 python3-pytest python3-venv python3-mypy)
  if [ "${#missing[@]}" -gt 0 ]; then
    echo "Installing ${missing[*]} for the test suites..." >&2
    if [ "$(id -u)" = "0" ]; then apt_get() { apt-get "$@"; }; elif command -v sudo >/dev/null 2>&1; then apt_get() { sudo -n apt-get "$@"; }; else apt_get() { return 1; }; fi
    if ! { DEBIAN_FRONTEND=noninteractive apt_get update -qq >&2 && DEBIAN_FRONTEND=noninteractive apt_get install -y -qq --no-install-recommends "${missing[@]}" >&2; }; then
      echo "Could not install ${missing[*]} (the suites that need them fail until they exist: apt-get install ${missing[*]})." >&2
    fi
  fi
fi

if [ -f node_modules/.install-stamp ] && [ "$(cat node_modules/.install-stamp)" = "$(stamp_of)" ] && node22; then
  exit 0
fi

echo "Installing dependencies (first run, or the lockfile changed)..." >&2
if ! node22; then
  npm install --no-audit --no-fund --loglevel=error >&2
fi
PATH="$PWD/node_modules/.bin:$PATH" npm install --no-audit --no-fund --loglevel=error >&2
stamp_of > node_modules/.install-stamp
