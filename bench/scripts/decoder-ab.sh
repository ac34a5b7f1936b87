#!/usr/bin/env bash
# The normalizer against the native decoder peer, alternated: ROUNDS rounds of [itchy-bench on the
# session file, then JMH's ItchNormalizeBenchmark (both consumers)], so that the machine's drift over
# minutes falls on both sides alike instead of on whichever ran in the slower minute. jmh-table.py
# compares each round's means (messages over the whole measured time: JMH's score, itchy's
# mean_msgs_per_s) and reports the median of the rounds' ratios.
#   decoder-ab.sh SESSION_ITCH OUT_DIR
# Settings (environment): ROUNDS (3), ITCHY_PASSES (100: about 0.8 s of decoding), BENCH_CP
# (bench/target/mdfanout-bench.jar:bench/target/lib/*), DECODER_JMH_ARGS (-f 1 -wi 3 -w 1s -i 5 -r 1s).
# Writes OUT_DIR/itchy-<round>.txt and OUT_DIR/normalize-<round>.json. Without cargo (no peer) it says
# so and exits 0 with nothing written: the comparison is then left out of the report.
set -euo pipefail
cd "$(dirname "$0")/../.."

if [ $# -ne 2 ]; then
  echo "usage: decoder-ab.sh SESSION_ITCH OUT_DIR" >&2
  exit 2
fi
session="$1"
out="$2"
rounds="${ROUNDS:-3}"
passes="${ITCHY_PASSES:-100}"
bench_cp="${BENCH_CP:-bench/target/mdfanout-bench.jar:bench/target/lib/*}"
read -r -a jmh_args <<<"${DECODER_JMH_ARGS:--f 1 -wi 3 -w 1s -i 5 -r 1s}"

case "$rounds" in ''|*[!0-9]*|0) echo "decoder-ab: ROUNDS must be a positive integer, not '$rounds'" >&2; exit 2 ;; esac
[ -r "$session" ] || { echo "decoder-ab: session file '$session' does not exist or is not readable" >&2; exit 2; }
if ! command -v cargo >/dev/null; then
  echo "decoder-ab: no cargo on PATH, so no itchy peer: the alternated comparison is left out"
  exit 0
fi

rm -rf "$out"
mkdir -p "$out"
for round in $(seq 1 "$rounds"); do
  ITCHY_PASSES="$passes" bench/peers/itchy-bench.sh "$session" >"$out/itchy-$round.txt"
  java -cp "$bench_cp" org.openjdk.jmh.Main 'ItchNormalizeBenchmark\.' "${jmh_args[@]}" \
    -rf json -rff "$out/normalize-$round.json" >"$out/normalize-$round.log"
  itchy_mean=$(sed -n 's/^itchy: .* mean_msgs_per_s=\([0-9]*\).*/\1/p' "$out/itchy-$round.txt")
  ours=$(python3 -c 'import json, sys; print(" ".join("%s=%.0f" % (r["params"]["consumer"], r["primaryMetric"]["score"]) for r in json.load(open(sys.argv[1]))))' "$out/normalize-$round.json")
  echo "decoder-ab: round $round of $rounds: itchy mean=$itchy_mean msg/s, ItchNormalizeBenchmark $ours msg/s"
done
