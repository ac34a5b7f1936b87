"""What one subscriber process that stops costs the others on its media driver (docs/OPERATIONS.md, "Slow
consumers"): a chain on loopback multicast (bin/mdfanout, after `make build`), Java's ``record`` and a Python
subscriber on one standalone ``media-driver``, 2 partitions at 20,000 msg/s; halfway into 200,000 messages ``record``
is killed with -9 (or stopped with SIGSTOP for ``--stop-s``). Prints, from the start of the session, when the Python
subscriber's partitions went stale and recovered, and its counters. Run with the test venv's Python (make
python-test builds it):

  subscribers/python/target/test-venv/bin/python bench/scripts/shared_driver_stall.py [--stop-s 1.5]
      [--term-length 4194304] [--record-channel-extra '|tether=false'] [--driver-java-opts '-Daeron...']
"""

import argparse
import os
import pathlib
import signal
import sys
import threading
import time
import unittest

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "subscribers/python/tests"))
import mdfanout  # noqa: E402
from test_live import CHANNEL, LINES, STREAM_ID_BASE, Chain, wait_for  # noqa: E402

ARGS = None


class SharedDriverStall(Chain):
    def test_stall(self):
        os.environ["JAVA_OPTS"] = ARGS.driver_java_opts
        self.start("media-driver", "media-driver", "--aeron-dir", self.driver_dir)
        os.environ.pop("JAVA_OPTS")
        wait_for(lambda: os.path.exists(f"{self.driver_dir}/cnc.dat"), 30, f"the media driver ({self.work})")
        self.start("feed-handler", "feed-handler", *LINES, "--ring-dir", self.ring_dir, "--partitions", "2",
                   "--ring-capacity-bytes", "4194304")
        self.start("fanout", "fanout", "--ring-dir", self.ring_dir, "--partitions", "2", "--channel", CHANNEL,
                   "--stream-id-base", str(STREAM_ID_BASE), "--term-length-bytes", str(ARGS.term_length),
                   "--max-orders", "65536")
        self.start("record", "record", "--aeron-dir", self.driver_dir, "--channel", CHANNEL + ARGS.record_channel_extra,
                   "--stream-id-base", str(STREAM_ID_BASE), "--partitions", "2", "--timeout-s", "120",
                   "--ready-file", str(self.work / "ready"))
        subscriber = mdfanout.Subscriber(CHANNEL, [0, 1], stream_id_base=STREAM_ID_BASE, aeron_dir=self.driver_dir)
        wait_for(lambda: "fanout: running" in self.log("fanout"), 60, "the fanout")
        wait_for(lambda: (subscriber.poll() or True) and subscriber.is_connected() and (self.work / "ready").exists(),
                 60, "the subscribers")
        self.start("simulator", "simulator", *LINES, "--symbols", "50", "--seed", "7", "--rate", "20000",
                   "--messages", "200000")
        started, messages, stopped = time.monotonic(), 0, False
        while time.monotonic() - started < 20:
            for event in subscriber.poll(timeout_s=0.1):
                messages += "xs" in event
                if event["type"] in ("STALE", "RECOVERED", "GAP"):
                    print(f"{time.monotonic() - started:6.2f} s  {event}", flush=True)
            if not stopped and messages > 100_000:
                stopped = True
                record = self.processes["record"]
                if ARGS.stop_s:
                    record.send_signal(signal.SIGSTOP)
                    threading.Timer(ARGS.stop_s, lambda: record.send_signal(signal.SIGCONT)).start()
                else:
                    self.kill9("record")
                print(f"{time.monotonic() - started:6.2f} s  record {'stopped' if ARGS.stop_s else 'killed'} "
                      f"at message {messages}", flush=True)
        print("counters", {k: v for k, v in subscriber.counters().items() if v and k in
                           ("messages", "gaps", "silent_streams", "recovered", "filtered")})


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--stop-s", type=float, default=0.0, help="SIGSTOP record this long (0: kill -9)")
    parser.add_argument("--term-length", type=int, default=4 * 1024 * 1024)
    parser.add_argument("--record-channel-extra", default="")
    parser.add_argument("--driver-java-opts", default="")
    ARGS = parser.parse_args()
    result = unittest.TextTestRunner(verbosity=0).run(unittest.TestLoader().loadTestsFromTestCase(SharedDriverStall))
    sys.exit(0 if result.wasSuccessful() else 1)
