#!/usr/bin/env bash
# make bench-bundle: the dedicated-cores benchmark as one folder that a bare many-core x86-64 Linux machine runs as it
# is: no Java, no Maven, no Go, no Rust, no network, no package manager (python3, taskset and coreutils are
# assumed, as on any Linux host with Python). What it holds:
#
#   run                  the one script (bench/bundle/run-pinned.sh): `./run OUT_DIR`
#   runtime/             a jlink'ed Java runtime with only the modules the jars need (jdeps)
#   bin/mdfanout, lib/   the distribution: the launcher, mdfanout.jar and lib/lib/*.jar (as installed)
#   bench/               the harness it drives (bench/e2e, bench/scripts/decoder-ab.sh, bench/peers/itchy-bench.sh)
#   bench-lib/           the JMH jar of the normalizer benchmark and what it needs beyond lib/lib
#   peers/               nats-server (Go, static, stripped), itchy-bench (Rust, static glibc), the NATS bridge and
#                        subscriber (jnats) with their jars
#   MANIFEST.txt         what was built from which commit, versions and sizes
#
#   bench/bundle/build.sh [BUNDLE_DIR]     (default bench/target/bench-bundle; replaced whole)
# Settings (environment): PEERS_CACHE (~/.cache/mdfanout/peers: the peers' builds, cached), NATS_SERVER_VERSION (as
# bench/peers/nats-setup.sh), BUNDLE_MAX_MIB (60), MVN (mvn), JAVA_HOME (the JDK whose jmods jlink links; default: the
# one `javac` belongs to). Expects `make build` done (the Makefile's bench-bundle target does it).
set -euo pipefail
cd "$(dirname "$0")/../.."

out="${1:-bench/target/bench-bundle}"
PEERS_CACHE="${PEERS_CACHE:-$HOME/.cache/mdfanout/peers}"
NATS_SERVER_VERSION="${NATS_SERVER_VERSION:-v2.15.2}"
BUNDLE_MAX_MIB="${BUNDLE_MAX_MIB:-60}"
MVN="${MVN:-mvn}"
log() { echo "bench-bundle: $*" >&2; }
fail() { log "$*"; exit 1; }

[ -f cli/target/mdfanout.jar ] && [ -d cli/target/lib ] || fail "build the distribution first (make build)"
if [ -z "${JAVA_HOME:-}" ]; then
  JAVA_HOME="$(dirname "$(dirname "$(readlink -f "$(command -v javac)")")")" || fail "no javac on PATH: set JAVA_HOME to a JDK 17"
fi
[ -x "$JAVA_HOME/bin/jlink" ] || fail "$JAVA_HOME/bin/jlink not found: JAVA_HOME must be a JDK (17), not a JRE"
[ -d "$JAVA_HOME/jmods" ] || fail "$JAVA_HOME/jmods not found: jlink needs the JDK's jmods (Debian: openjdk-17-jdk-headless)"
mkdir -p "$PEERS_CACHE"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# ---- the JMH jar (bench/) and the NATS peer (bench/peers/nats), as make bench-micro and nats.sh build them -------
log "building the JMH benchmarks and the NATS peer"
# -pl bench alone: the modules it depends on are installed by make build, which the Makefile's target runs first
# (-am would build them all again: 32 s against 9 s here).
"$MVN" -B -q -ntp -pl bench package -DskipTests >"$work/mvn-bench.log" 2>&1 || { tail -30 "$work/mvn-bench.log" >&2; fail "mvn -pl bench package failed"; }
nats_peer() { "$MVN" -B -q -ntp "$@" -Dpeers.cache="$PEERS_CACHE" -f bench/peers/nats/pom.xml compile dependency:copy-dependencies; }
if ! nats_peer -o >"$work/mvn-nats.log" 2>&1 && ! nats_peer >>"$work/mvn-nats.log" 2>&1; then
  tail -30 "$work/mvn-nats.log" >&2; fail "building bench/peers/nats failed"
fi
nats_target="$PEERS_CACHE/nats-peer-target"

# ---- nats-server: static (CGO off) and stripped (-s -w: no symbol table or DWARF), cached per version -------------
nats_bin="$PEERS_CACHE/bundle-bin/nats-server"
if [ ! -x "$nats_bin" ] || [ "$(cat "$nats_bin.version" 2>/dev/null)" != "$NATS_SERVER_VERSION" ]; then
  command -v go >/dev/null || fail "'go' not found on PATH (Go 1.24 or later builds nats-server)"
  log "building nats-server $NATS_SERVER_VERSION (static, stripped)"
  mkdir -p "$(dirname "$nats_bin")"
  GOBIN="$(dirname "$nats_bin")" CGO_ENABLED=0 GOFLAGS=-buildvcs=false \
    go install -trimpath -ldflags='-s -w' "github.com/nats-io/nats-server/v2@$NATS_SERVER_VERSION" >"$work/go.log" 2>&1 \
    || { tail -20 "$work/go.log" >&2; fail "building nats-server failed"; }
  echo "$NATS_SERVER_VERSION" >"$nats_bin.version"
fi

# ---- itchy-bench: glibc linked in statically, so the host's libc version does not matter ---------------------------
itchy_target="$PEERS_CACHE/itchy-static-target"
itchy_bin="$itchy_target/x86_64-unknown-linux-gnu/release/itchy-bench"
command -v cargo >/dev/null || fail "'cargo' not found on PATH (Rust builds the itchy peer)"
log "building itchy-bench (static)"
RUSTFLAGS="-C target-feature=+crt-static" CARGO_TARGET_DIR="$itchy_target" \
  cargo build --release --quiet --target x86_64-unknown-linux-gnu --manifest-path bench/peers/itchy-bench/Cargo.toml \
  >"$work/cargo.log" 2>&1 || { tail -30 "$work/cargo.log" >&2; fail "building itchy-bench failed"; }
file -b "$itchy_bin" 2>/dev/null | grep -q 'static' || ! ldd "$itchy_bin" >/dev/null 2>&1 || fail "itchy-bench is not static"
itchy_version="$(awk '/^name = "itchy"$/ { getline; gsub(/[^0-9.]/, ""); print; exit }' bench/peers/itchy-bench/Cargo.lock)"

# ---- the layout -----------------------------------------------------------------------------------------------
rm -rf "$out"
mkdir -p "$out"/{bin,lib/lib,bench/e2e,bench/scripts,bench/peers,bench-lib,peers/bin,peers/nats}
cp bin/mdfanout "$out/bin/"
cp cli/target/mdfanout.jar "$out/lib/"
cp cli/target/lib/*.jar "$out/lib/lib/"
cp bench/e2e/run.sh bench/e2e/lib.sh bench/e2e/nats.sh bench/e2e/cpu_sample.py bench/e2e/report.py \
   bench/e2e/report_nats.py bench/e2e/report_pinned.py bench/e2e/report_archive.py bench/e2e/report_pair.py \
   bench/e2e/report_derived.py "$out/bench/e2e/"
cp bench/scripts/decoder-ab.sh bench/scripts/jmh-table.py "$out/bench/scripts/"
cp bench/peers/itchy-bench.sh "$out/bench/peers/"
cp bench/target/mdfanout-bench.jar "$out/bench-lib/"
for jar in bench/target/lib/*.jar; do  # what the JMH jar needs beyond the distribution's jars
  [ -e "$out/lib/lib/$(basename "$jar")" ] || cp "$jar" "$out/bench-lib/"
done
# nats-server travels gzip'ed (17 MiB -> 7), and run unpacks it into its work directory.
gzip -9 -c "$nats_bin" >"$out/peers/bin/nats-server.gz"
cp "$itchy_bin" "$out/peers/bin/itchy-bench"
strip --strip-debug "$out/peers/bin/itchy-bench" 2>/dev/null || true
(cd "$nats_target/classes" && "$JAVA_HOME/bin/jar" --create --file "$OLDPWD/$out/peers/nats/nats-peer.jar" .)
# The NATS peer's jars beyond the distribution's: not another version of one of those (run puts lib/lib after these,
# so a second version would mix classes of two), and not bcprov (6 MiB: jnats's NKey and TLS crypto, which plain
# NATS on loopback never loads).
for jar in "$nats_target"/dependency/*.jar; do
  artifact="$(basename "$jar" | sed 's/-[0-9][0-9.]*[^/]*\.jar$//')"
  case "$artifact" in bcprov*) continue ;; esac
  compgen -G "$out/lib/lib/$artifact-[0-9]*.jar" >/dev/null || cp "$jar" "$out/peers/nats/"
done
# zstd-jni (6 MiB of natives for every platform) serves only `export --zstd`, which the bundle never runs: left out
# everywhere, to keep the bundle under BUNDLE_MAX_MIB (a jar of the manifest's class path that is missing is skipped).
rm -f "$out"/lib/lib/zstd-jni-*.jar "$out"/bench-lib/zstd-jni-*.jar "$out"/peers/nats/zstd-jni-*.jar
cp bench/bundle/run-pinned.sh "$out/run"
chmod +x "$out/run" "$out/bin/mdfanout" "$out"/bench/e2e/*.sh "$out"/bench/scripts/*.sh "$out"/bench/peers/*.sh "$out"/peers/bin/itchy-bench

# ---- the runtime: the modules every jar of the bundle needs, linked from the JDK's jmods --------------------------
modules="$("$JAVA_HOME/bin/jdeps" --ignore-missing-deps --print-module-deps --multi-release 17 \
  "$out"/lib/mdfanout.jar "$out"/lib/lib/*.jar "$out"/bench-lib/*.jar "$out"/peers/nats/*.jar 2>"$work/jdeps.log")" \
  || { cat "$work/jdeps.log" >&2; fail "jdeps failed"; }
# Left out: java.desktop (12 MiB; JNA's AWT helpers and a commons-math3 class that JMH never calls) and java.compiler
# (picocli's annotation processing, a build-time matter). Added: jdk.unsupported (sun.misc.Unsafe, which Agrona also
# reaches reflectively) and jdk.management (the JVM metrics' com.sun.management beans). The dry run in make test
# runs every command of the bundle on this runtime, so a module missed here fails there.
modules="$(echo "$modules,jdk.unsupported,jdk.management" | tr ',' '\n' | grep -vx 'java.desktop\|java.compiler' | sort -u | paste -sd,)"
log "linking a runtime with $modules"
"$JAVA_HOME/bin/jlink" --module-path "$JAVA_HOME/jmods" --add-modules "$modules" --output "$out/runtime" \
  --strip-debug --no-man-pages --no-header-files --compress=2 >"$work/jlink.log" 2>&1 \
  || { cat "$work/jlink.log" >&2; fail "jlink failed"; }
# The JDK's shared libraries keep their native debug symbols (libjvm: 24 MiB, 19 of them symbols).
find "$out/runtime" -name '*.so' -exec strip --strip-debug {} + 2>/dev/null || log "strip not found: the runtime keeps its native debug symbols"
"$out/runtime/bin/java" -version >/dev/null 2>&1 || fail "the linked runtime does not start"

size_kib=$(du -sk "$out" | cut -f1)
{
  echo "mdfanout dedicated-cores benchmark bundle: ./run OUT_DIR (see bench/bundle/run-pinned.sh)"
  echo "git: $(git rev-parse --short HEAD 2>/dev/null || echo unknown)$(git diff --quiet HEAD 2>/dev/null || echo ' (with uncommitted changes)')"
  echo "built: $(date -u +%Y-%m-%dT%H:%M:%SZ) on $(uname -m)"
  echo "runtime: $("$out/runtime/bin/java" -version 2>&1 | head -1 | tr -d '"') from $JAVA_HOME, modules $modules"
  echo "nats-server: $NATS_SERVER_VERSION"
  echo "itchy: $itchy_version"
  echo "size_kib: $size_kib"
  (cd "$out" && du -sk runtime lib bench-lib peers/bin/nats-server.gz peers/bin/itchy-bench peers/nats | awk '{print "  " $2 ": " $1 " KiB"}')
} >"$out/MANIFEST.txt"
if [ "$size_kib" -gt $((BUNDLE_MAX_MIB * 1024)) ]; then
  cat "$out/MANIFEST.txt" >&2
  fail "the bundle is $((size_kib / 1024)) MiB, over BUNDLE_MAX_MIB=$BUNDLE_MAX_MIB"
fi
log "$out: $((size_kib / 1024)) MiB ($(sed -n 2p "$out/MANIFEST.txt"))"
