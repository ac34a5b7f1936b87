{{/* Chart name, truncated to the 63 characters Kubernetes allows in a label. */}}
{{- define "mdfanout.name" -}}
{{- .Chart.Name | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/* Release-qualified name of one feed's objects. Call with (dict "root" $ "feed" $feed). */}}
{{- define "mdfanout.feedName" -}}
{{- printf "%s-%s" .root.Release.Name .feed.name | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "mdfanout.labels" -}}
app.kubernetes.io/name: {{ include "mdfanout.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" }}
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
of the incremental and snapshot publications (3 terms each per partition), the media driver's CnC file and loss
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
{{- $headroom := include "mdfanout.toMiB" .root.Values.shmHeadroom | int -}}
{{- add (div (add $rings $state $aeron) $mib) 1 $headroom -}}
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
partition; it records no snapshot stream), a publication of 3 terms per concurrent replay
(archive.maxConcurrentReplays: a replay publishes with the recording's term length), the CnC and loss report files
(48 MiB, as the feed pod's) and 16 MiB for the archive's control and response streams and spare.
Call with (dict "root" $ "feed" $feed).
*/}}
{{- define "mdfanout.archiveShmMiB" -}}
{{- $mib := 1048576 -}}
{{- $f := .feed -}}
{{- $terms := mul 3 (add $f.partitions .root.Values.archive.maxConcurrentReplays) -}}
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
