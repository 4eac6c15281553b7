#!/usr/bin/env bash
# The host firewall rules that keep sandboxes from reaching anything (docs/sandboxes.md, "Network"): every
# sandbox runs on a bridge network of its own whose subnet is taken from SANDBOX_NETWORK_POOL (default
# 10.213.0.0/16); these rules drop every connection a container in that range starts — to the host (its app port,
# PostgreSQL, anything listening on the bridge's gateway or another host address: INPUT), to other sandboxes and
# to the internet (FORWARD) — while replies to connections the host opened (the service reaching a sandbox
# through its port published on 127.0.0.1) pass. Idempotent; run as root. Works with Podman (CNI or netavark)
# and with Docker (for Docker the FORWARD hook goes into DOCKER-USER, which Docker keeps first).
# Nothing is printed on stdout (podman.sh prints DOCKER_HOST on its last line).
set -euo pipefail

POOL="${SANDBOX_NETWORK_POOL:-10.213.0.0/16}"
CHAIN=SITEWRIGHT-SANDBOX

if ! command -v iptables >/dev/null; then
  echo "sandbox-network.sh: installing iptables" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >&2
  apt-get install -y -qq iptables >&2
fi

iptables -w -N "$CHAIN" 2>/dev/null || true
iptables -w -F "$CHAIN"
# The host talking to its own bridge address goes over lo with that source address: not a sandbox's packet.
iptables -w -A "$CHAIN" -i lo -j RETURN
iptables -w -A "$CHAIN" -s "$POOL" -m conntrack --ctstate ESTABLISHED,RELATED -j RETURN
iptables -w -A "$CHAIN" -s "$POOL" -j DROP

hook() {
  local parent=$1
  iptables -w -C "$parent" -j "$CHAIN" 2>/dev/null || iptables -w -I "$parent" 1 -j "$CHAIN"
}
hook INPUT
if iptables -w -nL DOCKER-USER >/dev/null 2>&1; then hook DOCKER-USER; else hook FORWARD; fi

echo "sandbox-network.sh: sandboxes in $POOL can start no connection (chain $CHAIN on INPUT and FORWARD)" >&2
