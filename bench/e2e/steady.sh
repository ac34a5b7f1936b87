#!/usr/bin/env bash
# Steady-state run (make bench-full): the whole chain for at least 100,000,000 messages with the message path's
# processes (feed handler, fanout, one `record` subscriber) on Epsilon GC, the no-op collector: every byte
# allocated stays allocated, so a heap of STEADY_HEAP can only last the run if the message path allocates nothing.
# The simulator is the exchange, not our message path: it runs with the launcher's ordinary collector.
#
# Stats lines and metrics are off in every Epsilon process (they build Strings; the claim is about the message
# path). The used heap of each Epsilon process is sampled with `jcmd <pid> GC.heap_info` every SAMPLE_S seconds
# (the attach itself allocates a little in the target, which the samples include) and read from its -Xlog:gc
# exit lines. Success: every process alive until the end (none died of OutOfMemoryError), the subscriber exits 0
# with gaps=0 and missing=0. A process that dies leaves a heap dump (-XX:+HeapDumpOnOutOfMemoryError) and its log
# under the results directory: the allocation to find.
#
# bin/mdfanout always passes -XX:+UseParallelGC (a second collector option is refused by the JVM), so this script
# starts the Epsilon processes with java directly, with the launcher's --add-opens and properties.
#
# Settings (environment): STEADY_MESSAGES (101000000 ITCH messages: ~0.35% of the simulated session is not
# normalized (e.g. stock directory, system events go to every partition), so the subscriber receives >= 100M),
# STEADY_RATE (400000 msg/s), STEADY_HEAP (256m), SAMPLE_S (30), RESULTS_DIR (default: a new
# bench/e2e/results/<UTC time>-steady), NO_REPORT=1 (otherwise report.py renders docs/BENCHMARKS.md's steady
# section into the current document: `report.py <bench run> --steady <this run>`, see the Makefile).
# Result: $RESULTS_DIR/steady/steady.json (+ heap-samples.tsv, logs/steady/*).
set -uo pipefail
cd "$(dirname "$0")/../.."

STEADY_MESSAGES="${STEADY_MESSAGES:-101000000}"
STEADY_RATE="${STEADY_RATE:-400000}"
STEADY_HEAP="${STEADY_HEAP:-256m}"
SAMPLE_S="${SAMPLE_S:-30}"
PARTITIONS=4
SYMBOLS=100
results="${RESULTS_DIR:-bench/e2e/results/$(date -u +%Y%m%dT%H%M%SZ)-steady}"
out="$results/steady"; logs="$results/logs/steady"
mkdir -p "$out" "$logs"
group=239.1.1.3; port=26410; retransmit_port=26490   # distinct from run.sh's feed (239.1.1.1:26400)
channel='aeron:udp?endpoint=224.0.1.11:40490|interface=127.0.0.1|mtu=8192'
ring_dir="/dev/shm/mdfanout-steady-$$"
jar=cli/target/mdfanout.jar
mdf=bin/mdfanout
[ -f "$jar" ] && [ -x "$mdf" ] || { echo "steady: build first (make build)" >&2; exit 1; }
log() { echo "steady: $*" >&2; }

pids=()
source bench/e2e/lib.sh

cleanup() {
  stop_pids
  rm -rf "$ring_dir"
}
trap 'cleanup; exit 130' INT TERM

# epsilon ROLE ARGS...: one Epsilon-GC process of the chain; pid in $last_pid.
epsilon() {
  local role="$1"; shift
  local cmd=(java --add-opens java.base/jdk.internal.misc=ALL-UNNAMED --add-opens java.base/sun.nio.ch=ALL-UNNAMED
    --add-opens java.base/java.nio=ALL-UNNAMED -XX:+UnlockExperimentalVMOptions -XX:+UseEpsilonGC
    -XX:+AlwaysPreTouch -Xms"$STEADY_HEAP" -Xmx"$STEADY_HEAP" -XX:+HeapDumpOnOutOfMemoryError
    -XX:HeapDumpPath="$logs/$role.hprof" -Xlog:gc*:file="$logs/$role-gc.log" -Daeron.print.configuration=false
    -jar "$jar" "$@")
  { printf '%q ' "${cmd[@]}"; echo; } >>"$logs/commands.txt"
  "${cmd[@]}" >"$logs/$role.log" 2>&1 &
  last_pid=$!; pids+=("$last_pid")
}

# used_bytes PID: the Epsilon allocation space's used bytes (top - bottom of `space ... used [bottom, top, end)`).
used_bytes() {
  jcmd "$1" GC.heap_info 2>/dev/null | python3 -c '
import re, sys
m = re.search(r"used \[(0x[0-9a-f]+), (0x[0-9a-f]+),", sys.stdin.read())
print(int(m.group(2), 16) - int(m.group(1), 16) if m else "")'
}

# exit_used_bytes GC_LOG: the same figure from the -Xlog:gc exit lines.
exit_used_bytes() {
  python3 - "$1" <<'EOF'
import re, sys
try:
    text = open(sys.argv[1]).read()
except OSError:
    text = ""
m = re.findall(r"gc,heap,exit.*used \[(0x[0-9a-f]+), (0x[0-9a-f]+),", text)
print(int(m[-1][1], 16) - int(m[-1][0], 16) if m else "")
EOF
}

alive() { kill -0 "$1" 2>/dev/null && echo true || echo false; }

log "results in $out; $STEADY_MESSAGES messages at $STEADY_RATE msg/s, Epsilon heap $STEADY_HEAP"
timeout_s=$((STEADY_MESSAGES / STEADY_RATE + 300))

epsilon feed-handler feed-handler --source 127.0.0.1 --group $group --port $port --interface 127.0.0.1 --ring-dir "$ring_dir" \
  --partitions $PARTITIONS --retransmit-server 127.0.0.1:$retransmit_port --stats-interval-s 0 --metrics-port 0
fh=$last_pid
epsilon fanout fanout --ring-dir "$ring_dir" --partitions $PARTITIONS --channel "$channel" --stats-interval-s 0 \
  --metrics-port 0
fo=$last_pid
epsilon subscriber record --channel "$channel" --partitions $PARTITIONS --until-end-of-messages --no-recovery \
  --out /dev/null --timeout-s $timeout_s --ready-file "$logs/ready" --metrics-port 0
sub=$last_pid
for _ in $(seq 1 600); do [ -e "$logs/ready" ] && break; kill -0 "$sub" 2>/dev/null || break; sleep 0.1; done
[ -e "$logs/ready" ] || log "the subscriber did not connect within 60 s (see $logs)"

cmd=($mdf simulator --group $group --port $port --interface 127.0.0.1 --symbols $SYMBOLS --rate "$STEADY_RATE"
  --messages "$STEADY_MESSAGES" --retransmit-port $retransmit_port --stats-interval-s 0)
{ printf '%q ' "${cmd[@]}"; echo; } >>"$logs/commands.txt"
"${cmd[@]}" >"$logs/simulator.log" 2>&1 &
sim=$!; pids+=("$sim")
started=$SECONDS

# Heap samples while the run lasts: elapsed seconds, role, used bytes (empty = the process is gone).
samples="$out/heap-samples.tsv"
printf 'elapsed_s\trole\tused_bytes\n' >"$samples"
sample_all() {
  for pair in feed-handler:$fh fanout:$fo subscriber:$sub; do
    printf '%s\t%s\t%s\n' "$((SECONDS - started))" "${pair%%:*}" "$(used_bytes "${pair#*:}")" >>"$samples"
  done
}
sleep 10; sample_all                       # "start": the chain is running, start-up allocation is done
next=$((SECONDS + SAMPLE_S))
while kill -0 "$sub" 2>/dev/null; do
  if [ "$SECONDS" -ge "$next" ]; then
    sample_all; next=$((SECONDS + SAMPLE_S))
    log "$((SECONDS - started)) s: $(tail -n 3 "$samples" | awk '{printf "%s=%.1fMiB ", $2, $3/1048576}')"
  fi
  sleep 1
done
wait "$sub"; sub_exit=$?
duration=$((SECONDS - started))
wait "$sim"; sim_exit=$?
fh_alive=$(alive "$fh"); fo_alive=$(alive "$fo")
fh_end=$(used_bytes "$fh"); fo_end=$(used_bytes "$fo")
printf '%s\t%s\t%s\n%s\t%s\t%s\n' "$duration" feed-handler "$fh_end" "$duration" fanout "$fo_end" >>"$samples"
kill -TERM "$fh" "$fo" 2>/dev/null
wait "$fh"; fh_exit=$?
wait "$fo"; fo_exit=$?
pids=()
rm -rf "$ring_dir"

start_of() { awk -F'\t' -v r="$1" '$2 == r && $3 != "" { print $3; exit }' "$samples"; }
python3 - "$out/steady.json" <<EOF
import json, sys
def num(s):
    return int(s) if s not in ("", None) else None
procs = []
for role, start, end, exit_used, code, alive in (
        ("feed-handler", "$(start_of feed-handler)", "$fh_end", "$(exit_used_bytes "$logs/feed-handler-gc.log")",
         "$fh_exit", "$fh_alive"),
        ("fanout", "$(start_of fanout)", "$fo_end", "$(exit_used_bytes "$logs/fanout-gc.log")", "$fo_exit",
         "$fo_alive"),
        ("subscriber (record)", "$(start_of subscriber)", "", "$(exit_used_bytes "$logs/subscriber-gc.log")",
         "$sub_exit", "true")):
    procs.append({"role": role, "heap_used_start": num(start), "heap_used_end": num(end) or num(exit_used),
                  "heap_used_at_exit": num(exit_used), "exit": int(code), "alive_at_end": alive == "true",
                  "out_of_memory": False})
for p, log in zip(procs, ("feed-handler", "fanout", "subscriber")):
    try:
        p["out_of_memory"] = "OutOfMemoryError" in open("$logs/" + log + ".log", errors="replace").read()
    except OSError:
        pass
r = {"messages_sent": $STEADY_MESSAGES, "rate": $STEADY_RATE, "heap": "$STEADY_HEAP", "duration_s": $duration,
     "simulator_exit": $sim_exit, "simulator_rate": num("$(field rate "$logs/simulator.log")"),
     "subscriber_messages": num("$(field messages "$logs/subscriber.log")"),
     "subscriber_gaps": num("$(field gaps "$logs/subscriber.log")"),
     "subscriber_missing": num("$(field missing "$logs/subscriber.log")"),
     "feed_gaps_declared": num("$(field gapsDeclared "$logs/feed-handler.log")"),
     "sample_s": $SAMPLE_S, "processes": procs}
r["passed"] = (r["simulator_exit"] == 0 and all(p["alive_at_end"] and not p["out_of_memory"] for p in procs)
               and procs[2]["exit"] == 0 and r["subscriber_gaps"] == 0 and r["subscriber_missing"] == 0)
json.dump(r, open(sys.argv[1], "w"), indent=1)
print(f"steady: {'PASSED' if r['passed'] else 'FAILED'}: {r['subscriber_messages']} messages received in "
      f"{r['duration_s']} s, gaps={r['subscriber_gaps']} missing={r['subscriber_missing']}; heap used (MiB) "
      + ", ".join(f"{p['role']} {(p['heap_used_start'] or 0) / 2**20:.1f} -> {(p['heap_used_end'] or 0) / 2**20:.1f}"
                  for p in procs), file=sys.stderr)
sys.exit(0 if r["passed"] else 1)
EOF
status=$?
if [ "${NO_REPORT:-0}" != 1 ] && [ -n "${BENCH_RESULTS:-}" ]; then
  python3 bench/e2e/report.py "$BENCH_RESULTS" --steady "$results"
fi
exit $status
