"""The Python SDK's live client latency, as a Python program sees it: for every normalized message delivered live (an
event with an exchange sequence, not a snapshot's state, not a GapNotice), ``time.time_ns()`` when
``Subscriber.poll()`` has returned its events (the dictionaries built) minus the event's ``sent`` (its packet's
sending time: the fanout's offer, nanoseconds since the epoch), after the first ``--warmup-messages`` of them. Per
message, as the Java ``latency`` tool's "from fanout send" figure and the Rust ``sdk_latency`` example, so that the
three SDKs' distributions weigh alike; every message of one poll shares that poll's return time, which is when the
program has them.

Polls with ``timeout_s=0`` and, when a poll returned nothing, idles as the Java tools' ``--idle-strategy park``: 10
polls, then sleeps from 1 us doubling up to ``--idle-max-park-us`` (100). (``poll(timeout_s>0)`` would sleep a fixed
100 us in Rust between empty polls: up to that much more per message.)

Prints the Java tool's summary line (``sdk_python_latency: from fanout send: latency count=.. p50=..us ..``) and writes
``--json-out`` with the Java tool's keys, so one parser reads all three. Stops at End of Messages on every partition.
Exit codes as Java's: 0 clean, 1 a bad option or no media driver, 2 data lost (a stream gap, a malformed packet, an
exchange gap: a GapNotice), 3 timeout.

  python sdk_python_latency.py --aeron-dir DIR --channel CHANNEL [--stream-id-base 1000] [--partitions 4]
      [--warmup-messages 0] [--timeout-s 0] [--ready-file FILE] [--json-out FILE] [--idle-max-park-us 100]
"""

import argparse
import json
import math
import pathlib
import sys
import time

import mdfanout

HIGHEST_TRACKABLE_NS = 3_600_000_000_000
SPINS = 10
MIN_PARK_NS = 1_000


def percentile(ordered, p):
    """As HdrHistogram's getValueAtPercentile counts: the smallest value with at least p% of them at or below it."""
    if not ordered:
        return 0
    rank = max(1, math.ceil(p / 100.0 * len(ordered)))
    return ordered[min(rank, len(ordered)) - 1]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--aeron-dir", required=True)
    parser.add_argument("--channel", required=True)
    parser.add_argument("--stream-id-base", type=int, default=1000)
    parser.add_argument("--partitions", type=int, default=4)
    parser.add_argument("--warmup-messages", type=int, default=0)
    parser.add_argument("--timeout-s", type=float, default=0)
    parser.add_argument("--ready-file")
    parser.add_argument("--json-out")
    parser.add_argument("--idle-max-park-us", type=int, default=100)
    parser.add_argument("--fragment-limit", type=int, default=64)
    args = parser.parse_args()
    if args.partitions < 1 or args.warmup_messages < 0 or args.idle_max_park_us < 1 or args.fragment_limit < 1:
        parser.error("--partitions, --idle-max-park-us and --fragment-limit must be positive, --warmup-messages not "
                     "negative")
    try:
        subscriber = mdfanout.Subscriber(args.channel, list(range(args.partitions)), stream_id_base=args.stream_id_base,
                                         aeron_dir=args.aeron_dir)
    except (ConnectionError, ValueError) as e:
        print(f"sdk_python_latency: {e}", file=sys.stderr)
        return 1
    print(f"sdk_python_latency: subscribed to {args.partitions} partitions of {args.channel} (stream id base "
          f"{args.stream_id_base}), idle park(spins={SPINS}, maxPark={args.idle_max_park_us}us)", file=sys.stderr)

    samples, seen, negative, clamped, gap_notices = [], 0, 0, 0, 0
    warmup = args.warmup_messages
    ended = set()
    deadline = time.monotonic() + args.timeout_s if args.timeout_s > 0 else math.inf
    ready = args.ready_file is None
    max_park_ns = args.idle_max_park_us * 1_000
    idle_spins, park_ns, timed_out = 0, MIN_PARK_NS, False
    poll, now_ns, sleep = subscriber.poll, time.time_ns, time.sleep
    while True:
        events = poll(timeout_s=0.0, fragment_limit=args.fragment_limit)
        now = now_ns()
        for event in events:
            if "xs" not in event or "snapshot" in event:
                continue  # liveness and recovery events; a snapshot's state
            kind = event["type"]
            if kind == "SystemEvent" and event["eventCode"] == 67:  # 'C', End of Messages
                ended.add(event["p"])
            if kind == "GapNotice":
                gap_notices += 1  # an exchange gap: messages lost upstream for good
                continue
            seen += 1
            if seen <= warmup:
                continue
            latency = now - event["sent"]
            if latency < 0:
                negative += 1
                latency = 0
            elif latency > HIGHEST_TRACKABLE_NS:
                clamped += 1
                latency = HIGHEST_TRACKABLE_NS
            samples.append(latency)
        if not ready and subscriber.is_connected():
            pathlib.Path(args.ready_file).touch()
            ready = True
        if len(ended) == args.partitions:
            break
        if time.monotonic() > deadline:
            timed_out = True
            break
        if events:
            idle_spins, park_ns = 0, MIN_PARK_NS
        elif idle_spins < SPINS:
            idle_spins += 1
        else:
            sleep(park_ns / 1e9)
            park_ns = min(park_ns * 2, max_park_ns)

    counters = subscriber.counters()
    samples.sort()
    points = [percentile(samples, p) / 1_000 for p in (50, 90, 99, 99.9, 99.99)]
    top = (samples[-1] if samples else 0) / 1_000
    mean = sum(samples) / len(samples) / 1_000 if samples else 0.0
    warmup_seen = min(seen, warmup)
    print(f"sdk_python_latency: from fanout send: latency count={len(samples)} p50={points[0]:.1f}us "
          f"p90={points[1]:.1f}us p99={points[2]:.1f}us p99.9={points[3]:.1f}us p99.99={points[4]:.1f}us "
          f"max={top:.1f}us mean={mean:.1f}us (warmup={warmup_seen} negative={negative} clamped={clamped})")
    lost = counters["gaps"] or counters["malformed"] or gap_notices
    exit_code = 3 if timed_out else 2 if lost else 0
    print(f"sdk_python_latency: messages={counters['messages']} gaps={counters['gaps']} "
          f"missing={counters['missing']} malformed={counters['malformed']} recoveries={counters['recovered']} gapNotices={gap_notices}"
          + (" (timed out)" if timed_out else ""))
    if args.json_out:
        names = ["p50", "p90", "p99", "p99_9", "p99_99"]
        fanout = {"count": len(samples), **{f"{n}_us": round(v, 3) for n, v in zip(names, points)},
                  "max_us": round(top, 3), "mean_us": round(mean, 3)}
        result = {"system": "python", "warmup": warmup_seen, "negative": negative, "clamped": clamped,
                  "messages": counters["messages"], "gaps": counters["gaps"], "missing": counters["missing"],
                  "recoveries": counters["recovered"], "exit": exit_code, "from_fanout_send": fanout}
        pathlib.Path(args.json_out).write_text(json.dumps(result) + "\n")
    return exit_code


if __name__ == "__main__":
    sys.exit(main())
