#!/usr/bin/env bash
# The derived streams' cost and benefit (issue 40), in one run (make bench-derived, and make bench's derived phase):
#
#   bytes       io.mdfanout.bench.DerivedStreamBytes: the bench session through the fanout's publishing side with all
#               four derived streams, over IPC; per stream, the messages, packets and bytes a subscriber of it receives
#               per session (and the Aeron log's bytes), checked against the fanout's own counters
#   fanout      FanoutDerivedBenchmark (JMH): the fanout's nanoseconds per MBO message with MBO only, with all four
#               derived streams and with each alone, every variant in the same JMH run
#   subscriber  DerivedSubscriberBenchmark (JMH): the SDK's decode and dispatch of one session's packets of each stream
#               (MBO into order books; a derived stream into a listener that keeps what it says)
#
# The two JMH runs alternate, ROUNDS rounds; every ratio is taken within a round (the rounds' median is reported), so
# that the machine's drift between rounds tilts none. Then bench/e2e/report_derived.py prints the tables, writes
# OUT_DIR/summary.json and puts the tables between the derived-ab markers of REPORT_MD.
#   derived-ab.sh OUT_DIR [REPORT_MD]
# Settings (environment): ROUNDS (3), DERIVED_JMH_ARGS (-f 1 -wi 3 -w 1s -i 5 -r 1s), DERIVED_FANOUT_STREAMS
# (mbo,all,bbo,mbp-10,trades,ohlcv), DERIVED_SUBSCRIBER_STREAMS (mbo,bbo,mbp-10,trades,ohlcv), BENCH_CP
# (bench/target/mdfanout-bench.jar:bench/target/lib/*; make bench-derived builds it).
set -euo pipefail
cd "$(dirname "$0")/../.."

[ $# -ge 1 ] && [ $# -le 2 ] || { echo "usage: derived-ab.sh OUT_DIR [REPORT_MD]" >&2; exit 2; }
out="$1"
report="${2:-}"
rounds="${ROUNDS:-3}"
bench_cp="${BENCH_CP:-bench/target/mdfanout-bench.jar:bench/target/lib/*}"
read -r -a jmh_args <<<"${DERIVED_JMH_ARGS:--f 1 -wi 3 -w 1s -i 5 -r 1s}"
fanout_streams="${DERIVED_FANOUT_STREAMS:-mbo,all,bbo,mbp-10,trades,ohlcv}"
subscriber_streams="${DERIVED_SUBSCRIBER_STREAMS:-mbo,bbo,mbp-10,trades,ohlcv}"
case "$rounds" in ''|*[!0-9]*|0) echo "derived-ab: ROUNDS must be a positive integer, not '$rounds'" >&2; exit 2 ;; esac
[[ ",$fanout_streams," == *",mbo,"* ]] || { echo "derived-ab: DERIVED_FANOUT_STREAMS must name mbo (the baseline)" >&2; exit 2; }
[[ ",$subscriber_streams," == *",mbo,"* ]] ||
  { echo "derived-ab: DERIVED_SUBSCRIBER_STREAMS must name mbo (the baseline)" >&2; exit 2; }
[ -f bench/target/mdfanout-bench.jar ] ||
  { echo "derived-ab: no bench/target/mdfanout-bench.jar (make bench-derived builds it: mvn -pl bench -am package)" >&2; exit 2; }

rm -rf "$out"
mkdir -p "$out"
command_line="ROUNDS=$rounds${DERIVED_JMH_ARGS:+ DERIVED_JMH_ARGS=\"${jmh_args[*]}\"}${DERIVED_FANOUT_STREAMS:+ DERIVED_FANOUT_STREAMS=$fanout_streams}${DERIVED_SUBSCRIBER_STREAMS:+ DERIVED_SUBSCRIBER_STREAMS=$subscriber_streams} bench/scripts/derived-ab.sh $out${report:+ $report}"
echo "$command_line" >"$out/command.txt"

# The session's packets of every stream, recorded once: each subscriber fork decodes them rather than publish it again.
java --add-opens java.base/jdk.internal.misc=ALL-UNNAMED -cp "$bench_cp" io.mdfanout.bench.DerivedStreamBytes \
  "$out/bytes.json" "$out/session.bin" | tee "$out/bytes.txt"
export MDFANOUT_DERIVED_SESSION="$out/session.bin"
for round in $(seq 1 "$rounds"); do
  base="$out/round-$round"
  java -Djmh.ignoreLock=true -cp "$bench_cp" org.openjdk.jmh.Main 'FanoutDerivedBenchmark\.' -foe true -p "streams=$fanout_streams" \
    "${jmh_args[@]}" -rf json -rff "$base.fanout.json" >"$base.fanout.log" 2>&1 || { tail -30 "$base.fanout.log" >&2; exit 1; }
  java -Djmh.ignoreLock=true -cp "$bench_cp" org.openjdk.jmh.Main 'DerivedSubscriberBenchmark\.' -foe true \
    -p "stream=$subscriber_streams" "${jmh_args[@]}" -rf json -rff "$base.subscriber.json" >"$base.subscriber.log" 2>&1 ||
    { tail -30 "$base.subscriber.log" >&2; exit 1; }
  echo "derived-ab: round $round of $rounds done"
done

rm -f "$out/session.bin"  # 90 MB, made again by every run: not a result
python3 bench/e2e/report_derived.py "$out" ${report:+"$report"} ${report:+"$command_line"}
