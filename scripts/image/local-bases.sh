#!/usr/bin/env bash
# Builds the local runtime base image the image test uses where no image can be pulled: a JRE 17
# jlink'ed from this machine's JDK, in a scratch image with only the shared libraries it loads
# (found with ldd), laid out like eclipse-temurin (JAVA_HOME=/opt/java/openjdk, java on PATH) so
# that the Dockerfile treats it exactly like the public base.
#
# The root filesystem is cached under ~/.cache/mdfanout/image, keyed by the JDK version and the
# module list; the image is re-imported only when it is missing or the key changed. Idempotent.
#
# usage: scripts/image/local-bases.sh [podman|docker]     (prints the image name on stdout)
set -euo pipefail

engine="${1:-podman}"
image="${MDFANOUT_JRE_IMAGE:-localhost/mdfanout-jre:17}"
cache="${MDFANOUT_IMAGE_CACHE:-$HOME/.cache/mdfanout/image}"
# What the roles load: java.management/jdk.management (thread CPU time and allocation counters,
# JVM metrics), jdk.httpserver (the Prometheus exporter), jdk.unsupported (Agrona/Aeron Unsafe),
# java.naming and jdk.crypto.ec for the JDK's own networking, jdk.jfr and jdk.jcmd/jdk.attach so
# an operator can record and inspect a running process.
modules="java.base,java.compiler,java.logging,java.management,java.naming,java.net.http,java.xml,\
jdk.attach,jdk.crypto.ec,jdk.httpserver,jdk.jcmd,jdk.jfr,jdk.management,jdk.net,jdk.unsupported,jdk.zipfs"

java_home="${JAVA_HOME:-$(dirname "$(dirname "$(readlink -f "$(command -v java)")")")}"
[ -x "$java_home/bin/jlink" ] || { echo "local-bases: no jlink in $java_home (need a full JDK 17)" >&2; exit 1; }
jdk_version="$("$java_home/bin/java" -version 2>&1 | head -1)"
case "$jdk_version" in
  *'"17.'*) ;;
  *) echo "local-bases: need JDK 17 for the runtime base, found: $jdk_version" >&2; exit 1 ;;
esac

key="$(printf '%s\n%s\n%s\n' "$jdk_version" "$modules" "$(uname -m)" | sha256sum | cut -c1-16)"
rootfs="$cache/jre-$key/rootfs"

if [ ! -f "$cache/jre-$key/done" ]; then
  echo "local-bases: building the JRE root filesystem in $cache/jre-$key" >&2
  rm -rf "$cache/jre-$key"
  mkdir -p "$rootfs/opt/java" "$rootfs/etc" "$rootfs/tmp" "$rootfs/dev/shm"
  "$java_home/bin/jlink" --add-modules "$modules" --strip-debug --no-man-pages --no-header-files \
    --compress=2 --output "$rootfs/opt/java/openjdk"
  # Class data sharing archive: faster start of every role (the JDK's own one is not carried over).
  "$rootfs/opt/java/openjdk/bin/java" -Xshare:dump >/dev/null 2>&1 || true

  # Every shared library the launcher, the JVM and the JDK's native libraries load, and the
  # dynamic loader; copied to the paths ldd resolves them to (the paths baked into the binaries).
  libs="$(find "$rootfs/opt/java/openjdk" -type f \( -name '*.so' -o -perm -u+x \) -print0 \
    | LD_LIBRARY_PATH="$rootfs/opt/java/openjdk/lib/server:$rootfs/opt/java/openjdk/lib" xargs -0 ldd 2>/dev/null \
    | awk '/=> \// {print $3} /^\s*\/.*ld-linux/ {print $1}' | sort -u | grep -v "^$rootfs" || true)"
  for lib in $libs /lib64/ld-linux-x86-64.so.2; do
    [ -e "$lib" ] || continue
    mkdir -p "$rootfs$(dirname "$lib")"
    cp -L "$lib" "$rootfs$lib"
  done

  # The JVM looks users and hosts up through NSS (glibc's files module is built in); numeric
  # users (the image runs as 10001) need no entry.
  printf 'root:x:0:0:root:/root:/sbin/nologin\nnobody:x:65534:65534:nobody:/nonexistent:/sbin/nologin\n' >"$rootfs/etc/passwd"
  printf 'root:x:0:\nnogroup:x:65534:\n' >"$rootfs/etc/group"
  printf 'passwd: files\ngroup: files\nhosts: files dns\n' >"$rootfs/etc/nsswitch.conf"
  chmod 1777 "$rootfs/tmp"
  touch "$cache/jre-$key/done"
fi

# Re-import when the image is missing or was built from another root filesystem.
if [ "$("$engine" image inspect --format '{{ index .Config.Labels "io.mdfanout.base-key" }}' "$image" 2>/dev/null)" != "$key" ]; then
  echo "local-bases: importing $image" >&2
  tar -C "$rootfs" --numeric-owner -cf - . | "$engine" import \
    --change "ENV JAVA_HOME=/opt/java/openjdk" \
    --change "ENV PATH=/opt/java/openjdk/bin:/usr/bin:/bin" \
    --change "LABEL io.mdfanout.base-key=$key" \
    --change 'CMD ["java", "-version"]' \
    - "$image" >/dev/null
fi
echo "$image"
