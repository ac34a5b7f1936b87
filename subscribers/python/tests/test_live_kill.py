"""The Python client through a fanout killed with -9, beside the Java SDK's recorder: simulator -> feed handler -> fanout
(bin/mdfanout) on loopback multicast, a standalone media driver both subscribers attach to; a session of 1,000,000
messages (``MDFANOUT_LIVE_MESSAGES`` changes it), the fanout killed with -9 half way and started again on its rings (a
new publication: each subscriber recovers from its snapshot stream). The Python subscriber's books are Java's; every
message it recorded is Java's byte for byte or one Java's snapshot covered, none is missing after its own snapshot's
coverage (which of Java's covered messages each delivered before going stale is its own timing)."""

import os
import re
import time
import unittest

import mdfanout
from test_live import Chain, wait_for

PARTITIONS = 2
MESSAGES = int(os.environ.get("MDFANOUT_LIVE_MESSAGES", "1000000"))
RATE = 50_000
CHANNEL = "aeron:udp?endpoint=224.0.59.1:59456|interface=127.0.0.1"
STREAM_ID_BASE = 5950
LINES = ["--group", "239.255.59.1", "--port", "59100", "--interface", "127.0.0.1"]


def records(recording):
    """A recording's records (``record --out`` format) as (partition, stream sequence, message bytes), in order."""
    out, at = [], 0
    while at < len(recording):
        length = int.from_bytes(recording[at:at + 4], "little")
        partition = int.from_bytes(recording[at + 4:at + 6], "little")
        sequence = int.from_bytes(recording[at + 6:at + 14], "little")
        out.append((partition, sequence, bytes(recording[at + 14:at + 14 + length])))
        at += 14 + length
    return out


def instrument(message):
    """A normalized message's instrument id (after its 8-byte SBE header, exchange sequence and timestamp)."""
    return int.from_bytes(message[24:28], "little")


class Coverage:
    """What the last complete snapshot applied to a partition covers: (from instrument, to instrument, through)."""

    def __init__(self):
        self.ranges = []

    def through(self, instrument_id):
        return next((last for low, high, last in self.ranges if low <= instrument_id <= high), 0)

    @staticmethod
    def from_java(text, partitions):
        """Read ``record --coverage-out`` (each partition's last complete snapshot)."""
        applied, current = [Coverage() for _ in range(partitions)], [None] * partitions
        for line in text.splitlines():
            kind, fields = line.split(" ", 1)[0], dict(f.split("=") for f in line.split(" ")[1:])
            p = int(fields["partition"])
            if kind == "newday":
                applied[p], current[p] = Coverage(), None
            elif kind == "begin":
                current[p] = Coverage()
                current[p].id = fields["snapshotId"]
                current[p].ranges.append((0, 0, int(fields["last"])))
            elif current[p] is not None and current[p].id == fields["snapshotId"]:
                high = int(fields["to"]) if kind == "instrument" else 2 ** 64
                current[p].ranges.append((int(fields["from"]), high, int(fields["last"])))
                if kind == "end":
                    applied[p], current[p] = current[p], None
        return applied

    @staticmethod
    def from_events(events, partitions):
        """The same from the Python events (each snapshot applied: SNAPSHOT_BEGIN, instruments, SNAPSHOT_END)."""
        applied, current = [Coverage() for _ in range(partitions)], [None] * partitions
        for e in events:
            if e["type"] == "SNAPSHOT_BEGIN":
                current[e["p"]] = Coverage()
                current[e["p"]].ranges.append((0, 0, e["last"]))
            elif e["type"] == "SnapshotInstrument" and current[e["p"]] is not None:
                current[e["p"]].ranges.append((e["coveredFromInstrumentId"], e["inst"], e["ss"]))
            elif e["type"] == "SNAPSHOT_END" and current[e["p"]] is not None:
                current[e["p"]].ranges.append((e["coveredFrom"], 2 ** 64, e["last"]))
                applied[e["p"]], current[e["p"]] = current[e["p"]], None
        return applied


class FanoutKillTest(Chain):
    def test_a_fanout_killed_with_minus_9_is_recovered_as_java_does(self):
        partitions = str(PARTITIONS)
        java = (self.work / "java.bin", self.work / "java-books.txt", self.work / "java-coverage.txt")
        python_recording = self.work / "python.bin"
        self.start("media-driver", "media-driver", "--aeron-dir", self.driver_dir)
        wait_for(lambda: os.path.exists(f"{self.driver_dir}/cnc.dat"), 30, "the media driver")
        self.start("feed-handler", "feed-handler", *LINES, "--ring-dir", self.ring_dir, "--partitions", partitions,
                   "--ring-capacity-bytes", "67108864")
        fanout = ["fanout", "--ring-dir", self.ring_dir, "--partitions", partitions, "--channel", CHANNEL,
                  "--stream-id-base", str(STREAM_ID_BASE), "--term-length-bytes", "4194304", "--max-orders", "65536",
                  "--snapshot-interval-ms", "1000"]
        self.start("fanout", *fanout)
        self.start("record", "record", "--aeron-dir", self.driver_dir, "--channel", CHANNEL, "--stream-id-base",
                   str(STREAM_ID_BASE), "--partitions", partitions, "--until-end-of-messages", "--timeout-s", "150",
                   "--books-out", str(java[1]), "--out", str(java[0]), "--coverage-out", str(java[2]),
                   "--ready-file", str(self.work / "record-ready"))
        subscriber = mdfanout.Subscriber(CHANNEL, list(range(PARTITIONS)), stream_id_base=STREAM_ID_BASE,
                                         aeron_dir=self.driver_dir, record_path=python_recording)
        wait_for(lambda: "feed-handler: receiving line A" in self.log("feed-handler"), 60, "the feed handler")
        wait_for(lambda: "fanout: running" in self.log("fanout"), 60, "the fanout")
        events = []
        wait_for(lambda: events.extend(subscriber.poll()) or (subscriber.is_connected() and
                                                              (self.work / "record-ready").exists()),
                 60, "the subscribers connecting")
        self.start("simulator", "simulator", "--stats-interval-s", "1", *LINES, "--symbols", "50", "--seed", "17",
                   "--rate", str(RATE), "--messages", str(MESSAGES))

        def progress():
            """The simulator's last stats line's count (a line still being written does not match)."""
            counts = re.findall(r"simulator: messages=(\d+) ", self.log("simulator"))
            return int(counts[-1]) if counts else 0

        ended, killed, deadline = set(), False, time.monotonic() + 180
        while len(ended) < PARTITIONS and time.monotonic() < deadline:
            for event in subscriber.poll(fragment_limit=1024, timeout_s=0.05):
                # keep what the checks read: snapshots, stale and recovered events, End of Messages
                if event["type"] in ("SNAPSHOT_BEGIN", "SnapshotInstrument", "SNAPSHOT_END", "STALE", "RECOVERED"):
                    events.append(event)
                elif event["type"] == "SystemEvent" and event["eventCode"] == ord("C") and "snapshot" not in event:
                    ended.add(event["p"])
            if not killed and progress() >= MESSAGES // 2:
                self.kill9("fanout")
                killed = True
                time.sleep(0.5)
                self.start("fanout-restarted", *fanout)
        self.assertTrue(killed, "the fanout was killed")
        self.assertEqual(PARTITIONS, len(ended), f"End of Messages on every partition (see {self.work})")
        wait_for(lambda: "record: messages=" in self.log("record"), 60, "Java's record ending")
        subscriber.flush_recording()

        # The fault happened and was recovered: each partition stale (the fanout went), then recovered by a snapshot.
        for partition in range(PARTITIONS):
            # SOURCE_DOWN costs no data (the fanout says so while the exchange's lines are silent, before the session
            # starts, and while a starved feed handler's heartbeat is late on a loaded machine): as Java's RecoveryTest,
            # the data-stale reasons are what the kill must cause, and the messages are checked below either way.
            stale = [e for e in events if e["type"] == "STALE" and e["p"] == partition and e["reason"] != "SOURCE_DOWN"]
            self.assertTrue(stale and {e["reason"] for e in stale} <= {"NEW_PUBLICATION", "SILENT"}, stale)
            recovered = [e for e in events if e["type"] == "RECOVERED" and e["p"] == partition]
            self.assertTrue(recovered and recovered[-1]["snapshot"] > 0, f"partition {partition} recovered")
        self.assertEqual(java[1].read_text(), subscriber.books_dump(), "the books, Java and Python")

        java_records, python_records = records(java[0].read_bytes()), records(python_recording.read_bytes())
        java_coverage = Coverage.from_java(java[2].read_text(), PARTITIONS)
        python_coverage = Coverage.from_events(events, PARTITIONS)
        by_key = {(p, s): m for p, s, m in java_records}
        last = [0] * PARTITIONS
        for p, s, m in python_records:
            self.assertGreater(s, last[p], f"partition {p}: {s} after {last[p]} (duplicated or reordered)")
            last[p] = s
            if (p, s) in by_key:
                self.assertEqual(by_key[(p, s)], m, f"partition {p} sequence {s} differs from Java's")
            else:
                self.assertLessEqual(s, java_coverage[p].through(instrument(m)),
                                     f"partition {p} sequence {s}: neither delivered nor covered by Java")
        delivered = {(p, s) for p, s, _ in python_records}
        after = [(p, s) for p, s, m in java_records if s > python_coverage[p].through(instrument(m))]
        self.assertEqual([], [k for k in after if k not in delivered], "none skipped after the recovery")
        self.assertGreater(len(after), 1_000)
        # Java's records the Python subscriber did not deliver are all covered by its snapshot (checked above, record
        # by record): which of them each delivered before going stale is its own timing (fresh run 13: partition 1's
        # 268,173..289,471, which Java's record read before the kill and the Python subscriber, behind it, did not;
        # the same snapshots for both), so the recordings need not be one even when the snapshots are.
        not_delivered = len(java_records) - sum(1 for p, s, _ in python_records if (p, s) in by_key)
        print(f"python: {len(python_records)} records, {len(after)} after its snapshot's coverage, each Java's; "
              f"{not_delivered} of Java's not delivered, each covered by its snapshot")


if __name__ == "__main__":
    unittest.main()
