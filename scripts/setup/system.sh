#!/usr/bin/env bash
# Installs and starts everything the test suite needs on a fresh Debian 12 machine of this kind, as root:
# Debian packages (PHP, phpunit, phpcs, Chromium, Caddy, Podman, debootstrap), PostgreSQL (started if down),
# the Podman API service, and the cached WordPress tree. Idempotent: a second run does almost nothing.
set -euo pipefail
cd "$(dirname "$0")/../.."

log() { echo "setup: $*" >&2; }

if [ "$(id -u)" != 0 ]; then
  log "run as root, or as a user with sudo: sudo bash scripts/setup/system.sh (it installs Debian packages and starts services)"; exit 1
fi

PACKAGES=(
  ca-certificates curl openssl git
  php8.2-cli php8.2-sqlite3 php8.2-xml php8.2-mbstring php8.2-curl php8.2-intl php8.2-gd phpunit php-codesniffer
  chromium caddy podman runc debootstrap
  postgresql postgresql-client
)
missing=()
for package in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done
if [ ${#missing[@]} -gt 0 ]; then
  log "installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# PostgreSQL: start the cluster if it is down; on a machine where we just installed it, let local TCP in.
if ! pg_isready -q -h 127.0.0.1 -p 5432; then
  version=$(ls /etc/postgresql | sort -V | tail -n 1)
  hba="/etc/postgresql/$version/main/pg_hba.conf"
  if ! grep -qE '^host\s+all\s+all\s+127\.0\.0\.1/32\s+trust' "$hba"; then
    sed -i '1i host all all 127.0.0.1/32 trust\nhost all all ::1/128 trust' "$hba"
  fi
  log "starting PostgreSQL $version"
  pg_ctlcluster --skip-systemctl-redirect "$version" main start
  for _ in $(seq 1 50); do pg_isready -q -h 127.0.0.1 -p 5432 && break; sleep 0.2; done
fi
pg_isready -h 127.0.0.1 -p 5432 >/dev/null || { log "PostgreSQL does not answer on 127.0.0.1:5432"; exit 1; }

bash scripts/setup/podman.sh >/dev/null
bash scripts/setup/wordpress.sh >/dev/null
log "ready"
