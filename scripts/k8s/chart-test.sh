#!/usr/bin/env bash
# The chart's tests (part of make test):
#  1. helm lint; render every ci/*-values.yaml; validate each rendering offline against the
#     Kubernetes 1.33 schemas (kubernetes-validate, strict: unknown fields are errors);
#  2. invalid values are refused by values.schema.json with a message naming the value;
#  3. a real control plane (control-plane.sh: etcd, kube-apiserver, controller-manager, scheduler,
#     kwok nodes): every rendering passes `kubectl apply --dry-run=server`, then `helm install
#     --wait` of two value sets, and every pod is scheduled, Running, Guaranteed, with exactly the
#     CPU and memory it asked for (requests = limits);
#  4. the archive (ci/archive-values.yaml): a StatefulSet whose volumeClaimTemplate binds a PersistentVolume,
#     the retention flags in its container's arguments, the claim kept after helm uninstall;
#  5. a pair (ci/pair-values.yaml): its two sides on different nodes, a disruption budget that keeps one up, and a
#     helm upgrade that replaces side B, then side A only after side B has been ready for minReadySeconds.
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
# A pair: side B needs a multicast group of its own, and mdc pairs are not supported yet.
sed 's/endpointB: 224.0.1.3:40456/endpointB: 224.0.1.1:40456/' "$CHART/ci/pair-values.yaml" >"$work/pair-same-endpoint.yaml"
refuse "pair.endpointB is aeron.endpoint" -f "$work/pair-same-endpoint.yaml"
# An even multicast group would be refused by Aeron when the fanout starts (it is the control address of the odd one
# below it): the chart refuses it first, naming the next odd group.
sed 's/endpointB: 224.0.1.3:40456/endpointB: 224.0.1.2:40456/' "$CHART/ci/pair-values.yaml" >"$work/pair-even-endpoint.yaml"
refuse "pair.endpointB 224.0.1.2:40456: an Aeron multicast group must end in an odd number" -f "$work/pair-even-endpoint.yaml"
refuse "aeron.endpoint 224.0.1.4:1: an Aeron multicast group must end in an odd number (Aeron sends its control messages to the next address, even): e.g. 224.0.1.5" --set 'feeds[0].name=a,feeds[0].ports.feedHandlerMetrics=9401,feeds[0].ports.fanoutMetrics=9402,feeds[0].partitions=1,feeds[0].lineA.group=239.1.1.1,feeds[0].lineA.port=1,feeds[0].aeron.mode=multicast,feeds[0].aeron.endpoint=224.0.1.4:1,feeds[0].aeron.mtu=8192,feeds[0].aeron.termLength=65536,feeds[0].aeron.streamIdBase=1'
sed 's/aeron: {mode: multicast, endpoint: 224.0.1.1:40456,/aeron: {mode: mdc, mdcControl: "10.0.0.1:40457",/' \
  "$CHART/ci/pair-values.yaml" >"$work/pair-mdc.yaml"
refuse "pair.enabled needs aeron.mode multicast" -f "$work/pair-mdc.yaml"
refuse "memory" --set feedHandler.memory=2GB
refuse "mdcControl" --set 'feeds[0].name=a,feeds[0].partitions=1,feeds[0].lineA.group=239.1.1.1,feeds[0].lineA.port=1,feeds[0].aeron.mode=mdc,feeds[0].aeron.mtu=8192,feeds[0].aeron.termLength=65536,feeds[0].aeron.streamIdBase=1'
refuse "termLength" --set 'feeds[0].name=a,feeds[0].partitions=1,feeds[0].lineA.group=239.1.1.1,feeds[0].lineA.port=1,feeds[0].aeron.mode=multicast,feeds[0].aeron.endpoint=224.0.1.1:1,feeds[0].aeron.mtu=8192,feeds[0].aeron.termLength=1000,feeds[0].aeron.streamIdBase=1'
refuse "name" --set 'feeds[0].name=Bad_Name,feeds[0].partitions=1,feeds[0].lineA.group=239.1.1.1,feeds[0].lineA.port=1,feeds[0].aeron.mode=multicast,feeds[0].aeron.endpoint=224.0.1.1:1,feeds[0].aeron.mtu=8192,feeds[0].aeron.termLength=65536,feeds[0].aeron.streamIdBase=1'
refuse "fanotu" --set fanotu.cpus=2
# A typo in any nested object is refused too, not ignored (additionalProperties: false everywhere).
refuse "maxUnavaliable" --set podDisruptionBudget.maxUnavaliable=1
refuse "inteval" --set metrics.serviceMonitor.inteval=30s
refuse "names no feed" --set subscriberExample.enabled=true,subscriberExample.feed=nope
# A pair's archive records both sides: side B's channel and stream ids in its args, /dev/shm for both sides' images.
"$HELM" template md "$CHART" -f "$CHART/ci/pair-values.yaml" --set archive.enabled=true >"$work/pair-archive.yaml" 2>&1 \
  && grep -q -- '--pair-channel=aeron:udp?endpoint=224.0.1.3:40456' "$work/pair-archive.yaml" \
  && grep -q -- '--pair-stream-id-base=' "$work/pair-archive.yaml" \
  && pass "a pair's archive records side B too (--pair-channel, --pair-stream-id-base)" || fail "a pair's archive args"

# The archive's values: retention and sizes are checked by the schema, their sum against the volume by the template.
refuse "sessions" --set archive.enabled=true,archive.retention.sessions=-1
refuse "bytes" --set archive.enabled=true,archive.retention.bytes=-5g
refuse "minFreeBytes" --set archive.enabled=true,archive.minFreeBytes=lots
refuse "size" --set archive.enabled=true,archive.persistence.size=null
refuse "size" --set archive.enabled=true,archive.persistence.size=50GB
refuse "retain" --set archive.enabled=true,archive.retention.retain=1
refuse "exceed archive.persistence.size" --set archive.enabled=true,archive.persistence.size=10Gi,archive.retention.bytes=10g
refuse "names no feed" --set 'archive.enabled=true,archive.feeds={nope}'
refuse "one claim cannot hold" -f "$CHART/ci/full-values.yaml" --set 'archive.feeds=null,archive.persistence.existingClaim=claim'

# The archive renders as a StatefulSet with its claim template, its Service and budget, and the values reach the
# container's arguments; in mdc mode it receives on a port of its own.
python3 - "$work/archive.yaml" "$work/full.yaml" <<'PY' && pass "archive: StatefulSet with a volumeClaimTemplate (20Gi, mdfanout-test), retention flags in its args, Service, PDB, ServiceMonitor endpoint; one archive of the two feeds in the full values" || fail "archive rendering"
import sys, yaml
def objects(path):
    return [d for d in yaml.safe_load_all(open(path)) if d]
problems = []
docs = objects(sys.argv[1])
sts = [d for d in docs if d['kind'] == 'StatefulSet']
if len(sts) != 1:
    problems.append(f"{len(sts)} StatefulSets")
else:
    spec = sts[0]['spec']
    claim = spec.get('volumeClaimTemplates', [{}])[0]
    if claim.get('metadata', {}).get('name') != 'archive' or claim['spec']['resources']['requests']['storage'] != '20Gi' \
            or claim['spec'].get('storageClassName') != 'mdfanout-test':
        problems.append(f"claim template {claim}")
    pod = spec['template']['spec']
    args = pod['containers'][0]['args']
    for arg in ['archive', '--archive-dir=/var/lib/mdfanout/archive', '--retain-sessions=5', '--retain-bytes=15g',
                '--min-free-bytes=2g', '--control-channel=aeron:udp?endpoint=0.0.0.0:8010', '--partitions=4',
                '--stream-id-base=1000', '--metrics-port=9404', '--idle-strategy=park', '--session=ci']:
        if arg not in args:
            problems.append(f"{arg} not in {args}")
    mounts = {m['name']: m['mountPath'] for m in pod['containers'][0]['volumeMounts']}
    if mounts.get('archive') != '/var/lib/mdfanout/archive':
        problems.append(f"mounts {mounts}")
    shm = [v for v in pod['volumes'] if v['name'] == 'shm'][0]['emptyDir']
    # 3 terms of 16 MiB per partition (4) and per replay (2), and 64 MiB.
    if shm.get('medium') != 'Memory' or shm.get('sizeLimit') != '352Mi':
        problems.append(f"shm {shm}")
    if spec['serviceName'] not in [d['metadata']['name'] for d in docs if d['kind'] == 'Service']:
        problems.append("no headless Service named by serviceName")
    if not any(d['kind'] == 'PodDisruptionBudget' and d['spec']['selector']['matchLabels'].get('app.kubernetes.io/component') == 'archive' for d in docs):
        problems.append("no PDB of the archive")
monitor = [d for d in docs if d['kind'] == 'ServiceMonitor'][0]
if 'mdfanout-archive' not in [e['relabelings'][0]['replacement'] for e in monitor['spec']['endpoints']]:
    problems.append("no ServiceMonitor endpoint of job mdfanout-archive")
full = [d for d in objects(sys.argv[2]) if d['kind'] == 'StatefulSet']
if [d['metadata']['name'] for d in full] != ['md-nasdaq-bx-archive']:
    problems.append(f"full values: archives {[d['metadata']['name'] for d in full]}")
elif full[0]['spec']['template']['spec']['nodeSelector'] != {'node-role.mdfanout.io/archive': 'true'}:
    problems.append("full values: archive.nodeSelector not used")
for p in problems:
    print('  problem:', p)
sys.exit(1 if problems else 0)
PY
"$HELM" template md "$CHART" -f "$CHART/ci/mdc-multus-values.yaml" --set archive.enabled=true >"$work/mdc-archive.yaml" 2>&1 \
  && grep -q -- '--channel=aeron:udp?endpoint=$(POD_IP):40459|control=10.20.0.10:40457|control-mode=dynamic' "$work/mdc-archive.yaml" \
  && pass "archive in mdc mode: receives at its own address on archive.mdcReceivePort" || fail "archive channel in mdc mode"

# Every pod template of the full values carries the pull secret (the subscriber example and the test pod too).
pods="$(grep -c '^kind: \(Deployment\|StatefulSet\|Pod\)$' "$work/full.yaml" || true)"
secrets="$(grep -c 'imagePullSecrets:' "$work/full.yaml" || true)"
[ "$pods" -gt 0 ] && [ "$pods" = "$secrets" ] && pass "imagePullSecrets on all $pods pod templates of the full values" \
  || fail "imagePullSecrets on $secrets of $pods pod templates"

# ---- 2b. issue 36: stable pod templates, explicit feed ports, the GLIMPSE Secret, the test pod's memory, ----------
#          the NetworkPolicy, hostNetwork without Multus
# Values refused by the templates (helm fail), each with a message that says why.
bad="$work/bad-values"
mkdir -p "$bad"
feed() { # name feedHandlerMetrics fanoutMetrics: one feed of a values file
  echo "  - name: $1"
  echo "    partitions: 1"
  echo "    lineA: {group: 239.1.1.1, port: 26477}"
  echo "    ports: {feedHandlerMetrics: $2, fanoutMetrics: $3}"
  echo "    aeron: {mode: multicast, endpoint: 224.0.1.1:40456, mtu: 1408, termLength: 65536, streamIdBase: 1000}"
}
{ echo "feeds:"; feed a 9401 9402; feed b 9411 9401; } >"$bad/shared-port.yaml"
{ echo "feeds:"; feed a 9401 9402; feed a 9411 9412; } >"$bad/same-name.yaml"
{ echo "feeds:"; feed a 9401 9402; echo "  - {name: b, partitions: 1, lineA: {group: 239.1.1.1, port: 26477}, aeron: {mode: multicast, endpoint: 224.0.1.1:40456, mtu: 1408, termLength: 65536, streamIdBase: 1000}}"; } >"$bad/no-ports.yaml"
{ echo "feeds:"; feed a 9401 9402; echo "archive: {enabled: true}"; } >"$bad/archive-no-ports.yaml"
{ echo "feeds:"; feed a 9401 9402; echo "    feedHandlerArgs: [--glimpse-password=hunter2]"; } >"$bad/password-arg.yaml"
{ echo "feeds:"; feed a 9401 9402; echo "    glimpse: 10.0.0.1:26410"; echo "    glimpseCredentials: {password: x, existingSecret: some-secret}"; } >"$bad/two-passwords.yaml"
refuse "TCP port 9401 is used twice: by feeds a ports.feedHandlerMetrics and by feeds b ports.fanoutMetrics" -f "$bad/shared-port.yaml"
refuse 'two feeds are named "a"' -f "$bad/same-name.yaml"
refuse 'feed "b" has no ports.feedHandlerMetrics: every feed.s ports are explicit .*Before this chart version this feed used 9411' -f "$bad/no-ports.yaml"
refuse 'feed "a" has no ports.archiveMetrics' -f "$bad/archive-no-ports.yaml"
refuse "would show the GLIMPSE password in the pod spec and ps" -f "$bad/password-arg.yaml"
refuse "glimpseCredentials has both password and existingSecret" -f "$bad/two-passwords.yaml"
refuse "metrics.feedHandlerPort is gone" --set metrics.feedHandlerPort=9401
refuse "archive.controlPort is gone" --set archive.controlPort=8010
refuse "tests.memory is gone" --set tests.memory=512Mi
refuse "multicast does not flow" --set network.hostNetwork=false
refuse "multicast does not flow" -f "$CHART/ci/mdc-multus-values.yaml" --set network.multusNetworks=
"$HELM" template md "$CHART" --set network.hostNetwork=false,network.podNetworkMulticast=true >/dev/null 2>&1 \
  && pass "hostNetwork false renders with network.podNetworkMulticast (a CNI that carries multicast)" \
  || fail "hostNetwork false with podNetworkMulticast"

# The same chart at another version (and appVersion, with image.tag pinned), with a dashboard edited and the
# dashboards' labels changed, and with the other feed's settings changed: every feed pod template byte-identical.
# A change of a feed's own settings changes its checksum/feed (and so rolls that feed alone).
bumped="$work/chart-bumped"
cp -r "$CHART" "$bumped"
sed -i 's/^version: .*/version: 9.9.9/; s/^appVersion: .*/appVersion: "9.9.9"/' "$bumped/Chart.yaml"
sed -i '0,/"title": "[^"]*"/s//"title": "edited by chart-test"/' "$bumped/dashboards/mdfanout-feed.json"
python3 - "$CHART/ci/full-values.yaml" "$work" <<'PY'
import sys, yaml
values = yaml.safe_load(open(sys.argv[1]))
first_removed = dict(values, feeds=values['feeds'][1:])
yaml.safe_dump(first_removed, open(sys.argv[2] + '/full-first-removed.yaml', 'w'))
other_changed = yaml.safe_load(open(sys.argv[1]))
other_changed['feeds'][0]['snapshotIntervalMs'] = 250
yaml.safe_dump(other_changed, open(sys.argv[2] + '/full-first-changed.yaml', 'w'))
PY
render() { local out="$1"; shift; "$HELM" template md "$@" --set image.tag=pinned >"$work/$out.yaml" 2>"$work/$out.err" || { cat "$work/$out.err" >&2; fail "render $out"; }; }
render base "$CHART" -f "$CHART/ci/full-values.yaml"
render bumped "$bumped" -f "$CHART/ci/full-values.yaml" --set metrics.dashboards.labels.team=md
render first-changed "$CHART" -f "$work/full-first-changed.yaml"
render first-removed "$CHART" -f "$work/full-first-removed.yaml"
render default-base "$CHART"
render default-bumped "$bumped" --set metrics.dashboards.enabled=false
python3 - "$work" <<'PY' && pass "pod templates: a chart/appVersion bump and a dashboard change leave every feed pod template byte-identical (no version label); a feed's own change changes its checksum/feed alone; removing the first feed leaves the second's pod template, ports and Service unchanged" || fail "pod template stability or feed ports"
import re, sys, yaml
work = sys.argv[1]
def docs(name):
    text = open(f"{work}/{name}.yaml").read()
    return [d for d in re.split(r"^---\n", text, flags=re.M) if d.strip()]
def template_text(name, kind, obj):
    """The raw text of an object's pod template, from 'template:' to the end of the document: compared as bytes."""
    for d in docs(name):
        if re.search(rf"^kind: {kind}$", d, re.M) and re.search(rf"^  name: {obj}$", d, re.M):
            return d[d.index("\n  template:\n"):]
    raise SystemExit(f"  problem: no {kind} {obj} in {name}")
def obj(name, kind, objname):
    for d in docs(name):
        o = yaml.safe_load(d)
        if o and o['kind'] == kind and o['metadata']['name'] == objname:
            return o
    raise SystemExit(f"  problem: no {kind} {objname} in {name}")
problems = []
feeds = ['md-nasdaq-totalview', 'md-nasdaq-bx']
for f in feeds:
    if template_text('base', 'Deployment', f) != template_text('bumped', 'Deployment', f):
        problems.append(f"{f}: pod template differs after a chart bump and a dashboard change")
    t = template_text('base', 'Deployment', f)
    for label in ('helm.sh/chart', 'app.kubernetes.io/version', '9.9.9', '0.1.0'):
        if label in t:
            problems.append(f"{f}: pod template carries {label}")
for f in ['md-nasdaq-totalview']:
    if template_text('default-base', 'Deployment', f) != template_text('default-bumped', 'Deployment', f):
        problems.append(f"default values: {f} pod template differs after a chart bump and dashboards off")
if template_text('base', 'StatefulSet', 'md-nasdaq-bx-archive') != template_text('bumped', 'StatefulSet', 'md-nasdaq-bx-archive'):
    problems.append("archive pod template differs after a chart bump")
# A feed's own change: its checksum changes, the other feed's template does not.
def checksum(name, f):
    return obj(name, 'Deployment', f)['spec']['template']['metadata']['annotations']['checksum/feed']
if checksum('base', 'md-nasdaq-totalview') == checksum('first-changed', 'md-nasdaq-totalview'):
    problems.append("changing nasdaq-totalview's snapshotIntervalMs left its checksum/feed")
if template_text('base', 'Deployment', 'md-nasdaq-bx') != template_text('first-changed', 'Deployment', 'md-nasdaq-bx'):
    problems.append("changing nasdaq-totalview changed nasdaq-bx's pod template")
# Removing the first feed: the second's pod template (ports included), Service and archive are unchanged.
if template_text('base', 'Deployment', 'md-nasdaq-bx') != template_text('first-removed', 'Deployment', 'md-nasdaq-bx'):
    problems.append("removing the first feed changed nasdaq-bx's pod template")
def ports(name):
    d = obj(name, 'Deployment', 'md-nasdaq-bx')['spec']['template']['spec']['containers']
    s = obj(name, 'Service', 'md-nasdaq-bx-metrics')['spec']['ports']
    a = obj(name, 'StatefulSet', 'md-nasdaq-bx-archive')['spec']['template']['spec']['containers'][0]
    return ([c.get('ports') for c in d], [a for c in d for a in c['args'] if 'port' in a], s, a['ports'],
            [x for x in a['args'] if 'port' in x or 'control-channel' in x])
before, after = ports('base'), ports('first-removed')
print(f"  nasdaq-bx ports with and without the first feed: {before[0]} {before[1]} archive {before[3]}")
if before != after:
    problems.append(f"nasdaq-bx ports moved: {before} -> {after}")
if ['--metrics-port=9411', '--metrics-port=9412'] != [a for a in before[1] if a.startswith('--metrics-port')]:
    problems.append(f"nasdaq-bx metrics ports {before[1]}")
for p in problems:
    print('  problem:', p)
sys.exit(1 if problems else 0)
PY

# The check pod's memory: its /dev/shm plus its direct memory plus tests.memoryHeadroom (448 + 80 + 256 MiB at the
# defaults: 4 partitions, each with a 16 MiB recovery buffer when it joins mid-session, + 16 MiB), above its shm.
python3 - "$work/default.yaml" <<'PY' && pass "helm test pod: memory limit = request above its /dev/shm and direct memory (default values)" || fail "helm test pod memory"
import sys, yaml
pods = [d for d in yaml.safe_load_all(open(sys.argv[1])) if d and d['kind'] == 'Pod']
ok = bool(pods)
for pod in pods:
    mi = lambda q: int(q[:-2]) * (1024 if q.endswith('Gi') else 1)
    shm = mi([v for v in pod['spec']['volumes'] if v['name'] == 'shm'][0]['emptyDir']['sizeLimit'])
    r = pod['spec']['containers'][0]['resources']
    limit, request = mi(r['limits']['memory']), mi(r['requests']['memory'])
    options = [e['value'] for e in pod['spec']['containers'][0]['env'] if e['name'] == 'JDK_JAVA_OPTIONS'][0]
    direct = [o for o in options.split() if o.startswith('-XX:MaxDirectMemorySize=')]
    print(f"  {pod['metadata']['name']}: /dev/shm {shm}Mi, {direct}, memory limit {limit}Mi, request {request}Mi")
    ok = ok and limit == request and limit > shm and shm == 448 and direct == ['-XX:MaxDirectMemorySize=80m'] \
        and limit == 448 + 80 + 256
sys.exit(0 if ok else 1)
PY

# The GLIMPSE password: a Secret mounted as a file into the feed handler, never in an argument or the pod spec.
python3 - "$work/full.yaml" "$work/mdc-multus.yaml" <<'PY' && pass "GLIMPSE password: a Secret (created, or existing with its key) mounted read-only into the feed handler, --glimpse-password-file, never on argv" || fail "GLIMPSE credentials"
import base64, sys, yaml
problems = []
full = [d for d in yaml.safe_load_all(open(sys.argv[1])) if d]
mdc = [d for d in yaml.safe_load_all(open(sys.argv[2])) if d]
secret = [d for d in full if d['kind'] == 'Secret' and d['metadata']['name'] == 'md-nasdaq-bx-glimpse']
if len(secret) != 1 or base64.b64decode(secret[0]['data']['password']) != b's3cret':
    problems.append(f"created Secret {secret}")
for docs, name, secret_name, key in ((full, 'md-nasdaq-bx', 'md-nasdaq-bx-glimpse', 'password'),
                                     (mdc, 'md-nasdaq-totalview', 'exchange-glimpse', 'pw')):
    dep = [d for d in docs if d['kind'] == 'Deployment' and d['metadata']['name'] == name][0]
    spec = dep['spec']['template']['spec']
    fh = [c for c in spec['containers'] if c['name'] == 'feed-handler'][0]
    if '--glimpse-password-file=/etc/mdfanout/glimpse/password' not in fh['args'] or '--glimpse-username=mdf' not in fh['args']:
        problems.append(f"{name} args {fh['args']}")
    if any('s3cret' in a or a.startswith('--glimpse-password=') for c in spec['containers'] for a in c['args']) \
            or 's3cret' in yaml.safe_dump(dep):
        problems.append(f"{name}: the password is in the pod spec")
    vol = [v for v in spec['volumes'] if v['name'] == 'glimpse']
    if not vol or vol[0]['secret']['secretName'] != secret_name or vol[0]['secret']['items'] != [{'key': key, 'path': 'password'}]:
        problems.append(f"{name} volume {vol}")
    mounts = [(c['name'], m) for c in spec['containers'] for m in c['volumeMounts'] if m['name'] == 'glimpse']
    if mounts != [('feed-handler', {'name': 'glimpse', 'mountPath': '/etc/mdfanout/glimpse', 'readOnly': True})]:
        problems.append(f"{name} mounts {mounts}")
other = [d for d in full if d['kind'] == 'Deployment' and d['metadata']['name'] == 'md-nasdaq-totalview'][0]
if 'glimpse' in yaml.safe_dump(other['spec']['template']['spec']['volumes']):
    problems.append("a feed without glimpse mounts a GLIMPSE Secret")
for p in problems:
    print('  problem:', p)
sys.exit(1 if problems else 0)
PY

# The NetworkPolicy on a pod network: GLIMPSE TCP and the re-request server out (an address as itself, a host name
# through exchangeCIDRs), metrics in from Prometheus only, the subscribers' and archives' UDP ports.
python3 - "$work/mdc-multus.yaml" "$work/podnet.yaml" <<'PY' && pass "NetworkPolicy: GLIMPSE TCP and re-request UDP egress to their servers, metrics ingress from the scraping pods, subscriber and archive-control ports" || fail "NetworkPolicy"
import sys, yaml
problems = []
def policies(path):
    return {d['metadata']['name']: d['spec'] for d in yaml.safe_load_all(open(path)) if d and d['kind'] == 'NetworkPolicy'}
mdc = policies(sys.argv[1])
feed = mdc.get('md-nasdaq-totalview')
if not feed:
    problems.append(f"mdc: policies {list(mdc)}")
else:
    egress = feed['egress']
    if {'ports': [{'port': 26410, 'protocol': 'TCP'}], 'to': [{'ipBlock': {'cidr': '10.20.0.0/24'}}]} not in egress:
        problems.append(f"mdc: no GLIMPSE egress through exchangeCIDRs: {egress}")
    if {'ports': [{'port': 26478, 'protocol': 'UDP'}], 'to': [{'ipBlock': {'cidr': '10.20.0.5/32'}}]} not in egress:
        problems.append(f"mdc: no re-request egress to 10.20.0.5: {egress}")
    metrics = feed['ingress'][0]
    if metrics['ports'] != [{'port': 9401, 'protocol': 'TCP'}, {'port': 9402, 'protocol': 'TCP'}] \
            or metrics.get('from') != [{'namespaceSelector': {}, 'podSelector': {'matchLabels': {'app.kubernetes.io/name': 'prometheus'}}}]:
        problems.append(f"mdc: metrics ingress {metrics}")
    if {'ports': [{'port': 40457, 'protocol': 'UDP'}]} not in feed['ingress']:
        problems.append(f"mdc: no ingress to the fanout's control port: {feed['ingress']}")
pod = policies(sys.argv[2])
print(f"  podnet policies: {sorted(pod)}")
if sorted(pod) != ['md-mdfanout-archive', 'md-mdfanout-subscribers', 'md-nasdaq-totalview']:
    problems.append(f"podnet: policies {sorted(pod)}")
else:
    if {'ports': [{'port': 26410, 'protocol': 'TCP'}], 'to': [{'ipBlock': {'cidr': '10.30.0.7/32'}}]} not in pod['md-nasdaq-totalview']['egress']:
        problems.append(f"podnet: GLIMPSE egress {pod['md-nasdaq-totalview']['egress']}")
    archive_ports = [p for rule in pod['md-mdfanout-archive']['ingress'] for p in rule['ports']]
    if {'port': 8010, 'protocol': 'UDP'} not in archive_ports or {'port': 9404, 'protocol': 'TCP'} not in archive_ports:
        problems.append(f"podnet: archive ingress {archive_ports}")
    sub = pod['md-mdfanout-subscribers']
    if sub['podSelector']['matchExpressions'][0]['values'] != ['subscriber', 'test'] or sub['ingress'][0]['ports'] != [{'port': 9403, 'protocol': 'TCP'}]:
        problems.append(f"podnet: subscribers' policy {sub}")
for p in problems:
    print('  problem:', p)
sys.exit(1 if problems else 0)
PY

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

# Volumes for the archives' claims (the full values' and ci/archive-values.yaml's; no provisioner here), and the
# node the full values' archive.nodeSelector asks for.
for i in 1 2; do
  cat <<PV | kubectl apply -f - >/dev/null
apiVersion: v1
kind: PersistentVolume
metadata: {name: mdfanout-test-$i}
spec:
  capacity: {storage: 20Gi}
  accessModes: [ReadWriteOnce]
  storageClassName: mdfanout-test
  persistentVolumeReclaimPolicy: Retain
  hostPath: {path: /var/lib/mdfanout-test-$i}
PV
done
kubectl label node mdfanout-node-2 node-role.mdfanout.io/archive=true >/dev/null

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
archive_node="$(kubectl get pod -n full md3-nasdaq-bx-archive-0 -o jsonpath='{.spec.nodeName}')"
[ "$archive_node" = mdfanout-node-2 ] && pass "the full values' archive on the node its nodeSelector names ($archive_node)" \
  || fail "archive of the full values on '$archive_node'"
"$HELM" uninstall md3 -n full >/dev/null && pass "helm uninstall md3"
kubectl wait --for=delete pod -n full -l app.kubernetes.io/instance=md3 --timeout 60s >/dev/null 2>&1 || true

# ---- 4. the archive: a StatefulSet whose claim binds a volume ---------------------------------------------
install_and_check md4 archive -f "$CHART/ci/archive-values.yaml" \
  --set metrics.serviceMonitor.enabled=false,metrics.prometheusRule.enabled=false
claim="$(kubectl get pvc -n archive archive-md4-nasdaq-totalview-archive-0 -o jsonpath='{.status.phase} {.spec.storageClassName} {.status.capacity.storage}' 2>&1)"
[ "$claim" = "Bound mdfanout-test 20Gi" ] && pass "archive claim from the volumeClaimTemplate: $claim" || fail "archive claim: $claim"
ready="$(kubectl get statefulset -n archive md4-nasdaq-totalview-archive -o jsonpath='{.status.readyReplicas}/{.spec.replicas}')"
args="$(kubectl get pod -n archive md4-nasdaq-totalview-archive-0 -o jsonpath='{.spec.containers[0].args}')"
[ "$ready" = 1/1 ] && [[ "$args" == *'"--retain-sessions=5"'*'"--retain-bytes=15g"'*'"--min-free-bytes=2g"'* ]] \
  && pass "archive StatefulSet ready $ready; retention in the running container's args" || fail "archive: ready $ready, args $args"
"$HELM" uninstall md4 -n archive >/dev/null && pass "helm uninstall md4"
kept="$(kubectl get pvc -n archive -o name)"
[ "$kept" = "persistentvolumeclaim/archive-md4-nasdaq-totalview-archive-0" ] \
  && pass "the recordings' claim outlives the release: $kept" || fail "claims after uninstall: '$kept'"

# ---- 5. a pair: two sides on two nodes, one side kept up, an upgrade one side at a time ------------------
install_and_check md5 pair -f "$CHART/ci/pair-values.yaml" \
  --set metrics.serviceMonitor.enabled=false,metrics.prometheusRule.enabled=false
sides="$(kubectl get pods -n pair -l app.kubernetes.io/component=feed \
  -o jsonpath='{range .items[*]}{.metadata.labels.apps\.kubernetes\.io/pod-index}={.spec.nodeName} {end}')"
read -r side0 side1 <<<"$sides"
[[ "$side0" == 0=* && "$side1" == 1=* && "${side0#0=}" != "${side1#1=}" ]] \
  && pass "pair: side A (pod index 0) and side B (pod index 1) on different nodes: $sides" || fail "pair sides: '$sides'"
budget="$(kubectl get pdb -n pair md5-nasdaq-pair -o jsonpath='{.spec.maxUnavailable}')"
[ "$budget" = 1 ] && pass "pair: the disruption budget keeps one side up (maxUnavailable $budget)" || fail "pair budget: '$budget'"
sed 's/    snapshotIntervalMs: 1000/    fanoutArgs: ["--ring-read-limit=128"]\n    snapshotIntervalMs: 1000/' \
  "$CHART/ci/pair-values.yaml" >"$work/pair-upgrade.yaml"
if "$HELM" upgrade md5 "$CHART" -n pair -f "$work/pair-upgrade.yaml" --wait --timeout 120s \
  --set metrics.serviceMonitor.enabled=false,metrics.prometheusRule.enabled=false >"$work/upgrade-md5.log" 2>&1 \
  && kubectl rollout status statefulset/md5-nasdaq-pair -n pair --timeout 120s >>"$work/upgrade-md5.log" 2>&1; then
  kubectl get pods -n pair -l app.kubernetes.io/component=feed -o json >"$work/pods-md5-upgraded.json"
  if python3 - "$work/pods-md5-upgraded.json" <<'PY'
import json, sys
from datetime import datetime
def t(s): return datetime.strptime(s, '%Y-%m-%dT%H:%M:%SZ')
pods = {p['metadata']['labels']['apps.kubernetes.io/pod-index']: p for p in json.load(open(sys.argv[1]))['items']}
created = {i: t(p['metadata']['creationTimestamp']) for i, p in pods.items()}
ready = {i: t(next(c['lastTransitionTime'] for c in p['status']['conditions'] if c['type'] == 'Ready')) for i, p in pods.items()}
args = {i: next(c['args'] for c in p['spec']['containers'] if c['name'] == 'fanout') for i, p in pods.items()}
print(f"  side B created {created['1']}, ready {ready['1']}; side A created {created['0']}")
ok = all('--ring-read-limit=128' in a for a in args.values()) and created['1'] <= created['0'] \
    and (created['0'] - ready['1']).total_seconds() >= 2
sys.exit(0 if ok else 1)
PY
  then pass "pair: helm upgrade replaced side B first, then side A once side B had been ready for minReadySeconds"
  else fail "pair: upgrade order (pods in $work/pods-md5-upgraded.json)"; fi
else
  cat "$work/upgrade-md5.log" >&2; fail "pair: helm upgrade md5"
fi
"$HELM" uninstall md5 -n pair >/dev/null && pass "helm uninstall md5"

if [ "$failures" != 0 ]; then
  echo "chart-test: $failures failure(s)" >&2
  exit 1
fi
echo "chart-test: all passed"
