#!/usr/bin/env bash
# Builds the sandbox root filesystem from Debian packages (offline apart from the Debian mirror) and writes it
# as a tarball: rootfs.sh OUT.tar. Takes about 80 s; lib/sandbox/image.ts caches the result by package list.
set -euo pipefail

OUT="${1:?usage: rootfs.sh OUT.tar}"
PACKAGES="${SANDBOX_ROOTFS_PACKAGES:?SANDBOX_ROOTFS_PACKAGES must list the packages}"
SUITE="${SANDBOX_ROOTFS_SUITE:-bookworm}"

mirror() {
  local uri
  uri=$(grep -hE '^URIs:' /etc/apt/sources.list.d/*.sources 2>/dev/null | awk '{print $2}' | grep -v security | head -n1 || true)
  if [ -z "$uri" ]; then
    uri=$(grep -hE '^deb ' /etc/apt/sources.list 2>/dev/null | awk '{print $2}' | grep -v security | head -n1 || true)
  fi
  echo "${uri:-http://deb.debian.org/debian}"
}

command -v debootstrap >/dev/null || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq debootstrap; }

WORK=$(mktemp -d "${TMPDIR:-/tmp}/sitewright-rootfs.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
ROOT="$WORK/root"

debootstrap --variant=minbase --include="$PACKAGES" "$SUITE" "$ROOT" "$(mirror)" >&2

# Smaller image, nothing a sandbox needs: package caches, docs, man pages, locales other than C.
rm -rf "$ROOT"/var/cache/apt/archives/*.deb "$ROOT"/var/lib/apt/lists/* "$ROOT"/usr/share/doc/* \
  "$ROOT"/usr/share/man/* "$ROOT"/usr/share/info/* "$ROOT"/var/log/*.log
# The unprivileged user PHP runs as inside the sandbox.
chroot "$ROOT" /usr/sbin/groupadd --gid 10001 sandbox
chroot "$ROOT" /usr/sbin/useradd --uid 10001 --gid 10001 --home-dir /srv --no-create-home --shell /usr/sbin/nologin sandbox

mkdir -p "$(dirname "$OUT")"
tar --numeric-owner -C "$ROOT" -cf "$OUT.partial" .
mv "$OUT.partial" "$OUT"
echo "rootfs.sh: wrote $OUT ($(du -h "$OUT" | cut -f1))" >&2
