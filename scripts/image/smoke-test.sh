#!/usr/bin/env bash
# Smoke test of the container image, with podman, on a machine that cannot pull images: builds the
# image from the Dockerfile as it is built normally (the Maven build stage, then the runtime stage)
# on the local base images (local-bases.sh: a builder with this machine's JDK, Maven and
# ~/.m2/repository, and a jlink'ed JRE), then
#   1. runs `--help` of every role the image's CLI lists (each must exit 0), and checks the image's
#      user, entry point and exposed ports;
#   2. runs a real chain, every role in a container of its own as production would, each with a
#      read-only root filesystem, the non-root user, no capabilities and host networking:
#      simulator -> (MoldUDP64 multicast) -> feed-handler -> (ring files in a shared /dev/shm
#      directory, as a pod's memory-backed emptyDir) -> fanout -> (Aeron multicast) -> record,
#      and asserts that the recorder saw END_OF_MESSAGES on every partition with nothing missing
#      (exit 0), and that the long-running roles stop cleanly on SIGTERM;
#   3. before they stop, runs Aeron's inspection tools of the image (aeron-stat, aeron-error-stat,
#      aeron-loss-stat, aeron-backlog-stat: docs/AERON-TOOLS.md) in the fanout's container against its
#      embedded media driver, as `kubectl exec` would, and checks that each shows that driver's data
#      (the bytes the fanout sent, its error and loss reports, its publications' backlog).
# Everything it creates (containers, the test image, ring files, its work directory) is removed at
# the end, pass or fail; the cached base image stays for the next run.
#
# usage: scripts/image/smoke-test.sh   (~/.m2 must hold the build's dependencies: make build first)
# env:   SMOKE_MESSAGES (default 30000), SMOKE_KEEP=1 keeps the work directory with the logs
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
export CONTAINERS_CONF="${MDFANOUT_CONTAINERS_CONF:-$here/containers.conf}"

messages="${SMOKE_MESSAGES:-30000}"
partitions=2
id="mdfanout-smoke-$$"
tag="localhost/mdfanout:smoke-$$"
work="$(mktemp -d /tmp/mdfanout-image-smoke.XXXXXX)"
shm_dir="/dev/shm/$id"
# Addresses of this test only (other tests on the machine use other groups, ports and streams).
feed_group=239.255.47.1; feed_port=47100
channel='aeron:udp?endpoint=224.0.47.1:47456|interface=127.0.0.1|mtu=8192'
snapshot_channel='aeron:udp?endpoint=224.0.47.3:47458|interface=127.0.0.1|mtu=8192'
stream_ids=(--stream-id-base 4700 --snapshot-stream-id-base 4800)
containers=()
started="$(date +%s)"

log() { echo "image smoke test: $*" >&2; }

cleanup() {
  local rc=$?
  trap - EXIT INT TERM
  for c in "${containers[@]}"; do
    if [ "$rc" != 0 ]; then
      echo "----- last lines of container $c -----" >&2
      podman logs "$c" 2>&1 | tail -25 >&2 || true
    fi
    podman rm -f -t 2 "$c" >/dev/null 2>&1 || true
  done
  podman rmi -f "$tag" >/dev/null 2>&1 || true
  rm -rf "$shm_dir"
  if [ "${SMOKE_KEEP:-0}" = 1 ]; then log "work directory kept: $work"; else rm -rf "$work"; fi
  [ "$rc" = 0 ] && log "passed in $(( $(date +%s) - started )) s" || log "FAILED"
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

fail() { log "$*"; exit 1; }

"$here/setup-podman.sh"
base="$("$here/local-bases.sh" jre podman)"
builder="$("$here/local-bases.sh" builder podman)"
build_started="$(date +%s)"
MDFANOUT_ENGINE=podman BASE="$base" BUILDER="$builder" "$here/build.sh" "$tag" --quiet --layers=false \
  --network host >/dev/null
log "built $tag (Maven build stage on $builder, runtime on $base) in $(( $(date +%s) - build_started )) s;" \
  "$(podman image inspect --format '{{.Size}}' "$tag") bytes"

# ---- 1. the image's contract: user, entry point, ports, version, every role's --help ------------
[ "$(podman image inspect --format '{{.Config.User}}' "$tag")" = "10001:10001" ] || fail "image does not run as 10001:10001"
ports="$(podman image inspect --format '{{range $p, $v := .Config.ExposedPorts}}{{$p}} {{end}}' "$tag")"
for port in 9401 9402 9403; do
  [[ "$ports" == *"$port/tcp"* ]] || fail "port $port not exposed (exposed: $ports)"
done

# The least privilege every container of this test runs with.
secure=(--network host --read-only --user 10001:10001 --cap-drop all --security-opt no-new-privileges)

# The jar's manifest carries the version the Maven build stamped into it.
version="$(podman run --rm "$tag" --version 2>/dev/null || true)"
[[ "$version" == "mdfanout "[0-9]* ]] || fail "'--version' printed '$version', not the built version"

podman run --rm "${secure[@]}" "$tag" --help >"$work/help.txt" 2>"$work/help.err" \
  || fail "'--help' exited non-zero: $(cat "$work/help.err")"
roles="$(awk '/^Commands:/ {on = 1; next} on && /^  [a-z]/ {print $1}' "$work/help.txt" | grep -vx help || true)"
for expected in simulator feed-handler replay fanout tail book stats record; do
  grep -qx "$expected" <<<"$roles" || fail "role $expected not listed by the image's --help"
done
for role in $roles; do
  podman run --rm "${secure[@]}" "$tag" "$role" --help >"$work/help-$role.txt" 2>"$work/help-$role.err" \
    || fail "'$role --help' exited non-zero: $(tail -3 "$work/help-$role.err")"
  grep -q "^Usage: mdfanout $role" "$work/help-$role.txt" || fail "'$role --help' printed no usage"
done
log "--help of every role exits 0: $(echo $roles)"

# ---- 2. a real chain, every role in a container --------------------------------------------------
# The ring files live in a host directory under /dev/shm mounted into the feed handler and the
# fanout (a pod's shared memory-backed emptyDir); the recorder writes its file to a mounted work
# directory. Both are owned by the image's user: nothing else is writable but the tmpfs mounts.
mkdir -p "$shm_dir" "$work/out"
chown 10001:10001 "$shm_dir" "$work/out"

start() { # name, podman options..., --, role and options...
  local name="$id-$1"; shift
  local opts=()
  while [ "$1" != -- ]; do opts+=("$1"); shift; done
  shift
  podman run -d --name "$name" "${secure[@]}" "${opts[@]}" "$tag" "$@" >/dev/null
  containers+=("$name")
}
running() { [ "$(podman inspect --format '{{.State.Running}}' "$1" 2>/dev/null)" = true ]; }
exit_code() { podman inspect --format '{{.State.ExitCode}}' "$1"; }

start feed-handler --shm-size 16m -v "$shm_dir:/dev/shm/mdfanout" -- \
  feed-handler --ring-dir /dev/shm/mdfanout/feed-1 --partitions $partitions --ring-capacity-bytes 1048576 \
  --group $feed_group --port $feed_port --interface 127.0.0.1 --stats-interval-s 0
start fanout --shm-size 256m -v "$shm_dir:/dev/shm/mdfanout" -- \
  fanout --ring-dir /dev/shm/mdfanout/feed-1 --partitions $partitions --channel "$channel" \
  --snapshot-channel "$snapshot_channel" "${stream_ids[@]}" --term-length-bytes 1048576 --max-orders 65536 \
  --stats-interval-s 0
start record --shm-size 16m -v "$work/out:/out" -- \
  record --channel "$channel" --snapshot-channel "$snapshot_channel" "${stream_ids[@]}" --partitions $partitions \
  --out /out/record.bin --ready-file /out/record.ready --until-end-of-messages --timeout-s 120

# The simulator goes out only once the recorder has joined (so it sees the whole session).
deadline=$(( $(date +%s) + 90 ))
until [ -f "$work/out/record.ready" ]; do
  for c in "$id-feed-handler" "$id-fanout" "$id-record"; do
    running "$c" || fail "$c exited early (exit $(exit_code "$c"))"
  done
  [ "$(date +%s)" -lt "$deadline" ] || fail "the recorder did not join within 90 s"
  sleep 0.2
done
log "feed-handler, fanout and record running in containers; sending $messages messages"

podman run --rm --name "$id-simulator" "${secure[@]}" --shm-size 16m "$tag" \
  simulator --group $feed_group --port $feed_port --interface 127.0.0.1 --messages "$messages" \
  --rate 50000 --symbols 20 --seed 7 --stats-interval-s 0 >"$work/simulator.log" 2>&1 \
  || fail "simulator exited non-zero: $(tail -5 "$work/simulator.log")"

record_exit="$(timeout 120 podman wait "$id-record" 2>/dev/null || echo timeout)"
podman logs "$id-record" >"$work/record.log" 2>&1 || true
[ "$record_exit" = 0 ] || fail "record exited $record_exit (0 = END_OF_MESSAGES on every partition): $(tail -5 "$work/record.log")"
summary="$(grep '^record: messages=' "$work/record.log" || true)"
[ -n "$summary" ] || fail "record printed no summary: $(tail -5 "$work/record.log")"
# The normalized stream has fewer messages than the ITCH session (not every ITCH type is
# normalized); what matters is that it arrived whole.
grep -q ' gaps=0 missing=0 ' <<<"$summary" || fail "record saw gaps: $summary"
received="$(sed -n 's/^record: messages=\([0-9]*\).*/\1/p' <<<"$summary")"
[ "${received:-0}" -ge $(( messages / 2 )) ] || fail "record got only $received messages of a $messages-message session: $summary"
[ -s "$work/out/record.bin" ] || fail "record wrote no file"
log "record: END_OF_MESSAGES on every partition; $summary"

# ---- 3. Aeron's inspection tools, in the fanout's container, against its embedded media driver -----
# As an operator would run them (kubectl exec POD -c fanout -- aeron-stat DIR). The fanout names its
# driver's directory at start; its publications are still up (the recorder has gone).
aeron_dir="$(podman logs "$id-fanout" 2>&1 | sed -n 's/.* mediaDriverDir=\([^ ]*\).*/\1/p' | head -1)"
[ -n "$aeron_dir" ] || fail "the fanout logged no mediaDriverDir=: $(podman logs "$id-fanout" 2>&1 | tail -3)"
aeron_tool() { # output file, expected exit code, podman exec options... -- command and arguments...
  local file="$work/$1" expected="$2" code=0
  shift 2
  local opts=()
  while [ "$1" != -- ]; do opts+=("$1"); shift; done
  shift
  timeout 60 podman exec "${opts[@]}" "$id-fanout" "$@" >"$file" 2>"$file.err" || code=$?
  [ "$code" = "$expected" ] || fail "'$*' in the fanout's container exited $code, not $expected:" \
    "$(head -c 1500 "$file") $(tail -c 1500 "$file.err")"
}
show() { head -c 2000 "$work/$1"; }

# Without a directory (no argument, no AERON_DIR): a usage error that lists the driver directories.
aeron_tool aeron-stat-usage.txt 2 -- aeron-stat
grep -qx "  $aeron_dir" "$work/aeron-stat-usage.txt.err" \
  || fail "aeron-stat without a directory did not list $aeron_dir: $(cat "$work/aeron-stat-usage.txt.err")"

# AeronStat, once: the driver's system counters, with the bytes the fanout sent, and its publications.
aeron_tool aeron-stat.txt 0 -- aeron-stat "$aeron_dir" watch=false
grep -q ' - Aeron Stat (CnC v' "$work/aeron-stat.txt" || fail "aeron-stat printed no header: $(show aeron-stat.txt)"
bytes_sent="$(sed -n 's/^ *0: *\([0-9,]*\) - Bytes sent$/\1/p' "$work/aeron-stat.txt" | tr -d ,)"
[ "${bytes_sent:-0}" -gt 0 ] || fail "aeron-stat shows no bytes sent by the fanout's driver: $(show aeron-stat.txt)"
# e.g. " 48:     673,824 - pub-pos (exclusive): 2 -1396706665 4700 aeron:udp?mtu=8192|...|endpoint=224.0.47.1:47456|..."
pub_pos="$(sed -n 's/^ *[0-9]*: *\([0-9,]*\) - pub-pos ([a-z]*): [0-9]* -\{0,1\}[0-9]* 4700 aeron:udp?.*endpoint=224\.0\.47\.1:47456.*/\1/p' \
  "$work/aeron-stat.txt" | head -1 | tr -d ,)"
[ "${pub_pos:-0}" -gt 0 ] || fail "aeron-stat shows no position of the fanout's publication on stream 4700: $(show aeron-stat.txt)"

# ErrorStat, the directory from AERON_DIR: its count line.
aeron_tool aeron-error-stat.txt 0 -e AERON_DIR="$aeron_dir" -- aeron-error-stat
grep -qE '^[0-9]+ distinct errors observed\.$' "$work/aeron-error-stat.txt" \
  || fail "aeron-error-stat printed no error count: $(show aeron-error-stat.txt)"

# LossStat: the loss report's header and its entry count.
aeron_tool aeron-loss-stat.txt 0 -- aeron-loss-stat "$aeron_dir"
grep -q '^#OBSERVATION_COUNT,TOTAL_BYTES_LOST,' "$work/aeron-loss-stat.txt" && \
  grep -qE '^[0-9]+ loss entries$' "$work/aeron-loss-stat.txt" \
  || fail "aeron-loss-stat printed no loss report: $(show aeron-loss-stat.txt)"

# BacklogStat: the fanout's publications (stream 4700 and up) with their publisher and sender.
aeron_tool aeron-backlog-stat.txt 0 -- aeron-backlog-stat "$aeron_dir"
grep -q '^sessionId=-\{0,1\}[0-9]* streamId=4700 channel=aeron:udp?.*endpoint=224\.0\.47\.1:47456' "$work/aeron-backlog-stat.txt" && \
  grep -q 'for publisher' "$work/aeron-backlog-stat.txt" && grep -q 'sender' "$work/aeron-backlog-stat.txt" \
  || fail "aeron-backlog-stat shows no backlog of the fanout's stream 4700: $(show aeron-backlog-stat.txt)"
log "Aeron tools in the fanout's container on $aeron_dir: aeron-stat (bytes sent $bytes_sent, stream 4700 at $pub_pos)," \
  "aeron-error-stat ($(grep -E 'distinct errors observed' "$work/aeron-error-stat.txt"))," \
  "aeron-loss-stat ($(grep -E 'loss entries$' "$work/aeron-loss-stat.txt")), aeron-backlog-stat" \
  "($(grep -c '^sessionId=' "$work/aeron-backlog-stat.txt") streams)"

# The long-running roles stop on SIGTERM (podman stop), well before the kill that follows it.
for role in fanout feed-handler; do
  c="$id-$role"
  running "$c" || fail "$role had exited before it was stopped (exit $(exit_code "$c"))"
  stop_started="$(date +%s)"
  podman stop -t 20 "$c" >/dev/null
  code="$(exit_code "$c")"
  [ "$code" != 137 ] || fail "$role did not stop on SIGTERM within 20 s (killed)"
  [ "$code" = 0 ] || [ "$code" = 143 ] || fail "$role exited $code on SIGTERM: $(podman logs "$c" 2>&1 | tail -5)"
  log "$role stopped on SIGTERM in $(( $(date +%s) - stop_started )) s (exit $code)"
done
