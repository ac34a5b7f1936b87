#!/usr/bin/env bash
# Two builds of the benchmarks side by side: A and B run the same JMH benchmark at the same time,
# each pinned to its own CPU (taskset), then again with the CPUs swapped, PAIRS times. On a shared
# machine whose speed drifts by tens of percent within minutes (other tenants), two runs taken one
# after the other differ by more than most changes do; two runs taken at the same time meet the same
# drift, so their ratio holds. Swapping the CPUs cancels a difference between the two CPUs.
#   jmh-ab.sh A_DIR B_DIR BENCHMARK_REGEX [JMH options...]
# A_DIR and B_DIR each hold mdfanout-bench.jar and lib/ (a copy of bench/target after `make
# bench-micro` or `mvn -pl bench -am package -DskipTests`, one per build to compare).
# The JMH options default to: -f 1 -wi 3 -w 1s -i 8 -r 1s. Needs 2 CPUs (CPUS="0 1" to choose them).
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
read -r -a cpus <<<"${CPUS:-0 1}"
for dir in "$a" "$b"; do
  [ -f "$dir/mdfanout-bench.jar" ] && [ -d "$dir/lib" ] \
    || { echo "jmh-ab: $dir holds no mdfanout-bench.jar and lib/ (copy bench/target's)" >&2; exit 2; }
done
[ ${#cpus[@]} -eq 2 ] || { echo "jmh-ab: CPUS must name two CPUs, not '${CPUS:-}'" >&2; exit 2; }
command -v taskset >/dev/null || { echo "jmh-ab: taskset (util-linux) is needed" >&2; exit 2; }
case "$pairs" in ''|*[!0-9]*|0) echo "jmh-ab: PAIRS must be a positive integer, not '$pairs'" >&2; exit 2 ;; esac

out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT

# One JMH run pinned to one CPU; its score (the mean of the iterations) on stdout. jmh.ignoreLock:
# JMH otherwise refuses a second instance on the machine.
score() {
  local dir="$1" cpu="$2" file="$3"
  if ! taskset -c "$cpu" java -Djmh.ignoreLock=true -cp "$dir/mdfanout-bench.jar:$dir/lib/*" org.openjdk.jmh.Main \
      "$regex" "${jmh_options[@]}" -rf json -rff "$file.json" >"$file.log" 2>&1; then
    echo "jmh-ab: the run of $dir failed; its output:" >&2
    tail -20 "$file.log" >&2
    return 1
  fi
  python3 -c 'import json, sys
results = json.load(open(sys.argv[1]))
if len(results) != 1:
    sys.exit("jmh-ab: the regex must select one benchmark with one parameter set, not %d" % len(results))
print("%.0f" % results[0]["primaryMetric"]["score"])' "$file.json"
}

ratios=()
for pair in $(seq 1 "$pairs"); do
  if [ $((pair % 2)) -eq 1 ]; then cpu_a="${cpus[0]}" cpu_b="${cpus[1]}"; else cpu_a="${cpus[1]}" cpu_b="${cpus[0]}"; fi
  score "$a" "$cpu_a" "$out/a" >"$out/a.score" &
  score_a=$!
  score "$b" "$cpu_b" "$out/b" >"$out/b.score" &
  score_b=$!
  wait "$score_a" && wait "$score_b" || exit 1
  read -r sa <"$out/a.score"
  read -r sb <"$out/b.score"
  ratio=$(python3 -c 'import sys; print("%.3f" % (float(sys.argv[2]) / float(sys.argv[1])))' "$sa" "$sb")
  ratios+=("$ratio")
  echo "jmh-ab: pair $pair: A (cpu $cpu_a) $sa, B (cpu $cpu_b) $sb, B/A $ratio"
done
echo "jmh-ab: median B/A $(python3 -c 'import statistics, sys; print("%.3f" % statistics.median(map(float, sys.argv[1:])))' "${ratios[@]}") over $pairs pairs"
