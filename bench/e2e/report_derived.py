#!/usr/bin/env python3
"""The derived streams' cost and benefit (issue 40), from a bench/scripts/derived-ab.sh output directory.

Figures are in the measured thread's CPU time (the benchmarks' ThreadCpu counters: a machine shared with other work
inflates the wall clock, not a thread's CPU time), with JMH's wall-clock figures beside them.

  report_derived.py DIR [REPORT_MD [COMMAND]]

DIR holds bytes.json (io.mdfanout.bench.DerivedStreamBytes) and, per round N, round-N.fanout.json
(FanoutDerivedBenchmark) and round-N.subscriber.json (DerivedSubscriberBenchmark), JMH's JSON. Prints the tables,
writes DIR/summary.json and, with REPORT_MD, puts the tables between the derived-ab markers of that file (the rest of
it is left as it is). report.py calls section(results) for make bench's report: the same tables when the run has a
derived/ directory.
"""
import json
import os
import statistics
import sys

BEGIN, END = "<!-- derived-ab:begin -->", "<!-- derived-ab:end -->"
FANOUT_ORDER = ["mbo", "all", "bbo", "mbp-10", "trades", "ohlcv"]
STREAM_ORDER = ["mbo", "bbo", "mbp-10", "trades", "ohlcv"]
FANOUT_LABEL = {"mbo": "MBO only (the baseline)", "all": "MBO + all four derived streams",
                "bbo": "MBO + BBO", "mbp-10": "MBO + MBP-10", "trades": "MBO + trades", "ohlcv": "MBO + OHLCV bars"}


def _rounds(directory):
    rounds = []
    n = 1
    while os.path.exists(os.path.join(directory, f"round-{n}.fanout.json")) or \
            os.path.exists(os.path.join(directory, f"round-{n}.subscriber.json")):
        rounds.append(n)
        n += 1
    return rounds


def _load(path):
    if not os.path.exists(path):
        return []
    with open(path) as f:
        text = f.read().strip()
    return json.loads(text) if text else []


def _iterations(metric):
    """A metric's per-iteration values (every fork's), from JMH's rawData."""
    return [x for fork in metric["rawData"] for x in fork]


def _per_unit(b):
    """Per iteration: the ThreadCpu counters' CPU nanoseconds per unit of work."""
    cpu, units = _iterations(b["secondaryMetrics"]["cpuNanos"]), _iterations(b["secondaryMetrics"]["units"])
    return [c / u for c, u in zip(cpu, units) if u]


def summarize(directory):
    """Per round, each benchmark's median over its iterations; then the medians over the rounds, and each round's
    ratios to MBO's figure of the same round."""
    rounds = _rounds(directory)
    with open(os.path.join(directory, "bytes.json")) as f:
        bytes_ = json.load(f)
    fanout_cpu, fanout_wall = {}, {}   # variant -> {round: ns per MBO message}
    sub_cpu, sub_wall = {}, {}         # stream -> {round: us per session}
    for r in rounds:
        for b in _load(os.path.join(directory, f"round-{r}.fanout.json")):
            if b["benchmark"].endswith("FanoutDerivedBenchmark.publish"):
                v = b["params"]["streams"]
                fanout_cpu.setdefault(v, {})[r] = statistics.median(_per_unit(b))
                fanout_wall.setdefault(v, {})[r] = statistics.median(
                    1e9 / x for x in _iterations(b["secondaryMetrics"]["messages"]))
        for b in _load(os.path.join(directory, f"round-{r}.subscriber.json")):
            if b["benchmark"].endswith("DerivedSubscriberBenchmark.decodeSession"):
                s = b["params"]["stream"]
                unit = b["primaryMetric"]["scoreUnit"]
                scale = {"us/op": 1.0, "ms/op": 1000.0, "ns/op": 0.001, "s/op": 1e6}[unit]
                sub_cpu.setdefault(s, {})[r] = statistics.median(_per_unit(b)) / 1000
                sub_wall.setdefault(s, {})[r] = statistics.median(_iterations(b["primaryMetric"])) * scale

    def ratios(table, name):
        return [table[name][r] / table["mbo"][r] for r in rounds
                if r in table.get(name, {}) and r in table.get("mbo", {})]

    def median_or_none(xs):
        return statistics.median(xs) if xs else None

    summary = {"rounds": len(rounds), "ring_messages_per_session": bytes_["ringMessagesPerSession"],
               "partitions": bytes_["partitions"], "fanout": {}, "subscriber": {}}
    for v in [v for v in FANOUT_ORDER if v in fanout_cpu] + sorted(set(fanout_cpu) - set(FANOUT_ORDER)):
        summary["fanout"][v] = {
            "cpu_ns_per_message": statistics.median(fanout_cpu[v].values()),
            "cpu_ns_per_message_rounds": [fanout_cpu[v].get(r) for r in rounds],
            "cpu_ratio_to_mbo": median_or_none(ratios(fanout_cpu, v)),
            "cpu_ratio_to_mbo_rounds": ratios(fanout_cpu, v),
            "wall_ns_per_message": statistics.median(fanout_wall[v].values()),
            "wall_ratio_to_mbo": median_or_none(ratios(fanout_wall, v)),
            "wall_ratio_to_mbo_rounds": ratios(fanout_wall, v)}
    mbo_bytes = bytes_["streams"]["mbo"]
    for s in STREAM_ORDER:
        if s not in bytes_["streams"]:
            continue
        b = bytes_["streams"][s]
        entry = {"messages": b["messages"], "packets": b["packets"], "packet_bytes": b["packetBytes"],
                 "aeron_log_bytes": b["aeronLogBytes"],
                 "packet_bytes_ratio_to_mbo": b["packetBytes"] / mbo_bytes["packetBytes"],
                 "aeron_log_bytes_ratio_to_mbo": b["aeronLogBytes"] / mbo_bytes["aeronLogBytes"]}
        if s in sub_cpu:
            entry.update(
                cpu_us_per_session=statistics.median(sub_cpu[s].values()),
                cpu_us_per_session_rounds=[sub_cpu[s].get(r) for r in rounds],
                cpu_ratio_to_mbo=median_or_none(ratios(sub_cpu, s)), cpu_ratio_to_mbo_rounds=ratios(sub_cpu, s),
                wall_us_per_session=statistics.median(sub_wall[s].values()),
                wall_ratio_to_mbo=median_or_none(ratios(sub_wall, s)))
        summary["subscriber"][s] = entry
    return summary


def _ratio(x):
    return "n/a" if x is None else f"{x:.2f}x"


def _rounds_list(xs):
    return ", ".join(f"{x:.2f}" for x in xs) if xs else "n/a"


def table_lines(summary):
    """The three tables, as markdown lines."""
    n = summary["rounds"]
    rounds = f"{n} round{'' if n == 1 else 's'}"
    md = []
    md.append(f"**The fanout's cost per message** (`FanoutDerivedBenchmark`: 4 partitions, ring -> partition state -> "
              f"`PartitionPublisher` [-> `PartitionDerivation`] -> IPC publications of an embedded media driver, one "
              f"thread; {summary['ring_messages_per_session']:,} MBO messages a session; {rounds}; per round the "
              "median of the iterations, then the median of the rounds):")
    md.append("")
    md.append("| streams published | CPU ns per MBO message | ratio to MBO only | each round's ratio | "
              "wall-clock ns per MBO message | wall-clock ratio |")
    md.append("|---|---:|---:|---|---:|---:|")
    for v, f in summary["fanout"].items():
        md.append(f"| {FANOUT_LABEL.get(v, v)} | {f['cpu_ns_per_message']:,.0f} | {_ratio(f['cpu_ratio_to_mbo'])} | "
                  f"{_rounds_list(f['cpu_ratio_to_mbo_rounds'])} | {f['wall_ns_per_message']:,.0f} | "
                  f"{_ratio(f['wall_ratio_to_mbo'])} |")
    md.append("")
    md.append("**What a subscriber of one stream receives per session** (`DerivedStreamBytes`: what the stream's "
              "subscriptions read over all 4 partitions; packet bytes are what the SDK's callback gets, for a derived "
              "stream equal to the fanout's `DerivedCounters.bytes()`; the Aeron log adds Aeron's frame headers):")
    md.append("")
    md.append("| stream | messages | packets | packet bytes | ratio to MBO | Aeron log bytes | ratio to MBO |")
    md.append("|---|---:|---:|---:|---:|---:|---:|")
    for s, e in summary["subscriber"].items():
        md.append(f"| {s} | {e['messages']:,} | {e['packets']:,} | {e['packet_bytes']:,} | "
                  f"{e['packet_bytes_ratio_to_mbo']:.3f} | {e['aeron_log_bytes']:,} | "
                  f"{e['aeron_log_bytes_ratio_to_mbo']:.3f} |")
    md.append("")
    md.append("**A subscriber's CPU per session** (`DerivedSubscriberBenchmark`: the SDK's `PacketStreamDecoder` over "
              "the fanout's own packets of the stream, one thread; MBO into `OrderBooks`, a derived stream into a "
              f"listener that keeps what each message says per instrument; {rounds}):")
    md.append("")
    md.append("| stream | CPU µs per session | ratio to MBO | each round's ratio | CPU ns per message of the stream | "
              "wall-clock µs per session | wall-clock ratio |")
    md.append("|---|---:|---:|---|---:|---:|---:|")
    for s, e in summary["subscriber"].items():
        if "cpu_us_per_session" not in e:
            continue
        md.append(f"| {s} | {e['cpu_us_per_session']:,.0f} | {_ratio(e['cpu_ratio_to_mbo'])} | "
                  f"{_rounds_list(e['cpu_ratio_to_mbo_rounds'])} | "
                  f"{e['cpu_us_per_session'] * 1000 / e['messages']:,.0f} | {e['wall_us_per_session']:,.0f} | "
                  f"{_ratio(e['wall_ratio_to_mbo'])} |")
    return md


def section(results):
    """make bench's report section, when the run has a derived/ directory."""
    directory = os.path.join(results, "derived")
    if not os.path.exists(os.path.join(directory, "bytes.json")):
        return []
    md = ["## Derived streams: cost and benefit", ""]
    md.append("`bench/scripts/derived-ab.sh` (make bench's `derived` phase, `make bench-derived`): what the derived "
              "streams cost the fanout per message and what a subscriber of one saves against a full MBO subscriber, "
              "as ratios measured in the same run. What the figures mean: "
              "[bench/derived-streams.md](bench/derived-streams.md).")
    md.append("")
    md.extend(table_lines(summarize(directory)))
    md.append("")
    return md


def write_report(path, summary, command):
    block = [BEGIN, f"`{command}`:" if command else "", ""] + table_lines(summary) + [END]
    text = open(path).read() if os.path.exists(path) else ""
    block_text = "\n".join(block)
    if BEGIN in text and END in text:
        text = text[:text.index(BEGIN)] + block_text + text[text.index(END) + len(END):]
    else:
        text += ("\n" if text else "") + block_text + "\n"
    with open(path, "w") as f:
        f.write(text)


def main():
    if len(sys.argv) < 2 or len(sys.argv) > 4:
        sys.exit("usage: report_derived.py DIR [REPORT_MD [COMMAND]]")
    directory = sys.argv[1]
    summary = summarize(directory)
    with open(os.path.join(directory, "summary.json"), "w") as f:
        json.dump(summary, f, indent=1)
    print("\n".join(table_lines(summary)))
    if len(sys.argv) > 2:
        write_report(sys.argv[2], summary, sys.argv[3] if len(sys.argv) > 3 else "")
        print(f"derived-ab: the tables are in {sys.argv[2]}", file=sys.stderr)


if __name__ == "__main__":
    main()
