#!/usr/bin/env bash
# The whole test suite, on a fresh machine of this kind (run as root): installs and starts what the tests need,
# then builds the app (which type-checks it) while the sandbox image is made, and runs two lanes side by side: the
# vitest suites (unit + integration against real PostgreSQL, WordPress with our plugin over https, and Podman) with
# the plugin's PHP checks and tests, and the end-to-end specs in Chromium followed by the bench's smoke pass. When
# either lane ends, the Kubernetes suites run on a real single-node cluster (docs/kubernetes.md), whose server
# binaries build in the background from the start (about 16 minutes on 2 busy cores when not cached).
# docs/testing.md says why this shape.
# Ends with one line: "Summary: N passed, N failed, N skipped in M min S s".
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

step "sandbox image and build (side by side: the image mostly waits on Debian's mirror and the disk, the build on the cores)"
# The image's tag is its last line of output (the Kubernetes step imports that image into the cluster).
npm run --silent sandbox:image > "$results/sandbox-image.log" 2>&1 &
sandbox_image_build=$!
build() { npm run --silent build > "$results/build.log" 2>&1 || { tail -n 60 "$results/build.log"; return 1; }; }
check "build" build
sandbox_image_ready() { wait "$sandbox_image_build" || { tail -n 60 "$results/sandbox-image.log"; return 1; }; }
check "sandbox-image" sandbox_image_ready
sandbox_image=$(tail -n 1 "$results/sandbox-image.log")

# Two lanes side by side, as neither keeps two cores busy alone (most of their time waits on WordPress, PostgreSQL,
# Podman and Chromium): vitest with the plugin's PHP checks, and the end-to-end specs in Chromium followed by the
# bench's smoke pass. They share nothing: every file and every spec config makes its own database, site, ports,
# sandbox namespace and folders (a config's state, mail and app log are in .cache/e2e/<config>/; docs/testing.md),
# and Chromium lives in a network namespace of its own. The second lane's output goes to a file, printed after the
# first lane's, so the log reads in order.
e2e_lane() {
  local lane=0 bench_build
  # The bench's own build of the app (a copy with one extra route, bench/lib/app.ts) is made meanwhile, at a lower
  # priority: the smoke pass at the end of this lane finds it made instead of building for three minutes then.
  nice -n 5 npm run --silent bench -- --prepare > "$results/bench-prepare.log" 2>&1 &
  bench_build=$!
  step "end to end (Chromium), beside vitest"
  npx playwright test || lane=1
  # The sandbox specs (issue 13) run the same app with real Podman sandboxes on.
  npx playwright test -c playwright.sandbox.config.ts || lane=1
  # The main journey again on WordPress 7.1 (docs/wordpress-versions.md).
  npx playwright test -c playwright.wp71.config.ts || lane=1
  # An Elementor page edited from the chat on 7.1 with Elementor (docs/page-builders.md): one site start of its own.
  npx playwright test -c playwright.elementor.config.ts || lane=1

  wait "$bench_build" || tail -n 20 "$results/bench-prepare.log"
  step "bench smoke pass (npm run bench -- --smoke: every figure taken once, no goals judged)"
  # A change that breaks a benchmark fails here, not in the next person's `npm run bench` (issue 39).
  bench_smoke() { npm run --silent bench -- --smoke > "$results/bench-smoke.log" 2>&1 || { tail -n 60 "$results/bench-smoke.log"; return 1; }; }
  check "bench-smoke" bench_smoke || true
  grep -qx "bench-smoke failed" "$results/checks.txt" && lane=1
  return $lane
}
vitest_lane() {
  local lane=0 plugin_checks
  step "vitest (the plugin's PHP checks run beside it; their output follows), beside the end-to-end lane"
  # The plugin's checks use little CPU (about 40 s of it in 4 minutes: mostly SQLite and WordPress's install) and
  # share nothing with vitest's files, so they run in the background meanwhile.
  bash scripts/check-plugin.sh "$results" > "$results/check-plugin.log" 2>&1 &
  plugin_checks=$!
  npx vitest run --reporter=default --reporter=json --outputFile.json="$results/vitest.json" || lane=1

  step "plugin: php -l, phpcs, phpunit on WordPress 6.1 and 7.1 (ran beside vitest)"
  wait "$plugin_checks" || lane=1
  cat "$results/check-plugin.log"
  return $lane
}
# Every Playwright run here shares the machine with another lane, whose load rises after a config has read the load
# average: their waits start at twice a quiet machine's (e2e/support/waits.ts), up to four times as the load says.
export SITEWRIGHT_E2E_MIN_SLOWDOWN=2
# Each lane leaves its exit code in a file (a background job's status is read once, by whichever wait sees it).
( e2e_lane > "$results/e2e-lane.log" 2>&1; echo $? > "$results/e2e-lane.rc" ) &
e2e_lane_pid=$!
( vitest_lane; echo $? > "$results/vitest-lane.rc" ) &
vitest_lane_pid=$!
# The Kubernetes step (below) starts as soon as either lane ends, beside the other one's tail.
wait -n "$vitest_lane_pid" "$e2e_lane_pid"

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
kubernetes_step() {
  step "Kubernetes: the test cluster and the *.k8s.test.ts suites (beside the lane still running)"
  check "kubernetes-cluster" kubernetes_cluster
  if grep -qx "kubernetes-cluster ok" "$results/checks.txt"; then
    SANDBOX_DRIVER=kubernetes npx vitest run -c vitest.kubernetes.config.ts --reporter=default --reporter=json \
      --outputFile.json="$results/vitest-kubernetes.json" || status=1
    kubernetes_journey
  fi
  bash scripts/setup/kubernetes.sh stop || true
}
# In this shell (it waits for the build, a job of this shell), its output kept for after the lanes'.
kubernetes_step > "$results/kubernetes-step.log" 2>&1

wait "$vitest_lane_pid" "$e2e_lane_pid"
for lane in vitest e2e; do [ "$(cat "$results/$lane-lane.rc" 2>/dev/null)" = 0 ] || status=1; done
step "the end-to-end lane's output (it ran beside vitest)"
cat "$results/e2e-lane.log"
cat "$results/kubernetes-step.log"

step "summary"
TEST_WALL_SECONDS=$SECONDS node scripts/test-summary.mjs "$results" || status=1
exit $status
