#!/usr/bin/env bash
# A real Kubernetes node on this machine for the node test: containerd (Debian's, its own config,
# socket and state under the node directory), the kubelet v1.33 built by install-tools.sh with the
# static CPU manager and reserved CPU, and a bridge CNI network. It joins the control plane that
# control-plane.sh started.
#
#   node.sh start <control-plane dir> <node dir>   start containerd and the kubelet; wait until Ready
#   node.sh import <node dir> <oci archive>        import an image into the node's containerd
#   node.sh stop <node dir>                        stop everything, leave nothing behind
#
# Nothing is written outside <node dir> but what a node must have (cgroups, mounts, the bridge
# interface, /var/log/containers links); stop removes those too. See
# ../shared/notes/kubernetes-real-node.md for the facts this follows.
set -euo pipefail

cmd="${1:?start|import|stop}"
BIN="${MDFANOUT_CACHE:-$HOME/.cache/mdfanout}/k8s/bin"
CACHE="${MDFANOUT_CACHE:-$HOME/.cache/mdfanout}/k8s"
NODE_NAME="${NODE_NAME:-mdfanout-real-node}"
PAUSE_IMAGE="localhost/mdfanout-pause:3.10"
BRIDGE="${NODE_BRIDGE:-mdfnode0}"
POD_CIDR="${NODE_POD_CIDR:-10.88.77.0/24}"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
export CONTAINERS_CONF="${MDFANOUT_CONTAINERS_CONF:-$here/../image/containers.conf}"

log() { echo "node: $*" >&2; }

node_ip() {
  # The kubelet's node IP cannot be loopback: the address of the interface the default route uses.
  local dev
  dev="$(ip -4 route show default | awk '{for (i = 1; i < NF; i++) if ($i == "dev") print $(i + 1); exit}')"
  ip -4 -o addr show dev "${dev:-eth0}" | awk '{split($4, a, "/"); print a[1]; exit}'
}

ctr_() { ctr --address "$dir/containerd/containerd.sock" --namespace k8s.io "$@"; }

# The sandbox image: a static pause program on scratch, built once, kept as an OCI archive.
pause_archive() {
  local archive="$CACHE/pause-oci.tar"
  if [ ! -s "$archive" ]; then
    log "building the pause image (once)"
    local build
    build="$(mktemp -d)"
    (cd "$here/pause" && CGO_ENABLED=0 go build -ldflags "-s -w" -o "$build/pause" pause.go)
    printf 'FROM scratch\nCOPY pause /pause\nENTRYPOINT ["/pause"]\n' > "$build/Containerfile"
    podman build -q -t "$PAUSE_IMAGE" -f "$build/Containerfile" "$build" >/dev/null
    podman save --format oci-archive -o "$archive.tmp" "$PAUSE_IMAGE" >/dev/null
    podman rmi -f "$PAUSE_IMAGE" >/dev/null 2>&1 || true
    mv "$archive.tmp" "$archive"
    rm -rf "$build"
  fi
  echo "$archive"
}

containerd_config() {
  containerd config default | python3 -c '
import re, sys
root, pause, cni_conf = sys.argv[1:4]
s = sys.stdin.read()
def set_key(s, key, value):
    new, n = re.subn(r"(?m)^(\s*)" + re.escape(key) + r" = .*$", lambda m: m.group(1) + key + " = " + value, s, count=1)
    if n != 1:
        sys.exit("containerd config: no key " + key)
    return new
s = set_key(s, "root", "\"%s/root\"" % root)
s = set_key(s, "state", "\"%s/state\"" % root)
s = re.sub(r"(?m)^(\[grpc\]\n(?:.*\n)*?\s*)address = .*$", lambda m: m.group(1) + "address = \"%s/containerd.sock\"" % root, s, count=1)
s = re.sub(r"(?m)^(\[ttrpc\]\n(?:.*\n)*?\s*)address = .*$", lambda m: m.group(1) + "address = \"%s/containerd-ttrpc.sock\"" % root, s, count=1)
s = re.sub(r"(?m)^(\[debug\]\n(?:.*\n)*?\s*)address = .*$", lambda m: m.group(1) + "address = \"%s/containerd-debug.sock\"" % root, s, count=1)
s = set_key(s, "sandbox_image", "\"%s\"" % pause)
# Root here lacks CAP_SYS_RESOURCE: without this every sandbox fails in runc.
s = set_key(s, "restrict_oom_score_adj", "true")
# Pod network namespaces under the node'"'"'s state directory, not /run/netns: a sandbox the stop finds still running is
# unmounted with the node'"'"'s other mounts (its veth goes with it), and the teardown check sees any left.
s = set_key(s, "netns_mounts_under_state_dir", "true")
s = set_key(s, "bin_dir", "\"/usr/lib/cni\"")
s = set_key(s, "conf_dir", "\"%s\"" % cni_conf)
s = re.sub(r"(?m)^(\s*)address = \"/run/containerd/containerd.sock\"$", lambda m: m.group(1) + "address = \"%s/containerd.sock\"" % root, s)
print(s)
' "$dir/containerd" "$PAUSE_IMAGE" "$dir/cni/net.d"
}

start() {
  local plane="${2:?control plane dir}"
  dir="${3:?node dir}"
  stop_node 2>/dev/null || true
  rm -rf "$dir"
  mkdir -p "$dir/containerd" "$dir/cni/net.d" "$dir/cni/networks" "$dir/kubelet" "$dir/pki" "$dir/pod-logs"
  local archive ip
  archive="$(pause_archive)"
  ip="$(node_ip)"
  [ -n "$ip" ] || { log "no node IP: no default route"; exit 1; }

  # ---- CNI: one bridge network, its address files under the node dir. The bridge is made here, with the gateway's
  # address the plugin would give it, so that a process on the node's own network (a test exchange) can send multicast
  # into the pod network before the first pod joins it. Snooping off: multicast floods the bridge's ports, as no IGMP
  # querier here would keep a snooping table fresh.
  ip link add "$BRIDGE" type bridge mcast_snooping 0 2>/dev/null || true
  ip addr replace "${POD_CIDR%.*}.1/${POD_CIDR#*/}" dev "$BRIDGE"
  ip link set "$BRIDGE" up
  cat > "$dir/cni/net.d/10-mdfanout-node.conflist" <<CNI
{
  "cniVersion": "1.0.0",
  "name": "mdfanout-node",
  "plugins": [
    {"type": "bridge", "bridge": "$BRIDGE", "isGateway": true, "ipMasq": false,
     "ipam": {"type": "host-local", "dataDir": "$dir/cni/networks", "ranges": [[{"subnet": "$POD_CIDR"}]],
              "routes": [{"dst": "0.0.0.0/0"}]}}
  ]
}
CNI

  # ---- containerd
  containerd_config > "$dir/containerd/config.toml"
  log "containerd ($(containerd --version | awk '{print $3}')), socket $dir/containerd/containerd.sock"
  containerd --config "$dir/containerd/config.toml" >"$dir/containerd.log" 2>&1 &
  echo $! > "$dir/containerd.pid"
  for _ in $(seq 1 50); do
    ctr_ version >/dev/null 2>&1 && break
    sleep 0.2
  done
  ctr_ version >/dev/null || { log "containerd did not start: $dir/containerd.log"; tail -20 "$dir/containerd.log" >&2; exit 1; }
  ctr_ images import "$archive" >/dev/null
  ctr_ images ls -q | grep -x "$PAUSE_IMAGE" >/dev/null || { log "pause image not imported as $PAUSE_IMAGE"; ctr_ images ls -q >&2; exit 1; }

  # ---- the kubelet's identity: a client certificate for system:node:<name> from the control plane's CA
  local pki="$dir/pki"
  openssl req -newkey rsa:2048 -nodes -keyout "$pki/kubelet.key" -out "$pki/kubelet.csr" \
    -subj "/O=system:nodes/CN=system:node:$NODE_NAME" 2>/dev/null
  openssl x509 -req -in "$pki/kubelet.csr" -CA "$plane/pki/ca.crt" -CAkey "$plane/pki/ca.key" -CAcreateserial \
    -out "$pki/kubelet.crt" -days 2 2>/dev/null
  local server
  server="$(awk '/server:/ {gsub(/[",}]/, ""); for (i = 1; i <= NF; i++) if ($i ~ /^https:/) print $i}' "$plane/kubeconfig" | head -1)"
  "$here/kubeconfig.sh" "$server" "$plane/pki/ca.crt" "$pki/kubelet.crt" "$pki/kubelet.key" kubelet \
    "$dir/kubelet.kubeconfig"

  # ---- the kubelet: static CPU manager, CPU reserved for the system (the shared pool keeps CPU 0)
  cat > "$dir/kubelet.yaml" <<KUBELET
apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
cgroupDriver: cgroupfs
failCgroupV1: false
failSwapOn: false
containerRuntimeEndpoint: unix://$dir/containerd/containerd.sock
cpuManagerPolicy: static
cpuManagerReconcilePeriod: 5s
topologyManagerPolicy: best-effort
kubeReserved: {cpu: 100m, memory: 256Mi}
authentication:
  anonymous: {enabled: false}
  webhook: {enabled: false}
  x509: {clientCAFile: "$plane/pki/ca.crt"}
authorization: {mode: AlwaysAllow}
readOnlyPort: 0
healthzPort: ${KUBELET_HEALTHZ_PORT:-10248}
port: ${KUBELET_PORT:-10250}
makeIPTablesUtilChains: false
podLogsDir: $dir/pod-logs
evictionHard: {memory.available: 200Mi, nodefs.available: 1%, imagefs.available: 1%}
imageGCHighThresholdPercent: 100
imageGCLowThresholdPercent: 99
serializeImagePulls: false
resolvConf: /etc/resolv.conf
KUBELET
  log "kubelet $("$BIN/kubelet" --version | awk '{print $2}') as $NODE_NAME on $ip, static CPU manager"
  "$BIN/kubelet" --config "$dir/kubelet.yaml" --kubeconfig "$dir/kubelet.kubeconfig" --root-dir "$dir/kubelet" \
    --cert-dir "$pki" --node-ip "$ip" --hostname-override "$NODE_NAME" \
    --node-labels "node-role.mdfanout.io/low-latency=true,mdfanout.io/real-node=true" \
    >"$dir/kubelet.log" 2>&1 &
  echo $! > "$dir/kubelet.pid"
  local k="kubectl --kubeconfig $plane/kubeconfig"
  for _ in $(seq 1 90); do
    [ "$($k get node "$NODE_NAME" -o jsonpath='{.status.conditions[?(@.type=="Ready")].status}' 2>/dev/null)" = True ] && break
    kill -0 "$(cat "$dir/kubelet.pid")" 2>/dev/null || { log "the kubelet exited: $dir/kubelet.log"; tail -30 "$dir/kubelet.log" >&2; exit 1; }
    sleep 1
  done
  [ "$($k get node "$NODE_NAME" -o jsonpath='{.status.conditions[?(@.type=="Ready")].status}')" = True ] \
    || { log "node not Ready: $dir/kubelet.log"; tail -30 "$dir/kubelet.log" >&2; exit 1; }
  log "node $NODE_NAME Ready: allocatable cpu $($k get node "$NODE_NAME" -o jsonpath='{.status.allocatable.cpu}')"
}

import() {
  dir="${2:?node dir}"
  local archive="${3:?oci archive}"
  ctr_ images import "$archive" >/dev/null
}

stop_node() {
  [ -n "${dir:-}" ] && [ -d "$dir" ] || return 0
  # The kubelet first, so that it restarts nothing; then every container and sandbox it left.
  if [ -f "$dir/kubelet.pid" ]; then
    kill "$(cat "$dir/kubelet.pid")" 2>/dev/null || true
    sleep 1
    kill -9 "$(cat "$dir/kubelet.pid")" 2>/dev/null || true
    rm -f "$dir/kubelet.pid"
  fi
  if [ -S "$dir/containerd/containerd.sock" ]; then
    for task in $(ctr_ tasks ls -q 2>/dev/null); do
      ctr_ tasks kill -s SIGKILL "$task" >/dev/null 2>&1 || true
    done
    sleep 1
    for task in $(ctr_ tasks ls -q 2>/dev/null); do
      ctr_ tasks delete -f "$task" >/dev/null 2>&1 || true
    done
    for container in $(ctr_ containers ls -q 2>/dev/null); do
      ctr_ containers delete "$container" >/dev/null 2>&1 || true
    done
  fi
  if [ -f "$dir/containerd.pid" ]; then
    kill "$(cat "$dir/containerd.pid")" 2>/dev/null || true
    sleep 1
    kill -9 "$(cat "$dir/containerd.pid")" 2>/dev/null || true
    rm -f "$dir/containerd.pid"
  fi
  # Shims outlive containerd: end those of this node's containerd.
  pkill -9 -f "containerd-shim.*$dir/containerd" 2>/dev/null || true
  # Mounts under the node dir (the kubelet's bind mount of its root, pod volumes, container rootfs, sandbox
  # /dev/shm), deepest first.
  findmnt -rn -o TARGET | grep -F "$dir/" | sort -r | while read -r target; do
    umount -l "$target" 2>/dev/null || true
  done
  findmnt -rn -o TARGET | grep -xF "$dir/kubelet" >/dev/null && umount -l "$dir/kubelet" 2>/dev/null || true
  # The cgroups the kubelet made (kubepods under every controller); empty once the processes are gone.
  for controller in /sys/fs/cgroup/*/; do
    [ -d "$controller/kubepods" ] && find "$controller/kubepods" -depth -type d -exec rmdir {} + 2>/dev/null || true
  done
  [ -d /sys/fs/cgroup/kubepods ] && find /sys/fs/cgroup/kubepods -depth -type d -exec rmdir {} + 2>/dev/null || true
  ip link del "$BRIDGE" 2>/dev/null || true
  for link in /var/log/containers/*; do
    [ -L "$link" ] && readlink "$link" | grep -F "$dir/" >/dev/null && rm -f "$link"
  done
  rm -rf "$dir"
}

case "$cmd" in
  start) start "$@" ;;
  import) import "$@" ;;
  stop) dir="${2:?node dir}"; stop_node ;;
  *) echo "usage: $0 start <control plane dir> <node dir> | import <node dir> <archive> | stop <node dir>" >&2; exit 2 ;;
esac
