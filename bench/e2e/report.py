#!/usr/bin/env python3
"""Turns one bench/e2e/run.sh results directory into docs/BENCHMARKS.md and SVG plots under docs/bench/.

Every figure in the document comes from the results directory: nothing is typed by hand. The plots are plain
SVG drawn here (no matplotlib needed).

usage: bench/e2e/report.py RESULTS_DIR [--steady STEADY_RESULTS_DIR] [--compare OTHER_RESULTS_DIR ...]
                           [--pinned BUNDLE_RESULTS] [--doc docs/BENCHMARKS.md] [--images docs/bench]
       bench/e2e/report.py --pinned BUNDLE_RESULTS    (only the "Dedicated, pinned cores" section of --doc, replaced)
(the steady-state section comes from RESULTS_DIR/steady/steady.json, or from --steady's run of bench/e2e/steady.sh;
each --compare run, made with another IDLE_STRATEGY, goes into the section on idle strategies; the "Dedicated, pinned
cores" section comes from a bench bundle run, --pinned's or the newest under bench/pinned-results/, through
bench/e2e/report_pinned.py)
"""
import argparse
import glob
import html
import json
import math
import os
import re
import sys

PERCENTILES = [("p50", "p50_us"), ("p90", "p90_us"), ("p99", "p99_us"), ("p99.9", "p99_9_us"),
               ("p99.99", "p99_99_us"), ("max", "max_us")]
COLOURS = ["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf"]


def load_json(path):
    with open(path) as f:
        return json.load(f)


def load_all(pattern):
    return [load_json(p) for p in sorted(glob.glob(pattern))]


def us(value):
    if value is None:
        return "n/a"
    if value >= 1000:
        return f"{value:,.0f}"
    return f"{value:.1f}"


def ratio(a, b):
    if a is None or b is None or b == 0:
        return "n/a"
    return f"{a / b:.2f}x"


def rate(value):
    return "n/a" if value is None else f"{value:,.0f}"


def read_hgrm(path):
    """(percentile 0..1, value us) points of an HdrHistogram percentile distribution."""
    points = []
    if not os.path.exists(path):
        return points
    with open(path) as f:
        for line in f:
            parts = line.split()
            if len(parts) == 4 and re.match(r"^[0-9.]+$", parts[0]) and re.match(r"^[0-9.]+$", parts[1]):
                points.append((float(parts[1]), float(parts[0])))
    return points


class Svg:
    """A minimal line/bar chart in SVG."""

    def __init__(self, title, xlabel, ylabel, width=760, height=420):
        self.title, self.xlabel, self.ylabel = title, xlabel, ylabel
        self.w, self.h = width, height
        self.left, self.right, self.top, self.bottom = 80, 200, 40, 60
        self.items = []

    def plot_w(self):
        return self.w - self.left - self.right

    def plot_h(self):
        return self.h - self.top - self.bottom

    def frame(self, xticks, yticks):
        out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{self.w}" height="{self.h}" '
               f'font-family="sans-serif" font-size="12">',
               f'<rect width="{self.w}" height="{self.h}" fill="white"/>',
               f'<text x="{self.w / 2}" y="22" text-anchor="middle" font-size="15">{html.escape(self.title)}</text>',
               f'<rect x="{self.left}" y="{self.top}" width="{self.plot_w()}" height="{self.plot_h()}" '
               f'fill="none" stroke="#444"/>']
        for x, label in xticks:
            out.append(f'<line x1="{x}" y1="{self.top}" x2="{x}" y2="{self.top + self.plot_h()}" stroke="#ddd"/>')
            out.append(f'<text x="{x}" y="{self.top + self.plot_h() + 16}" text-anchor="middle">'
                       f'{html.escape(label)}</text>')
        for y, label in yticks:
            out.append(f'<line x1="{self.left}" y1="{y}" x2="{self.left + self.plot_w()}" y2="{y}" stroke="#ddd"/>')
            out.append(f'<text x="{self.left - 6}" y="{y + 4}" text-anchor="end">{html.escape(label)}</text>')
        out.append(f'<text x="{self.left + self.plot_w() / 2}" y="{self.h - 18}" text-anchor="middle">'
                   f'{html.escape(self.xlabel)}</text>')
        out.append(f'<text transform="translate(18,{self.top + self.plot_h() / 2}) rotate(-90)" '
                   f'text-anchor="middle">{html.escape(self.ylabel)}</text>')
        return out

    def legend(self, names):
        out = []
        for i, name in enumerate(names):
            y = self.top + 10 + i * 18
            x = self.left + self.plot_w() + 12
            out.append(f'<rect x="{x}" y="{y - 9}" width="14" height="10" fill="{COLOURS[i % len(COLOURS)]}"/>')
            out.append(f'<text x="{x + 20}" y="{y}">{html.escape(name)}</text>')
        return out


def log_ticks(lo, hi):
    ticks = []
    exponent = math.floor(math.log10(lo))
    while 10 ** exponent <= hi * 1.0001:
        for m in (1, 2, 5):
            v = m * 10 ** exponent
            if lo <= v <= hi:
                ticks.append(v)
        exponent += 1
    return ticks


def latency_plot(series, path):
    """series: [(name, [(percentile, us)])]; x = percentile on the 1/(1-p) log scale, y = log latency."""
    series = [(n, [(p, v) for p, v in pts if p < 1.0]) for n, pts in series]
    series = [(n, pts) for n, pts in series if pts]
    if not series:
        return False
    svg = Svg("Latency by percentile (scheduled send -> callback)", "percentile", "latency (us, log)")
    max_x = max(math.log10(1 / (1 - p)) for _, pts in series for p, _ in pts)
    max_x = max(2.0, min(6.0, math.ceil(max_x)))
    ys = [max(v, 0.1) for _, pts in series for _, v in pts]
    y_lo, y_hi = 10 ** math.floor(math.log10(min(ys))), 10 ** math.ceil(math.log10(max(ys)))

    def sx(p):
        return svg.left + svg.plot_w() * min(math.log10(1 / (1 - p)), max_x) / max_x

    def sy(v):
        return svg.top + svg.plot_h() * (1 - (math.log10(max(v, 0.1)) - math.log10(y_lo)) /
                                         (math.log10(y_hi) - math.log10(y_lo)))

    names = {0: "0%", 1: "90%", 2: "99%", 3: "99.9%", 4: "99.99%", 5: "99.999%", 6: "99.9999%"}
    xticks = [(sx(1 - 10 ** -k), names[k]) for k in range(0, int(max_x) + 1)]
    yticks = [(sy(v), f"{v:g}") for v in log_ticks(y_lo, y_hi)]
    out = svg.frame(xticks, yticks)
    for i, (name, pts) in enumerate(series):
        coords = " ".join(f"{sx(p):.1f},{sy(v):.1f}" for p, v in pts)
        out.append(f'<polyline fill="none" stroke="{COLOURS[i % len(COLOURS)]}" stroke-width="2" points="{coords}"/>')
    out += svg.legend([n for n, _ in series])
    out.append("</svg>")
    with open(path, "w") as f:
        f.write("\n".join(out) + "\n")
    return True


def bar_plot(title, ylabel, groups, path, log=False):
    """groups: [(group label, [(series name, value)])]."""
    values = [v for _, bars in groups for _, v in bars if v]
    if not values:
        return False
    svg = Svg(title, "", ylabel)
    top = max(values) * 1.1
    lo = 10 ** math.floor(math.log10(min(values))) if log else 0

    def sy(v):
        if log:
            return svg.top + svg.plot_h() * (1 - (math.log10(max(v, lo)) - math.log10(lo)) /
                                             (math.log10(top) - math.log10(lo)))
        return svg.top + svg.plot_h() * (1 - v / top)

    names = []
    for _, bars in groups:
        for n, _ in bars:
            if n not in names:
                names.append(n)
    group_w = svg.plot_w() / len(groups)
    bar_w = group_w * 0.7 / len(names)
    xticks = [(svg.left + group_w * (i + 0.5), g) for i, (g, _) in enumerate(groups)]
    ticks = log_ticks(lo, top) if log else [top / 1.1 * k / 5 for k in range(0, 6)]
    yticks = [(sy(v), f"{v:,.0f}" if v >= 10 else f"{v:g}") for v in ticks]
    out = svg.frame(xticks, yticks)
    for gi, (_, bars) in enumerate(groups):
        for n, v in bars:
            if not v:
                continue
            si = names.index(n)
            x = svg.left + group_w * gi + group_w * 0.15 + bar_w * si
            y = sy(v)
            out.append(f'<rect x="{x:.1f}" y="{y:.1f}" width="{bar_w:.1f}" '
                       f'height="{svg.top + svg.plot_h() - y:.1f}" fill="{COLOURS[si % len(COLOURS)]}"/>')
            label = f"{v:,.0f}" if v >= 10 else f"{v:.1f}"
            out.append(f'<text x="{x + bar_w / 2:.1f}" y="{y - 4:.1f}" text-anchor="middle" font-size="10">'
                       f'{label}</text>')
    out += svg.legend(names)
    out.append("</svg>")
    with open(path, "w") as f:
        f.write("\n".join(out) + "\n")
    return True


def commands_of(results, name):
    path = os.path.join(results, "logs", name, "commands.txt")
    if not os.path.exists(path):
        return []
    with open(path) as f:
        return [line.strip() for line in f if line.strip()]


def latency_pairs(results, rate, main="latency", repeats="latency-repeats"):
    """Every chain/raw latency pair measured at a rate in one view: the main one (in MAIN), then the repeats (in
    REPEATS, numbered from 1). The default view from the feed handler's receive; main="latency-outside",
    repeats="latency-outside-repeats" for the outside view. [(label, chain json, raw json)]."""
    def load(path):
        return load_json(path) if os.path.exists(path) else None

    pairs = []
    main_chain = load(os.path.join(results, main, f"chain-{rate}-sub1.json"))
    main_raw = load(os.path.join(results, main, f"raw-aeron-{rate}-sub1.json"))
    if main_chain and main_raw:
        pairs.append(("1", main_chain, main_raw))
    i = 1
    while True:
        c = load(os.path.join(results, repeats, f"chain-{rate}-{i}-sub1.json"))
        r = load(os.path.join(results, repeats, f"raw-aeron-{rate}-{i}-sub1.json"))
        if not (c and r):
            break
        pairs.append((str(i + 1), c, r))
        i += 1
    return pairs


def pairs_table(pairs, percentiles):
    """A table of chain / raw Aeron pairs at the given [(name, key)] percentiles, each pair's ratios, and the median
    ratio over the pairs (the figure a verdict takes)."""
    md = ["| pair | " + " | ".join(f"chain {n}" for n, _ in percentiles) + " | " +
          " | ".join(f"raw Aeron {n}" for n, _ in percentiles) + " | " +
          " | ".join(f"chain / raw at {n}" for n, _ in percentiles) + " |",
          "|---|" + "---:|" * (3 * len(percentiles))]
    for label, c, r in pairs:
        md.append(f"| {label} | " + " | ".join(us(c.get(k)) for _, k in percentiles) + " | " +
                  " | ".join(us(r.get(k)) for _, k in percentiles) + " | " +
                  " | ".join(ratio(c.get(k), r.get(k)) for _, k in percentiles) + " |")
    medians = []
    for _, k in percentiles:
        ratios = [c[k] / r[k] for _, c, r in pairs if c.get(k) and r.get(k)]
        medians.append(f"**{median(ratios):.2f}x**" if ratios else "n/a")
    md.append("| " + " | ".join(["**median**"] + [""] * (2 * len(percentiles)) + medians) + " |")
    md.append("")
    return md


def idle_strategy_of(settings):
    """The --idle-strategy every process of a run was given (run.sh's IDLE_STRATEGY), or the roles' default."""
    found = re.search(r"--idle-strategy (\S+)", settings.get("extra_opts", ""))
    return found.group(1) if found else "backoff"


def raw_top_note(raw_max):
    """Whether raw Aeron's figure is its publisher's limit or the top of the range it was asked (a cap)."""
    best, asked = raw_max.get("max_rate") or 0, raw_max.get("max_offered") or 0
    if raw_max.get("lowest_failed") or not asked:
        return ""
    if best >= 0.95 * asked:
        return (f" (raw Aeron sent {best / asked:.0%} of its top, {rate(asked)} msg/s: its limit may be higher, and "
                "this ratio too high; raise RAW_SEARCH_HI)")
    return f" (raw Aeron's publisher flat out: asked {rate(asked)} msg/s, it sent {rate(best)})"


def pub_layout_sentence(run):
    """Which CPUs the publisher runs' processes had: the replay went with the fanout from 2026-11-22 on."""
    fanout_cpu, others_cpu = run.get("fanout_cpu") or "any", run.get("others_cpu") or "any"
    if "replay_cpu" in run and run["replay_cpu"] == run.get("fanout_cpu"):
        return (f"The publishing side (the fanout, its publisher thread and embedded media driver, and the replay "
                f"that feeds it) runs on CPU `{fanout_cpu}` and the subscribing side (every subscriber and their "
                f"shared driver) on `{others_cpu}`, as a publishing host and a subscribing host would: "
                "the subscribers compete with each other, not with the publisher or its source. (With the replay on "
                "the subscribers' CPU, `PUB_REPLAY_CPU=subscribers`, eight subscribers starved it: its rings were "
                "full in few of the measured seconds, so the figure was the replay's share of that CPU, not the "
                "fanout's rate.) ")
    return (f"The fanout (publisher thread and embedded media driver) runs on CPU `{fanout_cpu}` and the replay and "
            f"every subscriber and their driver on `{others_cpu}` (taskset): the subscribers compete with each "
            "other and the replay, not with the publisher. ")


def seconds_ring_full(run):
    """'k of n' measured seconds in which the replay waited on a full ring, or n/a for older runs."""
    if run.get("replay_seconds_measured") is None:
        return "n/a"
    return f"{run.get('replay_seconds_ring_full')} of {run['replay_seconds_measured']}"


def driver_nice_sentence(settings):
    """How the subscribers' shared media-driver was prioritized (run.sh's DRIVER_NICE), as a sentence."""
    found = re.search(r"DRIVER_NICE=(\S*)", settings.get("extra_opts", ""))
    if not found:
        return ""
    if not found.group(1):
        return "The shared driver runs at the default priority (DRIVER_NICE empty). "
    return (f"The shared driver runs at nice {found.group(1)} (DRIVER_NICE), as a deployment gives it a core of its "
            "own: at the default priority, behind eight subscriber JVMs on one CPU, it overflowed its socket buffer "
            "and spent half its CPU rescanning the gaps (docs/OPERATIONS.md). ")


def record_out_option(settings):
    """The `--out` the run's `record` subscribers had (RECORD_OUT; runs before it had none wrote to /dev/null)."""
    out = settings.get("record_out", "/dev/null")
    return "" if out == "none" else f" --out {out}"


def record_out_clause(settings):
    """What the `record` subscribers did with each message."""
    if settings.get("record_out", "/dev/null") == "none":
        return (" (no `--out`: each receives, checks for gaps, decodes and dispatches every message, and writes "
                "none: copying them into a file buffer, as the runs before 2026-11-22 did to /dev/null, was 29% of "
                "a subscriber's work with 8 of them, and raw Aeron's subscriber does no such thing)")
    return ""


def sim_source_sentence(settings):
    """How the throughput steps' simulator got its messages (SIM_SOURCE; runs before it had none: generated)."""
    if settings.get("sim_source") == "file":
        return (" In each chain step the simulator sends a session written just before the step "
                "(`simulator --no-send --itch-file`, then `--from-itch-file` from /dev/shm): the very messages it "
                "would generate, without the ~100 ns per message of generating them on the cores being measured. "
                "Latency and fan-out runs generate while sending."
                + (" It packs the whole session into full MoldUDP64 packets before sending the first (`--pre-encode`) "
                   "and then sends whole packets at the rate asked: nothing is encoded, packed or stamped per message "
                   "on the send path, so the sender outruns the chain (its ceiling is below the throughput table)."
                   if settings.get("sim_pre_encode") == "1" else ""))
    return " In each chain step the simulator generates the session while it sends it."


def uncapped_sentence(results):
    """Whether the outside view's pacers ran without a credit cap (issue 38): read from the run's own commands."""
    try:
        uncapped = "--max-lag-ms 0" in open(os.path.join(results, "commands.txt"), errors="replace").read()
    except OSError:
        uncapped = False
    if not uncapped:
        return ("Both pacers cap their credit at 10 ms: a stall's cost beyond that is forgotten (runs before issue "
                "38). ")
    return ("Both pacers run without a credit cap (`--max-lag-ms 0`): a sender that stalled sends every message it "
            "owes afterwards, each stamped when it was due, so no stall's cost is forgotten; a system that falls "
            "behind its rate shows the whole backlog in its percentiles. ")


def host_jitter(results):
    """run.sh's host qualification (`host-jitter`), or None for runs before it."""
    path = os.path.join(results, "host-jitter.json")
    return json.load(open(path)) if os.path.exists(path) else None


def host_share_over(jitter, latency_us):
    """The worst thread's share of the time in gaps of at least half latency_us (the largest measured threshold not
    above it): a message that arrives in such a gap waits about that long or more. (threshold_us, share)."""
    shares = jitter["worst"]["time_share_over_us"]
    fits = [int(t) for t in shares if int(t) <= latency_us / 2]
    if not fits:
        return None, None
    t = max(fits)
    return t, shares[str(t)]


def host_qualifies(results, latency_us, tail):
    """Whether a latency percentile (tail: 0.01 for p99) at latency_us is the system's rather than the host's: the
    host's gaps of at least half that latency take under a tenth of the tail's share of the time. (True/False/None
    without a measurement, a clause saying why.)"""
    jitter = host_jitter(results)
    if not jitter or not latency_us:
        return None, ""
    t, share = host_share_over(jitter, latency_us)
    if t is None:
        return None, ""
    ok = share < tail / 10
    return ok, (f"; the host {'qualifies' if ok else 'does not qualify'} at this tail: its gaps of {t} µs or more "
                f"take {share:.3%} of a spinning thread's time, {'under' if ok else 'not under'} a tenth of the "
                f"{tail:.0%} tail" + ("" if ok else ", so both tails are largely the host's and their ratio says "
                                      "little"))


def precision_of(settings):
    """How close the throughput search brings its bounds (run.sh SEARCH_PRECISION; 1.15 before it was a setting)."""
    return f"{(float(settings.get('search_precision', 1.15)) - 1):.0%}"


def raw_relayed(settings):
    """True when raw Aeron's latency runs had the chain's hops (run.sh RAW_FROM=relay, issue 38)."""
    return settings.get("raw_from", "pub") == "relay"


def raw_latency_sentence(settings):
    """Where raw Aeron's latency clock starts, for the pages' descriptions."""
    if raw_relayed(settings):
        return ("Raw Aeron's runs over the same hops: the simulator's datagrams into `raw-aeron-relay`, which offers "
                "each datagram's messages on plain Aeron as it receives them, from the datagram's receive "
                "(`raw-aeron-relay --stamp-receive-time`) to the subscriber's callback: both clocks start at the "
                "same point, and what differs is the chain's own work (decode, normalization, ring, fanout, SBE).")
    return ("Raw Aeron's runs from the publisher's offer (`raw-aeron-pub --stamp-send-time`) to the subscriber's "
            "callback.")


def host_lines(results):
    """The Machine section's paragraph on the host's jitter."""
    jitter = host_jitter(results)
    if not jitter:
        return []
    w = jitter["worst"]["time_share_over_us"]
    return [f"**Host jitter** (`mdfanout host-jitter --seconds {jitter['seconds']}`, before the run: a thread per "
            f"CPU, {jitter['threads']} on CPUs {jitter['cpus']}, spins reading the clock and records every gap over "
            f"1 µs): largest gap {jitter['worst']['max_gap_us']:,.1f} µs; the worst thread spent {w['10']:.3%} of "
            f"its time in gaps of 10 µs or more, {w['100']:.3%} in gaps of 100 µs or more and {w['1000']:.3%} in "
            f"gaps of 1 ms or more; steal {jitter['steal_share']:.3%}. A message that arrives in such a gap waits for "
            "its end whatever the system, so a latency tail whose share of messages is not well above the share of "
            "time in gaps that long is the host's (the ratios below say where).", ""]


def sender_ceiling_note(results, chain_max):
    """A clause for a throughput ratio: how far the chain's sender alone outran the chain's figure."""
    path = os.path.join(results, "throughput", "sender-ceiling.json")
    if not os.path.exists(path) or not chain_max:
        return ""
    pre = json.load(open(path)).get("pre_encoded") or 0
    if not pre:
        return ""
    return (f"; the chain's sender alone {rate(pre)} msg/s, {pre / chain_max:.1f}x the chain's figure" +
            ("" if pre >= 2 * chain_max else ": under 2x, the figure may be the sender's limit"))


def lever_lines(maxima, chain_max):
    """The levers in the chain (run.sh's LEVERS, issue 38 item 7): each one's search against the chain's, same run."""
    levers = sorted((m for k, m in maxima.items() if k.startswith("chain-")), key=lambda m: m["system"])
    if not levers:
        return []
    lines = ["**Levers in the chain**, each the same search with one change (`LEVERS`), in this run, against the "
             "chain as configured; a lever is kept only where it wins by more than the noise between trials:", "",
             "| lever | change | highest clean rate (msg/s) | lowest lossy rate asked (msg/s) | ratio to the chain |",
             "|---|---|---:|---:|---:|"]
    for m in levers:
        lines.append(f"| {m.get('lever', m['system'])} | `{m.get('variable', '')} {'=' if m.get('variable') == 'PARTITIONS' else '+='} {m.get('options', '')}` | "
                     f"{rate(m['max_rate']) if m['max_rate'] else 'below the search range'} | "
                     f"{rate(m['lowest_failed']) if m.get('lowest_failed') else 'none'} | "
                     f"{ratio(m['max_rate'], chain_max) if chain_max else 'n/a'} |")
    lines.append("")
    return lines


def sender_ceiling_lines(results, chain_max):
    """The chain's sender alone, flat out (run.sh's sender_ceiling, issue 38): whether the search could find the
    chain's limit rather than its sender's."""
    path = os.path.join(results, "throughput", "sender-ceiling.json")
    if not os.path.exists(path):
        return []
    c = json.load(open(path))
    pre, per = c.get("pre_encoded") or 0, c.get("per_message") or 0
    lines = [f"**The sender's own ceiling.** The chain's simulator alone, flat out, pinned where it runs in the steps, "
             f"into a socket joined to the group that reads nothing ({c.get('messages', 0):,} messages of the step's "
             f"session): pre-encoded (`--pre-encode`, the throughput steps' sender: the session packed into full "
             f"MoldUDP64 packets before the first is sent) {rate(pre)} msg/s; packing and stamping each message as "
             f"it is due (`--latency-timestamps`, the latency runs' sender) {rate(per)} msg/s"
             + (f" (pre-encoded: {ratio(pre, per)} that)" if per else "") + "."
             + (f" The chain's search asked at most {rate(c['search_hi'])} msg/s." if c.get("search_hi") else "")]
    if chain_max and pre:
        factor = pre / chain_max
        lines[0] += (f" That is {factor:.1f}x the chain's highest clean rate: "
                     + ("at least 2x, so the limit found is the chain's, not its sender's."
                        if factor >= 2 else "under 2x, so the figure may be the sender's limit as much as the chain's."))
    lines.append("")
    return lines


# A throughput search's system (its <system>.max.json) and the system its trials' run files name.
RUN_SYSTEM = {"chain": "chain", "raw": "raw-aeron", "raw-batched": "raw-aeron-batched"}

CPU_ORDER = ("simulator", "feed-handler", "fanout", "publisher", "subscriber")


def cpu_table(steps, maxima):
    """Each process's CPU over the sender's measured seconds, in the clean trials of each system's highest passing
    rate (run.sh's add_cpu, from 2026-11-22's afternoon): how the two systems spend the machine's cores at their limits."""
    rows = []
    for system, run_system in RUN_SYSTEM.items():
        m = maxima.get(system)
        if not m or not m.get("max_offered"):
            continue
        trials = [st for st in steps if st["system"] == run_system and st["rate"] == m["max_offered"]
                  and st.get("cpu", {}).get("cores")]
        if system == "chain":
            trials = [st for st in trials if not st.get("feed_gaps_declared") and st["subscriber_gaps"] == 0]
        if not trials:
            continue
        names = [n for n in CPU_ORDER if all(n in st["cpu"]["cores"] for st in trials)]
        cores = {n: median([st["cpu"]["cores"][n] for st in trials]) for n in names}
        ns = {n: median([st["cpu"]["ns_per_message"][n] for st in trials]) for n in names}
        # Each process's busiest thread in its first clean trial (cpu_sample.py reads threads every 0.5 s).
        busiest = trials[0]["cpu"].get("busiest_thread") or {}
        rows.append((system, run_system, m["max_offered"], len(trials), names, cores, ns, busiest))
    if not rows:
        return []
    md = ["Where the CPU goes at each system's highest passing rate: each process's CPU time (all its threads, "
          "`/proc/<pid>/stat`, sampled every 0.1 s by `bench/e2e/cpu_sample.py`) over the seconds in which the "
          "sender sent its measured messages, as cores busy (the machine has 2) and as nanoseconds of CPU per "
          "message; the median of the rate's clean trials. The fanout and the subscriber include their embedded "
          "media drivers, raw Aeron's publisher and subscriber theirs. Backing-off threads count the time they "
          "spin or yield while waiting, so a figure is a share of the machine taken, not only work done. The "
          "simulator stands for the exchange, which a deployment does not run on its own cores: here it takes "
          "its share of the same two.", "",
          "| system | rate asked (msg/s) | clean trials | process | cores busy | CPU ns per message | busiest thread (cores busy) |",
          "|---|---:|---:|---|---:|---:|---|"]
    for system, run_system, asked, count, names, cores, ns, busiest in rows:
        for n in names:
            b = busiest.get(n)
            thread = f"`{b['thread']}` ({b['cores']:.2f})" if b else "n/a"
            md.append(f"| {run_system} | {rate(asked)} | {count} | {n} | {cores[n]:.2f} | {ns[n]:.0f} | {thread} |")
        if "simulator" in names and len(names) > 1:
            own = [n for n in names if n != "simulator"]
            md.append(f"| {run_system} | {rate(asked)} | {count} | all but the simulator | "
                      f"{sum(cores[n] for n in own):.2f} | {sum(ns[n] for n in own):.0f} | |")
        md.append(f"| {run_system} | {rate(asked)} | {count} | **all** | **{sum(cores.values()):.2f}** | "
                  f"**{sum(ns.values()):.0f}** | |")
    md.append("")
    return md


def pub_round(run):
    """A publisher run's pair: run.sh names the repeated runs pub-<n>-r2, -r3...; the first has no suffix."""
    m = re.search(r"-r(\d+)$", run.get("name", ""))
    return int(m.group(1)) if m else 1


def pub_pairs(runs, drivers="shared"):
    """The (1 subscriber, 8 subscribers) publisher runs of each round that has both with a rate, in round order; with
    drivers="own", the N are those with a media driver each (pub-own-N, issue 38) against the same round's pub-own-1,
    one subscriber set up the same way (runs before it had none: against the round's run with 1 on the shared
    driver)."""
    by = {(pub_round(r), r["subscribers"]): r for r in runs if r.get("drivers", "shared") == "shared"}
    own = {(pub_round(r), r["subscribers"]): r for r in runs if r.get("drivers") == "own"}
    pairs = []
    for rnd in sorted({k[0] for k in by} | {k[0] for k in own}):
        if drivers == "own":
            many = max((n for r, n in own if r == rnd and n > 1), default=None)
            a, b = own.get((rnd, 1)) or by.get((rnd, 1)), own.get((rnd, many))
        else:
            a, b = by.get((rnd, 1)), by.get((rnd, 8))
        if a and b and a.get("median_rate") and b.get("median_rate"):
            pairs.append((a, b))
    return pairs


def trial_of(run):
    """A throughput run's trial number at its rate: run.sh names the second and third <name>-t2 and -t3."""
    m = re.search(r"-t(\d+)$", run["name"])
    return int(m.group(1)) if m else 1


def trials_sentence(settings):
    """How a rate of the chain passes (run.sh's TRIALS; runs before 2026-11-22's afternoon had one trial per rate)."""
    trials = int(settings.get("trials") or 1)
    if trials == 1:
        return "; the figure is the rate the simulator achieved in the best clean step"
    return (f"; each rate is tried up to {trials} times and passes when most of its trials are clean ("
            f"{trials // 2 + 1} of {trials}: a further trial only runs while neither side has a majority), as RFC 9971 "
            "(MLRsearch) repeats trials at a load on a noisy system, and a lossy top decides alone; the figure is the "
            "mean rate the simulator achieved in the clean trials of the highest passing rate")


def step_warmup_sentence(settings):
    """The warm-up before each throughput step (run.sh's STEP_WARMUP_S and STEP_WARMUP_RATE), as a sentence."""
    seconds = settings.get("step_warmup_s")
    if not seconds:
        return ""
    return (f" Each step, for both, first sends {seconds} s worth of messages at "
            f"{int(settings.get('step_warmup_rate') or 0):,} msg/s (the step's rate when lower), and its rate is "
            "taken over the messages after them: every JVM compiles its hot paths on its first messages, and in a "
            "4 s step without a warm-up the JIT compilers took about a quarter of the chain's CPU (async-profiler). "
            "No message of the warm-up may be lost either.")


def idle_section(runs):
    """Markdown comparing latency runs made with different idle strategies: [(results dir, settings)]."""
    md = ["## Idle strategies on shared cores", "",
          "Every process of both systems (simulator, feed handler, fanout and its driver, subscriber and its "
          "driver; the raw pair) runs with one `--idle-strategy` per run (`IDLE_STRATEGY=<name> bench/e2e/run.sh`). "
          "`backoff` spins 10 times, yields 20 times, then parks from 1 µs doubling up to 100 µs; `park` is the "
          "same without the yields. On Linux 6.6 and later (the EEVDF scheduler) each `Thread.yield()` moves the "
          "yielding thread's deadline a whole scheduler slice later, so a thread that yields while it waits for "
          "work falls behind the busy threads sharing its cores: at 1,000,000 msg/s the fanout, whose rings empty "
          "for a moment between datagrams, waits milliseconds behind the simulator and the feed handler. `park` "
          "avoids that, and pays a wake-up from a park (tens of µs) at each idle hop instead. Microseconds, one "
          "subscriber; the repeated rate's ratios are medians over its pairs.", "",
          "| run | idle strategy | rate (msg/s) | chain p50 | chain p99 | chain p99.9 | raw Aeron p50 | raw Aeron p99 | "
          "raw Aeron p99.9 | chain / raw at p50 | chain / raw at p99 |",
          "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for results, settings in runs:
        rates = sorted({r["rate"] for r in load_all(os.path.join(results, "latency", "*.run.json"))})
        for r in rates:
            pairs = latency_pairs(results, r)
            if not pairs:
                continue
            _, c, w = pairs[0]
            p50 = median([a["p50_us"] / b["p50_us"] for _, a, b in pairs])
            p99 = median([a["p99_us"] / b["p99_us"] for _, a, b in pairs])
            note = f" ({len(pairs)} pairs)" if len(pairs) > 1 else ""
            md.append(f"| `{os.path.basename(results)}` | {idle_strategy_of(settings)} | {r:,} | {us(c['p50_us'])} | "
                      f"{us(c['p99_us'])} | {us(c['p99_9_us'])} | {us(w['p50_us'])} | {us(w['p99_us'])} | "
                      f"{us(w['p99_9_us'])} | {p50:.2f}x{note} | {p99:.2f}x{note} |")
    md.append("")
    per_run = [(results, settings, {t: (m, v) for t, m, v in target_rows(results, None)}) for results, settings in runs]
    targets = list(per_run[0][2])
    if targets:
        md.append("The figures the end-to-end targets are about, as ratios, in each of these runs (each a whole "
                  "`make bench` where it has every section):")
        md.append("")
        md.append("| figure | " + " | ".join(f"{idle_strategy_of(st)} (`{os.path.basename(r)}`)" for r, st, _ in per_run)
                  + " |")
        md.append("|---|" + "---|" * len(per_run))
        for t in targets:
            md.append(f"| {t} | " + " | ".join(
                rows[t][0].replace('; see *Latency, repeated*', '') + (f": {rows[t][1]}" if rows[t][1] else "")
                if t in rows else "not run"
                for _, _, rows in per_run) + " |")
        md.append("")
    return md


def median(values):
    values = sorted(values)
    n = len(values)
    return None if n == 0 else (values[n // 2] if n % 2 else (values[n // 2 - 1] + values[n // 2]) / 2)


def absolute_latency_rows(results):
    """Issue 38's absolute latency targets (dedicated cores): the chain's p50 at 1M msg/s from the datagram's receive
    (at most 10 µs) and its own cost, the feed handler's receive to the fanout's send, at p50 (at most 1 µs) at each
    rate measured: [(figure, measured, whether the target holds)]."""
    rows = []
    runs = []
    for path in glob.glob(os.path.join(results, "latency", "chain-*-sub1.json")):
        m = re.fullmatch(r"chain-(\d+)-sub1\.json", os.path.basename(path))
        if m:
            runs.append((int(m.group(1)), load_json(path)))
    runs.sort(key=lambda r: r[0])
    at_1m = next((d for r, d in runs if r == 1000000 and d.get("p50_us") is not None), None)
    if at_1m:
        rows.append(("p50 at 1,000,000 msg/s, the datagram's receive to the subscriber's callback (target: at most "
                     "10 µs)", f"{us(at_1m['p50_us'])} µs", at_1m["p50_us"] <= 10))
    costs = [(r, d["to_fanout_send"]["p50_us"]) for r, d in runs
             if d.get("to_fanout_send", {}).get("p50_us") is not None]
    if costs:
        rows.append(("the chain's own cost at p50, the feed handler's receive to the fanout's send (target: at most "
                     "1 µs)", ", ".join(f"{us(v)} µs at {r:,} msg/s" for r, v in costs), all(v <= 1 for _, v in costs)))
    return rows


def target_rows(results, steady_dir):
    """The end-to-end figures the targets are about, as ratios against their baselines: [(figure, measured, verdict)].
    On two shared cores the host's noise and the shared CPUs decide the tails, so there are no verdicts here (None,
    issue 38): the targets are judged on dedicated cores (report_pinned.py). The steady-state row, a correctness
    outcome, keeps its verdict; only with a steady_dir."""
    def load(*parts):
        path = os.path.join(*parts)
        return load_json(path) if os.path.exists(path) else None

    def verdict(ok):
        return "n/a" if ok is None else ("**met**" if ok else "not met")

    rows = []
    chain = load(results, "latency", "chain-100000-sub1.json")
    raw = load(results, "latency", "raw-aeron-100000-sub1.json")
    nats = load(results, "latency", "nats-100000-sub1.json")
    pairs = latency_pairs(results, 100000)
    if pairs:
        p50s = [c["p50_us"] / r["p50_us"] for _, c, r in pairs]
        rows.append(("p50 at 100,000 msg/s, chain / raw Aeron" + (" over the same hops" if raw_relayed(
                     load(results, "settings.json") or {}) else ""),
                     (f"median of {len(pairs)} pairs {median(p50s):.2f}x (each: " + ", ".join(
                         f"{x:.2f}x" for x in p50s) + ")" if len(pairs) > 1 else f"{p50s[0]:.2f}x") +
                     f"; chain p50 {', '.join(us(c['p50_us']) for _, c, _ in pairs)} µs, raw Aeron "
                     f"{', '.join(us(r['p50_us']) for _, _, r in pairs)} µs", None))
    if len(pairs) > 1:
        ratios = [c["p99_us"] / r["p99_us"] for _, c, r in pairs]
        m = median(ratios)
        rows.append(("p99 at 100,000 msg/s, chain / raw Aeron",
                     f"median of {len(pairs)} pairs {m:.2f}x (each: " + ", ".join(f"{x:.2f}x" for x in ratios) +
                     "; see *Latency, repeated*)" +
                     host_qualifies(results, median([r["p99_us"] for _, _, r in pairs]), 0.01)[1], None))
    elif chain and raw:
        r = chain["p99_us"] / raw["p99_us"]
        rows.append(("p99 at 100,000 msg/s, chain / raw Aeron",
                     f"chain {us(chain['p99_us'])} µs, raw Aeron {us(raw['p99_us'])} µs: {r:.2f}x" +
                     host_qualifies(results, raw["p99_us"], 0.01)[1], None))
    if chain and nats:
        # One NATS run against the chain's runs at the same rate: with several, their median p99 (one chain run's
        # p99 alone moves 2x from run to run here; see *Latency, repeated*).
        chain_p99s = [c["p99_us"] for _, c, _ in pairs] if len(pairs) > 1 else [chain["p99_us"]]
        chain_p50s = [c["p50_us"] for _, c, _ in pairs] if len(pairs) > 1 else [chain["p50_us"]]
        chain_p99, chain_p50 = median(chain_p99s), median(chain_p50s)
        which = f"median of {len(chain_p99s)} chain runs " if len(chain_p99s) > 1 else ""
        r = nats["p99_us"] / chain_p99
        # For scale: NATS's whole chain (simulator, feed handler, bridge, server) against raw Aeron's transport
        # alone, the path the chain's fanout → subscriber leg runs on.
        raw_p99s = [w["p99_us"] for _, _, w in pairs] if len(pairs) > 1 else ([raw["p99_us"]] if raw else [])
        ceiling = (f"; raw Aeron alone, {'median of ' + str(len(raw_p99s)) + ' runs ' if len(raw_p99s) > 1 else ''}"
                   f"{us(median(raw_p99s))} µs: NATS / raw Aeron {nats['p99_us'] / median(raw_p99s):.2f}x, the "
                   "transport alone, with nothing in front of it" if raw_p99s else "")
        rows.append(("p99 at 100,000 msg/s, NATS / chain",
                     f"NATS {us(nats['p99_us'])} µs, chain {which}{us(chain_p99)} µs: NATS / chain {r:.2f}x "
                     f"(at p50: {nats['p50_us'] / chain_p50:.2f}x){ceiling}", None))
    rows += [(t, m, None) for t, m, _ in absolute_latency_rows(results)]
    maxima = {m["system"]: m for m in load_all(os.path.join(results, "throughput", "*.max.json"))}
    if maxima.get("chain") and maxima.get("raw") and maxima["raw"].get("max_rate"):
        c, rw = maxima["chain"]["max_rate"], maxima["raw"]["max_rate"]
        top = raw_top_note(maxima["raw"])
        rows.append(("zero-loss throughput, chain / raw Aeron (one message per offer)",
                     f"chain {rate(c)} msg/s, raw Aeron {rate(rw)} msg/s: {c / rw:.0%}{top}", None))
    if maxima.get("chain") and maxima.get("raw-batched") and maxima["raw-batched"].get("max_rate"):
        c, rw = maxima["chain"]["max_rate"], maxima["raw-batched"]["max_rate"]
        rows.append(("zero-loss throughput, chain / raw Aeron batched as the chain batches (an MTU per offer)",
                     f"chain {rate(c)} msg/s, raw Aeron batched {rate(rw)} msg/s: {c / rw:.0%}"
                     f"{raw_top_note(maxima['raw-batched'])}{sender_ceiling_note(results, c)}", None))
    pairs = pub_pairs(load_all(os.path.join(results, "publisher", "*.run.json")))
    if pairs:
        r = median([b["median_rate"] / a["median_rate"] for a, b in pairs])
        if len(pairs) == 1:
            measured = f"{rate(pairs[0][1]['median_rate'])} vs {rate(pairs[0][0]['median_rate'])} msg/s: {r:.0%}"
        else:
            measured = (f"median of {len(pairs)} pairs {r:.0%} (each, 8 vs 1 subscriber: " + "; ".join(
                f"{rate(b['median_rate'])} vs {rate(a['median_rate'])}, {b['median_rate'] / a['median_rate']:.0%}"
                for a, b in pairs) + ")")
        rows.append(("publisher throughput, 8 subscribers / 1 (one shared media driver)", measured, None))
    own = pub_pairs(load_all(os.path.join(results, "publisher", "*.run.json")), "own")
    if own:
        r = median([b["median_rate"] / a["median_rate"] for a, b in own])
        rows.append((f"publisher throughput, {own[0][1]['subscribers']} subscribers on as many media drivers / 1",
                     (f"median of {len(own)} pairs " if len(own) > 1 else "") + f"{r:.0%} (each: " + "; ".join(
                         f"{rate(b['median_rate'])} vs {rate(a['median_rate'])}" for a, b in own) + ")", None))
    steady = load(steady_dir.rstrip("/"), "steady", "steady.json") if steady_dir else None
    if steady:
        ok = steady.get("passed", None)
        if ok is None:
            ok = (steady.get("subscriber_gaps") == 0 and steady.get("subscriber_missing") == 0 and
                  all(p.get("alive_at_end") and not p.get("out_of_memory") for p in steady.get("processes", [])))
        rows.append(("100,000,000 messages with the message path on Epsilon GC",
                     f"{steady.get('subscriber_messages', 0):,} messages received, gaps "
                     f"{steady.get('subscriber_gaps')}, no process out of memory", verdict(ok)))
    return rows


def targets_section(results, steady_dir, settings, compared=False):
    """Issue 6's end-to-end targets against what this run measured (the micro-benchmark targets are in
    bench/micro.md)."""
    rows = target_rows(results, steady_dir)
    if not rows:
        return []
    out = ["## Ratios against the baselines", "",
           "The figures the end-to-end targets are about, from this run, as ratios against the baseline measured in "
           "the same run (the decoder and codec figures are in [bench/micro.md](bench/micro.md)). On this machine "
           "every process of the chain, the simulator included, shares two cores with backing-off threads (idle "
           f"strategy: `{idle_strategy_of(settings)}`), and the host's jitter sets the tails of both systems: these "
           "are ratios, not verdicts. The targets are judged on dedicated cores, *Dedicated, pinned cores* below" +
           ("; *Idle strategies on shared cores* has the same figures from a run with another idle strategy."
            if compared else "."), "",
           "| figure | measured |", "|---|---|"]
    out += [f"| {t} | {m}{': ' + v if v else ''} |" for t, m, v in rows]
    out.append("")
    return out


def split_section(results, settings):
    """The chain's latency split at the fanout's send (the `latency` tool's to_fanout_send / from_fanout_send),
    beside raw Aeron's whole path: where the chain's extra time goes."""
    rows = []
    legs = []
    own = []
    for run in sorted(load_all(os.path.join(results, "latency", "chain-*.run.json")), key=lambda r: r["rate"]):
        chain = load_json(os.path.join(results, "latency", f"chain-{run['rate']}-sub1.json"))
        raw = load_json(os.path.join(results, "latency", f"raw-aeron-{run['rate']}-sub1.json"))
        if not chain or "to_fanout_send" not in chain:
            continue
        before, after = chain["to_fanout_send"], chain["from_fanout_send"]
        if raw and raw.get("p50_us"):
            legs.append(f"{after['p50_us'] / raw['p50_us']:.1f}x at {run['rate']:,} msg/s")
            own.append(f"{us(chain['p50_us'] - raw['p50_us'])} µs at {run['rate']:,} msg/s")
        rows.append(f"| {run['rate']:,} | {us(chain['p50_us'])} / {us(chain['p99_us'])} | "
                    f"{us(before['p50_us'])} / {us(before['p99_us'])} | {us(after['p50_us'])} / {us(after['p99_us'])} | "
                    + (f"{us(raw['p50_us'])} / {us(raw['p99_us'])} |" if raw else "n/a |"))
    if not rows:
        return []
    return ["## Where the chain's latency goes", "",
            "Each message of the runs above, split at the fanout's send (its packet's `sendingTime`): from the "
            "feed handler's receive to the fanout's offer (decode, normalize, the ring, the fanout's drain), and "
            "from the fanout's offer to the subscriber's callback (Aeron: the fanout's driver, loopback, the "
            "subscriber's driver and poll loop)" + (
                ". Raw Aeron's figure covers the same hops, receive to callback, with nothing between them"
                if raw_relayed(settings) else ", which is the same path raw Aeron's figure covers") +
            ". Percentiles do not add up: each column is its own distribution. Microseconds, p50 / p99.", "",
            "| msg/s | chain, whole | receive to fanout send | fanout send to callback | raw Aeron, whole |",
            "|---:|---:|---:|---:|---:|"] + rows + [""] + (
        ["The chain's Aeron leg against raw Aeron's whole path, at p50: " + ", ".join(legs) + ". The two cross the "
         "same transport with the same settings; where the chain's is slower, its threads wait for the cores: the "
         "chain keeps six busy threads on them (simulator, feed handler, the fanout's publisher and driver, the "
         "subscriber's driver and poll loop), raw Aeron four (see *Idle strategies on shared cores*).", ""] if legs else []) + (
        ["Over the same hops, the chain's whole p50 less raw Aeron's is what its own work adds, the waits of its "
         "two extra busy threads for the two cores included: " + ", ".join(own) + ". Its own cost as the issue "
         "defines it is the second column's p50 (the target on dedicated cores: at most 1 µs).", ""]
        if own and raw_relayed(settings) else [])


PINNED_RESULTS = "bench/pinned-results"


def committed_pinned_runs():
    """The bench bundle runs committed under bench/pinned-results, oldest first."""
    return sorted(os.path.dirname(p) for p in glob.glob(os.path.join(PINNED_RESULTS, "*", "bundle.json")))


def newest_complete_pinned_run():
    """The newest committed bench bundle run in which every section exited 0, or None."""
    complete = [d for d in committed_pinned_runs()
                if all(s.get("rc") == 0 for s in load_json(os.path.join(d, "bundle.json"))["sections"].values())]
    return complete[-1] if complete else None


def pinned_section(pinned, images, image_rel):
    """The "Dedicated, pinned cores" section from a bench bundle run (bench/e2e/report_pinned.py), with a table of
    every committed run's figures."""
    import report_pinned
    return report_pinned.section(report_pinned.results_dir(pinned), images, image_rel, source=pinned.rstrip("/"),
                                 others=committed_pinned_runs()) + [""]


def replace_pinned_section(doc, section):
    """Puts SECTION in place of DOC's "## Dedicated, pinned cores" (up to the next "## " heading), or before
    "## Reproducing" where it has none."""
    with open(doc) as f:
        lines = f.read().split("\n")
    start = next((i for i, line in enumerate(lines) if line == "## Dedicated, pinned cores"), None)
    if start is None:
        start = end = next((i for i, line in enumerate(lines) if line == "## Reproducing"), len(lines))
    else:
        end = next((i for i in range(start + 1, len(lines)) if lines[i].startswith("## ")), len(lines))
    lines[start:end] = section
    with open(doc, "w") as f:
        f.write("\n".join(lines))
    print(f"report: replaced the pinned section of {doc}", file=sys.stderr)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("results", nargs="?")
    parser.add_argument("--pinned", help="a bench bundle run's OUT_DIR (default: the newest under bench/pinned-results)")
    parser.add_argument("--steady", help="results directory of a bench/e2e/steady.sh run (default: RESULTS)")
    parser.add_argument("--compare", action="append", default=[],
                        help="results directory of a run with another IDLE_STRATEGY (repeatable)")
    parser.add_argument("--doc", default="docs/BENCHMARKS.md")
    parser.add_argument("--images", default="docs/bench")
    args = parser.parse_args()
    os.makedirs(args.images, exist_ok=True)
    image_rel = os.path.relpath(args.images, os.path.dirname(args.doc) or ".")
    pinned = args.pinned or newest_complete_pinned_run()
    if not args.results:
        if not args.pinned:
            parser.error("RESULTS_DIR, or --pinned alone to replace the pinned section of --doc")
        replace_pinned_section(args.doc, pinned_section(pinned, args.images, image_rel))
        return
    results = args.results.rstrip("/")

    machine = load_json(os.path.join(results, "machine.json"))
    settings = load_json(os.path.join(results, "settings.json"))
    elapsed = load_json(os.path.join(results, "elapsed.json"))["elapsed_s"] \
        if os.path.exists(os.path.join(results, "elapsed.json")) else None

    lat_runs = {r["name"]: r for r in load_all(os.path.join(results, "latency", "*.run.json"))}
    rates = sorted({r["rate"] for r in lat_runs.values()})

    def sub_json(kind, name, i=1):
        p = os.path.join(results, kind, f"{name}-sub{i}.json")
        return load_json(p) if os.path.exists(p) else None

    md = []
    md.append("# Benchmarks: end to end")
    md.append("")
    md.append("<!-- Generated by bench/e2e/report.py from bench/e2e/results/"
              f"{os.path.basename(results)}; do not edit by hand: run `make bench`. -->")
    md.append("")
    md.append(f"Generated from the run `{os.path.basename(results)}` (git {settings.get('git', '?')}"
              + (f", {elapsed} s" if elapsed is not None else "") + ") by `make bench` "
              "(`bench/e2e/run.sh`, then `bench/e2e/report.py`). Micro-benchmarks (JMH) are in "
              "[bench/micro.md](bench/micro.md); the subscriber SDKs side by side (Java, Rust and Python: "
              "throughput on the same packets, live latency on the same chain, as ratios to Java's; "
              "`make bench-sdk`, and `make bench`'s `sdk` phase) in [bench/sdk-languages.md](bench/sdk-languages.md); "
              "the derived streams' cost to the fanout and benefit to a subscriber (`make bench-derived`, and `make "
              "bench`'s `derived` phase) in [bench/derived-streams.md](bench/derived-streams.md)."
              + (" This page: `python3 bench/e2e/report.py " + " ".join(sys.argv[1:]) + "`."
                 if args.steady or args.compare else ""))
    md.append("")
    md.append("## What is measured")
    md.append("")
    md.append("- **Latency** (section *Latency*) runs, as issue 6 defines it, from the feed handler's receive of a "
              "datagram to the subscriber's callback: `feed-handler --stamp-receive-time` publishes the receive "
              "time (wall clock, ns since midnight) as each message's exchange timestamp and the `latency` tool "
              "records callback time minus it into an HdrHistogram. It covers MoldUDP64/ITCH decode, "
              "normalization, the shared-memory ring, the fanout's state, batching and Aeron publication, both "
              "media drivers, and the SDK's decode and dispatch. " + raw_latency_sentence(settings) +
              " The `latency` tool also splits each message at the fanout's "
              "offer, its packet's `sendingTime` (section *Where the chain's latency goes*).")
    md.append("- **Latency from outside** (section *Latency from outside*) runs from the moment the simulator's "
              "rate pacer *scheduled* a message (`simulator --latency-timestamps`; raw Aeron's pacer likewise): a "
              "stall anywhere delays every message scheduled during it and all are counted, which corrects for "
              "coordinated omission as wrk2 does. The chain's figure then also covers the simulator's send and "
              "the wait in the feed handler's socket" + (", raw Aeron's the same send and the wait in its relay's "
                                                         "socket." if raw_relayed(settings) else "."))
    md.append("- **Raw Aeron** is the transport's own limit on the same machine with the same settings: "
              f"`raw-aeron-pub` offers one {settings['message_length']}-byte message per offer (the size of a "
              "typical normalized message with its SBE header), paced like the simulator (the same credit "
              "cap: 10 ms, none for the outside view where the run used `--max-lag-ms 0`) and stamped with the "
              "time of the offer (with its scheduled send time for the outside view); `raw-aeron-sub` measures "
              "now minus that time; the throughput section also runs it batched as the chain batches. " +
              ("Its latency runs have the chain's hops instead (`raw-aeron-relay`): the simulator's datagrams, "
               "received from the same multicast group, each datagram's messages offered at once in one offer, "
               "nothing between the two hops; the difference between the two systems' figures is then the chain's "
               "own work. " if raw_relayed(settings) else "") +
              "Both use the tools' embedded media driver: shared threading, backoff idle strategy, 2 MiB "
              "socket buffers and receiver window, `mtu=8192` in the channel.")
    md.append("- Every figure is to be read as a ratio to raw Aeron measured in the same run: the machine is "
              "shared and noisy. "
              + (f"Each latency run first sends {settings['warmup_s']} seconds' worth of messages (at most half "
                 "the run) that are left out of the histograms: each JVM of the chain keeps compiling its hot paths "
                 "for seconds, on the same two cores, and those stalls are start-up, not steady state; raw Aeron "
                 "gets the same warm-up." if "warmup_s" in settings else
                 "The first messages of each run (10%, at most 50,000) are warm-up and are left out of the "
                 "histograms."))
    if settings.get("feed_recovery") == 1:
        md.append("- **Feed recovery** is on in every chain run, as in production: the simulator serves MoldUDP64 "
                  "re-requests and the feed handler asks for what its socket dropped (`FEED_RECOVERY=1`; 0 turns it "
                  "off). With receive-time stamps, a message fetched again counts from the receive of the "
                  "retransmission, and the messages held behind a gap count their wait.")
    md.append("- **Throughput** is the highest rate the chain carries with zero loss: the `record` subscriber "
              f"(`--no-recovery{record_out_option(settings)}`) exits 0 with gaps=0 and the feed handler saw no gap: nothing lost, re-requested or "
              "declared (a gap filled by re-request is a datagram the chain dropped at that rate, and fails the "
              "step). The top rate is asked first; "
              "when it is lossy, the rate asked of the simulator is found by bisection (until a rate passes, each step "
              "below a lossy rate asks 80% of what the sender achieved there), at most "
              f"{settings.get('search_steps', '?')} steps after the top, until the lowest lossy rate is within "
              f"{precision_of(settings)} of the highest clean one" + trials_sentence(settings) + ". For raw Aeron: every "
              "message received, at the rate its publisher achieved (Aeron's flow control slows a publisher rather "
              "than losing data, so one trial decides)." + step_warmup_sentence(settings) +
              sim_source_sentence(settings))
    md.append("")
    targets_at = len(md)
    md.append("## Machine")
    md.append("")
    md.append("| | |")
    md.append("|---|---|")
    for key in ("cpu", "cores", "memory", "arch", "kernel", "jdk", "jvm"):
        md.append(f"| {key} | {machine.get(key, '?')} |")
    md.append(f"| net.core.rmem_max / wmem_max | {settings.get('rmem_max')} / {settings.get('wmem_max')} |")
    md.append("")
    md.append("Every process of a run (simulator, feed handler, fanout with its media driver, each subscriber "
              "and the media drivers) shares these cores.")
    md.append("")
    md.extend(host_lines(results))
    md.append("## Settings")
    md.append("")
    md.append("| setting | value |")
    md.append("|---|---|")
    labels = [("rates", "latency rates (msg/s)"), ("duration_s", "seconds of messages per latency run"),
              ("min_messages", "minimum messages per latency run"),
              ("max_messages", "most messages per latency run, warm-up included (0: no cap)"),
              ("feed_recovery", "feed recovery: MoldUDP64 re-requests in chain runs (1 on, 0 off)"),
              ("nats_rates", "NATS peer: latency rates (msg/s)"), ("fanout_rate", "fan-out rate (msg/s)"),
              ("fanout_s", "seconds of messages per fan-out run"), ("fanout_subs", "fan-out subscriber counts"),
              ("pub_messages", "publisher throughput: ITCH messages replayed"),
              ("pub_warmup_messages", "publisher throughput: warm-up messages before the rate is taken"),
              ("pub_subs", "publisher throughput: subscriber counts"),
              ("warmup_s", "seconds of messages before the measured ones (warm-up)"),
              ("repeat_rates", "rates with repeated latency pairs (msg/s)"), ("repeats", "extra pairs per repeated rate"),
              ("latency_from", "latency measured from (receive: the feed handler's receive; scheduled: the pacer)"),
              ("outside_rates", "rates also measured from the pacer's schedule (msg/s)"),
              ("sub_driver", "chain subscribers' media driver (auto: shared by several, embedded when alone)"),
              ("extra_opts", "extra options"),
              ("step_s", "seconds per throughput step"),
              ("step_warmup_s", "seconds of warm-up before each throughput step"),
              ("step_warmup_rate", "warm-up rate before each throughput step (msg/s; the step's when lower)"),
              ("search_lo", "throughput search from (msg/s)"),
              ("search_hi", "throughput search up to (msg/s), chain"),
              ("raw_search_hi", "throughput search up to (msg/s), raw Aeron"), ("search_steps", "throughput bisection steps"),
              ("partitions", "partitions"), ("symbols", "simulated symbols"),
              ("message_length", "raw Aeron message length (bytes)"), ("channel", "chain channel"),
              ("raw_channel", "raw Aeron channel"), ("pub_channel", "publisher throughput channel")]
    for key, label in labels:
        value = settings.get(key)
        if value is None:
            continue
        md.append(f"| {label} | `{value}` |" if key.endswith("channel") else f"| {label} | {value} |")
    md.append("")
    md.append("## Commands")
    md.append("")
    md.append("```")
    md.append(f"make bench    # RATES=\"{settings['rates']}\" DURATION_S={settings['duration_s']} "
              f"FANOUT_RATE={settings['fanout_rate']} ...  (see the top of bench/e2e/run.sh)")
    md.append("```")
    if rates:
        first = rates[0]
        for title, name in (("the chain", f"chain-{first}"), ("raw Aeron", f"raw-aeron-{first}")):
            cmds = commands_of(results, name)
            if cmds:
                md.append("")
                md.append(f"Each latency run of {title}, exactly as run at {first:,} msg/s (in start order):")
                md.append("")
                md.append("```")
                md.extend(cmds)
                md.append("```")
    md.append("")

    def latency_section(kind, heading, description, plot_file):
        runs = {r["name"]: r for r in load_all(os.path.join(results, kind, "*.run.json"))}
        kind_rates = sorted({r["rate"] for r in runs.values()})
        if not kind_rates:
            return
        md.append(heading)
        md.append("")
        md.append(description)
        md.append("")
        md.append("| rate (msg/s) | system | messages | " + " | ".join(n for n, _ in PERCENTILES) +
                  " | sender kept (msg/s) | lost |")
        md.append("|---:|---|---:|" + "---:|" * len(PERCENTILES) + "---:|---:|")
        plot_series = []
        for r in kind_rates:
            chain = sub_json(kind, f"chain-{r}")
            raw = sub_json(kind, f"raw-aeron-{r}")
            chain_run = runs.get(f"chain-{r}", {})
            raw_run = runs.get(f"raw-aeron-{r}", {})
            for label, data, run, lost in (
                    ("chain", chain, chain_run, chain_run.get("subscriber_gaps")),
                    ("raw Aeron", raw, raw_run, raw_run.get("missing"))):
                if data is None:
                    md.append(f"| {r:,} | {label} | no result (exit codes {run.get('subscriber_exits')}) |" +
                              " |" * (len(PERCENTILES) + 2))
                    continue
                sender = run.get("simulator_rate", run.get("publisher_rate"))
                md.append(f"| {r:,} | {label} | {data['count']:,} | " +
                          " | ".join(us(data.get(k)) for _, k in PERCENTILES) +
                          f" | {rate(sender)} | {lost if lost is not None else 'n/a'} |")
            if chain and raw:
                md.append(f"| {r:,} | **chain / raw** | | " + " | ".join(
                    f"**{ratio(chain.get(k), raw.get(k))}**" if n in ("p50", "p99", "p99.9") else ""
                    for n, k in PERCENTILES) + " | | |")
            for label, name in (("chain", f"chain-{r}"), ("raw Aeron", f"raw-aeron-{r}")):
                plot_series.append((f"{label} {r:,}/s",
                                    read_hgrm(os.path.join(results, kind, f"{name}-sub1.hgrm"))))
        md.append("")
        if latency_plot(plot_series, os.path.join(args.images, plot_file)):
            md.append(f"![latency by percentile]({image_rel}/{plot_file})")
            md.append("")

    latency_section(
        "latency", "## Latency",
        "Microseconds, one subscriber. The chain: from the feed handler's receive of the datagram "
        "(`feed-handler --stamp-receive-time`) to the subscriber's callback, as the issue defines it. " +
        raw_latency_sentence(settings) if
        settings.get("latency_from", "scheduled") == "receive" else
        "Microseconds, scheduled send to subscriber callback, one subscriber.",
        "e2e-latency.svg")
    md.extend(split_section(results, settings))
    for rep_rate in sorted({int(x) for x in str(settings.get("repeat_rates", "")).split()}):
        pairs = latency_pairs(results, rep_rate)
        if len(pairs) < 2:
            continue
        md.append(f"## Latency, repeated ({rep_rate:,} msg/s)")
        md.append("")
        md.append(f"On a machine shared by every process, one pair's p99 moves by 2x or more from run to run: "
                  f"{len(pairs)} chain / raw Aeron pairs at {rep_rate:,} msg/s, one after the other, measured as in "
                  "*Latency* (pair 1 is the one above). Microseconds.")
        md.append("")
        md.extend(pairs_table(pairs, [("p50", "p50_us"), ("p99", "p99_us"), ("p99.9", "p99_9_us")]))

    if args.compare:
        md.extend(idle_section([(results, settings)] + [
            (d.rstrip("/"), load_json(os.path.join(d.rstrip("/"), "settings.json"))) for d in args.compare]))

    latency_section(
        "latency-outside", "## Latency from outside (corrected for coordinated omission)",
        "The same pairs measured from the moment the simulator's (or raw publisher's) pacer *scheduled* each "
        "message, so that every stall of any process delays the messages scheduled during it and all of them are "
        "counted: the chain's figure then also covers the simulator's send and the wait in the feed handler's "
        "socket. " + uncapped_sentence(results) + "Microseconds, one subscriber.",
        "e2e-latency-outside.svg")
    for out_rate in sorted({int(x) for x in str(settings.get("outside_rates", "")).split()}):
        pairs = latency_pairs(results, out_rate, "latency-outside", "latency-outside-repeats")
        if len(pairs) < 2:
            continue
        md.append(f"## Latency from outside, repeated ({out_rate:,} msg/s)")
        md.append("")
        md.append(f"{len(pairs)} chain / raw Aeron pairs at {out_rate:,} msg/s measured as in *Latency from outside*, "
                  "one after the other (pair 1 is the one above), p50 to p99.99. Microseconds.")
        md.append("")
        md.extend(pairs_table(pairs, [(n, k) for n, k in PERCENTILES if n != "max" and n != "p90"]))

    fan_runs = sorted((r for r in load_all(os.path.join(results, "fanout", "*.run.json"))
                       if r.get("system", "chain") == "chain"), key=lambda r: r["subscribers"])
    if fan_runs:
        md.append("## Fan-out")
        md.append("")
        md.append(f"The chain at {fan_runs[0]['rate']:,} msg/s with several `latency` subscribers, each a "
                  "separate process (multicast: the fanout publishes once). "
                  + ("With several, they share one standalone `media-driver`, as subscriber processes on one "
                     "host do; alone, it embeds its own. " if settings.get("sub_driver", "embedded") == "auto" else
                     "Subscriber media drivers: " + settings.get("sub_driver", "embedded") + ". ") +
                  driver_nice_sentence(settings) +
                  "Microseconds; the fanout's rate is its highest one-second `published` rate from its stats "
                  "line." + next((f" The row for 1 subscriber is the latency run `{r['reused_from']}` above (the "
                                  "same processes, options and rate), not measured again."
                                  for r in fan_runs if r.get("reused_from")), ""))
        md.append("")
        md.append("| subscribers | p50 per subscriber | p99 per subscriber | p99.9 per subscriber | "
                  "simulator kept (msg/s) | fanout published (msg/s) | gaps | exits |")
        md.append("|---:|---|---|---|---:|---:|---:|---|")
        bars = []
        for run in fan_runs:
            subs = [sub_json("fanout", run["name"], i) for i in range(1, run["subscribers"] + 1)]
            cells = []
            for key in ("p50_us", "p99_us", "p99_9_us"):
                cells.append(", ".join(us(s.get(key)) if s else "n/a" for s in subs))
            md.append(f"| {run['subscribers']} | {cells[0]} | {cells[1]} | {cells[2]} | "
                      f"{rate(run.get('simulator_rate'))} | {rate(run.get('fanout_peak_rate'))} | "
                      f"{run.get('subscriber_gaps')} | {run.get('subscriber_exits')} |")
            p99s = [s["p99_us"] for s in subs if s]
            p50s = [s["p50_us"] for s in subs if s]
            bars.append((f"{run['subscribers']} sub", [("p50 (worst subscriber)", max(p50s) if p50s else None),
                                                       ("p99 (worst subscriber)", max(p99s) if p99s else None)]))
        md.append("")
        if bar_plot("Latency vs subscribers", "latency (us, log)", bars,
                    os.path.join(args.images, "e2e-fanout.svg"), log=True):
            md.append(f"![latency vs subscribers]({image_rel}/e2e-fanout.svg)")
            md.append("")

    all_pub_runs = load_all(os.path.join(results, "publisher", "*.run.json"))
    pub_runs = sorted((r for r in all_pub_runs if pub_round(r) == 1 and r.get("drivers", "shared") == "shared"),
                      key=lambda r: r["subscribers"])
    if pub_runs:
        base = next((r for r in pub_runs if r["subscribers"] == 1), None)
        base_rate = base.get("median_rate") if base else None
        md.append("### Publisher throughput vs subscribers")
        md.append("")
        md.append(f"The fanout's own publish rate with N `record --no-recovery{record_out_option(settings)}` subscriber "
                  f"processes{record_out_clause(settings)} "
                  f"sharing one standalone `media-driver`, as subscriber processes on one host do: the multicast "
                  f"stream is received once and read by each from shared memory. `replay` writes a generated "
                  f"{settings.get('pub_messages', 0):,}-message ITCH session into the rings as fast as they accept "
                  "it, so the fanout is offered more than it can publish (*ring full waits* > 0 shows the fanout "
                  "was the bottleneck); the rate is the median of the fanout's one-second `published` rates "
                  + (f"once {settings.get('pub_warmup_messages'):,} warm-up messages had been published (each JVM "
                     "of the run compiles its hot paths first, and eight subscriber JVMs compiling on one CPU take "
                     "seconds; the whole run's median is in the last column) "
                     if settings.get("pub_warmup_messages") else "") +
                  "(first and last, partial, seconds left out). A run counts only if every subscriber received "
                  "every ring record with gaps=0 and missing=0. " + pub_layout_sentence(pub_runs[0]) +
                  "A subscriber that falls behind slows the publisher through the shared driver's flow control "
                  "rather than losing data. " + driver_nice_sentence(settings) + "*Seconds rings full* counts "
                  "the replay's one-second stats lines, over the measured seconds, that show new ring-full waits: "
                  "the seconds in which the fanout, not its source, set the rate. The figure is the rate with 8 "
                  "subscribers against the rate with 1.")
        md.append("")
        md.append("| subscribers | fanout publish rate, median (msg/s) | peak (msg/s) | seconds measured | "
                  "ratio to 1 subscriber | ring full waits | seconds rings full | every subscriber complete | "
                  "messages per subscriber | whole run, warm-up included: median (msg/s) over seconds |")
        md.append("|---:|---:|---:|---:|---:|---:|---:|---|---|---:|")
        bars = []
        for r in pub_runs:
            msgs = ", ".join(f"{s['messages']:,}" if s.get("messages") is not None else "n/a"
                             for s in r["subscriber_results"])
            whole = (f"{rate(r.get('median_rate_whole_run'))} over {r.get('full_seconds')}"
                     if "median_rate_whole_run" in r else "n/a")
            md.append(f"| {r['subscribers']} | {rate(r.get('median_rate'))} | {rate(r.get('peak_rate'))} | "
                      f"{r.get('steady_seconds', r.get('full_seconds'))} | {ratio(r.get('median_rate'), base_rate)} | "
                      f"{rate(r.get('ring_full_waits'))} | {seconds_ring_full(r)} | "
                      f"{'yes' if r.get('complete') else 'NO'} "
                      f"(exits {r['subscriber_exits']}) | {msgs} | {whole} |")
            bars.append((f"{r['subscribers']} sub", [("fanout publish rate (median)", r.get("median_rate"))]))
        md.append("")
        pairs = pub_pairs(all_pub_runs)
        if len(pairs) > 1:
            md.append("The two runs the target compares, 1 and 8 subscribers, repeated in pairs (pair 1 is the "
                      "table's; each later pair runs 1 then 8, one after the other): eight subscriber JVMs share one "
                      "CPU, and the slowest of them sets the publisher's pace through the shared driver's flow "
                      "control, so one pair's ratio moves from run to run.")
            md.append("")
            md.append("| pair | 1 subscriber (msg/s) | 8 subscribers (msg/s) | ratio | every subscriber complete |")
            md.append("|---:|---:|---:|---:|---|")
            for i, (a, b) in enumerate(pairs, 1):
                md.append(f"| {i} | {rate(a['median_rate'])} | {rate(b['median_rate'])} | "
                          f"{b['median_rate'] / a['median_rate']:.2f}x | "
                          f"{'yes' if a.get('complete') and b.get('complete') else 'NO'} |")
            md.append("")
        if pairs:
            share = median([b["median_rate"] / a["median_rate"] for a, b in pairs])
            complete = all(a.get("complete") and b.get("complete") for a, b in pairs)
            md.append(f"With 8 subscribers the fanout publishes at **{share:.0%}** of its rate with 1"
                      f"{' (median of ' + str(len(pairs)) + ' pairs)' if len(pairs) > 1 else ''}"
                      f"{'' if complete else ' (a run was incomplete)'}: a ratio on two shared cores, not a verdict.")
            md.append("")
        own_pairs = pub_pairs(all_pub_runs, "own")
        if own_pairs:
            n_own = own_pairs[0][1]["subscribers"]
            same = own_pairs[0][0].get("drivers") == "own"
            md.append(f"**Each subscriber with a media driver of its own** (`pub-own-{n_own}`, issue 38): {n_own} "
                      "subscribers, each with a media driver of its own " +
                      ("in its process, run by its poll loop (`--driver-threading invoker`: one busy thread per "
                       "subscriber, on its own CPU)" if own_pairs[0][1].get("own_driver") == "embedded"
                       else "(a standalone `media-driver` on its subscriber's CPUs)") +
                      f", as subscribers on {n_own} hosts have: the fanout's sender then serves {n_own} receivers (their status "
                      "messages, NAKs and flow control), where with the shared driver it serves one whatever N is. " +
                      ("Against `pub-own-1` of the same pair, one subscriber set up the same way."
                       if same else "Against the run with 1 subscriber of the same pair."))
            md.append("")
            md.append(f"| pair | 1 subscriber (msg/s) | {n_own} subscribers, a driver each (msg/s) | ratio | every "
                      f"subscriber complete | per-second rates, {n_own} with own drivers (msg/s) |")
            md.append("|---:|---:|---:|---:|---|---|")
            for i, (a, b) in enumerate(own_pairs, 1):
                md.append(f"| {i} | {rate(a['median_rate'])} | {rate(b['median_rate'])} | "
                          f"{b['median_rate'] / a['median_rate']:.2f}x | "
                          f"{'yes' if a.get('complete') and b.get('complete') else 'NO'} (exits "
                          f"{b['subscriber_exits']}) | {', '.join(rate(x) for x in b.get('fanout_rates', []))} |")
            md.append("")
            share = median([b["median_rate"] / a["median_rate"] for a, b in own_pairs])
            md.append(f"With {n_own} subscribers on {n_own} drivers the fanout publishes at **{share:.0%}** of its "
                      f"rate with 1{' (median of ' + str(len(own_pairs)) + ' pairs)' if len(own_pairs) > 1 else ''}: "
                      f"a ratio on a machine where the {n_own} drivers and {n_own} subscribers share the CPUs left; "
                      "the target (8 on 8 drivers at least 90% of 1) is judged on dedicated cores.")
            md.append("")
        if bar_plot("Fanout publish rate vs subscribers", "messages/s", bars,
                    os.path.join(args.images, "e2e-fanout-publisher.svg")):
            md.append(f"![fanout publish rate vs subscribers]({image_rel}/e2e-fanout-publisher.svg)")
            md.append("")

    import report_nats  # the NATS peer's section, when bench/e2e/nats.sh ran into this results directory
    nats_section = report_nats.section(results, args.images, image_rel)
    if nats_section:
        md.append(nats_section)

    maxima = {m["system"]: m for m in load_all(os.path.join(results, "throughput", "*.max.json"))}
    if maxima:
        md.append("## Throughput")
        md.append("")
        chain_max = maxima.get("chain", {}).get("max_rate")
        raw_max = maxima.get("raw", {}).get("max_rate")
        batched_max = maxima.get("raw-batched", {}).get("max_rate")
        steps = load_all(os.path.join(results, "throughput", "*.run.json"))
        md.append("| system | highest rate with zero loss (msg/s) | asked of the sender (msg/s) | MB/s at that rate | "
                  "lowest lossy rate asked (msg/s) | ratio to raw Aeron | ratio to raw Aeron batched |")
        md.append("|---|---:|---:|---:|---:|---:|---:|")
        for system, label in (("chain", "chain (1 record subscriber)"), ("raw", "raw Aeron (a message per offer)"),
                              ("raw-batched", "raw Aeron batched (an MTU per offer)")):
            m = maxima.get(system)
            if m:
                failing = m.get("lowest_failed")
                offered = m.get("max_offered", m["max_rate"])
                best = next((st for st in steps if st["system"] == RUN_SYSTEM[system] and st["rate"] == offered), None)
                mbps = "n/a"
                if m["max_rate"] and system == "chain" and best and best.get("simulator_bytes"):
                    mbps = f"{m['max_rate'] * best['simulator_bytes'] / best['messages'] / 1e6:.1f} (ITCH in)"
                elif m["max_rate"] and system != "chain":
                    mbps = f"{m['max_rate'] * settings.get('message_length', 0) / 1e6:.1f} (payload)"
                md.append(f"| {label} | {rate(m['max_rate']) if m['max_rate'] else 'below the search range'} | "
                          f"{rate(offered) if offered else 'n/a'} | "
                          f"{mbps} | {rate(failing) if failing else 'none (the top of the range passed)'}"
                          f" | {ratio(m['max_rate'], raw_max) if raw_max else 'n/a'}"
                          f" | {ratio(m['max_rate'], batched_max) if batched_max else 'n/a'} |")
        md.append("")
        md.append("The rate is what the sender achieved" + (" (the mean of the clean trials)" if int(settings.get("trials") or 1) > 1 else "")
                  + " at the highest passing rate: when every process shares two cores, "
                  "the simulator (or raw Aeron's publisher) falls short of the rate asked, and the chain carried all "
                  "it sent. A step is clean when the subscriber received every message gap-free and the feed "
                  "handler saw no gap at all: nothing lost, re-requested or declared (a datagram its socket dropped "
                  "and fetched again from the simulator's MoldUDP64 re-request server"
                  + (", as in production, is in the table below, and fails the step" if any(st.get("recovery") for st in steps)
                     else "; re-requests were off, `FEED_RECOVERY=0`") + ")"
                  + ". Raw Aeron never loses: back pressure slows its publisher, so its figure is the transport's "
                  "limit on this machine. It runs twice: as before, one message per offer (`raw-aeron-pub`, a clock "
                  "read per message), and batched as the chain batches (`--batch`: the messages due at each duty "
                  "cycle packed into one offer of up to an MTU, as the fanout packs what its ring holds into one "
                  "packet; the subscriber splits them again), the like-for-like baseline for the chain's figure.")
        md.append("")
        md.append("MB/s: for the chain, the MoldUDP64/ITCH bytes the simulator sent per second at that rate; for raw "
                  "Aeron, the messages' payload bytes (each message the message length above).")
        md.append("")
        md.extend(sender_ceiling_lines(results, chain_max))
        md.extend(lever_lines(maxima, chain_max))
        md.append("Every trial (a trial is a few seconds at one rate; *rate* is the verdict on the rate asked, from "
                  "all of its trials):")
        md.append("")
        md.append("| system | rate asked (msg/s) | trial | sender kept (msg/s) | result | rate | detail |")
        md.append("|---|---:|---:|---:|---|---|---|")
        steps = load_all(os.path.join(results, "throughput", "*.run.json"))
        steps.sort(key=lambda r: (r["system"], int(re.search(r"step(\d+)", r["name"]).group(1)), trial_of(r)))
        verdicts = {}
        for system, m in maxima.items():
            for r in m.get("rates", []):
                verdicts[(RUN_SYSTEM.get(system, system), r["rate"])] = \
                    f"{'pass' if r['pass'] else 'FAIL'} ({r['clean']} clean, {r['lossy']} lossy)"
        for s in steps:
            if s["system"].startswith("chain"):
                sender = s.get("simulator_rate")
                lost = bool(s.get("feed_gaps_declared")) or (not s.get("recovery") and bool(s.get("feed_gaps")))
                # A step is clean only when nothing was lost, re-requested or declared (issue 38).
                rerequested = not lost and (bool(s.get("feed_gaps")) or bool(s.get("feed_gaps_filled")))
                ok = (all(e == 0 for e in s["subscriber_exits"]) and s["simulator_exit"] == 0 and
                      s["subscriber_gaps"] == 0 and not lost and not rerequested and (sender or 0) > 0)
                reasons = [why for bad, why in (
                    (any(e != 0 for e in s["subscriber_exits"]), "record failed"),
                    (s["subscriber_gaps"] != 0, "subscriber saw gaps"),
                    (lost, "feed handler lost messages"),
                    (rerequested, "the feed handler re-requested what its socket dropped")) if bad]
                filled = (f", {s.get('feed_gaps_filled')} filled by re-request" if s.get("recovery") else "")
                detail = ("; ".join(reasons) + ": " if reasons else "") + (
                          f"record exit {s['subscriber_exits'][0]}, subscriber gaps {s['subscriber_gaps']}, "
                          f"feed gaps unfilled {s.get('feed_gaps')} (declared {s.get('feed_gaps_declared')}){filled}, "
                          f"fanout peak {rate(s.get('fanout_peak_rate'))}/s")
            else:
                sender = s.get("publisher_rate")
                ok = (all(e == 0 for e in s["subscriber_exits"]) and s["publisher_exit"] == 0 and
                      s.get("missing") == 0 and (sender or 0) > 0)
                reasons = [why for bad, why in (
                    (any(e != 0 for e in s["subscriber_exits"]) or s.get("missing"), "messages missing"),) if bad]
                detail = ("; ".join(reasons) + ": " if reasons else "") + \
                    f"subscriber exit {s['subscriber_exits'][0]}, missing {s.get('missing')}"
            verdict_of_rate = verdicts.get((s["system"], s["rate"]), "pass" if ok else "FAIL")
            md.append(f"| {s['system']} | {rate(s['rate'])} | {trial_of(s)} | {rate(sender)} | "
                      f"{'clean' if ok else 'lossy'} | {verdict_of_rate} | {detail} |")
        md.append("")
        md.extend(cpu_table(steps, maxima))
        if bar_plot("Highest clean rate", "messages/s",
                    [("throughput", [("chain", chain_max), ("raw Aeron", raw_max),
                                     ("raw Aeron batched", batched_max)])],
                    os.path.join(args.images, "e2e-throughput.svg")):
            md.append(f"![throughput]({image_rel}/e2e-throughput.svg)")
            md.append("")

    import report_archive  # the archive's section (issue 29), when run.sh's archive_section ran into this directory
    md.extend(report_archive.section(results))
    import report_pair  # the pair's section (issue 37), when run.sh's pair_section ran into this directory
    md.extend(report_pair.section(results))
    import report_derived  # the derived streams' cost and benefit (issue 40), when run.sh's derived phase ran
    md.extend(report_derived.section(results))

    steady_dir = (args.steady or results).rstrip("/")
    steady_path = os.path.join(steady_dir, "steady", "steady.json")
    if os.path.exists(steady_path):
        st = load_json(steady_path)
        mib = lambda b: "n/a" if b is None else f"{b / 2 ** 20:.1f}"
        md.append("## Steady state (Epsilon GC)")
        md.append("")
        md.append(f"`bench/e2e/steady.sh` (run `{os.path.basename(steady_dir)}`; `make bench-full` runs it): the "
                  f"simulator sends {st['messages_sent']:,} ITCH messages at {st['rate']:,} msg/s to the feed "
                  "handler, fanout and one `record --no-recovery` subscriber, each of those three with Epsilon GC "
                  f"(no collector: nothing allocated is ever freed) and a {st['heap']} heap, stats lines and "
                  "metrics off. The simulator is the exchange and runs with the ordinary collector; it serves "
                  "MoldUDP64 retransmissions so a UDP drop on this loaded machine is recovered, not lost. Heap used "
                  f"is sampled with `jcmd GC.heap_info` every {st['sample_s']} s from 10 s after the start (the "
                  "start-up allocation is done by then) and read from `-Xlog:gc` at exit.")
        md.append("")
        md.append("| | |")
        md.append("|---|---|")
        md.append(f"| result | **{'passed' if st.get('passed') else 'FAILED'}** |")
        md.append(f"| ITCH messages sent | {st['messages_sent']:,} |")
        md.append(f"| normalized messages received by the subscriber | {rate(st.get('subscriber_messages'))} |")
        md.append(f"| subscriber gaps / missing | {st.get('subscriber_gaps')} / {st.get('subscriber_missing')} |")
        md.append(f"| feed gaps declared (unrecovered) | {st.get('feed_gaps_declared')} |")
        md.append(f"| asked rate / simulator kept (msg/s) | {st['rate']:,} / {rate(st.get('simulator_rate'))} |")
        md.append(f"| duration (s) | {st['duration_s']} |")
        md.append("")
        md.append("| process | heap used at start (MiB) | heap used at end (MiB) | growth (MiB) | alive at the end | "
                  "OutOfMemoryError | exit code |")
        md.append("|---|---:|---:|---:|---|---|---:|")
        for p in st["processes"]:
            a, b = p.get("heap_used_start"), p.get("heap_used_end")
            growth = mib(b - a) if a is not None and b is not None else "n/a"
            md.append(f"| {p['role']} | {mib(a)} | {mib(b)} | {growth} | {'yes' if p['alive_at_end'] else 'NO'} | "
                      f"{'YES' if p['out_of_memory'] else 'no'} | {p['exit']} |")
        md.append("")
        md.append("Exit code 143 is the SIGTERM the script sends the feed handler and fanout at the end; the "
                  "subscriber exits by itself after END_OF_MESSAGES.")
        md.append("")
        samples_path = os.path.join(steady_dir, "steady", "heap-samples.tsv")
        if os.path.exists(samples_path):
            series = {}
            with open(samples_path) as f:
                next(f)
                for line in f:
                    t, role, used = (line.rstrip("\n").split("\t") + ["", "", ""])[:3]
                    if used:
                        series.setdefault(role, []).append((int(t), int(used)))
            if series:
                md.append("Heap used over the run (MiB, `jcmd GC.heap_info` samples):")
                md.append("")
                times = sorted({t for pts in series.values() for t, _ in pts})
                roles = list(series)
                md.append("| seconds | " + " | ".join(roles) + " |")
                md.append("|---:|" + "---:|" * len(roles))
                for t in times:
                    md.append(f"| {t} | " + " | ".join(
                        next((mib(u) for tt, u in series[r] if tt == t), "") for r in roles) + " |")
                md.append("")
        cmds = []
        cpath = os.path.join(steady_dir, "logs", "steady", "commands.txt")
        if os.path.exists(cpath):
            cmds = [line.strip() for line in open(cpath) if line.strip()]
        if cmds:
            md.append("Exactly as run (in start order):")
            md.append("")
            md.append("```")
            md.extend(cmds)
            md.append("```")
            md.append("")

    md[targets_at:targets_at] = targets_section(results, args.steady or results, settings, bool(args.compare))
    opts = settings.get("extra_opts", "")
    if pinned:
        md.extend(pinned_section(pinned, args.images, image_rel))
    else:
        md.append("## Dedicated, pinned cores")
        md.append("")
        if "--cpus" in opts or "busy-spin" in opts:
            md.append(f"This run passed `{opts}`: see the tables above for its absolute figures.")
        else:
            md.append(f"Every figure above comes from a {machine.get('cores', '?')}-core machine shared by all the "
                      "processes of a run, with backing-off threads. Issue 6 also asks for absolute figures with "
                      "dedicated threads pinned to cores where a machine with many cores is available; none was "
                      "available to this run. On such a host (8 cores or more) run the bench bundle: `make "
                      "bench-bundle` here, copy `bench/target/bench-bundle` there, `./run OUT_DIR`, then `python3 "
                      "bench/e2e/report.py --pinned OUT_DIR` (docs/BENCHMARKS-PINNED.md says how).")
    md.append("")

    md.append("## Reproducing")
    md.append("")
    md.append("`make bench` writes a new directory under `bench/e2e/results/` (JSON per run, `.hgrm` "
              "percentile distributions, every process's log and command line) and regenerates this page from "
              "it; `python3 bench/e2e/report.py bench/e2e/results/<run> [--steady bench/e2e/results/<steady run>]` "
              "regenerates it from an older run (`--compare bench/e2e/results/<run>` adds another run's latency pairs to "
              "*Idle strategies on shared cores*). `make bench-full` runs the long settings and `bench/e2e/steady.sh`.")
    md.append("")
    os.makedirs(os.path.dirname(args.doc) or ".", exist_ok=True)
    with open(args.doc, "w") as f:
        f.write("\n".join(md))
    print(f"report: wrote {args.doc} and plots in {args.images}", file=sys.stderr)


if __name__ == "__main__":
    main()
