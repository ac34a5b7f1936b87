#!/usr/bin/env python3
"""CPU use of each mdfanout role (simulator, feed-handler, fanout, record, ...) once a second.

Run it next to a benchmark to see which process a saturated machine spends its cores on, e.g.
    python3 bench/scripts/cpu-by-role.py /tmp/cpu.txt & SKIP_LATENCY=1 ... bench/e2e/run.sh; kill %1
Each line: a time, then role=percent of one core over the last second, summed over the processes of
that role (the subcommand after mdfanout.jar on a java command line). Reads /proc only: Linux.
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


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: cpu-by-role.py OUTPUT_FILE")
    ticks = os.sysconf("SC_CLK_TCK")
    with open(sys.argv[1], "w") as out:
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
