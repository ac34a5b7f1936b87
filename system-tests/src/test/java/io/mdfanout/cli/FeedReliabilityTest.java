package io.mdfanout.cli;

import io.mdfanout.wire.ExitCodes;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Feed reliability end to end, with every role a separate process over real multicast: the
 * simulator sends lines A and B with deterministic losses and serves retransmissions, the feed
 * handler arbitrates the lines and recovers gaps, and subscribers must still receive exactly the
 * session the oracle derives from the generator.
 */
class FeedReliabilityTest
{
    private static final int PARTITIONS = 4;
    private static final int SYMBOLS = 200;
    private static final String LINE_A = "239.255.49.1";
    private static final String LINE_B = "239.255.49.3";

    @Test
    @Timeout(value = 15, unit = TimeUnit.MINUTES)
    void onePercentLossOnEachLineStillDeliversEveryMessageInOrder(@TempDir final Path dir) throws Exception
    {
        final long seed = 49001L;
        final long messages = 600_000L;
        final String channel = "aeron:udp?endpoint=224.0.1.49:49000|interface=127.0.0.1|mtu=8192";
        try (ChainHarness chain = new ChainHarness(dir, "loss", PARTITIONS, channel, 4900))
        {
            final ChainProcess feedHandler = chain.feedHandler(lines(49101, 49103,
                "--retransmit-server", "127.0.0.1:49150"));
            chain.fanout();
            final List<ChainProcess> subscribers = chain.recorders(2);
            final ChainProcess simulator = chain.simulator(simulatorArgs(seed, messages, 150_000, 49101, 49103,
                "--loss-a", "0.01", "--loss-b", "0.01", "--retransmit-port", "49150"));

            RestartTest.awaitSuccess(simulator, subscribers);
            final ExpectedStreams expected = ExpectedStreams.generate(seed, SYMBOLS, messages, PARTITIONS);
            for (int i = 1; i <= subscribers.size(); i++)
            {
                expected.verifyRecording(chain.recording(i), "subscriber-" + i);
                assertEquals(expected.books(), Files.readString(chain.books(i)), "subscriber-" + i + " books");
            }
            // The feed handler's own counters show both lines losing packets and filling each other's gaps.
            assertEquals(0, feedHandler.stop(), "feedHandler stopped on SIGTERM");
            final String stats = feedHandler.lastLineContaining("feed-handler: final");
            System.out.println(stats);
            for (final String line : new String[] {"A", "B"})
            {
                assertTrue(counter(stats, "line" + line, "dup") > 0, "duplicates counted on line " + line + ": " + stats);
                assertTrue(counter(stats, "line" + line, "fills") > 0, "gap fills counted on line " + line + ": " + stats);
            }
            chain.passed();
        }
    }

    @Test
    @Timeout(value = 10, unit = TimeUnit.MINUTES)
    void burstsOfAHundredPacketsLostOnBothLinesAreRecoveredByRetransmission(@TempDir final Path dir) throws Exception
    {
        final long seed = 49002L;
        final long messages = 300_000L;
        final String channel = "aeron:udp?endpoint=224.0.1.51:49200|interface=127.0.0.1|mtu=8192";
        try (ChainHarness chain = new ChainHarness(dir, "burst", PARTITIONS, channel, 5100))
        {
            chain.feedHandler(lines(49201, 49203, "--retransmit-server", "127.0.0.1:49250"));
            chain.fanout();
            final List<ChainProcess> subscribers = chain.recorders(1);
            final ChainProcess simulator = chain.simulator(simulatorArgs(seed, messages, 150_000, 49201, 49203,
                "--drop-a", "1001:100", "--drop-b", "1001:100",
                "--drop-a", "4001:100", "--drop-b", "4050:100",
                "--burst-length-a", "100", "--burst-probability-a", "0.0005",
                "--burst-length-b", "100", "--burst-probability-b", "0.0005",
                "--retransmit-port", "49250"));

            RestartTest.awaitSuccess(simulator, subscribers);
            final ExpectedStreams expected = ExpectedStreams.generate(seed, SYMBOLS, messages, PARTITIONS);
            expected.verifyRecording(chain.recording(1), "subscriber-1");
            assertEquals(expected.books(), Files.readString(chain.books(1)), "subscriber-1 books");
            chain.passed();
        }
    }

    @Test
    @Timeout(value = 10, unit = TimeUnit.MINUTES)
    void withoutRetransmissionSubscribersGetAGapNoticeForExactlyTheLostRangeAndTheChainGoesOn(@TempDir final Path dir)
        throws Exception
    {
        final long seed = 49003L;
        final long messages = 300_000L;
        final int firstLostPacket = 2001;
        final int lostPackets = 100;
        final Path capture = dir.resolve("session.pcap");
        final String channel = "aeron:udp?endpoint=224.0.1.53:49300|interface=127.0.0.1|mtu=8192";
        try (ChainHarness chain = new ChainHarness(dir, "declared", PARTITIONS, channel, 5300))
        {
            chain.feedHandler(lines(49301, 49303));
            chain.fanout();
            final List<ChainProcess> subscribers = chain.recorders(1);
            // With no retransmission server, any loss is declared, including the one this test does not
            // inject: a receiver stalled long enough for both lines' socket buffers to overflow. A
            // gentler rate keeps a 4 MiB buffer ahead of such a stall on a loaded 2-core machine.
            final String drop = firstLostPacket + ":" + lostPackets;
            final ChainProcess simulator = chain.simulator(simulatorArgs(seed, messages, 50_000, 49301, 49303,
                "--drop-a", drop, "--drop-b", drop, "--pcap-file", capture.toString()));

            assertEquals(0, simulator.waitFor(10, TimeUnit.MINUTES), "simulator exit code");
            // The books lack the lost messages for the rest of the session, and so does every snapshot: the
            // subscriber says so (stale EXCHANGE_GAP on each partition) and ends with the data-loss code.
            final ChainProcess subscriber = subscribers.get(0);
            assertEquals(ExitCodes.DATA_LOSS, subscriber.waitFor(5, TimeUnit.MINUTES), subscriber.name() +
                " exit code (4: exchange messages lost for good)");
            for (int partition = 0; partition < PARTITIONS; partition++)
            {
                final String stale = "STALE partition=" + partition + " reason=EXCHANGE_GAP";
                assertEquals(1, subscriber.linesContaining(stale).size(), stale + " once");
            }
            final String summary = subscriber.lastLineContaining("record: messages=");
            assertTrue(summary.contains("exchangeGaps=" + PARTITIONS) && summary.contains("stalePartitions=[0,1,2,3]"),
                summary);

            // What the outage removed, read from the simulator's own capture of every packet it made.
            final CapturedPackets packets = CapturedPackets.read(capture);
            final long firstLost = packets.firstSequence(firstLostPacket);
            final long lastLost = packets.lastSequence(firstLostPacket + lostPackets - 1);
            assertTrue(lastLost - firstLost + 1 >= lostPackets, "the outage removed at least one message per packet");

            final ExpectedStreams expected =
                ExpectedStreams.generate(seed, SYMBOLS, messages, PARTITIONS, firstLost, lastLost);
            expected.verifyRecording(chain.recording(1), "subscriber-1");
            chain.passed();
        }
    }

    @Test
    @Timeout(value = 10, unit = TimeUnit.MINUTES)
    void aCaptureAndAnItchFileOfTheSameSessionReplayToIdenticalSubscriberOutput(@TempDir final Path dir)
        throws Exception
    {
        final long seed = 49004L;
        final long messages = 200_000L;
        final Path itchFile = dir.resolve("session.itch.gz");
        final Path capture = dir.resolve("session.pcap");
        final ChainProcess writer = ChainProcess.start("simulator-files", dir, "simulator", "--no-send",
            "--seed", Long.toString(seed), "--symbols", Integer.toString(SYMBOLS), "--messages", Long.toString(messages),
            "--group", LINE_A, "--port", "49401", "--itch-file", itchFile.toString(), "--pcap-file", capture.toString());
        assertEquals(0, writer.waitFor(2, TimeUnit.MINUTES), "simulator writing the files");

        final Path fromFile = replayThroughChain(dir.resolve("file"), "replay-file", 5500,
            "--file", itchFile.toString(), "--wait-for-consumer");
        final Path fromCapture = replayThroughChain(dir.resolve("pcap"), "replay-pcap", 5600,
            "--file", capture.toString(), "--group", LINE_A, "--port", "49401", "--wait-for-consumer");

        final ExpectedStreams expected = ExpectedStreams.generate(seed, SYMBOLS, messages, PARTITIONS);
        expected.verifyRecording(fromFile, "subscriber of the ITCH file replay");
        expected.verifyRecording(fromCapture, "subscriber of the capture replay");
        final byte[][] fileStreams = RecordFile.streamsByPartition(fromFile, PARTITIONS);
        final byte[][] captureStreams = RecordFile.streamsByPartition(fromCapture, PARTITIONS);
        for (int p = 0; p < PARTITIONS; p++)
        {
            assertArrayEquals(fileStreams[p], captureStreams[p],
                "partition " + p + ": both replays give the subscriber byte-identical streams");
        }
    }

    private static Path replayThroughChain(
        final Path dir, final String name, final int streamIdBase, final String... replayArgs) throws Exception
    {
        Files.createDirectories(dir);
        final String channel = "aeron:udp?endpoint=224.0.1.55:" + (streamIdBase * 10) + "|interface=127.0.0.1|mtu=8192";
        try (ChainHarness chain = new ChainHarness(dir, name, PARTITIONS, channel, streamIdBase))
        {
            // The replay creates the rings and holds its first message until the subscriber has joined
            // (the fanout drops what it publishes while no subscriber is connected).
            final ChainProcess replay = chain.replay(name, concatArgs(replayArgs,
                "--wait-for-file", dir.resolve("subscriber-1.ready").toString()));
            chain.fanout();
            final List<ChainProcess> subscribers = chain.recorders(1);
            assertEquals(0, subscribers.get(0).waitFor(5, TimeUnit.MINUTES), name + " subscriber exit code");
            assertEquals(0, replay.waitFor(2, TimeUnit.MINUTES), name + " exit code");
            chain.passed();
            return chain.recording(1);
        }
    }

    /** A counter of one line in the feed handler's stats line, e.g. lineA[... dup=12 ...]. */
    private static long counter(final String stats, final String line, final String name)
    {
        final java.util.regex.Matcher matcher = java.util.regex.Pattern
            .compile(line + "\\[[^\\]]*\\b" + name + "=(\\d+)").matcher(stats);
        return matcher.find() ? Long.parseLong(matcher.group(1)) : -1;
    }

    private static String[] lines(final int portA, final int portB, final String... more)
    {
        final String[] base = {"--group", LINE_A, "--port", Integer.toString(portA), "--interface", "127.0.0.1",
            "--group-b", LINE_B, "--port-b", Integer.toString(portB), "--gap-wait-ms", "5"};
        return concat(base, more);
    }

    private static String[] simulatorArgs(
        final long seed, final long messages, final int rate, final int portA, final int portB, final String... more)
    {
        final String[] base = {"--group", LINE_A, "--port", Integer.toString(portA), "--interface", "127.0.0.1",
            "--group-b", LINE_B, "--port-b", Integer.toString(portB),
            "--seed", Long.toString(seed), "--symbols", Integer.toString(SYMBOLS),
            "--messages", Long.toString(messages), "--rate", Integer.toString(rate)};
        return concat(base, more);
    }

    private static String[] concatArgs(final String[] first, final String... second)
    {
        return concat(first, second);
    }

    private static String[] concat(final String[] first, final String[] second)
    {
        final String[] all = java.util.Arrays.copyOf(first, first.length + second.length);
        System.arraycopy(second, 0, all, first.length, second.length);
        return all;
    }
}
