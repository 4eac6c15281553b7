#!/usr/bin/env bash
# Sets up Podman as a Docker-API engine for sandboxes (see docs/sandboxes.md). Idempotent; run as root.
# Prints the DOCKER_HOST to use on its last line.
set -euo pipefail

if [ "$(id -u)" != 0 ]; then
  echo "podman.sh: run as root, or as a user with sudo: sudo bash scripts/setup/podman.sh" >&2; exit 1
fi

SOCKET_PATH="${PODMAN_SOCKET:-/run/podman/podman.sock}"
CONF=/etc/containers/containers.conf

if ! command -v podman >/dev/null || ! command -v runc >/dev/null || ! command -v curl >/dev/null; then
  echo "podman.sh: installing podman, runc and curl" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >&2
  apt-get install -y -qq podman runc curl >&2
fi

# crun fails on this kind of machine's hybrid cgroups, and raised default ulimits are refused without
# CAP_SYS_RESOURCE: runc, cgroupfs and modest ulimits work.
WANTED_CONF='[containers]
default_ulimits = ["nproc=4096:4096", "nofile=1024:1024"]
[engine]
runtime = "runc"
cgroup_manager = "cgroupfs"'
mkdir -p /etc/containers
if [ ! -f "$CONF" ] || [ "$(cat "$CONF")" != "$WANTED_CONF" ]; then
  printf '%s\n' "$WANTED_CONF" > "$CONF"
fi

answers() {
  curl -fsS --max-time 2 --unix-socket "$SOCKET_PATH" http://d/v1.41/_ping >/dev/null 2>&1
}

# A service left running from a directory that no longer exists answers pings but cannot start a container:
# restart it from /.
for pid in $(pgrep -f "podman system service .*unix://$SOCKET_PATH" || true); do
  if [[ "$(readlink "/proc/$pid/cwd" 2>/dev/null)" == *" (deleted)" ]]; then
    echo "podman.sh: the Podman API service runs from a deleted directory; restarting it" >&2
    kill "$pid" 2>/dev/null || true
    for _ in $(seq 1 25); do kill -0 "$pid" 2>/dev/null || break; sleep 0.2; done
  fi
done

if ! answers; then
  mkdir -p "$(dirname "$SOCKET_PATH")"
  rm -f "$SOCKET_PATH"
  echo "podman.sh: starting the Podman API service on $SOCKET_PATH" >&2
  # From /: the service's working directory is inherited by every conmon it starts, and conmon fails ("Failed to
  # get working directory", exec's "write child: broken pipe") once that directory is gone, as a CI checkout is.
  (cd / && exec nohup setsid podman system service --time=0 "unix://$SOCKET_PATH" >/var/log/podman-service.log 2>&1 < /dev/null) &
  for _ in $(seq 1 50); do
    answers && break
    sleep 0.2
  done
  answers || { echo "podman.sh: the Podman API did not answer on $SOCKET_PATH" >&2; tail -n 20 /var/log/podman-service.log >&2 || true; exit 1; }
fi

# Sandboxes must reach nothing: the firewall rules for their networks (docs/sandboxes.md, "Network").
bash "$(dirname "$0")/sandbox-network.sh"

echo "DOCKER_HOST=unix://$SOCKET_PATH"
