#!/usr/bin/env bash
# The native decoder peer: builds itchy-bench (Rust, the `itchy` crate, release + LTO; build output
# under ~/.cache/mdfanout/peers/itchy-target) and runs it on a NASDAQ binary ITCH 5.0 file.
#   itchy-bench.sh [ITCH_FILE]
# Without ITCH_FILE it decodes ~/.cache/mdfanout/peers/session-<SESSION_MESSAGES>-seed<SESSION_SEED>.itch,
# written once by the mdfanout simulator (MDFANOUT, default bin/mdfanout; `make build` first).
#   ITCHY_PASSES (default 10)  ITCHY_SECONDS (empty: no limit; else no pass starts after that many seconds of passes)
#   SESSION_MESSAGES (default 5000000)  SESSION_SEED (default 1)
#   PEERS_CACHE (default ~/.cache/mdfanout/peers)
#   ITCHY_BIN (empty: built with cargo; else a prebuilt itchy-bench binary, as in the bench bundle: no cargo needed)
# Output (stdout): itchy_crate: version=.. file=..
#                  itchy: messages=N passes=P best_msgs_per_s=.. median_msgs_per_s=.. mean_msgs_per_s=.. ns_per_msg=.. ...
#                  itchy_decoded / itchy_skipped / itchy_rejected / file_types: TYPE=COUNT ...
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
PEERS_CACHE="${PEERS_CACHE:-$HOME/.cache/mdfanout/peers}"
MDFANOUT="${MDFANOUT:-$root/bin/mdfanout}"
passes="${ITCHY_PASSES:-10}"
seconds="${ITCHY_SECONDS:-}"
session_messages="${SESSION_MESSAGES:-5000000}"
session_seed="${SESSION_SEED:-1}"
file="${1:-}"

[ -n "${ITCHY_BIN:-}" ] || command -v cargo >/dev/null || { echo "itchy-bench: 'cargo' not found on PATH (install Rust: https://rustup.rs)" >&2; exit 1; }
mkdir -p "$PEERS_CACHE"

if [ -z "$file" ]; then
  file="$PEERS_CACHE/session-$session_messages-seed$session_seed.itch"
  if [ ! -s "$file" ]; then
    # Written under a temporary name and renamed, so an interrupted run never leaves half a file.
    if ! "$MDFANOUT" simulator --no-send --rate 0 --messages "$session_messages" --seed "$session_seed" \
         --itch-file "$file.partial" >"$PEERS_CACHE/session.log" 2>&1; then
      echo "itchy-bench: generating the session file with '$MDFANOUT simulator' failed:" >&2
      tail -20 "$PEERS_CACHE/session.log" >&2
      rm -f "$file.partial"
      exit 1
    fi
    mv "$file.partial" "$file"
  fi
elif [ ! -r "$file" ]; then
  echo "itchy-bench: ITCH file '$file' does not exist or is not readable" >&2
  exit 1
fi

if [ -n "${ITCHY_BIN:-}" ]; then
  [ -x "$ITCHY_BIN" ] || { echo "itchy-bench: ITCHY_BIN=$ITCHY_BIN is not an executable" >&2; exit 1; }
  echo "itchy_crate: version=${ITCHY_VERSION:-unknown} file=$file"
  exec "$ITCHY_BIN" "$file" "$passes" ${seconds:+"$seconds"}
fi
export CARGO_TARGET_DIR="$PEERS_CACHE/itchy-target"
log="$(mktemp)"
trap 'rm -f "$log"' EXIT
if ! cargo build --release --quiet --manifest-path "$here/itchy-bench/Cargo.toml" >"$log" 2>&1; then
  echo "itchy-bench: building itchy-bench failed:" >&2
  tail -30 "$log" >&2
  exit 1
fi

version="$(awk '/^name = "itchy"$/ { getline; gsub(/[^0-9.]/, ""); print; exit }' "$here/itchy-bench/Cargo.lock")"
echo "itchy_crate: version=${version:-unknown} file=$file"
"$CARGO_TARGET_DIR/release/itchy-bench" "$file" "$passes" ${seconds:+"$seconds"}
