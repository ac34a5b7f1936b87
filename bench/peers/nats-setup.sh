#!/usr/bin/env bash
# Builds nats-server (the fan-out peer of the benchmarks) from the Go module proxy into
# ~/.cache/mdfanout/peers/bin. Idempotent: a no-op when the pinned version is already there.
# Quiet on success; on failure it says what failed and exits non-zero.
#   NATS_SERVER_VERSION  the nats-server module version (default below)
#   PEERS_CACHE          the cache directory (default ~/.cache/mdfanout/peers)
set -euo pipefail

NATS_SERVER_VERSION="${NATS_SERVER_VERSION:-v2.15.2}"
PEERS_CACHE="${PEERS_CACHE:-$HOME/.cache/mdfanout/peers}"
bin_dir="$PEERS_CACHE/bin"
server="$bin_dir/nats-server"
stamp="$bin_dir/.nats-server.version"

if [ -x "$server" ] && [ "$(cat "$stamp" 2>/dev/null)" = "$NATS_SERVER_VERSION" ]; then
  exit 0
fi
command -v go >/dev/null || { echo "nats-setup: 'go' not found on PATH (Go 1.24 or later is needed to build nats-server)" >&2; exit 1; }

mkdir -p "$bin_dir"
log="$(mktemp)"
trap 'rm -f "$log"' EXIT
# CGO off: a static binary that does not depend on this machine's libc.
if ! GOBIN="$bin_dir" CGO_ENABLED=0 GOFLAGS=-buildvcs=false \
     go install "github.com/nats-io/nats-server/v2@$NATS_SERVER_VERSION" >"$log" 2>&1; then
  echo "nats-setup: building nats-server $NATS_SERVER_VERSION from the Go module proxy failed:" >&2
  tail -20 "$log" >&2
  exit 1
fi
"$server" --version >/dev/null 2>&1 || { echo "nats-setup: $server was built but does not run" >&2; exit 1; }
echo "$NATS_SERVER_VERSION" >"$stamp"
