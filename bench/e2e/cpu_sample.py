#!/usr/bin/env python3
"""Where a throughput trial's CPU goes: each process's CPU time over the sender's measured seconds.

  cpu_sample.py sample OUT_JSON NAME=PID [NAME=PID ...]
      every INTERVAL_S (0.1) reads each process's CPU time (utime + stime of all its threads, from
      /proc/PID/stat) until every one of them has exited; writes the samples to OUT_JSON.
  cpu_sample.py window SAMPLES_JSON SENDER END_GAP_S MEASURED_ELAPSED_S MESSAGES
      prints one JSON object: each process's CPU over the window in which SENDER sent its measured
      messages (the MEASURED_ELAPSED_S seconds that ended END_GAP_S before SENDER exited: the simulator
      lingers for re-requests after its last message), as cores busy (1.0 = one CPU all the time) and as
      nanoseconds of CPU per measured message; and each process's busiest thread (by its name, threads of
      one name together) with its cores busy: the thread that saturates names the chain's limit (issue 38).

Run by bench/e2e/run.sh around each throughput trial; report.py shows the result. The sampler reads
/proc only (a few dozen reads a second, on the cores being measured). bench/scripts/cpu-by-role.py reads the
same counters for a person watching a run (every role, or every thread, once a second); this one follows a
trial's own processes by pid, ten times a second, so that the sender's measured seconds can be cut out.
"""
import json
import os
import sys
import time

INTERVAL_S = 0.1
# Threads are read every this many samples (0.5 s): a JVM has dozens, read on the cores being measured.
THREAD_EVERY = 5


def cpu_ticks(pid):
    """utime + stime of the whole process (every thread), in clock ticks; None once it has exited."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            stat = f.read()
    except OSError:
        return None
    fields = stat[stat.rindex(")") + 2:].split()
    if fields[0] == "Z":  # exited, not yet reaped by the harness's wait
        return None
    return int(fields[11]) + int(fields[12])


def thread_ticks(pid):
    """utime + stime of each named thread of a process (threads of one name summed), in clock ticks; {} once it
    has exited."""
    ticks = {}
    try:
        tids = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return ticks
    for tid in tids:
        try:
            with open(f"/proc/{pid}/task/{tid}/stat") as f:
                stat = f.read()
        except OSError:
            continue
        name = stat[stat.index("(") + 1:stat.rindex(")")]
        fields = stat[stat.rindex(")") + 2:].split()
        ticks[name] = ticks.get(name, 0) + int(fields[11]) + int(fields[12])
    return ticks


def sample(out, named_pids):
    procs = []
    for arg in named_pids:
        name, _, pid = arg.partition("=")
        procs.append((name, int(pid)))
    samples = []
    count = 0
    while True:
        now = time.monotonic()
        ticks = {name: cpu_ticks(pid) for name, pid in procs}
        if count % THREAD_EVERY == 0:
            for name, pid in procs:
                if ticks[name] is not None:
                    for thread, value in thread_ticks(pid).items():
                        ticks[name + "/" + thread] = value
        count += 1
        samples.append([now, ticks])
        if all(ticks[name] is None for name, _ in procs):
            break
        time.sleep(INTERVAL_S)
    with open(out, "w") as f:
        json.dump({"interval_s": INTERVAL_S, "clk_tck": os.sysconf("SC_CLK_TCK"), "samples": samples}, f)


def ticks_at(samples, name, t):
    """A process's CPU ticks at time t, interpolated between the samples around it; after it exited, what it had
    used at its last sample (what it used after that sample, at most one interval's worth, is lost); None before
    its first sample."""
    before = after = None
    for when, ticks in samples:
        v = ticks.get(name)
        if v is None:
            continue
        if when <= t:
            before = (when, v)
        elif after is None:
            after = (when, v)
            break
    if before is not None and after is None:
        return before[1]
    if before is None or after is None:
        return None
    (t0, v0), (t1, v1) = before, after
    return v0 + (v1 - v0) * (t - t0) / (t1 - t0)


def window(samples_json, sender, end_gap_s, measured_s, messages):
    data = json.load(open(samples_json))
    samples, tck = data["samples"], data["clk_tck"]
    alive = [when for when, ticks in samples if ticks.get(sender) is not None]
    if not alive or measured_s <= 0 or messages <= 0:
        return {}
    interval = data["interval_s"]
    end = min(alive[-1], alive[-1] + interval / 2 - end_gap_s)  # it exited between its last sample and the next
    start = end - measured_s
    cores, ns, busiest = {}, {}, {}
    keys = []
    for _, ticks in samples:
        keys += [k for k in ticks if k not in keys]
    for name in keys:
        a, b = ticks_at(samples, name, start), ticks_at(samples, name, end)
        if a is None or b is None:
            continue
        seconds = (b - a) / tck
        if "/" in name:  # a thread: the busiest of its process is kept
            process, _, thread = name.partition("/")
            busy = round(seconds / measured_s, 3)
            if busy > busiest.get(process, {}).get("cores", -1):
                busiest[process] = {"thread": thread, "cores": busy}
            continue
        cores[name] = round(seconds / measured_s, 3)
        ns[name] = round(seconds * 1e9 / messages, 1)
    return {"window_s": round(measured_s, 3), "messages": messages, "cores": cores, "ns_per_message": ns,
            "busiest_thread": busiest}


def main(argv):
    if len(argv) >= 3 and argv[0] == "sample":
        sample(argv[1], argv[2:])
        return 0
    if len(argv) == 6 and argv[0] == "window":
        try:
            result = window(argv[1], argv[2], float(argv[3]), float(argv[4]), int(argv[5]))
        except (OSError, ValueError, KeyError) as e:
            print(f"cpu_sample.py: {e}", file=sys.stderr)
            result = {}
        print(json.dumps(result))
        return 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
