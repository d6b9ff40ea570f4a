#!/usr/bin/env bash
# Type-checks the cloud infrastructure (sst.config.ts + stacks/) against SST's platform types.
#
# Works offline after `npm install`, with no AWS credentials: the only network it may use is the
# npm registry, once, when `sst install` fetches the platform's packages.
#   1. `sst install` writes the platform types to .sst/platform (git-ignored build output). It
#      runs with the `bun` npm package (SST_BUN_PATH) instead of downloading bun, skips its
#      dependency check (which downloads the Pulumi CLI from GitHub; only `sst deploy`/`sst dev`
#      need Pulumi), never sends telemetry, and gets a placeholder stage so it never prompts.
#      It is skipped when .sst/ already holds a platform installed by this script for the same
#      sst version and the same sst.config.ts (whose app() pins the provider versions).
#   2. `tsc -p stacks/tsconfig.json`: strict, no emit. Any type error fails the check.
# Prints "infra type check: ok" on success; exits non-zero otherwise.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PWD/node_modules/.bin:$PATH"

fail() { echo "check-infra: $*" >&2; exit 1; }

[ -f node_modules/sst/package.json ] || fail "node_modules/sst is missing; run npm install first"
[ -x node_modules/.bin/bun ] || fail "node_modules/.bin/bun is missing; run npm install first"
[ -x node_modules/.bin/tsc ] || fail "node_modules/.bin/tsc is missing; run npm install first"

sst_version=$(node -p 'require("./node_modules/sst/package.json").version')
stamp="sst ${sst_version} config $(sha256sum sst.config.ts | cut -d' ' -f1)"
stamp_file=.sst/check-infra.stamp

if [ ! -f .sst/platform/config.d.ts ] || [ "$(cat "$stamp_file" 2>/dev/null)" != "$stamp" ]; then
  log=$(mktemp)
  trap 'rm -f "$log"' EXIT
  rm -f "$stamp_file"
  if ! SST_BUN_PATH="$PWD/node_modules/.bin/bun" \
       SST_SKIP_DEPENDENCY_CHECK=1 \
       SST_TELEMETRY_DISABLED=1 \
       DO_NOT_TRACK=1 \
       SST_STAGE=typecheck \
       sst install >"$log" 2>&1; then
    cat "$log" >&2
    fail "sst install failed"
  fi
  [ "$(cat .sst/platform/version 2>/dev/null)" = "$sst_version" ] ||
    fail "sst install left no platform for sst ${sst_version} in .sst/platform"
  echo "$stamp" >"$stamp_file"
fi

tsc -p stacks/tsconfig.json --pretty false || fail "type errors in sst.config.ts or stacks/"
echo "infra type check: ok"
