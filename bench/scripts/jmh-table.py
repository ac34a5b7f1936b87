#!/usr/bin/env python3
"""Turn JMH's JSON results (-rf json) into docs/bench/micro.md: machine facts, the exact command and
one table row per benchmark (and per secondary rate such as SdkBookBenchmark's messages/s), with
the bytes allocated per operation from -prof gc. Generated, never typed: rerun `make bench-micro`.

usage: jmh-table.py RESULTS_JSON OUTPUT_MD COMMAND [ITCHY_OUTPUT [SIDE_BY_SIDE_DIR]]

ITCHY_OUTPUT is what bench/peers/itchy-bench.sh printed for the same session file in the same run:
the native decoder peer, compared with ItchNormalizeBenchmark (and its unchecked variant).
SIDE_BY_SIDE_DIR is bench/scripts/decoder-ab.sh's output (per round and consumer setting, JMH's JSON
and itchy's output from the two run at the same time): the comparison that the
"faster than itchy" target is judged on, as the median of the pairs' ratios.
"""
import glob
import json
import os
import statistics
import platform
import subprocess
import sys
from datetime import datetime, timezone


def cpu_model():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def fmt(value):
    if value != value:  # NaN: JMH gives no error for a single iteration
        return "-"
    if abs(value) >= 100:
        return f"{value:,.0f}"
    if abs(value) >= 1:
        return f"{value:.2f}"
    if value == 0:
        return "0"
    return f"{value:.3g}"


def read_itchy(path):
    """The fields of itchy-bench's `itchy:` line, or None when the peer did not run."""
    try:
        with open(path) as f:
            for line in f:
                if line.startswith("itchy: messages="):
                    return dict(kv.split("=", 1) for kv in line.split()[1:] if "=" in kv)
    except OSError:
        pass
    return None


def peer_rate(itchy):
    """itchy's messages over the time of all its passes: the statistic of JMH's score. itchy-bench
    printed only best and median before 2026-11-22; for those outputs, the best pass."""
    return float(itchy.get("mean_msgs_per_s") or itchy["best_msgs_per_s"])


def peer_statistic(itchy):
    return "mean over" if "mean_msgs_per_s" in itchy else "best of"


def read_side_by_side(directory):
    """decoder-ab.sh's pairs: a list of (round, consumer, itchy fields, JMH score), in order; empty
    when the directory is absent or holds no complete pair."""
    pairs = []
    if not directory or not os.path.isdir(directory):
        return pairs
    for json_path in glob.glob(os.path.join(directory, "round-*-*.json")):
        base = json_path[:-len(".json")]
        _, number, consumer = os.path.basename(base).split("-", 2)
        itchy = read_itchy(base + ".itchy.txt")
        if not number.isdigit() or not itchy or "mean_msgs_per_s" not in itchy:
            continue
        with open(json_path) as f:
            results = json.load(f)
        if len(results) == 1:
            pairs.append((int(number), consumer, itchy, results[0]["primaryMetric"]["score"]))
    return sorted(pairs, key=lambda p: (p[0], p[1]))


def side_by_side_ratio(pairs, consumer):
    """Median over the pairs of ours / itchy's, the two measured at the same time on two CPUs."""
    ratios = [score / float(itchy["mean_msgs_per_s"]) for _, c, itchy, score in pairs if c == consumer]
    return statistics.median(ratios) if ratios else None


def side_by_side_section(pairs):
    """decoder-ab.sh's pairs, each pair's ratio, and the medians."""
    if not pairs:
        return []
    consumers = [c for c in ("advance", "read") if any(p[1] == c for p in pairs)]
    rounds = len({p[0] for p in pairs})
    lines = ["", "## Against the native decoder peer, side by side", "",
             f"`bench/scripts/decoder-ab.sh bench/target/session.itch bench/target/decoder-ab`: {rounds} rounds; in each, "
             "per consumer setting, `ItchNormalizeBenchmark` (JMH's score, the mean of its measurement iterations) "
             "and itchy (its mean over passes run within those iterations) decode the session at the same "
             "time, one busy thread each on the machine's two CPUs. Both meet the same seconds of the machine, which "
             "figures taken minutes apart do not (the single comparison above). The target is judged on the median "
             "of the pairs' ratios.", "",
             "| round | consumer | ours (msg/s) | itchy mean (msg/s) | itchy passes | itchy best pass (msg/s) | ratio |",
             "|---:|---|---:|---:|---:|---:|---:|"]
    for number, consumer, itchy, score in pairs:
        peer = float(itchy["mean_msgs_per_s"])
        lines.append(f"| {number} | {consumer} | {score:,.0f} | {peer:,.0f} | {itchy.get('passes', '?')} | "
                     f"{float(itchy['best_msgs_per_s']):,.0f} | {score / peer:.2f} |")
    lines.append("")
    lines.append("Median ratio: " + "; ".join(f"consumer={c} **{side_by_side_ratio(pairs, c):.2f}x**" for c in consumers) +
                 ".")
    return lines


def peer_section(results, itchy):
    """Normalize throughput against the Rust itchy decoder on the same file, same run."""
    lines = ["", "## Against the native decoder peer (same file, same run)", ""]
    if not itchy:
        lines.append("itchy did not run (see `make bench-micro`'s output; it needs cargo).")
        return lines
    peer = peer_rate(itchy)
    lines.append("`bench/peers/itchy-bench.sh bench/target/session.itch`: the Rust `itchy` crate decodes the file that")
    lines.append("`io.mdfanout.bench.WriteSession` wrote from the benchmark's own session (decode only, from memory,")
    lines.append(f"{peer_statistic(itchy)} {itchy.get('passes', '?')} passes, before the JMH run; it skips the "
                 f"{itchy.get('skipped', '?')} messages of types it "
                 f"cannot parse and {itchy.get('rejected', '?')} it rejects). Ours decodes, validates, normalizes, encodes")
    lines.append("SBE and writes the rings; the score is JMH's mean over the measurement iterations.")
    lines.append("")
    lines.append("| | messages/s | ns/message | ratio to itchy |")
    lines.append("|---|---:|---:|---:|")
    lines.append(f"| itchy (decode only, {peer_statistic(itchy)} passes) | {peer:,.0f} | {1e9 / peer:.1f} | 1.00 |")
    if "mean_msgs_per_s" in itchy:
        best = float(itchy["best_msgs_per_s"])
        lines.append(f"| itchy's best pass | {best:,.0f} | {1e9 / best:.1f} | {best / peer:.2f} |")
    for result in results:
        name = result["benchmark"].rsplit(".", 2)[-2]
        if name.startswith("ItchNormalize"):
            score = result["primaryMetric"]["score"]
            consumer = (result.get("params") or {}).get("consumer")
            what = CONSUMER_LABEL.get(consumer, "decode + normalize + ring write")
            lines.append(f"| {name}{f' (consumer={consumer})' if consumer else ''}: {what} | {score:,.0f} | "
                         f"{1e9 / score:.1f} | {score / peer:.2f} |")
    lines.append("")
    lines.append("`consumer=read` drains the rings on the benchmark's own thread every 256 messages, reading every "
                 "record, so its figure includes the fanout's reads; `consumer=advance` only moves each ring's head "
                 "to its tail, so the figure is the writer's alone: decode + normalize + ring write, the target's "
                 "definition, with the reads left to another core as in the feed handler.")
    return lines


CONSUMER_LABEL = {
    "read": "decode + normalize + ring write + the consumer's reads",
    "advance": "decode + normalize + ring write",
}


def targets_section(results, itchy, pairs):
    """Issue 6's micro-benchmark targets against this run."""
    def score(prefix, consumer=None):
        for r in results:
            if r["benchmark"].rsplit(".", 2)[-2] == prefix and (r.get("params") or {}).get("consumer") == consumer:
                return r["primaryMetric"]["score"]
        return None

    rows = []
    peer = peer_rate(itchy) if itchy else None
    for consumer in (None, "read", "advance"):
        for label, value in (("bounds checks on", score("ItchNormalizeBenchmark", consumer)),
                             ("bounds checks off", score("ItchNormalizeUncheckedBenchmark", consumer))):
            if not value:
                continue
            label += f", consumer={consumer}" if consumer else ""
            rows.append((f"ITCH decode + normalize + ring write at least 30,000,000 msg/s on one core ({label})",
                         f"{value:,.0f} msg/s", value >= 30e6))
            side_by_side = side_by_side_ratio(pairs, consumer) if label.startswith("bounds checks on") else None
            if side_by_side is not None:
                rows.append((f"... and faster than itchy on the same file ({label}; side by side, "
                             f"{sum(1 for p in pairs if p[1] == consumer)} pairs)",
                             f"median ratio {side_by_side:.2f}x (the single comparison: "
                             f"{value / peer:.2f}x)" if peer else f"median ratio {side_by_side:.2f}x", side_by_side > 1))
            elif peer:
                rows.append((f"... and faster than itchy on the same file ({label})",
                             f"{value / peer:.2f}x itchy's {peer:,.0f} msg/s", value > peer))
    codec = [r for r in results if r["benchmark"].rsplit(".", 2)[-2] == "SbeCodecBenchmark"]
    if codec:
        worst = max(r["primaryMetric"]["score"] for r in codec)
        rows.append(("SBE encode or decode of a normalized message under 25 ns",
                     f"worst of {len(codec)}: {worst:.1f} ns", worst < 25))
    allocs = [r["secondaryMetrics"]["gc.alloc.rate.norm"]["score"] for r in results
              if "gc.alloc.rate.norm" in (r.get("secondaryMetrics") or {}) and
              not r["benchmark"].endswith(("decodeIntoBooks", "decodeOnly", "FanoutStateBenchmark.apply",
                                           "SdkPairBenchmark.oneSide", "pairBothSides", "pairOneSide"))]  # per pass
    if allocs:
        rows.append(("0 bytes allocated per message on the message path",
                     f"at most {max(allocs):.3g} B/op (JMH's own background allocation, see above)",
                     max(allocs) < 1))
    if not rows:
        return []
    out = ["", "## Against the targets", "", "| target | measured | |", "|---|---|---|"]
    out += [f"| {t} | {m} | {'**met**' if ok else 'not met'} |" for t, m, ok in rows]
    return out


def pair_section(results):
    """Issue 37: a pair's subscriber against one side's, in delivered messages per second, and its allocation."""
    scores, allocs = {}, {}
    for r in results:
        name = r["benchmark"].rsplit(".", 2)
        if name[-2] != "SdkPairBenchmark":
            continue
        metric = (r.get("secondaryMetrics") or {}).get("messages")
        if metric:
            scores[name[-1]] = metric["score"]
        alloc = (r.get("secondaryMetrics") or {}).get("gc.alloc.rate.norm")
        if alloc:
            allocs[name[-1]] = alloc["score"]
    base = scores.get("oneSide")
    if not base:
        return []
    out = ["", "## A pair's subscriber against one side's", "",
           "`SdkPairBenchmark`, the same packets in the same run: the SDK's own cost per delivered message, as a ratio "
           "to one side's (a ratio of messages per second; its inverse is the CPU per message).", "",
           "| case | delivered messages/s | ratio to one side | CPU per message | allocated B per pass |", "|---|---|---|---|---|"]
    for bench, label in (("oneSide", "one side (baseline)"), ("pairBothSides", "a pair, both sides sending"),
                         ("pairOneSide", "a pair, side B down")):
        if scores.get(bench):
            ratio = scores[bench] / base
            alloc = allocs.get(bench)
            out.append(f"| {label} | {scores[bench]:,.0f} | {ratio:.2f}x | {1 / ratio:.2f}x | "
                       f"{fmt(alloc) if alloc is not None else 'n/a'} |")
    return out


def main():
    if len(sys.argv) not in (4, 5, 6):
        sys.exit(__doc__)
    results_path, output_path, command = sys.argv[1:4]
    itchy = read_itchy(sys.argv[4]) if len(sys.argv) >= 5 else None
    pairs = read_side_by_side(sys.argv[5]) if len(sys.argv) == 6 else []
    with open(results_path) as f:
        results = json.load(f)
    if not results:
        sys.exit(f"{results_path}: no benchmark results")

    first = results[0]
    lines = [
        "# Micro-benchmarks (JMH)",
        "",
        "Generated by `bench/scripts/jmh-table.py` from `bench/target/jmh.json`; do not edit, rerun `make bench-micro`.",
        "",
        "## Machine",
        "",
        f"- CPU: {cpu_model()}, {os.cpu_count()} logical cores (shared with other work: figures are noisy)",
        f"- OS: {platform.system()} {platform.release()}",
        f"- JDK: {first.get('vmName', '?')} {first.get('jdkVersion', '?')} ({first.get('vmVersion', '?')})",
        f"- JMH {first.get('jmhVersion', '?')}; forks {first.get('forks')}, warm-up {first.get('warmupIterations')} x "
        f"{first.get('warmupTime')}, measurement {first.get('measurementIterations')} x {first.get('measurementTime')}",
        f"- Run: {datetime.now(timezone.utc).strftime('%Y-%m-%d %H:%M UTC')}",
        "",
        "## Command",
        "",
        "```",
        command,
        "```",
        "",
        "## Results",
        "",
        "Score ± error is JMH's 99.9% confidence interval. Allocated is `gc.alloc.rate.norm` (bytes per",
        "operation, from `-prof gc`); it includes JMH's own background allocation spread over the",
        "operations, so a path that allocates nothing shows a fraction of a byte (or, for a long",
        "operation such as one pass over a session, a few hundred bytes per pass of ~200,000 messages).",
        "",
        "| benchmark | parameters | score ± error | unit | allocated B/op |",
        "|---|---|---|---|---|",
    ]
    for result in results:
        name = result["benchmark"].rsplit(".", 2)
        bench = f"{name[-2]}.{name[-1]}"
        params = ", ".join(f"{k}={v}" for k, v in sorted((result.get("params") or {}).items())) or "-"
        primary = result["primaryMetric"]
        secondary = result.get("secondaryMetrics") or {}
        alloc = secondary.get("gc.alloc.rate.norm")
        alloc_text = fmt(alloc["score"]) if alloc else "n/a"
        lines.append(f"| {bench} | {params} | {fmt(primary['score'])} ± {fmt(primary['scoreError'])} | "
                     f"{primary['scoreUnit']} | {alloc_text} |")
        for key, metric in sorted(secondary.items()):
            if key.startswith("gc.") or key.startswith("·"):
                continue
            lines.append(f"| {bench}:{key} | {params} | {fmt(metric['score'])} ± {fmt(metric['scoreError'])} | "
                         f"{metric['scoreUnit']} | |")
    lines += peer_section(results, itchy)
    lines += side_by_side_section(pairs)
    lines += targets_section(results, itchy, pairs)
    lines += pair_section(results)
    lines += [
        "",
        "## What each measures",
        "",
        "- `ItchNormalizeBenchmark.normalizeSession`: ITCH 5.0 decode + validate + normalize + SBE encode + ring write, one",
        "  thread, from memory, over a generated 200,000-message session (500 symbols) into 4 partition rings, in",
        "  MoldUDP64 datagrams of at most 1,400 bytes (the ring records and counters published after each, as the feed",
        "  handler does); every 256 messages the rings are emptied, by a no-op read of every record (`consumer=read`,",
        "  the reads included) or by moving each head to its tail (`consumer=advance`, the writer alone, the reads",
        "  left to another core as in the feed handler). One op = one ITCH message.",
        "- `ItchNormalizeUncheckedBenchmark.normalizeSession`: the same with Agrona's bounds checks off",
        "  (`-Dagrona.disable.bounds.checks=true`, see docs/OPERATIONS.md).",
        "- `ItchReplayBenchmark.replaySession`: `mdfanout replay` of the same session as an ITCH file at the maximum pace:",
        "  `ItchFileReplayer` reading it from an in-memory stream (which drains the rings every 8 KiB, included) through",
        "  the normalizer into 4 rings. One op = one record; against `ItchNormalizeBenchmark`, the replayer's own cost.",
        "- `SbeCodecBenchmark.encode|decode`: one normalized message, every field written or read. One op = one message.",
        "- `RingBufferBenchmark.writeRead`: claim + fill + commit + read of one 44-byte record, one thread;",
        "  `datagramTryClaimCommit` / `datagramBatchingWriter`: 10 such records (a datagram's worth) written with",
        "  `tryClaim`/`commit` each, or with the feed handler's `BatchingRingWriter` and one publish, then read in one",
        "  read; per record;",
        "  `spsc`: producer and consumer threads on one ring (per-thread rows are each side's time per call,",
        "  a failed claim on a full ring or an empty read included).",
        "- `SdkBookBenchmark.decodeIntoBooks`: the SDK's packet validation, sequencing, SBE decode and `OrderBooks` update",
        "  over the session's packets (normalized into 4 partitions, packed at Aeron's default 1,376-byte payload). One op =",
        "  one pass; the `messages` row is normalized messages per second. `decodeOnly`: the same packets into a listener",
        "  that only counts them: the SDK's own cost per message, paid by every subscriber before its application's work.",
        "- `SdkPairBenchmark`: what arbitrating a pair (issue 37) costs the SDK against one side, on the same packets in",
        "  the same run, into a listener that only counts: `oneSide` (one fanout's packets, a single-side decoder: the",
        "  baseline), `pairBothSides` (each packet from side A and then its copy from side B through a pair's decoder:",
        "  each message delivered once, side B's copies dropped as duplicates, a pair in steady state) and `pairOneSide`",
        "  (the pair's decoder with side B down). One op = one pass; the `messages` row is delivered messages per second.",
        "- `FanoutStateBenchmark.apply`: the fanout's state upkeep per message (`PartitionState.apply`: order pool, order",
        "  index, per-instrument order lists, state messages, every store through the undo log that makes a message atomic",
        "  against kill -9), over the same session normalized into 4 partitions, in session order, then a delete for each",
        "  order left resting; real state files in /dev/shm with the default `--max-orders`, pre-touched. One op = one",
        "  pass; the `messages` row is messages per second.",
        "",
    ]
    os.makedirs(os.path.dirname(output_path) or ".", exist_ok=True)
    with open(output_path, "w") as f:
        f.write("\n".join(lines))
    print(f"wrote {output_path} ({len(results)} benchmarks)")


if __name__ == "__main__":
    main()
