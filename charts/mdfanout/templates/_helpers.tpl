{{/* Chart name, truncated to the 63 characters Kubernetes allows in a label. */}}
{{- define "mdfanout.name" -}}
{{- .Chart.Name | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/* Release-qualified name of one feed's objects. Call with (dict "root" $ "feed" $feed). */}}
{{- define "mdfanout.feedName" -}}
{{- printf "%s-%s" .root.Release.Name .feed.name | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/* Labels of the objects themselves (not of pod templates): these may carry the chart's and the app's versions. */}}
{{- define "mdfanout.labels" -}}
{{ include "mdfanout.podLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" }}
{{- end -}}

{{/* Labels of pod templates: nothing that changes when only the chart's version (or appVersion with a pinned
image.tag) does, so that a chart bump leaves a feed pod running (a changed template restarts the pod, and a
restarted feed pod starts with empty rings). What the pod reads is in its checksum annotations. */}}
{{- define "mdfanout.podLabels" -}}
app.kubernetes.io/name: {{ include "mdfanout.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end -}}

{{/*
One of a feed's explicit ports (feeds[].ports.<key>), or a failure saying why it is needed. Ports used to be the
base ports of `metrics` + 10 x the feed's position in `feeds`, so removing one feed moved the others' ports.
Call with (dict "root" $ "feed" $feed "key" "feedHandlerMetrics").
*/}}
{{- define "mdfanout.feedPort" -}}
{{- $ports := .feed.ports | default dict -}}
{{- $port := get $ports .key -}}
{{- if not $port -}}
{{- $index := 0 -}}
{{- range $i, $f := .root.Values.feeds }}{{ if eq $f.name $.feed.name }}{{ $index = $i }}{{ end }}{{ end -}}
{{- $old := dict "feedHandlerMetrics" 9401 "fanoutMetrics" 9402 "archiveMetrics" 9404 "archiveControl" 8010 -}}
{{- fail (printf "feeds: feed %q has no ports.%s: every feed's ports are explicit (feeds[].ports), no longer derived from its position in feeds (which moved the other feeds' ports when one was removed). Before this chart version this feed used %d (with the default base ports): set ports.%s: %d to keep it (README.md, Migrating)" .feed.name .key (add (get $old .key) (mul 10 $index)) .key (add (get $old .key) (mul 10 $index))) -}}
{{- end -}}
{{- $port -}}
{{- end -}}

{{/*
Values the schema cannot check, refused with a message that says why. Included once by feed-deployment.yaml.
*/}}
{{- define "mdfanout.validate" -}}
{{- $v := .Values -}}
{{- range $key := list "feedHandlerPort" "fanoutPort" "archivePort" -}}
{{- if hasKey $v.metrics $key -}}
{{- fail (printf "metrics.%s is gone: a feed's ports are explicit in feeds[].ports (derived from a feed's position, they moved when a feed was removed); remove metrics.%s (README.md, Migrating)" $key $key) -}}
{{- end -}}
{{- end -}}
{{- if hasKey $v.archive "controlPort" -}}
{{- fail "archive.controlPort is gone: each archived feed's control port is feeds[].ports.archiveControl; remove archive.controlPort (README.md, Migrating)" -}}
{{- end -}}
{{- if hasKey $v.tests "memory" -}}
{{- fail "tests.memory is gone: the check pod's memory is computed from its /dev/shm plus tests.memoryHeadroom (512Mi fell short of a 448Mi /dev/shm and the JVM); remove tests.memory, set tests.memoryHeadroom if needed" -}}
{{- end -}}
{{- /* Multicast needs the node's NICs or a Multus interface: the exchange's lines A and B are multicast whatever
Aeron's mode (mdc replaces only the fanout's multicast), and pod networks do not carry it. */ -}}
{{- if and (not $v.network.hostNetwork) (not $v.network.multusNetworks) (not $v.network.podNetworkMulticast) -}}
{{- fail "network.hostNetwork is false and network.multusNetworks is empty: the pods would be on the pod network alone, where multicast does not flow (the exchange's lines A/B are multicast, and so is Aeron unless feeds[].aeron.mode is mdc): the feed would receive nothing. Set network.hostNetwork: true, name a Multus attachment in network.multusNetworks, or, only if your CNI really carries multicast to pods, network.podNetworkMulticast: true" -}}
{{- end -}}
{{- $names := dict -}}
{{- $used := dict -}}
{{- $claim := dict "TCP" (dict) "UDP" (dict) -}}
{{- range $feed := $v.feeds -}}
{{- if hasKey $names $feed.name -}}
{{- fail (printf "feeds: two feeds are named %q: a feed's name keys its objects, its /dev/shm directory and its ports" $feed.name) -}}
{{- end -}}
{{- $_ := set $names $feed.name true -}}
{{- $keys := list (list "feedHandlerMetrics" "TCP") (list "fanoutMetrics" "TCP") -}}
{{- if include "mdfanout.archived" (dict "root" $ "feed" $feed) -}}
{{- $keys = concat $keys (list (list "archiveMetrics" "TCP") (list "archiveControl" "UDP")) -}}
{{- end -}}
{{- range $k := $keys -}}
{{- $port := include "mdfanout.feedPort" (dict "root" $ "feed" $feed "key" (index $k 0)) -}}
{{- $owner := printf "feeds %s ports.%s" $feed.name (index $k 0) -}}
{{- $byPort := get $claim (index $k 1) -}}
{{- if hasKey $byPort $port -}}
{{- fail (printf "%s port %s is used twice: by %s and by %s (on hostNetwork the pods of a release share the node's ports): give each its own" (index $k 1) $port (get $byPort $port) $owner) -}}
{{- end -}}
{{- $_ := set $byPort $port $owner -}}
{{- end -}}
{{- range $arg := concat $v.feedHandler.extraArgs ($feed.feedHandlerArgs | default list) -}}
{{- if hasPrefix "--glimpse-password" (toString $arg) -}}
{{- fail (printf "feeds %s: %s in the feed handler's arguments would show the GLIMPSE password in the pod spec and ps: use feeds[].glimpseCredentials (a Secret mounted as a file)" $feed.name (regexReplaceAll "=.*" (toString $arg) "=...")) -}}
{{- end -}}
{{- end -}}
{{- if eq $feed.aeron.mode "multicast" -}}
{{- $endpoints := list (list "aeron.endpoint" $feed.aeron.endpoint) -}}
{{- if and $feed.pair $feed.pair.enabled $feed.pair.endpointB -}}
{{- $endpoints = append $endpoints (list "pair.endpointB" $feed.pair.endpointB) -}}
{{- end -}}
{{- range $e := $endpoints -}}
{{- $group := regexFind "^[0-9]+[.][0-9]+[.][0-9]+[.][0-9]+" (toString (index $e 1)) -}}
{{- if and $group (eq 0 (mod (splitList "." $group | last | atoi) 2 | int)) -}}
{{- fail (printf "feeds %s: %s %s: an Aeron multicast group must end in an odd number (Aeron sends its control messages to the next address, even): e.g. %s" $feed.name (index $e 0) (index $e 1) (printf "%s.%d" (splitList "." $group | initial | join ".") (add1 (splitList "." $group | last | atoi)))) -}}
{{- end -}}
{{- end -}}
{{- end -}}
{{- if and $feed.pair $feed.pair.enabled -}}
{{- if ne $feed.aeron.mode "multicast" -}}
{{- fail (printf "feeds %s: pair.enabled needs aeron.mode multicast (each side on a multicast group of its own); a pair over mdc is not supported yet" $feed.name) -}}
{{- end -}}
{{- if not $feed.pair.endpointB -}}
{{- fail (printf "feeds %s: pair.enabled needs pair.endpointB, side B's multicast group:port (side A publishes on aeron.endpoint)" $feed.name) -}}
{{- end -}}
{{- if eq $feed.pair.endpointB $feed.aeron.endpoint -}}
{{- fail (printf "feeds %s: pair.endpointB is aeron.endpoint: each side needs a multicast group of its own, or subscribers would receive both sides as one" $feed.name) -}}
{{- end -}}
{{- end -}}
{{- $c := $feed.glimpseCredentials | default dict -}}
{{- if and $c.password $c.existingSecret -}}
{{- fail (printf "feeds %s: glimpseCredentials has both password and existingSecret: give one (existingSecret keeps the password out of the values)" $feed.name) -}}
{{- end -}}
{{- end -}}
{{- if $v.subscriberExample.enabled -}}
{{- $port := toString $v.metrics.subscriberPort -}}
{{- if hasKey (get $claim "TCP") $port -}}
{{- fail (printf "TCP port %s is used twice: by %s and by metrics.subscriberPort: give each its own" $port (get (get $claim "TCP") $port)) -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{/* The Secret holding a feed's GLIMPSE password ("" when none is configured). Call with (dict "root" $ "feed" $feed). */}}
{{- define "mdfanout.glimpseSecretName" -}}
{{- $c := .feed.glimpseCredentials | default dict -}}
{{- if and .feed.glimpse $c.existingSecret -}}{{ $c.existingSecret }}
{{- else if and .feed.glimpse $c.password -}}{{ include "mdfanout.feedName" . | trunc 56 | trimSuffix "-" }}-glimpse
{{- end -}}
{{- end -}}

{{/* Memory of the helm test pod in MiB: its /dev/shm (a memory-backed emptyDir, charged to the container) plus
tests.memoryHeadroom (its 64 MiB heap, the JVM's own memory and the embedded media driver). Call with (dict "root" $
"feed" $feed). */}}
{{- define "mdfanout.testMemoryMiB" -}}
{{- add (include "mdfanout.subscriberShmMiB" .feed | int) (include "mdfanout.toMiB" .root.Values.tests.memoryHeadroom | int) (include "mdfanout.checkDirectMiB" .feed | int) -}}
{{- end -}}

{{/* The check's direct memory (-XX:MaxDirectMemorySize, in MiB): a subscriber that joins mid-session holds a 16 MiB
recovery buffer per partition, and a pair's arbitration 2 MiB per side and partition, beside its counters: with the
64 MiB heap as the bound (the JVM's default) a 4-partition feed would not fit. Call with the feed. */}}
{{- define "mdfanout.checkDirectMiB" -}}
{{- $perPartition := ternary 20 16 (and .pair .pair.enabled | default false) -}}
{{- add (mul .partitions $perPartition) 16 -}}
{{- end -}}

{{- define "mdfanout.image" -}}
{{- printf "%s:%s" .Values.image.repository (default .Chart.AppVersion .Values.image.tag) -}}
{{- end -}}

{{/* The Aeron channel the fanout publishes on. Call with the feed. */}}
{{- define "mdfanout.publicationChannel" -}}
{{- $a := .aeron -}}
{{- if eq $a.mode "mdc" -}}
aeron:udp?control={{ $a.mdcControl }}|control-mode=dynamic|mtu={{ $a.mtu }}
{{- else -}}
aeron:udp?endpoint={{ $a.endpoint }}{{ if $a.interface }}|interface={{ $a.interface }}{{ end }}|mtu={{ $a.mtu }}
{{- end -}}
{{- end -}}

{{/* A pair's side B as a feed of its own (YAML, for fromYaml): the feed with aeron.endpoint replaced by
pair.endpointB. Call with the feed. */}}
{{- define "mdfanout.sideB" -}}
{{- $aeron := merge (dict "endpoint" .pair.endpointB) (deepCopy .aeron) -}}
{{- toYaml (merge (dict "aeron" $aeron) (omit . "aeron")) -}}
{{- end -}}

{{/* The Aeron channel a subscriber uses ($(POD_IP) is expanded by the kubelet). In mdc mode one fixed port: every
partition's subscription then shares one socket and the fanout sends each stream to each subscriber once (with port 0
each subscription got a socket of its own, and the fanout sent every stream to all of them). Call with the feed. */}}
{{- define "mdfanout.subscriptionChannel" -}}
{{- $a := .aeron -}}
{{- if eq $a.mode "mdc" -}}
aeron:udp?endpoint=$(POD_IP):{{ $a.mdcSubscriberPort | default 40458 }}|control={{ $a.mdcControl }}|control-mode=dynamic
{{- else -}}
aeron:udp?endpoint={{ $a.endpoint }}{{ if $a.interface }}|interface={{ $a.interface }}{{ end }}
{{- end -}}
{{- end -}}

{{/*
/dev/shm size of a feed pod in MiB: the rings (capacity + Agrona's 768-byte trailer + the 128-byte ring header per partition, and the
4 KiB rings.header), the
fanout's state files (pre-touched by default: per partition 96 bytes per order slot, the 64-byte pool entry and
its index, plus 22 MiB of instrument entries for the 65,536 stock locates), the Aeron log buffers
of the incremental and snapshot publications (3 terms each per partition, per derived stream, and of 1 MiB for the
symbol directory), the media driver's CnC file and loss
report (48 MiB with Aeron's default buffers: 8 MiB of counter values, 32 MiB of their metadata, 4 MiB of error
log, the conductor and broadcast buffers) and the headroom.
Call with (dict "root" $ "feed" $feed).
*/}}
{{- define "mdfanout.shmMiB" -}}
{{- $f := .feed -}}
{{- $mib := 1048576 -}}
{{- $rings := add (mul $f.partitions (add $f.ringCapacityBytes 896)) 4096 -}}
{{- $state := mul $f.partitions (add (mul $f.maxOrders 96) 23068672) -}}
{{- $aeron := add (mul $f.partitions (mul 6 $f.aeron.termLength)) (mul 48 $mib) -}}
{{- $derivedTerm := $f.aeron.derivedTermLength | default $f.aeron.termLength -}}
{{- $derived := mul $f.partitions (mul 6 (mul (len ($f.derivedStreams | default list)) $derivedTerm)) -}}
{{- $directory := mul $f.partitions (mul 6 $mib) -}}
{{- $headroom := include "mdfanout.toMiB" .root.Values.shmHeadroom | int -}}
{{- add (div (add $rings $state $aeron $derived $directory) $mib) 1 $headroom -}}
{{- end -}}

{{/*
/dev/shm size of a subscriber in MiB: its embedded driver's images of the feed's incremental and, while
recovering, snapshot streams (3 terms each per partition), the CnC and loss report files (48 MiB, as the feed pod's)
and 16 MiB spare.
*/}}
{{- define "mdfanout.subscriberShmMiB" -}}
{{- $mib := 1048576 -}}
{{- add (div (mul .partitions (mul 6 .aeron.termLength)) $mib) 64 -}}
{{- end -}}

{{/* A Kubernetes quantity in Mi or Gi (as this chart's values use) to MiB. */}}
{{- define "mdfanout.toMiB" -}}
{{- $q := toString . -}}
{{- if hasSuffix "Gi" $q -}}{{ mul (trimSuffix "Gi" $q | int) 1024 }}
{{- else if hasSuffix "Mi" $q -}}{{ trimSuffix "Mi" $q | int }}
{{- else -}}{{ fail (printf "quantity %q: use Mi or Gi" $q) }}
{{- end -}}
{{- end -}}

{{/* The roles' --cpus for a container's cpus value: auto (pin to its exclusive CPUs) for whole CPUs, none for a
shared fraction ("500m"), whose CPUs are the node's shared pool. */}}
{{- define "mdfanout.cpusOption" -}}
{{- if hasSuffix "m" (toString .) }}none{{ else }}auto{{ end -}}
{{- end -}}

{{/*
Guaranteed QoS resources: requests equal to limits: whole CPUs (the static CPU manager gives
such a container exclusive CPUs) or a fraction such as 500m (the shared pool). Call with (dict "cpus" n "memory" q "hugepages" hugepagesValues).
*/}}
{{- define "mdfanout.guaranteedResources" -}}
{{- $r := dict "cpu" (toString .cpus) "memory" .memory -}}
{{- if .hugepages.enabled -}}
{{- $_ := set $r (printf "hugepages-%s" .hugepages.size) .hugepages.amount -}}
{{- end -}}
requests: {{- toYaml $r | nindent 2 }}
limits: {{- toYaml $r | nindent 2 }}
{{- end -}}

{{/* JVM options of a role: a fixed, pre-touched heap (no resizing pauses), on huge pages when the chart asks for
them, the image's other defaults. Call with (dict "heap" h "hugepages" hugepagesValues). */}}
{{- define "mdfanout.javaOptions" -}}
-Xms{{ .heap }} -Xmx{{ .heap }}{{ if .hugepages.enabled }} -XX:+UseLargePages -XX:LargePageSizeInBytes={{ .hugepages.size | replace "Mi" "m" | replace "Gi" "g" }}{{ end }} -XX:+AlwaysPreTouch -XX:+UseParallelGC -XX:+PerfDisableSharedMem -XX:+ExitOnOutOfMemoryError -Djava.io.tmpdir=/tmp -Djna.tmpdir=/tmp -Daeron.print.configuration=false
{{- end -}}

{{/* Release-qualified name of one feed's archive. Call with (dict "root" $ "feed" $feed). */}}
{{- define "mdfanout.archiveName" -}}
{{- printf "%s-%s-archive" .root.Release.Name .feed.name | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/* Whether a feed is archived: archive.enabled and the feed named in archive.feeds (empty: every feed). Call
with (dict "root" $ "feed" $feed); "true" or "". */}}
{{- define "mdfanout.archived" -}}
{{- $a := .root.Values.archive -}}
{{- if and $a.enabled (or (not $a.feeds) (has .feed.name $a.feeds)) }}true{{ end -}}
{{- end -}}

{{/* The Aeron channel the archive records a feed's partition streams from: the subscribers' channel, in mdc mode
on a port of its own (archive.mdcReceivePort). Call with (dict "root" $ "feed" $feed). */}}
{{- define "mdfanout.archiveChannel" -}}
{{- $a := .feed.aeron -}}
{{- if eq $a.mode "mdc" -}}
aeron:udp?endpoint=$(POD_IP):{{ .root.Values.archive.mdcReceivePort }}|control={{ $a.mdcControl }}|control-mode=dynamic
{{- else -}}
{{ include "mdfanout.subscriptionChannel" .feed }}
{{- end -}}
{{- end -}}

{{/*
/dev/shm size of an archive in MiB: its embedded driver's images of the feed's partition streams (3 terms each per
partition, and side B's too for a pair; it records no snapshot stream), a publication of 3 terms per concurrent replay
(archive.maxConcurrentReplays: a replay publishes with the recording's term length), the CnC and loss report files
(48 MiB, as the feed pod's) and 16 MiB for the archive's control and response streams and spare.
Call with (dict "root" $ "feed" $feed).
*/}}
{{- define "mdfanout.archiveShmMiB" -}}
{{- $mib := 1048576 -}}
{{- $f := .feed -}}
{{- $streams := ternary (mul 2 $f.partitions) $f.partitions (and $f.pair $f.pair.enabled | default false) -}}
{{- $terms := mul 3 (add $streams .root.Values.archive.maxConcurrentReplays) -}}
{{- add (div (mul $terms $f.aeron.termLength) $mib) 64 -}}
{{- end -}}

{{/* A size as the archive's options take it (an integer of bytes, or digits with k, m, g or t: powers of 1024) in
bytes. */}}
{{- define "mdfanout.sizeBytes" -}}
{{- if not (kindIs "string" .) -}}{{ int64 . }}
{{- else -}}
{{- $s := lower . -}}
{{- $units := dict "k" 1024 "m" 1048576 "g" 1073741824 "t" 1099511627776 -}}
{{- $unit := substr (int (sub (len $s) 1)) (len $s) $s -}}
{{- if hasKey $units $unit -}}{{ mul (trimSuffix $unit $s | int64) (get $units $unit) }}
{{- else -}}{{ $s | int64 }}
{{- end -}}
{{- end -}}
{{- end -}}

{{/* A size value as the archive's option takes it: a string as given ("50g"), a number (YAML reads a large one as a
float) as whole bytes. */}}
{{- define "mdfanout.sizeArg" -}}
{{- if kindIs "string" . }}{{ . }}{{ else }}{{ int64 . }}{{ end -}}
{{- end -}}

{{/* A Kubernetes quantity (Mi, Gi or Ti) in bytes. */}}
{{- define "mdfanout.quantityBytes" -}}
{{- $q := toString . -}}
{{- if hasSuffix "Ti" $q -}}{{ mul (trimSuffix "Ti" $q | int64) 1099511627776 }}
{{- else if hasSuffix "Gi" $q -}}{{ mul (trimSuffix "Gi" $q | int64) 1073741824 }}
{{- else if hasSuffix "Mi" $q -}}{{ mul (trimSuffix "Mi" $q | int64) 1048576 }}
{{- else -}}{{ fail (printf "quantity %q: use Mi, Gi or Ti" $q) }}
{{- end -}}
{{- end -}}

{{/* A host:port as a NetworkPolicy peer: an IPv4 address as a /32, a name as exchangeCIDRs (NetworkPolicy matches
addresses, not names), or anywhere when exchangeCIDRs is empty. Emits the rule's "to" list, or nothing. Call with (dict "hostPort" "h:p" "cidrs" list). */}}
{{- define "mdfanout.policyPeers" -}}
{{- $host := index (splitList ":" .hostPort) 0 -}}
{{- if regexMatch "^[0-9]{1,3}([.][0-9]{1,3}){3}$" $host }}
to: [{ipBlock: {cidr: {{ $host }}/32}}]
{{- else if .cidrs }}
to:
  {{- range .cidrs }}
  - {ipBlock: {cidr: {{ . }}}}
  {{- end }}
{{- end }}
{{- end -}}
