#!/usr/bin/env bash
# Builds the mdfanout image from the Dockerfile at the top of the repository.
#
# usage: scripts/image/build.sh IMAGE [extra build options...]
# env:   MDFANOUT_ENGINE  docker or podman; empty: docker when its daemon answers, else podman
#        BASE, BUILDER    the Dockerfile's build arguments (empty: the Dockerfile's defaults)
#        TARGET           runtime (empty: the default, Maven builds in the image) or prebuilt
#                         (the distribution built on the host by `make build`)
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
image="${1:?usage: build.sh IMAGE [build options...]}"
shift
export CONTAINERS_CONF="${MDFANOUT_CONTAINERS_CONF:-$here/containers.conf}"

engine="${MDFANOUT_ENGINE:-}"
if [ -z "$engine" ]; then
  if command -v docker >/dev/null && docker info >/dev/null 2>&1; then
    engine=docker
  else
    "$here/setup-podman.sh"
    engine=podman
  fi
fi

if [ "${TARGET:-}" = prebuilt ] && { [ ! -f "$root/cli/target/mdfanout.jar" ] || [ ! -f "$root/cli/target/aeron-tools/aeron-all.jar" ]; }; then
  echo "image: target prebuilt needs cli/target/mdfanout.jar, cli/target/lib and cli/target/aeron-tools; run 'make build' first" >&2
  exit 1
fi

args=()
[ -n "${BASE:-}" ] && args+=(--build-arg "BASE=$BASE")
[ -n "${BUILDER:-}" ] && args+=(--build-arg "BUILDER=$BUILDER")
[ -n "${TARGET:-}" ] && args+=(--target "$TARGET")
version="$(sed -n 's:^  <version>\(.*\)</version>.*:\1:p' "$root/pom.xml" | head -1)"
revision="$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)"
args+=(--build-arg "VERSION=${version:-unknown}" --build-arg "REVISION=$revision"
       --build-arg "CREATED=$(date -u +%Y-%m-%dT%H:%M:%SZ)")

echo "image: building $image with $engine${BUILDER:+ (BUILDER=$BUILDER)}${BASE:+ (BASE=$BASE)}${TARGET:+ (target $TARGET)}" >&2
exec "$engine" build -f "$root/Dockerfile" -t "$image" "${args[@]}" "$@" "$root"
