#!/usr/bin/env bash
# Proves the NATS peer works end to end: builds nats-server (nats-setup.sh, cached) and the jnats
# publisher/subscriber (nats/, output under ~/.cache/mdfanout/peers), starts the server on a
# private loopback port, sends NATS_MESSAGES messages of NATS_SIZE bytes from one publisher to one
# subscriber, prints the result line and stops the server.
#   NATS_MESSAGES (default 1000000)  NATS_SIZE (default 40)  NATS_PORT (default: a free port)
#   NATS_TIMEOUT_S (default 120)     PEERS_CACHE (default ~/.cache/mdfanout/peers)
# Output (stdout): nats_server: version=.. port=..
#                  nats: messages=N size=S received=.. lost=.. out_of_order=.. dropped=.. msgs_per_s=.. ...
# Exit status: 0 when every message arrived once and in order.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
PEERS_CACHE="${PEERS_CACHE:-$HOME/.cache/mdfanout/peers}"
export PEERS_CACHE
messages="${NATS_MESSAGES:-1000000}"
size="${NATS_SIZE:-40}"
timeout_s="${NATS_TIMEOUT_S:-120}"
MVN="${MVN:-mvn}"

"$here/nats-setup.sh"
server="$PEERS_CACHE/bin/nats-server"

command -v java >/dev/null || { echo "nats-smoke: 'java' not found on PATH" >&2; exit 1; }
command -v "$MVN" >/dev/null || { echo "nats-smoke: '$MVN' not found on PATH" >&2; exit 1; }
target="$PEERS_CACHE/nats-peer-target"
work="$(mktemp -d)"
server_pid=""
cleanup() {
  if [ -n "$server_pid" ] && kill -0 "$server_pid" 2>/dev/null; then
    kill "$server_pid" 2>/dev/null || true
    wait "$server_pid" 2>/dev/null || true
  fi
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

if ! "$MVN" -B -q -ntp -f "$here/nats/pom.xml" compile dependency:copy-dependencies >"$work/mvn.log" 2>&1; then
  echo "nats-smoke: building the jnats publisher/subscriber failed:" >&2
  tail -30 "$work/mvn.log" >&2
  exit 1
fi

port="${NATS_PORT:-}"
if [ -z "$port" ]; then
  # A free ephemeral port, so the run never collides with a NATS server already on 4222.
  port="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])' 2>/dev/null || echo 14222)"
fi

# No monitoring port, no JetStream: plain core NATS on loopback only.
"$server" -a 127.0.0.1 -p "$port" -l "$work/nats-server.log" &
server_pid=$!
for _ in $(seq 1 100); do
  grep -q "Server is ready" "$work/nats-server.log" 2>/dev/null && break
  kill -0 "$server_pid" 2>/dev/null || break
  sleep 0.1
done
if ! grep -q "Server is ready" "$work/nats-server.log" 2>/dev/null; then
  echo "nats-smoke: nats-server did not start on 127.0.0.1:$port:" >&2
  tail -20 "$work/nats-server.log" >&2 2>/dev/null || true
  exit 1
fi
echo "nats_server: version=$("$server" --version | awk '{print $2}') port=$port"

java -cp "$target/classes:$target/dependency/*" io.mdfanout.bench.peers.NatsSmoke \
  "nats://127.0.0.1:$port" "$messages" "$size" "$timeout_s"
