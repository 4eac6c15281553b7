#!/usr/bin/env bash
# Builds the four Kubernetes server binaries (kube-apiserver, kube-controller-manager, kube-scheduler, kubelet) from
# Debian's own `kubernetes` source package with Debian's Go, offline but for Debian's mirror. The test harness
# (scripts/setup/kubernetes.sh) runs them; nothing here is a production recommendation.
#
# Cached by the source package's version and this recipe: ${SITEWRIGHT_CACHE:-/var/cache/sitewright}/kubernetes-<version>-<recipe>/bin. A
# complete cache makes this a no-op; a missing or partial one is rebuilt (times: docs/performance.md), so a fresh
# machine never depends on it. Prints the bin directory as its last line. Run as root.
set -euo pipefail
CACHE="${SITEWRIGHT_CACHE:-/var/cache/sitewright}"
APT=(apt-get -o DPkg::Lock::Timeout=900 -qq)
export DEBIAN_FRONTEND=noninteractive

# apt-get update waits for no lock of its own (another setup step may be updating): retry for up to 10 minutes.
apt_update() {
  for _ in $(seq 1 120); do "${APT[@]}" update 2>/dev/null && return 0; sleep 5; done
  "${APT[@]}" update
}

# Debian's source line for the same mirror as the binary packages, added only while the source is fetched.
SRC_LIST=/etc/apt/sources.list.d/sitewright-k8s-src.sources
with_source_list() {
  sed 's/^Types: deb$/Types: deb-src/' /etc/apt/sources.list.d/debian.sources > "$SRC_LIST"
  apt_update
  local rc=0
  "$@" || rc=$?
  rm -f "$SRC_LIST"
  apt_update
  return $rc
}

source_version() {
  # The version Debian's mirror holds now (the cache key); falls back to the newest cache when the mirror is out of reach.
  local v
  v=$(with_source_list apt-cache showsrc kubernetes 2>/dev/null | awk '/^Version:/ {print $2; exit}') || true
  if [ -z "$v" ]; then
    v=$(find "$CACHE" -maxdepth 1 -name 'kubernetes-*' -printf '%f\n' 2>/dev/null | sed 's/^kubernetes-//' | sort | tail -n 1)
  fi
  [ -n "$v" ] || { echo "kubernetes-build: cannot tell the kubernetes source version" >&2; exit 1; }
  echo "$v"
}

BINARIES=(kube-apiserver kube-controller-manager kube-scheduler kubelet)
complete() { for b in "${BINARIES[@]}"; do [ -x "$1/$b" ] || return 1; done; [ -f "$1/.complete" ]; }

# What the build does, beyond the source: a change here is a new cache entry.
RECIPE=r2-providerless
VERSION=$(source_version)
OUT="$CACHE/kubernetes-$VERSION-$RECIPE"
if complete "$OUT/bin"; then echo "$OUT/bin"; exit 0; fi

echo "kubernetes-build: building $VERSION into $OUT (the longest setup step: docs/performance.md)" >&2
"${APT[@]}" install -y golang-go gcc libc6-dev >&2
WORK=$(mktemp -d /var/tmp/sitewright-k8s-build.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
chmod 777 "$WORK"
(cd "$WORK" && with_source_list apt-get -o DPkg::Lock::Timeout=900 -qq source --download-only "kubernetes=$VERSION" >&2)
TREE="$WORK/gopath/src/k8s.io/kubernetes"
mkdir -p "$TREE"
tar xzf "$WORK"/kubernetes_*.orig.tar.gz -C "$TREE" --strip-components=1
cd "$TREE"
# GOPATH mode, as upstream's hack/lib/init.sh (module mode fails: "updates to go.mod needed").
export GO111MODULE=off GOPATH="$WORK/gopath" CGO_ENABLED=0 GOFLAGS= GOCACHE="$WORK/gocache"

# The generated OpenAPI definitions are not in the tarball (upstream's `make generated_files` writes them).
go build -o "$WORK/openapi-gen" ./vendor/k8s.io/kube-openapi/cmd/openapi-gen
DIRS=$(grep -RIl --include='*.go' '+k8s:openapi-gen=' pkg cmd plugin vendor/k8s.io \
  | grep -vE '^vendor/k8s.io/(code-generator|sample-apiserver)/' \
  | xargs -n1 dirname | LC_ALL=C sort -u | sed 's|^|k8s.io/kubernetes/|' | paste -sd,)
"$WORK/openapi-gen" -i "$DIRS" -p k8s.io/kubernetes/pkg/generated/openapi -O zz_generated.openapi \
  -h vendor/k8s.io/code-generator/hack/boilerplate.go.txt -r "$WORK/openapi-violations.report" >&2

# The version stamp goes through the vendor path (plain k8s.io/... leaves v0.0.0-master).
UPSTREAM=$(echo "$VERSION" | sed -E 's/^.*really//; s/-.*$//')
V=k8s.io/kubernetes/vendor/k8s.io/component-base/version
MINOR=$(echo "$UPSTREAM" | cut -d. -f2)
mkdir -p "$OUT/bin.partial"
for c in "${BINARIES[@]}"; do
  echo "kubernetes-build: $c" >&2
  # providerless: without the in-tree cloud providers (AWS, Azure, GCE, OpenStack, vSphere SDKs), which a
  # single-node test cluster never uses and which are a large part of the compile.
  go build -tags selinux,notest,providerless \
    -ldflags "-s -w -X $V.gitVersion=v$UPSTREAM -X $V.gitMajor=1 -X $V.gitMinor=$MINOR" \
    -o "$OUT/bin.partial/$c" "./cmd/$c"
done
# The pause binary for the pod sandbox image, from the same tree.
gcc -Os -static -o "$OUT/bin.partial/pause" build/pause/linux/pause.c
touch "$OUT/bin.partial/.complete"
rm -rf "$OUT/bin" && mv "$OUT/bin.partial" "$OUT/bin"
echo "$OUT/bin"
