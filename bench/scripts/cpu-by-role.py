#!/usr/bin/env python3
"""CPU use of each mdfanout role (simulator, feed-handler, fanout, record, ...) once a second.

Run it next to a benchmark to see which process a saturated machine spends its cores on, e.g.
    python3 bench/scripts/cpu-by-role.py /tmp/cpu.txt & SKIP_LATENCY=1 ... bench/e2e/run.sh; kill %1
Each line: a time, then role=percent of one core over the last second, summed over the processes of
that role (the subcommand after mdfanout.jar on a java command line). Reads /proc only: Linux.

With --threads SECONDS, every thread instead, over windows of that many seconds: its role, its name (Aeron names
its agent threads after the agent or the Aeron directory), percent of one core, and its voluntary (it blocked or
parked) and involuntary (it was preempted or yielded) context switches per second, busiest first, e.g.
    python3 bench/scripts/cpu-by-role.py --threads 5 /tmp/threads.txt &
"""
import collections
import os
import sys
import time


def roles():
    """{pid: (role, utime + stime in clock ticks)} for every java process running mdfanout.jar."""
    found = {}
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                args = f.read().split(b"\0")
            if not args or not args[0].endswith(b"java"):
                continue
            role = next((args[i + 1].decode() for i, a in enumerate(args[:-1]) if a.endswith(b"mdfanout.jar")), None)
            if role is None:
                continue
            with open(f"/proc/{pid}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            found[pid] = (role, int(fields[11]) + int(fields[12]))
        except (OSError, IndexError, ValueError):
            pass  # the process ended while it was read
    return found


def threads():
    """{(pid, tid): (role, thread name, clock ticks, voluntary switches, involuntary switches)}."""
    found = {}
    for pid, (role, _) in roles().items():
        try:
            tids = os.listdir(f"/proc/{pid}/task")
        except OSError:
            continue
        for tid in tids:
            try:
                with open(f"/proc/{pid}/task/{tid}/comm") as f:
                    name = f.read().strip()
                with open(f"/proc/{pid}/task/{tid}/stat") as f:
                    fields = f.read().rsplit(")", 1)[1].split()
                switches = {}
                with open(f"/proc/{pid}/task/{tid}/status") as f:
                    for line in f:
                        if line.startswith(("voluntary_ctxt_switches", "nonvoluntary_ctxt_switches")):
                            key, value = line.split(":")
                            switches[key] = int(value)
                found[(pid, tid)] = (role, name, int(fields[11]) + int(fields[12]),
                                     switches.get("voluntary_ctxt_switches", 0),
                                     switches.get("nonvoluntary_ctxt_switches", 0))
            except (OSError, IndexError, ValueError):
                pass  # the thread ended while it was read
    return found


def watch_threads(window_s, out, ticks):
    last = threads()
    while True:
        time.sleep(window_s)
        now = threads()
        rows = []
        for key, (role, name, t, vol, invol) in now.items():
            if key in last:
                _, _, t0, vol0, invol0 = last[key]
                rows.append((100 * (t - t0) / ticks / window_s, role, name, (vol - vol0) / window_s,
                             (invol - invol0) / window_s))
        if rows:
            out.write(time.strftime("%H:%M:%S") + f" total={sum(r[0] for r in rows):.0f}%\n")
            for cpu, role, name, vol, invol in sorted(rows, reverse=True):
                if cpu >= 0.5:
                    out.write(f"  {cpu:5.1f}% {role:14s} {name:24s} voluntary/s={vol:8.0f} involuntary/s={invol:8.0f}\n")
            out.flush()
        last = now


def main():
    args = sys.argv[1:]
    window_s = None
    if len(args) == 3 and args[0] == "--threads":
        window_s = float(args[1])
        args = args[2:]
    if len(args) != 1 or (window_s is not None and window_s <= 0):
        sys.exit("usage: cpu-by-role.py [--threads SECONDS] OUTPUT_FILE")
    ticks = os.sysconf("SC_CLK_TCK")
    if window_s is not None:
        with open(args[0], "w") as out:
            watch_threads(window_s, out, ticks)
        return
    with open(args[0], "w") as out:
        last = {}
        while True:
            now = roles()
            used = collections.Counter()
            for pid, (role, t) in now.items():
                if pid in last:
                    used[role] += t - last[pid][1]
            if used:
                out.write(time.strftime("%H:%M:%S") + " " +
                          " ".join(f"{role}={100 * t / ticks:.0f}%" for role, t in sorted(used.items())) + "\n")
                out.flush()
            last = now
            time.sleep(1)


if __name__ == "__main__":
    main()
