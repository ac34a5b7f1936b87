#!/usr/bin/env bash
# The subscriber SDKs' live latency side by side, in one run: what each SDK's live client sees from the fanout's send
# of a packet (its header's sendingTime, epoch ns) to the delivery of each of its messages, on the same live chain at
# the same rate. Java: the `latency` tool's "from fanout send" figure (bin/mdfanout latency); Rust: the example
# subscribers/rust/examples/sdk_latency.rs (mdfanout::client::FeedSubscriber, optimized); Python:
# bench/scripts/sdk_python_latency.py (mdfanout.Subscriber from the optimized wheel, the time at poll()'s return:
# what a Python program sees). Each records every normalized message delivered live, after the same number of
# warm-up messages, and reports in the Java tool's units and keys: per message, not per packet, because Java's tool
# records each message, and the three distributions must weigh alike.
#
# The chain, one per round (a fresh one each time, the same seed and rate): a standalone Java media driver all the
# subscribers attach to (at DRIVER_NICE, as make bench's shared subscriber driver), the feed handler (MoldUDP64
# re-requests on, as in production), the fanout on SDK_LAT_PARTITIONS partitions, then the subscribers, and once
# every one is connected the simulator at SDK_LAT_RATE for SDK_LAT_WARMUP_S + SDK_LAT_SECONDS seconds' worth of
# messages. Every subscriber idles as the Java tools' `--idle-strategy park` (10 polls, then sleeps from 1 us doubling
# to 100 us; never a busy spin, never a yield): on this 2-core machine the chain's four JVMs and three subscribers
# share two cores.
#
# SDK_LAT_MODE: together (the default) puts every SDK on the one chain of a round: the same packets at the same
# moments, so a stall of the chain falls on all of them alike; apart runs each SDK on a chain of its own, one after
# another (the order turned by one each round). Which is fairer was measured with an A/A control, a second Java
# subscriber (SDK_LAT_SUBSCRIBERS="java rust python java"): together, its ratio to the first Java subscriber stayed
# within 13% of 1.00x at every percentile in three rounds of four; apart, it was 1.19x to 3x (a ratio across two chain
# runs measures the machine's two moments more than the SDKs), at three times the wall time. Hence together
# (docs/bench/sdk-languages.md, "Latency, live", has the table).
#
# ROUNDS rounds; each round's figures divided by that round's Java figure, per percentile; the report gives the
# median of the rounds' ratios beside the median of their microseconds.
#   sdk-latency.sh OUT_DIR [REPORT_MD]
# Settings (environment): ROUNDS (3), SDK_LAT_RATE (50000 msg/s), SDK_LAT_SECONDS (15: seconds of messages measured),
# SDK_LAT_WARMUP_S (5: seconds of messages before them, left out of every SDK's figures: rate x this many messages),
# SDK_LAT_PARTITIONS (2), SDK_LAT_SYMBOLS (100), SDK_LAT_SEED (7), SDK_LAT_MODE (together|apart),
# SDK_LAT_SUBSCRIBERS ("java rust python": the first must be java, the baseline; a name again adds another
# subscriber of that SDK, e.g. an A/A control), SDK_LAT_IDLE_MAX_PARK_US (100), DRIVER_NICE (-10; empty: none),
# SDK_RUST_LATENCY and SDK_PYTHON (the built example and a python with the wheel installed: sdk-ab.sh passes them;
# unset, they are built here), SDK_LAT_COMMAND (the command the report names; sdk-ab.sh passes its own).
set -euo pipefail
cd "$(dirname "$0")/../.."
root="$(pwd)"

[ $# -ge 1 ] && [ $# -le 2 ] || { echo "usage: sdk-latency.sh OUT_DIR [REPORT_MD]" >&2; exit 2; }
out_arg="$1"
report="${2:-}"
rounds="${ROUNDS:-3}"
rate="${SDK_LAT_RATE:-50000}"
seconds="${SDK_LAT_SECONDS:-15}"
warmup_s="${SDK_LAT_WARMUP_S:-5}"
partitions="${SDK_LAT_PARTITIONS:-2}"
symbols="${SDK_LAT_SYMBOLS:-100}"
seed="${SDK_LAT_SEED:-7}"
mode="${SDK_LAT_MODE:-together}"
read -r -a subscribers <<<"${SDK_LAT_SUBSCRIBERS:-java rust python}"
max_park_us="${SDK_LAT_IDLE_MAX_PARK_US:-100}"
DRIVER_NICE="${DRIVER_NICE--10}"
for setting in "ROUNDS=$rounds" "SDK_LAT_RATE=$rate" "SDK_LAT_SECONDS=$seconds" "SDK_LAT_PARTITIONS=$partitions" \
    "SDK_LAT_SYMBOLS=$symbols" "SDK_LAT_IDLE_MAX_PARK_US=$max_park_us"; do
  case "${setting#*=}" in ''|*[!0-9]*|0) echo "sdk-latency: ${setting%%=*} must be a positive integer, not '${setting#*=}'" >&2; exit 2 ;; esac
done
case "$warmup_s" in ''|*[!0-9]*) echo "sdk-latency: SDK_LAT_WARMUP_S must be a whole number of seconds, not '$warmup_s'" >&2; exit 2 ;; esac
case "$seed" in ''|*[!0-9]*) echo "sdk-latency: SDK_LAT_SEED must be a number, not '$seed'" >&2; exit 2 ;; esac
case "$mode" in together|apart) ;; *) echo "sdk-latency: SDK_LAT_MODE must be together or apart, not '$mode'" >&2; exit 2 ;; esac
[ "${subscribers[0]:-}" = java ] || { echo "sdk-latency: SDK_LAT_SUBSCRIBERS must start with java (the baseline), not '${subscribers[*]}'" >&2; exit 2; }
for s in "${subscribers[@]}"; do
  case "$s" in java|rust|python) ;; *) echo "sdk-latency: SDK_LAT_SUBSCRIBERS: '$s' is not java, rust or python" >&2; exit 2 ;; esac
done
mdf=bin/mdfanout
[ -f cli/target/mdfanout.jar ] || { echo "sdk-latency: no cli/target/mdfanout.jar: the chain (bin/mdfanout) needs make build" >&2; exit 2; }

rm -rf "$out_arg"
mkdir -p "$out_arg"
out="$(cd "$out_arg" && pwd)"
commands="$out/commands.txt"
: >"$commands"
pids=()
source bench/e2e/lib.sh
source bench/scripts/sdk-build.sh

# Built once, untimed, optimized (unless the caller built them).
rust_latency="${SDK_RUST_LATENCY:-}"
python="${SDK_PYTHON:-}"
if [[ " ${subscribers[*]} " == *" rust "* ]] && [ -z "$rust_latency" ]; then
  rust_latency="$(sdk_build_rust_example sdk_latency aeron)"
fi
if [[ " ${subscribers[*]} " == *" python "* ]] && [ -z "$python" ]; then
  python="$(sdk_build_python "$out")"
fi
[ -z "$rust_latency" ] || [ -x "$rust_latency" ] || { echo "sdk-latency: SDK_RUST_LATENCY=$rust_latency is not an executable" >&2; exit 2; }
[ -z "$python" ] || "$python" -c 'import mdfanout' 2>/dev/null ||
  { echo "sdk-latency: $python cannot import mdfanout (the wheel: scripts/python/test.sh --wheel-only)" >&2; exit 2; }

# The chain's addresses: its own, apart from make bench's and the live tests' (which may run at the same time).
group=239.255.54.1; port=54100; retransmit_port=54101
channel='aeron:udp?endpoint=224.0.54.1:54456|interface=127.0.0.1|mtu=8192'
stream_id_base=5400
driver_dir="/dev/shm/mdfanout-sdk-latency-$$-driver"
ring_dir="/dev/shm/mdfanout-sdk-latency-$$-rings"
driver_nice=""; [ -n "$DRIVER_NICE" ] && driver_nice="nice -n $DRIVER_NICE"
# Every Aeron log allocated whole when it is made, as make bench has them (bench/e2e/run.sh: SPARSE_LOGS).
export JAVA_OPTS="${JAVA_OPTS:-} -Daeron.term.buffer.sparse.file=false"
messages=$((rate * (warmup_s + seconds)))
warmup=$((rate * warmup_s))
timeout_s=$((messages / rate + 90))

# lib.sh is written for set +e (run.sh): its functions run here in a || context, where errexit is off.
cleanup() {
  stop_pids || true
  rm -rf "$driver_dir" "$ring_dir"
}
trap 'cleanup' EXIT
trap 'exit 130' INT TERM

fail() { echo "sdk-latency: $*" >&2; exit 1; }

# label_of I: the I-th subscriber's name (from 0): java, rust, python; a repeated SDK gets -2, -3, ...
label_of() {
  local i="$1" s="${subscribers[$1]}" n=1 j
  for ((j = 0; j < i; j++)); do [ "${subscribers[$j]}" = "$s" ] && n=$((n + 1)); done
  [ "$n" = 1 ] && echo "$s" || echo "$s-$n"
}

# run_chain ROUND_DIR LOG_DIR I...: a fresh chain with the subscribers I... on it, until the session's end; each
# subscriber's JSON at ROUND_DIR/<label>.json. Fails the run when one did not connect, did not end cleanly or
# received nothing.
run_chain() {
  local round_dir="$1" logs="$2"; shift 2
  mkdir -p "$logs"
  rm -f "$logs"/ready-*
  local fh_recovery sim_recovery
  feed_recovery "$retransmit_port"
  launch "$logs/media-driver.log" $driver_nice $mdf media-driver --aeron-dir "$driver_dir" --cpus none
  wait_for_files 30 "$driver_dir/cnc.dat" || fail "the media driver did not start (see $logs/media-driver.log)"
  launch "$logs/feed-handler.log" $mdf feed-handler --stamp-receive-time --source 127.0.0.1 $fh_recovery --group $group \
    --port $port --interface 127.0.0.1 --ring-dir "$ring_dir" --partitions "$partitions" --stats-interval-s 0
  launch "$logs/fanout.log" $mdf fanout --ring-dir "$ring_dir" --partitions "$partitions" --channel "$channel" \
    --stream-id-base $stream_id_base --stats-interval-s 0
  local i label sub_pids=() labels=() ready=()
  for i in "$@"; do
    label="$(label_of "$i")"
    local common=(--aeron-dir "$driver_dir" --channel "$channel" --stream-id-base $stream_id_base
      --partitions "$partitions" --warmup-messages $warmup --timeout-s $timeout_s --ready-file "$logs/ready-$label"
      --json-out "$round_dir/$label.json" --idle-max-park-us "$max_park_us")
    case "${subscribers[$i]}" in
      java) launch "$logs/$label.log" $mdf latency "${common[@]}" --until-end-of-messages --idle-strategy park ;;
      rust) launch "$logs/$label.log" "$rust_latency" "${common[@]}" --capacity $messages ;;
      python) launch "$logs/$label.log" "$python" bench/scripts/sdk_python_latency.py "${common[@]}" ;;
    esac
    sub_pids+=("$last_pid"); labels+=("$label"); ready+=("$logs/ready-$label")
  done
  if ! wait_for_files 90 "${ready[@]}"; then
    for label in "${labels[@]}"; do
      if [ ! -e "$logs/ready-$label" ]; then echo "sdk-latency: $label did not connect:" >&2; tail -5 "$logs/$label.log" >&2; fi
    done
    fail "subscribers not connected to the fanout within 90 s (see $logs)"
  fi
  launch "$logs/simulator.log" $mdf simulator --group $group --port $port --interface 127.0.0.1 --symbols "$symbols" \
    --seed "$seed" --messages $messages --rate "$rate" --stats-interval-s 0 $sim_recovery
  local sim=$last_pid sim_exit=0 k exit
  wait "$sim" || sim_exit=$?
  for k in "${!sub_pids[@]}"; do
    exit=0; wait "${sub_pids[$k]}" || exit=$?
    label="${labels[$k]}"
    if [ "$exit" != 0 ]; then
      tail -5 "$logs/$label.log" >&2
      fail "$label exited $exit (2: data lost, 3: timed out; see $logs/$label.log)"
    fi
    python3 - "$round_dir/$label.json" "$label" "$logs/$label.log" <<'PY' || exit 1
import json, sys
path, label, log = sys.argv[1:]
try:
    r = json.load(open(path))
except (OSError, ValueError) as e:
    sys.exit(f"sdk-latency: {label} wrote no figures ({e}; see {log})")
if not r.get("from_fanout_send", {}).get("count"):
    sys.exit(f"sdk-latency: {label} received nothing after its warm-up (count 0, messages {r.get('messages')}; see {log})")
if r.get("gaps"):
    sys.exit(f"sdk-latency: {label} saw {r['gaps']} gaps: its figures would include a recovery (see {log})")
PY
  done
  [ "$sim_exit" = 0 ] || fail "the simulator exited $sim_exit (see $logs/simulator.log)"
  stop_pids || true
  rm -rf "$driver_dir" "$ring_dir"
  # Every subscriber of a chain got the same session: the same message count, or one of them lost or repeated some.
  python3 - "$round_dir" "${labels[@]}" <<'PY' || exit 1
import json, sys
d, labels = sys.argv[1], sys.argv[2:]
counts = {l: json.load(open(f"{d}/{l}.json"))["messages"] for l in labels}
if len(set(counts.values())) != 1:
    sys.exit(f"sdk-latency: the subscribers of one session delivered different message counts: {counts}")
PY
}

all=()
for i in "${!subscribers[@]}"; do all+=("$i"); done
echo "sdk-latency: $mode, ${subscribers[*]}; $rounds rounds of $messages messages at $rate msg/s on $partitions partitions" \
  "(the first $warmup messages left out)" >&2
for round in $(seq 1 "$rounds"); do
  round_dir="$out/round-$round"
  mkdir -p "$round_dir"
  if [ "$mode" = together ]; then
    run_chain "$round_dir" "$round_dir/logs" "${all[@]}"
  else
    # One chain per SDK, the order turned by one each round so that no SDK always runs first (a machine warming or
    # tiring over a round falls on each in turn).
    n=${#all[@]}
    for ((j = 0; j < n; j++)); do
      i=$(( (j + round - 1) % n ))
      run_chain "$round_dir" "$round_dir/logs-$(label_of "$i")" "$i"
    done
  fi
  python3 - "$round_dir" "$round" "$rounds" $(for i in "${all[@]}"; do label_of "$i"; done) <<'PY' >&2
import json, sys
d, round_, rounds, labels = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
figures = {l: json.load(open(f"{d}/{l}.json"))["from_fanout_send"] for l in labels}
print(f"sdk-latency: round {round_} of {rounds}: " + "; ".join(
    f"{l} p50={f['p50_us']:.1f}us p99={f['p99_us']:.1f}us max={f['max_us']:.1f}us" for l, f in figures.items()))
PY
done

labels=()
for i in "${all[@]}"; do labels+=("$(label_of "$i")"); done
# The command the report names: the caller's (SDK_LAT_COMMAND: sdk-ab.sh's), else this script's with its settings.
command_line="${SDK_LAT_COMMAND:-ROUNDS=$rounds$(for v in SDK_LAT_RATE SDK_LAT_SECONDS SDK_LAT_WARMUP_S SDK_LAT_PARTITIONS \
  SDK_LAT_MODE SDK_LAT_SUBSCRIBERS; do [ -z "${!v:-}" ] || printf ' %s="%s"' "$v" "${!v}"; done) bench/scripts/sdk-latency.sh $out_arg${report:+ $report}}"
python3 bench/scripts/sdk_latency_report.py "$out" "$rounds" "$report" "$command_line" \
  "$mode" "$rate" "$seconds" "$warmup_s" "$partitions" "${labels[@]}"
