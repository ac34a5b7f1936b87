#!/usr/bin/env bash
# Installs podman, buildah and runc from the distribution when one of them is missing (Debian/
# Ubuntu, as root); a no-op where they are present. The engine's settings come from
# scripts/image/containers.conf through CONTAINERS_CONF, never from a file written here.
set -euo pipefail
missing=""
for tool in podman buildah runc; do
  command -v "$tool" >/dev/null || missing="$missing $tool"
done
[ -z "$missing" ] && exit 0
if ! command -v apt-get >/dev/null; then
  echo "setup-podman: missing:$missing, and no apt-get to install them; install them by hand" >&2
  exit 1
fi
sudo=""
[ "$(id -u)" = 0 ] || sudo="sudo"
echo "setup-podman: installing$missing" >&2
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq podman buildah runc >/dev/null
