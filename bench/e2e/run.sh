#!/usr/bin/env bash
# End-to-end benchmark harness (make bench): the whole chain against raw Aeron, on this machine, in one run.
#
#   latency    per rate in RATES: simulator --latency-timestamps -> feed-handler -> fanout -> `latency`
#              subscriber, and simulator -> raw-aeron-relay -> raw-aeron-sub (the same hops; RAW_FROM=pub:
#              raw-aeron-pub -> raw-aeron-sub) at the same rate and message count
#   fan-out    the chain at FANOUT_RATE with 1, 2, 4 and 8 latency subscribers (latency per subscriber); then the
#              fanout's publisher throughput with 1, 2, 4 and 8 `record` subscribers: a generated ITCH session
#              (PUB_MESSAGES messages, written once, cached) is replayed into the rings as fast as they accept, the
#              fanout drains and publishes it as fast as it can, every subscriber must receive all of it gap-free;
#              the rate is the median of the fanout's one-second `published` rates (see pub_throughput below)
#   throughput the highest rate the chain carries with zero loss (record --no-recovery exits 0, gaps=0, the feed
#              handler declared no gap), by bisection of the rate asked of the simulator; the figure is the rate
#              the simulator achieved in that step, which on a saturated machine is below the rate asked. The
#              same for raw Aeron (every message received; the rate the publisher achieved: back pressure slows it,
#              so raw Aeron never loses and its figure is the transport's limit here). In every trial each
#              process's CPU time is sampled (bench/e2e/cpu_sample.py): the report shows where each system's
#              CPU goes over its sender's measured seconds
#   archive    the archive role (issue 29): the chain's latency at ARCHIVE_RATES with `mdfanout archive` recording
#              every partition stream and without it, in alternating runs (off, on, on, off, ...); each recording is
#              then replayed from the archive (`record --from start --replay-only`) on the idle machine, and the
#              replay's rate (messages over the seconds from its first message to its end, the summary's receivingS)
#              is put against the throughput's highest clean rate of the chain (see archive_section)
#   sdk        the subscriber SDKs side by side (issue 39): bench/scripts/sdk-ab.sh, as make bench-sdk runs it, into
#              sdk/: Java, Rust and Python's throughput on the same packets and their live latency (fanout send to
#              delivery) on the same chain, each as ratios to Java's in the same round; its tables go into
#              SDK_REPORT (docs/bench/sdk-languages.md). SDK_ROUNDS (3) rounds; SKIP_SDK=1 leaves it out
#   derived    the derived streams' cost and benefit (issue 40): bench/scripts/derived-ab.sh, as make bench-derived runs
#              it, into derived/: the fanout's ns per message with MBO only against MBO and the derived streams (all four,
#              each alone), a subscriber's bytes and CPU per session on each stream against MBO's, as ratios within
#              each of DERIVED_ROUNDS (2; make bench-derived: 3) rounds; its tables go into DERIVED_REPORT
#              (docs/bench/derived-streams.md) and the report. SKIP_DERIVED=1 leaves it out
#
# Latency (LATENCY_FROM=receive, the default) runs from the feed handler's receive of the datagram
# (feed-handler --stamp-receive-time) to the subscriber's callback, as issue 6 defines it. Raw Aeron's latency runs
# have the same hops (RAW_FROM=relay, the default: issue 38): the simulator's datagrams into raw-aeron-relay, which
# offers each datagram's messages on plain Aeron, stamped at the datagram's receive (raw-aeron-relay
# --stamp-receive-time); RAW_FROM=pub is the earlier baseline, raw-aeron-pub from its offer (--stamp-send-time).
# The throughput search always uses raw-aeron-pub. LATENCY_FROM=scheduled measures instead from the
# simulator's scheduled send (coordinated-omission corrected: the timestamp is the pacer's intended send time),
# which adds the simulator and the receiver's socket wait, for both systems; OUTSIDE_RATES ("100000 1000000"; "" for none) also
# runs that view at those rates into latency-outside/, with both pacers uncapped (--max-lag-ms 0: a sender that
# stalls sends every message it owes afterwards, each stamped when it was due, so no stall's cost is forgotten), and
# OUTSIDE_PAIRS (1) pairs at each of them (the further ones into latency-outside-repeats/).
# Results (JSON, .hgrm, logs, the exact commands) go to bench/e2e/results/<UTC timestamp>/; then
# bench/e2e/report.py writes docs/BENCHMARKS.md and the SVG plots from them.
#
# Settings (environment): RATES ("100000 1000000"; make bench kept to 10 minutes here, issue 38: make bench-full has
# 10000 too), DURATION_S (10: seconds worth of
# messages measured per latency run, at least MIN_MESSAGES=150000 and at most MAX_MESSAGES=8000000 in all, warm-up
# included: at 1M msg/s that is 4 s warm-up and 4 s measured; 0 = no cap), WARMUP_S (8: seconds worth of messages
# before them, left out of the histograms: every JVM of the chain is still compiling its hot paths for seconds), FANOUT_RATE (100000), FANOUT_S (5), FANOUT_SUBS
# ("1 8"), PUB_MESSAGES (32000000), PUB_WARMUP_MESSAGES (12000000),
# PUB_SUBS ("1 8"), PUB_PAIRS (1: pairs of the 1- and 8-subscriber publisher runs), PUB_OWN_DRIVERS (1: each
# pair also runs 1 and PUB_OWN_SUBS (8 on 16 CPUs or more, else 2) subscribers each with a media driver of its own,
# pub-own-1 and pub-own-N, so the fanout's sender serves N receivers; 0: only the shared driver), PUB_OWN_DRIVER
# (standalone: a media-driver process each, with PUB_OWN_DRIVER_OPTS; embedded: run by each subscriber's poll loop, as
# the CPU plans have it, see pub_throughput), STEP_S (4: seconds per throughput step), STEP_WARMUP_S (2) and STEP_WARMUP_RATE (500000): before
# each throughput step, that many seconds of messages at that rate (or the step's, when lower), for chain and raw
# Aeron alike; the step's rate is taken over the messages after them (every JVM compiles its hot paths on its first
# messages, a large share of a short step's CPU), SEARCH_LO/SEARCH_HI (1000000/8000000) and
# RAW_SEARCH_HI (16000000): the tops for the chain and for raw Aeron, each above what its sender can push here, so a
# top step runs its sender flat out: the simulator packs full MoldUDP64 datagrams when behind, as an exchange's feed
# does at its peaks; a top below what the sender can push caps the figure at the top, and a much higher one only
# makes the flat-out step longer (a step's messages are the rate asked times STEP_S); raw Aeron's publisher pushes
# more than the simulator, hence a top of its own), SEARCH_STEPS (4: with three trials a rate, a borderline rate and
# the 80% step below it can take three steps), SEARCH_PRECISION (1.15: the search stops once the lowest lossy rate is
# within this factor of the highest clean one; the pinned bundle asks 1.05 with more steps), TRIALS (3: trials per rate of the chain; a rate
# passes when most are clean, see search below), FEED_RECOVERY (1: in
# every chain run the simulator serves MoldUDP64 re-requests and the feed handler uses them; 0: none),
# LEVERS (empty: the levers in the chain to measure against it, see lever_searches),
# SIM_PRE_ENCODE (1: each throughput step's simulator packs its session into MoldUDP64 packets before sending the
# first, `--pre-encode`, and sends whole packets with nothing per message, so that it outruns the chain; its ceiling
# alone is measured first, CEILING_MESSAGES (20000000) of them, see sender_ceiling; 0: it packs each message as it
# is due, with latency timestamps, as before),
# SIM_SOURCE (file: each throughput step's simulator sends a session written before the step, from /dev/shm, with
# --from-itch-file: the messages it would generate, without generating them on the cores measured; generate: it
# generates them while sending; latency and fan-out runs always generate), RECORD_OUT (empty:
# the throughput and publisher runs' `record` subscribers write nothing; a path: `--out PATH`),
# RMEM_MAX (33554432: net.core.rmem_max for the run, raised where lower and root can, put back at the end; the feed
# handler asks for a 32 MiB socket buffer; empty: leave it), REPEAT_RATES ("100000") and REPEATS (1): more chain/raw latency pairs at those rates (median ratio reported),
# SUB_DRIVER (auto: fan-out subscribers share one media-driver, a lone one embeds its own; shared; embedded),
# DRIVER_NICE (-10: the nice value of that shared media-driver, which a deployment gives a core of its own; starved
# behind 8 subscriber JVMs on one CPU it overflowed its socket buffer, NAKed thousands of gaps and spent half its CPU
# rescanning them; empty: the default priority; see docs/OPERATIONS.md),
# SIM_OPTS (extra options for the chain's simulator, e.g. --max-packet-bytes 8000: a cheaper sender, to look for
# the chain's own limit above what the simulator pushes in 1,400-byte datagrams),
# FH_OPTS / FO_OPTS / SUB_OPTS / RAW_OPTS / DRIVER_OPTS (extra options for the feed handler, fanout, chain
# subscribers, raw pair, and the standalone media-driver that several subscribers share: e.g. pinned runs on a
# many-core host; the publisher runs' fanout and `record` subscribers take FO_OPTS and SUB_OPTS too), PUB_SUB_OPTS
# (further options for the publisher runs' `record` subscribers only), PUB_REPLAY_CPU (fanout: the publisher runs'
# replay shares the fanout's CPU, the publishing side; subscribers: it shares the subscribers' CPU; see
# pub_throughput), IDLE_STRATEGY (empty: each role's default, backoff; e.g. park: that
# --idle-strategy for every process of both systems, the simulator, the raw pair and the media drivers included;
# see docs/OPERATIONS.md "Idle strategies"), SKIP_LATENCY=1, SKIP_FANOUT=1, SKIP_THROUGHPUT=1, SKIP_PUB=1, SKIP_ARCHIVE=1, SKIP_PAIR=1 (the pair section, PAIR_RATES: see pair_section), SKIP_NATS=1 (the NATS peer, bench/e2e/nats.sh, at NATS_RATES: "100000", and fan-out through NATS to
# NATS_FANOUT_SUBS: "8"; its latency run is the 1-subscriber case, so make bench no longer repeats it as a fan-out run
# of 1: make bench-full runs "1 8"), SKIP_SDK=1 (the sdk phase; SDK_ROUNDS, SDK_REPORT), SKIP_DERIVED=1 (the derived phase; DERIVED_ROUNDS, DERIVED_REPORT), SPARSE_LOGS=1 (see below), NO_REPORT=1, RESULTS_DIR (default: a new bench/e2e/results/<UTC time>).
set -uo pipefail
cd "$(dirname "$0")/../.."

RATES="${RATES:-100000 1000000}"
LATENCY_FROM="${LATENCY_FROM:-receive}"
SUB_DRIVER="${SUB_DRIVER:-auto}"
DRIVER_NICE="${DRIVER_NICE--10}"
driver_nice=""; [ -n "$DRIVER_NICE" ] && driver_nice="nice -n $DRIVER_NICE"
FH_OPTS="${FH_OPTS:-}"; FO_OPTS="${FO_OPTS:-}"; SUB_OPTS="${SUB_OPTS:-}"; RAW_OPTS="${RAW_OPTS:-}"; DRIVER_OPTS="${DRIVER_OPTS:-}"
export IDLE_STRATEGY="${IDLE_STRATEGY:-}"
idle_opt=""
if [ -n "$IDLE_STRATEGY" ]; then
  # One idle strategy for every process of both systems, so that the ratios compare like with like.
  idle_opt="--idle-strategy $IDLE_STRATEGY"
  FH_OPTS="$idle_opt $FH_OPTS"; FO_OPTS="$idle_opt $FO_OPTS"; SUB_OPTS="$idle_opt $SUB_OPTS"; RAW_OPTS="$idle_opt $RAW_OPTS"
fi
OUTSIDE_RATES="${OUTSIDE_RATES-100000 1000000}"
OUTSIDE_PAIRS="${OUTSIDE_PAIRS:-1}"
case "$OUTSIDE_PAIRS" in ''|*[!0-9]*|0) echo "run.sh: OUTSIDE_PAIRS must be a positive number, not '$OUTSIDE_PAIRS'" >&2; exit 2 ;; esac
REPEAT_RATES="${REPEAT_RATES-100000}"
REPEATS="${REPEATS:-1}"
stamp_mode="$LATENCY_FROM"
# Every Aeron log of the run, on both sides of both systems, is allocated whole when it is created (Aeron's
# aeron.term.buffer.sparse.file=false; the fanout's publications are so anyway). Otherwise each receiver takes a page
# fault per 4 KiB page on its first pass through each term, and a run is shorter than that first pass (a 48 MiB log
# at 1 MB/s per partition takes ~50 s): start-up faults, like the JIT's, that the warm-up is there to leave out, and
# they showed in the chain's p99 (the figures: docs/bench/CODE-NOTES.md). SPARSE_LOGS=1 keeps Aeron's default.
[ "${SPARSE_LOGS:-0}" = 1 ] || export JAVA_OPTS="${JAVA_OPTS:-} -Daeron.term.buffer.sparse.file=false"
DURATION_S="${DURATION_S:-10}"
# 8 s of warm-up: at 100k the chain's four JVMs reach the compilers' invocation thresholds five times later than in a
# throughput trial at 500k, and a shorter warm-up left their compiling in the chain's p99 while raw Aeron's did not
# move (the figures: docs/bench/CODE-NOTES.md).
WARMUP_S="${WARMUP_S:-8}"
MIN_MESSAGES="${MIN_MESSAGES:-150000}"
MAX_MESSAGES="${MAX_MESSAGES:-8000000}"
FANOUT_RATE="${FANOUT_RATE:-100000}"
FANOUT_S="${FANOUT_S:-5}"
FANOUT_SUBS="${FANOUT_SUBS:-1 8}"
# 12M warm-up messages, the same for every subscriber count: with 8 subscriber JVMs compiling on one CPU the fanout's
# one-second rates keep climbing for seconds after they are steady with 1 subscriber, and a shorter warm-up put the 8
# JVMs' compiling into the measured median (the figures: docs/bench/CODE-NOTES.md).
PUB_MESSAGES="${PUB_MESSAGES:-32000000}"
PUB_WARMUP_MESSAGES="${PUB_WARMUP_MESSAGES:-12000000}"
PUB_SUBS="${PUB_SUBS:-1 8}"
PUB_SUB_OPTS="${PUB_SUB_OPTS:-}"
# PUB_PAIRS (1; make bench-full 3): pairs of publisher runs with 1 and with 8 subscribers (the first pair is part of PUB_SUBS); the
# fan-out target is judged on the median of their ratios: one pair's ratio moves widely from one make bench to the
# next, since eight subscriber JVMs share one CPU and the slowest of them sets the publisher's pace through the shared
# driver's flow control.
PUB_PAIRS="${PUB_PAIRS:-1}"
case "$PUB_PAIRS" in ''|*[!0-9]*|0) echo "run.sh: PUB_PAIRS must be a positive number, not '$PUB_PAIRS'" >&2; exit 2 ;; esac
PUB_REPLAY_CPU="${PUB_REPLAY_CPU:-fanout}"
# The CPU plan (empty: none, every process may run on any CPU; bench/bundle/run-pinned.sh sets them on many-core
# hosts): taskset lists for the chain's SIM_CPUS, FH_CPUS, FO_CPUS, SUB_DRIVER_CPUS (the subscribers' standalone
# media driver: SUB_DRIVER=shared gives one even to a lone subscriber) and SUB_CPUS (space-separated groups, dealt
# round robin to the subscribers); raw Aeron's RAW_PUB_CPUS, RAW_SUB_CPUS and, with RAW_DRIVER=standalone (default
# embedded: each tool embeds its driver), RAW_PUB_DRIVER_CPUS and RAW_SUB_DRIVER_CPUS, a standalone driver for each
# side; the publisher runs' PUB_REPLAY_CPUS, PUB_FANOUT_CPUS, PUB_DRIVER_CPUS and PUB_SUB_CPUS (groups, as SUB_CPUS),
# which replace the split described at pub_throughput.
SIM_CPUS="${SIM_CPUS:-}"; FH_CPUS="${FH_CPUS:-}"; FO_CPUS="${FO_CPUS:-}"; SUB_CPUS="${SUB_CPUS:-}"
SUB_DRIVER_CPUS="${SUB_DRIVER_CPUS:-}"; RAW_DRIVER="${RAW_DRIVER:-embedded}"; RAW_FROM="${RAW_FROM:-relay}"
RAW_PUB_CPUS="${RAW_PUB_CPUS:-}"; RAW_SUB_CPUS="${RAW_SUB_CPUS:-}"
RAW_PUB_DRIVER_CPUS="${RAW_PUB_DRIVER_CPUS:-}"; RAW_SUB_DRIVER_CPUS="${RAW_SUB_DRIVER_CPUS:-}"
PUB_REPLAY_CPUS="${PUB_REPLAY_CPUS:-}"; PUB_FANOUT_CPUS="${PUB_FANOUT_CPUS:-}"; PUB_DRIVER_CPUS="${PUB_DRIVER_CPUS:-}"
PUB_SUB_CPUS="${PUB_SUB_CPUS:-}"
# The publisher runs' fanout and subscribers' media driver options (default: FO_OPTS and DRIVER_OPTS): a CPU plan
# with explicit --cpus lists needs other lists there.
PUB_FO_OPTS="${PUB_FO_OPTS-$FO_OPTS}"; PUB_DRIVER_OPTS="${PUB_DRIVER_OPTS-$DRIVER_OPTS}"
[[ -n "$idle_opt" && " $PUB_FO_OPTS " != *" --idle-strategy"* ]] && PUB_FO_OPTS="$idle_opt $PUB_FO_OPTS"
case "$RAW_DRIVER" in embedded|standalone) ;; *) echo "run.sh: RAW_DRIVER must be embedded or standalone, not '$RAW_DRIVER'" >&2; exit 2 ;; esac
case "$PUB_REPLAY_CPU" in fanout|subscribers) ;; *) echo "run.sh: PUB_REPLAY_CPU must be fanout or subscribers, not '$PUB_REPLAY_CPU'" >&2; exit 2 ;; esac
PEERS_CACHE="${PEERS_CACHE:-$HOME/.cache/mdfanout/peers}"
STEP_S="${STEP_S:-4}"
STEP_WARMUP_S="${STEP_WARMUP_S:-2}"
STEP_WARMUP_RATE="${STEP_WARMUP_RATE:-500000}"
SIM_PRE_ENCODE="${SIM_PRE_ENCODE:-1}"; CEILING_MESSAGES="${CEILING_MESSAGES:-20000000}"
# 8 subscribers on 8 drivers where there are CPUs for them; on fewer than 16 CPUs, 2: on this 2-core machine 8
# drivers and 8 subscribers on one CPU starved each other (187,682 msg/s against 3.48M with 1, 59,129 NAKs and
# lost data in 6 of 8, for three minutes of make bench; run 20261129T211014Z).
PUB_OWN_DRIVERS="${PUB_OWN_DRIVERS:-1}"; PUB_OWN_SUBS="${PUB_OWN_SUBS:-$([ "$(nproc)" -ge 16 ] && echo 8 || echo 2)}"
PUB_OWN_DRIVER="${PUB_OWN_DRIVER:-standalone}"; PUB_OWN_DRIVER_OPTS="${PUB_OWN_DRIVER_OPTS:-}"
case "$PUB_OWN_DRIVER" in standalone|embedded) ;; *) echo "run.sh: PUB_OWN_DRIVER is standalone or embedded, not '$PUB_OWN_DRIVER'" >&2; exit 2 ;; esac
SEARCH_LO="${SEARCH_LO:-1000000}"
SEARCH_HI="${SEARCH_HI:-8000000}"
RAW_SEARCH_HI="${RAW_SEARCH_HI:-16000000}"
SEARCH_STEPS="${SEARCH_STEPS:-4}"
SEARCH_PRECISION="${SEARCH_PRECISION:-1.15}"
python3 -c "import sys; sys.exit(0 if 1 < float(sys.argv[1]) < 2 else 1)" "$SEARCH_PRECISION" 2>/dev/null ||
  { echo "run.sh: SEARCH_PRECISION must be a number between 1 and 2 (the lowest lossy rate over the highest clean one at which the search stops), not '$SEARCH_PRECISION'" >&2; exit 2; }
TRIALS="${TRIALS:-3}"
case "$TRIALS" in ''|*[!0-9]*) echo "run.sh: TRIALS must be a positive odd number, not '$TRIALS'" >&2; exit 2 ;; esac
[ $((TRIALS % 2)) = 1 ] || { echo "run.sh: TRIALS must be a positive odd number (a majority decides), not '$TRIALS'" >&2; exit 2; }
FEED_RECOVERY="${FEED_RECOVERY:-1}"
# The archive section (archive_section): ARCHIVE_RATES ("100000": the rate of issue 6's latency targets; "" for none),
# ARCHIVE_PAIRS (1: pairs of runs without and with the archive at each rate, in the order off, on, on, off, ... so
# that a drift of the machine over the section falls on both sides), ARCHIVE_S (5: seconds of messages measured per
# run, after WARMUP_S of warm-up: at 100k a run is 1.3M messages), ARCHIVE_CONTROL_PORT (26420: the archive's control
# channel, aeron:udp?endpoint=localhost:PORT), ARCHIVE_OPTS (extra options for the archive), ARCHIVE_CPUS (a taskset
# list for the archive, in a CPU plan).
ARCHIVE_RATES="${ARCHIVE_RATES-100000}"
ARCHIVE_PAIRS="${ARCHIVE_PAIRS:-1}"
case "$ARCHIVE_PAIRS" in ''|*[!0-9]*|0) echo "run.sh: ARCHIVE_PAIRS must be a positive number, not '$ARCHIVE_PAIRS'" >&2; exit 2 ;; esac
ARCHIVE_S="${ARCHIVE_S:-5}"
ARCHIVE_CONTROL_PORT="${ARCHIVE_CONTROL_PORT:-26420}"
ARCHIVE_OPTS="${ARCHIVE_OPTS:-}"; ARCHIVE_CPUS="${ARCHIVE_CPUS:-}"
SIM_SOURCE="${SIM_SOURCE:-file}"
# RECORD_OUT: where the throughput and publisher runs' `record` subscribers write the messages; empty (the default):
# nowhere (they receive, check, dispatch and count every message). Not /dev/null: copying each message into a file
# buffer is a large part of a subscriber's work in a publisher run with 8 subscribers (async-profiler), work raw
# Aeron's subscriber does not do, on the cores being measured.
RECORD_OUT="${RECORD_OUT-}"
record_out=""; [ -n "$RECORD_OUT" ] && record_out="--out $RECORD_OUT"
case "$SIM_SOURCE" in file|generate) ;; *) echo "run.sh: SIM_SOURCE must be file or generate, not '$SIM_SOURCE'" >&2; exit 2 ;; esac
# NATS is compared where the targets are (100k); make bench-full adds 10k and 1M, so that make bench stays under 10
# minutes on a slow day (as do DURATION_S and WARMUP_S: 10 s of latency samples is still a million at 100k).
NATS_RATES="${NATS_RATES-100000}"
PARTITIONS=4
SYMBOLS=100
MESSAGE_LENGTH=48

# The feed handler asks for a 32 MiB socket receive buffer, which the kernel caps at net.core.rmem_max: raised to
# RMEM_MAX (33554432; empty: leave it) for the run where it is lower and this user may (root), put back at the end.
RMEM_MAX="${RMEM_MAX-33554432}"
rmem_saved=""
raise_rmem_max() {
  local now; now=$(cat /proc/sys/net/core/rmem_max 2>/dev/null) || return 0
  { [ -n "$RMEM_MAX" ] && [ "$now" -lt "$RMEM_MAX" ]; } || return 0
  if sysctl -q -w net.core.rmem_max="$RMEM_MAX" >/dev/null 2>&1; then
    rmem_saved=$now
    echo "bench: net.core.rmem_max raised from $now to $RMEM_MAX for the run (put back at the end)" >&2
  else
    echo "bench: net.core.rmem_max is $now, below the feed handler's 32 MiB, and cannot be raised here" >&2
  fi
}
restore_rmem_max() {
  [ -n "$rmem_saved" ] && sysctl -q -w net.core.rmem_max="$rmem_saved" >/dev/null 2>&1
  rmem_saved=""
}

results="${RESULTS_DIR:-bench/e2e/results/$(date -u +%Y%m%dT%H%M%SZ)}"
mkdir -p "$results"/{latency,fanout,publisher,throughput,logs}
commands="$results/commands.txt"
[ "${KEEP_COMMANDS:-0}" = 1 ] || : >"$commands"  # KEEP_COMMANDS=1: several runs into one RESULTS_DIR
group=239.1.1.1; port=26400; retransmit_port=26401
channel='aeron:udp?endpoint=224.0.1.1:40456|interface=127.0.0.1|mtu=8192'
raw_channel='aeron:udp?endpoint=224.0.1.5:40470|interface=127.0.0.1|mtu=8192'
pub_channel='aeron:udp?endpoint=224.0.1.9:40480|interface=127.0.0.1|mtu=8192'
mdf=bin/mdfanout
jar=cli/target/mdfanout.jar; [ -f lib/mdfanout.jar ] && jar=lib/mdfanout.jar  # the bench bundle's installed layout
pids=()
ring_dir=""

source bench/e2e/lib.sh

cleanup() {
  stop_pids
  [ -n "$ring_dir" ] && rm -rf "$ring_dir"
  ring_dir=""
  rm -rf /dev/shm/mdfanout-bench-$$-*-driver  # a media driver killed before it could delete its directory
}
trap 'cleanup; stop_archive; [ -n "$step_session_dir" ] && rm -rf "$step_session_dir"; restore_rmem_max; exit 130' INT TERM

log() { echo "bench: $*" >&2; }

# launch_driver LOGFILE AERON_DIR CPUS OPTS: a standalone media driver (on CPUS, a taskset list, when given) at the
# shared driver's nice value, waited for until its cnc.dat is there; 1 when it did not start in 30 s.
launch_driver() {
  launch "$1" $driver_nice $(pin "$3") $mdf media-driver --aeron-dir "$2" $(default_cpus "$4") $idle_opt $4
  wait_for_files 30 "$2/cnc.dat"
}

# The chain's subscribers share one standalone media driver when there are several of them (the fan-out runs),
# as subscriber processes on one host do, and each embeds its own when alone (SUB_DRIVER=auto); SUB_DRIVER=shared
# or embedded forces either. Sets $sub_drv to the subscribers' --aeron-dir option (empty when embedded).
subscriber_driver() {  # subscriber_driver LOG_DIR SUBSCRIBERS
  sub_drv=""
  case "$SUB_DRIVER" in
    shared) ;;
    embedded) return 0 ;;
    *) [ "$2" -gt 1 ] || return 0 ;;
  esac
  local dir="/dev/shm/mdfanout-bench-$$-subscriber-driver"
  launch_driver "$1/media-driver.log" "$dir" "$SUB_DRIVER_CPUS" "$DRIVER_OPTS" ||
    log "the subscribers' media driver did not start (see $1)"
  sub_drv="--aeron-dir $dir"
}

# A throughput step's warm-up (search sets $step_warmup, in messages, around each step): the sender's options.
step_warmup=0 step_warmup_rate=0
step_warmup_opts() {
  [ "$step_warmup" -gt 0 ] && echo "--warmup-messages $step_warmup --warmup-rate $step_warmup_rate"
  return 0
}

# The rate a sender kept: over the messages after its warm-up where it had one.
sender_rate() {  # sender_rate LOG
  local measured; measured=$(field measuredRate "$1")
  [ -n "$measured" ] && echo "$measured" || field rate "$1"
}

# The session a throughput step's simulator sends, written before the step (SIM_SOURCE=file): the same messages it
# would generate (same seed and options; a test shows the packets are identical), so that generating them (~100 ns
# a message, a third of a core at 3M msg/s) does not take CPU from the processes measured. One file at a time, in
# $step_session_dir, kept for the next trial of the same rate (the same message count: the very same session) and
# replaced when the count changes; false (and the step generates) when it cannot be written.
step_session_dir=""
# In memory where there is /dev/shm: a file on disk would be written back during the step, on the CPUs measured.
session_parent=/dev/shm; [ -d "$session_parent" ] && [ -w "$session_parent" ] || session_parent="${TMPDIR:-/tmp}"
step_session_file() {  # step_session_file LOG_DIR MESSAGES
  [ -n "$step_session_dir" ] || step_session_dir=$(mktemp -d "$session_parent/mdfanout-bench-session.XXXXXX") || return 1
  if [ -s "$step_session_dir/session.itch" ] && [ "$(cat "$step_session_dir/messages" 2>/dev/null)" = "$2" ]; then
    echo "# the same session as the trial before: $2 messages in $step_session_dir/session.itch" >>"$1/commands.txt"
    return 0
  fi
  rm -f "$step_session_dir/session.itch" "$step_session_dir/messages"
  echo "$mdf simulator --no-send --symbols $SYMBOLS --messages $2 --itch-file $step_session_dir/session.itch" | tee -a "$1/commands.txt" >>"$commands"
  $mdf simulator --no-send --symbols $SYMBOLS --messages "$2" --itch-file "$step_session_dir/session.itch" \
    >"$1/session.log" 2>&1 || { log "session file not written (see $1/session.log): the step generates"; return 1; }
  echo "$2" >"$step_session_dir/messages"
}

# add_cpu RUN_PREFIX SENDER END_GAP_S SENDER_LOG: adds "cpu" to RUN_PREFIX.run.json: each process's CPU over the
# sender's measured messages (bench/e2e/cpu_sample.py), from the samples taken during the trial, then drops them.
add_cpu() {
  local measured_s measured_n
  measured_s=$(grep -o 'measuredElapsed=[0-9.]*' "$4" | tail -1 | cut -d= -f2)
  measured_n=$(field measuredMessages "$4")
  if [ -n "$measured_s" ] && [ -n "$measured_n" ]; then
    python3 - "$1.run.json" "$(python3 bench/e2e/cpu_sample.py window "$1.cpu-samples.json" "$2" "$3" "$measured_s" "$measured_n")" <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))
r["cpu"] = json.loads(sys.argv[2] or "{}")
json.dump(r, open(sys.argv[1], "w"))
EOF
  fi
  rm -f "$1.cpu-samples.json"
}

# The seconds a chain step's simulator serves re-requests after its last message (--linger-ms in $sim_recovery).
lingered_s() {
  local ms; ms=$(grep -o -- '--linger-ms [0-9]*' <<<"$sim_recovery" | awk '{print $2}')
  python3 -c "print(${ms:-0} / 1000)"
}

is_outside() {  # is_outside DIR: true for the outside view's directories (latency-outside, latency-outside-repeats)
  case "$1" in latency-outside*) return 0 ;; esac
  return 1
}

# chain RUN_NAME RATE MESSAGES SUBSCRIBERS MODE(latency|record) -> writes $results/<dir>/<RUN_NAME>.run.json
chain() {
  local name="$1" rate="$2" messages="$3" subs="$4" mode="$5" dir="$6" i
  local run="$results/$dir"; local logs="$results/logs/$name"
  is_outside "$dir" && logs="$results/logs/outside-$name"
  fresh_logs "$logs"
  ring_dir="/dev/shm/mdfanout-bench-$$-$name"
  local warmup=$((rate * WARMUP_S)); [ "$warmup" -gt $((messages / 2)) ] && warmup=$((messages / 2))
  local timeout_s=$((messages / rate + 60))
  # A throughput step's subscriber waits 25 s past the step's own seconds: JVMs start and the sender pre-encodes in
  # a few; a step far over the chain's limit (the top) otherwise idled the whole minute stale before it was lossy.
  [ "$dir" = throughput ] && timeout_s=$((messages / rate + 25))
  # A step is lossy at its first message lost for good (--stop-at-loss): its verdict is known then, and a step over
  # the chain's limit no longer waits out that timeout for an End of Messages that was lost (~20 s a lossy step).
  local stop_at_loss=""; [ "$dir" = throughput ] && stop_at_loss="--stop-at-loss"

  local stamp=""; [ "$stamp_mode" = receive ] && stamp="--stamp-receive-time"
  local lag=""; is_outside "$dir" && lag="--max-lag-ms 0"
  # Every chain run is set up as in production (FEED_RECOVERY=0: no re-requests; a dropped datagram is lost, and
  # fails a throughput step).
  local fh_recovery sim_recovery
  feed_recovery "$retransmit_port"
  subscriber_driver "$logs" "$subs"
  launch "$logs/feed-handler.log" $(pin "$FH_CPUS") $mdf feed-handler $stamp --source 127.0.0.1 $FH_OPTS $fh_recovery --group $group --port $port \
    --interface 127.0.0.1 --ring-dir "$ring_dir" --partitions $PARTITIONS --stats-interval-s 0
  local fh=$last_pid
  launch "$logs/fanout.log" $(pin "$FO_CPUS") $mdf fanout $FO_OPTS --ring-dir "$ring_dir" --partitions $PARTITIONS \
    --channel "$channel" --stats-interval-s 1
  local fo=$last_pid
  local sub_pids=() ready=()
  for i in $(seq 1 "$subs"); do
    if [ "$mode" = latency ]; then
      launch "$logs/sub$i.log" $(pin "$(nth_group "$SUB_CPUS" "$i")") $mdf latency $sub_drv $SUB_OPTS --channel "$channel" --partitions $PARTITIONS \
        --until-end-of-messages \
        --warmup-messages $warmup --timeout-s $timeout_s --ready-file "$logs/ready$i" \
        --json-out "$run/$name-sub$i.json" --hgrm-out "$run/$name-sub$i.hgrm"
    else
      launch "$logs/sub$i.log" $(pin "$(nth_group "$SUB_CPUS" "$i")") $mdf record $sub_drv $SUB_OPTS --channel "$channel" --partitions $PARTITIONS \
        --until-end-of-messages \
        --no-recovery $stop_at_loss $record_out --timeout-s $timeout_s --ready-file "$logs/ready$i"
    fi
    sub_pids+=("$last_pid"); ready+=("$logs/ready$i")
  done
  if ! wait_for_files 60 "${ready[@]}"; then
    log "$name: subscribers did not connect within 60 s (see $logs)"
  fi
  local sim_session="--symbols $SYMBOLS --messages $messages"
  if [ "$dir" = throughput ] && [ "$SIM_SOURCE" = file ]; then
    step_session_file "$logs" "$messages" && sim_session="--from-itch-file $step_session_dir/session.itch"
  fi
  # A throughput step's sender packs the session before its first packet (SIM_PRE_ENCODE=1): it then sends whole
  # packets and nothing per message, so that it outruns the chain (see sender_ceiling); its subscriber measures no
  # latency, so the messages keep the session's timestamps.
  local sim_stamp="--latency-timestamps"
  [ "$dir" = throughput ] && [ "$SIM_PRE_ENCODE" = 1 ] && sim_stamp="--pre-encode"
  launch "$logs/simulator.log" $(pin "$SIM_CPUS") $mdf simulator --group $group --port $port --interface 127.0.0.1 \
    $sim_session --rate "$rate" $sim_stamp $lag --stats-interval-s 0 $sim_recovery \
    $idle_opt ${SIM_OPTS:-} $(step_warmup_opts)
  local sim=$last_pid sampler=""
  if [ "$dir" = throughput ]; then
    python3 bench/e2e/cpu_sample.py sample "$run/$name.cpu-samples.json" simulator=$sim feed-handler=$fh fanout=$fo \
      subscriber=${sub_pids[0]} & sampler=$!
  fi
  local sim_exit sub_exits=()
  if [ "$dir" = throughput ]; then
    # A lossy step's verdict is its subscriber's exit: a simulator still sending or lingering to serve re-requests
    # (tens of thousands of them at the top) decides nothing more; stopped, it prints its done line and exits 0. A
    # clean step's simulator lingers its whole second: its CPU window is counted back from its exit by that second.
    for pid in "${sub_pids[@]}"; do wait "$pid"; sub_exits+=($?); done
    local e lossy=0; for e in "${sub_exits[@]}"; do [ "$e" = 0 ] || lossy=1; done
    [ "$lossy" = 1 ] && kill -TERM "$sim" 2>/dev/null
    wait "$sim"; sim_exit=$?
  else
    wait "$sim"; sim_exit=$?
    for pid in "${sub_pids[@]}"; do wait "$pid"; sub_exits+=($?); done
  fi
  kill -TERM "$fh" "$fo" 2>/dev/null
  wait "$fh" "$fo" 2>/dev/null
  [ -n "$sampler" ] && wait "$sampler"
  cleanup

  local sim_rate; sim_rate=$(sender_rate "$logs/simulator.log")
  local sim_bytes; sim_bytes=$(grep -o 'done: messages=[0-9]* packets=[0-9]* heartbeats=[0-9]* bytes=[0-9]*' "$logs/simulator.log" | tail -1 | sed 's/.*bytes=//')
  local fanout_peak; fanout_peak=$(grep -o 'published=[0-9]* ([0-9]*/s)' "$logs/fanout.log" | \
    sed 's/.*(\([0-9]*\)\/s)/\1/' | sort -n | tail -1)
  local published; published=$(grep -o 'published=[0-9]*' "$logs/fanout.log" | tail -1 | cut -d= -f2)
  local declared; declared=$(field gapsDeclared "$logs/feed-handler.log")
  local filled; filled=$(field gapsFilled "$logs/feed-handler.log")
  local fh_gaps; fh_gaps=$(grep 'feed-handler: final' "$logs/feed-handler.log" | grep -o ' gaps=[0-9]*' | tail -1 | cut -d= -f2)
  local gaps_total=0 sub_gaps
  for i in $(seq 1 "$subs"); do
    sub_gaps=$(grep -o ' gaps=[0-9]*' "$logs/sub$i.log" | tail -1 | cut -d= -f2)
    gaps_total=$((gaps_total + ${sub_gaps:-1}))
  done
  printf '{"name":"%s","system":"%s","mode":"%s","rate":%s,"messages":%s,"subscribers":%s,"simulator_exit":%s,"subscriber_exits":[%s],"simulator_rate":%s,"simulator_bytes":%s,"fanout_peak_rate":%s,"fanout_published":%s,"feed_gaps":%s,"feed_gaps_filled":%s,"feed_gaps_declared":%s,"recovery":%s,"subscriber_gaps":%s}\n' \
    "$name" "${run_system:-chain}" "$mode" "$rate" "$messages" "$subs" "$sim_exit" "$(IFS=,; echo "${sub_exits[*]}")" "$(json_num "$sim_rate")" "$(json_num "$sim_bytes")" \
    "$(json_num "$fanout_peak")" "$(json_num "$published")" "$(json_num "$fh_gaps")" "$(json_num "$filled")" "$(json_num "$declared")" \
    "$([ -n "$fh_recovery" ] && echo true || echo false)" "$gaps_total" \
    >"$run/$name.run.json"
  # Each process's CPU over the simulator's measured seconds, which ended when it began to linger for re-requests.
  [ -n "$sampler" ] && add_cpu "$run/$name" simulator "$(lingered_s)" "$logs/simulator.log"
  log "$name: rate=$rate messages=$messages subs=$subs simulator=${sim_rate:-?}/s exits=${sub_exits[*]} declared=${declared:-?} filled=${filled:-?} $(grep -h '^latency: latency ' "$logs"/sub*.log 2>/dev/null | grep -o 'p99=[0-9.]*us' | tr '\n' ' ')"
}

# raw RUN_NAME RATE MESSAGES DIR
raw() {
  local name="$1" rate="$2" messages="$3" dir="$4"
  local run="$results/$dir"; local logs="$results/logs/$name"
  is_outside "$dir" && logs="$results/logs/outside-$name"
  fresh_logs "$logs"
  local warmup=$((rate * WARMUP_S)); [ "$warmup" -gt $((messages / 2)) ] && warmup=$((messages / 2))
  local timeout_s=$((messages / rate + 60))
  local pub_drv="" sub_drv=""
  if [ "$RAW_DRIVER" = standalone ]; then
    # A media driver each, as a publishing and a subscribing host have, with the chain's subscriber driver settings.
    local drv_dir="/dev/shm/mdfanout-bench-$$-raw"
    launch_driver "$logs/sub-driver.log" "$drv_dir-sub-driver" "$RAW_SUB_DRIVER_CPUS" "$DRIVER_OPTS" ||
      log "$name: the subscriber's media driver did not start (see $logs)"
    launch_driver "$logs/pub-driver.log" "$drv_dir-pub-driver" "$RAW_PUB_DRIVER_CPUS" "$DRIVER_OPTS" ||
      log "$name: the publisher's media driver did not start (see $logs)"
    sub_drv="--aeron-dir $drv_dir-sub-driver" pub_drv="--aeron-dir $drv_dir-pub-driver"
  fi
  # raw_batch=1 (search raw-batched): the publisher packs what is due into one offer of up to an MTU, as the fanout
  # packs what its ring holds; the subscriber splits them again.
  local batch_pub="" batch_sub="" system=raw-aeron
  [ "${raw_batch:-0}" = 1 ] && batch_pub="--batch" batch_sub="--message-length $MESSAGE_LENGTH" system=raw-aeron-batched
  local relay=""; [ "$dir" != throughput ] && [ "$RAW_FROM" = relay ] && relay=pending batch_sub="--message-length $MESSAGE_LENGTH"
  launch "$logs/sub.log" $(pin "$RAW_SUB_CPUS") $mdf raw-aeron-sub $sub_drv $RAW_OPTS $batch_sub --channel "$raw_channel" --messages "$messages" \
    --warmup-messages $warmup --timeout-s $timeout_s --ready-file "$logs/ready" \
    --json-out "$run/$name-sub1.json" --hgrm-out "$run/$name-sub1.hgrm"
  local sub=$last_pid
  local pub sampler=""
  if [ -n "$relay" ]; then
    # The chain's hops (RAW_FROM=relay, issue 38): the simulator's datagrams over UDP multicast into raw-aeron-relay,
    # which offers each datagram's messages on plain Aeron as it receives them, nothing between. Stamped at the
    # datagram's receive as the feed handler's --stamp-receive-time, or by the simulator's pacer in the outside view:
    # both systems' clocks start at the same point, with the same hop before them.
    local relay_stamp=""; [ "$stamp_mode" = receive ] && relay_stamp="--stamp-receive-time"
    local lag=""; is_outside "$dir" && lag="--max-lag-ms 0"
    rm -f "$logs/relay-ready"
    launch "$logs/pub.log" $(pin "$RAW_PUB_CPUS") $mdf raw-aeron-relay $pub_drv $relay_stamp --batch $RAW_OPTS \
      --channel "$raw_channel" --group $group --port $port --interface 127.0.0.1 --message-length $MESSAGE_LENGTH \
      --connect-timeout-s 60 --timeout-s $timeout_s --ready-file "$logs/relay-ready"
    relay=$last_pid
    wait_for_files 60 "$logs/relay-ready" || log "$name: raw-aeron-relay not ready within 60 s (see $logs)"
    launch "$logs/simulator.log" $(pin "$SIM_CPUS") $mdf simulator --group $group --port $port --interface 127.0.0.1 \
      --symbols $SYMBOLS --messages "$messages" --rate "$rate" --latency-timestamps $lag --stats-interval-s 0 \
      $idle_opt ${SIM_OPTS:-} $(step_warmup_opts)
    pub=$last_pid
  else
    local stamp=""; [ "$stamp_mode" = receive ] && stamp="--stamp-send-time"
    is_outside "$dir" && stamp="--max-lag-ms 0"
    launch "$logs/pub.log" $(pin "$RAW_PUB_CPUS") $mdf raw-aeron-pub $pub_drv $stamp $batch_pub $RAW_OPTS --channel "$raw_channel" --rate "$rate" --messages "$messages" \
      --message-length $MESSAGE_LENGTH --connect-timeout-s 60 $(step_warmup_opts)
    pub=$last_pid
  fi
  if [ "$dir" = throughput ]; then
    python3 bench/e2e/cpu_sample.py sample "$run/$name.cpu-samples.json" publisher=$pub subscriber=$sub & sampler=$!
  fi
  wait "$pub"; local pub_exit=$?
  local relay_exit=""; [ -n "$relay" ] && { wait "$relay"; relay_exit=$?; }
  wait "$sub"; local sub_exit=$?
  [ -n "$sampler" ] && wait "$sampler"
  cleanup
  local pub_rate; pub_rate=$(sender_rate "$logs/pub.log")
  [ -n "$relay" ] && pub_rate=$(sender_rate "$logs/simulator.log")
  local missing; missing=$(field missing "$logs/sub.log")
  printf '{"name":"%s","system":"%s","from":"%s","rate":%s,"messages":%s,"subscribers":1,"publisher_exit":%s,"relay_exit":%s,"subscriber_exits":[%s],"publisher_rate":%s,"missing":%s}\n' \
    "$name" "$system" "$([ -n "$relay" ] && echo relay || echo pub)" "$rate" "$messages" "$pub_exit" "$(json_num "$relay_exit")" "$sub_exit" \
    "$(json_num "$pub_rate")" "$(json_num "$missing")" >"$run/$name.run.json"
  [ -n "$sampler" ] && add_cpu "$run/$name" publisher 0 "$logs/pub.log"
  log "$name: rate=$rate messages=$messages publisher=${pub_rate:-?}/s exit=$sub_exit missing=${missing:-?} $(grep -h -o 'p99=[0-9.]*us' "$logs/sub.log" | tr '\n' ' ')"
}

# The session file pub_throughput replays: written once by the simulator (no sending) and cached, shared with
# bench/peers/itchy-bench.sh (same name for the same message count and seed).
session_file() {
  local file="$PEERS_CACHE/session-$PUB_MESSAGES-seed1.itch"
  if [ ! -s "$file" ]; then
    mkdir -p "$PEERS_CACHE"
    log "writing the $PUB_MESSAGES-message ITCH session $file (once)"
    $mdf simulator --no-send --rate 0 --messages "$PUB_MESSAGES" --seed 1 --symbols $SYMBOLS \
      --itch-file "$file.partial" --stats-interval-s 0 >"$results/logs/session.log" 2>&1 && mv "$file.partial" "$file"
  fi
  echo "$file"
}

# pub_throughput SUBSCRIBERS: the fanout's publish rate with N subscriber processes.
#   replay (--pace max) -> rings -> fanout -> N x `record --no-recovery --until-end-of-messages`
# Replay waits (--wait-for-file) until every subscriber has a connected image, then writes the whole session as
# fast as the rings accept it: the fanout is offered more than it can publish (the replay's ringFullWaits count
# the times a ring was full, i.e. the fanout was the bottleneck). On this 2-core machine the publishing side (the
# fanout, its publisher thread and embedded media driver, and the replay that feeds it) is pinned with taskset to
# CPU 0 and the subscribing side (the subscribers and their shared media driver) to CPU 1, as a publishing host and
# a subscribing host would be: N subscribers compete with each other, not with the publisher or its source. On more
# cores the same split applies (first CPU: the publishing side; the rest: the subscribers). With the replay on the
# subscribers' CPU instead (PUB_REPLAY_CPU=subscribers), 8 subscribers starved the
# replay: its rings were rarely full, so the run measured the replay's share of that CPU, not the fanout.
# The JSON keeps, for the measured seconds, how many of the replay's one-second stats lines showed new ring-full
# waits: the seconds in which the fanout, not its source, set the rate.
# Snapshots are off (no late joiners here). Rate: the median of the fanout's one-second `published` rates once
# PUB_WARMUP_MESSAGES had been published (every JVM of the run compiles its hot paths first: with 8 subscriber
# JVMs compiling on one CPU that takes seconds, as the latency runs' WARMUP_S does), leaving out the last second
# (partial); the whole run's median is kept too. The run counts only if every subscriber exits 0 with gaps=0 and
# missing=0 and received every ring record.
pub_throughput() {  # pub_throughput SUBSCRIBERS [ROUND] [own]: ROUND 2, 3... are the repeated pairs (pub-N-rROUND);
  # own: each subscriber with a media driver of its own (pub-own-N), on its CPUs
  local n="$1" drivers="${3:-shared}" name="pub-$1${2:+-r$2}"
  [ "$drivers" = own ] && name="pub-own-$1${2:+-r$2}"
  local logs="$results/logs/$name"; fresh_logs "$logs"
  local file; file=$(session_file)
  ring_dir="/dev/shm/mdfanout-bench-$$-$name"
  local cpus; cpus=$(taskset -pc $$ 2>/dev/null | sed 's/.*: //')
  # CPU lists (empty: anywhere) of the publishing side, the replay, the subscribers' driver and the subscribers
  local fanout_cpus="" replay_cpus="" driver_cpus="" sub_groups=""
  if [ -n "$PUB_FANOUT_CPUS" ]; then
    # A CPU plan (run-pinned.sh): the replay, the fanout, the subscribers' driver and each subscriber on CPUs of their
    # own, PUB_SUB_CPUS's groups dealt round robin to the subscribers.
    fanout_cpus="$PUB_FANOUT_CPUS" replay_cpus="$PUB_REPLAY_CPUS" driver_cpus="$PUB_DRIVER_CPUS" sub_groups="$PUB_SUB_CPUS"
  elif command -v taskset >/dev/null && [ "$(nproc)" -ge 2 ]; then
    local cpus; cpus=$(taskset -pc $$ 2>/dev/null | sed 's/.*: //')
    fanout_cpus=$(python3 -c "import sys; print(sys.argv[1].split(',')[0].split('-')[0])" "$cpus")
    driver_cpus=$(python3 -c "
import sys
cpus = []
for part in sys.argv[1].split(','):
    a, _, b = part.partition('-')
    cpus += range(int(a), int(b or a) + 1)
print(','.join(map(str, cpus[1:])))" "$cpus")
    sub_groups="$driver_cpus" replay_cpus="$fanout_cpus"
    [ "$PUB_REPLAY_CPU" = subscribers ] && replay_cpus="$driver_cpus"
  fi
  local fanout_cpu replay_cpu others_cpu  # as the JSON and the report have them: the command prefixes
  fanout_cpu=$(pin "$fanout_cpus"); replay_cpu=$(pin "$replay_cpus"); others_cpu=$(pin "$sub_groups")
  launch "$logs/replay.log" $replay_cpu $mdf replay --file "$file" --ring-dir "$ring_dir" --partitions $PARTITIONS \
    --wait-for-file "$logs/go" --wait-for-consumer --stats-interval-s 1 --progress off
  local rp=$last_pid
  wait_for_files 30 "$ring_dir/partition-0.ring" || log "$name: replay created no rings (see $logs)"
  launch "$logs/fanout.log" $fanout_cpu $mdf fanout --ring-dir "$ring_dir" --partitions $PARTITIONS \
    --channel "$pub_channel" $(default_cpus "$PUB_FO_OPTS") --snapshot-interval-ms 0 --stats-interval-s 1 $PUB_FO_OPTS
  local fo=$last_pid
  # The subscribers share one media driver, as processes on one host do: the multicast stream is
  # received once and each subscriber reads it from shared memory (with a driver each, N receivers
  # would compete for the one CPU left and the slowest would lose data under max flow control).
  # With own drivers (issue 38), each subscriber has a media driver of its own, as subscribers on N hosts have: the
  # fanout's sender then serves N receivers, not one. PUB_OWN_DRIVER=standalone (the default): a `media-driver`
  # process each, on the subscriber's CPUs (PUB_OWN_DRIVER_OPTS; not the shared driver's options, whose --cpus names
  # the shared driver's CPU). PUB_OWN_DRIVER=embedded (the CPU plans): embedded in the subscriber and run by its poll
  # loop (--driver-threading invoker), one busy thread per subscriber CPU, where a standalone driver would have two
  # busy-spinning threads share it. Here on 2 shared cores the embedded drivers fell behind the fanout and lost data.
  local sub_driver="/dev/shm/mdfanout-bench-$$-$name-driver" drvs=()
  if [ "$drivers" = own ]; then
    if [ "$PUB_OWN_DRIVER" = standalone ]; then
      for i in $(seq 1 "$n"); do
        launch_driver "$logs/driver$i.log" "$sub_driver-$i" "$(nth_group "$sub_groups" "$i")" "$PUB_OWN_DRIVER_OPTS" ||
          log "$name: subscriber $i's media driver did not start (see $logs)"
        drvs+=("$last_pid")
      done
    fi
  else
    launch_driver "$logs/driver.log" "$sub_driver" "$driver_cpus" "$PUB_DRIVER_OPTS" ||
      log "$name: the subscribers' media driver did not start (see $logs)"
    drvs+=("$last_pid")
  fi
  local sub_pids=() ready=()
  for i in $(seq 1 "$n"); do
    local driver_opts="--aeron-dir $sub_driver"
    [ "$drivers" = own ] && driver_opts="--aeron-dir $sub_driver-$i"
    [ "$drivers" = own ] && [ "$PUB_OWN_DRIVER" = embedded ] && driver_opts="--driver-threading invoker"
    launch "$logs/sub$i.log" $(pin "$(nth_group "$sub_groups" "$i")") $mdf record $SUB_OPTS $PUB_SUB_OPTS --channel "$pub_channel" \
      --partitions $PARTITIONS $driver_opts \
      --until-end-of-messages --no-recovery $record_out --timeout-s 300 --ready-file "$logs/ready$i"
    sub_pids+=("$last_pid"); ready+=("$logs/ready$i")
  done
  wait_for_files 90 "${ready[@]}" || log "$name: subscribers did not connect within 90 s (see $logs)"
  touch "$logs/go"
  local sub_exits=()
  for pid in "${sub_pids[@]}"; do wait "$pid"; sub_exits+=($?); done
  wait "$rp"; local replay_exit=$?
  kill -TERM "$fo" "${drvs[@]}" 2>/dev/null; wait "$fo" "${drvs[@]}" 2>/dev/null
  cleanup
  python3 - "$results/publisher/$name.run.json" "$name" "$n" "$replay_exit" "${sub_exits[*]}" "$logs" \
    "$fanout_cpu" "$others_cpu" "$PUB_WARMUP_MESSAGES" "$replay_cpu" "$drivers" "$PUB_OWN_DRIVER" <<'EOF'
import json, re, statistics, sys
out, name, n, replay_exit, exits, logs, fanout_cpu, others_cpu, warmup, replay_cpu, drivers, own_driver = sys.argv[1:]
n = int(n)
warmup = int(warmup)
def text(f):
    try:
        return open(f"{logs}/{f}", errors="replace").read()
    except OSError:
        return ""
stats = [(int(p), int(r)) for p, r in re.findall(r"published=(\d+) \((\d+)/s\)", text("fanout.log"))]
rates = [r for _, r in stats]
first = next((i for i, r in enumerate(rates) if r > 0), len(rates))
last = max((i for i, r in enumerate(rates) if r > 0), default=-1)
full = rates[first + 1:last]                        # whole seconds of publishing
# Whole seconds that started after the warm-up messages had been published (the previous line's total).
steady = [rates[i] for i in range(max(first + 1, 1), last) if stats[i - 1][0] >= warmup]
replay = text("replay.log")
ring_records = re.findall(r"ringRecords=(\d+)", replay)
waits = re.findall(r"ringFullWaits=([\d,]+)", replay)
# The replay's one-second lines (cumulative counts) over the fanout's measured seconds: the lines whose ring
# records fall between what the fanout had published when they began and when they ended. A line with new
# ring-full waits is a second in which the rings were full: the fanout set the rate, not its source.
replay_lines = [(int(r), sum(int(x) for x in w.split(","))) for r, w in
                re.findall(r"ringRecords=(\d+) .*?ringFullWaits=([\d,]+)", replay)]
steady_index = [i for i in range(max(first + 1, 1), last) if stats[i - 1][0] >= warmup]
bound_seconds = measured_seconds = None
if steady_index and replay_lines:
    lo, hi = stats[steady_index[0] - 1][0], stats[steady_index[-1]][0]
    window = [j for j in range(1, len(replay_lines)) if lo <= replay_lines[j][0] <= hi]
    measured_seconds = len(window)
    bound_seconds = sum(1 for j in window if replay_lines[j][1] > replay_lines[j - 1][1])
subs = []
for i in range(1, n + 1):
    t = text(f"sub{i}.log")
    get = lambda k: (lambda m: int(m[-1]) if m else None)(re.findall(rf"\b{k}=(\d+)", t))
    subs.append({"messages": get("messages"), "gaps": get("gaps"), "missing": get("missing")})
r = {"name": name, "subscribers": n, "drivers": drivers, "own_driver": own_driver if drivers == "own" else None, "replay_exit": int(replay_exit), "subscriber_exits": [int(e) for e in exits.split()],
     "ring_records": int(ring_records[-1]) if ring_records else None,
     "ring_full_waits": sum(int(w) for w in waits[-1].split(",")) if waits else None,
     "fanout_rates": rates[first:last + 1], "median_rate": statistics.median(steady) if steady else None,
     "warmup_messages": warmup, "steady_seconds": len(steady),
     "median_rate_whole_run": statistics.median(full) if full else None,
     "peak_rate": max(rates) if rates else None, "full_seconds": len(full), "subscriber_results": subs,
     "fanout_cpu": fanout_cpu, "others_cpu": others_cpu, "replay_cpu": replay_cpu,
     "replay_seconds_measured": measured_seconds, "replay_seconds_ring_full": bound_seconds}
r["complete"] = (r["replay_exit"] == 0 and all(e == 0 for e in r["subscriber_exits"]) and
                 all(s["gaps"] == 0 and s["missing"] == 0 and s["messages"] == r["ring_records"] for s in subs))
json.dump(r, open(out, "w"), indent=1)
print(f"bench: {name}: fanout median {r['median_rate']} msg/s over {len(steady)} s after {warmup} warm-up messages "
      f"(whole run {r['median_rate_whole_run']} over {len(full)} s; peak {r['peak_rate']}), "
      f"ringFullWaits={r['ring_full_waits']} (rings full in {bound_seconds} of the replay's {measured_seconds} "
      f"seconds measured), every subscriber complete: {r['complete']}", file=sys.stderr)
EOF
}

# A throughput step is clean when nothing was lost, re-requested or declared: every process exited 0, no gap
# anywhere, and the feed handler saw no gap at all (a gap it filled by re-request is a datagram the chain dropped:
# at that rate the chain did not keep up, whatever recovery repaired; issue 38). Its rate is what the sender
# achieved (simulator_rate / publisher_rate), which on a saturated machine may fall short of the rate asked: the
# chain then carried everything the sender managed to send, and that is the figure.
clean() {  # clean RUN_JSON
  python3 - "$1" <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))
ok = all(e == 0 for e in r["subscriber_exits"])
if r["system"].startswith("chain"):
    # Re-requests repair what the chain dropped; a step that needed them was over the chain's rate.
    ok = ok and r["simulator_exit"] == 0 and r["subscriber_gaps"] == 0 and (r["feed_gaps_declared"] or 0) == 0 \
        and (r["feed_gaps"] or 0) == 0 and (r["feed_gaps_filled"] or 0) == 0 and (r["simulator_rate"] or 0) > 0
else:
    ok = ok and r["publisher_exit"] == 0 and r["missing"] == 0 and (r["publisher_rate"] or 0) > 0
sys.exit(0 if ok else 1)
EOF
}

achieved() {  # achieved RUN_JSON: the rate the sender kept
  python3 -c 'import json, sys; r = json.load(open(sys.argv[1])); print(int(r.get("simulator_rate") or r.get("publisher_rate") or 0))' "$1"
}

# The search: the high end, and when it is lossy bisection of the rate asked between the highest clean rate (the low
# end until a rate passes) and the lowest lossy rate, as RFC 2544's throughput test does (arithmetic midpoints: with the few steps a run can afford,
# geometric ones from the low end stay far below the limit). Until a rate passes, each step below a lossy one asks 80%
# of it rather than the midpoint from the low end: the limit is near the lowest lossy rate, and the midpoint from
# the low end spends a step far below it. A lossy rate's upper bound is the rate its sender
# achieved when that was less than asked: asking more than the sender can push only asks that much. A clean top needs
# no other step. When the top and the 80% step below it are both lossy, the third step asks the low end itself: with
# nothing clean yet, 80% steps from a lossy top creep down and a short search ended at 0 with every step lossy (the
# 2-core machine's chain lost something at every rate from 8M down to 2.5M once a re-request counted as loss); a
# clean low end bounds the bisection from below. When the low end is lossy too the figure is 0. The low end is 1M
# msg/s, a rate every latency run carries with no loss.
#
# Each rate of the chain is tried up to TRIALS (3) times and passes when most of its trials are clean (2 of 3: the
# third only runs when the first two disagree), as RFC 9971 (MLRsearch) repeats trials at a load and classifies it by
# the share of them that lost: on this shared machine one slow second (the simulator short of CPU sends less than
# asked and the feed handler declares a gap) would otherwise send the search far below the limit. A passing rate's figure is the mean of what the sender achieved in its clean trials; a failing rate's upper
# bound the highest it achieved in its lossy ones. One trial decides for raw Aeron (its flow control slows the
# publisher rather than losing data: a trial cannot be lossy, it can only be slower) and a lossy top (the top asks
# more than the simulator can send; the rates below it get their trials).
# The chain's sender alone: the simulator as a throughput step runs it (pinned to SIM_CPUS, SIM_PRE_ENCODE, the
# step's session file and packet size) flat out (--rate 0), CEILING_MESSAGES (20,000,000) of them, into a socket joined
# to the group that reads nothing (the kernel delivers each packet to it, on loopback in the sender's own system call,
# as it would to the feed handler), once pre-encoded and once as it sends per message (for the ratio). Written to
# throughput/sender-ceiling.json; the chain's search asks at most the pre-encoded sender's rate (SEARCH_HI is then
# only a cap), and the report says whether that ceiling was at least twice the chain's highest clean rate, i.e.
# whether what the search found is the chain's limit rather than its sender's.
sender_ceiling() {
  local logs="$results/logs/sender-ceiling" json="" mode rate
  mkdir -p "$logs"
  step_session_file "$logs" "$CEILING_MESSAGES" || { log "sender ceiling: no session file"; return 1; }
  python3 -c '
import socket, sys, time
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM, socket.IPPROTO_UDP)
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind((sys.argv[1], int(sys.argv[2])))
s.setsockopt(socket.IPPROTO_IP, socket.IP_ADD_MEMBERSHIP, socket.inet_aton(sys.argv[1]) + socket.inet_aton("127.0.0.1"))
time.sleep(600)' "$group" "$port" &
  local sink=$!
  for mode in pre-encoded per-message; do
    local opts="--pre-encode"; [ "$mode" = per-message ] && opts="--latency-timestamps"
    launch "$logs/$mode.log" $(pin "$SIM_CPUS") $mdf simulator --group $group --port $port --interface 127.0.0.1 \
      --from-itch-file "$step_session_dir/session.itch" --rate 0 $opts --stats-interval-s 0 $idle_opt ${SIM_OPTS:-}
    wait "$last_pid"
    rate=$(field rate "$logs/$mode.log"); rate=${rate%.*}
    json="$json${json:+,}\"${mode/-/_}\":${rate:-0}"
    log "sender ceiling ($mode): ${rate:-?} msg/s"
  done
  kill "$sink" 2>/dev/null; wait "$sink" 2>/dev/null
  local ceiling; ceiling=$(python3 -c 'import json, sys; print(json.loads(sys.argv[1])["pre_encoded"])' "{$json}")
  if [ "$SIM_PRE_ENCODE" = 1 ] && [ "${ceiling:-0}" -gt 0 ] && [ "$ceiling" -lt "$SEARCH_HI" ]; then
    SEARCH_HI=$(( ceiling / 1000 * 1000 ))
    log "throughput chain: the search asks at most the sender's ceiling, $SEARCH_HI msg/s"
  fi
  echo "{$json,\"messages\":$CEILING_MESSAGES,\"search_hi\":$SEARCH_HI}" >"$results/throughput/sender-ceiling.json"
}

# Levers in the chain (issue 38 item 7), each an A/B against the chain as configured, in the same run: LEVERS, entries
# separated by ";", each NAME=VARIABLE:OPTIONS, e.g. "thread-per-partition=FO_OPTS:--threading dedicated": the
# throughput search again with OPTIONS added to VARIABLE (FH_OPTS, FO_OPTS, SUB_OPTS or JAVA_OPTS) for every process
# it names, or with PARTITIONS set to OPTIONS (e.g. "one-stream=PARTITIONS:1": every instrument on one partition, one
# ring and one stream), into throughput/chain-NAME.max.json; the report puts each against the chain's figure. Empty:
# none.
lever_searches() {
  local entry name var opts saved
  local IFS_saved="$IFS"; IFS=';'
  local entries=(${LEVERS:-}); IFS="$IFS_saved"
  for entry in "${entries[@]}"; do
    [ -n "$entry" ] || continue
    name="${entry%%=*}" var="${entry#*=}"; opts="${var#*:}" var="${var%%:*}"
    case "$var" in FH_OPTS|FO_OPTS|SUB_OPTS|JAVA_OPTS|PARTITIONS) ;; *) log "lever $name: $var is not FH_OPTS, FO_OPTS, SUB_OPTS, JAVA_OPTS or PARTITIONS: skipped"; continue ;; esac
    saved="${!var}"
    if [ "$var" = PARTITIONS ]; then  # a value, not options: every role of the chain takes it
      case "$opts" in ''|*[!0-9]*) log "lever $name: PARTITIONS takes a number, not '$opts': skipped"; continue ;; esac
      PARTITIONS="$opts"
    else
      printf -v "$var" '%s %s' "$saved" "$opts"; [ "$var" = JAVA_OPTS ] && export JAVA_OPTS
    fi
    log "lever $name: the chain's search with $var $([ "$var" = PARTITIONS ] && echo = || echo +=) $opts"
    run_system="chain-$name" search "chain-$name"
    printf -v "$var" '%s' "$saved"; [ "$var" = JAVA_OPTS ] && export JAVA_OPTS
    python3 -c '
import json, os, sys
d, name, var, opts = sys.argv[1:]
path = os.path.join(d, f"chain-{name}.max.json")
lever = json.load(open(path))
lever.update({"lever": name, "variable": var, "options": opts})
json.dump(lever, open(path, "w"))' "$results/throughput" "$name" "$var" "$opts"
  done
}

search() {  # search chain|chain-LEVER|raw|raw-batched
  local system="$1" lo="$SEARCH_LO" hi="$SEARCH_HI" best=0 best_offered=0 failed=0 rate name got lo_tried=0
  local need=$((TRIALS / 2 + 1)) trial clean_n lossy_n clean_sum lossy_max verdict rates_json=""
  [[ "$system" != chain* ]] && hi="$RAW_SEARCH_HI"
  raw_batch=0; [ "$system" = raw-batched ] && raw_batch=1
  for step in $(seq 0 "$SEARCH_STEPS"); do
    if [ "$step" = 0 ]; then
      rate=$hi
    elif [ "$best" = 0 ] && [ "$step" -ge 2 ] && [ "$lo_tried" = 0 ]; then  # two lossy steps: the low end itself
      rate=$lo; lo_tried=1
    elif [ "$best" = 0 ]; then  # nothing passed yet: 80% of the lowest lossy rate (or the midpoint, when higher)
      rate=$(( (lo + hi) / 2 > hi * 4 / 5 ? (lo + hi) / 2 / 1000 * 1000 : hi * 4 / 5 / 1000 * 1000 ))
    else
      rate=$(( (lo + hi) / 2 / 1000 * 1000 ))
    fi
    step_warmup_rate=$(( rate < STEP_WARMUP_RATE ? rate : STEP_WARMUP_RATE ))
    trial=0 clean_n=0 lossy_n=0 clean_sum=0 lossy_max=0
    while [ "$clean_n" -lt "$need" ] && [ "$lossy_n" -lt "$need" ]; do
      trial=$((trial + 1))
      name="$system-step$step-$rate"; [ "$trial" -gt 1 ] && name="$name-t$trial"
      step_warmup=$(( step_warmup_rate * STEP_WARMUP_S ))
      if [[ "$system" == chain* ]]; then
        chain "$name" "$rate" $((step_warmup + rate * STEP_S)) 1 record throughput
      else
        raw "$name" "$rate" $((step_warmup + rate * STEP_S)) throughput
      fi
      step_warmup=0
      got=$(achieved "$results/throughput/$name.run.json")
      if clean "$results/throughput/$name.run.json"; then
        clean_n=$((clean_n + 1)); clean_sum=$((clean_sum + got))
      else
        lossy_n=$((lossy_n + 1)); [ "$got" -gt "$lossy_max" ] && lossy_max=$got
      fi
      { [[ "$system" != chain* ]] || { [ "$step" = 0 ] && [ "$lossy_n" = 1 ]; }; } && break
    done
    if [ "$clean_n" -gt "$lossy_n" ]; then
      verdict=true
      got=$((clean_sum / clean_n))
      [ "$got" -gt "$best" ] && { best=$got; best_offered=$rate; }
      lo=$rate
    else
      verdict=false
      failed=$rate; hi=$rate
      [ "$lossy_max" -gt "$lo" ] && [ "$lossy_max" -lt "$hi" ] && hi=$lossy_max
    fi
    rates_json="$rates_json${rates_json:+,}{\"step\":$step,\"rate\":$rate,\"clean\":$clean_n,\"lossy\":$lossy_n,\"pass\":$verdict,\"achieved\":$([ "$verdict" = true ] && echo $((clean_sum / clean_n)) || echo "$lossy_max")}"
    log "throughput $system: $rate msg/s asked: $clean_n clean, $lossy_n lossy: $([ "$verdict" = true ] && echo pass || echo fail)"
    [ "$verdict" = true ] && [ "$step" = 0 ] && break             # the high end passed: nothing above to look for
    python3 -c "import sys; sys.exit(0 if $hi / $lo > $SEARCH_PRECISION else 1)" || break
  done
  printf '{"system":"%s","max_rate":%s,"max_offered":%s,"lowest_failed":%s,"step_seconds":%s,"trials":%s,"precision":%s,"rates":[%s]}\n' \
    "$system" "$best" "$best_offered" "$failed" "$STEP_S" "$TRIALS" "$SEARCH_PRECISION" "$rates_json" >"$results/throughput/$system.max.json"
  raw_batch=0
  log "throughput $system: highest clean rate $best msg/s (asked $best_offered; lowest lossy rate asked: $failed)"
}

# ---- the archive (issue 29) ------------------------------------------------------------------------------------
# A fresh archive for each run with it, outside $pids (chain's cleanup stops those: the replay comes after the chain),
# from start_archive to stop_archive: its embedded media driver in /dev/shm/mdfanout-bench-<pid>-archive-aeron (not
# ...-driver: cleanup deletes those after each chain run), its recordings under $results/archive-work/<run> (deleted
# once replayed; its log and catalog file are kept), its control channel on localhost:ARCHIVE_CONTROL_PORT.
archive_pid="" archive_work=""
forget_pid() {  # forget_pid PID: out of $pids (cleanup's stop_pids leaves it alone)
  local keep=() p
  for p in "${pids[@]}"; do [ "$p" = "$1" ] || keep+=("$p"); done
  pids=("${keep[@]}")
}
archive_control="aeron:udp?endpoint=localhost:$ARCHIVE_CONTROL_PORT"

start_archive() {  # start_archive NAME LOG_DIR: 1 when it did not log "archive: running" within 60 s
  archive_work="$results/archive-work/$1"
  rm -rf "$archive_work"; mkdir -p "$archive_work"
  launch "$2/archive.log" $(pin "$ARCHIVE_CPUS") $mdf archive --archive-dir "$archive_work" \
    --aeron-dir "/dev/shm/mdfanout-bench-$$-archive-aeron" --channel "$channel" --partitions $PARTITIONS \
    --control-channel "$archive_control" --session "$1" $idle_opt $ARCHIVE_OPTS
  archive_pid=$last_pid; forget_pid "$archive_pid"
  local deadline=$((SECONDS + 60))
  until grep -q 'archive: running' "$2/archive.log" 2>/dev/null; do
    { kill -0 "$archive_pid" 2>/dev/null && [ "$SECONDS" -lt "$deadline" ]; } || return 1
    sleep 0.1
  done
}

stop_archive() {  # stop_archive [LOG_DIR]: SIGTERM, up to 20 s to stop (then SIGKILL), its exit code into
  # LOG_DIR/archive.exit and its catalog file into LOG_DIR; then its recordings and driver directory are deleted
  [ -n "$archive_pid" ] || return 0
  kill -TERM "$archive_pid" 2>/dev/null
  for _ in $(seq 1 200); do kill -0 "$archive_pid" 2>/dev/null || break; sleep 0.1; done
  kill -KILL "$archive_pid" 2>/dev/null
  wait "$archive_pid" 2>/dev/null; local code=$?
  if [ -n "${1:-}" ]; then
    echo "$code" >"$1/archive.exit"
    [ -f "$archive_work/mdfanout-catalog.txt" ] && cp "$archive_work/mdfanout-catalog.txt" "$1/"
  fi
  archive_pid=""
  rm -rf "$archive_work" "/dev/shm/mdfanout-bench-$$-archive-aeron"
  rmdir "$results/archive-work" 2>/dev/null
  archive_work=""
  return 0
}

# replay_archive NAME RUN_DIR LOG_DIR: replays session NAME from the running archive, on an otherwise idle machine,
# with `record --from start --replay-only` (no --out: it receives, checks, dispatches and counts every message, as
# the throughput steps' subscriber does), into RUN_DIR/NAME.replay.json: the messages replayed and the seconds from
# the tool's first message to its end (its summary's receivingS: without the JVM's start, the embedded driver's and
# the replay's set-up), and the tool's whole wall time.
replay_archive() {
  local name="$1" run="$2" logs="$3"
  local t0; t0=$(date +%s.%N)
  launch "$logs/replay.log" $(pin "$(nth_group "$SUB_CPUS" 1)") $mdf record $SUB_OPTS --channel "$channel" \
    --partitions $PARTITIONS --from start --replay-only --archive-control-channel "$archive_control" \
    --replay-session "$name" --until-end-of-messages --no-recovery --timeout-s 120
  local rp=$last_pid; forget_pid "$rp"  # waited for here, not stopped
  wait "$rp"; local code=$?
  local t1; t1=$(date +%s.%N)
  python3 - "$run/$name.replay.json" "$name" "$code" "$t0" "$t1" "$logs/replay.log" "$logs/archive.log" <<'EOF'
import json, re, sys
out, name, code, t0, t1, log, archive_log = sys.argv[1:]
text = open(log).read()
get = lambda k: (lambda m: m[-1] if m else None)(re.findall(rf"\b{k}=([0-9.]+)", text))
num = lambda v, f=int: None if v is None else f(v)
r = {"name": name, "exit": int(code), "messages": num(get("messages")), "replayed": num(get("replayed")),
     "gaps": num(get("gaps")), "missing": num(get("missing")), "receiving_s": num(get("receivingS"), float),
     "wall_s": round(float(t1) - float(t0), 3), "archive_holes": open(archive_log).read().count("HOLE")}
r["rate"] = round(r["replayed"] / r["receiving_s"]) if r["replayed"] and r["receiving_s"] else None
r["wall_rate"] = round(r["replayed"] / r["wall_s"]) if r["replayed"] and r["wall_s"] else None
r["clean"] = r["exit"] == 0 and r["gaps"] == 0 and r["missing"] == 0 and r["archive_holes"] == 0 and bool(r["replayed"])
open(out, "w").write(json.dumps(r) + "\n")
print(f"bench: {name}: replayed {r['replayed']} messages in {r['receiving_s']} s from the first "
      f"({r['rate']} msg/s; {r['wall_s']} s from the tool's start: {r['wall_rate']} msg/s), exit {r['exit']}, "
      f"gaps {r['gaps']}, archive holes {r['archive_holes']}", file=sys.stderr)
EOF
}

# archive_section: at each of ARCHIVE_RATES, ARCHIVE_PAIRS pairs of chain latency runs (as *Latency*'s, with
# ARCHIVE_S seconds measured after WARMUP_S of warm-up), one without the archive (archive-off-RATE-I) and one with it
# recording every partition stream (archive-on-RATE-I), in the order off, on, on, off, off, on, ...; after each run
# with it, the chain stopped, its recording is replayed (replay_archive) before the archive stops. Into
# $results/archive/.
archive_section() {
  local rate i mode name logs messages order
  mkdir -p "$results/archive"
  printf '{"rates":"%s","pairs":%s,"seconds":%s,"warmup_s":%s,"control_channel":"%s"}\n' "$ARCHIVE_RATES" \
    "$ARCHIVE_PAIRS" "$ARCHIVE_S" "$WARMUP_S" "$archive_control" >"$results/archive/settings.json"
  for rate in $ARCHIVE_RATES; do
    messages=$(messages_for "$rate" "$ARCHIVE_S")
    for i in $(seq 1 "$ARCHIVE_PAIRS"); do
      order="off on"; [ $((i % 2)) = 0 ] && order="on off"
      for mode in $order; do
        name="archive-$mode-$rate-$i"; logs="$results/logs/$name"; fresh_logs "$logs"
        if [ "$mode" = on ] && ! start_archive "$name" "$logs"; then
          log "$name: the archive did not start (see $logs/archive.log)"; stop_archive "$logs"; continue
        fi
        chain "$name" "$rate" "$messages" 1 latency archive
        if [ "$mode" = on ]; then
          replay_archive "$name" "$results/archive" "$logs"
          stop_archive "$logs"
        fi
      done
    done
  done
}

# ---- a feed as a pair (issue 37) -------------------------------------------------------------------------------
# PAIR_RATES ("20000": a pair is two chains on this machine, seven processes on its CPUs; "" for none), PAIR_RUNS (1),
# PAIR_S (10: seconds measured after WARMUP_S of warm-up): the simulator's lines A and B feed two chains, each its own
# feed handler, rings and fanout, side B's fanout on pair_channel; two subscribers run at once, one of side A alone
# (`latency --channel`) and one arbitrating the pair (`latency --channel ... --pair-channel ...`), so that both take
# the same messages at the same moments and their ratios are not tilted by the machine's drift. Each one's latency
# (from the simulator's scheduled send time, see pair_run) and CPU over the measured messages.
# Into $results/pair/.
PAIR_RATES="${PAIR_RATES-20000}"
PAIR_RUNS="${PAIR_RUNS:-1}"
case "$PAIR_RUNS" in ''|*[!0-9]*|0) echo "run.sh: PAIR_RUNS must be a positive number, not '$PAIR_RUNS'" >&2; exit 2 ;; esac
PAIR_S="${PAIR_S:-10}"
pair_channel='aeron:udp?endpoint=224.0.1.13:40490|interface=127.0.0.1|mtu=8192'

pair_run() {  # pair_run NAME RATE MESSAGES -> $results/pair/NAME.run.json, NAME-single.json, NAME-pair.json
  local name="$1" rate="$2" messages="$3" run="$results/pair" logs="$results/logs/$1"
  fresh_logs "$logs"
  local warmup=$((rate * WARMUP_S)); [ "$warmup" -gt $((messages / 2)) ] && warmup=$((messages / 2))
  # Latency from the simulator's schedule (as stamp_mode=scheduled): --stamp-receive-time would have each side's feed
  # handler write its own receive time into the messages, and a pair's subscriber refuses a side whose copies differ.
  local timeout_s=$((messages / rate + 60)) fh_recovery sim_recovery side pid
  feed_recovery "$retransmit_port"
  ring_dir="/dev/shm/mdfanout-bench-$$-$name"  # side A's; cleanup deletes it, side B's is deleted below
  local side_b_rings="$ring_dir-b" roles=() role_pids=()
  for side in a b; do
    local rings="$ring_dir" side_channel="$channel"
    [ "$side" = b ] && rings="$side_b_rings" && side_channel="$pair_channel"
    launch "$logs/feed-handler-$side.log" $(pin "$FH_CPUS") $mdf feed-handler --source 127.0.0.1 $FH_OPTS \
      $fh_recovery --group $group --port $port --interface 127.0.0.1 --ring-dir "$rings" --partitions $PARTITIONS \
      --stats-interval-s 0
    roles+=("feed-handler-$side=$last_pid"); role_pids+=("$last_pid")
    launch "$logs/fanout-$side.log" $(pin "$FO_CPUS") $mdf fanout $FO_OPTS --ring-dir "$rings" --partitions $PARTITIONS \
      --channel "$side_channel" --stats-interval-s 1
    roles+=("fanout-$side=$last_pid"); role_pids+=("$last_pid")
  done
  local kind i=0 sub_pids=() ready=() subs=()
  for kind in single pair; do
    i=$((i + 1))
    local pair_opt=""; [ "$kind" = pair ] && pair_opt="--pair-channel $pair_channel"
    launch "$logs/$kind.log" $(pin "$(nth_group "$SUB_CPUS" "$i")") $mdf latency $SUB_OPTS --channel "$channel" $pair_opt \
      --partitions $PARTITIONS --until-end-of-messages --warmup-messages $warmup --timeout-s $timeout_s \
      --ready-file "$logs/ready-$kind" --json-out "$run/$name-$kind.json" --hgrm-out "$run/$name-$kind.hgrm"
    sub_pids+=("$last_pid"); ready+=("$logs/ready-$kind"); subs+=("$kind=$last_pid")
  done
  wait_for_files 60 "${ready[@]}" || log "$name: subscribers did not connect within 60 s (see $logs)"
  launch "$logs/simulator.log" $(pin "$SIM_CPUS") $mdf simulator --group $group --port $port --interface 127.0.0.1 \
    --symbols $SYMBOLS --messages "$messages" --rate "$rate" --latency-timestamps --stats-interval-s 0 $sim_recovery \
    --warmup-messages "$warmup" --warmup-rate "$rate" $idle_opt ${SIM_OPTS:-}
  local sim=$last_pid
  python3 bench/e2e/cpu_sample.py sample "$run/$name.cpu-samples.json" simulator=$sim "${subs[@]}" "${roles[@]}" &
  local sampler=$!
  wait "$sim"; local sim_exit=$?
  local sub_exits=()
  for pid in "${sub_pids[@]}"; do wait "$pid"; sub_exits+=($?); done
  kill -TERM "${role_pids[@]}" 2>/dev/null
  wait "${role_pids[@]}" 2>/dev/null
  wait "$sampler"
  cleanup
  rm -rf "$side_b_rings"
  local sim_rate; sim_rate=$(sender_rate "$logs/simulator.log")
  local gaps_single gaps_pair
  gaps_single=$(grep -o ' gaps=[0-9]*' "$logs/single.log" | tail -1 | cut -d= -f2)
  gaps_pair=$(grep -o ' gaps=[0-9]*' "$logs/pair.log" | tail -1 | cut -d= -f2)
  printf '{"name":"%s","rate":%s,"messages":%s,"simulator_exit":%s,"subscriber_exits":[%s],"simulator_rate":%s,"single_gaps":%s,"pair_gaps":%s}\n' \
    "$name" "$rate" "$messages" "$sim_exit" "$(IFS=,; echo "${sub_exits[*]}")" "$(json_num "$sim_rate")" \
    "$(json_num "$gaps_single")" "$(json_num "$gaps_pair")" >"$run/$name.run.json"
  add_cpu "$run/$name" simulator "$(lingered_s)" "$logs/simulator.log"
  log "$name: rate=$rate messages=$messages simulator=${sim_rate:-?}/s exits=${sub_exits[*]} gaps single=${gaps_single:-?} pair=${gaps_pair:-?}"
}

pair_section() {
  local rate i
  mkdir -p "$results/pair"
  printf '{"rates":"%s","runs":%s,"seconds":%s,"warmup_s":%s,"channel":"%s","pair_channel":"%s"}\n' "$PAIR_RATES" \
    "$PAIR_RUNS" "$PAIR_S" "$WARMUP_S" "$channel" "$pair_channel" >"$results/pair/settings.json"
  for rate in $PAIR_RATES; do
    for i in $(seq 1 "$PAIR_RUNS"); do
      pair_run "pair-$rate-$i" "$rate" "$(messages_for "$rate" "$PAIR_S")"
    done
  done
}

machine() {
  local cpu; cpu=$(lscpu 2>/dev/null | sed -n 's/^Model name: *//p' | head -1)
  local mem; mem=$(awk '/MemTotal/ {printf "%.1f GiB", $2/1048576}' /proc/meminfo)
  local jdk; jdk=$(java -version 2>&1 | head -1 | tr -d '"')
  local vm; vm=$(java -version 2>&1 | tail -1)
  python3 - "$results/machine.json" "$cpu" "$(nproc)" "$mem" "$(uname -r)" "$jdk" "$vm" "$(uname -m)" <<'EOF'
import json, sys
keys = ["cpu", "cores", "memory", "kernel", "jdk", "jvm", "arch"]
json.dump(dict(zip(keys, sys.argv[2:])), open(sys.argv[1], "w"), indent=1)
EOF
  printf '{"rates":"%s","nats_rates":"%s","feed_recovery":%s,"repeat_rates":"%s","repeats":%s,"warmup_s":%s,"sub_driver":"%s","extra_opts":"%s","latency_from":"%s","outside_rates":"%s","outside_pairs":%s,"duration_s":%s,"min_messages":%s,"max_messages":%s,"fanout_rate":%s,"fanout_s":%s,"fanout_subs":"%s","pub_messages":%s,"pub_warmup_messages":%s,"pub_subs":"%s","pub_pairs":%s,"step_s":%s,"step_warmup_s":%s,"step_warmup_rate":%s,"search_lo":%s,"search_hi":%s,"raw_search_hi":%s,"search_steps":%s,"search_precision":%s,"trials":%s,"partitions":%s,"symbols":%s,"message_length":%s,"channel":"%s","raw_channel":"%s","pub_channel":"%s","rmem_max":"%s","wmem_max":"%s","sim_source":"%s","sim_pre_encode":"%s","record_out":"%s","git":"%s","raw_driver":"%s","raw_from":"%s","cpu_plan":"%s"}\n' \
    "$RATES" "$NATS_RATES" "$FEED_RECOVERY" "$REPEAT_RATES" "$REPEATS" "$WARMUP_S" "$SUB_DRIVER" "SIM_OPTS=${SIM_OPTS:-} FH_OPTS=$FH_OPTS FO_OPTS=$FO_OPTS SUB_OPTS=$SUB_OPTS PUB_SUB_OPTS=$PUB_SUB_OPTS RAW_OPTS=$RAW_OPTS DRIVER_OPTS=$DRIVER_OPTS DRIVER_NICE=$DRIVER_NICE JAVA_OPTS=${JAVA_OPTS:-}" "$LATENCY_FROM" "$OUTSIDE_RATES" "$OUTSIDE_PAIRS" "$DURATION_S" "$MIN_MESSAGES" "$MAX_MESSAGES" "$FANOUT_RATE" "$FANOUT_S" "$FANOUT_SUBS" "$PUB_MESSAGES" "$PUB_WARMUP_MESSAGES" "$PUB_SUBS" "$PUB_PAIRS" "$STEP_S" "$STEP_WARMUP_S" "$STEP_WARMUP_RATE" "$SEARCH_LO" "$SEARCH_HI" \
    "$RAW_SEARCH_HI" "$SEARCH_STEPS" "$SEARCH_PRECISION" "$TRIALS" $PARTITIONS $SYMBOLS $MESSAGE_LENGTH "$channel" "$raw_channel" "$pub_channel" \
    "$(cat /proc/sys/net/core/rmem_max 2>/dev/null)" "$(cat /proc/sys/net/core/wmem_max 2>/dev/null)" "$SIM_SOURCE" "$SIM_PRE_ENCODE" "${RECORD_OUT:-none}" \
    "${GIT_REV:-$(git rev-parse --short HEAD 2>/dev/null)}" "$RAW_DRIVER" "$RAW_FROM" \
    "$(for v in SIM_CPUS FH_CPUS FO_CPUS SUB_DRIVER_CPUS SUB_CPUS RAW_PUB_CPUS RAW_PUB_DRIVER_CPUS RAW_SUB_CPUS \
         RAW_SUB_DRIVER_CPUS PUB_REPLAY_CPUS PUB_FANOUT_CPUS PUB_DRIVER_CPUS PUB_SUB_CPUS; do
         [ -n "${!v}" ] && printf '%s=%s; ' "$v" "${!v}"; done)" >"$results/settings.json"
}

[ -x "$mdf" ] && [ -f "$jar" ] || { echo "bench: build first (make build)" >&2; exit 1; }
log "results in $results"
raise_rmem_max
machine
started=$SECONDS

# Host qualification (issue 38): before anything is measured, how much of the time the host takes from a thread that
# wants the CPUs the run will use (JITTER_CPUS, a taskset list; empty: this process's), JITTER_S (2) seconds of a
# spinning thread per CPU (`mdfanout host-jitter`). Once per results directory (the pinned bundle runs this script
# per section). The reports say from it whether a latency tail is the system's or the host's.
if [ "${JITTER_S:-2}" != 0 ] && [ ! -s "$results/host-jitter.json" ]; then
  launch "$results/host-jitter.log" $(pin "${JITTER_CPUS:-}") $mdf host-jitter --seconds "${JITTER_S:-2}" \
    --json-out "$results/host-jitter.json"
  wait "$last_pid" || log "host jitter not measured (see $results/host-jitter.log)"
  log "$(cat "$results/host-jitter.log" 2>/dev/null | tail -1)"
fi

stamp_mode="$LATENCY_FROM"
[ "${SKIP_LATENCY:-0}" = 1 ] && RATES="" && REPEAT_RATES="" && OUTSIDE_RATES=""
[ "${SKIP_FANOUT:-0}" = 1 ] && FANOUT_SUBS=""
for rate in $RATES; do
  messages=$(messages_for "$rate" "$DURATION_S")
  chain "chain-$rate" "$rate" "$messages" 1 latency latency
  raw "raw-aeron-$rate" "$rate" "$messages" latency
done
# More pairs at REPEAT_RATES: one pair's p99 moves by 2x or more from run to run on a shared machine, so
# the report gives every pair's ratio and their median.
for rate in $REPEAT_RATES; do
  mkdir -p "$results/latency-repeats"
  messages=$(messages_for "$rate" "$DURATION_S")
  for rep in $(seq 1 "$REPEATS"); do
    chain "chain-$rate-$rep" "$rate" "$messages" 1 latency latency-repeats
    raw "raw-aeron-$rate-$rep" "$rate" "$messages" latency-repeats
  done
done
# The same pairs measured from the pacer's schedule (coordinated omission corrected), from outside.
stamp_mode=scheduled
for rate in $OUTSIDE_RATES; do
  mkdir -p "$results/latency-outside"
  messages=$(messages_for "$rate" "$DURATION_S")
  chain "chain-$rate" "$rate" "$messages" 1 latency latency-outside
  raw "raw-aeron-$rate" "$rate" "$messages" latency-outside
  for rep in $(seq 1 $((OUTSIDE_PAIRS - 1))); do
    mkdir -p "$results/latency-outside-repeats"
    chain "chain-$rate-$rep" "$rate" "$messages" 1 latency latency-outside-repeats
    raw "raw-aeron-$rate-$rep" "$rate" "$messages" latency-outside-repeats
  done
done
stamp_mode="$LATENCY_FROM"
# Every Aeron log of the run, on both sides of both systems, is allocated whole when it is created (Aeron's
# aeron.term.buffer.sparse.file=false; the fanout's publications are so anyway). Otherwise each receiver takes a page
# fault per 4 KiB page on its first pass through each term, and a run is shorter than that first pass (a 48 MiB log
# at 1 MB/s per partition takes ~50 s): start-up faults, like the JIT's, that the warm-up is there to leave out, and
# they showed in the chain's p99 (the figures: docs/bench/CODE-NOTES.md). SPARSE_LOGS=1 keeps Aeron's default.
[ "${SPARSE_LOGS:-0}" = 1 ] || export JAVA_OPTS="${JAVA_OPTS:-} -Daeron.term.buffer.sparse.file=false"

# The fan-out run with one subscriber is the latency run at the same rate when there was one (the same processes,
# options and rate; DURATION_S rather than FANOUT_S seconds of messages): its results are copied, not measured again,
# which leaves 20 s of a 10-minute make bench for the repeated trials and pairs above.
reuse_latency_run() {  # reuse_latency_run: true when latency/chain-$FANOUT_RATE served as fanout/fanout-1
  local from="$results/latency/chain-$FANOUT_RATE"
  [ -s "$from.run.json" ] && [ -s "$from-sub1.json" ] || return 1
  cp "$from-sub1.json" "$results/fanout/fanout-1-sub1.json" && cp "$from-sub1.hgrm" "$results/fanout/fanout-1-sub1.hgrm" &&
    python3 - "$from.run.json" "$results/fanout/fanout-1.run.json" "chain-$FANOUT_RATE" <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))
r.update(name="fanout-1", reused_from=sys.argv[3])
json.dump(r, open(sys.argv[2], "w"))
EOF
  log "fanout-1: the latency run chain-$FANOUT_RATE (one subscriber at $FANOUT_RATE msg/s), not run again"
}
fanout_messages=$(messages_for "$FANOUT_RATE" "$FANOUT_S")
for n in $FANOUT_SUBS; do
  [ "$n" = 1 ] && reuse_latency_run && continue
  chain "fanout-$n" "$FANOUT_RATE" "$fanout_messages" "$n" latency fanout
done
if [ "${SKIP_PUB:-0}" != 1 ]; then
  for n in $PUB_SUBS; do pub_throughput "$n"; done
  # The fan-out target compares the runs with 8 subscribers and with 1: more pairs of them, each 1 then 8.
  if [[ " $PUB_SUBS " == *" 1 "* && " $PUB_SUBS " == *" 8 "* ]]; then
    for round in $(seq 2 "$PUB_PAIRS"); do pub_throughput 1 "$round"; pub_throughput 8 "$round"; done
  fi
  # And PUB_OWN_SUBS (8) subscribers each with a media driver of its own (PUB_OWN_DRIVERS=1), against one subscriber
  # set up the same way, a pair per round: the sender serves N receivers.
  if [ "$PUB_OWN_DRIVERS" = 1 ]; then
    for round in $(seq 1 "$PUB_PAIRS"); do
      r="$([ "$round" = 1 ] || echo "$round")"
      pub_throughput 1 "$r" own; pub_throughput "$PUB_OWN_SUBS" "$r" own
    done
  fi
fi

if [ "${SKIP_THROUGHPUT:-0}" != 1 ]; then
  sender_ceiling
  search chain
  lever_searches
  search raw
  search raw-batched
fi
[ "${SKIP_ARCHIVE:-0}" = 1 ] || archive_section
[ "${SKIP_PAIR:-0}" = 1 ] || pair_section
[ -n "$step_session_dir" ] && rm -rf "$step_session_dir" 
if [ "${SKIP_NATS:-0}" != 1 ]; then
  RATES="$NATS_RATES" DURATION_S="$DURATION_S" WARMUP_S="$WARMUP_S" MIN_MESSAGES="$MIN_MESSAGES" FANOUT_RATE="$FANOUT_RATE" \
    FANOUT_S="$FANOUT_S" LATENCY_FROM="$LATENCY_FROM" MAX_MESSAGES="$MAX_MESSAGES" FEED_RECOVERY="$FEED_RECOVERY" \
    NATS_FANOUT_SUBS="${NATS_FANOUT_SUBS-8}" bench/e2e/nats.sh "$results" || log "NATS peer skipped (see above)"
fi
# The derived streams' cost and benefit (derived-ab.sh: JMH over the bench jar, make bench builds it), into derived/ and
# DERIVED_REPORT; not in a bench bundle (no derived-ab.sh there).
if [ "${SKIP_DERIVED:-0}" != 1 ]; then
  if [ -x bench/scripts/derived-ab.sh ] && [ -f bench/target/mdfanout-bench.jar ]; then
    log "derived: the derived streams' cost and benefit (bench/scripts/derived-ab.sh; log in $results/logs/derived-ab.log)"
    echo "ROUNDS=${DERIVED_ROUNDS:-2} bench/scripts/derived-ab.sh $results/derived ${DERIVED_REPORT:-docs/bench/derived-streams.md}" >>"$commands"
    ROUNDS="${DERIVED_ROUNDS:-2}" bench/scripts/derived-ab.sh "$results/derived" "${DERIVED_REPORT:-docs/bench/derived-streams.md}" 2>&1 |
      tee "$results/logs/derived-ab.log" >&2
    [ "${PIPESTATUS[0]}" = 0 ] || log "derived: the derived streams' benchmark failed (see $results/logs/derived-ab.log)"
  else
    log "derived: skipped (no bench/scripts/derived-ab.sh or bench/target/mdfanout-bench.jar here)"
  fi
fi
# The subscriber SDKs side by side (sdk-ab.sh: builds the Rust examples and the wheel, then both comparisons), into
# sdk/ and SDK_REPORT; not in a bench bundle (no sdk-ab.sh there: no cargo to build the SDKs with).
if [ "${SKIP_SDK:-0}" != 1 ]; then
  if [ -x bench/scripts/sdk-ab.sh ]; then
    log "sdk: the Java, Rust and Python SDKs side by side (bench/scripts/sdk-ab.sh; log in $results/logs/sdk-ab.log)"
    echo "ROUNDS=${SDK_ROUNDS:-3} bench/scripts/sdk-ab.sh $results/sdk ${SDK_REPORT:-docs/bench/sdk-languages.md}" >>"$commands"
    ROUNDS="${SDK_ROUNDS:-3}" bench/scripts/sdk-ab.sh "$results/sdk" "${SDK_REPORT:-docs/bench/sdk-languages.md}" 2>&1 |
      tee "$results/logs/sdk-ab.log" >&2
    [ "${PIPESTATUS[0]}" = 0 ] || log "sdk: the SDK comparison failed (see $results/logs/sdk-ab.log)"
    rm -rf "$results/sdk/venv" "$results/sdk/sdk-session.mdfc"  # 35 MB, made again by every run: not results
  else
    log "sdk: skipped (no bench/scripts/sdk-ab.sh here)"
  fi
fi
restore_rmem_max
echo "{\"elapsed_s\":$((SECONDS - started))}" >"$results/elapsed.json"
log "done in $((SECONDS - started)) s: $results"

if [ "${NO_REPORT:-0}" != 1 ]; then
  python3 bench/e2e/report.py "$results"
fi
