# Shared by bench/e2e/run.sh, nats.sh and steady.sh (sourced, not run): starting, watching and stopping
# the processes of a run, and reading their one-line results. Each script keeps its own log() prefix and its
# own cleanup(), which calls stop_pids.
#   globals: pids (array of started pids), commands (the run's commands.txt), WARMUP_S, MIN_MESSAGES

# launch LOGFILE CMD...: runs CMD in the background, output to LOGFILE, its exact command line recorded next to
# the log and in $commands; its pid is left in $last_pid and added to $pids.
launch() {
  local logfile="$1"; shift
  { printf '%q ' "$@"; echo; } | tee -a "$(dirname "$logfile")/commands.txt" >>"$commands"
  "$@" >"$logfile" 2>&1 &
  last_pid=$!
  pids+=("$last_pid")
}

# stop_pids: SIGTERM to every process in $pids, up to 10 s for them to stop cleanly (they delete their
# Aeron directories on the way out), then SIGKILL; empties $pids.
stop_pids() {
  local pid
  for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null; done
  for _ in $(seq 1 100); do
    local alive=0
    for pid in "${pids[@]}"; do kill -0 "$pid" 2>/dev/null && alive=1; done
    [ "$alive" = 0 ] && break
    sleep 0.1
  done
  for pid in "${pids[@]}"; do kill -KILL "$pid" 2>/dev/null; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null; done
  pids=()
}

fresh_logs() {  # fresh_logs DIR: a run's log directory, without the ready and go files of an earlier run into the
  # same RESULTS_DIR: the harness waits for those files to appear, so a stale one would start a run before its
  # subscribers are connected
  mkdir -p "$1" && rm -f "$1"/ready* "$1/go"
}

wait_for_files() {  # wait_for_files TIMEOUT_S FILE...: 1 if one of them did not appear in time
  local deadline=$((SECONDS + $1)); shift
  for f in "$@"; do
    while [ ! -e "$f" ]; do
      [ "$SECONDS" -ge "$deadline" ] && return 1
      sleep 0.1
    done
  done
}

messages_for() {  # messages_for RATE SECONDS -> RATE*(WARMUP_S+SECONDS) within [MIN_MESSAGES, MAX_MESSAGES]: warm-up, then
  # the measured part (at 1M msg/s the cap halves both, which keeps make bench under 10 minutes: 5M measured)
  local m=$(($1 * ($2 + WARMUP_S)))
  [ "$m" -gt "${MAX_MESSAGES:-0}" ] && [ "${MAX_MESSAGES:-0}" -gt 0 ] && m=$MAX_MESSAGES
  [ "$m" -lt "$MIN_MESSAGES" ] && m=$MIN_MESSAGES; echo "$m"
}

field() {  # field NAME FILE: the last NAME=value in FILE (value up to a space or parenthesis)
  grep -o "$1=[^ )]*" "$2" 2>/dev/null | tail -1 | cut -d= -f2
}

json_num() { [ -n "${1:-}" ] && echo "$1" || echo null; }

# feed_recovery RETRANSMIT_PORT: sets the caller's fh_recovery and sim_recovery (declare them local first) to the
# feed handler's and the simulator's options for MoldUDP64 re-requests, as in production: the simulator serves them
# on the port and the feed handler asks for what its socket dropped. Both empty when FEED_RECOVERY=0.
feed_recovery() {
  fh_recovery=""; sim_recovery=""
  if [ "${FEED_RECOVERY:-1}" = 1 ]; then
    fh_recovery="--retransmit-server 127.0.0.1:$1"
    sim_recovery="--retransmit-port $1 --linger-ms 1000"
  fi
}

# CPU plans (bench/bundle/run-pinned.sh sets them on many-core hosts; empty everywhere else): each process of a run
# confined to CPUs of its own with taskset, as a kubelet's static CPU manager confines a pod's containers.
# pin CPUS: the command prefix that confines a process to CPUS (a taskset list: 3-4, 5,7), or nothing when CPUS
# is empty. taskset execs the command, so the pid launch records is the process's own.
pin() { [ -n "${1:-}" ] && echo "taskset -c $1"; return 0; }
# nth_group "GROUPS" I: the I-th (from 1, round robin) of space-separated CPU groups: nth_group "12 13-14" 3 -> 12
nth_group() {
  local groups; read -r -a groups <<<"${1:-}"
  [ "${#groups[@]}" -gt 0 ] && echo "${groups[$(( ($2 - 1) % ${#groups[@]} ))]}"
  return 0
}
# default_cpus OPTS: "--cpus none" unless OPTS choose the process's --cpus themselves (picocli refuses an option
# given twice)
default_cpus() { [[ " ${1:-} " == *" --cpus"* ]] || echo "--cpus none"; }
