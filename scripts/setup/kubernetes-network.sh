# The test cluster's pod network (scripts/setup/kubernetes.sh), sourced by it and by sandbox-network.sh so the host
# firewall always covers it, whichever of the two ran last. One bridge of its own, one /24, no masquerade.
# shellcheck shell=bash
POD_CIDR=10.244.7.0/24
POD_GATEWAY=10.244.7.1
POD_BRIDGE=swk8s0
