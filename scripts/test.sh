#!/usr/bin/env bash
# The whole test suite, on a fresh machine of this kind (run as root): installs and starts what the tests need,
# then builds the app (which type-checks it), runs the vitest suites (unit + integration against real PostgreSQL,
# WordPress with our plugin over https, and Podman), the plugin's PHP checks and tests, the end-to-end specs in
# Chromium, and last the Kubernetes suites on a real single-node cluster (docs/kubernetes.md), whose server binaries
# build in the background meanwhile (about 25 minutes on 2 cores when not cached).
# Ends with one line: "Summary: N passed, N failed, N skipped".
set -uo pipefail
cd "$(dirname "$0")/.."

results=.cache/test-results
rm -rf "$results" && mkdir -p "$results"
status=0
# Each step says when it starts in the run (minutes:seconds), so a slow step shows in the log.
step() { echo; echo "=== $* (at $((SECONDS / 60)):$(printf %02d $((SECONDS % 60))))"; }
# A check that is not a test runner (lint, build): one line "name ok|failed" in checks.txt, counted by the summary.
check() {
  local name=$1; shift
  if "$@"; then echo "$name ok" >> "$results/checks.txt"; else echo "$name failed" >> "$results/checks.txt"; status=1; fi
}

step "system setup"
bash scripts/setup/system.sh || exit 1
eval "$(bash scripts/setup/podman.sh | tail -n 1 | sed 's/^/export /')"

# The Kubernetes server binaries for the last step: a no-op when cached, otherwise the longest thing here, so it
# starts now, at a low priority (nice 10: about a tenth of the CPU while the tests want both cores, all of it when
# they wait), and the Kubernetes step waits for it. Its last line is the binaries' directory.
kubernetes_build_log="$results/kubernetes-build.log"
kubernetes_build_started=$SECONDS
(
  nice -n 10 ionice -c 2 -n 7 bash scripts/setup/kubernetes-build.sh > "$kubernetes_build_log" 2>&1
  code=$?
  echo "$((SECONDS - kubernetes_build_started))" > "$results/kubernetes-build.seconds"
  exit $code
) &
kubernetes_build=$!
echo "Kubernetes server binaries: building or checking in the background (log: $kubernetes_build_log)"

[ -d node_modules ] || { step "npm install"; npm install --no-audit --no-fund || exit 1; }

step "lint and format (Biome)"
check "biome" npx biome ci --reporter=summary .

step "sandbox image"
# The tag is its last line of output (the Kubernetes step imports that image into the cluster).
sandbox_image=$(npm run --silent sandbox:image) || status=1
sandbox_image=$(tail -n 1 <<<"$sandbox_image")

step "build (type-checks the whole project too)"
build() { npm run --silent build > "$results/build.log" 2>&1 || { tail -n 60 "$results/build.log"; return 1; }; }
check "build" build

step "vitest (the plugin's PHP checks run beside it; their output follows)"
# The plugin's checks use little CPU (about 40 s of it in 4 minutes: mostly SQLite and WordPress's install) and
# share nothing with vitest's files, so they run in the background meanwhile.
bash scripts/check-plugin.sh "$results" > "$results/check-plugin.log" 2>&1 &
plugin_checks=$!
npx vitest run --reporter=default --reporter=json --outputFile.json="$results/vitest.json" || status=1

step "plugin: php -l, phpcs, phpunit on WordPress 6.1 and 7.1 (ran beside vitest)"
wait "$plugin_checks" || status=1
cat "$results/check-plugin.log"

step "end to end (Chromium)"
npx playwright test || status=1
# The sandbox specs (issue 13) run the same app with real Podman sandboxes on.
npx playwright test -c playwright.sandbox.config.ts || status=1
# The main journey again on WordPress 7.1 (docs/wordpress-versions.md).
npx playwright test -c playwright.wp71.config.ts || status=1
# An Elementor page edited from the chat on 7.1 with Elementor (docs/page-builders.md): one site start of its own.
npx playwright test -c playwright.elementor.config.ts || status=1

step "bench smoke pass (npm run bench -- --smoke: every figure taken once, no goals judged)"
# A change that breaks a benchmark fails here, not in the next person's `npm run bench` (issue 39).
bench_smoke() { npm run --silent bench -- --smoke > "$results/bench-smoke.log" 2>&1 || { tail -n 60 "$results/bench-smoke.log"; return 1; }; }
check "bench-smoke" bench_smoke

# The Kubernetes suites: wait for the server binaries, start the test cluster with the sandbox image imported (the
# check "kubernetes-cluster"), then run *.k8s.test.ts with SANDBOX_DRIVER=kubernetes. A cluster that cannot start
# fails loudly: its check fails, and the suites' missing report counts as a failure too. Never skipped.
kubernetes_cluster() {
  local waited=$SECONDS out
  if ! wait "$kubernetes_build"; then
    echo "the Kubernetes build failed:"; tail -n 40 "$kubernetes_build_log"; return 1
  fi
  local bin started_log="$results/kubernetes-start.log"
  bin=$(tail -n 1 "$kubernetes_build_log")
  echo "Kubernetes server binaries: $bin, ready after $(cat "$results/kubernetes-build.seconds") s" \
    "($((SECONDS - waited)) s waited here; $(grep -c '^kubernetes-build: building' "$kubernetes_build_log") builds)"
  if ! out=$(SITEWRIGHT_K8S_BIN=$bin bash scripts/setup/kubernetes.sh start "$sandbox_image" 2> "$started_log"); then
    echo "the cluster did not start:"; tail -n 40 "$started_log"; return 1
  fi
  grep -E '^kubernetes: (node|ready)' "$started_log" || true
  export KUBECONFIG=${out##*KUBECONFIG=} SANDBOX_IMAGE=$sandbox_image
}
# The rehearsal journey in Chromium on Kubernetes (issue 26): a playwright.kubernetes.config.ts that writes
# playwright-kubernetes.json runs here, with the cluster's KUBECONFIG exported; the summary expects its report
# once that config exists.
kubernetes_journey() {
  [ -f playwright.kubernetes.config.ts ] || return 0
  npx playwright test -c playwright.kubernetes.config.ts || status=1
}
step "Kubernetes: the test cluster and the *.k8s.test.ts suites"
check "kubernetes-cluster" kubernetes_cluster
if grep -qx "kubernetes-cluster ok" "$results/checks.txt"; then
  SANDBOX_DRIVER=kubernetes npx vitest run -c vitest.kubernetes.config.ts --reporter=default --reporter=json \
    --outputFile.json="$results/vitest-kubernetes.json" || status=1
  kubernetes_journey
fi
bash scripts/setup/kubernetes.sh stop || true

step "summary"
TEST_WALL_SECONDS=$SECONDS node scripts/test-summary.mjs "$results" || status=1
exit $status
