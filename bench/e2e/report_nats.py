#!/usr/bin/env python3
"""The NATS peer's section of the benchmark report, from a results directory that bench/e2e/nats.sh (NATS runs)
and bench/e2e/run.sh (the chain's runs) wrote into.

section(results_dir, images_dir=None, image_rel=None) -> markdown: latency of the chain with NATS instead of
our fanout (simulator -> feed handler -> nats-bridge -> nats-server -> nats-latency) against the chain, per rate,
with the ratio NATS/chain at p99 (the issue's target: the chain at least 10x lower), the fan-out runs, and a
percentile plot (SVG, drawn with report.py's helpers) when images_dir is given. Every figure is read from the
results; nothing is typed by hand.

usage: bench/e2e/report_nats.py RESULTS_DIR [--images DIR]   (prints the section)
"""
import argparse
import glob
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import report as base  # noqa: E402  (the shared table/plot helpers)

COLUMNS = [("p50", "p50_us"), ("p99", "p99_us"), ("p99.9", "p99_9_us"), ("max", "max_us")]


def _load(path):
    return base.load_json(path) if os.path.exists(path) else None


def _sub(results, kind, name, i=1):
    return _load(os.path.join(results, kind, f"{name}-sub{i}.json"))


def _clean(sub, run):
    """Whether a run delivered everything: subscriber exit 0, no gap, nothing dropped."""
    if sub is None or run is None:
        return False
    return all(e == 0 for e in run.get("subscriber_exits", [1])) and not run.get("subscriber_gaps") \
        and not run.get("subscriber_dropped")


def _row(label, sub, run):
    if sub is None:
        return f"| {label} | " + " | ".join("n/a" for _ in COLUMNS) + " | n/a | n/a |"
    cells = " | ".join(base.us(sub.get(key)) for _, key in COLUMNS)
    return f"| {label} | {cells} | {sub.get('count', 'n/a'):,} | {'yes' if _clean(sub, run) else 'NO'} |"


def _rates(results):
    runs = [base.load_json(p) for p in glob.glob(os.path.join(results, "latency", "nats-*.run.json"))]
    return sorted({r["rate"] for r in runs})


def section(results_dir, images_dir=None, image_rel=None):
    """The markdown section (a '## ' heading and what follows) for the NATS peer, or a one-line note if the
    results hold no NATS run."""
    results = results_dir.rstrip("/")
    rates = _rates(results)
    fanout_runs = sorted((base.load_json(p) for p in glob.glob(os.path.join(results, "fanout", "nats-fanout-*.run.json"))),
                         key=lambda r: r["subscribers"])
    md = ["## NATS as the fan-out", ""]
    if not rates and not fanout_runs:
        md.append("No NATS runs in this results directory (`bench/e2e/nats.sh` did not run or failed; see its log).")
        return "\n".join(md) + "\n"

    elapsed = _load(os.path.join(results, "nats-elapsed.json")) or {}
    md.append("The peer users would pick instead of our fanout: the same chain with the fanout replaced by "
              f"[NATS](https://nats.io) (nats-server {elapsed.get('nats_server', '?')} built from the Go module "
              "proxy, the official Java client jnats): `simulator --latency-timestamps -> feed-handler -> rings -> "
              "nats-bridge -> nats-server -> nats-latency`. `nats-bridge` drains the same partition rings as the "
              "fanout, with the fanout's batching, and publishes each packet of our wire format as one NATS message "
              "on `mdfanout.<partition>`; `nats-latency` decodes them with the SDK's decoder and records "
              "latency with the `latency` tool's recorder (same clock, same warm-up, measured from the same "
              "point as the chain's runs: the feed handler's receive), so only the transport differs. Same "
              "message counts and settings as the "
              "chain's runs; plain core NATS on loopback (no JetStream). Made by `bench/e2e/nats.sh`"
              + (f" in {elapsed['elapsed_s']} s" if "elapsed_s" in elapsed else "") + ".")
    md.append("")
    if rates:
        md.append("### Latency, NATS vs the chain (microseconds)")
        md.append("")
        md.append("| rate (msg/s) | system | " + " | ".join(n for n, _ in COLUMNS) + " | measured | complete |")
        md.append("|---|---|" + "---|" * len(COLUMNS) + "---|---|")
        ratios = []
        series = []
        for rate in rates:
            nats_run = _load(os.path.join(results, "latency", f"nats-{rate}.run.json"))
            nats = _sub(results, "latency", f"nats-{rate}")
            chain_run = _load(os.path.join(results, "latency", f"chain-{rate}.run.json"))
            chain = _sub(results, "latency", f"chain-{rate}")
            md.append(_row(f"{rate:,} | chain (Aeron)", chain, chain_run))
            md.append(_row(f"{rate:,} | NATS", nats, nats_run))
            ratios.append((rate, base.ratio(nats and nats.get("p99_us"), chain and chain.get("p99_us")),
                           base.ratio(nats and nats.get("p50_us"), chain and chain.get("p50_us"))))
            for label, name in (("chain", f"chain-{rate}"), ("NATS", f"nats-{rate}")):
                points = base.read_hgrm(os.path.join(results, "latency", f"{name}-sub1.hgrm"))
                if points:
                    series.append((f"{label} {rate:,}/s", points))
        md.append("")
        md.append("| rate (msg/s) | NATS / chain at p99 | NATS / chain at p50 |")
        md.append("|---|---|---|")
        for rate, p99, p50 in ratios:
            md.append(f"| {rate:,} | {p99} | {p50} |")
        md.append("")
        md.append("Target (issue 6): the chain's p99 at 100,000 msg/s at least 10x lower than NATS's, i.e. a "
                  "NATS / chain ratio of 10x or more.")
        md.append("")
        if images_dir and series:
            os.makedirs(images_dir, exist_ok=True)
            if base.latency_plot(series, os.path.join(images_dir, "nats-latency.svg")):
                rel = image_rel if image_rel is not None else images_dir
                md.append(f"![latency by percentile, NATS vs the chain]({rel}/nats-latency.svg)")
                md.append("")
    if fanout_runs:
        md.append("### Fan-out through NATS (microseconds; worst subscriber per column)")
        md.append("")
        md.append("| subscribers | rate (msg/s) | " + " | ".join(n for n, _ in COLUMNS) +
                  " | chain p99, same subscribers | NATS / chain at p99 | complete |")
        md.append("|---|---|" + "---|" * len(COLUMNS) + "---|---|---|")
        for run in fanout_runs:
            n = run["subscribers"]
            subs = [s for s in (_sub(results, "fanout", run["name"], i) for i in range(1, n + 1)) if s]
            chain_subs = [s for s in (_sub(results, "fanout", f"fanout-{n}", i) for i in range(1, n + 1)) if s]
            worst = {key: max((s.get(key) or 0) for s in subs) if subs else None for _, key in COLUMNS}
            chain_p99 = max(s.get("p99_us") or 0 for s in chain_subs) if chain_subs else None
            complete = "yes" if len(subs) == n and all(s.get("exit") == 0 for s in subs) and _clean(subs[0], run) \
                else "NO"
            md.append(f"| {n} | {run['rate']:,} | " + " | ".join(base.us(worst[key]) for _, key in COLUMNS) +
                      f" | {base.us(chain_p99)} | {base.ratio(worst['p99_us'], chain_p99)} | {complete} |")
        md.append("")
    return "\n".join(md) + "\n"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("results")
    parser.add_argument("--images", default=None, help="write the SVG plot here (default: no plot)")
    args = parser.parse_args()
    sys.stdout.write(section(args.results, args.images))


if __name__ == "__main__":
    main()
