#!/usr/bin/env bash
# Issue 38's lever "the fanout's state upkeep committed per batch": its upper bound, measured before building it.
#
# The fanout's state (fanout/.../state) makes every message atomic against kill -9 with an undo log: begin, one
# logged store per changed field, commit. Two throwaway variants bound what any change to that log could win:
#   every=N  begin and commit once per N messages (what a commit per packet saves at most; crash safety ignored)
#   nolog    no undo entries at all (what the log costs in all; crash safety gone)
# The variants live in docs/bench/levers/undo-log-upper-bounds.patch, never in the product: this script applies it
# in a scratch worktree, builds the bench there, and runs FanoutStateBenchmark.apply for each variant, alternating
# them ROUNDS times so that the machine's drift falls on all alike. It prints each variant's median messages/s and
# its ratio to every=1 (the product as it is).
#
# Usage: bench/scripts/lever-undo-log.sh [OUT_DIR]     (ROUNDS, default 5; VARIANTS, default "every=1 every=32 nolog")
set -euo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)
out=${1:-$root/bench/target/lever-undo-log}
rounds=${ROUNDS:-5}
variants=${VARIANTS:-"every=1 every=32 nolog"}
work=$(mktemp -d /tmp/mdfanout-lever-undo-XXXXXX)
trap 'git -C "$root" worktree remove --force "$work/tree" >/dev/null 2>&1 || true; rm -rf "$work"' EXIT

mkdir -p "$out"
git -C "$root" worktree add --detach "$work/tree" HEAD >/dev/null
git -C "$work/tree" apply "$root/docs/bench/levers/undo-log-upper-bounds.patch"
# package, never install: the variants must not reach ~/.m2, where the product's own builds read their modules.
(cd "$work/tree" && mvn -B -ntp -o -q -pl bench -am package -DskipTests -Dcheckstyle.skip)
cp_="$work/tree/bench/target/mdfanout-bench.jar:$work/tree/bench/target/lib/*"

: >"$out/runs.txt"
for round in $(seq 1 "$rounds"); do
  for variant in $variants; do
    case $variant in
      every=*) prop="-Dhack.every=${variant#every=}" ;;
      nolog) prop="-Dhack.nolog=true" ;;
      *) echo "unknown variant $variant (every=N or nolog)" >&2; exit 2 ;;
    esac
    rate=$(java -cp "$cp_" org.openjdk.jmh.Main 'FanoutStateBenchmark.apply' \
        -jvmArgsAppend "--add-opens=java.base/jdk.internal.misc=ALL-UNNAMED $prop" -wi 3 -i 5 2>&1 |
      awk '/apply:messages +thrpt/ {print $4}')
    if [[ -z $rate ]]; then
      echo "round $round $variant: the benchmark gave no figure" >&2
      exit 1
    fi
    echo "$round $variant $rate" | tee -a "$out/runs.txt"
  done
done

python3 - "$out/runs.txt" <<'EOF'
import statistics, sys
runs = {}
for line in open(sys.argv[1]):
    _, variant, rate = line.split()
    runs.setdefault(variant, []).append(float(rate))
base = statistics.median(runs["every=1"])
for variant, rates in runs.items():
    median = statistics.median(rates)
    print(f"{variant:10} median {median:14,.0f} msg/s  {median / base:.2f}x every=1  ({len(rates)} rounds)")
EOF
