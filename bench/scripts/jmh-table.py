#!/usr/bin/env python3
"""Turn JMH's JSON results (-rf json) into docs/bench/micro.md: machine facts, the exact command and
one table row per benchmark (and per secondary rate such as SdkBookBenchmark's messages/s), with
the bytes allocated per operation from -prof gc. Generated, never typed: rerun `make bench-micro`.

usage: jmh-table.py RESULTS_JSON OUTPUT_MD COMMAND [ITCHY_OUTPUT]

ITCHY_OUTPUT is what bench/peers/itchy-bench.sh printed for the same session file in the same run:
the native decoder peer, compared with ItchNormalizeBenchmark (and its unchecked variant).
"""
import json
import os
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


def peer_section(results, itchy):
    """Normalize throughput against the Rust itchy decoder on the same file, same run."""
    lines = ["", "## Against the native decoder peer (same file, same run)", ""]
    if not itchy:
        lines.append("itchy did not run (see `make bench-micro`'s output; it needs cargo).")
        return lines
    peer = float(itchy["best_msgs_per_s"])
    lines.append("`bench/peers/itchy-bench.sh bench/target/session.itch`: the Rust `itchy` crate decodes the file that")
    lines.append("`io.mdfanout.bench.WriteSession` wrote from the benchmark's own session (decode only, from memory,")
    lines.append(f"best of {itchy.get('passes', '?')} passes; it skips the {itchy.get('skipped', '?')} messages of types it "
                 f"cannot parse and {itchy.get('rejected', '?')} it rejects). Ours decodes, validates, normalizes, encodes")
    lines.append("SBE and writes the rings; the score is JMH's mean over the measurement iterations.")
    lines.append("")
    lines.append("| | messages/s | ns/message | ratio to itchy |")
    lines.append("|---|---:|---:|---:|")
    lines.append(f"| itchy (decode only) | {peer:,.0f} | {1e9 / peer:.1f} | 1.00 |")
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


def targets_section(results, itchy):
    """Issue 6's micro-benchmark targets against this run."""
    def score(prefix, consumer=None):
        for r in results:
            if r["benchmark"].rsplit(".", 2)[-2] == prefix and (r.get("params") or {}).get("consumer") == consumer:
                return r["primaryMetric"]["score"]
        return None

    rows = []
    peer = float(itchy["best_msgs_per_s"]) if itchy else None
    for consumer in (None, "read", "advance"):
        for label, value in (("bounds checks on", score("ItchNormalizeBenchmark", consumer)),
                             ("bounds checks off", score("ItchNormalizeUncheckedBenchmark", consumer))):
            if not value:
                continue
            label += f", consumer={consumer}" if consumer else ""
            rows.append((f"ITCH decode + normalize + ring write at least 30,000,000 msg/s on one core ({label})",
                         f"{value:,.0f} msg/s", value >= 30e6))
            if peer:
                rows.append((f"... and faster than itchy on the same file ({label})",
                             f"{value / peer:.2f}x itchy's {peer:,.0f} msg/s", value > peer))
    codec = [r for r in results if r["benchmark"].rsplit(".", 2)[-2] == "SbeCodecBenchmark"]
    if codec:
        worst = max(r["primaryMetric"]["score"] for r in codec)
        rows.append(("SBE encode or decode of a normalized message under 25 ns",
                     f"worst of {len(codec)}: {worst:.1f} ns", worst < 25))
    allocs = [r["secondaryMetrics"]["gc.alloc.rate.norm"]["score"] for r in results
              if "gc.alloc.rate.norm" in (r.get("secondaryMetrics") or {}) and
              not r["benchmark"].endswith(("decodeIntoBooks", "decodeOnly", "FanoutStateBenchmark.apply"))]  # per pass
    if allocs:
        rows.append(("0 bytes allocated per message on the message path",
                     f"at most {max(allocs):.3g} B/op (JMH's own background allocation, see above)",
                     max(allocs) < 1))
    if not rows:
        return []
    out = ["", "## Against the targets", "", "| target | measured | |", "|---|---|---|"]
    out += [f"| {t} | {m} | {'**met**' if ok else 'not met'} |" for t, m, ok in rows]
    return out


def main():
    if len(sys.argv) not in (4, 5):
        sys.exit(__doc__)
    results_path, output_path, command = sys.argv[1:4]
    itchy = read_itchy(sys.argv[4]) if len(sys.argv) == 5 else None
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
    lines += targets_section(results, itchy)
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
