#!/usr/bin/env python3
"""The archive's section of the benchmark report (issue 29), from a results directory bench/e2e/run.sh wrote
(its archive_section: RESULTS/archive/).

section(results_dir) -> markdown lines: the replay's rate from the archive (`record --from start --replay-only`)
against the live chain's highest clean rate of the same run (*Throughput*), and the chain's latency with the archive
recording every partition stream against without it, in alternating runs of the same run. Every figure is read from
the results; nothing is typed by hand. [] when the run had no archive section.

usage: bench/e2e/report_archive.py RESULTS_DIR   (prints the section)
"""
import glob
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import report as base  # noqa: E402  (the shared helpers)

PERCENTILES = [("p50", "p50_us"), ("p99", "p99_us"), ("p99.9", "p99_9_us")]


def _load(path):
    return base.load_json(path) if os.path.exists(path) else None


def _clean(run, sub):
    """A latency run that delivered everything: the subscriber exited 0 with no gap, the feed handler declared none."""
    return bool(run and sub) and all(e == 0 for e in run.get("subscriber_exits", [1])) \
        and run.get("subscriber_gaps") == 0 and not run.get("feed_gaps_declared")


def _pairs(results, rate):
    """[(pair number, order, off run, off sub, on run, on sub)] at a rate, as archive_section ran them."""
    pairs, i = [], 1
    while True:
        names = {m: f"archive-{m}-{rate}-{i}" for m in ("off", "on")}
        loaded = {m: (_load(os.path.join(results, "archive", f"{n}.run.json")),
                      _load(os.path.join(results, "archive", f"{n}-sub1.json"))) for m, n in names.items()}
        if not any(run for run, _ in loaded.values()):
            return pairs
        pairs.append((i, "without, then with" if i % 2 else "with, then without",
                      *loaded["off"], *loaded["on"]))
        i += 1


def _ratio_value(on, off, key):
    return on[key] / off[key] if on and off and on.get(key) and off.get(key) else None


def section(results_dir):
    results = results_dir.rstrip("/")
    settings = _load(os.path.join(results, "archive", "settings.json"))
    replays = sorted((base.load_json(p) for p in glob.glob(os.path.join(results, "archive", "*.replay.json"))),
                     key=lambda r: r["name"])
    rates = sorted({base.load_json(p)["rate"] for p in glob.glob(os.path.join(results, "archive", "*.run.json"))})
    if settings is None or not (replays or rates):
        return []
    chain_max = (_load(os.path.join(results, "throughput", "chain.max.json")) or {}).get("max_rate")
    warmup_s, seconds = settings.get("warmup_s"), settings.get("seconds")
    md = ["## The archive: replay and recording", ""]
    md.append("Issue 29's archive role (`mdfanout archive`, [ARCHIVE.md](ARCHIVE.md)) in the same run as the sections "
              f"above (`make bench`, its `archive_section`): at {', '.join(f'{r:,}' for r in rates)} msg/s, "
              f"{settings.get('pairs')} pair{'s' if settings.get('pairs') != 1 else ''} of chain latency runs as in *Latency* ({warmup_s} s of messages of "
              f"warm-up, then {seconds} s measured), one without the archive and one with a fresh archive recording "
              "every partition stream of the fanout, alternating (without then with, then with then without, ...) so "
              "that a drift of the machine over the section falls on both sides. The archive is one more process on "
              "the same two cores (its embedded media driver receives the multicast streams, Aeron Archive writes "
              "them to disk: the results directory's file system). After each run with it, the chain stopped, its "
              "recording is replayed from the archive with `record --from start --replay-only` on the otherwise "
              "idle machine, and the archive is stopped (SIGTERM) and its recordings deleted.")
    md.append("")

    # Replay throughput against the live path's zero-loss throughput.
    if replays:
        md.append("### Replay throughput against the live path's zero-loss throughput")
        md.append("")
        md.append("The replay's rate is the messages replayed over the seconds from the `record` tool's first "
                  "message to its end (`receivingS` on its summary line: the archive reads the recording and "
                  "sends it over UDP unicast, the tool receives, checks, decodes and dispatches every message, "
                  "writing none, as the throughput steps' subscriber does); it leaves out the tool's JVM start, its "
                  "embedded media driver's and the replay's set-up, which the tool's whole wall time (last columns) "
                  "keeps. The tool is a fresh JVM: its compiling is in the figure (the live steps have a warm-up). "
                  "What the archive sends before the tool's first poll waits in its receive buffers, so on a short "
                  "recording the rate leans high; the rate over the tool's wall time is a floor. The recording was "
                  "just written, so it is read from the page cache.")
        md.append("")
        md.append("| recording | messages replayed | seconds, first message to end | replay rate (msg/s) | "
                  "tool's wall time (s) | rate over the wall time (msg/s) | complete |")
        md.append("|---|---:|---:|---:|---:|---:|---|")
        for r in replays:
            md.append(f"| {r['name']} | {base.rate(r.get('replayed'))} | {r.get('receiving_s')} | "
                      f"{base.rate(r.get('rate'))} | {r.get('wall_s')} | {base.rate(r.get('wall_rate'))} | "
                      f"{'yes' if r.get('clean') else 'NO (exit %s, gaps %s, archive holes %s)' % (r.get('exit'), r.get('gaps'), r.get('archive_holes'))} |")
        clean = [r for r in replays if r.get("clean") and r.get("rate")]
        replay_rate = base.median([r["rate"] for r in clean]) if clean else None
        wall_rate = base.median([r["wall_rate"] for r in clean]) if clean else None
        md.append("")
        md.append("| | msg/s |")
        md.append("|---|---:|")
        md.append(f"| replay from the archive, median of {len(clean)} complete replay{'s' if len(clean) != 1 else ''} | {base.rate(replay_rate)} |")
        md.append(f"| live chain, highest clean rate (*Throughput*) | {base.rate(chain_max)} |")
        md.append(f"| **replay / live** | **{base.ratio(replay_rate, chain_max)}** |")
        md.append(f"| replay over the tool's wall time / live | {base.ratio(wall_rate, chain_max)} |")
        md.append("")
        if chain_max is None:
            md.append("This run measured no live throughput (`SKIP_THROUGHPUT=1`): no ratio.")
            md.append("")

    # Latency with the archive recording against without it.
    all_pairs = []
    if rates:
        md.append("### The live path's latency with the archive recording against without it")
        md.append("")
        md.append("Microseconds, one `latency` subscriber, from the feed handler's receive of the datagram to the "
                  "subscriber's callback as in *Latency*; *with / without* is each pair's ratio, and the median of "
                  "the complete pairs' ratios is in bold.")
        md.append("")
        md.append("| rate (msg/s) | pair | order | without p50 | p99 | p99.9 | with p50 | p99 | p99.9 | "
                  "with / without p50 | p99 | p99.9 | simulator kept, without / with (msg/s) | complete |")
        md.append("|---:|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|")
        for rate in rates:
            pairs = _pairs(results, rate)
            all_pairs += pairs
            for i, order, off_run, off, on_run, on in pairs:
                ok = _clean(off_run, off) and _clean(on_run, on)
                missing = [f"{label}: {base.rate(sub.get('missing'))} missing, {run.get('subscriber_gaps')} gaps"
                           for label, run, sub in (("without", off_run, off), ("with", on_run, on))
                           if run and sub and not _clean(run, sub)]
                md.append(f"| {rate:,} | {i} | {order} | "
                          + " | ".join(base.us(off.get(k)) if off else "n/a" for _, k in PERCENTILES) + " | "
                          + " | ".join(base.us(on.get(k)) if on else "n/a" for _, k in PERCENTILES) + " | "
                          + " | ".join(base.ratio(on.get(k) if on else None, off.get(k) if off else None)
                                       for _, k in PERCENTILES)
                          + f" | {base.rate((off_run or {}).get('simulator_rate'))} / "
                          f"{base.rate((on_run or {}).get('simulator_rate'))} | "
                          + ("yes" if ok else "NO (" + "; ".join(missing or ["no result"]) + ")") + " |")
            complete = [p for p in pairs if _clean(p[2], p[3]) and _clean(p[4], p[5])]
            medians = [base.median([v for v in (_ratio_value(p[5], p[3], k) for p in complete) if v is not None])
                       for _, k in PERCENTILES]
            md.append(f"| {rate:,} | **median of {len(complete)} complete pair{'s' if len(complete) != 1 else ''}** "
                      "| | | | | | | | "
                      + " | ".join(f"**{m:.2f}x**" if m is not None else "n/a" for m in medians) + " | | |")
        md.append("")
        if any(not (_clean(p[2], p[3]) and _clean(p[4], p[5])) for p in all_pairs):
            md.append("A pair marked NO lost messages in one of its runs (the subscriber's missing messages and gaps, "
                      "or a gap the feed handler declared) and is left out of the median; its logs are in the "
                      "results directory. A simulator that kept well under the rate asked means the machine was "
                      "short of CPU for that run.")
            md.append("")

    md.append("What it means: the replay rate is how fast a subscriber catches up from the archive (a late joiner, "
              "or a past session read back), against the fastest the live chain carries without loss on the same "
              "machine: above 1x, a subscriber replaying from the archive outruns the live feed even at the chain's "
              "limit; below it, a late joiner still catches up with a live session whose rate is below the replay "
              "rate (and merges into it), more slowly the closer the two are. The latency ratios are what recording "
              "costs the live path: the archive never slows the fanout (one more multicast receiver, it holds back "
              "no publication: `mdfanout archive --help`), so any difference is the archive's CPU and disk writes competing "
              "with the chain's processes for this machine's two cores; on a host where the archive has cores and "
              "a disk of its own (docs/ARCHIVE.md, *Operating the archive*) that share goes away. A ratio near 1x "
              "with p99 moving both ways between pairs is the machine's noise (see *Latency, repeated*).")
    md.append("")
    first_on = next((f"archive-on-{r}-1" for r in rates if base.commands_of(results, f"archive-on-{r}-1")), None)
    if first_on:
        md.append(f"Exactly as run, `{first_on}` (in start order; the run without the archive is the same less the "
                  "archive and the replay):")
        md.append("")
        md.append("```")
        md.extend(base.commands_of(results, first_on))
        md.append("```")
        md.append("")
    md.append(f"Settings: `ARCHIVE_RATES=\"{settings.get('rates')}\" ARCHIVE_PAIRS={settings.get('pairs')} "
              f"ARCHIVE_S={seconds}` (`WARMUP_S={warmup_s}`), control channel `{settings.get('control_channel')}`; "
              "`SKIP_ARCHIVE=1` leaves the section out.")
    md.append("")
    return md


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__.strip().splitlines()[-1])
    print("\n".join(section(sys.argv[1])))
