"""The latency table of bench/scripts/sdk-latency.sh: each SDK's fanout-send-to-delivery latency against Java's
measured in the same round, per percentile; the median of the rounds' ratios beside the median of their microseconds.
Writes OUT/summary.json, prints the table, and puts it between <!-- sdk-latency:begin --> and <!-- sdk-latency:end -->
in REPORT_MD when one is given (appended when the markers are not there).

  sdk_latency_report.py OUT ROUNDS REPORT_MD|'' COMMAND MODE RATE SECONDS WARMUP_S PARTITIONS LABEL...
"""

import json
import pathlib
import statistics
import sys

POINTS = [("p50", "p50_us"), ("p90", "p90_us"), ("p99", "p99_us"), ("p99.9", "p99_9_us"), ("max", "max_us")]
NAMES = {"java": "Java (`latency` tool)", "rust": "Rust (`client::FeedSubscriber`)",
         "python": "Python (`Subscriber.poll`)"}


def name(label):
    sdk, _, n = label.partition("-")
    return NAMES[sdk] + (f", subscriber {n} (A/A control)" if n else "")


def main():
    out, rounds, report, command, mode, rate, seconds, warmup_s, partitions = sys.argv[1:10]
    labels = sys.argv[10:]
    out, rounds = pathlib.Path(out), int(rounds)
    if labels[0] != "java":
        sys.exit("sdk-latency report: the first subscriber must be java, the baseline")
    figures = {}  # label -> [round's from_fanout_send]
    for label in labels:
        figures[label] = []
        for r in range(1, rounds + 1):
            path = out / f"round-{r}" / f"{label}.json"
            try:
                result = json.loads(path.read_text())
            except (OSError, ValueError) as e:
                sys.exit(f"sdk-latency report: round {r} has no figures for {label} ({e})")
            f = result["from_fanout_send"]
            if not f.get("count") or any(f[key] <= 0 for _, key in POINTS):
                sys.exit(f"sdk-latency report: round {r}: {label} recorded nothing ({path}): no ratio to report")
            figures[label].append(dict(f, messages=result.get("messages")))
    for r in range(rounds):
        counts = {label: figures[label][r]["messages"] for label in labels}
        if len(set(counts.values())) != 1:
            sys.exit(f"sdk-latency report: round {r + 1}: the SDKs delivered different message counts of the same "
                     f"session (the same seed and rate): {counts}")
    java = figures["java"]
    summary = {"mode": mode, "rate": int(rate), "seconds": int(seconds), "warmup_s": int(warmup_s),
               "partitions": int(partitions), "rounds": rounds, "command": command, "sdks": {}}
    header = "| SDK | " + " | ".join(p for p, _ in POINTS) + " | messages measured (median) |"
    lines = [header, "|---|" + "---:|" * (len(POINTS) + 1)]
    for label in labels:
        rows = figures[label]
        ratios = {p: [row[key] / j[key] for row, j in zip(rows, java)] for p, key in POINTS}
        micros = {p: [row[key] for row in rows] for p, key in POINTS}
        median_ratio = {p: statistics.median(v) for p, v in ratios.items()}
        median_us = {p: statistics.median(v) for p, v in micros.items()}
        count = statistics.median(row["count"] for row in rows)
        summary["sdks"][label] = {"ratio_median": median_ratio, "us_median": median_us, "ratios": ratios,
                                  "us": micros, "count_median": count}
        cells = " | ".join(f"{median_ratio[p]:.2f}x ({median_us[p]:,.1f} us)" for p, _ in POINTS)
        lines.append(f"| {name(label)} | {cells} | {count:,.0f} |")
    table = "\n".join(lines)
    rounds_lines = ["| round | SDK | " + " | ".join(p for p, _ in POINTS) + " |", "|---|---|" + "---:|" * len(POINTS)]
    for r in range(rounds):
        for label in labels:
            row = figures[label][r]
            cells = " | ".join(f"{row[key]:,.1f} us ({row[key] / java[r][key]:.2f}x)" for _, key in POINTS)
            rounds_lines.append(f"| {r + 1} | {label} | {cells} |")
    per_round = "\n".join(rounds_lines)
    (out / "summary.json").write_text(json.dumps(summary, indent=1) + "\n")
    print(table)
    print(per_round)
    if report:
        how = ("every SDK on the one chain of each round" if mode == "together" else
               "each SDK on a chain of its own, one after another, in each round")
        block = (f"<!-- sdk-latency:begin -->\n`{command}`, {rounds} rounds, {how}: {int(rate):,} msg/s on "
                 f"{partitions} partitions, {int(seconds)} s of messages measured after {int(warmup_s)} s of warm-up. "
                 "Each cell: the median of the rounds' ratios to Java's figure of the same round (the median of "
                 f"the rounds' microseconds):\n\n{table}\n\nEach round:\n\n{per_round}\n<!-- sdk-latency:end -->")
        path = pathlib.Path(report)
        text = path.read_text() if path.exists() else ""
        start, end = "<!-- sdk-latency:begin -->", "<!-- sdk-latency:end -->"
        if start in text and end in text:
            text = text[:text.index(start)] + block + text[text.index(end) + len(end):]
        else:
            text += ("\n" if text else "") + block + "\n"
        path.write_text(text)
        print(f"sdk-latency: the table is in {report}")


if __name__ == "__main__":
    main()
