#!/usr/bin/env python3
"""The pair's section of the benchmark report (issue 37), from a results directory bench/e2e/run.sh wrote (its
pair_section: RESULTS/pair/).

section(results_dir) -> markdown lines: in each run, a subscriber arbitrating a feed's two sides against a subscriber
of one side, both running at once on the same messages: latency percentiles and CPU per message, each as a ratio of
the pair's to the single side's, and their medians over the runs. Every figure is read from the results; nothing is
typed by hand. [] when the run had no pair section.

usage: bench/e2e/report_pair.py RESULTS_DIR   (prints the section)
"""
import glob
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import report as base  # noqa: E402  (the shared helpers)

PERCENTILES = [("p50", "p50_us"), ("p99", "p99_us"), ("p99.9", "p99_9_us")]


def _load(path):
    return base.load_json(path) if os.path.exists(path) else None


def _clean(run):
    """Both subscribers exited 0 (every partition's End of Messages, nothing unreported) with no gap."""
    return bool(run) and run.get("subscriber_exits") == [0, 0] and run.get("single_gaps") == 0 \
        and run.get("pair_gaps") == 0 and run.get("simulator_exit") == 0


def section(results_dir):
    results = results_dir.rstrip("/")
    settings = _load(os.path.join(results, "pair", "settings.json"))
    runs = sorted((base.load_json(p) for p in glob.glob(os.path.join(results, "pair", "*.run.json"))),
                  key=lambda r: (r["rate"], r["name"]))
    if settings is None or not runs:
        return []
    md = ["## A feed as a pair: an arbitrating subscriber against one side's", ""]
    md.append(f"Issue 37's pair in the same run as the sections above (`make bench`, its `pair_section`): the "
              "simulator's lines A and B feed two chains on this machine, each its own feed handler, rings and "
              "fanout, side B's fanout on a multicast group of its own. Two `latency` subscribers run at once, one of "
              "side A alone and one arbitrating the pair (`--pair-channel`: per partition the first copy of each "
              "message wins, the other side's is dropped as a duplicate), so both take the same messages at the same "
              f"moments: {settings.get('warmup_s')} s of messages of warm-up, then {settings.get('seconds')} s "
              "measured, in each run. Latency in microseconds from the simulator's scheduled send time to the listener "
              "(not from a feed handler's receive stamp: each side's would write its own time into the messages, and "
              "a pair's subscriber refuses a side whose copies differ); CPU is each subscriber's process (its embedded media driver "
              "included: it receives twice the packets) over the simulator's measured seconds, in nanoseconds per "
              "measured message. Seven processes share this machine's CPUs, so the ratios, not the figures, are the "
              "result.")
    md.append("")
    md.append("| run | rate (msg/s) | subscriber | " + " | ".join(p for p, _ in PERCENTILES) +
              " | CPU (ns/message) | complete |")
    md.append("|---|---:|---|" + "---:|" * len(PERCENTILES) + "---:|---|")
    ratios = {p: [] for p, _ in PERCENTILES}
    ratios["cpu"] = []
    complete = 0
    for run in runs:
        name = run["name"]
        subs = {kind: _load(os.path.join(results, "pair", f"{name}-{kind}.json")) for kind in ("single", "pair")}
        cpu = (run.get("cpu") or {}).get("ns_per_message") or {}
        clean = _clean(run)
        for kind, label in (("single", "side A alone"), ("pair", "**the pair**")):
            sub = subs[kind] or {}
            md.append(f"| {name} | {base.rate(run.get('rate'))} | {label} | " +
                      " | ".join(base.us(sub.get(key)) for _, key in PERCENTILES) +
                      f" | {f'{cpu[kind]:,.0f}' if cpu.get(kind) else 'n/a'} | {'yes' if clean else 'NO (exits %s, gaps %s/%s)' % (run.get('subscriber_exits'), run.get('single_gaps'), run.get('pair_gaps'))} |")
        if clean and subs["single"] and subs["pair"]:
            complete += 1
            for p, key in PERCENTILES:
                if subs["single"].get(key) and subs["pair"].get(key):
                    ratios[p].append(subs["pair"][key] / subs["single"][key])
            if cpu.get("single") and cpu.get("pair"):
                ratios["cpu"].append(cpu["pair"] / cpu["single"])
    md.append("")
    md.append("| the pair / side A alone, median over the complete runs | " +
              " | ".join(p for p, _ in PERCENTILES) + " | CPU per message |")
    md.append("|---|" + "---:|" * (len(PERCENTILES) + 1))
    cells = [f"{base.median(ratios[p]):.2f}x" if ratios[p] else "n/a" for p, _ in PERCENTILES]
    cells.append(f"{base.median(ratios['cpu']):.2f}x" if ratios["cpu"] else "n/a")
    md.append(f"| {complete} run{'s' if complete != 1 else ''} | " + " | ".join(cells) + " |")
    md.append("")
    md.append("In the pair each message reaches the listener from whichever chain delivered it first, so its latency is "
              "the lower of two chains' at each message: arbitration by the first copy is also a race, as the feed "
              "handler's between lines A and B. The CPU ratio is the arbitrating subscriber's price: twice the packets "
              "received and checked, each copy compared.")
    md.append("")
    md.append("The SDK's own share of that cost, without the transport, is `SdkPairBenchmark` in "
              "[micro.md](bench/micro.md) (`make bench-micro`).")
    first = runs[0]["name"]
    commands = base.commands_of(results, first)
    if commands:
        md.append("")
        md.append(f"Commands of {first}:")
        md.append("")
        md.append("```")
        md.extend(commands)
        md.append("```")
    md.append("")
    return md


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    print("\n".join(section(sys.argv[1])))
