"""The Python client live, beside the Java SDK's recorder: simulator -> feed handler -> fanout (bin/mdfanout, after a
Maven build) on loopback multicast, a standalone Java media driver both subscribers attach to; a whole session. The
Python recording must be Java's ``record --out``, byte for byte per partition, its books Java's ``--books-out`` dump,
every message delivered, no gap. A second Python subscriber joins late: it recovers from the snapshot streams
(``STALE`` ``LATE_JOIN``, the snapshot, ``RECOVERED``), ends with Java's books, and every message it delivered is the
first subscriber's, none skipped after its recovery. The session is also recorded by ``mdfanout archive``: replayed
from a stream sequence with ``mdfanout.Replay``, every message from it on is the first subscriber's (the ones before
it are the state: ``snapshot=1``), and the books are Java's; its DataFrame is exact."""

import os
import pathlib
import shutil
import signal
import subprocess
import tempfile
import time
import unittest

import mdfanout

ROOT = pathlib.Path(__file__).resolve().parents[3]
PARTITIONS = 2
MESSAGES = 100_000
# Two Python subscribers in one loop turn each message into a dictionary (about 9 us): at 50,000 msg/s on a loaded
# 2-core machine the late one fell behind its receiver's window and lost its image (silent, recovered past the end).
RATE = 20_000
# Every subscriber of the test shares one media driver, so one image per stream, whose receiver window follows the
# slowest of them: with 1 MiB terms (a 512 KiB window, about 0.7 s of this session's traffic) a stall of the Python
# process on the loaded machine of a fresh `make test` stalled Java's record and both Python subscribers at once
# (each SILENT, then recovered from a snapshot after the End of Messages: docs/OPERATIONS.md, "Slow consumers").
# 4 MiB terms give the driver's whole 2 MiB window, about 3 s.
TERM_LENGTH = 4 * 1024 * 1024
CHANNEL = "aeron:udp?endpoint=224.0.53.1:53456|interface=127.0.0.1"
STREAM_ID_BASE = 5300
ARCHIVE_CONTROL = "aeron:udp?endpoint=localhost:53010"
SESSION = "python-live-1"
LINES = ["--group", "239.255.53.1", "--port", "53100", "--interface", "127.0.0.1"]


def by_partition(recording):
    """A recording's records (``record --out`` format: i32 length, u16 partition, i64 sequence, the message) by
    partition, each partition's bytes in order."""
    partitions, at = {}, 0
    while at < len(recording):
        length = int.from_bytes(recording[at:at + 4], "little")
        partition = int.from_bytes(recording[at + 4:at + 6], "little")
        end = at + 14 + length
        partitions.setdefault(partition, bytearray()).extend(recording[at:end])
        at = end
    return partitions


def first_item_difference(expected, actual):
    """Where two long sequences first differ, or None: unittest's assertEqual diffs lists line by line (difflib) before
    it reports, and with 2,000 events each one field off it had not reported after 2 minutes."""
    if expected == actual:
        return None
    at = next((i for i, (x, y) in enumerate(zip(expected, actual)) if x != y), min(len(expected), len(actual)))
    return (f"{len(expected)} and {len(actual)} items, the first difference at {at}: "
            f"{expected[at] if at < len(expected) else 'none'} and {actual[at] if at < len(actual) else 'none'}")


def first_difference(expected, actual):
    """Where two recordings' partitions (``by_partition``) first differ, byte by byte, or None (fresh run 13 hung in
    assertEqual's diff of two such recordings)."""
    return next((f"partition {partition}: {difference}" for partition in sorted(set(expected) | set(actual))
                 if (difference := first_item_difference(bytes(expected.get(partition, b"")),
                                                         bytes(actual.get(partition, b""))))), None)


def wait_for(predicate, timeout_s, what):
    deadline = time.monotonic() + timeout_s
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out: {what}")
        time.sleep(0.1)


class Chain(unittest.TestCase):
    """A chain of bin/mdfanout processes for a test, stopped whatever happens; its work directory kept on failure."""

    def setUp(self):
        self.assertTrue((ROOT / "cli/target/mdfanout.jar").exists(), "bin/mdfanout needs the Maven build (make build)")
        self.work = pathlib.Path(tempfile.mkdtemp(prefix="mdfanout-python-live-"))
        self.driver_dir = f"/dev/shm/mdfanout-python-live-driver-{os.getpid()}"
        self.archive_driver_dir = f"/dev/shm/mdfanout-python-live-archive-{os.getpid()}"
        self.ring_dir = f"/dev/shm/mdfanout-python-live-rings-{os.getpid()}"
        self.processes = {}

    def tearDown(self):
        for process in self.processes.values():
            if process.poll() is None:
                process.send_signal(signal.SIGTERM)
        for process in self.processes.values():
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        for path in (self.driver_dir, self.archive_driver_dir, self.ring_dir):
            shutil.rmtree(path, ignore_errors=True)
        if getattr(self, "_outcome", None) is None or not self._failed():
            shutil.rmtree(self.work, ignore_errors=True)

    def _failed(self):
        result = self._outcome.result
        return bool(getattr(result, "failures", None) or getattr(result, "errors", None))

    def start(self, name, *args):
        with open(self.work / f"{name}.log", "w") as log:
            self.processes[name] = subprocess.Popen([str(ROOT / "bin/mdfanout"), *args], stdout=log,
                                                    stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                                    env={**os.environ, "MDFANOUT_HEAP": "128m"})

    def log(self, name):
        path = self.work / f"{name}.log"
        return path.read_text() if path.exists() else ""

    def kill9(self, name):
        """Kill a process with -9 (no clean-up of its own) and reap it."""
        self.processes[name].kill()
        self.processes[name].wait()


class LiveTest(Chain):
    def test_no_media_driver_is_a_connection_error(self):
        with self.assertRaises(ConnectionError) as raised:
            mdfanout.Subscriber(CHANNEL, [0], aeron_dir=str(self.work / "no-driver"), connect_timeout_s=1.0)
        self.assertIn("media driver", str(raised.exception))
        with self.assertRaises(ValueError):
            mdfanout.Subscriber(CHANNEL, [0], connect_timeout_s=0)
        with self.assertRaises(ValueError) as raised:  # a pair of one side twice
            mdfanout.Subscriber(CHANNEL, [0], pair_channel=CHANNEL)
        self.assertIn("no pair", str(raised.exception))
        with self.assertRaises(ValueError) as raised:
            mdfanout.Subscriber(CHANNEL, [0], recovery_buffer_bytes=1024)
        self.assertIn("recovery buffer", str(raised.exception))
        with self.assertRaises(OSError) as raised:  # before any driver is looked for
            mdfanout.Subscriber(CHANNEL, [0], record_path=self.work / "no-such-directory" / "x.bin")
        self.assertIn("cannot create record file", str(raised.exception))

    def test_a_whole_session_gives_the_java_sdks_books(self):
        partitions = str(PARTITIONS)
        books_out = self.work / "java-books.txt"
        java_recording, python_recording = self.work / "java.bin", self.work / "python.bin"
        self.start("media-driver", "media-driver", "--aeron-dir", self.driver_dir)
        wait_for(lambda: os.path.exists(f"{self.driver_dir}/cnc.dat"), 30, "the media driver")
        self.start("archive", "archive", "--archive-dir", str(self.work / "archive"), "--aeron-dir",
                   self.archive_driver_dir, "--channel", CHANNEL, "--stream-id-base", str(STREAM_ID_BASE), "--partitions",
                   partitions, "--control-channel", ARCHIVE_CONTROL, "--session", SESSION, "--min-free-bytes", "64m")
        self.start("feed-handler", "feed-handler", *LINES, "--ring-dir", self.ring_dir, "--partitions", partitions,
                   "--ring-capacity-bytes", "4194304")
        wait_for(lambda: "archive: running" in self.log("archive"), 90, "the archive")
        self.start("fanout", "fanout", "--ring-dir", self.ring_dir, "--partitions", partitions, "--channel", CHANNEL,
                   "--stream-id-base", str(STREAM_ID_BASE), "--term-length-bytes", str(TERM_LENGTH),
                   "--max-orders", "65536")
        self.start("record", "record", "--aeron-dir", self.driver_dir, "--channel", CHANNEL, "--stream-id-base",
                   str(STREAM_ID_BASE), "--partitions", partitions, "--until-end-of-messages", "--timeout-s", "90",
                   "--books-out", str(books_out), "--out", str(java_recording), "--ready-file", str(self.work / "record-ready"))

        subscriber = mdfanout.Subscriber(CHANNEL, list(range(PARTITIONS)), stream_id_base=STREAM_ID_BASE,
                                         aeron_dir=self.driver_dir, record_path=python_recording)
        wait_for(lambda: "feed-handler: receiving line A" in self.log("feed-handler"), 60, "the feed handler")
        wait_for(lambda: "fanout: running" in self.log("fanout"), 60, "the fanout")
        events = []

        def connected():
            events.extend(subscriber.poll())
            return subscriber.is_connected() and (self.work / "record-ready").exists()

        wait_for(connected, 60, "the subscribers connecting to the fanout")
        for partition in range(PARTITIONS):
            wait_for(lambda: f"partition {partition} recording" in self.log("archive"), 60, "the archive recording")
        self.start("simulator", "simulator", *LINES, "--symbols", "50", "--seed", "7", "--rate", str(RATE),
                   "--messages", str(MESSAGES))

        ended, late, late_events, late_ended = set(), None, [], set()
        deadline = time.monotonic() + 90
        while (len(ended) < PARTITIONS or len(late_ended) < PARTITIONS) and time.monotonic() < deadline:
            for event in subscriber.poll(timeout_s=0.1):
                events.append(event)
                if event["type"] == "SystemEvent" and event["eventCode"] == ord("C"):
                    ended.add(event["p"])
            if late is None and len(events) > MESSAGES // 4:
                late = mdfanout.Subscriber(CHANNEL, list(range(PARTITIONS)), stream_id_base=STREAM_ID_BASE,
                                           aeron_dir=self.driver_dir)
            for event in late.poll() if late is not None else []:
                late_events.append(event)
                if event["type"] == "SystemEvent" and event["eventCode"] == ord("C") and "snapshot" not in event:
                    late_ended.add(event["p"])
        self.assertEqual(PARTITIONS, len(ended), f"End of Messages on every partition (see {self.work})")
        self.assertEqual(PARTITIONS, len(late_ended), f"the late joiner's End of Messages (see {self.work}): "
                         f"{[e for e in late_events if e['type'] in ('JOINED', 'STALE', 'RECOVERED', 'GAP')]}, "
                         f"{len(late_events)} events, the last {late_events[-3:]}, {late.counters() if late else None}")
        wait_for(lambda: "record: messages=" in self.log("record"), 60, "Java's record ending")
        java_log = self.log("record")
        java_messages = int(java_log.split("record: messages=")[1].split()[0])

        counters = subscriber.counters()
        self.assertEqual(0, counters["gaps"], counters)
        self.assertIn(" gaps=0 ", java_log)
        self.assertEqual(java_messages, counters["messages"], "messages delivered, Java and Python")
        delivered = [e for e in events if "xs" in e]
        self.assertEqual(java_messages, len(delivered), "one event a message")
        for partition in range(PARTITIONS):
            sequences = [e["ss"] for e in delivered if e["p"] == partition]
            self.assertIsNone(first_item_difference(list(range(1, len(sequences) + 1)), sequences),
                              f"partition {partition} in order, once")
        self.assertGreater(counters["messages"], MESSAGES * 9 // 10)
        # The recording: each partition's records byte for byte Java's (how partitions interleave is each poll's own).
        self.assertEqual(counters["messages"], subscriber.flush_recording())
        java_bytes, python_bytes = java_recording.read_bytes(), python_recording.read_bytes()
        self.assertTrue(java_bytes)
        self.assertEqual(len(java_bytes), len(python_bytes))
        self.assertIsNone(first_difference(by_partition(java_bytes), by_partition(python_bytes)),
                          "each partition's records")
        java_books = books_out.read_text()
        self.assertTrue(java_books)
        self.assertEqual(java_books, subscriber.books_dump(), "the books, Java and Python")
        # The session as a DataFrame: a row per message (and event), exact; then a window of what comes after it.
        frame = mdfanout.to_dataframe(events)
        self.assertEqual(java_messages, int(frame["xs"].notna().sum()))
        self.assertIsNone(first_item_difference(sorted(e["xs"] for e in delivered),
                                                sorted(int(x) for x in frame["xs"].dropna())))
        # (the exchange has gone quiet: the fanout's heartbeats may say the source is down, a partition stale)
        after = subscriber.window(0.6)
        self.assertLessEqual(set(after["type"]) if len(after) else set(), {"HEARTBEAT", "STALE"}, "only liveness after")
        if len(after):
            stale = after[after["type"] == "STALE"]
            self.assertEqual({"SOURCE_DOWN"} if len(stale) else set(), set(stale["reason"] if len(stale) else []))
        books = subscriber.books()
        self.assertTrue(all(b.bids or b.asks for b in books.values()))
        self.assertTrue(all(b.bids == sorted(b.bids, reverse=True) for b in books.values()), "bids best first")
        self.check_late_joiner(late, late_events, delivered, java_books)
        wait_for(lambda: f"session {SESSION} ended" in self.log("archive"), 120, "the archive seeing the session end")
        self.check_replay(delivered, java_books)

    def check_replay(self, delivered, java_books):
        """The archive's session replayed from a stream sequence 40% into partition 0: every message from it on is the
        one the first subscriber delivered live, the ones before it the state (snapshot=1), the books Java's."""
        start = 1 + sum(1 for e in delivered if e["p"] == 0) * 4 // 10
        replay = mdfanout.Replay(ARCHIVE_CONTROL, list(range(PARTITIONS)), start=f"seq:{start}",
                                 stream_id_base=STREAM_ID_BASE, aeron_dir=self.driver_dir, session=SESSION,
                                 replay_stream_id=5390, timeout_s=30)
        self.assertEqual(SESSION, replay.session)
        events = list(replay.events())
        self.assertTrue(replay.is_ended())
        state = [e for e in events if "xs" in e and "snapshot" in e]
        replayed = [e for e in events if "xs" in e and "snapshot" not in e]
        self.assertEqual(PARTITIONS * (start - 1), len(state), "the state before the point, every partition")
        # per partition in order (how the partitions interleave is each poll loop's own)
        in_order = lambda events: sorted(events, key=lambda e: (e["p"], e["ss"]))  # noqa: E731
        self.assertIsNone(first_item_difference(in_order(e for e in delivered if e["ss"] >= start),
                                                in_order(replayed)), "every message from the point on")
        self.assertEqual(java_books, replay.books_dump(), "the replay's books, Java's")
        self.assertEqual([], replay.problems())
        frame = mdfanout.to_dataframe(events, types=["AddOrder"])
        self.assertEqual(sum(1 for e in events if e["type"] == "AddOrder"), len(frame))

    def check_late_joiner(self, late, late_events, delivered, java_books):
        """The late joiner recovered from a snapshot on every partition and then delivered what the first subscriber
        did: every message it delivered is the first's, and after its snapshot's coverage none is missing."""
        for partition in range(PARTITIONS):
            stale = [e for e in late_events if e["type"] == "STALE" and e["p"] == partition]
            self.assertEqual("LATE_JOIN", stale[0]["reason"] if stale else None, f"partition {partition} joined late")
            recovered = [e for e in late_events if e["type"] == "RECOVERED" and e["p"] == partition]
            self.assertTrue(recovered and recovered[-1]["snapshot"] > 0, f"partition {partition} recovered")
        self.assertEqual(java_books, late.books_dump(), "the books, Java and the late joiner")
        first = {(e["p"], e["ss"]): e for e in delivered}
        covered = {}  # the last snapshot's coverage: (partition) -> [(from instrument, to instrument, through)]
        for e in late_events:
            if e["type"] == "SNAPSHOT_BEGIN":
                covered[e["p"]] = [(0, 0, e["last"])]
            elif e["type"] == "SnapshotInstrument":
                covered[e["p"]].append((e["coveredFromInstrumentId"], e["inst"], e["ss"]))
            elif e["type"] == "SNAPSHOT_END":
                covered[e["p"]].append((e["coveredFrom"], 2 ** 64, e["last"]))

        def covered_through(partition, instrument):
            return next((last for low, high, last in covered[partition] if low <= instrument <= high), 0)

        late_delivered = [e for e in late_events if "xs" in e and "snapshot" not in e]
        for e in late_delivered:
            self.assertEqual(first.get((e["p"], e["ss"])), e, "every message the late joiner delivered is the first's")
        keys = {(e["p"], e["ss"]) for e in late_delivered}
        after = [e for e in delivered if e["ss"] > covered_through(e["p"], e["inst"])]
        self.assertEqual([], [k for k in ((e["p"], e["ss"]) for e in after) if k not in keys], "none skipped")
        self.assertGreater(len(after), 0)


if __name__ == "__main__":
    unittest.main()
