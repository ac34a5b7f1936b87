#!/usr/bin/env bash
# Builds the local base images the image tests use where no image can be pulled, from what is on
# this machine, laid out like the public images the Dockerfile names by default so that it treats
# them exactly alike (JAVA_HOME=/opt/java/openjdk, java on PATH):
#   jre      localhost/mdfanout-jre:17      the BASE: a JRE 17 jlink'ed from this machine's JDK, in a
#            scratch image with only the shared libraries it loads (found with ldd); no shell
#   builder  localhost/mdfanout-builder:17  the BUILDER: a full JDK 17 (jlink'ed), Maven, a static
#            busybox for the shell the RUN step needs, and a copy of ~/.m2/repository with Maven
#            set offline (the build in the image must find every dependency there)
# Root filesystems are cached under ~/.cache/mdfanout/image, keyed by what they are made of; an
# image is re-imported only when it is missing or its key changed. Idempotent.
#
# usage: scripts/image/local-bases.sh [jre|builder] [podman|docker]   (prints the image name)
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
export CONTAINERS_CONF="${MDFANOUT_CONTAINERS_CONF:-$here/containers.conf}"
kind="${1:-jre}"
engine="${2:-podman}"
cache="${MDFANOUT_IMAGE_CACHE:-$HOME/.cache/mdfanout/image}"
# What the roles load: java.management/jdk.management (thread CPU time and allocation counters,
# JVM metrics), jdk.httpserver (the Prometheus exporter), jdk.unsupported (Agrona/Aeron Unsafe),
# java.naming, jdk.net and jdk.crypto.ec for the JDK's own networking, jdk.jfr and
# jdk.jcmd/jdk.attach so an operator can record and inspect a running process.
jre_modules="java.base,java.compiler,java.logging,java.management,java.naming,java.net.http,java.xml,\
jdk.attach,jdk.crypto.ec,jdk.httpserver,jdk.jcmd,jdk.jfr,jdk.management,jdk.net,jdk.unsupported,jdk.zipfs"

java_home="${JAVA_HOME:-$(dirname "$(dirname "$(readlink -f "$(command -v java)")")")}"
[ -x "$java_home/bin/jlink" ] || { echo "local-bases: no jlink in $java_home (need a full JDK 17)" >&2; exit 1; }
jdk_version="$("$java_home/bin/java" -version 2>&1 | head -1)"
case "$jdk_version" in
  *'"17.'*) ;;
  *) echo "local-bases: need JDK 17 for the base images, found: $jdk_version" >&2; exit 1 ;;
esac

# Copies every shared library the ELF files under $2 load, and the dynamic loader, into the root
# filesystem $1 at the paths ldd resolves them to (the paths baked into the binaries).
copy_libraries() {
  local rootfs="$1" dir="$2" libs lib
  libs="$(find "$dir" -type f \( -name '*.so' -o -perm -u+x \) -print0 \
    | LD_LIBRARY_PATH="$dir/lib/server:$dir/lib" xargs -0 ldd 2>/dev/null \
    | awk '/=> \// {print $3} /^\s*\/.*ld-linux/ {print $1}' | sort -u | grep -v "^$rootfs" || true)"
  for lib in $libs /lib64/ld-linux-x86-64.so.2; do
    [ -e "$lib" ] || continue
    mkdir -p "$rootfs$(dirname "$lib")"
    cp -L "$lib" "$rootfs$lib"
  done
}

# The JVM looks users and hosts up through NSS (glibc's files module is built in); numeric users
# (the image runs as 10001) need no entry.
write_etc() {
  local rootfs="$1"
  mkdir -p "$rootfs/etc" "$rootfs/tmp" "$rootfs/dev/shm"
  printf 'root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/nonexistent:/sbin/nologin\n' >"$rootfs/etc/passwd"
  printf 'root:x:0:\nnogroup:x:65534:\n' >"$rootfs/etc/group"
  printf 'passwd: files\ngroup: files\nhosts: files dns\n' >"$rootfs/etc/nsswitch.conf"
  chmod 1777 "$rootfs/tmp"
}

build_jre() { # rootfs
  local rootfs="$1"
  mkdir -p "$rootfs/opt/java"
  "$java_home/bin/jlink" --add-modules "$jre_modules" --strip-debug --no-man-pages --no-header-files \
    --compress=2 --output "$rootfs/opt/java/openjdk"
  # Class data sharing archive: faster start of every role (the JDK's own one is not carried over).
  "$rootfs/opt/java/openjdk/bin/java" -Xshare:dump >/dev/null 2>&1 || true
  copy_libraries "$rootfs" "$rootfs/opt/java/openjdk"
  write_etc "$rootfs"
}

build_builder() { # rootfs
  local rootfs="$1" maven_home applet
  maven_home="$(dirname "$(dirname "$(readlink -f "$(command -v mvn)")")")"
  mkdir -p "$rootfs/opt/java" "$rootfs/bin" "$rootfs/root/.m2" "$rootfs/usr/share"
  "$java_home/bin/jlink" --add-modules ALL-MODULE-PATH --strip-debug --no-man-pages --no-header-files \
    --output "$rootfs/opt/java/openjdk"
  copy_libraries "$rootfs" "$rootfs/opt/java/openjdk"
  cp -rL "$maven_home" "$rootfs/usr/share/maven"
  cp /bin/busybox "$rootfs/bin/busybox"
  for applet in $(/bin/busybox --list); do
    [ -e "$rootfs/bin/$applet" ] || ln -s busybox "$rootfs/bin/$applet"
  done
  cp -r "$HOME/.m2/repository" "$rootfs/root/.m2/repository"
  # The project's own modules come from the reactor in the image, never from a host install.
  rm -rf "$rootfs/root/.m2/repository/io/mdfanout"
  # Offline: the build in the image must not reach for a network it may not have.
  printf '<settings><offline>true</offline></settings>\n' >"$rootfs/root/.m2/settings.xml"
  write_etc "$rootfs"
}

case "$kind" in
  jre)
    image="${MDFANOUT_JRE_IMAGE:-localhost/mdfanout-jre:17}"
    key_input="$(printf '%s\n%s\n' "$jdk_version" "$jre_modules")"
    path="/opt/java/openjdk/bin:/usr/bin:/bin"
    cmd='["java", "-version"]'
    ;;
  builder)
    command -v mvn >/dev/null || { echo "local-bases: the builder needs Maven (mvn) on this machine" >&2; exit 1; }
    if [ ! -x /bin/busybox ] || ! /bin/busybox --list >/dev/null 2>&1; then
      command -v apt-get >/dev/null || { echo "local-bases: the builder needs a static /bin/busybox" >&2; exit 1; }
      echo "local-bases: installing busybox-static" >&2
      apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq busybox-static >/dev/null
    fi
    image="${MDFANOUT_BUILDER_IMAGE:-localhost/mdfanout-builder:17}"
    # The repository copy is part of the key: a new dependency in ~/.m2 makes a new builder.
    key_input="$(printf '%s\n%s\n%s\n' "$jdk_version" "$(mvn -v 2>/dev/null | head -1)" \
      "$(cd "$HOME/.m2/repository" && find . -path ./io/mdfanout -prune -o \( -name '*.jar' -o -name '*.pom' \) -print | sort)")"
    path="/opt/java/openjdk/bin:/usr/share/maven/bin:/bin"
    cmd='["mvn", "-v"]'
    ;;
  *) echo "usage: local-bases.sh [jre|builder] [podman|docker]" >&2; exit 2 ;;
esac

key="$(printf '%s\n%s\n%s\n' "$key_input" "$(uname -m)" "layout 2" | sha256sum | cut -c1-16)"
dir="$cache/$kind-$key"
if [ ! -f "$dir/done" ]; then
  echo "local-bases: building the $kind root filesystem in $dir" >&2
  rm -rf "$cache/$kind-"*    # older keys of this kind: the cache holds one of each
  mkdir -p "$dir/rootfs"
  "build_$kind" "$dir/rootfs" >&2    # stdout carries the image name only
  touch "$dir/done"
fi

if [ "$("$engine" image inspect --format '{{ index .Config.Labels "io.mdfanout.base-key" }}' "$image" 2>/dev/null)" != "$key" ]; then
  echo "local-bases: importing $image" >&2
  old_id="$("$engine" image inspect --format '{{.Id}}' "$image" 2>/dev/null || true)"
  tar -C "$dir/rootfs" --numeric-owner -cf - . | "$engine" import --quiet \
    --change "ENV JAVA_HOME=/opt/java/openjdk" \
    --change "ENV LANG=C.UTF-8" \
    --change "ENV PATH=$path" \
    --change "LABEL io.mdfanout.base-key=$key" \
    --change "CMD $cmd" \
    - "$image" >/dev/null
  # The image this one replaces (ours: it had this name); kept only while a container uses it.
  [ -z "$old_id" ] || "$engine" rmi "$old_id" >/dev/null 2>&1 || true
fi
echo "$image"
