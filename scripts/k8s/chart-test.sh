#!/usr/bin/env bash
# The chart's tests (part of make test):
#  1. helm lint; render every ci/*-values.yaml; validate each rendering offline against the
#     Kubernetes 1.33 schemas (kubernetes-validate, strict: unknown fields are errors);
#  2. invalid values are refused by values.schema.json with a message naming the value;
#  3. a real control plane (control-plane.sh: etcd, kube-apiserver, controller-manager, scheduler,
#     kwok nodes): every rendering passes `kubectl apply --dry-run=server`, then `helm install
#     --wait` of two value sets, and every pod is scheduled, Running, Guaranteed, with exactly the
#     CPU and memory it asked for (requests = limits).
set -euo pipefail
cd "$(dirname "$0")/../.."

BIN="${MDFANOUT_CACHE:-$HOME/.cache/mdfanout}/k8s/bin"
HELM="$BIN/helm"
CHART=charts/mdfanout
work="$(mktemp -d /tmp/mdfanout-chart-test.XXXXXX)"
plane="$work/control-plane"
failures=0

pass() { echo "chart-test: ok - $*"; }
fail() { echo "chart-test: FAIL - $*" >&2; failures=$((failures + 1)); }
cleanup() {
  scripts/k8s/control-plane.sh stop "$plane" >/dev/null 2>&1 || true
  if [ "$failures" = 0 ]; then rm -rf "$work"; else echo "chart-test: logs kept in $work" >&2; fi
}
trap cleanup EXIT

command -v kubernetes-validate >/dev/null || pip install -q --break-system-packages kubernetes-validate >/dev/null 2>&1 \
  || pip install -q kubernetes-validate >/dev/null

# ---- 1. lint, render, offline schema validation ---------------------------------------------
"$HELM" lint --strict "$CHART" >"$work/lint.log" 2>&1 && pass "helm lint --strict" || { cat "$work/lint.log"; fail "helm lint"; }
for values in "$CHART"/ci/*-values.yaml; do
  name="$(basename "$values" -values.yaml)"
  if ! "$HELM" template md "$CHART" -f "$values" >"$work/$name.yaml" 2>"$work/$name.err"; then
    cat "$work/$name.err" >&2; fail "render $name"; continue
  fi
  # The Prometheus operator's kinds have no Kubernetes schema: kubernetes-validate warns about them.
  if kubernetes-validate -k 1.33.0 --strict --quiet --no-warn "$work/$name.yaml" >"$work/$name.validate" 2>&1; then
    pass "render $name: $(grep -c '^kind:' "$work/$name.yaml") objects valid against the Kubernetes 1.33 schema (strict)"
  else
    cat "$work/$name.validate" >&2; fail "schema validation of $name"
  fi
done

# ---- 2. invalid values are refused with a clear message -------------------------------------
refuse() {
  local expected="$1"; shift
  if "$HELM" template md "$CHART" "$@" >"$work/refused.out" 2>&1; then
    fail "accepted invalid values: $*"
  elif grep -q -- "$expected" "$work/refused.out"; then
    pass "refused $* ($(grep -o -- "$expected.*" "$work/refused.out" | head -1 | cut -c1-100))"
  else
    cat "$work/refused.out" >&2; fail "refused $* but without '$expected'"
  fi
}
refuse "partitions" --set 'feeds[0].name=a,feeds[0].partitions=0,feeds[0].lineA.group=239.1.1.1,feeds[0].lineA.port=1,feeds[0].aeron.mode=multicast,feeds[0].aeron.endpoint=224.0.1.1:1,feeds[0].aeron.mtu=8192,feeds[0].aeron.termLength=65536,feeds[0].aeron.streamIdBase=1'
refuse "cpus" --set fanout.cpus=1.5
refuse "memory" --set feedHandler.memory=2GB
refuse "mdcControl" --set 'feeds[0].name=a,feeds[0].partitions=1,feeds[0].lineA.group=239.1.1.1,feeds[0].lineA.port=1,feeds[0].aeron.mode=mdc,feeds[0].aeron.mtu=8192,feeds[0].aeron.termLength=65536,feeds[0].aeron.streamIdBase=1'
refuse "termLength" --set 'feeds[0].name=a,feeds[0].partitions=1,feeds[0].lineA.group=239.1.1.1,feeds[0].lineA.port=1,feeds[0].aeron.mode=multicast,feeds[0].aeron.endpoint=224.0.1.1:1,feeds[0].aeron.mtu=8192,feeds[0].aeron.termLength=1000,feeds[0].aeron.streamIdBase=1'
refuse "name" --set 'feeds[0].name=Bad_Name,feeds[0].partitions=1,feeds[0].lineA.group=239.1.1.1,feeds[0].lineA.port=1,feeds[0].aeron.mode=multicast,feeds[0].aeron.endpoint=224.0.1.1:1,feeds[0].aeron.mtu=8192,feeds[0].aeron.termLength=65536,feeds[0].aeron.streamIdBase=1'
refuse "fanotu" --set fanotu.cpus=2
# A typo in any nested object is refused too, not ignored (additionalProperties: false everywhere).
refuse "maxUnavaliable" --set podDisruptionBudget.maxUnavaliable=1
refuse "inteval" --set metrics.serviceMonitor.inteval=30s
refuse "names no feed" --set subscriberExample.enabled=true,subscriberExample.feed=nope

# Every pod template of the full values carries the pull secret (the subscriber example and the test pod too).
pods="$(grep -c '^kind: \(Deployment\|Pod\)$' "$work/full.yaml" || true)"
secrets="$(grep -c 'imagePullSecrets:' "$work/full.yaml" || true)"
[ "$pods" -gt 0 ] && [ "$pods" = "$secrets" ] && pass "imagePullSecrets on all $pods pod templates of the full values" \
  || fail "imagePullSecrets on $secrets of $pods pod templates"

# ---- 3. a real control plane -----------------------------------------------------------------
scripts/k8s/control-plane.sh start "$plane" >"$work/control-plane.log" 2>&1 \
  || { cat "$work/control-plane.log" >&2; fail "control plane did not start"; exit 1; }
export KUBECONFIG="$plane/kubeconfig"
pass "control plane up: $(kubectl get nodes --no-headers | wc -l) kwok nodes, $(kubectl version -o json 2>/dev/null | grep -o '"gitVersion": "[^"]*"' | tail -1)"

for values in "$CHART"/ci/*-values.yaml; do
  name="$(basename "$values" -values.yaml)"
  # Server-side dry run: the API server's own validation and defaulting, without the operator's CRDs.
  python3 - "$work/$name.yaml" "$work/$name.core.yaml" <<'PY'
import sys
docs = open(sys.argv[1]).read().split('\n---')
keep = [d for d in docs if 'monitoring.coreos.com' not in d]
open(sys.argv[2], 'w').write('\n---'.join(keep))
PY
  if kubectl apply --dry-run=server -n default -f "$work/$name.core.yaml" >"$work/$name.dry-run" 2>&1; then
    pass "kubectl apply --dry-run=server $name ($(grep -c . "$work/$name.dry-run") objects)"
  else
    cat "$work/$name.dry-run" >&2; fail "server dry run of $name"
  fi
done

install_and_check() {
  local release="$1" namespace="$2"; shift 2
  kubectl create namespace "$namespace" >/dev/null
  if ! "$HELM" install "$release" "$CHART" -n "$namespace" --wait --timeout 120s "$@" >"$work/install-$release.log" 2>&1; then
    cat "$work/install-$release.log" >&2
    kubectl get pods -n "$namespace" -o wide >&2 || true
    fail "helm install --wait $release"
    return
  fi
  pass "helm install --wait $release $*"
  kubectl get pods -n "$namespace" -o json >"$work/pods-$release.json"
  if python3 - "$work/pods-$release.json" "$release" <<'PY'
import json, sys
pods = json.load(open(sys.argv[1]))['items']
expected = {  # container -> (cpu, memory): the values the install used
    'feed-handler': None, 'fanout': None, 'book': None}
problems = []
for pod in pods:
    name = pod['metadata']['name']
    if pod['status'].get('phase') != 'Running':
        problems.append(f"{name} is {pod['status'].get('phase')}")
    if not pod['spec'].get('nodeName'):
        problems.append(f"{name} not scheduled")
    if pod['status'].get('qosClass') != 'Guaranteed':
        problems.append(f"{name} QoS {pod['status'].get('qosClass')}")
    for c in pod['spec']['containers']:
        r = c.get('resources', {})
        if r.get('requests') != r.get('limits'):
            problems.append(f"{name}/{c['name']} requests {r.get('requests')} != limits {r.get('limits')}")
        cpu = r.get('requests', {}).get('cpu', '')
        if not (cpu.isdigit() or (cpu.endswith('m') and cpu[:-1].isdigit())):
            problems.append(f"{name}/{c['name']} cpu {cpu!r} is neither whole CPUs nor a millicore fraction")
        print(f"  {name} on {pod['spec'].get('nodeName')}: {c['name']} cpu={cpu} memory={r.get('requests', {}).get('memory')} qos={pod['status'].get('qosClass')}")
if not pods:
    problems.append('no pods')
for p in problems:
    print('  problem:', p)
sys.exit(1 if problems else 0)
PY
  then pass "$release: every pod scheduled, Running, Guaranteed, requests = limits (whole CPUs or a fraction)"
  else fail "$release: pod checks"; fi
}

install_and_check md feeds --set subscriberExample.enabled=true
# The exact figures of the default values: feed handler 2 CPUs / 1Gi, fanout 4 CPUs / 2Gi.
got="$(kubectl get pods -n feeds -l app.kubernetes.io/component=feed -o jsonpath='{range .items[*].spec.containers[*]}{.name}={.resources.requests.cpu}/{.resources.requests.memory}/{.resources.limits.cpu}/{.resources.limits.memory} {end}')"
[ "$got" = "feed-handler=2/1Gi/2/1Gi fanout=4/2Gi/4/2Gi " ] && pass "default resources exact: $got" || fail "default resources: $got"
install_and_check md2 mdc -f "$CHART/ci/mdc-multus-values.yaml"
annotation="$(kubectl get pods -n mdc -l app.kubernetes.io/component=feed -o jsonpath='{.items[0].metadata.annotations.k8s\.v1\.cni\.cncf\.io/networks}')"
[ "$annotation" = "macvlan-md@eth1" ] && pass "Multus attachment on the feed pod" || fail "Multus annotation: '$annotation'"
# Two feeds, hugepages, a standalone media driver per pod (the operator's CRDs are not installed
# here). On hostNetwork the metrics ports are host ports: the other releases make room first.
"$HELM" uninstall md -n feeds >/dev/null && "$HELM" uninstall md2 -n mdc >/dev/null && pass "helm uninstall md md2"
kubectl wait --for=delete pod -n feeds -l app.kubernetes.io/instance=md --timeout 60s >/dev/null 2>&1 || true
kubectl wait --for=delete pod -n mdc -l app.kubernetes.io/instance=md2 --timeout 60s >/dev/null 2>&1 || true
install_and_check md3 full -f "$CHART/ci/full-values.yaml" \
  --set metrics.serviceMonitor.enabled=false,metrics.prometheusRule.enabled=false
containers="$(kubectl get pods -n full -l app.kubernetes.io/component=feed -o jsonpath='{.items[0].spec.containers[*].name}')"
[ "$containers" = "feed-handler fanout media-driver" ] && pass "standalone media driver container: $containers" \
  || fail "containers of a full feed pod: $containers"
"$HELM" uninstall md3 -n full >/dev/null && pass "helm uninstall md3"

if [ "$failures" != 0 ]; then
  echo "chart-test: $failures failure(s)" >&2
  exit 1
fi
echo "chart-test: all passed"
