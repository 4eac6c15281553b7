#!/usr/bin/env bash
# The host firewall rules that keep sandboxes from reaching anything (docs/sandboxes.md, "Network"), for both
# address families.
# - IPv4: every sandbox runs on a bridge network of its own whose subnet is taken from SANDBOX_NETWORK_POOL (default
#   10.213.0.0/16); the chain drops every connection a container in that range starts — to the host (its app port,
#   PostgreSQL, anything listening on the bridge's gateway or another host address: INPUT), to other sandboxes and to
#   the internet (FORWARD) — while replies to connections the host opened (the service reaching a sandbox through its
#   port published on 127.0.0.1) pass.
# - The test cluster's pods (scripts/setup/kubernetes.sh; docs/kubernetes.md) get the same chain for their CIDR and
#   bridge (scripts/setup/kubernetes-network.sh): that cluster's network enforces no NetworkPolicy, so the host does.
#   Its pods share one bridge, so traffic between two of them is bridged, not routed: the kernel passes it through
#   iptables only with br_netfilter's bridge-nf-call-iptables on (turned on here; kubernetes.sh refuses to start
#   without it). ebtables' --logical-in, the other way to stop it, is not supported by this kind of machine's kernel.
# - IPv6: sandboxes start with IPv6 turned off (a sysctl at create), and as a second lock every IPv6 packet that
#   arrives from a sandbox's bridge (named swsbx…, lib/sandbox/engine.ts) is dropped: link-local addresses need no
#   route, and Node listens on `::`, so without this a sandbox reached the app through the gateway's fe80:: address.
# Idempotent and safe to re-run: each chain is replaced in one atomic iptables-restore transaction (never an empty
# moment), and each hook is added only when missing. Run as root. Works with Podman (CNI or netavark) and with
# Docker (the FORWARD hook goes into DOCKER-USER, which Docker keeps first; under CNI also into CNI-ADMIN, which
# CNI's own FORWARD rules consult before they accept a container's traffic).
# Nothing is printed on stdout (podman.sh prints DOCKER_HOST on its last line).
set -euo pipefail

if [ "$(id -u)" != 0 ]; then
  echo "sandbox-network.sh: run as root, or as a user with sudo: sudo bash scripts/setup/sandbox-network.sh" >&2; exit 1
fi

POOL="${SANDBOX_NETWORK_POOL:-10.213.0.0/16}"
CHAIN=SITEWRIGHT-SANDBOX
BRIDGES="swsbx+"
# shellcheck source=scripts/setup/kubernetes-network.sh
. "$(dirname "$0")/kubernetes-network.sh"

if ! command -v iptables >/dev/null || ! command -v ip6tables-restore >/dev/null; then
  echo "sandbox-network.sh: installing iptables" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >&2
  apt-get install -y -qq iptables >&2
fi

# $1: iptables or ip6tables; $2: the chain's rules, one per line (without "-A CHAIN").
replace_chain() {
  local tool=$1 rules=$2 body
  body="*filter
:$CHAIN - [0:0]
$(while IFS= read -r rule; do [ -n "$rule" ] && echo "-A $CHAIN $rule"; done <<<"$rules")
COMMIT"
  # --noflush keeps every other chain; the ":CHAIN" line creates this one or empties it, in the same commit.
  "$tool-restore" -w --noflush <<<"$body"
}

# $1: iptables or ip6tables; $2: the parent chain. Added once, as the parent's first rule.
hook() {
  local tool=$1 parent=$2
  "$tool" -w -C "$parent" -j "$CHAIN" 2>/dev/null || "$tool" -w -I "$parent" 1 -j "$CHAIN"
}

hook_family() {
  local tool=$1
  hook "$tool" INPUT
  if "$tool" -w -nL DOCKER-USER >/dev/null 2>&1; then hook "$tool" DOCKER-USER; else hook "$tool" FORWARD; fi
  # CNI inserts its own FORWARD rules above ours once the first container starts, and they accept everything a
  # container sends; their admin chain is consulted first, is never flushed by CNI, and may be made ahead of it.
  if [ "$tool" = iptables ] && { "$tool" -w -nL CNI-FORWARD >/dev/null 2>&1 || podman_uses_cni; }; then
    "$tool" -w -N CNI-ADMIN 2>/dev/null || true
    hook "$tool" CNI-ADMIN
  fi
}

podman_uses_cni() {
  command -v podman >/dev/null && [ "$(podman info --format '{{.Host.NetworkBackend}}' 2>/dev/null)" = cni ]
}

# $1: a source range. Replies to connections the host opened pass; everything the range starts is dropped.
drop_from() { printf '%s\n' "-s $1 -m conntrack --ctstate ESTABLISHED,RELATED -j RETURN" "-s $1 -j DROP"; }

# The host talking to its own bridge address goes over lo with that source address: not a sandbox's packet.
replace_chain iptables "-i lo -j RETURN
$(drop_from "$POOL")
$(drop_from "$POD_CIDR")"
hook_family iptables

if [ -d /proc/sys/net/ipv6 ]; then
  # Nothing of a sandbox's needs IPv6: the service reaches it over IPv4 on 127.0.0.1 (a pod: on its pod address).
  replace_chain ip6tables "-i $BRIDGES -j DROP
-i $POD_BRIDGE -j DROP"
  hook_family ip6tables
  families="IPv4 and IPv6 (bridges $BRIDGES $POD_BRIDGE)"
else
  families="IPv4 (this kernel has no IPv6)"
fi

# Pods on the one pod bridge: packets bridged from one pod to another go through the chain above too.
for family in iptables ip6tables; do
  knob=/proc/sys/net/bridge/bridge-nf-call-$family
  if [ -f "$knob" ]; then echo 1 > "$knob"; fi
done

echo "sandbox-network.sh: sandboxes in $POOL and pods in $POD_CIDR can start no connection over $families" \
  "(chain $CHAIN on INPUT and FORWARD)" >&2
