#!/usr/bin/env bash
# A real, local Kubernetes control plane for the chart tests: etcd, kube-apiserver,
# kube-controller-manager and kube-scheduler v1.33 (built by install-tools.sh) and kwok, which
# plays the kubelets of fake nodes so that pods are scheduled and reach Running.
#
#   control-plane.sh start <dir>   start everything, write <dir>/kubeconfig, wait until ready
#   control-plane.sh stop <dir>    stop everything started from <dir>
#
# A real node (node.sh: containerd and a kubelet) can join: the API server reaches kubelets with the
# admin certificate (kubectl logs and exec).
# Nodes: NODES (default 2) nodes named mdfanout-node-<i> with NODE_CPUS CPUs, NODE_MEMORY and
# 2 GiB of 2 MiB hugepages, labelled and tainted as low-latency nodes are in the chart's README.
set -euo pipefail

cmd="${1:?start|stop}"
dir="${2:?state directory}"
BIN="${MDFANOUT_CACHE:-$HOME/.cache/mdfanout}/k8s/bin"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
NODES="${NODES:-2}"
NODE_CPUS="${NODE_CPUS:-16}"
NODE_MEMORY="${NODE_MEMORY:-64Gi}"
PORT="${APISERVER_PORT:-16443}"
ETCD_PORT="${ETCD_PORT:-12379}"

log() { echo "control-plane: $*" >&2; }

stop() {
  for name in kwok kube-scheduler kube-controller-manager kube-apiserver etcd; do
    if [ -f "$dir/$name.pid" ]; then
      kill "$(cat "$dir/$name.pid")" 2>/dev/null || true
    fi
  done
  sleep 1
  for name in kwok kube-scheduler kube-controller-manager kube-apiserver etcd; do
    if [ -f "$dir/$name.pid" ]; then
      kill -9 "$(cat "$dir/$name.pid")" 2>/dev/null || true
      rm -f "$dir/$name.pid"
    fi
  done
}

certs() {
  local pki="$dir/pki"
  mkdir -p "$pki"
  cd "$pki"
  openssl req -x509 -newkey rsa:2048 -nodes -keyout ca.key -out ca.crt -days 2 -subj "/CN=mdfanout-test-ca" 2>/dev/null
  cat > apiserver.ext <<EXT
subjectAltName=DNS:localhost,DNS:kubernetes,DNS:kubernetes.default,DNS:kubernetes.default.svc,IP:127.0.0.1,IP:10.96.0.1
EXT
  openssl req -newkey rsa:2048 -nodes -keyout apiserver.key -out apiserver.csr -subj "/CN=kube-apiserver" 2>/dev/null
  openssl x509 -req -in apiserver.csr -CA ca.crt -CAkey ca.key -CAcreateserial -out apiserver.crt -days 2 -extfile apiserver.ext 2>/dev/null
  openssl req -newkey rsa:2048 -nodes -keyout admin.key -out admin.csr -subj "/O=system:masters/CN=admin" 2>/dev/null
  openssl x509 -req -in admin.csr -CA ca.crt -CAkey ca.key -CAcreateserial -out admin.crt -days 2 2>/dev/null
  openssl genrsa -out sa.key 2048 2>/dev/null
  openssl rsa -in sa.key -pubout -out sa.pub 2>/dev/null
  cd - >/dev/null
  "$here/kubeconfig.sh" "https://127.0.0.1:$PORT" "$pki/ca.crt" "$pki/admin.crt" \
    "$pki/admin.key" admin "$dir/kubeconfig"
}

start() {
  stop
  rm -rf "$dir"
  mkdir -p "$dir"
  certs
  local pki="$dir/pki"
  log "etcd on 127.0.0.1:$ETCD_PORT"
  etcd --data-dir "$dir/etcd" --listen-client-urls "http://127.0.0.1:$ETCD_PORT" \
    --advertise-client-urls "http://127.0.0.1:$ETCD_PORT" --listen-peer-urls "http://127.0.0.1:$((ETCD_PORT + 1))" \
    --initial-advertise-peer-urls "http://127.0.0.1:$((ETCD_PORT + 1))" \
    --initial-cluster "default=http://127.0.0.1:$((ETCD_PORT + 1))" >"$dir/etcd.log" 2>&1 &
  echo $! > "$dir/etcd.pid"

  log "kube-apiserver on 127.0.0.1:$PORT"
  "$BIN/kube-apiserver" --etcd-servers "http://127.0.0.1:$ETCD_PORT" --bind-address 127.0.0.1 \
    --secure-port "$PORT" --advertise-address 127.0.0.1 \
    --tls-cert-file "$pki/apiserver.crt" --tls-private-key-file "$pki/apiserver.key" \
    --client-ca-file "$pki/ca.crt" --service-account-key-file "$pki/sa.pub" \
    --service-account-signing-key-file "$pki/sa.key" --service-account-issuer https://kubernetes.default.svc \
    --service-cluster-ip-range 10.96.0.0/16 --authorization-mode RBAC,Node \
    --enable-admission-plugins NamespaceLifecycle,ServiceAccount,DefaultStorageClass,ResourceQuota,LimitRanger,Priority \
    --kubelet-client-certificate "$pki/admin.crt" --kubelet-client-key "$pki/admin.key" \
    --kubelet-preferred-address-types InternalIP,Hostname \
    >"$dir/kube-apiserver.log" 2>&1 &
  echo $! > "$dir/kube-apiserver.pid"

  chmod 600 "$dir/kubeconfig"
  local k="kubectl --kubeconfig $dir/kubeconfig"
  for _ in $(seq 1 120); do
    $k get --raw /readyz >/dev/null 2>&1 && break
    sleep 1
  done
  $k get --raw /readyz >/dev/null || { log "kube-apiserver not ready: see $dir/kube-apiserver.log"; tail -20 "$dir/kube-apiserver.log" >&2; exit 1; }

  log "kube-controller-manager, kube-scheduler"
  "$BIN/kube-controller-manager" --kubeconfig "$dir/kubeconfig" --authentication-kubeconfig "$dir/kubeconfig" \
    --authorization-kubeconfig "$dir/kubeconfig" --bind-address 127.0.0.1 --secure-port 0 \
    --service-account-private-key-file "$pki/sa.key" --root-ca-file "$pki/ca.crt" \
    --use-service-account-credentials=false --controllers '*,-nodeipam,-ttl' \
    --leader-elect=false >"$dir/kube-controller-manager.log" 2>&1 &
  echo $! > "$dir/kube-controller-manager.pid"
  "$BIN/kube-scheduler" --kubeconfig "$dir/kubeconfig" --authentication-kubeconfig "$dir/kubeconfig" \
    --authorization-kubeconfig "$dir/kubeconfig" --bind-address 127.0.0.1 --secure-port 0 \
    --leader-elect=false >"$dir/kube-scheduler.log" 2>&1 &
  echo $! > "$dir/kube-scheduler.pid"

  log "kwok for $NODES fake nodes"
  "$BIN/kwok" --kubeconfig "$dir/kubeconfig" --config "$BIN/../kwok-stages.yaml" --manage-all-nodes=false \
    --manage-nodes-with-annotation-selector=kwok.x-k8s.io/node=fake \
    --cidr 10.244.0.0/16 --node-ip 10.0.0.1 >"$dir/kwok.log" 2>&1 &
  echo $! > "$dir/kwok.pid"

  for i in $(seq 1 "$NODES"); do
    cat <<NODE | $k apply -f - >/dev/null
apiVersion: v1
kind: Node
metadata:
  name: mdfanout-node-$i
  annotations: {kwok.x-k8s.io/node: fake}
  labels:
    kubernetes.io/hostname: mdfanout-node-$i
    kubernetes.io/os: linux
    kubernetes.io/arch: amd64
    type: kwok
    node-role.mdfanout.io/low-latency: "true"
spec: {}
status:
  allocatable: {cpu: "$NODE_CPUS", memory: $NODE_MEMORY, pods: "110", hugepages-2Mi: 2Gi}
  capacity: {cpu: "$NODE_CPUS", memory: $NODE_MEMORY, pods: "110", hugepages-2Mi: 2Gi}
NODE
  done
  for _ in $(seq 1 60); do
    ready=$($k get nodes --no-headers 2>/dev/null | grep -c " Ready" || true)
    [ "$ready" -ge "$NODES" ] && break
    sleep 1
  done
  $k get nodes >&2
  # The default service account the pods use (the token controller creates its token).
  for _ in $(seq 1 60); do
    $k get serviceaccount default >/dev/null 2>&1 && break
    sleep 1
  done
  log "ready: KUBECONFIG=$dir/kubeconfig"
}

case "$cmd" in
  start) start ;;
  stop) stop ;;
  *) echo "usage: $0 start|stop <dir>" >&2; exit 2 ;;
esac
