#!/usr/bin/env bash
# The whole chain on one machine: exchange simulator -> (MoldUDP64 multicast on loopback) ->
# feed handler -> (shared-memory ring buffers) -> fanout with an embedded media driver ->
# (Aeron multicast on loopback) -> a subscriber drawing live books. Ctrl-C stops everything and
# removes the ring files and every Aeron directory the processes created.
set -uo pipefail
cd "$(dirname "$0")/.."

SYMBOLS="${DEMO_SYMBOLS:-AAPL MSFT NVDA}"
RATE="${DEMO_RATE:-20000}"
PARTITIONS="${DEMO_PARTITIONS:-4}"
run_dir="$(mktemp -d /tmp/mdfanout-demo.XXXXXX)"
ring_dir="/dev/shm/mdfanout-demo-$$"
group=239.1.1.1; port=26400          # line A
group_b=239.1.1.3; port_b=26402      # line B: the same packets, losses of its own
retransmit_port=26499                # the simulator's MoldUDP64 re-request server
LOSS="${DEMO_LOSS:-0.002}"
METRICS_BASE="${DEMO_METRICS_PORT:-9401}"   # feed handler, fanout and book on this port and the next two
channel='aeron:udp?endpoint=224.0.1.1:40456|interface=127.0.0.1|mtu=8192'
pids=()

cleanup() {
  trap - INT TERM EXIT
  echo
  echo "stopping the demo..."
  for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null; done
  for _ in $(seq 1 100); do
    alive=0
    for pid in "${pids[@]}"; do kill -0 "$pid" 2>/dev/null && alive=1; done
    [ "$alive" = 0 ] && break
    sleep 0.1
  done
  for pid in "${pids[@]}"; do kill -KILL "$pid" 2>/dev/null; done
  wait 2>/dev/null
  rm -rf "$ring_dir"
  echo "stopped; logs kept in $run_dir"
}
trap cleanup INT TERM EXIT

echo "logs: $run_dir"
bin/mdfanout feed-handler --group $group --port $port --interface 127.0.0.1 \
  --group-b $group_b --port-b $port_b --retransmit-server 127.0.0.1:$retransmit_port \
  --ring-dir "$ring_dir" --partitions "$PARTITIONS" \
  --metrics-port "$METRICS_BASE" --metrics-bind 127.0.0.1 >"$run_dir/feed-handler.log" 2>&1 &
pids+=($!)
bin/mdfanout fanout --ring-dir "$ring_dir" --partitions "$PARTITIONS" --channel "$channel" \
  --metrics-port "$((METRICS_BASE + 1))" --metrics-bind 127.0.0.1 \
  >"$run_dir/fanout.log" 2>&1 &
pids+=($!)
# The simulator waits a little so the subscriber has joined before the stock directory goes out.
# Each line loses packets of its own (DEMO_LOSS); the feed handler takes each message from the
# first line to deliver it and asks the re-request server for what both lines lost.
bin/mdfanout simulator --group $group --port $port --interface 127.0.0.1 \
  --group-b $group_b --port-b $port_b --loss-a "$LOSS" --loss-b "$LOSS" --retransmit-port $retransmit_port \
  --retransmit-history-messages 200000 --symbols 50 \
  --rate "$RATE" --messages 0 --start-delay-ms 4000 >"$run_dir/simulator.log" 2>&1 &
pids+=($!)

symbol_args=()
for s in $SYMBOLS; do symbol_args+=(--symbol "$s"); done
echo "feed handler line counters: tail -f $run_dir/feed-handler.log"
echo "Prometheus metrics: http://127.0.0.1:$METRICS_BASE/metrics (feed handler)," \
  "http://127.0.0.1:$((METRICS_BASE + 1))/metrics (fanout), http://127.0.0.1:$((METRICS_BASE + 2))/metrics (this book)"
bin/mdfanout book --channel "$channel" --partitions "$PARTITIONS" "${symbol_args[@]}" --depth 5 \
  --metrics-port "$((METRICS_BASE + 2))" --metrics-bind 127.0.0.1
