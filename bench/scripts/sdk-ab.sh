#!/usr/bin/env bash
# The subscriber SDKs side by side, in one run: their throughput on the same packets, then their live latency on the
# same chain (SDK_PARTS, default both; make bench-sdk, and make bench's SDK phase).
#
# Throughput: the Java SDK (JMH's SdkBookBenchmark), the Rust
# SDK (subscribers/rust/examples/sdk_bench.rs, optimized) and the Python SDK (bench/scripts/sdk_python_bench.py over
# the optimized wheel) decode the session WriteSdkCase writes (the bench session normalized into 4 partitions and
# packed as the fanout packs them: the very packets SdkBookBenchmark builds), into order books, and into a listener
# that does nothing (Java and Rust). They run one after another in each round (never at once: two busy threads on two
# cores measure the scheduler), ROUNDS rounds, and each round's figures are compared with that round's Java figure, so
# that the machine's drift between rounds tilts no ratio; the report gives the median of the rounds' ratios.
#
# Latency: bench/scripts/sdk-latency.sh (its header says how), into OUT_DIR/latency, with the Rust example and the
# wheel built here: each SDK's live client from the fanout's send to the delivery of each message, against Java's in
# the same round.
#
# The Rust examples and the wheel are built once, untimed, optimized, before either part.
#   sdk-ab.sh OUT_DIR [REPORT_MD]
# Settings (environment): SDK_PARTS ("throughput latency"), ROUNDS (3, for both parts), SDK_JMH_ARGS
# (-f 1 -wi 3 -w 1s -i 5 -r 1s), SDK_SECONDS (5) and SDK_WARMUP_S (3) for Rust and Python's throughput, BENCH_CP
# (bench/target/mdfanout-bench.jar:bench/target/lib/*; make bench-sdk builds it); the latency part's SDK_LAT_*
# (sdk-latency.sh).
set -euo pipefail
cd "$(dirname "$0")/../.."
root="$(pwd)"

[ $# -ge 1 ] && [ $# -le 2 ] || { echo "usage: sdk-ab.sh OUT_DIR [REPORT_MD]" >&2; exit 2; }
out="$1"
out_arg="$1"
report="${2:-}"
rounds="${ROUNDS:-3}"
seconds="${SDK_SECONDS:-5}"
warmup="${SDK_WARMUP_S:-3}"
bench_cp="${BENCH_CP:-bench/target/mdfanout-bench.jar:bench/target/lib/*}"
read -r -a jmh_args <<<"${SDK_JMH_ARGS:--f 1 -wi 3 -w 1s -i 5 -r 1s}"
read -r -a parts <<<"${SDK_PARTS:-throughput latency}"
case "$rounds" in ''|*[!0-9]*|0) echo "sdk-ab: ROUNDS must be a positive integer, not '$rounds'" >&2; exit 2 ;; esac
throughput=0 latency=0
for part in "${parts[@]}"; do
  case "$part" in
    throughput) throughput=1 ;;
    latency) latency=1 ;;
    *) echo "sdk-ab: SDK_PARTS: '$part' is not throughput or latency" >&2; exit 2 ;;
  esac
done
[ "$throughput$latency" != 00 ] || { echo "sdk-ab: SDK_PARTS names no part (throughput, latency)" >&2; exit 2; }
[ "$throughput" = 0 ] || [ -f bench/target/mdfanout-bench.jar ] ||
  { echo "sdk-ab: no bench/target/mdfanout-bench.jar (make bench-sdk builds it: mvn -pl bench -am package)" >&2; exit 2; }
[ "$latency" = 0 ] || [ -f cli/target/mdfanout.jar ] ||
  { echo "sdk-ab: no cli/target/mdfanout.jar: the latency part's chain (bin/mdfanout) needs make build" >&2; exit 2; }
command -v cargo >/dev/null || { echo "sdk-ab: cargo is required for the Rust and Python SDKs (make rust-tools)" >&2; exit 2; }

rm -rf "$out"
mkdir -p "$out"
out="$(cd "$out" && pwd)"  # absolute: the wheel's build runs in subscribers/python
source bench/scripts/sdk-build.sh

# Built once, untimed, optimized: the Rust examples and the Python wheel (in a venv of this run).
[ "$throughput" = 0 ] || rust_bench="$(sdk_build_rust_example sdk_bench)"
[ "$latency" = 0 ] || rust_latency="$(sdk_build_rust_example sdk_latency aeron)"
python="$(sdk_build_python "$out")"
command_line="ROUNDS=$rounds${SDK_PARTS:+ SDK_PARTS=\"${parts[*]}\"} bench/scripts/sdk-ab.sh $out_arg${report:+ $report}"

if [ "$throughput" = 1 ]; then
case="$out/sdk-session.mdfc"
java --add-opens java.base/jdk.internal.misc=ALL-UNNAMED -cp "$bench_cp" io.mdfanout.bench.WriteSdkCase "$case"
for round in $(seq 1 "$rounds"); do
  base="$out/round-$round"
  java -Djmh.ignoreLock=true -cp "$bench_cp" org.openjdk.jmh.Main 'SdkBookBenchmark\.' "${jmh_args[@]}" \
    -rf json -rff "$base.java.json" >"$base.java.log" 2>&1 || { tail -20 "$base.java.log" >&2; exit 1; }
  "$rust_bench" "$case" books "$seconds" "$warmup" >"$base.rust-books.txt"
  "$rust_bench" "$case" decode "$seconds" "$warmup" >"$base.rust-decode.txt"
  "$python" bench/scripts/sdk_python_bench.py "$case" "$seconds" "$warmup" >"$base.python-books.txt"
  echo "sdk-ab: round $round of $rounds: $(cat "$base.rust-books.txt" "$base.python-books.txt" | tr '\n' ' ')"
done

python3 - "$out" "$rounds" "$report" "$command_line" <<'PY'
import json, pathlib, re, statistics, sys
out, rounds, report, command = pathlib.Path(sys.argv[1]), int(sys.argv[2]), sys.argv[3], sys.argv[4]
def java(r, name):
    for b in json.load(open(out / f"round-{r}.java.json")):
        if b["benchmark"].endswith("." + name):
            return b["secondaryMetrics"]["messages"]["score"]
    raise SystemExit(f"no {name} in round {r}")
def other(r, name):
    text = (out / f"round-{r}.{name}.txt").read_text()
    return float(re.search(r"median_msgs_per_s=(\d+)", text).group(1))
rows = [("into the books", "decodeIntoBooks", [("Rust", "rust-books"), ("Python", "python-books")]),
        ("decode only (a listener that does nothing)", "decodeOnly", [("Rust", "rust-decode")])]
lines = ["| path | SDK | msg/s (median of rounds) | ratio to Java (median of rounds) |", "|---|---|---:|---:|"]
for title, jname, others in rows:
    js = [java(r, jname) for r in range(1, rounds + 1)]
    lines.append(f"| {title} | Java | {statistics.median(js):,.0f} | 1.00x |")
    for label, name in others:
        xs = [other(r, name) for r in range(1, rounds + 1)]
        ratios = [x / j for x, j in zip(xs, js)]
        lines.append(f"| {title} | {label} | {statistics.median(xs):,.0f} | {statistics.median(ratios):.2f}x |")
table = "\n".join(lines)
print(table)
if report:
    path = pathlib.Path(report)
    text = path.read_text() if path.exists() else ""
    start, end = "<!-- sdk-ab:begin -->", "<!-- sdk-ab:end -->"
    block = f"{start}\n`{command}`, {rounds} rounds:\n\n{table}\n{end}"
    if start in text and end in text:
        text = text[:text.index(start)] + block + text[text.index(end) + len(end):]
    else:
        text += ("\n" if text else "") + block + "\n"
    path.write_text(text)
    print(f"sdk-ab: the table is in {report}")
PY
fi

if [ "$latency" = 1 ]; then
  ROUNDS="$rounds" SDK_RUST_LATENCY="$rust_latency" SDK_PYTHON="$python" SDK_LAT_COMMAND="$command_line" \
    bench/scripts/sdk-latency.sh "$out/latency" ${report:+"$report"}
fi
