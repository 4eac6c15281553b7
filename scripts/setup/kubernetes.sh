#!/usr/bin/env bash
# A real single-node Kubernetes for testing the Kubernetes sandbox driver (docs/kubernetes.md): the server binaries
# scripts/setup/kubernetes-build.sh builds from Debian's source package, Debian's etcd and containerd (unpacked, not
# installed, cached by version), runc and the CNI plugins; PKI from openssl; every port off the defaults; images
# imported into containerd with no registry; pods on a bridge of their own that the host firewall closes
# (scripts/setup/sandbox-network.sh). A test harness, not a way to run Kubernetes: v1.20 is end of life.
#
#   kubernetes.sh [start] [IMAGE]  brings it up (idempotent: a healthy cluster is kept), imports IMAGE (default
#                                  $SANDBOX_IMAGE, else the tag `npm run sandbox:image` prints), makes the namespace
#                                  and the sitewright user, waits for the node and a test pod, and prints
#                                  KUBECONFIG=<the sitewright user's kubeconfig> on its last line.
#   kubernetes.sh stop             kills what it started, unmounts, removes its state (not the PKI or the cache).
#   kubernetes.sh status           says what runs; exits 1 unless the API answers and the node is Ready.
#
# Run as root. SITEWRIGHT_K8S_BIN names the server binaries' directory (default: kubernetes-build.sh's answer);
# SITEWRIGHT_K8S_DIR the state directory (default /var/lib/sitewright/kubernetes).
set -euo pipefail
cd "$(dirname "$0")/../.."
REPO=$PWD
# shellcheck source=scripts/setup/kubernetes-network.sh
. scripts/setup/kubernetes-network.sh

CACHE="${SITEWRIGHT_CACHE:-/var/cache/sitewright}"
K="${SITEWRIGHT_K8S_DIR:-/var/lib/sitewright/kubernetes}"
NAMESPACE=sitewright-sandboxes
NODE=localhost
PAUSE_IMAGE=localhost/k8s-pause:3.4
SERVICE_CIDR=10.245.7.0/24
SERVICE_IP=10.245.7.1
# Every port off the defaults, on 127.0.0.1 only, so this never meets another Kubernetes or etcd on the machine.
ETCD_PORT=23790
ETCD_PEER_PORT=23800
API_PORT=16443
KUBELET_PORT=10260
KUBELET_HEALTHZ_PORT=10258
KCM_PORT=10267
SCHEDULER_PORT=10269
PROCESSES=(etcd containerd kube-apiserver kube-controller-manager kube-scheduler kubelet)
APT=(apt-get -o DPkg::Lock::Timeout=900 -qq)
export DEBIAN_FRONTEND=noninteractive

log() { echo "kubernetes: $*" >&2; }
fail() { log "$*"; exit 1; }
elapsed() { echo "$((SECONDS - STARTED)) s"; }
STARTED=$SECONDS

[ "$(id -u)" = 0 ] || fail "run as root, or as a user with sudo: sudo bash scripts/setup/kubernetes.sh"

# --- packages -------------------------------------------------------------------------------------------------------

ensure_packages() {
  local wanted=(runc containernetworking-plugins openssl iptables curl) missing=() package
  for package in "${wanted[@]}"; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  log "installing ${missing[*]}"
  "${APT[@]}" update >&2 || true
  "${APT[@]}" install -y --no-install-recommends "${missing[@]}" >&2
}

candidate() { apt-cache policy "$1" 2>/dev/null | awk '/Candidate:/ {print $2; exit}'; }

# etcd-server, containerd and kubernetes-client (kubectl, the server's version) are unpacked, not installed:
# etcd-server's postinst would start its own etcd, and another kubectl may own /usr/bin/kubectl. Cached by their
# versions; prints the directory whose usr/bin holds etcd, containerd, its shim, ctr and kubectl.
runtime_root() {
  local etcd containerd client dir work
  etcd=$(candidate etcd-server)
  containerd=$(candidate containerd)
  client=$(candidate kubernetes-client)
  if [ -z "$etcd" ] || [ "$etcd" = "(none)" ] || [ -z "$containerd" ] || [ -z "$client" ]; then
    "${APT[@]}" update >&2 || true
    etcd=$(candidate etcd-server)
    containerd=$(candidate containerd)
    client=$(candidate kubernetes-client)
  fi
  dir="$CACHE/kubernetes-runtime/etcd-${etcd}_containerd-${containerd}_kubectl-${client}"
  if [ -z "$etcd" ] || [ "$etcd" = "(none)" ]; then
    # Debian's mirror out of reach: the newest cache will do.
    dir=$(find "$CACHE/kubernetes-runtime" -mindepth 1 -maxdepth 1 -type d 2>/dev/null | sort | tail -n 1)
  fi
  if [ -n "$dir" ] && [ -x "$dir/root/usr/bin/etcd" ] && [ -x "$dir/root/usr/bin/containerd" ] &&
    [ -x "$dir/root/usr/bin/kubectl" ]; then
    echo "$dir/root"
    return 0
  fi
  [ -n "$etcd" ] && [ "$etcd" != "(none)" ] || fail "cannot tell etcd-server's version, and nothing is cached"
  log "unpacking etcd-server $etcd, containerd $containerd and kubernetes-client $client into $dir"
  work=$(mktemp -d /var/tmp/sitewright-k8s-debs.XXXXXX)
  chmod 777 "$work" # apt-get download runs as _apt
  (cd "$work" && "${APT[@]}" download "etcd-server=$etcd" "containerd=$containerd" "kubernetes-client=$client" >&2)
  rm -rf "$dir.partial" && mkdir -p "$dir.partial"
  for deb in "$work"/*.deb; do dpkg -x "$deb" "$dir.partial/root"; done
  rm -rf "$work" "$dir"
  mv "$dir.partial" "$dir"
  echo "$dir/root"
}

server_bin() {
  local bin="${SITEWRIGHT_K8S_BIN:-}"
  [ -n "$bin" ] || bin=$(bash scripts/setup/kubernetes-build.sh | tail -n 1)
  for b in kube-apiserver kube-controller-manager kube-scheduler kubelet pause; do
    [ -x "$bin/$b" ] || fail "no $b in $bin (scripts/setup/kubernetes-build.sh builds them)"
  done
  echo "$bin"
}

# --- PKI, tokens and kubeconfigs (kept across stop and start) -------------------------------------------------------

# $1 name, $2 subject, $3 extensions (one per line, for openssl's -extfile).
issue() {
  local name=$1 subject=$2 extensions=$3
  [ -f "$K/pki/$name.crt" ] && return 0
  openssl req -new -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -keyout "$K/pki/$name.key" \
    -subj "$subject" -out "$K/pki/$name.csr" 2>/dev/null
  openssl x509 -req -in "$K/pki/$name.csr" -CA "$K/pki/ca.crt" -CAkey "$K/pki/ca.key" -CAcreateserial -days 3650 \
    -out "$K/pki/$name.crt" -extfile <(printf '%s\n' "$extensions") 2>/dev/null
  rm -f "$K/pki/$name.csr"
}

make_pki() {
  mkdir -p "$K/pki" && chmod 700 "$K/pki"
  if [ ! -f "$K/pki/ca.crt" ]; then
    openssl req -x509 -new -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 3650 \
      -keyout "$K/pki/ca.key" -out "$K/pki/ca.crt" -subj "/CN=sitewright-test-cluster-ca" 2>/dev/null
  fi
  issue apiserver "/CN=kube-apiserver" "keyUsage=critical,digitalSignature,keyEncipherment
extendedKeyUsage=serverAuth
subjectAltName=IP:127.0.0.1,IP:$SERVICE_IP,DNS:localhost,DNS:kubernetes,DNS:kubernetes.default,DNS:kubernetes.default.svc"
  # The API server's identity towards the kubelet (exec, logs): system:masters, so the kubelet's webhook allows it.
  issue apiserver-kubelet-client "/O=system:masters/CN=kube-apiserver-kubelet-client" \
    "keyUsage=critical,digitalSignature,keyEncipherment
extendedKeyUsage=clientAuth"
  # The node is named localhost (a loopback node IP is refused) and the API server reaches it by that name.
  issue kubelet "/CN=$NODE" "keyUsage=critical,digitalSignature,keyEncipherment
extendedKeyUsage=serverAuth
subjectAltName=DNS:localhost,IP:127.0.0.1"
  if [ ! -f "$K/pki/sa.key" ]; then
    openssl genrsa -out "$K/pki/sa.key" 2048 2>/dev/null
    openssl rsa -in "$K/pki/sa.key" -pubout -out "$K/pki/sa.pub" 2>/dev/null
  fi
  if [ ! -f "$K/pki/tokens.csv" ]; then
    local users=(
      "admin,admin,system:masters"
      "kubelet,system:node:$NODE,system:nodes"
      "scheduler,system:kube-scheduler,"
      "controller-manager,system:kube-controller-manager,"
      "sitewright,sitewright,"
    )
    local entry name user group
    : > "$K/pki/tokens.csv.partial"
    for entry in "${users[@]}"; do
      IFS=, read -r name user group <<<"$entry"
      echo "$(openssl rand -hex 24),$user,$name${group:+,\"$group\"}" >> "$K/pki/tokens.csv.partial"
    done
    mv "$K/pki/tokens.csv.partial" "$K/pki/tokens.csv"
  fi
  chmod 600 "$K"/pki/*.key "$K/pki/tokens.csv"
}

token_of() { awk -F, -v uid="$1" '$3 == uid {print $1}' "$K/pki/tokens.csv"; }

# $1 file, $2 token uid, $3 default namespace.
kubeconfig() {
  local file=$1 token namespace=${3:-default}
  token=$(token_of "$2")
  [ -n "$token" ] || fail "no token for $2 in $K/pki/tokens.csv"
  umask 077
  cat > "$file" <<EOF
apiVersion: v1
kind: Config
clusters:
- name: sitewright-test
  cluster:
    server: https://127.0.0.1:$API_PORT
    certificate-authority: $K/pki/ca.crt
users:
- name: $2
  user:
    token: $token
contexts:
- name: $2@sitewright-test
  context: {cluster: sitewright-test, user: $2, namespace: $namespace}
current-context: $2@sitewright-test
EOF
  umask 022
}

make_kubeconfigs() {
  kubeconfig "$K/admin.kubeconfig" admin
  kubeconfig "$K/kubelet.kubeconfig" kubelet
  kubeconfig "$K/scheduler.kubeconfig" scheduler
  kubeconfig "$K/controller-manager.kubeconfig" controller-manager
  kubeconfig "$K/sitewright.kubeconfig" sitewright "$NAMESPACE"
}

# --- configuration files --------------------------------------------------------------------------------------------

write_configs() {
  mkdir -p "$K/cni" "$K/logs"
  # restrict_oom_score_adj: root here lacks CAP_SYS_RESOURCE, and the pause container's oom_score_adj -998 made
  # runc fail ("can't get final child's PID from pipe: EOF"). runc's state lives under $K, so stop finds it.
  cat > "$K/containerd.toml" <<EOF
version = 2
root = "$K/containerd/root"
state = "$K/containerd/state"
disabled_plugins = ["io.containerd.snapshotter.v1.aufs", "io.containerd.snapshotter.v1.btrfs", "io.containerd.snapshotter.v1.zfs", "io.containerd.snapshotter.v1.devmapper"]
[grpc]
  address = "$K/containerd/containerd.sock"
[plugins."io.containerd.internal.v1.opt"]
  path = "$K/containerd/opt"
[plugins."io.containerd.grpc.v1.cri"]
  sandbox_image = "$PAUSE_IMAGE"
  restrict_oom_score_adj = true
  stream_server_address = "127.0.0.1"
  [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
    runtime_type = "io.containerd.runc.v2"
    [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]
      BinaryName = "/usr/sbin/runc"
      Root = "$K/containerd/runc"
  [plugins."io.containerd.grpc.v1.cri".cni]
    bin_dir = "/usr/lib/cni"
    conf_dir = "$K/cni"
EOF
  # A bridge of its own, no masquerade: pods reach nothing (the host firewall drops what they start). isGateway
  # gives the bridge the gateway address, so the host reaches pods on their addresses; the default route through
  # it is there as on a real cluster, so it is the firewall, not a missing route, that stops a pod.
  cat > "$K/cni/10-sitewright-pods.conflist" <<EOF
{"cniVersion": "0.4.0", "name": "sitewright-pods", "plugins": [{"type": "bridge", "bridge": "$POD_BRIDGE",
 "isGateway": true, "isDefaultGateway": true, "ipMasq": false, "hairpinMode": false,
 "ipam": {"type": "host-local", "dataDir": "$K/cni-ipam", "ranges": [[{"subnet": "$POD_CIDR", "gateway": "$POD_GATEWAY"}]]}}]}
EOF
  # cgroupsPerQOS: the per-pod pids limit needs pod cgroups. oomScoreAdj 0: lowering it needs CAP_SYS_RESOURCE.
  # SizeMemoryBackedVolumes (default from 1.22): a memory-backed emptyDir's tmpfs gets its sizeLimit as its size.
  cat > "$K/kubelet.yaml" <<EOF
apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
address: 127.0.0.1
port: $KUBELET_PORT
readOnlyPort: 0
healthzBindAddress: 127.0.0.1
healthzPort: $KUBELET_HEALTHZ_PORT
authentication: {anonymous: {enabled: false}, webhook: {enabled: true}, x509: {clientCAFile: "$K/pki/ca.crt"}}
authorization: {mode: Webhook}
tlsCertFile: $K/pki/kubelet.crt
tlsPrivateKeyFile: $K/pki/kubelet.key
cgroupDriver: cgroupfs
cgroupsPerQOS: true
enforceNodeAllocatable: ["pods"]
failSwapOn: false
makeIPTablesUtilChains: false
oomScoreAdj: 0
evictionHard: {memory.available: "100Mi", nodefs.available: "1%", imagefs.available: "1%"}
imageGCHighThresholdPercent: 100
imageGCLowThresholdPercent: 99
podPidsLimit: 64
maxPods: 40
featureGates: {SizeMemoryBackedVolumes: true}
EOF
}

# --- processes ------------------------------------------------------------------------------------------------------

pid_of() {
  local file="$K/run/$1.pid" pid
  [ -f "$file" ] || return 1
  pid=$(cat "$file")
  [ -n "$pid" ] && [ -d "/proc/$pid" ] && [ "$(basename "$(readlink "/proc/$pid/exe" 2>/dev/null)")" = "$1" ] &&
    echo "$pid"
}

# $1 name (the binary's), then the command. From / in a session of its own: it outlives this script and its cwd.
launch() {
  local name=$1
  shift
  mkdir -p "$K/run" "$K/logs"
  # shellcheck disable=SC2016
  (cd / && exec setsid bash -c 'echo $$ > "$0"; exec "$@"' "$K/run/$name.pid" "$@" \
    > "$K/logs/$name.log" 2>&1 < /dev/null) &
  for _ in $(seq 1 50); do pid_of "$name" >/dev/null && return 0; sleep 0.1; done
  tail -n 20 "$K/logs/$name.log" >&2 || true
  fail "$name did not start (log: $K/logs/$name.log)"
}

# $1 what, $2 seconds, then a command that succeeds once it is there.
wait_for() {
  local what=$1 seconds=$2
  shift 2
  for _ in $(seq 1 $((seconds * 5))); do "$@" >/dev/null 2>&1 && return 0; sleep 0.2; done
  fail "$what not there after $seconds s (logs: $K/logs)"
}

api() { curl -fsS --max-time 3 --cacert "$K/pki/ca.crt" -H "Authorization: Bearer $(token_of admin)" "https://127.0.0.1:$API_PORT$1"; }
kctl() { "$RUNTIME/usr/bin/kubectl" --kubeconfig "$K/admin.kubeconfig" "$@"; }
ctr_() { "$RUNTIME/usr/bin/ctr" --address "$K/containerd/containerd.sock" -n k8s.io "$@"; }

start_processes() {
  local bin=$1
  launch etcd "$RUNTIME/usr/bin/etcd" --name default --data-dir "$K/etcd" \
    --listen-client-urls "http://127.0.0.1:$ETCD_PORT" --advertise-client-urls "http://127.0.0.1:$ETCD_PORT" \
    --listen-peer-urls "http://127.0.0.1:$ETCD_PEER_PORT" --initial-advertise-peer-urls "http://127.0.0.1:$ETCD_PEER_PORT" \
    --initial-cluster "default=http://127.0.0.1:$ETCD_PEER_PORT" --log-level warn
  # containerd finds its shim on PATH.
  launch containerd env "PATH=$RUNTIME/usr/bin:$PATH" "$RUNTIME/usr/bin/containerd" --config "$K/containerd.toml"
  # env execs containerd: the pid file names env's pid, which becomes containerd's.
  wait_for "etcd" 30 curl -fsS "http://127.0.0.1:$ETCD_PORT/health"
  launch kube-apiserver "$bin/kube-apiserver" --etcd-servers="http://127.0.0.1:$ETCD_PORT" \
    --bind-address=127.0.0.1 --secure-port="$API_PORT" --insecure-port=0 --advertise-address=127.0.0.1 \
    --endpoint-reconciler-type=none --service-cluster-ip-range="$SERVICE_CIDR" \
    --tls-cert-file="$K/pki/apiserver.crt" --tls-private-key-file="$K/pki/apiserver.key" \
    --client-ca-file="$K/pki/ca.crt" --token-auth-file="$K/pki/tokens.csv" \
    --authorization-mode=Node,RBAC --enable-admission-plugins=NodeRestriction \
    --service-account-key-file="$K/pki/sa.pub" --service-account-signing-key-file="$K/pki/sa.key" \
    --service-account-issuer=https://kubernetes.default.svc --kubelet-preferred-address-types=Hostname,InternalIP \
    --kubelet-client-certificate="$K/pki/apiserver-kubelet-client.crt" \
    --kubelet-client-key="$K/pki/apiserver-kubelet-client.key" --kubelet-certificate-authority="$K/pki/ca.crt" \
    --allow-privileged=false --profiling=false
  wait_for "the API server" 90 api /readyz
  launch kube-controller-manager "$bin/kube-controller-manager" --kubeconfig="$K/controller-manager.kubeconfig" \
    --authentication-kubeconfig="$K/controller-manager.kubeconfig" \
    --authorization-kubeconfig="$K/controller-manager.kubeconfig" --bind-address=127.0.0.1 --port=0 \
    --secure-port="$KCM_PORT" --leader-elect=false --service-account-private-key-file="$K/pki/sa.key" \
    --root-ca-file="$K/pki/ca.crt" --use-service-account-credentials=true --profiling=false
  launch kube-scheduler "$bin/kube-scheduler" --kubeconfig="$K/scheduler.kubeconfig" \
    --authentication-kubeconfig="$K/scheduler.kubeconfig" --authorization-kubeconfig="$K/scheduler.kubeconfig" \
    --bind-address=127.0.0.1 --port=0 --secure-port="$SCHEDULER_PORT" --leader-elect=false --profiling=false
  wait_for "containerd" 30 ctr_ version
  import_pause_image "$bin"
  launch kubelet "$bin/kubelet" --config="$K/kubelet.yaml" --kubeconfig="$K/kubelet.kubeconfig" \
    --container-runtime=remote --container-runtime-endpoint="unix://$K/containerd/containerd.sock" \
    --hostname-override="$NODE" --root-dir="$K/kubelet" --cert-dir="$K/kubelet/pki" \
    --pod-infra-container-image="$PAUSE_IMAGE"
}

# --- images ---------------------------------------------------------------------------------------------------------

# grep reads the whole list: with pipefail, grep -q quitting early would fail ctr with SIGPIPE.
has_image() { ctr_ images ls -q | grep -xF "$1" >/dev/null; }

# The pause binary from the same source tree as a one-layer docker-archive (what ctr imports), made with tar alone.
import_pause_image() {
  has_image "$PAUSE_IMAGE" && return 0
  local dir layer config name
  dir=$(mktemp -d)
  mkdir -p "$dir/rootfs" "$dir/image"
  cp "$1/pause" "$dir/rootfs/pause"
  tar -C "$dir/rootfs" --owner=0 --group=0 --numeric-owner -cf "$dir/image/layer.tar" pause
  layer=$(sha256sum "$dir/image/layer.tar" | cut -d' ' -f1)
  config="{\"architecture\":\"$(dpkg --print-architecture)\",\"os\":\"linux\",\"config\":{\"Entrypoint\":[\"/pause\"]},\"rootfs\":{\"type\":\"layers\",\"diff_ids\":[\"sha256:$layer\"]}}"
  name="$(printf '%s' "$config" | sha256sum | cut -d' ' -f1).json"
  printf '%s' "$config" > "$dir/image/$name"
  printf '[{"Config":"%s","RepoTags":["%s"],"Layers":["layer.tar"]}]' "$name" "$PAUSE_IMAGE" > "$dir/image/manifest.json"
  tar -C "$dir/image" -cf "$dir/pause.tar" manifest.json "$name" layer.tar
  ctr_ images import "$dir/pause.tar" >&2
  rm -rf "$dir"
  has_image "$PAUSE_IMAGE" || fail "containerd did not keep $PAUSE_IMAGE"
}

sandbox_image_tag() {
  local tag="${1:-${SANDBOX_IMAGE:-}}"
  if [ -z "$tag" ]; then
    log "asking npm run sandbox:image for the sandbox image's tag (builds it when its inputs changed)"
    eval "$(bash scripts/setup/podman.sh | tail -n 1 | sed 's/^/export /')"
    tag=$(npm run --silent sandbox:image | tail -n 1)
  fi
  [ -n "$tag" ] || fail "no sandbox image tag"
  echo "$tag"
}

# Podman's docker-archive of the image, imported into containerd's k8s.io namespace (pods use it with
# imagePullPolicy: Never; there is no registry).
import_sandbox_image() {
  local tag=$1 archive
  has_image "$tag" && return 0
  podman image exists "$tag" || fail "Podman has no image $tag (npm run sandbox:image builds it)"
  archive=$(mktemp /var/tmp/sitewright-sandbox-image.XXXXXX.tar)
  log "importing $tag into containerd"
  rm -f "$archive"
  podman save --format docker-archive -o "$archive" "$tag" >&2
  ctr_ images import "$archive" >&2 || { rm -f "$archive"; fail "ctr could not import $tag"; }
  rm -f "$archive"
  has_image "$tag" || fail "containerd did not keep $tag"
}

# --- the namespace, the sitewright user, readiness ------------------------------------------------------------------

node_ready() {
  [ "$(kctl get node "$NODE" -o 'jsonpath={.status.conditions[?(@.type=="Ready")].status}' 2>/dev/null)" = True ]
}

# A pod from the pause image, hardened as sandboxes are: the node runs pods, the network plugin gives addresses.
check_pod() {
  kctl -n default delete pod harness-check --ignore-not-found --grace-period=0 --force >/dev/null 2>&1 || true
  kctl -n default apply -f - >/dev/null <<EOF
apiVersion: v1
kind: Pod
metadata: {name: harness-check}
spec:
  automountServiceAccountToken: false
  enableServiceLinks: false
  activeDeadlineSeconds: 120
  securityContext: {runAsUser: 65534, runAsGroup: 65534, runAsNonRoot: true}
  containers:
  - name: pause
    image: $PAUSE_IMAGE
    imagePullPolicy: Never
    securityContext: {allowPrivilegeEscalation: false, readOnlyRootFilesystem: true, capabilities: {drop: [ALL]}}
    resources: {requests: {cpu: 10m, memory: 8Mi}, limits: {cpu: 50m, memory: 16Mi}}
EOF
  wait_for "a running test pod" 90 pod_running default harness-check
  local ip
  ip=$(kctl -n default get pod harness-check -o 'jsonpath={.status.podIP}')
  log "a test pod ran at $ip ($(elapsed))"
  kctl -n default delete pod harness-check --grace-period=0 --force >/dev/null 2>&1 || true
}

pod_running() { [ "$(kctl -n "$1" get pod "$2" -o 'jsonpath={.status.phase}' 2>/dev/null)" = Running ]; }

apply_namespace() {
  kctl apply -f scripts/setup/kubernetes-sandboxes.yaml >/dev/null
  wait_for "the default service account of $NAMESPACE" 60 kctl -n "$NAMESPACE" get serviceaccount default
  kctl -n "$NAMESPACE" patch serviceaccount default -p '{"automountServiceAccountToken": false}' >/dev/null
  local as_sitewright=("$RUNTIME/usr/bin/kubectl" --kubeconfig "$K/sitewright.kubeconfig")
  [ "$("${as_sitewright[@]}" auth can-i create pods/exec -n "$NAMESPACE")" = yes ] ||
    fail "the sitewright user cannot exec into pods in $NAMESPACE"
  [ "$("${as_sitewright[@]}" auth can-i list pods -n default 2>/dev/null)" = no ] ||
    fail "the sitewright user can list pods outside $NAMESPACE"
}

# --- commands -------------------------------------------------------------------------------------------------------

healthy() {
  local name
  for name in "${PROCESSES[@]}"; do pid_of "$name" >/dev/null || return 1; done
  api /readyz >/dev/null 2>&1 && node_ready
}

start() {
  ensure_packages
  [ "$(cat /proc/sys/net/bridge/bridge-nf-call-iptables 2>/dev/null)" = 1 ] ||
    bash scripts/setup/sandbox-network.sh
  [ "$(cat /proc/sys/net/bridge/bridge-nf-call-iptables 2>/dev/null)" = 1 ] ||
    fail "bridged pod traffic does not pass through iptables (br_netfilter): pods could reach each other"
  local image bin
  image=$(sandbox_image_tag "${1:-}")
  RUNTIME=$(runtime_root)
  if healthy; then
    log "already running"
  else
    bin=$(server_bin)
    stop_cluster quiet
    mkdir -p "$K"
    make_pki
    make_kubeconfigs
    write_configs
    # The host firewall for the pod network (it is the same chain the Podman sandboxes use).
    bash scripts/setup/sandbox-network.sh
    log "starting (binaries: $bin)"
    start_processes "$bin"
    # While the kubelet registers the node.
    import_sandbox_image "$image"
    wait_for "the node $NODE Ready" 120 node_ready
    log "node $NODE Ready ($(elapsed))"
  fi
  import_sandbox_image "$image"
  apply_namespace
  check_pod
  log "ready in $(elapsed); sandbox image $image; admin: KUBECONFIG=$K/admin.kubeconfig"
  echo "KUBECONFIG=$K/sitewright.kubeconfig"
}

# The pids given; waits up to 10 s for them to end after SIGTERM, then kills what is left.
end_processes() {
  local pid left
  [ $# -gt 0 ] || return 0
  kill "$@" 2>/dev/null || true
  for _ in $(seq 1 100); do
    left=0
    for pid in "$@"; do [ -d "/proc/$pid" ] && left=1; done
    [ $left = 0 ] && return 0
    sleep 0.1
  done
  kill -9 "$@" 2>/dev/null || true
}

stop_cluster() {
  local quiet=${1:-} pid name netns=() id
  [ -d "$K" ] || return 0
  # The kubelet first, so it restarts nothing.
  pid=$(pid_of kubelet) && end_processes "$pid"
  # The pods' network namespaces (named in their OCI specs), before their state goes.
  mapfile -t netns < <(grep -rhoE '/var/run/netns/cni-[0-9a-f-]+' "$K/containerd/state" 2>/dev/null | sort -u)
  if [ -d "$K/containerd/runc/k8s.io" ]; then
    for id in $(runc --root "$K/containerd/runc/k8s.io" list -q 2>/dev/null); do
      runc --root "$K/containerd/runc/k8s.io" kill "$id" KILL 2>/dev/null || true
      runc --root "$K/containerd/runc/k8s.io" delete -f "$id" 2>/dev/null || true
    done
  fi
  # The shims of our containerd (named by its socket on their command lines), and the other processes.
  local pids=()
  mapfile -t pids < <(pgrep -f -- "containerd-shim-runc-v2 .*-address $K/containerd/containerd.sock" || true)
  for name in kube-scheduler kube-controller-manager kube-apiserver containerd etcd; do
    pid=$(pid_of "$name") && pids+=("$pid")
  done
  end_processes "${pids[@]}"
  # Everything mounted under $K (overlay roots, memory-backed emptyDirs, the kubelet's own bind mount), deepest first.
  awk -v k="$K" '$2 == k || index($2, k "/") == 1 {print $2}' /proc/mounts | sort -r | while read -r mount; do
    umount "$mount" 2>/dev/null || umount -l "$mount" 2>/dev/null || true
  done
  for id in "${netns[@]}"; do umount "$id" 2>/dev/null || true; rm -f "$id"; done
  ip link del "$POD_BRIDGE" 2>/dev/null || true
  # The kubelet's pod cgroups, in every hierarchy, deepest first (empty once their processes are gone).
  find /sys/fs/cgroup/*/kubepods -depth -type d -exec rmdir {} + 2>/dev/null || true
  rm -rf "$K/etcd" "$K/containerd" "$K/kubelet" "$K/cni-ipam" "$K/run"
  # What the kubelet and containerd write outside their directories.
  rm -rf /var/log/pods /var/log/containers /var/lib/kubelet/device-plugins
  rmdir /var/lib/kubelet 2>/dev/null || true
  [ -n "$quiet" ] || log "stopped (state removed; PKI, kubeconfigs and logs kept in $K)"
}

status() {
  local name pid ok=0
  RUNTIME=$(find "$CACHE/kubernetes-runtime" -mindepth 2 -maxdepth 2 -name root -type d 2>/dev/null | sort | tail -n 1)
  for name in "${PROCESSES[@]}"; do
    if pid=$(pid_of "$name"); then echo "$name: running (pid $pid)"; else echo "$name: not running"; ok=1; fi
  done
  if [ -f "$K/pki/tokens.csv" ] && api /readyz >/dev/null 2>&1; then echo "API: ready on https://127.0.0.1:$API_PORT"; else
    echo "API: not answering"
    return 1
  fi
  if node_ready; then echo "node $NODE: Ready"; else echo "node $NODE: not Ready"; ok=1; fi
  [ $ok = 0 ] && echo "KUBECONFIG=$K/sitewright.kubeconfig"
  return $ok
}

case "${1:-start}" in
  start) start "${2:-}" ;;
  stop) stop_cluster ;;
  status) status ;;
  *) fail "usage: kubernetes.sh [start [IMAGE]|stop|status]" ;;
esac
