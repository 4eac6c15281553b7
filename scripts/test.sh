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

step "system setup"
bash scripts/setup/system.sh || exit 1
eval "$(bash scripts/setup/podman.sh | tail -n 1 | sed 's/^/export /')"

[ -d node_modules ] || { step "npm install"; npm install --no-audit --no-fund || exit 1; }

step "sandbox image"
npm run --silent sandbox:image || status=1

step "build (type-checks the whole project too)"
npm run --silent build > "$results/build.log" 2>&1 || { tail -n 60 "$results/build.log"; status=1; }

step "vitest"
npx vitest run --reporter=default --reporter=json --outputFile.json="$results/vitest.json" || status=1

step "plugin: php -l, phpcs, phpunit"
bash scripts/check-plugin.sh "$results" || status=1

step "end to end (Chromium)"
npx playwright test || status=1

step "summary"
node scripts/test-summary.mjs "$results" || status=1
exit $status
