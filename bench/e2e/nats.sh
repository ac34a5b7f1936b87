#!/usr/bin/env bash
# The NATS fan-out peer in the end-to-end harness: the same chain as run.sh's latency runs with our fanout
# replaced by NATS, carrying the same packets to the same kind of subscriber:
#
#   simulator --latency-timestamps -> feed-handler -> rings -> nats-bridge -> nats-server -> nats-latency
#
# nats-bridge (bench/peers/nats) drains the rings and publishes each packet of our wire format as one NATS
# message on mdfanout.<partition>; nats-latency decodes them with the SDK and records now - exchangeTimestamp with
# the latency tool's recorder (coordinated-omission corrected, as the chain). Same message counts, warm-up and
# settings as run.sh's chain runs.
#
# usage: bench/e2e/nats.sh RESULTS_DIR
# Writes RESULTS_DIR/latency/nats-<rate>.run.json, -sub1.json, -sub1.hgrm per rate in RATES, and
# RESULTS_DIR/fanout/nats-fanout-<n>.run.json, -sub<i>.json/.hgrm per n in NATS_FANOUT_SUBS; logs and the exact
# commands under RESULTS_DIR/logs/nats-*. Exits non-zero (with a message) when the peer cannot be built or run;
# a caller such as run.sh goes on.
# Settings (environment): RATES ("10000 100000"), DURATION_S (30), MIN_MESSAGES (200000), FANOUT_RATE (100000),
# FANOUT_S (15), NATS_FANOUT_SUBS ("1 8"; empty = no fan-out runs), NATS_PORT (14222), PEERS_CACHE, IDLE_STRATEGY
# (as run.sh's: the feed handler's, the simulator's and the bridge's --idle-strategy), FH_OPTS (as run.sh's, for the
# feed handler). A CPU plan as run.sh's (taskset lists; empty: none): SIM_CPUS, FH_CPUS, NATS_SERVER_CPUS,
# NATS_BRIDGE_CPUS, NATS_SUB_CPUS (groups, dealt round robin to the subscribers). Prebuilt peers (the bench bundle,
# which has no Go and no Maven): NATS_SERVER (the nats-server binary) and NATS_PEER_CP (the bridge's and the
# subscriber's classpath); with both set nothing is built.
set -uo pipefail
cd "$(dirname "$0")/../.."

results="${1:?usage: bench/e2e/nats.sh RESULTS_DIR}"
RATES="${RATES:-10000 100000}"
DURATION_S="${DURATION_S:-15}"
MIN_MESSAGES="${MIN_MESSAGES:-200000}"
MAX_MESSAGES="${MAX_MESSAGES:-10000000}"
FEED_RECOVERY="${FEED_RECOVERY:-1}"
WARMUP_S="${WARMUP_S:-10}"
FANOUT_RATE="${FANOUT_RATE:-100000}"
FANOUT_S="${FANOUT_S:-5}"
NATS_FANOUT_SUBS="${NATS_FANOUT_SUBS-1 8}"
NATS_PORT="${NATS_PORT:-14222}"
idle_opt=""; [ -n "${IDLE_STRATEGY:-}" ] && idle_opt="--idle-strategy $IDLE_STRATEGY"
PEERS_CACHE="${PEERS_CACHE:-$HOME/.cache/mdfanout/peers}"
export PEERS_CACHE
MVN="${MVN:-mvn}"
PARTITIONS=4
SYMBOLS=100
group=239.1.1.7; port=26470      # distinct from run.sh's feed (239.1.1.1:26400)
retransmit_port=26471
url="nats://127.0.0.1:$NATS_PORT"
mdf=bin/mdfanout
server="${NATS_SERVER:-$PEERS_CACHE/bin/nats-server}"
SIM_CPUS="${SIM_CPUS:-}"; FH_CPUS="${FH_CPUS:-}"; FH_OPTS="${FH_OPTS:-}"
NATS_SERVER_CPUS="${NATS_SERVER_CPUS:-}"; NATS_BRIDGE_CPUS="${NATS_BRIDGE_CPUS:-}"; NATS_SUB_CPUS="${NATS_SUB_CPUS:-}"
target="$PEERS_CACHE/nats-peer-target"
pids=()
ring_dir=""
server_pid=""

log() { echo "bench-nats: $*" >&2; }
fail() { log "$*"; exit 1; }

source bench/e2e/lib.sh

cleanup() {
  stop_pids
  [ -n "$ring_dir" ] && rm -rf "$ring_dir"
  ring_dir=""
}
stop_server() {
  if [ -n "$server_pid" ] && kill -0 "$server_pid" 2>/dev/null; then
    kill -TERM "$server_pid" 2>/dev/null; wait "$server_pid" 2>/dev/null
  fi
  server_pid=""
}
trap 'cleanup; stop_server' EXIT
trap 'exit 130' INT TERM

{ [ -x "$mdf" ] && { [ -f cli/target/mdfanout.jar ] || [ -f lib/mdfanout.jar ]; }; } || fail "build first (make build)"
mkdir -p "$results"/{latency,fanout,logs} || fail "cannot create $results"
commands="$results/commands.txt"
touch "$commands"

if [ -n "${NATS_SERVER:-}" ] && [ -n "${NATS_PEER_CP:-}" ]; then
  [ -x "$server" ] || fail "NATS_SERVER=$server is not an executable; NATS runs skipped"
  peer_cp="$NATS_PEER_CP"
else
bench/peers/nats-setup.sh || fail "nats-server is not built (bench/peers/nats-setup.sh failed); NATS runs skipped"
# Offline first (no network wait once the NATS client is in the local repository), then online: on a fresh machine
# the client and its dependencies are not there yet.
build_peer() {
  "$MVN" -B -q -ntp "$@" -f bench/peers/nats/pom.xml compile dependency:copy-dependencies \
    >>"$results/logs/nats-build.log" 2>&1
}
: >"$results/logs/nats-build.log"
if ! build_peer -o && ! build_peer; then
  tail -20 "$results/logs/nats-build.log" >&2
  fail "building bench/peers/nats failed (see $results/logs/nats-build.log); NATS runs skipped"
fi
peer_cp="$target/classes:$target/dependency/*"
fi
peer_java=(java --add-opens java.base/jdk.internal.misc=ALL-UNNAMED --add-opens java.base/java.nio=ALL-UNNAMED
  -cp "$peer_cp")


# One nats-server for every run: plain core NATS on loopback, no JetStream, no monitoring port.
# With a CPU plan its Go scheduler gets as many threads as it has CPUs.
nats_procs=""; [ -n "$NATS_SERVER_CPUS" ] && nats_procs="GOMAXPROCS=$(taskset -c "$NATS_SERVER_CPUS" nproc)"
env $nats_procs $(pin "$NATS_SERVER_CPUS") "$server" -a 127.0.0.1 -p "$NATS_PORT" -l "$results/logs/nats-server.log" &
server_pid=$!
for _ in $(seq 1 100); do
  grep -q "Server is ready" "$results/logs/nats-server.log" 2>/dev/null && break
  kill -0 "$server_pid" 2>/dev/null || break
  sleep 0.1
done
grep -q "Server is ready" "$results/logs/nats-server.log" 2>/dev/null || \
  fail "nats-server did not start on 127.0.0.1:$NATS_PORT (see $results/logs/nats-server.log)"
server_version=$("$server" --version | awk '{print $2}')
log "nats-server $server_version on $url; results in $results"

# nats RUN_NAME RATE MESSAGES SUBSCRIBERS DIR -> $results/DIR/RUN_NAME.run.json (+ -sub<i>.json/.hgrm)
nats_run() {
  local name="$1" rate="$2" messages="$3" subs="$4" dir="$5"
  local run="$results/$dir" logs="$results/logs/$name"
  fresh_logs "$logs"
  ring_dir="/dev/shm/mdfanout-bench-nats-$$-$name"
  local warmup=$((rate * WARMUP_S)); [ "$warmup" -gt $((messages / 2)) ] && warmup=$((messages / 2))
  local timeout_s=$((messages / rate + 60))

  local stamp=""; [ "${LATENCY_FROM:-receive}" = receive ] && stamp="--stamp-receive-time"
  # The feed side exactly as run.sh sets it up for the chain.
  local fh_recovery sim_recovery
  feed_recovery "$retransmit_port"
  local fh_idle="$idle_opt"; [[ " $FH_OPTS " == *" --idle-strategy"* ]] && fh_idle=""  # run.sh put it there
  launch "$logs/feed-handler.log" $(pin "$FH_CPUS") $mdf feed-handler $stamp $FH_OPTS --source 127.0.0.1 $fh_recovery --group $group --port $port --interface 127.0.0.1 \
    --ring-dir "$ring_dir" --partitions $PARTITIONS --stats-interval-s 0 $fh_idle
  local fh=$last_pid
  launch "$logs/nats-bridge.log" $(pin "$NATS_BRIDGE_CPUS") "${peer_java[@]}" io.mdfanout.bench.peers.NatsBridgeCommand --ring-dir "$ring_dir" \
    --partitions $PARTITIONS --url "$url" --stats-interval-s 1 $idle_opt
  local br=$last_pid
  local sub_pids=() ready=()
  for i in $(seq 1 "$subs"); do
    launch "$logs/sub$i.log" $(pin "$(nth_group "$NATS_SUB_CPUS" "$i")") "${peer_java[@]}" io.mdfanout.bench.peers.NatsLatencyCommand --url "$url" \
      --partitions $PARTITIONS --warmup-messages $warmup --timeout-s $timeout_s --ready-file "$logs/ready$i" \
      --json-out "$run/$name-sub$i.json" --hgrm-out "$run/$name-sub$i.hgrm"
    sub_pids+=("$last_pid"); ready+=("$logs/ready$i")
  done
  wait_for_files 60 "${ready[@]}" || log "$name: subscribers did not connect within 60 s (see $logs)"
  launch "$logs/simulator.log" $(pin "$SIM_CPUS") $mdf simulator --group $group --port $port --interface 127.0.0.1 \
    --symbols $SYMBOLS --rate "$rate" --messages "$messages" --latency-timestamps --stats-interval-s 0 $sim_recovery \
    $idle_opt
  local sim=$last_pid
  wait "$sim"; local sim_exit=$?
  local sub_exits=()
  for pid in "${sub_pids[@]}"; do wait "$pid"; sub_exits+=($?); done
  kill -TERM "$fh" "$br" 2>/dev/null
  wait "$fh" "$br" 2>/dev/null
  cleanup

  local sim_rate; sim_rate=$(field rate "$logs/simulator.log")
  local published; published=$(grep -o 'published=[0-9]*' "$logs/nats-bridge.log" | tail -1 | cut -d= -f2)
  local declared; declared=$(field gapsDeclared "$logs/feed-handler.log")
  local fh_gaps; fh_gaps=$(grep 'feed-handler: final' "$logs/feed-handler.log" | grep -o ' gaps=[0-9]*' | tail -1 | cut -d= -f2)
  local gaps_total=0 dropped_total=0 sub_gaps sub_dropped
  for i in $(seq 1 "$subs"); do
    sub_gaps=$(grep -o ' gaps=[0-9]*' "$logs/sub$i.log" | tail -1 | cut -d= -f2)
    sub_dropped=$(field dropped "$logs/sub$i.log")
    gaps_total=$((gaps_total + ${sub_gaps:-1}))
    dropped_total=$((dropped_total + ${sub_dropped:-0}))
  done
  printf '{"name":"%s","system":"nats","nats_server":"%s","mode":"latency","rate":%s,"messages":%s,"subscribers":%s,"simulator_exit":%s,"subscriber_exits":[%s],"simulator_rate":%s,"bridge_published":%s,"feed_gaps":%s,"feed_gaps_declared":%s,"subscriber_gaps":%s,"subscriber_dropped":%s}\n' \
    "$name" "$server_version" "$rate" "$messages" "$subs" "$sim_exit" "$(IFS=,; echo "${sub_exits[*]}")" \
    "$(json_num "$sim_rate")" "$(json_num "$published")" "$(json_num "$fh_gaps")" "$(json_num "$declared")" \
    "$gaps_total" "$dropped_total" >"$run/$name.run.json"
  log "$name: rate=$rate messages=$messages subs=$subs simulator=${sim_rate:-?}/s exits=${sub_exits[*]} gaps=$gaps_total dropped=$dropped_total $(grep -h -o 'p99=[0-9.]*us' "$logs"/sub*.log 2>/dev/null | tr '\n' ' ')"
}

started=$SECONDS
for rate in $RATES; do
  nats_run "nats-$rate" "$rate" "$(messages_for "$rate" "$DURATION_S")" 1 latency
done
for n in $NATS_FANOUT_SUBS; do
  nats_run "nats-fanout-$n" "$FANOUT_RATE" "$(messages_for "$FANOUT_RATE" "$FANOUT_S")" "$n" fanout
done
echo "{\"elapsed_s\":$((SECONDS - started)),\"nats_server\":\"$server_version\"}" >"$results/nats-elapsed.json"
log "done in $((SECONDS - started)) s"
