#!/usr/bin/env bash
# Builds a release of mdfanout into one folder (docs/RELEASING.md):
#   maven/                      a Maven repository (file layout) with what other projects consume: the parent
#                               pom, mdfanout-schemas and mdfanout-sdk, each jar with its -sources and -javadoc
#                               jar and a pom carrying the license and scm; copy or `mvn deploy` it anywhere
#   chart/mdfanout-V.tgz        the packaged Helm chart
#   image/mdfanout-V.tar        the container image (docker-archive: `docker load` / `podman load -i`), with
#                               its OCI labels (version, revision, source, licenses, created, ...)
#   rust/mdfanout-V.crate       the Rust SDK (`cargo package`), the schema inside it for its build script
#   python/mdfanout-V-*.whl     the Python SDK's wheel (maturin, abi3: CPython 3.11 and later)
#   RELEASE.txt                 version, git revision, image id, what was built when
#   SHA256SUMS                  over every file above (sha256sum -c SHA256SUMS)
#
# usage: scripts/release/release.sh [RELEASE_DIR]   (default target/release; replaced when it holds a release)
# env:   LOCAL_BASES=1        the image on local base images (podman; scripts/image/local-bases.sh), for machines
#                             that cannot pull; else the Dockerfile's public bases (IMAGE_BASE overrides)
#        IMAGE_ENGINE         docker or podman (empty: docker when its daemon answers, else podman)
#        IMAGE_TARGET         prebuilt (default: the distribution `make build` made, cli/target) or runtime
#                             (Maven builds it again inside the image)
#        RELEASE_IMAGE        the tag (default localhost/mdfanout:VERSION); an image of that tag, or of IMAGE
#                             (make image's), built from this very revision of a clean tree is reused, not rebuilt
#        WHEEL_PROFILE=dev    the Python wheel unoptimized (make release-test); default release
#        MVN, MVN_FLAGS, HELM
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
dir="${1:-$root/target/release}"
mvn_cmd="${MVN:-mvn}"
read -r -a mvn_flags <<<"${MVN_FLAGS:--B -ntp}"
helm="${HELM:-$(command -v helm || echo "$HOME/.cache/mdfanout/k8s/bin/helm")}"
export CONTAINERS_CONF="${MDFANOUT_CONTAINERS_CONF:-$root/scripts/image/containers.conf}"
started="$(date +%s)"

log() { echo "release: $*" >&2; }
fail() { log "$*"; exit 1; }

version="$(sed -n 's:^  <version>\(.*\)</version>.*:\1:p' "$root/pom.xml" | head -1)"
[ -n "$version" ] || fail "no version in pom.xml"
[[ "$version" != *SNAPSHOT* ]] || fail "version $version is a SNAPSHOT: a release has a fixed version"
chart_version="$(sed -n 's/^version: *//p' "$root/charts/mdfanout/Chart.yaml")"
app_version="$(sed -n 's/^appVersion: *"\{0,1\}\([^"]*\)"\{0,1\}$/\1/p' "$root/charts/mdfanout/Chart.yaml")"
[ "$chart_version" = "$version" ] && [ "$app_version" = "$version" ] ||
  fail "charts/mdfanout/Chart.yaml has version $chart_version, appVersion $app_version; the poms have $version"
revision="$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)"
dirty=""
[ -z "$(git -C "$root" status --porcelain 2>/dev/null)" ] || dirty="-dirty"
[ -z "$dirty" ] || log "the work tree has uncommitted changes: this release is not of revision $revision alone"
[ -x "$helm" ] || fail "no helm at $helm (make k8s-tools installs it)"

# The folder is replaced whole, but only when it is empty or an earlier release.
if [ -e "$dir" ] && [ -n "$(ls -A "$dir")" ] && [ ! -f "$dir/RELEASE.txt" ]; then
  fail "$dir exists and is not a release folder; choose another RELEASE_DIR"
fi
rm -rf "$dir"
mkdir -p "$dir/chart" "$dir/image" "$dir/rust" "$dir/python"
dir="$(cd "$dir" && pwd)"

# ---- Maven: build the published modules in the reactor and deploy them to a file repository -------------
# Install is skipped: a release writes nothing to the local repository (~/.m2) that other builds share.
log "maven: deploying the parent pom, mdfanout-schemas and mdfanout-sdk to $dir/maven"
(cd "$root" && "$mvn_cmd" "${mvn_flags[@]}" -q -Dstyle.color=never deploy -Prelease -pl subscribers/sdk -am \
  -DskipTests -Dmaven.install.skip=true -DaltDeploymentRepository="release::file://$dir/maven")

# ---- the Helm chart ------------------------------------------------------------------------------------
log "chart: packaging charts/mdfanout"
"$helm" package "$root/charts/mdfanout" --destination "$dir/chart" >/dev/null

# ---- the Rust crate and the Python wheel ----------------------------------------------------------------
# The crate's build script generates the codecs from the schema, which lives outside the crate's folder in this
# tree: a packaged crate carries a copy (schema/, ignored by git) that build.rs reads first.
log "rust: packaging subscribers/rust"
rust="$root/subscribers/rust"
mkdir -p "$rust/schema"
cp "$root/schemas/src/main/resources/mdfanout-schema.xml" "$rust/schema/"
(cd "$rust" && cargo package --quiet --offline --locked --allow-dirty) || { rm -rf "$rust/schema"; fail "cargo package failed"; }
rm -rf "$rust/schema"
cp "$rust/target/package/mdfanout-$version.crate" "$dir/rust/"
log "python: building the wheel of subscribers/python"
"$root/scripts/python/test.sh" --wheel-only "$dir/python" >&2

# ---- the image -----------------------------------------------------------------------------------------
engine="${IMAGE_ENGINE:-}"
if [ "${LOCAL_BASES:-0}" = 1 ]; then
  engine=podman
elif [ -z "$engine" ]; then
  if command -v docker >/dev/null && docker info >/dev/null 2>&1; then engine=docker; else engine=podman; fi
fi
[ "$engine" != podman ] || "$root/scripts/image/setup-podman.sh"
image="${RELEASE_IMAGE:-localhost/mdfanout:$version}"
target="${IMAGE_TARGET:-prebuilt}"
label() { # image, OCI label name
  "$engine" image inspect --format "{{ index .Config.Labels \"org.opencontainers.image.$2\" }}" "$1" 2>/dev/null
}
# An image of this very revision (of a clean tree) is reused: this tag's from an earlier release, or `make
# image`'s (IMAGE), tagged anew.
reused=""
if [ -z "$dirty" ]; then
  for candidate in "$image" ${IMAGE:+"$IMAGE"}; do
    if [ "$(label "$candidate" revision)" = "$revision" ] && [ "$(label "$candidate" version)" = "$version" ]; then
      if [ "$candidate" = "$image" ]; then
        log "image: reusing $image (built from revision $revision)"
      else
        "$engine" tag "$candidate" "$image"
        log "image: reusing $candidate (built from revision $revision) as $image"
      fi
      reused=1
      break
    fi
  done
fi
if [ -z "$reused" ]; then
  base="${IMAGE_BASE:-}"
  builder="${IMAGE_BUILDER:-}"
  if [ "${LOCAL_BASES:-0}" = 1 ]; then
    base="$("$root/scripts/image/local-bases.sh" jre podman)"
    [ "$target" = prebuilt ] || builder="$("$root/scripts/image/local-bases.sh" builder podman)"
  fi
  # podman: no layer cache, which can carry the labels of an earlier revision over (build arguments).
  cache=()
  [ "$engine" != podman ] || cache=(--layers=false)
  log "image: building $image (target $target) with $engine"
  MDFANOUT_ENGINE="$engine" BASE="$base" BUILDER="$builder" TARGET="$target" \
    "$root/scripts/image/build.sh" "$image" --quiet "${cache[@]}" --network host >/dev/null
fi
archive="$dir/image/mdfanout-$version.tar"
if [ "$engine" = podman ]; then
  podman save --quiet --format docker-archive -o "$archive" "$image"
else
  docker save -o "$archive" "$image"
fi
image_id="$("$engine" image inspect --format '{{.Id}}' "$image")"

# ---- what this is, and the checksums -------------------------------------------------------------------
cat >"$dir/RELEASE.txt" <<EOF
mdfanout $version
revision: $revision$dirty
built: $(date -u +%Y-%m-%dT%H:%M:%SZ)
maven: maven/ (a Maven repository: io.mdfanout:mdfanout-parent, mdfanout-schemas, mdfanout-sdk $version)
chart: chart/mdfanout-$version.tgz
image: image/mdfanout-$version.tar ($image, id $image_id; docker load -i / podman load -i)
rust: rust/mdfanout-$version.crate (the Rust SDK; cargo package)
python: python/$(basename "$(ls "$dir"/python/mdfanout-*.whl)") (the Python SDK; pip install; ${WHEEL_PROFILE:-release} build)
EOF
(cd "$dir" && find . -type f ! -name SHA256SUMS | sed 's|^\./||' | LC_ALL=C sort | xargs sha256sum >SHA256SUMS)

log "mdfanout $version ($revision$dirty) in $dir: $(find "$dir" -type f | wc -l) files," \
  "$(du -sh "$dir" | cut -f1); $(( $(date +%s) - started )) s"
