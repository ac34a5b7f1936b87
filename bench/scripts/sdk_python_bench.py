#!/usr/bin/env python3
"""The Python SDK's receive path without a transport (``mdfanout.Decoder``: the Rust core behind one Python call per
packet), on the very packets the Java SDK's SdkBookBenchmark decodes (a case file from the bench module's
WriteSdkCase), into the order books. Passes over the session, one after another for SECONDS after WARMUP_S of the same;
each pass on a new Decoder (made untimed: the Python API has no way to empty its books), so its books grow from empty
within the pass where the Java and Rust benchmarks reuse theirs. Prints the median and mean pass rate in normalized
messages per second; fails when a pass was not delivered cleanly.

    sdk_python_bench.py CASE [SECONDS] [WARMUP_S]
"""

import statistics
import sys
import time

import mdfanout


def main():
    if not 2 <= len(sys.argv) <= 4:
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 2
    seconds = float(sys.argv[2]) if len(sys.argv) > 2 else 5.0
    warmup = float(sys.argv[3]) if len(sys.argv) > 3 else 3.0
    partitions, records = mdfanout.read_case(open(sys.argv[1], "rb").read())
    packets = [(partition, message) for _kind, partition, _session, message in records]
    slots = list(range(partitions))
    rates, messages_per_pass = [], None
    started = time.perf_counter()
    while time.perf_counter() - started < warmup + seconds:
        decoder = mdfanout.Decoder(slots)
        on_message = decoder.on_message
        begin = time.perf_counter()
        for partition, message in packets:
            on_message(partition, 1, message)
        elapsed = time.perf_counter() - begin
        counters = decoder.counters()
        if counters["gaps"] or counters["malformed"] or counters["duplicate_packets"] or (
                messages_per_pass is not None and counters["messages"] != messages_per_pass):
            raise SystemExit(f"the packet stream was not delivered cleanly: {counters}")
        messages_per_pass = counters["messages"]
        if time.perf_counter() - started > warmup:
            rates.append(messages_per_pass / elapsed)
    if not rates:
        raise SystemExit("no pass was measured: raise SECONDS")
    print(f"python-sdk: mode=books passes={len(rates)} messages_per_pass={messages_per_pass} "
          f"median_msgs_per_s={statistics.median(rates):.0f} mean_msgs_per_s={statistics.fmean(rates):.0f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
