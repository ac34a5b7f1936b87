#!/usr/bin/env bash
# The chart on a real node (part of make test): a control plane (control-plane.sh, no fake nodes) and a
# real node (node.sh: containerd and a kubelet with the static CPU manager) on this machine, the
# project's image imported into the node's containerd, then
#   1. helm install --wait of scripts/k8s/node-values.yaml: the simulator as the exchange, the feed pod
#      (feed handler with one exclusive CPU, fanout on a shared fraction), a subscriber; every pod Running
#      on the real node, Guaranteed;
#   2. CPU pinning: the feed handler's exclusive CPU is the same from the kubelet's CPU manager state, the
#      container's cgroup, inside the container (java -XshowSettings:system through kubectl exec, and the
#      application's own start line and metric) and the receive thread's affinity read from /proc; the
#      shared-fraction containers run on the shared pool, disjoint from it; the heaps sit on huge pages;
#   3. helm test: a subscriber pod that passes only when it sees live books with no gap;
#   4. a real Prometheus discovers the pods through this API server and every dashboard and alert query
#      returns data from them;
#   5. the feed-handler container killed (-9), then the fanout container: the kubelet restarts each and the
#      subscriber's stream shows what OPERATIONS.md promises (SOURCE_DOWN and back with no gap and nothing
#      declared; a new publication recovered from a snapshot), helm test green after each;
#   6. helm upgrade to another chart version with a dashboard edit leaves the feed pod running untouched; helm
#      upgrade with changed values (and GLIMPSE, its password from a Secret) rolls the feed pod, which joins from
#      the snapshot, and subscribers recover; helm uninstall leaves nothing;
#   7. a feed as a pair (node-pair-values.yaml, on the node's bridge network): the helm test's check watches both
#      sides while side A's pod is deleted and helm upgrade rolls both, one at a time, and sees no stale period and
#      no gap; the node's teardown leaves no process, mount, cgroup or interface behind.
# Figures (restart and recovery times, re-requested messages) are printed as it goes.
set -euo pipefail
cd "$(dirname "$0")/../.."

BIN="${MDFANOUT_CACHE:-$HOME/.cache/mdfanout}/k8s/bin"
HELM="$BIN/helm"
CHART=charts/mdfanout
VALUES=scripts/k8s/node-values.yaml
IMAGE=localhost/mdfanout:node-test
NS=mdf
RELEASE=md
NODE_NAME=mdfanout-real-node
PROM_PORT=47790
# Every fixed port of this test (the exchange's lines 47701-47704, Aeron 47711, the pods' metrics 47741-47743,
# Prometheus 47790) lies in the kernel's ephemeral range, and make test runs the chart test, the bench bundle's dry
# run and the release test beside this one: reserve them, so that no client socket takes one first (fresh26:
# Prometheus's port was taken, "bind: address already in use", and the test stopped with no failure named).
reserved="$(cat /proc/sys/net/ipv4/ip_local_reserved_ports)"
case ",$reserved," in
  *,47700-47799,*) ;;
  *) { echo "${reserved:+$reserved,}47700-47799" > /proc/sys/net/ipv4/ip_local_reserved_ports; } 2>/dev/null \
       || echo "node-test: note: could not reserve ports 47700-47799 from the ephemeral range" >&2 ;;
esac
SUB_PORT=47743
FH_PORT=47741
FO_PORT=47742
HUGEPAGES_2M=512
PARTITIONS=2 # the feed's, in node-values.yaml
export CONTAINERS_CONF="${MDFANOUT_CONTAINERS_CONF:-$PWD/scripts/image/containers.conf}"
work="$(mktemp -d /tmp/mdfanout-node-test.XXXXXX)"
plane="$work/plane"
node="$work/node"
failures=0
started="$(date +%s)"
hugepages_before="$(cat /proc/sys/vm/nr_hugepages)"

pass() { echo "node-test: ok - $*"; }
fail() { echo "node-test: FAIL - $*" >&2; failures=$((failures + 1)); }
info() { echo "node-test: $*"; }
die() { fail "$*"; exit 1; }
k() { kubectl --kubeconfig "$plane/kubeconfig" "$@"; }
ctr_() { ctr --address "$node/containerd/containerd.sock" --namespace k8s.io "$@"; }

cleanup() {
  local rc=$?
  trap - EXIT INT TERM
  if [ "$failures" != 0 ] || [ "$rc" != 0 ]; then
    k get pods -A -o wide >&2 2>/dev/null || true
    for pod in $(k get pods -n "$NS" -o name 2>/dev/null); do
      for c in $(k get -n "$NS" "$pod" -o jsonpath='{.spec.containers[*].name}' 2>/dev/null); do
        k logs -n "$NS" "$pod" -c "$c" >"$work/log-${pod#pod/}-$c.log" 2>&1 || true
        k logs -n "$NS" "$pod" -c "$c" --previous >"$work/log-${pod#pod/}-$c.previous.log" 2>/dev/null || true
        echo "----- $pod $c (full log: $work/log-${pod#pod/}-$c.log) -----" >&2
        grep -v '^\s*at \|lineA\[packets\|^messages/s=' "$work/log-${pod#pod/}-$c.log" | tail -12 >&2 || true
      done
    done
  fi
  [ -f "$work/prometheus.pid" ] && kill "$(cat "$work/prometheus.pid")" 2>/dev/null || true
  scripts/k8s/node.sh stop "$node" >/dev/null 2>&1 || true
  scripts/k8s/control-plane.sh stop "$plane" >/dev/null 2>&1 || true
  echo "$hugepages_before" > /proc/sys/vm/nr_hugepages 2>/dev/null || true
  podman rmi -f "$IMAGE" >/dev/null 2>&1 || true
  # What the node leaves must be nothing: processes, mounts, cgroups, the bridge.
  local left=""
  pgrep -f "$node/" >/dev/null 2>&1 && left="$left processes"
  findmnt -rn -o TARGET | grep -F "$work/" >/dev/null && left="$left mounts"
  ls -d /sys/fs/cgroup/*/kubepods >/dev/null 2>&1 && left="$left cgroups"
  ip link show mdfnode0 >/dev/null 2>&1 && left="$left bridge"
  if [ -n "$left" ]; then
    echo "node-test: FAIL - the node's teardown left:$left" >&2; failures=$((failures + 1))
  else
    echo "node-test: ok - teardown left no process, mount, cgroup or interface of the node"
  fi
  if [ "$failures" = 0 ] && [ "$rc" = 0 ]; then
    rm -rf "$work"
    echo "node-test: all passed in $(( $(date +%s) - started )) s"
  else
    echo "node-test: $failures failure(s), exit $rc; logs kept in $work" >&2
    [ "$rc" = 0 ] && rc=1
  fi
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# ---- the image, the control plane, the node -------------------------------------------------------
scripts/image/setup-podman.sh >/dev/null # podman, as make image-test sets it up (idempotent)
info "building $IMAGE (prebuilt distribution on the local JRE base)"
MDFANOUT_ENGINE=podman TARGET=prebuilt BASE="$(scripts/image/local-bases.sh jre podman)" \
  scripts/image/build.sh "$IMAGE" --network host >"$work/image-build.log" 2>&1 \
  || { tail -20 "$work/image-build.log" >&2; die "image build"; }
podman save --format oci-archive -o "$work/image.tar" "$IMAGE" >/dev/null 2>&1 || die "podman save"

# Huge pages for the heaps: the kubelet reads the pool when it starts.
echo "$HUGEPAGES_2M" > /proc/sys/vm/nr_hugepages
NODES=0 scripts/k8s/control-plane.sh start "$plane" >"$work/control-plane.log" 2>&1 \
  || { tail -20 "$work/control-plane.log" >&2; die "control plane did not start"; }
NODE_NAME="$NODE_NAME" scripts/k8s/node.sh start "$plane" "$node" >"$work/node.log" 2>&1 \
  || { tail -20 "$work/node.log" >&2; die "node did not start"; }
scripts/k8s/node.sh import "$node" "$work/image.tar" || die "image import"
rm -f "$work/image.tar"
allocatable="$(k get node "$NODE_NAME" -o jsonpath='cpu={.status.allocatable.cpu} memory={.status.allocatable.memory} hugepages-2Mi={.status.allocatable.hugepages-2Mi}')"
pass "real node $NODE_NAME Ready ($("$BIN/kubelet" --version), containerd $(containerd --version | awk '{print $3}'), static CPU manager): $allocatable"

k create namespace "$NS" >/dev/null
# A real Prometheus, discovering this namespace's pods through the API server (parts 4 and 7).
start_prometheus() {
  cat > "$work/prometheus.yml" <<PROM
global: {scrape_interval: 2s, evaluation_interval: 2s}
rule_files: ["$PWD/$CHART/rules/mdfanout-rules.yaml"]
scrape_configs:
  - job_name: mdfanout
    kubernetes_sd_configs:
      - role: pod
        api_server: https://127.0.0.1:16443
        namespaces: {names: [$NS]}
        tls_config: {ca_file: "$plane/pki/ca.crt", cert_file: "$plane/pki/admin.crt", key_file: "$plane/pki/admin.key"}
    relabel_configs:
      - {source_labels: [__meta_kubernetes_pod_container_port_name], regex: "metrics-.*", action: keep}
      - {source_labels: [__meta_kubernetes_namespace], target_label: namespace}
      - {source_labels: [__meta_kubernetes_pod_name], target_label: pod}
      - {source_labels: [__meta_kubernetes_pod_container_name], target_label: container}
      # The jobs the chart's ServiceMonitor names, which the rules and dashboards select on.
      - {source_labels: [__meta_kubernetes_pod_container_name], regex: "(.*)", replacement: "mdfanout-\$1", target_label: job}
      - {source_labels: [__meta_kubernetes_pod_label_mdfanout_io_feed], target_label: feed}
PROM
  # Debian's Prometheus has no Kubernetes service discovery: install-tools.sh builds 2.42 with it.
  "$BIN/prometheus" --config.file "$work/prometheus.yml" --storage.tsdb.path "$work/prometheus-data" \
    --web.listen-address "127.0.0.1:$PROM_PORT" >"$work/prometheus.log" 2>&1 &
  echo $! > "$work/prometheus.pid"
}
# NODE_TEST_PARTS=pair runs part 7 alone (while working on it); make test runs all.
if [ "${NODE_TEST_PARTS:-all}" != pair ]; then
# ---- 1. install ---------------------------------------------------------------------------------------
install_started="$(date +%s)"
if "$HELM" --kubeconfig "$plane/kubeconfig" install "$RELEASE" "$CHART" -n "$NS" -f "$VALUES" \
  --set hugepages.enabled=true,hugepages.amount=256Mi --wait --timeout 300s >"$work/install.log" 2>&1; then
  pass "helm install --wait on the real node in $(( $(date +%s) - install_started )) s"
else
  cat "$work/install.log" >&2; die "helm install --wait"
fi
k get pods -n "$NS" -o json >"$work/pods.json"
python3 - "$work/pods.json" "$NODE_NAME" <<'PY' && pass "every pod Running on the real node, Guaranteed (requests = limits)" || fail "pod checks"
import json, sys
pods = json.load(open(sys.argv[1]))['items']
problems = []
for pod in pods:
    name = pod['metadata']['name']
    status = pod['status']
    ready = all(c.get('ready') for c in status.get('containerStatuses', []))
    print(f"  {name}: {status.get('phase')} on {pod['spec'].get('nodeName')}, qos {status.get('qosClass')}, ready {ready}, "
          + ", ".join(f"{c['name']} cpu={c['resources']['limits']['cpu']}" for c in pod['spec']['containers']))
    if status.get('phase') != 'Running' or not ready:
        problems.append(f"{name} {status.get('phase')} ready={ready}")
    if pod['spec'].get('nodeName') != sys.argv[2]:
        problems.append(f"{name} on {pod['spec'].get('nodeName')}")
    if status.get('qosClass') != 'Guaranteed':
        problems.append(f"{name} qos {status.get('qosClass')}")
if len(pods) < 3:
    problems.append(f"{len(pods)} pods, expected the exchange, the feed pod and the subscriber")
for p in problems:
    print('  problem:', p)
sys.exit(1 if problems else 0)
PY

feed_pod() { k get pods -n "$NS" -l app.kubernetes.io/component=feed -o jsonpath='{.items[0].metadata.name}'; }
container_id() { # pod container -> the containerd id
  k get pod -n "$NS" "$1" -o jsonpath="{.status.containerStatuses[?(@.name==\"$2\")].containerID}" | sed 's|containerd://||'
}
host_pid() { ctr_ tasks ls | awk -v id="$1" '$1 == id {print $2}'; }
restarts() { k get pod -n "$NS" "$1" -o jsonpath="{.status.containerStatuses[?(@.name==\"$2\")].restartCount}"; }
node_ip="$(k get node "$NODE_NAME" -o jsonpath='{.status.addresses[?(@.type=="InternalIP")].address}')"
metrics() { curl -sf "http://$node_ip:$1/metrics"; }
metric() { # port name [label filter]: the sum of the samples of a metric
  metrics "$1" | awk -v name="$2" -v filter="${3:-}" '
    $1 ~ ("^" name "({|$)") && index($1, filter) > 0 {sum += $NF; found = 1}
    END {if (found) printf "%.0f\n", sum; else print "none"}'
}

# ---- 2. CPU pinning and huge pages --------------------------------------------------------------------
pod="$(feed_pod)"
uid="$(k get pod -n "$NS" "$pod" -o jsonpath='{.metadata.uid}')"
state="$(cat "$node/kubelet/cpu_manager_state")"
assigned="$(python3 -c 'import json,sys; s=json.loads(sys.argv[1]); print(s["entries"].get(sys.argv[2], {}).get("feed-handler", ""))' "$state" "$uid")"
shared="$(python3 -c 'import json,sys; print(json.loads(sys.argv[1])["defaultCpuSet"])' "$state")"
others="$(python3 -c 'import json,sys; s=json.loads(sys.argv[1]); print(sorted((c for e in s["entries"].values() for c in e)))' "$state")"
info "kubelet CPU manager state: feed-handler of $pod -> '$assigned', shared pool '$shared', containers with exclusive CPUs: $others"
[ -n "$assigned" ] && [ "$others" = "['feed-handler']" ] && pass "the kubelet gave the feed handler exclusive CPU $assigned and no other container any" \
  || fail "CPU manager state: $state"
fh_id="$(container_id "$pod" feed-handler)"
fo_id="$(container_id "$pod" fanout)"
fh_pid="$(host_pid "$fh_id")"
fo_pid="$(host_pid "$fo_id")"
fh_allowed="$(awk '/^Cpus_allowed_list/ {print $2}' "/proc/$fh_pid/status")"
fo_allowed="$(awk '/^Cpus_allowed_list/ {print $2}' "/proc/$fo_pid/status")"
fh_cgroup="$(cat /sys/fs/cgroup/cpuset/kubepods/pod"$uid"/"$fh_id"/cpuset.cpus 2>/dev/null || echo missing)"
# The JVM's own view from a second process in the container (the image has no shell): its effective processors.
inside="$(k exec -n "$NS" "$pod" -c feed-handler -- java -Xms8m -Xmx16m -XX:-AlwaysPreTouch -XX:-UseLargePages \
  -XshowSettings:system -version 2>&1 | awk '/List of Effective Processors/ {getline; gsub(/^ +| +$/, ""); gsub(/ +/, ","); print; exit}')"
info "feed handler: /proc/$fh_pid Cpus_allowed_list $fh_allowed, cgroup cpuset.cpus $fh_cgroup, inside the container (java -XshowSettings:system) CPU Sets: $inside"
[ "$fh_allowed" = "$assigned" ] && [ "$fh_cgroup" = "$assigned" ] && [ "$inside" = "$assigned" ] \
  && pass "exclusive cpuset $assigned: the same from the kubelet's state, the cgroup, /proc and inside the container" \
  || fail "exclusive cpuset: kubelet '$assigned', /proc '$fh_allowed', cgroup '$fh_cgroup', inside '$inside'"
k logs -n "$NS" "$pod" -c feed-handler >"$work/feed-handler.log"
start_line="$(grep -m1 '^feed-handler: cpu pinning' "$work/feed-handler.log" || true)"
pinned_line="$(grep -m1 '^feed-handler: pinned feed-receive' "$work/feed-handler.log" || true)"
tid="$(sed -n 's/.*(tid \([0-9]*\)).*/\1/p' <<<"$pinned_line")"
# The log names the thread id in the container's PID namespace; NSpid maps it to the host's.
host_tid=""
for task in /proc/"$fh_pid"/task/*; do
  [ "$(awk '/^NSpid:/ {print $NF}' "$task/status" 2>/dev/null)" = "$tid" ] && host_tid="${task##*/}"
done
thread_cpus="$(awk '/^Cpus_allowed_list/ {print $2}' "/proc/$fh_pid/task/$host_tid/status" 2>/dev/null || echo none)"
thread_comm="$(cat "/proc/$fh_pid/task/$host_tid/comm" 2>/dev/null || echo none)"
info "log: $start_line"
info "log: $pinned_line; on the host that thread is /proc/$fh_pid/task/$host_tid: comm $thread_comm, Cpus_allowed_list $thread_cpus"
[[ "$start_line" == "feed-handler: cpu pinning: feed-receive->$assigned; "*"(allowed $assigned, --cpus auto)" ]] \
  && [ "$pinned_line" = "feed-handler: pinned feed-receive (tid $tid) to CPU $assigned" ] \
  && [ "$thread_cpus" = "$assigned" ] && [ "$thread_comm" = feed-handler ] \
  && pass "the feed handler read its cpuset ($assigned) and pinned its receive thread there, seen in /proc" \
  || fail "receive thread pinning"
pinned_metric="$(metric $FH_PORT mdfanout_thread_pinned_cpu 'thread="feed-receive"')"
allowed_metric="$(metrics $FH_PORT | grep -m1 '^mdfanout_allowed_cpus' || true)"
[ "$pinned_metric" = "$assigned" ] && [[ "$allowed_metric" == *"cpus=\"$assigned\""* ]] \
  && pass "metrics: mdfanout_thread_pinned_cpu{thread=\"feed-receive\"} $pinned_metric, $allowed_metric" \
  || fail "pinning metrics: '$pinned_metric' '$allowed_metric'"
python3 - "$shared" "$assigned" "$fo_allowed" <<'PY' && pass "the fanout (shared fraction) runs on the shared pool $fo_allowed, disjoint from $assigned" || fail "fanout cpuset $fo_allowed"
import sys
def cpus(s):
    out = set()
    for part in s.split(','):
        a, _, b = part.partition('-')
        out.update(range(int(a), int(b or a) + 1))
    return out
shared, exclusive, fanout = (cpus(x) for x in sys.argv[1:4])
sys.exit(0 if fanout == shared and not (fanout & exclusive) else 1)
PY
grep -q '^fanout: cpu pinning off (--cpus none)' <(k logs -n "$NS" "$pod" -c fanout) && [ "$(metric $FO_PORT mdfanout_thread_pinned_cpu)" -lt 0 ] \
  && pass "the fanout pins nothing (--cpus none) and says so in its log and metric" || fail "fanout pinning line or metric"
# Readiness is caught up, not an open port: the kubelet's probes ask GET /ready, and both roles answer it ready.
probe_path="$(k get pod -n "$NS" "$pod" -o jsonpath='{.spec.containers[*].readinessProbe.httpGet.path}')"
fh_ready="$(curl -s "http://$node_ip:$FH_PORT/ready")"; fo_ready="$(curl -s "http://$node_ip:$FO_PORT/ready")"
[ "$probe_path" = "/ready /ready" ] && [ "$fh_ready" = ready ] && [ "$fo_ready" = ready ] \
  && pass "readiness probes ask /ready, and the feed handler and the fanout answer: $fh_ready, $fo_ready" \
  || fail "readiness: probe paths '$probe_path', feed handler '$fh_ready', fanout '$fo_ready'"
hp_total="$(awk '/^HugePages_Total/ {print $2}' /proc/meminfo)"
hp_free="$(awk '/^HugePages_Free/ {print $2}' /proc/meminfo)"
hp_used=$((hp_total - hp_free))
# Two heaps of 96m on 2 MiB pages: at least 96 pages.
[ "$hp_used" -ge 96 ] && ! grep -qi "large pages" "$work/feed-handler.log" \
  && pass "huge pages in use by the heaps: $hp_used of $hp_total 2 MiB pages taken, no JVM warning" \
  || fail "huge pages: $hp_used of $hp_total used; $(grep -i 'large pages' "$work/feed-handler.log" | head -1)"

# ---- 3. helm test -------------------------------------------------------------------------------------
helm_test() {
  local what="$1" out="$work/helm-test-$2.log"
  # The check pod succeeds (exit 0) only on live books with no gap; a passing pod is deleted by its hook policy
  # (so no --logs: its log is gone), a failing one stays with its log.
  if "$HELM" --kubeconfig "$plane/kubeconfig" test "$RELEASE" -n "$NS" --timeout 240s >"$out" 2>&1 \
    && grep -q 'Phase:.*Succeeded' "$out"; then
    pass "helm test $what: $(grep -m1 'TEST SUITE:' "$out" | xargs) $(grep -m1 'Phase:' "$out" | xargs), in $(( $(date -d "$(grep -m1 'Last Completed:' "$out" | cut -d: -f2-)" +%s) - $(date -d "$(grep -m1 'Last Started:' "$out" | cut -d: -f2-)" +%s) )) s"
  else
    cat "$out" >&2
    k logs -n "$NS" -l app.kubernetes.io/component=test --tail 20 >&2 2>/dev/null || true
    fail "helm test $what"
  fi
}
helm_test "after install" install

# ---- 4. real Prometheus, discovering the pods through the API server ----------------------------------
start_prometheus
prom_query() { curl -sf --get "http://127.0.0.1:$PROM_PORT/api/v1/query" --data-urlencode "query=$1"; }
for _ in $(seq 1 60); do
  up="$(prom_query 'count(up == 1)' 2>/dev/null | python3 -c 'import json,sys; r=json.load(sys.stdin)["data"]["result"]; print(r[0]["value"][1] if r else 0)' 2>/dev/null || echo 0)"
  [ "$up" -ge 3 ] && break
  sleep 1
done
targets="$(curl -sf "http://127.0.0.1:$PROM_PORT/api/v1/targets" | python3 -c '
import json, sys
t = json.load(sys.stdin)["data"]["activeTargets"]
print(" ".join(x["labels"]["container"] + "=" + x["health"] for x in t))' \
  || echo "none: Prometheus does not answer ($(tail -1 "$work/prometheus.log"))")"
[ "$up" -ge 3 ] && pass "Prometheus discovered the pods through the API server: $targets" || fail "Prometheus targets: $targets"
sleep 12 # a few scrapes, so that rates and increases have two samples
python3 - "http://127.0.0.1:$PROM_PORT" "$CHART" <<'PY' && pass "every dashboard and alert-rule query returns data from the pods" || fail "queries without data"
import glob, json, re, sys, urllib.parse, urllib.request
base, chart = sys.argv[1:3]
queries = []
for path in sorted(glob.glob(chart + "/dashboards/*.json")):
    def walk(node):
        if isinstance(node, dict):
            if isinstance(node.get("expr"), str) and node["expr"].strip():
                queries.append(node["expr"])
            for v in node.values():
                walk(v)
        elif isinstance(node, list):
            for v in node:
                walk(v)
    dashboard = json.load(open(path))
    walk(dashboard.get("panels", []))
threshold = re.compile(r"\s*(>=|<=|==|!=|>|<)\s*[0-9.]+\s*$")
for line in open(chart + "/rules/mdfanout-rules.yaml"):
    m = re.match(r"^\s*expr:\s*(.+)$", line)
    if m:
        # Each side of a set operator, with its label matching (on (...), ignoring (...)): a query of its own.
        for side in re.split(r"\s+(?:and|or|unless)(?:\s+(?:on|ignoring)\s*\([^)]*\))?\s+", m.group(1).strip()):
            side = threshold.sub("", side)
            inner = re.match(r"^absent\((.*)\)$", side)
            queries.append(inner.group(1) if inner else side)
# Series that exist only where the chart runs what this node does not (a standalone media driver).
only_elsewhere = re.compile(r"media_driver|mdfanout_driver_")
# The archive's queries (issue 29): its metrics and the subscribers' replay metrics; no archive runs here
# (MonitoringTest checks them against a running archive and a replaying subscriber).
archive_queries = re.compile(r"\b(mdfanout_archive_\w+|mdfanout_subscriber_replay\w*)\b")
skipped = [q for q in queries if archive_queries.search(q)]
queries = [q for q in queries if not archive_queries.search(q)]
print(f"  {len(skipped)} skipped (archive queries: checked by MonitoringTest)")
empty = []
for q in queries:
    q2 = re.sub(r"\$__rate_interval|\$__interval|\$__range", "1m", q)
    q2 = re.sub(r"\$\{?[A-Za-z_]+(:[a-z]+)?\}?", ".*", q2)
    url = base + "/api/v1/query?" + urllib.parse.urlencode({"query": q2})
    try:
        r = json.load(urllib.request.urlopen(url))
        ok = r["status"] == "success" and r["data"]["result"]
    except Exception as e:
        ok = False
    if not ok and not only_elsewhere.search(q2):
        empty.append(q2)
print(f"  {len(queries)} queries ({len(queries) - len(empty)} with data)")
for q in empty:
    print("  no data:", q)
sys.exit(1 if empty else 0)
PY
rules_health="$(curl -sf "http://127.0.0.1:$PROM_PORT/api/v1/rules" | python3 -c '
import json, sys
rules = [r for g in json.load(sys.stdin)["data"]["groups"] for r in g["rules"]]
bad = [r["name"] for r in rules if r["health"] != "ok"]
firing = [r["name"] for r in rules if r.get("state") == "firing"]
print(f"{len(rules)} rules, unhealthy {bad}, firing {firing}")')"
[[ "$rules_health" == *"unhealthy []"* ]] && pass "alert rules loaded and evaluated: $rules_health" || fail "rules: $rules_health"

# ---- 5. restarts --------------------------------------------------------------------------------------
sub() { metric $SUB_PORT "$@"; }
await_recovered() { # what base-recoveries base-delivered t0: waits until every partition recovered and delivers
  local what="$1" base_recoveries="$2" base_delivered="$3" t0="$4"
  for _ in $(seq 1 120); do
    if [ "$(sub mdfanout_subscriber_recoveries_total)" -ge $((base_recoveries + PARTITIONS)) ] \
      && [ "$(sub mdfanout_subscriber_messages_delivered_total)" -gt "$base_delivered" ]; then
      info "$what: every partition of the subscriber recovered and delivers again $(( $(date +%s) - t0 )) s after it began"
      return 0
    fi
    sleep 1
  done
  return 1
}
kill_container() { # container -> kills its process from the host, waits for the kubelet to restart it
  local name="$1" pod id pid before t0
  pod="$(feed_pod)"
  id="$(container_id "$pod" "$name")"
  pid="$(host_pid "$id")"
  before="$(restarts "$pod" "$name")"
  t0="$(date +%s)"
  kill -9 "$pid"
  for _ in $(seq 1 120); do
    [ "$(restarts "$pod" "$name")" -gt "$before" ] && \
      [ "$(k get pod -n "$NS" "$pod" -o jsonpath="{.status.containerStatuses[?(@.name==\"$name\")].ready}")" = true ] && break
    sleep 1
  done
  local after new_id
  after="$(restarts "$pod" "$name")"
  new_id="$(container_id "$pod" "$name")"
  if [ "$after" -gt "$before" ] && [ "$new_id" != "$id" ] && ! kill -0 "$pid" 2>/dev/null; then
    pass "$name: pid $pid killed (-9); the kubelet restarted it (restarts $before -> $after, new container) and it was Ready in $(( $(date +%s) - t0 )) s"
  else
    fail "$name restart: restarts $before -> $after, container $id -> $new_id"
  fi
}

t0="$(date +%s)"
base_recoveries="$(sub mdfanout_subscriber_recoveries_total)"
base_delivered="$(sub mdfanout_subscriber_messages_delivered_total)"
base_source_down="$(sub mdfanout_subscriber_stale_events_total 'reason="source_down"')"
base_gaps="$(sub mdfanout_subscriber_gaps_total)"
base_missing="$(sub mdfanout_subscriber_missing_messages_total)"
base_snapshots="$(sub mdfanout_subscriber_snapshots_applied_total)"
kill_container feed-handler
await_recovered "feed handler restart" "$base_recoveries" "$base_delivered" "$t0" || fail "the subscriber did not recover from the feed handler restart"
sleep 3
source_down="$(sub mdfanout_subscriber_stale_events_total 'reason="source_down"')"
gaps="$(sub mdfanout_subscriber_gaps_total)"
missing="$(sub mdfanout_subscriber_missing_messages_total)"
snapshots="$(sub mdfanout_subscriber_snapshots_applied_total)"
declared="$(metric $FH_PORT mdfanout_feed_gaps_declared_total)"
refilled="$(metric $FH_PORT mdfanout_feed_gap_fill_messages_total)"
requests="$(metric $FH_PORT mdfanout_feed_retransmit_requests_total)"
info "feed handler restart: subscriber stale SOURCE_DOWN $base_source_down -> $source_down, gaps $base_gaps -> $gaps, missing $base_missing -> $missing, snapshots $base_snapshots -> $snapshots; restarted feed handler: $requests re-requests, $refilled messages refilled, $declared gaps declared"
[ "$source_down" -gt "$base_source_down" ] && [ "$gaps" = "$base_gaps" ] && [ "$missing" = "$base_missing" ] \
  && [ "$snapshots" = "$base_snapshots" ] && [ "$declared" = 0 ] && [ "$refilled" -gt 0 ] \
  && pass "feed handler restart kept the promise: SOURCE_DOWN, then the same stream with no gap and no snapshot; the missed span ($refilled messages) re-requested, nothing declared" \
  || fail "feed handler restart: the stream's promise"
helm_test "after the feed handler restart" fh-restart

t0="$(date +%s)"
base_recoveries="$(sub mdfanout_subscriber_recoveries_total)"
base_delivered="$(sub mdfanout_subscriber_messages_delivered_total)"
base_stale="$(sub mdfanout_subscriber_stale_events_total)"
base_snapshots="$(sub mdfanout_subscriber_snapshots_applied_total)"
kill_container fanout
await_recovered "fanout restart" "$base_recoveries" "$base_delivered" "$t0" || fail "the subscriber did not recover from the fanout restart"
stale="$(sub mdfanout_subscriber_stale_events_total)"
snapshots="$(sub mdfanout_subscriber_snapshots_applied_total)"
reasons="$(metrics $SUB_PORT | grep '^mdfanout_subscriber_stale_events_total' | tr '\n' ' ')"
info "fanout restart: subscriber stale events $base_stale -> $stale, snapshots applied $base_snapshots -> $snapshots ($reasons)"
[ "$stale" -gt "$base_stale" ] && [ "$snapshots" -gt "$base_snapshots" ] \
  && pass "fanout restart kept the promise: the subscriber went stale and recovered from a snapshot of the new publication" \
  || fail "fanout restart: the stream's promise"
helm_test "after the fanout restart" fo-restart

# ---- 6. upgrade and uninstall -------------------------------------------------------------------------
old_uid="$(k get pods -n "$NS" -l app.kubernetes.io/component=feed -o jsonpath='{.items[0].metadata.uid}')"
# A chart bump alone (another chart version and appVersion, the image tag pinned) with a dashboard edit: the feed pod
# keeps running, its rings untouched (the pod template carries no version, issue 36).
bumped="$work/chart-bumped"
cp -r "$CHART" "$bumped"
sed -i 's/^version: .*/version: 9.9.9/; s/^appVersion: .*/appVersion: "9.9.9"/' "$bumped/Chart.yaml"
sed -i '0,/"title": "[^"]*"/s//"title": "edited by node-test"/' "$bumped/dashboards/mdfanout-feed.json"
pod="$(feed_pod)"
fh_restarts="$(restarts "$pod" feed-handler)"
fo_restarts="$(restarts "$pod" fanout)"
if "$HELM" --kubeconfig "$plane/kubeconfig" upgrade "$RELEASE" "$bumped" -n "$NS" -f "$VALUES" \
  --set hugepages.enabled=true,hugepages.amount=256Mi --wait --timeout 300s >"$work/upgrade-bump.log" 2>&1; then
  sleep 3
  same_uid="$(k get pods -n "$NS" -l app.kubernetes.io/component=feed -o jsonpath='{.items[*].metadata.uid}')"
  chart_label="$(k get deployment -n "$NS" "$RELEASE-sim" -o jsonpath='{.metadata.labels.helm\.sh/chart}')"
  [ "$same_uid" = "$old_uid" ] && [ "$(restarts "$pod" feed-handler)" = "$fh_restarts" ] && [ "$(restarts "$pod" fanout)" = "$fo_restarts" ] \
    && [ "$chart_label" = mdfanout-9.9.9 ] \
    && pass "helm upgrade to chart 9.9.9 with a dashboard edit: the Deployment says $chart_label, the feed pod runs on untouched (same pod, no container restart)" \
    || fail "a chart bump touched the feed pod: uid $old_uid -> $same_uid, restarts $fh_restarts/$fo_restarts -> $(restarts "$pod" feed-handler)/$(restarts "$pod" fanout), chart label $chart_label"
else
  cat "$work/upgrade-bump.log" >&2; fail "helm upgrade to the bumped chart"
fi
base_delivered="$(sub mdfanout_subscriber_messages_delivered_total)"
base_recoveries="$(sub mdfanout_subscriber_recoveries_total)"
t0="$(date +%s)"
# The upgrade also gives the feed GLIMPSE (the simulator serves it from the start): the new pod, with empty rings,
# joins from its snapshot with the password from the Secret the chart makes of glimpseCredentials. (Not at install:
# a feed handler started before the simulator fails its load and crash-loops, and the kubelet's back-off would
# slow the restarts above.)
python3 - "$VALUES" "$work/upgrade-values.yaml" <<'PY'
import sys, yaml
values = yaml.safe_load(open(sys.argv[1]))
values['feeds'][0].update(glimpse='127.0.0.1:47704', glimpseCredentials={'username': 'mdf', 'password': 's3cret'})
yaml.safe_dump(values, open(sys.argv[2], 'w'))
PY
if "$HELM" --kubeconfig "$plane/kubeconfig" upgrade "$RELEASE" "$CHART" -n "$NS" -f "$work/upgrade-values.yaml" \
  --set hugepages.enabled=true,hugepages.amount=256Mi,fanout.heap=112m --wait --timeout 300s >"$work/upgrade.log" 2>&1; then
  new_uid="$(k get pods -n "$NS" -l app.kubernetes.io/component=feed --field-selector=status.phase=Running -o jsonpath='{.items[0].metadata.uid}')"
  [ -n "$new_uid" ] && [ "$new_uid" != "$old_uid" ] && pass "helm upgrade (fanout.heap 96m -> 112m) rolled the feed pod in $(( $(date +%s) - t0 )) s" \
    || fail "helm upgrade did not roll the feed pod ($old_uid -> $new_uid)"
else
  cat "$work/upgrade.log" >&2; fail "helm upgrade"
fi
# The GLIMPSE password: read from the Secret's file by the running feed handler, on no command line.
pod="$(feed_pod)"
fh_cmdline="$(tr '\0' ' ' <"/proc/$(host_pid "$(container_id "$pod" feed-handler)")/cmdline")"
glimpse_line="$(k logs -n "$NS" "$pod" -c feed-handler | grep -m1 '^feed-handler: GLIMPSE: [0-9]* messages' || true)"
info "feed handler: $glimpse_line"
[ -n "$glimpse_line" ] && [[ "$fh_cmdline" == *"--glimpse-password-file=/etc/mdfanout/glimpse/password"* ]] \
  && [[ "$fh_cmdline" != *s3cret* ]] && ! k get pod -n "$NS" "$pod" -o yaml | grep s3cret >/dev/null \
  && pass "the new feed pod joined from GLIMPSE with the password from its mounted Secret; not in its command line (/proc) nor its pod spec" \
  || fail "GLIMPSE from the Secret: log '$glimpse_line', command line '$fh_cmdline'"
await_recovered "upgrade" "$base_recoveries" "$base_delivered" "$t0" \
  && pass "the subscriber recovered after the upgrade (recoveries $base_recoveries -> $(sub mdfanout_subscriber_recoveries_total))" \
  || fail "the subscriber did not recover after the upgrade"
helm_test "after the upgrade" upgrade

"$HELM" --kubeconfig "$plane/kubeconfig" uninstall "$RELEASE" -n "$NS" --wait --timeout 120s >/dev/null 2>&1 || fail "helm uninstall"
for _ in $(seq 1 60); do
  left="$(k get all,configmap,pdb,networkpolicy,secret -n "$NS" -l app.kubernetes.io/instance=$RELEASE -o name 2>/dev/null; k get pods -n "$NS" -o name 2>/dev/null)"
  containers="$(ctr_ containers ls -q | wc -l)"
  mounts="$(findmnt -rn -o TARGET | grep -cF "$node/kubelet/pods/" || true)"
  [ -z "$left" ] && [ "$containers" = 0 ] && [ "$mounts" = 0 ] && break
  sleep 1
done
[ -z "$left" ] && [ "$containers" = 0 ] && [ "$mounts" = 0 ] \
  && pass "helm uninstall left nothing: no object of the release, no container on the node, no pod volume mounted" \
  || fail "after helm uninstall: objects '$left', $containers containers, $mounts pod mounts"

fi # NODE_TEST_PARTS

# ---- 7. a pair: one side's pod deleted, then helm upgrade, while the helm test's check watches ----------
# node-pair-values.yaml: two sides on the node's bridge network (one node: they share it, so not its network), the
# exchange sending through the bridge. The check joins both sides and must see no stale period and no gap from the
# moment it watches until it ends, across a deletion of side A's pod and an upgrade that replaces both sides.
PAIR_RELEASE=pr
PAIR_VALUES=scripts/k8s/node-pair-values.yaml
# The check must outlast the deletion and the upgrade, which took 66 s on a quiet machine but 154 s and 224 s beside
# make test's bundle and release phases (side A Ready 34 and 62 s after its deletion, helm upgrade --wait 120 and 162
# s): 150 s failed both of those runs ("did not cover the upgrade", below).
PAIR_CHECK_S="${NODE_PAIR_CHECK_S:-240}"
[ -f "$work/prometheus.pid" ] || start_prometheus # part 4's, when it ran
pair_helm() { "$HELM" --kubeconfig "$plane/kubeconfig" "$@" -n "$NS" -f "$PAIR_VALUES" --set "tests.durationSeconds=$PAIR_CHECK_S"; }
side_pod() { echo "$PAIR_RELEASE-pair-$1"; }
pod_field() { k get pod -n "$NS" "$1" -o jsonpath="$2" 2>/dev/null || true; }
pod_ready() { [ "$(pod_field "$1" '{.status.conditions[?(@.type=="Ready")].status}')" = True ]; }
install_started="$(date +%s)"
if pair_helm install "$PAIR_RELEASE" "$CHART" --wait --timeout 300s >"$work/pair-install.log" 2>&1; then
  ips="$(for side in 0 1; do echo -n "$(side_pod $side)=$(pod_field "$(side_pod $side)" '{.status.podIP}') "; done)"
  pass "helm install --wait of a pair in $(( $(date +%s) - install_started )) s: a StatefulSet of two sides on the bridge network ($ips)"
else
  cat "$work/pair-install.log" >&2; die "helm install of the pair"
fi
for side in 0 1; do
  pod_ready "$(side_pod $side)" && [[ "$(pod_field "$(side_pod $side)" '{.status.podIP}')" == 10.88.77.* ]] \
    || fail "side $side: $(side_pod $side) not Ready on the bridge network"
done
# Both run one pod template: the pod's index picks the channel (pod 1 publishes on pair.endpointB).
running_b="$(k logs -n "$NS" "$(side_pod 1)" -c fanout 2>/dev/null | grep -m1 '^fanout: running' || true)"
running_a="$(k logs -n "$NS" "$(side_pod 0)" -c fanout 2>/dev/null | grep -m1 '^fanout: running' || true)"
[[ "$running_b" == *"endpoint=224.0.77.13:47731"* ]] && [[ "$running_a" == *"endpoint=224.0.77.11:47731"* ]] \
  && pass "one pod template, two channels: the fanout of pod 0 publishes on 224.0.77.11 (side A), of pod 1 on 224.0.77.13 (side B)" \
  || fail "the sides' channels: pod 0 '${running_a:0:200}', pod 1 '${running_b:0:200}'"

# The check, for PAIR_CHECK_S once every partition is live, its log followed to a file (a passing check pod is
# deleted by its hook policy).
check_pod="$PAIR_RELEASE-pair-check"
("$HELM" --kubeconfig "$plane/kubeconfig" test "$PAIR_RELEASE" -n "$NS" --timeout "$((PAIR_CHECK_S + 240))s" \
  >"$work/pair-helm-test.log" 2>&1; echo $? >"$work/pair-helm-test.rc") &
for _ in $(seq 1 120); do
  [ "$(pod_field "$check_pod" '{.status.phase}')" = Running ] && break
  sleep 1
done
(k logs -f -n "$NS" "$check_pod" >"$work/pair-check.log" 2>&1 || true) &
for _ in $(seq 1 120); do
  grep -q 'watching for' "$work/pair-check.log" 2>/dev/null && break
  [ -f "$work/pair-helm-test.rc" ] && break
  sleep 1
done
watch_started="$(date +%s)"
grep -q 'watching for' "$work/pair-check.log" && pass "the check joined both sides and watches: $(grep -m1 'watching for' "$work/pair-check.log")" \
  || fail "the check did not begin watching: $(cat "$work/pair-check.log")"

# Side A's pod deleted: the StatefulSet makes it again, and it comes back with empty rings (the pod's /dev/shm is new).
old_a="$(pod_field "$(side_pod 0)" '{.metadata.uid}')"
t0="$(date +%s)"
deleted_at="$t0"
k delete pod -n "$NS" "$(side_pod 0)" --wait=false >/dev/null
for _ in $(seq 1 180); do
  new_a="$(pod_field "$(side_pod 0)" '{.metadata.uid}')"
  [ -n "$new_a" ] && [ "$new_a" != "$old_a" ] && pod_ready "$(side_pod 0)" && break
  sleep 1
done
[ -n "$new_a" ] && [ "$new_a" != "$old_a" ] && pod_ready "$(side_pod 0)" \
  && pass "side A's pod deleted; the StatefulSet made it again and it was Ready (caught up) $(( $(date +%s) - t0 )) s later" \
  || fail "side A's pod did not come back Ready (uid $old_a -> $new_a)"

# helm upgrade of the fanout's heap: both sides' pods are replaced, one at a time (side B first), the next only when
# the new one has been Ready for minReadySeconds. Sampled every second: which pods exist, their uid and readiness.
(while :; do
   echo "$(date +%s.%N) $(k get pods -n "$NS" -l app.kubernetes.io/component=feed \
     -o jsonpath='{range .items[*]}{.metadata.name},{.metadata.uid},{.status.conditions[?(@.type=="Ready")].status} {end}' 2>/dev/null)"
   sleep 1
 done) >"$work/pair-roll.txt" &
sampler=$!
t0="$(date +%s)"
if pair_helm upgrade "$PAIR_RELEASE" "$CHART" --set fanout.heap=112m --wait --timeout 300s >"$work/pair-upgrade.log" 2>&1; then
  upgraded_in=$(( $(date +%s) - t0 ))
else
  cat "$work/pair-upgrade.log" >&2; fail "helm upgrade of the pair"
fi
sleep 2
kill "$sampler" 2>/dev/null; wait "$sampler" 2>/dev/null || true
heaps="$(for side in 0 1; do pod_field "$(side_pod $side)" '{.spec.containers[?(@.name=="fanout")].env[?(@.name=="JDK_JAVA_OPTIONS")].value}' | grep -o -- '-Xmx[0-9]*m'; done | sort -u | xargs)"
min_ready="$(k get statefulset -n "$NS" "$PAIR_RELEASE-pair" -o jsonpath='{.spec.minReadySeconds}')"
python3 - "$work/pair-roll.txt" "$PAIR_RELEASE-pair" "$heaps" "${upgraded_in:-0}" "${min_ready:-0}" <<'PY' && pass "the upgrade rolled one side at a time: $(cat "$work/pair-roll.verdict")" || fail "the upgrade's roll: $(cat "$work/pair-roll.verdict")"
import sys
path, prefix, heaps, took, min_ready = sys.argv[1:6]
min_ready = int(min_ready)
samples = []
for line in open(path):
    t, _, rest = line.partition(' ')
    pods = {}
    for item in rest.split():
        name, uid, ready = (item.split(',') + ['', ''])[:3]
        pods[name] = (uid, ready == 'True')
    samples.append((float(t), pods))
first = samples[0][1]
replaced, both_down, order = {}, [], []
for t, pods in samples:
    up = sum(1 for side in (0, 1) if pods.get(f"{prefix}-{side}", ('', False))[1]
             and pods[f"{prefix}-{side}"][0] != '')
    if up == 0:
        both_down.append(t)
    for side in (0, 1):
        name = f"{prefix}-{side}"
        if name not in replaced and pods.get(name, ('', False))[0] not in ('', first.get(name, ('',))[0]):
            replaced[name] = t
            order.append(name)
ready_again = {}
for t, pods in samples:
    for name, since in replaced.items():
        if name not in ready_again and t >= since and pods.get(name, ('', False))[1]:
            ready_again[name] = t
t0 = samples[0][0]
steps = ", ".join(f"{n} replaced at +{replaced[n] - t0:.0f} s, Ready at +{ready_again.get(n, float('nan')) - t0:.0f} s"
                  for n in order)
verdict = f"{steps} (minReadySeconds {min_ready}); fanout heap now {heaps}; helm upgrade --wait took {took} s"
problems = []
if order != [f"{prefix}-1", f"{prefix}-0"]:
    problems.append(f"replaced {order}, expected side B ({prefix}-1) then side A ({prefix}-0)")
elif f"{prefix}-1" not in ready_again or replaced[f"{prefix}-0"] < ready_again[f"{prefix}-1"]:
    problems.append("side A was replaced before the new side B was Ready")
elif replaced[f"{prefix}-0"] - ready_again[f"{prefix}-1"] < min_ready - 1:  # samples are a second apart
    problems.append(f"side A was replaced {replaced[f'{prefix}-0'] - ready_again[f'{prefix}-1']:.0f} s after the new "
                    f"side B was Ready, before its minReadySeconds ({min_ready} s)")
if both_down:
    problems.append(f"no side Ready in {len(both_down)} samples")
if heaps != '-Xmx112m':
    problems.append(f"fanout heaps {heaps}")
open(path.replace('.txt', '.verdict'), 'w').write(verdict + ("; " + "; ".join(problems) if problems else ""))
sys.exit(1 if problems else 0)
PY

# The check's verdict: no stale period and no gap from when it began watching, across both faults.
for _ in $(seq 1 $((PAIR_CHECK_S + 120))); do
  [ -f "$work/pair-helm-test.rc" ] && break
  sleep 1
done
sleep 1
verdict="$(grep -m1 'check: ok\|check: FAILED' "$work/pair-check.log" || true)"
info "the check: $verdict"
if [ "$(cat "$work/pair-helm-test.rc" 2>/dev/null)" = 0 ] && grep -q 'Phase:.*Succeeded' "$work/pair-helm-test.log" \
  && [[ "$verdict" == "check: ok: "* ]]; then
  python3 - "$verdict" <<'PY' && pass "helm test of the pair passed: no stale period and no gap while side A's pod was deleted and both sides were upgraded; both sides delivered ($(grep -o 'sides.*' <<<"$verdict"))" || fail "the pair's check passed, but its sides say otherwise: $verdict"
import re, sys
m = re.search(r"A=(\d+)/(\d+)/(\d+)/(\d+) B=(\d+)/(\d+)/(\d+)/(\d+)", sys.argv[1])
a_first, a_dup, a_refused, a_mismatch, b_first, b_dup, b_refused, b_mismatch = map(int, m.groups())
# Side A's pod was away for a while: side B delivered first then, and each side was a duplicate of the other at times.
sys.exit(0 if a_first > 0 and b_first > 0 and a_dup > 0 and b_dup > 0 and a_mismatch == 0 and b_mismatch == 0 else 1)
PY
else
  cat "$work/pair-helm-test.log" >&2; tail -20 "$work/pair-check.log" >&2
  fail "helm test of the pair across the deletion and the upgrade"
fi
[ "${upgraded_in:-0}" -gt 0 ] && [ $(( watch_started + PAIR_CHECK_S )) -ge "$(( t0 + upgraded_in ))" ] \
  || fail "the check's $PAIR_CHECK_S s did not cover the upgrade (it ended before the upgrade did): raise NODE_PAIR_CHECK_S"

# What Prometheus (part 4's, discovering this namespace's pods) saw of the pair's sides from the subscriber example,
# a pair's subscriber, since side A's pod was deleted (its join, a late join recovered from snapshots, is before):
# side A silent while its pod was away, MdfanoutPairSideDown pending then (its 2 minutes never
# elapse: the side is back in seconds), both sides delivering first, no side refused; and the dashboards' pair
# panels and the pair's alert queries return data from the pair.
python3 - "http://127.0.0.1:$PROM_PORT" "$NS" "$CHART" "$(( $(date +%s) - deleted_at + 3 ))" \
  >"$work/pair-prometheus.txt" 2>&1 <<'PY' && pass "Prometheus saw the pair's sides: $(cat "$work/pair-prometheus.txt")" || fail "the pair's metrics in Prometheus: $(cat "$work/pair-prometheus.txt")"
import json, sys, urllib.parse, urllib.request
base, ns, chart, window = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4] + "s"
def query(q, label="side"):
    """{the label's value: the sample} of an instant query."""
    r = json.load(urllib.request.urlopen(base + "/api/v1/query?" + urllib.parse.urlencode({"query": q})))
    return {x["metric"].get(label, ""): float(x["value"][1]) for x in r["data"]["result"]}
sel = f'namespace="{ns}", feed="pair"'
silent = query(f'max by (side) (max_over_time(mdfanout_subscriber_side_silent_partitions{{{sel}}}[{window}]))')
first = query(f'max by (side) (increase(mdfanout_subscriber_side_messages_total{{{sel}}}[{window}]))')
refused = query(f'max by (side) (increase(mdfanout_subscriber_side_refused_packets_total{{{sel}}}[{window}]) + '
                f'increase(mdfanout_subscriber_side_mismatched_copies_total{{{sel}}}[{window}]))')
pending = query(f'max by (side) (max_over_time(ALERTS{{alertname="MdfanoutPairSideDown", {sel}}}[{window}]))')
disagree = query(f'max_over_time(ALERTS{{alertname="MdfanoutPairSidesDisagree", {sel}}}[{window}])')
stale = query(f'max(max_over_time(mdfanout_subscriber_stale_partitions{{{sel}}}[{window}]))')
session = sorted(query(f'max by (state) (mdfanout_market_session_state{{{sel}}}) == 1', "state"))
summary = (f"side silent partitions at most {silent}, messages delivered first {first}, refused {refused}, "
           f"MdfanoutPairSideDown pending for {sorted(pending)}, stale partitions at most {stale}, market session {session}")
problems = []
if silent.get("A", 0) < 1:
    problems.append("side A was never silent while its pod was away")
if first.get("A", 0) <= 0 or first.get("B", 0) <= 0:
    problems.append("a side delivered nothing first")
if any(v > 0 for v in refused.values()) or disagree:
    problems.append("a side was refused")
if any(v > 0 for v in stale.values()):
    problems.append("the pair's subscriber was stale")
if "A" not in pending:
    problems.append("MdfanoutPairSideDown never pending for side A")
# The pair's panels of the overview dashboard, with the variables as this namespace and feed.
dashboard = json.load(open(chart + "/dashboards/mdfanout-overview.json"))
empty = []
for panel in dashboard["panels"]:
    if panel["title"].startswith("Pair:"):
        for target in panel["targets"]:
            q = target["expr"].replace("$__rate_interval", "1m").replace('"$namespace"', f'"{ns}"') \
                .replace('"$feed"', '"pair"').replace('"$instance"', '".*"')
            if not query(q):
                empty.append(panel["title"] + ": " + q)
if empty:
    problems.append("pair panels without data: " + "; ".join(empty))
print(summary + ("; " + "; ".join(problems) if problems else ""))
sys.exit(1 if problems else 0)
PY
"$HELM" --kubeconfig "$plane/kubeconfig" uninstall "$PAIR_RELEASE" -n "$NS" --wait --timeout 120s >/dev/null 2>&1 || fail "helm uninstall of the pair"

[ "$failures" = 0 ] || exit 1
