#!/usr/bin/env bash
# Installs what the chart tests need, idempotently, into ~/.cache/mdfanout/k8s:
#   helm v3.16.4, kwok v0.8.0, and kube-apiserver, kube-controller-manager, kube-scheduler
#   v1.33.13 built from source (no binaries can be downloaded here, the Go module proxy can),
#   plus etcd from Debian; for the real node (node-test.sh) the kubelet v1.33.13 built the same way,
#   containerd, runc and the CNI plugins from Debian, and Prometheus 2.42 with Kubernetes service discovery. A second run finds everything in place and returns at once.
set -euo pipefail

K8S_VERSION=v1.33.13
STAGING_VERSION=v0.33.13
HELM_VERSION=v3.16.4
KWOK_VERSION=v0.8.0
CACHE="${MDFANOUT_CACHE:-$HOME/.cache/mdfanout}/k8s"
BIN="$CACHE/bin"
mkdir -p "$BIN"
export GOBIN="$BIN" GOFLAGS="${GOFLAGS:-} -mod=mod" CGO_ENABLED=0

log() { echo "k8s-tools: $*" >&2; }

if ! command -v etcd >/dev/null 2>&1; then
  log "installing etcd (Debian etcd-server)"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq etcd-server >/dev/null
fi

if ! command -v containerd >/dev/null 2>&1 || ! command -v runc >/dev/null 2>&1 || [ ! -x /usr/lib/cni/bridge ]; then
  log "installing containerd, runc and the CNI plugins (Debian)"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq containerd runc containernetworking-plugins >/dev/null
fi

# Prometheus 2.42 (module v0.42.0) built from source: Debian's package leaves out the Kubernetes service
# discovery the node test scrapes the pods with. The module's replace directives apply only when it is the
# main module, so it is built from a copy of its source.
if [ ! -x "$BIN/prometheus" ]; then
  log "building prometheus v2.42.0 with Kubernetes service discovery (first run only: about 2 minutes)"
  src="$(go mod download -json github.com/prometheus/prometheus@v0.42.0 | sed -n 's/.*"Dir": "\(.*\)".*/\1/p')"
  build="$(mktemp -d)"
  cp -r "$src/." "$build/" && chmod -R u+w "$build"
  (cd "$build" && go build -ldflags "-s -w -X github.com/prometheus/common/version.Version=2.42.0" -o "$BIN/prometheus" ./cmd/prometheus)
  rm -rf "$build"
fi

if [ ! -x "$BIN/helm" ]; then
  log "building helm $HELM_VERSION"
  go install "helm.sh/helm/v3/cmd/helm@$HELM_VERSION"
fi

if [ ! -x "$BIN/kwok" ]; then
  log "building kwok $KWOK_VERSION"
  go install "sigs.k8s.io/kwok/cmd/kwok@$KWOK_VERSION"
fi
# kwok plays nodes and pods by "stages" it must be given: the fast node and pod stages it ships
# (nodes Ready with heartbeats; pods Ready at once, deleted when asked).
if [ ! -s "$CACHE/kwok-stages.yaml" ]; then
  stages="$(go env GOMODCACHE)/sigs.k8s.io/kwok@$KWOK_VERSION/kustomize/stage"
  [ -d "$stages" ] || go mod download "sigs.k8s.io/kwok@$KWOK_VERSION"
  for stage in node/fast/node-initialize.yaml node/heartbeat/node-heartbeat.yaml \
    pod/fast/pod-ready.yaml pod/fast/pod-complete.yaml pod/fast/pod-delete.yaml; do
    echo "---"
    cat "$stages/$stage"
  done > "$CACHE/kwok-stages.yaml"
fi

need_build=0
for component in kube-apiserver kube-controller-manager kube-scheduler kubelet; do
  [ -x "$BIN/$component" ] || need_build=1
done
if [ "$need_build" = 1 ]; then
  src="$CACHE/src"
  mkdir -p "$src"
  log "building kube-apiserver, kube-controller-manager, kube-scheduler, kubelet $K8S_VERSION (first run only: several minutes)"
  (
    cd "$src"
    {
      echo "module mdfanout.local/k8s-control-plane"
      echo
      echo "go 1.24.0"
      echo
      echo "require k8s.io/kubernetes $K8S_VERSION"
      echo
      echo "replace ("
      for module in api apiextensions-apiserver apimachinery apiserver cli-runtime client-go cloud-provider \
        cluster-bootstrap code-generator component-base component-helpers controller-manager cri-api cri-client \
        csi-translation-lib dynamic-resource-allocation endpointslice externaljwt kms kube-aggregator \
        kube-controller-manager kube-proxy kube-scheduler kubectl kubelet metrics mount-utils \
        pod-security-admission sample-apiserver sample-cli-plugin sample-controller; do
        echo "  k8s.io/$module => k8s.io/$module $STAGING_VERSION"
      done
      echo ")"
    } > go.mod
    cat > tools.go <<'GO'
//go:build tools

package tools

import (
	_ "k8s.io/kubernetes/cmd/kube-apiserver"
	_ "k8s.io/kubernetes/cmd/kube-controller-manager"
	_ "k8s.io/kubernetes/cmd/kube-scheduler"
	_ "k8s.io/kubernetes/cmd/kubelet"
)
GO
    go mod tidy -e >/dev/null 2>&1 || true
    ldflags="-s -w -X k8s.io/component-base/version.gitVersion=$K8S_VERSION -X k8s.io/component-base/version.gitMajor=1 -X k8s.io/component-base/version.gitMinor=33 -X k8s.io/client-go/pkg/version.gitVersion=$K8S_VERSION"
    for component in kube-apiserver kube-controller-manager kube-scheduler kubelet; do
      [ -x "$BIN/$component" ] || go build -ldflags "$ldflags" -o "$BIN/$component" "k8s.io/kubernetes/cmd/$component"
    done
  )
fi
log "ready in $BIN"
