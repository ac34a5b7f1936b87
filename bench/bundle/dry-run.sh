#!/usr/bin/env bash
# make bench-bundle-test (part of make test): the bench bundle's dry run, so that the bundle cannot rot.
#   bench/bundle/dry-run.sh [BUNDLE_DIR]     (default bench/target/bench-bundle, built by make bench-bundle)
# Runs the bundle's own script at tiny sizes (BUNDLE_SIZE=tiny) in a mount namespace where this machine's Java, Maven,
# Go and Rust are hidden under empty directories and with none of them on PATH: only the bundle's runtime and
# binaries can serve it. Then checks what a many-core run relies on: every section ran and measured, OUT_DIR holds the
# four result files (at most 8), nothing is left behind (processes, /dev/shm files, the work directory), the CPU plans
# for 8 and 16 CPUs give every process CPUs of its own, and a full run refuses a host with too few CPUs.
set -uo pipefail
cd "$(dirname "$0")/../.."
bundle="$(cd "${1:-bench/target/bench-bundle}" && pwd)" || { echo "dry-run: no bundle; run make bench-bundle" >&2; exit 1; }
[ -x "$bundle/run" ] || { echo "dry-run: $bundle/run missing; run make bench-bundle" >&2; exit 1; }
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
failures=0 passes=0
check() {  # check DESCRIPTION COMMAND...: one line each, PASS or FAIL
  if "${@:2}"; then echo "dry-run: PASS $1"; passes=$((passes + 1)); else echo "dry-run: FAIL $1"; failures=$((failures + 1)); fi
}

# ---- the plans ------------------------------------------------------------------------------------------------------
plan_ok() {  # plan_ok CPU_LIST PLAN: the processes of each kind of run have disjoint CPU sets, none on the first CPU
  "$bundle/run" --plan "$1" | python3 -c '
import sys
p = {k: v.strip("\x27") for k, v in (l.split("=", 1) for l in sys.stdin.read().splitlines())}
want, first = sys.argv[1], sys.argv[2]
def cpus(v):
    out = []
    for part in v.replace(" ", ",").split(","):
        if part:
            a, _, b = part.partition("-"); out += range(int(a), int(b or a) + 1)
    return out
runs = {"chain": ["SIM_CPUS", "FH_CPUS", "FO_CPUS", "SUB_DRIVER_CPUS", "SUB_CPUS"],
        "raw": ["SIM_CPUS", "RAW_PUB_CPUS", "RAW_PUB_DRIVER_CPUS", "RAW_SUB_DRIVER_CPUS", "RAW_SUB_CPUS"],
        "publisher": ["PUB_REPLAY_CPUS", "PUB_FANOUT_CPUS", "PUB_DRIVER_CPUS", "PUB_SUB_CPUS"],
        "nats": ["SIM_CPUS", "FH_CPUS", "NATS_BRIDGE_CPUS", "NATS_SERVER_CPUS", "NATS_SUB_CPUS"],
        "decoder": ["JMH_CPUS", "ITCHY_CPUS"]}
ok = p.get("PLAN") == want
for run, keys in runs.items():
    used = [c for k in keys for c in cpus(p.get(k, ""))]
    if len(used) != len(set(used)) or int(first) in used:
        print(f"plan {want}: {run} shares CPUs or uses CPU {first}: {used}"); ok = False
subs = p.get("PUB_SUB_CPUS", "").split()
if want == "dedicated" and len(subs) < 8:
    print(f"plan {want}: {len(subs)} CPUs for 8 publisher-run subscribers"); ok = False
sys.exit(0 if ok else 1)' "$2" "${1%%[-,]*}"
}
check "16 CPUs: the dedicated plan, every process on CPUs of its own" plan_ok 0-15 dedicated
check "16 CPUs numbered from 16: the same" plan_ok 16-31 dedicated
check "8 CPUs: the compact plan, every process on CPUs of its own" plan_ok 0-7 compact
check "4 CPUs: no plan" plan_ok 0-3 none
refuses() { local o; o=$(ALLOWED_CPUS=0-3 "$bundle/run" "$out/refused" 2>&1); [ $? = 2 ] && grep -q "needs 8 or more" <<<"$o"; }
check "a full run on 4 CPUs refuses with a reason (exit 2)" refuses
rm -rf "$out/refused"

# ---- the dry run, with no Java, Maven, Go or Rust but the bundle's ----------------------------------------------------
hide='for d in /usr/lib/jvm /usr/share/maven /usr/local/go "$HOME/.cargo" "$HOME/.rustup"; do
        [ -d "$d" ] && mount -t tmpfs tmpfs "$d"; done'
body='if command -v java >/dev/null || java -version >/dev/null 2>&1; then echo "dry-run: a system java is still reachable"; exit 9; fi
      BUNDLE_SIZE=tiny "$0" "$1"'
start_marker="$out/.start"; touch "$start_marker"
if unshare --mount --propagation private true 2>/dev/null; then
  # /usr/bin/java and mvn stay on PATH, pointing into the hidden directories: neither can run.
  env -u JAVA_HOME unshare --mount --propagation private bash -c "$hide; $body" "$bundle/run" "$out/results"
else
  echo "dry-run: no mount namespace here (unshare refused): java, mvn, go and cargo are only left off PATH"
  mkdir -p "$out/path"
  IFS=: read -r -a dirs <<<"$PATH"
  for d in "${dirs[@]}"; do
    for f in "$d"/*; do
      case "$(basename "$f")" in java|javac|jar|jlink|jdeps|jshell|jcmd|mvn|go|gofmt|cargo|rustc|rustup) continue ;; esac
      [ -x "$f" ] && [ ! -e "$out/path/$(basename "$f")" ] && ln -s "$f" "$out/path/"
    done
  done
  env -u JAVA_HOME PATH="$out/path" bash -c "$body" "$bundle/run" "$out/results"
fi
rc=$?
check "the bundle ran at tiny sizes with no system Java (exit $rc)" test "$rc" = 0

files=$(ls -A "$out/results" 2>/dev/null | sort | tr '\n' ' ')
check "OUT_DIR holds summary.md, results.tar.gz, bundle.json, console.log (has: $files)" \
  test "$files" = "bundle.json console.log results.tar.gz summary.md "
mkdir -p "$out/unpacked" && tar -xzf "$out/results/results.tar.gz" -C "$out/unpacked" 2>/dev/null
measured() {
  python3 - "$out/unpacked/results" "$out/results/bundle.json" <<'EOF'
import glob, json, os, sys
r, bundle = sys.argv[1], json.load(open(sys.argv[2]))
def j(*p):
    path = os.path.join(r, *p)
    return json.load(open(path)) if os.path.exists(path) else {}
problems = []
for name, s in bundle["sections"].items():
    if s.get("rc") != 0:
        problems.append(f"section {name}: {s}")
for kind in ("latency", "latency-outside"):
    for system in ("chain", "raw-aeron"):
        if not j(kind, f"{system}-20000-sub1.json").get("count"):
            problems.append(f"{kind}/{system}-20000: no histogram")
        if not os.path.exists(os.path.join(r, kind, f"{system}-20000-sub1.hgrm")):
            problems.append(f"{kind}/{system}-20000: no .hgrm")
    # raw Aeron's latency runs over the chain's hops: the simulator's datagrams through raw-aeron-relay
    run = j(kind, "raw-aeron-20000.run.json")
    if run.get("from") != "relay" or run.get("relay_exit") != 0:
        problems.append(f"{kind}/raw-aeron-20000: not relayed from the simulator's datagrams: {run}")
# the outside view's second pair (OUTSIDE_PAIRS=2), relayed as the first
for system in ("chain", "raw-aeron"):
    if not j("latency-outside-repeats", f"{system}-20000-1-sub1.json").get("count"):
        problems.append(f"latency-outside-repeats/{system}-20000-1: no histogram")
if j("latency-outside-repeats", "raw-aeron-20000-1.run.json").get("from") != "relay":
    problems.append("latency-outside-repeats/raw-aeron-20000-1: not relayed")
for system in ("chain", "raw", "raw-batched"):
    if not j("throughput", f"{system}.max.json").get("max_rate"):
        problems.append(f"throughput {system}: no clean rate")
if not j("throughput", "sender-ceiling.json").get("pre_encoded"):
    problems.append("throughput: the sender's ceiling not measured")
for name in ("pub-1", "pub-2", "pub-own-1", "pub-own-2"):
    if not j("publisher", f"{name}.run.json").get("complete"):
        problems.append(f"publisher {name}: incomplete")
if not j("host-jitter.json").get("worst", {}).get("time_share_over_us"):
    problems.append("host jitter: not measured")
if not j("latency", "nats-20000-sub1.json").get("count"):
    problems.append("nats: no histogram")
if len(glob.glob(os.path.join(r, "decoder", "round-1-*.itchy.txt"))) != 2:
    problems.append("decoder: not both consumers side by side with itchy")
if "java" not in j("machine.json").get("jdk", "") and "openjdk" not in j("machine.json").get("jdk", ""):
    problems.append(f"machine.json: jdk {j('machine.json').get('jdk')}")
print("\n".join(problems))
sys.exit(1 if problems else 0)
EOF
}
check "every section measured: host jitter, latency (both views, raw Aeron relayed, two pairs from outside), throughput (sender ceiling, raw Aeron batched too), publisher (own drivers too), NATS, normalizer vs itchy" measured
summary_ok() { grep -q "^## Dedicated, pinned cores" "$out/results/summary.md" && grep -q "### Latency, pinned" "$out/results/summary.md"; }
check "summary.md is the report's section" summary_ok
# A run without a CPU plan judges nothing; the targets a planned run is judged on must still come from these files.
judged() {
  python3 - "$out/unpacked/results" <<'EOF'
import sys
sys.path.insert(0, "bench/e2e")
import report_pinned
rows = report_pinned.targets(sys.argv[1])
# (the latency ratios and NATS are judged at 100,000 msg/s, which a tiny run does not reach, and the fan-out on
# publisher runs too short for a per-second rate)
want = ["the chain's own cost", "zero-loss throughput", "normalizer"]
missing = [w for w in want if not any(w in t for t, _, _ in rows)]
if missing:
    print("targets not judged: " + ", ".join(missing))
sys.exit(1 if missing else 0)
EOF
}
check "every target a planned run is judged on comes from these files (the chain's own cost too)" judged
leftovers() {
  ! pgrep -f -- "$bundle/bin/../lib/mdfanout.jar" >/dev/null && ! pgrep -f -- "$bundle/peers/" >/dev/null &&
    [ -z "$(find /dev/shm -maxdepth 1 -name 'mdfanout-bench*' -newer "$start_marker" 2>/dev/null)" ] &&
    [ -z "$(find "${TMPDIR:-/tmp}" -maxdepth 1 -name 'mdfanout-bundle.*' -newer "$start_marker" 2>/dev/null)" ]
}
check "nothing left behind: processes, /dev/shm files, the work directory" leftovers
no_desktop() { [ ! -e "$bundle/runtime/lib/libawt.so" ] && "$bundle/runtime/bin/java" --list-modules | grep -q '^jdk.unsupported@'; }
check "the runtime is the jlink'ed one: jdk.unsupported in, java.desktop out" no_desktop

[ "$failures" = 0 ] || { echo "dry-run: $failures check(s) failed; the run's console:"; tail -40 "$out/results/console.log" 2>/dev/null; }
echo "$passes passed, $failures failed"
[ "$failures" = 0 ]
