#!/usr/bin/env bash
# The dedicated-cores benchmark: the `run` script of the bench bundle (make bench-bundle; bench/bundle/build.sh).
# On a bare many-core x86-64 Linux host (python3 and taskset, nothing else: the bundle brings its Java runtime and the
# peers' binaries) it runs make bench's sections with every busy thread on a CPU of its own:
#
#   ./run OUT_DIR                     the full run (8 or more CPUs; under 8 minutes)
#   BUNDLE_SIZE=tiny ./run OUT_DIR    the dry run: tiny sizes, no pinning, any CPU count (make test runs it)
#   ./run --plan [CPU_LIST]           print the CPU plan for this host's allowed CPUs (or CPU_LIST, e.g. 0-15), run nothing
#
# Sections, in this order, each under a time cap of its own inside RUN_BUDGET_S (470 s; tiny: 900):
#   latency     the chain and raw Aeron at 100k and 1M msg/s (p50 to p99.99, from the feed handler's receive), a
#               second pair at 100k, and two pairs at each rate from the pacer's schedule (coordinated omission
#               corrected, uncapped)
#   throughput  the zero-loss throughput search of both
#   publisher   the fanout's publish rate with 1 and 8 `record` subscribers, two pairs
#   nats        the chain with NATS as the fan-out at 100k msg/s
#   decoder     the normalizer (JMH) and the Rust itchy decoder on the same file, side by side
# bench/e2e/run.sh, nats.sh and bench/scripts/decoder-ab.sh do the measuring, exactly as make bench does, with the CPU
# plan below in their environment.
#
# The CPU plan (16 or more CPUs): the lowest allowed CPU is left to the OS and this script; every process gets CPUs of
# its own with taskset, one per busy thread plus one for its JVM, and pins its busy threads itself (--cpus auto, or
# an explicit list where the JVM must share); every idle strategy is busy-spin. Nothing assumes isolated or IRQ-free
# CPUs: what the kernel runs on them is part of the figures (the summary records /sys/devices/system/cpu/isolated).
# With 8 to 15 CPUs a compact plan shares the media drivers' work with fewer threads (see plan()).
#
# OUT_DIR receives at most 8 files: summary.md (the report's "Dedicated, pinned cores" section for this run),
# results.tar.gz (run.sh's results directory: JSON, HdrHistogram percentile files, commands, logs), bundle.json (the
# plan, each section's exit code and seconds, the host) and console.log. bench/e2e/report.py --pinned OUT_DIR turns
# them into docs/BENCHMARKS.md's section. Everything else (session files, rings, Aeron directories, processes) is
# removed at the end, also when the run is interrupted.
#
# Settings (environment): BUNDLE_SIZE (full; tiny), RUN_BUDGET_S, SECTIONS ("latency throughput publisher nats
# decoder"), WORK_PARENT (/tmp: where the session files go), ALLOWED_CPUS (default: this process's affinity), and for
# the full run PUB_SUBS ("1 8") and PUB_PAIRS (2).
set -uo pipefail
bundle="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"

# ---- the plan -----------------------------------------------------------------------------------------------------
# plan CPU_LIST: shell assignments of the CPU plan for those CPUs (see the header), or PLAN=none when fewer than 8.
plan() {
  python3 - "$1" <<'EOF'
import sys
def parse(spec):
    cpus = []
    for part in spec.replace(" ", "").split(","):
        if part:
            a, _, b = part.partition("-")
            cpus += range(int(a), int(b or a) + 1)
    return sorted(set(cpus))
c = parse(sys.argv[1])
n = len(c)
def r(i, j):  # CPUs c[i]..c[j] as a taskset list
    return ",".join(str(x) for x in c[i:j + 1])
p = {}
if n >= 16:
    p.update(PLAN="dedicated",
        # the chain: simulator, feed handler (feed-receive), fanout (publisher + driver conductor/sender/receiver),
        # the subscribers' standalone driver (conductor/sender/receiver), the subscriber (poll loop)
        SIM_CPUS=r(1, 2), FH_CPUS=r(3, 4), FO_CPUS=r(5, 9), SUB_DRIVER_CPUS=r(10, 13), SUB_CPUS=r(14, 15),
        FH_OPTS="--cpus auto", FO_OPTS="--cpus auto --threading shared --driver-threading dedicated",
        DRIVER_OPTS="--cpus auto --driver-threading dedicated", SUB_DRIVER="shared",
        # raw Aeron: a standalone dedicated driver on each side, where the fanout's and the subscribers' run
        RAW_DRIVER="standalone", RAW_PUB_CPUS=r(3, 4), RAW_PUB_DRIVER_CPUS=r(5, 8), RAW_SUB_DRIVER_CPUS=r(10, 13),
        RAW_SUB_CPUS=r(14, 15),
        # publisher runs: replay, fanout (4 busy threads on 4 CPUs, its JVM among them), the subscribers' driver
        # (one shared thread) and one CPU per subscriber for up to 8; with a driver each, run by its poll loop
        PUB_REPLAY_CPUS=r(1, 2), PUB_FANOUT_CPUS=r(3, 6), PUB_DRIVER_CPUS=r(7, 7),
        PUB_SUB_CPUS=" ".join(str(x) for x in c[8:16]), PUB_OWN_DRIVER="embedded",
        PUB_FO_OPTS=f"--cpus {r(3, 6)} --threading shared --driver-threading dedicated",
        PUB_DRIVER_OPTS=f"--cpus {r(7, 7)} --driver-threading shared",
        NATS_BRIDGE_CPUS=r(5, 6), NATS_SERVER_CPUS=r(7, 10), NATS_SUB_CPUS=r(14, 15),
        JMH_CPUS=r(1, 4), ITCHY_CPUS=r(8, 8), IDLE_STRATEGY="busy-spin")
elif n >= 8:
    p.update(PLAN="compact",
        # one driver thread in the fanout, the subscribers' driver invoked on their poll loop
        SIM_CPUS=r(1, 1), FH_CPUS=r(2, 3), FO_CPUS=r(4, 6), SUB_CPUS=r(7, 7),
        FH_OPTS="--cpus auto", FO_OPTS="--cpus auto --threading shared --driver-threading shared",
        DRIVER_OPTS="", SUB_DRIVER="embedded", SUB_OPTS="--driver-threading invoker",
        RAW_DRIVER="embedded", RAW_PUB_CPUS=r(4, 6), RAW_SUB_CPUS=r(7, 7), RAW_OPTS="--driver-threading invoker",
        PUB_REPLAY_CPUS=r(1, 1), PUB_FANOUT_CPUS=r(2, 3), PUB_DRIVER_CPUS=r(4, 4),
        PUB_SUB_CPUS=" ".join(str(x) for x in c[5:8]), PUB_OWN_DRIVER="embedded",
        PUB_FO_OPTS=f"--cpus {r(2, 3)} --threading shared --driver-threading shared",
        PUB_DRIVER_OPTS=f"--cpus {r(4, 4)} --driver-threading shared",
        NATS_BRIDGE_CPUS=r(4, 4), NATS_SERVER_CPUS=r(5, 6), NATS_SUB_CPUS=r(7, 7),
        JMH_CPUS=r(1, 3), ITCHY_CPUS=r(5, 5), IDLE_STRATEGY="busy-spin")
else:
    p.update(PLAN="none")
p["PLAN_CPUS"] = ",".join(map(str, c))
for k, v in p.items():
    print(f"{k}='{v}'")
EOF
}

allowed_cpus() { python3 -c 'import os; print(",".join(map(str, sorted(os.sched_getaffinity(0)))))'; }

if [ "${1:-}" = --plan ]; then
  command -v python3 >/dev/null || { echo "run: python3 is needed" >&2; exit 2; }
  plan "${2:-$(allowed_cpus)}"
  exit $?
fi

out="${1:-}"
[ -n "$out" ] && [ "$#" = 1 ] || { echo "usage: $0 OUT_DIR | $0 --plan [CPU_LIST]  (BUNDLE_SIZE=tiny for the dry run)" >&2; exit 2; }
BUNDLE_SIZE="${BUNDLE_SIZE:-full}"
case "$BUNDLE_SIZE" in full|tiny) ;; *) echo "run: BUNDLE_SIZE must be full or tiny, not '$BUNDLE_SIZE'" >&2; exit 2 ;; esac
for tool in python3 taskset tar gzip timeout; do
  command -v "$tool" >/dev/null || { echo "run: '$tool' is needed and not on PATH" >&2; exit 2; }
done
mkdir -p "$out" || { echo "run: cannot create $out" >&2; exit 2; }
out="$(cd "$out" && pwd)"
for f in summary.md results.tar.gz bundle.json console.log; do rm -f "$out/$f"; done
exec > >(tee "$out/console.log") 2>&1
log() { echo "run: $(date -u +%H:%M:%S) $*"; }

export JAVA_HOME="$bundle/runtime"
export PATH="$bundle/runtime/bin:$PATH"
java -version >/dev/null 2>&1 || { log "the bundle's Java runtime does not start: $("$bundle/runtime/bin/java" -version 2>&1 | head -3)"; exit 2; }

started=$SECONDS
work="$(mktemp -d "${WORK_PARENT:-/tmp}/mdfanout-bundle.XXXXXX")" || { log "cannot create a work directory"; exit 2; }
marker="$work/started"; touch "$marker"
results="$work/results"
mkdir -p "$results"
section_pid=""
sweep() {  # every process this run started, its shared-memory files and its work directory
  [ -n "$section_pid" ] && kill -TERM "$section_pid" 2>/dev/null && wait "$section_pid" 2>/dev/null
  pkill -KILL -f -- "$bundle/bin/../lib/mdfanout.jar" 2>/dev/null
  pkill -KILL -f -- "$bundle/peers/" 2>/dev/null
  pkill -KILL -f -- "$bundle/bench-lib/" 2>/dev/null
  pkill -KILL -f -- "$work/" 2>/dev/null
  find /dev/shm -maxdepth 1 -name 'mdfanout-bench*' -newer "$marker" -exec rm -rf {} + 2>/dev/null
  rm -rf "$work"
}
trap 'log "interrupted"; sweep; exit 130' INT TERM
trap 'sweep' EXIT

cpus="${ALLOWED_CPUS:-$(allowed_cpus)}"
plan_for="$cpus"; [ "$BUNDLE_SIZE" = tiny ] && plan_for=0   # the dry run: never pinned, every process may run anywhere
plan_text="$(plan "$plan_for")" || { log "planning failed"; exit 2; }
eval "$plan_text"
if [ "$BUNDLE_SIZE" = full ] && [ "$PLAN" = none ]; then
  log "this host allows $(echo "$cpus" | tr ',' '\n' | wc -l) CPUs ($cpus): the pinned run needs 8 or more (BUNDLE_SIZE=tiny runs unpinned)"
  exit 2
fi
for v in $(echo "$plan_text" | cut -d= -f1); do export "$v"; done
log "bundle $(sed -n 2p "$bundle/MANIFEST.txt" 2>/dev/null), size $BUNDLE_SIZE, plan $PLAN on CPUs $cpus"
[ "$PLAN" != none ] && echo "$plan_text" | sed 's/^/  /'

# ---- sizes ---------------------------------------------------------------------------------------------------------
export PEERS_CACHE="$work/peers" RESULTS_DIR="$results" NO_REPORT=1 KEEP_COMMANDS=1 GIT_REV
# Host qualification on every CPU the plan uses, before the first section (run.sh measures it once per results).
export JITTER_CPUS="$cpus" JITTER_S="${JITTER_S:-2}"
GIT_REV="$(sed -n 's/^git: //p' "$bundle/MANIFEST.txt" 2>/dev/null)"
gzip -dc "$bundle/peers/bin/nats-server.gz" >"$work/nats-server" && chmod +x "$work/nats-server" || log "nats-server not unpacked"
export NATS_SERVER="$work/nats-server" NATS_PEER_CP="$bundle/peers/nats/*:$bundle/lib/lib/*"
export ITCHY_BIN="$bundle/peers/bin/itchy-bench" ITCHY_VERSION="$(sed -n 's/^itchy: //p' "$bundle/MANIFEST.txt" 2>/dev/null)"
export BENCH_CP="$bundle/bench-lib/*:$bundle/lib/lib/*"
mkdir -p "$PEERS_CACHE"
if [ "$BUNDLE_SIZE" = full ]; then
  RUN_BUDGET_S="${RUN_BUDGET_S:-470}"
  export RATES="100000 1000000" DURATION_S=5 WARMUP_S=5 MIN_MESSAGES=150000 MAX_MESSAGES=6000000
  # The outside view (coordinated omission corrected, uncapped) at both rates, two pairs each (issue 38 item 6)
  export REPEAT_RATES=100000 REPEATS=1 OUTSIDE_RATES="100000 1000000" OUTSIDE_PAIRS=2
  # Finer steps than make bench (issue 38): bounds within 5% where 5 steps after the top reach it; raw Aeron cannot
  # lose, so its top passes in one step and the steps are the chain's
  export STEP_S=3 STEP_WARMUP_S=2 SEARCH_STEPS=5 SEARCH_PRECISION=1.05 TRIALS=1 SEARCH_LO=1000000 SEARCH_HI=16000000 RAW_SEARCH_HI=16000000
  export CEILING_MESSAGES=20000000  # the sender alone: the chain's search then asks at most its ceiling
  export PUB_OWN_SUBS=8             # 8 subscribers on 8 media drivers: the fan-out target
  export PUB_MESSAGES=60000000 PUB_WARMUP_MESSAGES=15000000 PUB_SUBS="${PUB_SUBS:-1 8}" PUB_PAIRS="${PUB_PAIRS:-2}"
  export NATS_RATES=100000 NATS_FANOUT_SUBS=""
  decoder_env=(ROUNDS=2 "DECODER_JMH_ARGS=-f 1 -wi 3 -w 1s -i 5 -r 1s" ITCHY_DELAY_S=4.5 ITCHY_SECONDS=3.5)
  caps=(latency=200 throughput=140 publisher=150 nats=40 decoder=70)  # throughput: the sender's ceiling, raw batched too; publisher: own drivers
else
  RUN_BUDGET_S="${RUN_BUDGET_S:-900}"
  export RATES="20000" DURATION_S=1 WARMUP_S=1 MIN_MESSAGES=20000 MAX_MESSAGES=40000
  export REPEAT_RATES="" REPEATS=0 OUTSIDE_RATES=20000 OUTSIDE_PAIRS=2
  export STEP_S=1 STEP_WARMUP_S=0 SEARCH_STEPS=1 TRIALS=1 SEARCH_LO=20000 SEARCH_HI=50000 RAW_SEARCH_HI=50000 CEILING_MESSAGES=200000
  export PUB_OWN_SUBS=2 JITTER_S=1
  export PUB_MESSAGES=100000 PUB_WARMUP_MESSAGES=25000 PUB_SUBS="1 2" PUB_PAIRS=1
  export NATS_RATES=20000 NATS_FANOUT_SUBS=""
  decoder_env=(ROUNDS=1 "DECODER_JMH_ARGS=-f 1 -wi 1 -w 1s -i 2 -r 1s" ITCHY_DELAY_S=2.5 ITCHY_SECONDS=1)
  caps=(latency=240 throughput=240 publisher=200 nats=120 decoder=120)
fi
# The fan-out latency runs, the archive, the pair, the derived streams (JMH, make bench's): not targets here.
export SKIP_FANOUT=1 SKIP_ARCHIVE=1 SKIP_PAIR=1 SKIP_DERIVED=1 SIM_SOURCE=file
SECTIONS="${SECTIONS:-latency throughput publisher nats decoder}"

cap_of() { local kv; for kv in "${caps[@]}"; do [ "${kv%%=*}" = "$1" ] && echo "${kv#*=}"; done; }
sections_json=""
# run_section NAME CMD...: CMD under the section's cap (and what is left of the budget), its exit code and seconds kept
run_section() {
  local name="$1"; shift
  local left=$((RUN_BUDGET_S - (SECONDS - started))) cap; cap=$(cap_of "$name")
  [ "$cap" -gt "$left" ] && cap=$left
  if [ "$cap" -lt 15 ]; then
    log "$name: skipped, $left s of the ${RUN_BUDGET_S} s budget left"
    sections_json="$sections_json${sections_json:+,}\"$name\":{\"rc\":null,\"seconds\":0,\"skipped\":true}"
    return
  fi
  log "$name: up to $cap s"
  local t0=$SECONDS rc
  timeout -k 15 "$cap" "$@" &
  section_pid=$!
  wait "$section_pid"; rc=$?; section_pid=""
  [ "$rc" = 124 ] && log "$name: stopped at its cap of $cap s"
  log "$name: exit $rc after $((SECONDS - t0)) s"
  sections_json="$sections_json${sections_json:+,}\"$name\":{\"rc\":$rc,\"seconds\":$((SECONDS - t0)),\"cap_s\":$cap}"
}

cd "$bundle"
for s in $SECTIONS; do
  case "$s" in
    latency)    run_section latency env SKIP_THROUGHPUT=1 SKIP_PUB=1 SKIP_NATS=1 bench/e2e/run.sh ;;
    throughput) run_section throughput env SKIP_LATENCY=1 SKIP_PUB=1 SKIP_NATS=1 bench/e2e/run.sh ;;
    publisher)  run_section publisher env SKIP_LATENCY=1 SKIP_THROUGHPUT=1 SKIP_NATS=1 bench/e2e/run.sh ;;
    nats)       run_section nats env SKIP_LATENCY=1 SKIP_THROUGHPUT=1 SKIP_PUB=1 bench/e2e/run.sh ;;
    decoder)
      # The file both decode: the session JMH's GeneratedSession builds, written as make bench-micro writes it.
      session="$work/decoder-session.itch"
      if java --add-opens java.base/jdk.internal.misc=ALL-UNNAMED -cp "$BENCH_CP" io.mdfanout.bench.WriteSession "$session" >"$work/write-session.log" 2>&1; then
        run_section decoder env "${decoder_env[@]}" bench/scripts/decoder-ab.sh "$session" "$results/decoder"
      else
        log "decoder: the session file was not written: $(tail -3 "$work/write-session.log")"
        sections_json="$sections_json${sections_json:+,}\"decoder\":{\"rc\":1,\"seconds\":0}"
      fi ;;
    *) log "unknown section '$s' (SECTIONS: latency throughput publisher nats decoder)"; exit 2 ;;
  esac
done

# ---- results --------------------------------------------------------------------------------------------------------
isolated="$(cat /sys/devices/system/cpu/isolated 2>/dev/null)"
governor="$(cat /sys/devices/system/cpu/cpu0/cpufreq/scaling_governor 2>/dev/null)"
python3 - "$out/bundle.json" "$BUNDLE_SIZE" "$cpus" "$plan_text" "{$sections_json}" "$((SECONDS - started))" \
  "$RUN_BUDGET_S" "$isolated" "$governor" "$(cat "$bundle/MANIFEST.txt" 2>/dev/null)" "$(lscpu 2>/dev/null)" <<'EOF'
import json, sys
out, size, cpus, plan, sections, elapsed, budget, isolated, governor, manifest, lscpu = sys.argv[1:]
plan = dict(line.split("=", 1) for line in plan.splitlines() if "=" in line)
plan = {k: v.strip("'") for k, v in plan.items()}
json.dump({"size": size, "allowed_cpus": cpus, "plan": plan, "sections": json.loads(sections),
           "elapsed_s": int(elapsed), "budget_s": int(budget), "isolated_cpus": isolated or "none",
           "cpufreq_governor": governor or "n/a", "manifest": manifest.splitlines(), "lscpu": lscpu.splitlines()},
          open(out, "w"), indent=1)
EOF
cp "$out/bundle.json" "$results/bundle.json"
python3 bench/e2e/report_pinned.py --summary "$results" >"$out/summary.md" 2>"$work/summary.err" \
  || log "summary.md not written: $(tail -5 "$work/summary.err")"
# Results with the logs, compressed; without the logs if that is over 15 MiB (what one file may bring back).
tar -czf "$out/results.tar.gz" -C "$work" results
if [ "$(stat -c %s "$out/results.tar.gz")" -gt $((15 * 1024 * 1024)) ]; then
  log "results.tar.gz over 15 MiB: packed again without the processes' logs"
  tar -czf "$out/results.tar.gz" -C "$work" --exclude='results/logs/*/*.log' results
fi
failed=$(python3 -c 'import json, sys; s = json.load(open(sys.argv[1]))["sections"]; print(" ".join(k for k, v in s.items() if v.get("rc") != 0))' "$out/bundle.json")
log "done in $((SECONDS - started)) s: $(ls "$out" | tr '\n' ' ')${failed:+; sections that failed or were skipped: $failed}"
[ -z "$failed" ]
