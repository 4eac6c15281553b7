#!/usr/bin/env bash
# The whole test suite, on a fresh machine of this kind (run as root): installs and starts what the tests need,
# then builds the app (which type-checks it), runs the vitest suites (unit + integration against real PostgreSQL, WordPress with our
# plugin over https, and Podman), the plugin's PHP checks and tests, and the end-to-end specs in Chromium.
# Ends with one line: "Summary: N passed, N failed, N skipped".
set -uo pipefail
cd "$(dirname "$0")/.."

results=.cache/test-results
rm -rf "$results" && mkdir -p "$results"
status=0
step() { echo; echo "=== $*"; }
# A check that is not a test runner (lint, build): one line "name ok|failed" in checks.txt, counted by the summary.
check() {
  local name=$1; shift
  if "$@"; then echo "$name ok" >> "$results/checks.txt"; else echo "$name failed" >> "$results/checks.txt"; status=1; fi
}

step "system setup"
bash scripts/setup/system.sh || exit 1
eval "$(bash scripts/setup/podman.sh | tail -n 1 | sed 's/^/export /')"

[ -d node_modules ] || { step "npm install"; npm install --no-audit --no-fund || exit 1; }

step "lint and format (Biome)"
check "biome" npx biome ci --reporter=summary .

step "sandbox image"
npm run --silent sandbox:image || status=1

step "build (type-checks the whole project too)"
build() { npm run --silent build > "$results/build.log" 2>&1 || { tail -n 60 "$results/build.log"; return 1; }; }
check "build" build

step "vitest"
npx vitest run --reporter=default --reporter=json --outputFile.json="$results/vitest.json" || status=1

step "plugin: php -l, phpcs, phpunit"
bash scripts/check-plugin.sh "$results" || status=1

step "end to end (Chromium)"
npx playwright test || status=1
# The sandbox specs (issue 13) run the same app with real Podman sandboxes on.
npx playwright test -c playwright.sandbox.config.ts || status=1

step "summary"
node scripts/test-summary.mjs "$results" || status=1
exit $status
