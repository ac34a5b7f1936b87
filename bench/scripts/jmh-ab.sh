#!/usr/bin/env bash
# Two builds of the benchmarks side by side: A and B run the same single-threaded JMH benchmark at
# the same time, PAIRS times. On a shared machine whose speed drifts by tens of percent within minutes
# (other tenants), two runs taken one after the other differ by more than most changes do; two runs
# taken at the same time meet the same drift, so their ratio holds. Neither is pinned: each is one
# busy thread and gets a CPU of the two. (Pinned with taskset, each JVM saw one CPU, with its compiler
# and JMH's threads on the benchmark's CPU, and one CPU ran JMH 30% slower than the other.)
#   jmh-ab.sh A_DIR B_DIR BENCHMARK_REGEX [JMH options...]
# A_DIR and B_DIR each hold mdfanout-bench.jar and lib/ (a copy of bench/target after `make
# bench-micro` or `mvn -pl bench -am package -DskipTests`, one per build to compare).
# The JMH options default to: -f 1 -wi 3 -w 1s -i 8 -r 1s. Meant for a 2-CPU machine and a
# single-threaded benchmark: with more CPUs, pin each with CPU_A and CPU_B (taskset CPU lists).
# Output: one line per pair with both scores and B/A, then the median B/A.
set -euo pipefail

if [ $# -lt 3 ]; then
  echo "usage: jmh-ab.sh A_DIR B_DIR BENCHMARK_REGEX [JMH options...]" >&2
  exit 2
fi
a="$1" b="$2" regex="$3"
shift 3
jmh_options=("$@")
[ ${#jmh_options[@]} -gt 0 ] || jmh_options=(-f 1 -wi 3 -w 1s -i 8 -r 1s)
pairs="${PAIRS:-4}"
cpu_a="${CPU_A:-}"
cpu_b="${CPU_B:-}"
for dir in "$a" "$b"; do
  [ -f "$dir/mdfanout-bench.jar" ] && [ -d "$dir/lib" ] \
    || { echo "jmh-ab: $dir holds no mdfanout-bench.jar and lib/ (copy bench/target's)" >&2; exit 2; }
done
if [ -n "$cpu_a$cpu_b" ]; then
  command -v taskset >/dev/null || { echo "jmh-ab: CPU_A/CPU_B need taskset (util-linux)" >&2; exit 2; }
fi
case "$pairs" in ''|*[!0-9]*|0) echo "jmh-ab: PAIRS must be a positive integer, not '$pairs'" >&2; exit 2 ;; esac

out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT

# One JMH run, on the given CPUs if any; its score (the mean of the iterations) on stdout.
# jmh.ignoreLock: JMH otherwise refuses a second instance on the machine.
score() {
  local dir="$1" cpu="$2" file="$3"
  local pin=()
  [ -z "$cpu" ] || pin=(taskset -c "$cpu")
  if ! "${pin[@]}" java -Djmh.ignoreLock=true -cp "$dir/mdfanout-bench.jar:$dir/lib/*" org.openjdk.jmh.Main \
      "$regex" "${jmh_options[@]}" -rf json -rff "$file.json" >"$file.log" 2>&1; then
    echo "jmh-ab: the run of $dir failed; its output:" >&2
    tail -20 "$file.log" >&2
    return 1
  fi
  python3 -c 'import json, sys
results = json.load(open(sys.argv[1]))
if len(results) != 1:
    sys.exit("jmh-ab: the regex must select one benchmark with one parameter set, not %d" % len(results))
score = results[0]["primaryMetric"]["score"]
print("%.0f" % score if score >= 1000 else "%.5g" % score)' "$file.json"
}

ratios=()
for pair in $(seq 1 "$pairs"); do
  score "$a" "$cpu_a" "$out/a" >"$out/a.score" &
  score_a=$!
  score "$b" "$cpu_b" "$out/b" >"$out/b.score" &
  score_b=$!
  # Both waited for, so that neither is left running when one fails.
  status_a=0 status_b=0
  wait "$score_a" || status_a=$?
  wait "$score_b" || status_b=$?
  [ "$status_a" -eq 0 ] && [ "$status_b" -eq 0 ] || exit 1
  read -r sa <"$out/a.score"
  read -r sb <"$out/b.score"
  ratio=$(python3 -c 'import sys; print("%.3f" % (float(sys.argv[2]) / float(sys.argv[1])))' "$sa" "$sb")
  ratios+=("$ratio")
  echo "jmh-ab: pair $pair: A $sa, B $sb, B/A $ratio"
done
echo "jmh-ab: median B/A $(python3 -c 'import statistics, sys; print("%.3f" % statistics.median(map(float, sys.argv[1:])))' "${ratios[@]}") over $pairs pairs"
