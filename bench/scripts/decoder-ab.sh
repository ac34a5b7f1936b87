#!/usr/bin/env bash
# The normalizer against the native decoder peer, side by side: in each round JMH's
# ItchNormalizeBenchmark (one consumer setting at a time) and itchy-bench decode the same session file
# at the same time, itchy within JMH's measurement iterations (it starts after JMH's start-up and
# warm-up, and stops before the last iteration ends). On a shared machine whose speed drifts by tens of
# percent within minutes (other tenants), figures taken one after the other differ by more than the two
# decoders do; taken at the same time, both meet the same drift. jmh-table.py compares each pair's
# means (JMH's score, the mean of its iterations; itchy's mean_msgs_per_s, messages over the time of
# all its passes) and reports the median ratio.
#
# Neither is pinned: each is one busy thread, and the scheduler gives each a CPU of the two. Pinned
# with taskset, the JVM sees one CPU (serial GC, its compiler and JMH's own threads on the benchmark's
# CPU) and one CPU was 30% slower than the other for JMH, while itchy did not care.
#   decoder-ab.sh SESSION_ITCH OUT_DIR
# Settings (environment): ROUNDS (3), DECODER_JMH_ARGS (-f 1 -wi 3 -w 1s -i 8 -r 1s), ITCHY_DELAY_S (4.5:
# JMH's start-up and 3 s warm-up), ITCHY_SECONDS (6.5: of the 8 measured seconds), BENCH_CP
# (bench/target/mdfanout-bench.jar:bench/target/lib/*). Change the three timings together.
# JMH_CPUS / ITCHY_CPUS (empty: unpinned): taskset lists for the two, on hosts with cores to spare (the bench bundle
# gives JMH four CPUs, so that its JVM's compiler and GC threads are not on the benchmark's, and itchy one of its own).
# ITCHY_BIN: a prebuilt itchy-bench (see bench/peers/itchy-bench.sh), then no cargo is needed.
# Writes OUT_DIR/round-<n>-<consumer>.json (JMH) and .itchy.txt. Without cargo (no peer) it says so and
# exits 0 with nothing written: the comparison is then left out of the report.
set -euo pipefail
cd "$(dirname "$0")/../.."

if [ $# -ne 2 ]; then
  echo "usage: decoder-ab.sh SESSION_ITCH OUT_DIR" >&2
  exit 2
fi
session="$1"
out="$2"
rounds="${ROUNDS:-3}"
delay="${ITCHY_DELAY_S:-4.5}"
seconds="${ITCHY_SECONDS:-6.5}"
bench_cp="${BENCH_CP:-bench/target/mdfanout-bench.jar:bench/target/lib/*}"
read -r -a jmh_args <<<"${DECODER_JMH_ARGS:--f 1 -wi 3 -w 1s -i 8 -r 1s}"

case "$rounds" in ''|*[!0-9]*|0) echo "decoder-ab: ROUNDS must be a positive integer, not '$rounds'" >&2; exit 2 ;; esac
[ -r "$session" ] || { echo "decoder-ab: session file '$session' does not exist or is not readable" >&2; exit 2; }
source bench/e2e/lib.sh  # pin
if [ -z "${ITCHY_BIN:-}" ] && ! command -v cargo >/dev/null; then
  echo "decoder-ab: no cargo on PATH, so no itchy peer: the side-by-side comparison is left out"
  exit 0
fi

rm -rf "$out"
mkdir -p "$out"
# Built (and the file checked) once, untimed, so that no round waits for cargo.
ITCHY_PASSES=1 bench/peers/itchy-bench.sh "$session" >"$out/itchy-build.txt"

for round in $(seq 1 "$rounds"); do
  for consumer in advance read; do
    base="$out/round-$round-$consumer"
    # jmh.ignoreLock: a stale JMH lock file would otherwise stop the run.
    $(pin "${JMH_CPUS:-}") java -Djmh.ignoreLock=true -cp "$bench_cp" org.openjdk.jmh.Main 'ItchNormalizeBenchmark\.' \
      -p consumer="$consumer" "${jmh_args[@]}" -rf json -rff "$base.json" >"$base.log" 2>&1 &
    jmh=$!
    sleep "$delay"
    if ! ITCHY_PASSES=1000000 ITCHY_SECONDS="$seconds" $(pin "${ITCHY_CPUS:-}") bench/peers/itchy-bench.sh "$session" >"$base.itchy.txt"; then
      kill "$jmh" 2>/dev/null || true
      echo "decoder-ab: itchy-bench failed in round $round ($consumer)" >&2
      exit 1
    fi
    if ! wait "$jmh"; then
      echo "decoder-ab: JMH failed in round $round ($consumer); its output:" >&2
      tail -20 "$base.log" >&2
      exit 1
    fi
    itchy_mean=$(sed -n 's/^itchy: .* mean_msgs_per_s=\([0-9]*\).*/\1/p' "$base.itchy.txt")
    ours=$(python3 -c 'import json, sys; print("%.0f" % json.load(open(sys.argv[1]))[0]["primaryMetric"]["score"])' "$base.json")
    echo "decoder-ab: round $round of $rounds, consumer=$consumer: ItchNormalizeBenchmark $ours msg/s, itchy mean $itchy_mean msg/s"
  done
done
