#!/usr/bin/env bash
# Checks a release folder (scripts/release/release.sh) as a consumer would use it, then proves the SDK is
# usable outside this tree:
#   1. maven/: exactly the published artifacts; the jars with their -sources and -javadoc jars; the parent
#      pom carries the license (Apache-2.0), scm and url, and the module poms name that parent;
#   2. chart/: the packaged chart of this version;
#   3. image/: an image archive whose config carries the OCI labels (read from the archive itself);
#   4. SHA256SUMS covers every file and verifies;
#   4b. rust/: the crate holds its sources and the schema its build script reads; python/: the wheel installs with
#      pip into a new venv (no index) and gives the conformance suite's normal-flow output there;
#   5. builds examples/subscriber (its own pom, no parent) with a local repository that has every third-party
#      artifact (a copy of ~/.m2/repository) but no io.mdfanout one, offline but for the file repository:
#      the SDK can only come from maven/;
#   6. runs simulator -> feed handler -> fanout on loopback multicast (bin/mdfanout, addresses of this test
#      only) and the example against them until it has seen live books; it must exit 0. Beside it, the Python
#      example (examples/python/top_of_book.py) in the venv the wheel went into, through a media driver of its own
#      (bin/mdfanout media-driver): live books too, exit 0.
# Every process it starts and every file it makes is removed at the end, pass or fail.
#
# usage: scripts/release/release-test.sh [RELEASE_DIR]   (default target/release; make release first)
# env:   RELEASE_TEST_KEEP=1 keeps the work directory with the logs
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
dir="$(cd "${1:-$root/target/release}" && pwd)"
started="$(date +%s)"

# What other projects consume; nothing else may be published.
published="mdfanout-parent mdfanout-schemas mdfanout-sdk"
with_jars="mdfanout-schemas mdfanout-sdk"
# Addresses of this test only (other tests on the machine use other groups, ports and streams).
partitions=2
feed_group=239.255.49.1; feed_port=49100
channel='aeron:udp?endpoint=224.0.49.1:49456|interface=127.0.0.1|mtu=8192'
stream_id_base=4900
example_messages=20000
example_timeout_s=60

work="$(mktemp -d /tmp/mdfanout-release-test.XXXXXX)"
ring_dir="/dev/shm/mdfanout-release-test-$$"
driver_dir="/dev/shm/mdfanout-release-test-driver-$$"
pids=()

log() { echo "release test: $*" >&2; }
fail() { log "FAILED: $*"; exit 1; }

cleanup() {
  local rc=$?
  trap - EXIT INT TERM
  for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
  for _ in $(seq 1 50); do
    local alive=0
    for pid in "${pids[@]}"; do kill -0 "$pid" 2>/dev/null && alive=1; done
    [ "$alive" = 0 ] && break
    sleep 0.1
  done
  for pid in "${pids[@]}"; do kill -KILL "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
  if [ "$rc" != 0 ]; then
    for f in "$work"/*.log; do
      [ -f "$f" ] || continue
      echo "----- last lines of $(basename "$f") -----" >&2
      tail -15 "$f" >&2
    done
  fi
  rm -rf "$ring_dir" "$driver_dir"
  if [ "${RELEASE_TEST_KEEP:-0}" = 1 ]; then log "work directory kept: $work"; else rm -rf "$work"; fi
  [ "$rc" = 0 ] && log "passed in $(( $(date +%s) - started )) s"
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

version="$(sed -n 's:^  <version>\(.*\)</version>.*:\1:p' "$root/pom.xml" | head -1)"
revision="$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)"
[ -f "$dir/RELEASE.txt" ] || fail "$dir holds no release (make release first)"

# ---- 1. the Maven repository ---------------------------------------------------------------------------
repo="$dir/maven/io/mdfanout"
found="$(cd "$repo" && ls -d */ | tr -d / | LC_ALL=C sort | xargs)"
[ "$found" = "$published" ] || fail "maven/ publishes '$found', expected '$published' (maven.deploy.skip: \
mdfanout.publish.skip in the module poms)"
for artifact in $with_jars; do
  base="$repo/$artifact/$version/$artifact-$version"
  for suffix in .jar -sources.jar -javadoc.jar .pom; do
    [ -s "$base$suffix" ] || fail "maven/ lacks $artifact-$version$suffix"
  done
  # (grep without -q reads to the end: an early exit would fail the pipe under pipefail)
  unzip -l "$base-sources.jar" | grep '\.java$' >/dev/null || fail "$artifact-$version-sources.jar has no sources"
  unzip -l "$base-javadoc.jar" | grep ' index.html$' >/dev/null || fail "$artifact-$version-javadoc.jar has no javadoc"
  grep -q "<artifactId>mdfanout-parent</artifactId>" "$base.pom" || fail "$artifact's pom does not name mdfanout-parent"
done
parent="$repo/mdfanout-parent/$version/mdfanout-parent-$version.pom"
[ -s "$parent" ] || fail "maven/ lacks the parent pom"
for element in '<licenses>' 'Apache License, Version 2.0' '<scm>' '<connection>scm:git:' '<url>https://' \
  '<developers>'; do
  grep -qF "$element" "$parent" || fail "the parent pom lacks $element"
done
log "maven/: $published; jars with sources and javadoc; license and scm in the parent pom"

# ---- 2. the chart --------------------------------------------------------------------------------------
chart="$dir/chart/mdfanout-$version.tgz"
[ -s "$chart" ] || fail "no chart/mdfanout-$version.tgz"
tar -xzOf "$chart" mdfanout/Chart.yaml | grep -x "version: $version" >/dev/null ||
  fail "the packaged chart is not version $version"
log "chart/: mdfanout-$version.tgz"

# ---- 3. the image archive and its OCI labels (from the archive's own config, nothing loaded) ---------------
archive="$dir/image/mdfanout-$version.tar"
[ -s "$archive" ] || fail "no image/mdfanout-$version.tar"
python3 - "$archive" "$version" "$revision" <<'EOF' || fail "the image archive's labels are wrong (above)"
import json, sys, tarfile
archive, version, revision = sys.argv[1:]
with tarfile.open(archive) as tar:
    manifest = json.load(tar.extractfile("manifest.json"))
    labels = json.load(tar.extractfile(manifest[0]["Config"]))["config"].get("Labels") or {}
expected = {"version": version, "revision": revision, "licenses": "Apache-2.0", "title": "mdfanout"}
problems = [f"{k}={labels.get('org.opencontainers.image.' + k)!r}, expected {v!r}" for k, v in expected.items()
            if labels.get("org.opencontainers.image." + k) != v]
problems += [f"{k} missing" for k in ("source", "created") if not labels.get("org.opencontainers.image." + k)]
for p in problems:
    print("release test: image label " + p, file=sys.stderr)
sys.exit(1 if problems else 0)
EOF
log "image/: mdfanout-$version.tar with the OCI labels (version $version, revision $revision, Apache-2.0)"

# ---- 4. checksums --------------------------------------------------------------------------------------
(cd "$dir" && sha256sum --quiet -c SHA256SUMS) || fail "SHA256SUMS does not verify"
unlisted="$(cd "$dir" && comm -23 <(find . -type f ! -name SHA256SUMS | sed 's|^\./||' | LC_ALL=C sort) \
  <(awk '{print $2}' SHA256SUMS | LC_ALL=C sort))"
[ -z "$unlisted" ] || fail "files not in SHA256SUMS: $unlisted"
log "SHA256SUMS verifies, $(wc -l <"$dir/SHA256SUMS") files"

# ---- 4b. the Rust crate and the Python wheel ---------------------------------------------------------------
crate="$dir/rust/mdfanout-$version.crate"
[ -f "$crate" ] || fail "no rust/mdfanout-$version.crate"
crate_files="$(tar -tzf "$crate")"  # listed once: grep -q would end tar early, a failure under pipefail
for entry in src/lib.rs src/decoder.rs build.rs schema/mdfanout-schema.xml Cargo.toml; do
  grep -qx "mdfanout-$version/$entry" <<<"$crate_files" || fail "the crate lacks $entry"
done
wheel="$(ls "$dir"/python/mdfanout-"$version"-*.whl 2>/dev/null | head -1)"
[ -n "$wheel" ] || fail "no python/mdfanout-$version-*.whl"
python3 -m venv "$work/venv"
"$work/venv/bin/python" -m pip install --quiet --no-index "$wheel" || fail "pip install of $(basename "$wheel") failed"
(cd "$work" && "$work/venv/bin/python" - "$root/conformance" <<'EOF') || fail "the installed wheel does not give the suite's output"
import pathlib, sys
import mdfanout
root = pathlib.Path(sys.argv[1])
case = (root / "cases" / "normal-flow.mdfc").read_bytes()
assert mdfanout.conformance_run(case) == (root / "expected" / "normal-flow.txt").read_text()
EOF
log "rust/$(basename "$crate") holds its sources and schema; python/$(basename "$wheel") installs and conforms"

# ---- 5. the example, built against maven/ only -----------------------------------------------------------
cp -r "$root/examples/subscriber" "$work/example"
rm -rf "$work/example/target"
cp -r "$HOME/.m2/repository" "$work/m2"
rm -rf "$work/m2/io/mdfanout"
# Offline (-o) but for file: repositories, so nothing can come from a network repository either.
(cd "$work/example" && mvn -B -ntp -q -Dstyle.color=never -o -Daether.offline.protocols=file \
  -Dmaven.repo.local="$work/m2" -Dmdfanout.repository="file://$dir/maven" package) >"$work/example-build.log" 2>&1 ||
  fail "examples/subscriber did not build against maven/: $(tail -20 "$work/example-build.log")"
for artifact in $published; do
  grep -q '>mdfanout-release=$' "$work/m2/io/mdfanout/$artifact/$version/_remote.repositories" 2>/dev/null ||
    fail "$artifact did not come from the release's repository"
done
example_jar="$work/example/target/mdfanout-example-subscriber-$version.jar"
[ -f "$example_jar" ] || fail "the example built no $example_jar"
log "examples/subscriber built against maven/ (io.mdfanout from it alone)"

# ---- 6. the example against a running chain ------------------------------------------------------------
mdfanout="$root/bin/mdfanout"
export MDFANOUT_HEAP=128m
"$mdfanout" feed-handler --group $feed_group --port $feed_port --interface 127.0.0.1 --ring-dir "$ring_dir" \
  --partitions $partitions --ring-capacity-bytes 4194304 >"$work/feed-handler.log" 2>&1 &
pids+=($!); chain_pids=($!); chain_names=(feed-handler)
"$mdfanout" fanout --ring-dir "$ring_dir" --partitions $partitions --channel "$channel" \
  --stream-id-base $stream_id_base --term-length-bytes 1048576 --max-orders 65536 >"$work/fanout.log" 2>&1 &
pids+=($!); chain_pids+=($!); chain_names+=(fanout)
# The example joins first; the simulator then sends until it is stopped, as in the demo.
# A plain `java -jar`: the example's manifest carries its class path and the opens Agrona needs.
java -Xmx128m -Daeron.print.configuration=false -jar "$example_jar" \
  --channel "$channel" --stream-id-base $stream_id_base --partitions $partitions \
  --symbol AAPL --symbol MSFT --messages $example_messages --timeout-s $example_timeout_s >"$work/example.log" 2>&1 &
example_pid=$!
pids+=($example_pid)
# The Python example, from the venv the released wheel went into, through a media driver of this host.
"$mdfanout" media-driver --aeron-dir "$driver_dir" >"$work/media-driver.log" 2>&1 &
pids+=($!); chain_pids+=($!); chain_names+=(media-driver)
for _ in $(seq 1 300); do [ -f "$driver_dir/cnc.dat" ] && break; sleep 0.1; done
[ -f "$driver_dir/cnc.dat" ] || fail "the media driver did not start within 30 s (see $work/media-driver.log)"
"$work/venv/bin/python" "$root/examples/python/top_of_book.py" --aeron-dir "$driver_dir" --channel "$channel" \
  --stream-id-base $stream_id_base --partitions $partitions --symbol AAPL --symbol MSFT \
  --messages $example_messages --timeout-s $example_timeout_s >"$work/example-python.log" 2>&1 &
python_example_pid=$!
pids+=($python_example_pid)
# The simulator starts once the feed handler has joined its group and the fanout runs: a feed handler that joins
# after the session's start (its JVM slow to start on a loaded machine: a fresh clone's make test once) finds the
# session under way with no re-request server, declares its start missing, and the example's books never go live.
wait_for_line() {  # wait_for_line FILE PATTERN SECONDS
  local end=$(( $(date +%s) + $3 ))
  until grep -q "$2" "$1" 2>/dev/null; do
    [ "$(date +%s)" -lt "$end" ] || return 1
    sleep 0.2
  done
}
wait_for_line "$work/feed-handler.log" '^feed-handler: receiving line A' 60 ||
  fail "the feed handler did not join its group within 60 s (see $work/feed-handler.log)"
wait_for_line "$work/fanout.log" '^fanout: running' 60 || fail "the fanout did not start within 60 s (see $work/fanout.log)"
"$mdfanout" simulator --group $feed_group --port $feed_port --interface 127.0.0.1 --symbols 50 --seed 7 \
  --rate 20000 --messages 0 --start-delay-ms 2000 >"$work/simulator.log" 2>&1 &
pids+=($!); chain_pids+=($!); chain_names+=(simulator)

# The examples stop themselves (done or timed out); the chain must stay up meanwhile.
deadline=$(( $(date +%s) + example_timeout_s + 30 ))
while kill -0 "$example_pid" 2>/dev/null || kill -0 "$python_example_pid" 2>/dev/null; do
  for i in "${!chain_pids[@]}"; do
    kill -0 "${chain_pids[$i]}" 2>/dev/null || fail "the ${chain_names[$i]} exited early"
  done
  [ "$(date +%s)" -lt "$deadline" ] || fail "the examples did not stop within $(( example_timeout_s + 30 )) s"
  sleep 0.5
done
example_rc=0
wait "$example_pid" || example_rc=$?
[ "$example_rc" = 0 ] ||
  fail "the example exited $example_rc (0: live books; 1: timed out after ${example_timeout_s} s)"
# A top of book line: each side its best level, or - when it has no order.
top='([0-9]+ @ [0-9]+|-) / ([0-9]+ @ [0-9]+|-)'
grep -Eq "^AAPL $top" "$work/example.log" || fail "the example printed no AAPL top of book"
grep -Eq "^MSFT $top" "$work/example.log" || fail "the example printed no MSFT top of book"
log "the example saw live books: $(grep -m1 '^AAPL ' "$work/example.log"); $(tail -1 "$work/example.log")"
python_rc=0
wait "$python_example_pid" || python_rc=$?
[ "$python_rc" = 0 ] ||
  fail "the Python example exited $python_rc (0: live books; 1: timed out after ${example_timeout_s} s; 2: no driver)"
for symbol in AAPL MSFT; do
  grep -Eq "^$symbol $top" "$work/example-python.log" ||
    fail "the Python example printed no $symbol top of book"
done
log "the Python example (the released wheel) saw live books: $(grep -m1 -E "^AAPL $top" "$work/example-python.log"); \
$(tail -1 "$work/example-python.log")"
