package io.mdfanout.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The archive on a pair (work in progress, issue 37): both sides' partition streams recorded, side B under an alias
 * of its own, and a hole only where no side recorded a span of the partition's chain.
 */
class PairArchiveTest
{
    private static final int PARTITIONS = 4;
    private static final int SYMBOLS = 200;

    /**
     * Side A's fanout killed with -9 mid-session and restarted: side A's recordings lack what its dead fanout never
     * sent, side B's hold it, so the archive of the pair reports no hole.
     */
    @Test
    @Timeout(value = 10, unit = TimeUnit.MINUTES)
    void oneSideDyingLeavesNoHoleInTheArchiveOfThePair(@TempDir final Path dir) throws Exception
    {
        final long seed = 61001L;
        final long messages = 1_000_000;
        final String channelA = "aeron:udp?endpoint=224.0.1.213:61200|interface=127.0.0.1|mtu=8192";
        final String channelB = "aeron:udp?endpoint=224.0.1.215:61400|interface=127.0.0.1|mtu=8192";
        final String control = "aeron:udp?endpoint=localhost:61610";
        final Path archiveDir = dir.resolve("archive");
        final Path dirA = Files.createDirectories(dir.resolve("side-a"));
        final Path dirB = Files.createDirectories(dir.resolve("side-b"));
        try (ChainHarness sideA = new ChainHarness(dirA, "pairarcha", PARTITIONS, channelA, 7100);
            ChainHarness sideB = new ChainHarness(dirB, "pairarchb", PARTITIONS, channelB, 7200))
        {
            final String[] feed = {"--group", "239.255.61.1", "--port", "61101", "--interface", "127.0.0.1",
                "--group-b", "239.255.61.3", "--port-b", "61103", "--gap-wait-ms", "5",
                "--retransmit-server", "127.0.0.1:61150"};
            sideA.feedHandler(feed);
            sideB.feedHandler(feed);
            final ChainProcess fanoutA = sideA.fanout("--snapshot-interval-ms", "1000");
            sideB.fanout("--snapshot-interval-ms", "1000");
            final ChainProcess archive = ArchiveTest.archive(sideA, dirA, "archive", archiveDir, control, 0,
                "--pair-channel", channelB, "--pair-stream-id-base", sideB.streamIdBase());
            assertTrue(archive.lastLineContaining("archive: running").contains("pairChannel=" + channelB),
                archive.lastLineContaining("archive: running"));
            final ChainProcess simulator = sideA.simulator("--group", "239.255.61.1", "--port", "61101",
                "--interface", "127.0.0.1", "--group-b", "239.255.61.3", "--port-b", "61103",
                "--seed", Long.toString(seed), "--symbols", Integer.toString(SYMBOLS),
                "--messages", Long.toString(messages), "--rate", "40000", "--retransmit-port", "61150");

            ChainHarness.awaitSimulatorProgress(simulator, messages * 3 / 10);
            fanoutA.kill9();
            assertFalse(fanoutA.isAlive(), "side A's fanout is dead");
            Thread.sleep(1_000);
            sideA.namedFanout("fanout-restarted", "--snapshot-interval-ms", "1000");
            assertEquals(0, simulator.waitFor(5, TimeUnit.MINUTES), "simulator exit code");
            Thread.sleep(3_000); // the last packets recorded, the pair's holes judged (every second)
            assertEquals(0, archive.stop(), "archive stopped on SIGTERM");

            final List<String> catalog = Files.readAllLines(archiveDir.resolve("mdfanout-catalog.txt"));
            final long sideARecordings = catalog.stream()
                .filter(l -> l.startsWith("recording ") && !l.contains(" side=")).count();
            final long sideBRecordings = catalog.stream()
                .filter(l -> l.startsWith("recording ") && l.contains(" side=B ")).count();
            assertTrue(sideARecordings >= 2L * PARTITIONS,
                "the fault happened: side A's restarted fanout is a new recording per partition: " + catalog);
            assertEquals(PARTITIONS, sideBRecordings, "side B recorded throughout, one recording per partition: " +
                catalog);
            assertEquals(List.of(), catalog.stream().filter(l -> l.startsWith("hole ")).toList(),
                "no hole of the pair: side B recorded what side A lacks");
            assertEquals(List.of(), archive.linesContaining("archive: HOLE"), "no hole said");
            catalog.stream().filter(l -> l.startsWith("side-hole ")).forEach(System.out::println);
            System.out.println("archive of the pair: side A " + sideARecordings + " recordings, side B " +
                sideBRecordings + ", " + catalog.stream().filter(l -> l.startsWith("side-hole ")).count() +
                " side hole(s), no hole of the pair");
            sideA.passed();
            sideB.passed();
        }
    }

    /**
     * The exchange ends the day while side A's fanout is dead: the archive of the pair rolls on side B's End of
     * Messages, and side A's restarted fanout, catching up on the ended day, is not taken for the next day's stream.
     */
    @Test
    @Timeout(value = 10, unit = TimeUnit.MINUTES)
    void aSideStillSendingTheEndedDayIsNotRecordedAsTheNextDay(@TempDir final Path dir) throws Exception
    {
        final long seed = 61003L;
        final long messages = 300_000;
        final String channelA = "aeron:udp?endpoint=224.0.1.221:62200|interface=127.0.0.1|mtu=8192";
        final String channelB = "aeron:udp?endpoint=224.0.1.223:62400|interface=127.0.0.1|mtu=8192";
        final String control = "aeron:udp?endpoint=localhost:61630";
        final Path archiveDir = dir.resolve("archive");
        final Path dirA = Files.createDirectories(dir.resolve("side-a"));
        final Path dirB = Files.createDirectories(dir.resolve("side-b"));
        try (ChainHarness sideA = new ChainHarness(dirA, "pairarchra", PARTITIONS, channelA, 7500);
            ChainHarness sideB = new ChainHarness(dirB, "pairarchrb", PARTITIONS, channelB, 7600))
        {
            final String[] feed = {"--group", "239.255.62.1", "--port", "62101", "--interface", "127.0.0.1",
                "--group-b", "239.255.62.3", "--port-b", "62103", "--gap-wait-ms", "5",
                "--retransmit-server", "127.0.0.1:62150"};
            sideA.feedHandler(feed);
            sideB.feedHandler(feed);
            final ChainProcess fanoutA = sideA.fanout("--snapshot-interval-ms", "1000");
            sideB.fanout("--snapshot-interval-ms", "1000");
            final ChainProcess archive = ArchiveTest.archive(sideA, dirA, "archive", archiveDir, control, 0,
                "--pair-channel", channelB, "--pair-stream-id-base", sideB.streamIdBase());
            final ChainProcess simulator = sideA.simulator("--group", "239.255.62.1", "--port", "62101",
                "--interface", "127.0.0.1", "--group-b", "239.255.62.3", "--port-b", "62103",
                "--seed", Long.toString(seed), "--symbols", Integer.toString(SYMBOLS),
                "--messages", Long.toString(messages), "--rate", "40000", "--retransmit-port", "62150");

            ChainHarness.awaitSimulatorProgress(simulator, messages / 2);
            fanoutA.kill9();
            assertEquals(0, simulator.waitFor(5, TimeUnit.MINUTES), "simulator exit code");
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (archive.lastLineContaining("archive: session 2026-11-27 ended").isEmpty())
            {
                assertTrue(System.nanoTime() < deadline, "the archive rolled on side B's End of Messages: " +
                    archive.logTail());
                Thread.sleep(100);
            }
            final ChainProcess restarted = sideA.namedFanout("fanout-restarted", "--snapshot-interval-ms", "1000");
            ChainHarness.awaitCaughtUp(restarted, simulator);
            Thread.sleep(3_000);
            assertEquals(0, archive.stop(), "archive stopped on SIGTERM");

            final List<String> catalog = Files.readAllLines(archiveDir.resolve("mdfanout-catalog.txt"));
            assertEquals(List.of(), catalog.stream().filter(l -> !l.contains(" session=2026-11-27 ") &&
                !l.startsWith("hole session=2026-11-27 ") && !l.startsWith("recording session=2026-11-27 ") &&
                !l.startsWith("side-hole session=2026-11-27 ")).toList(),
                "nothing recorded as the next day: the exchange never started one: " + catalog);
            assertEquals(List.of(), archive.linesContaining("the next day's stream started"), "no next day");
            sideA.passed();
            sideB.passed();
        }
    }

    private static long field(final String line, final String name)
    {
        final java.util.regex.Matcher matcher = java.util.regex.Pattern.compile(" " + name + "=(\\d+)").matcher(line);
        assertTrue(matcher.find(), name + " in " + line);
        return Long.parseLong(matcher.group(1));
    }

    /**
     * The archive of a pair killed with -9 and restarted: neither side was recorded meanwhile, so each partition has
     * holes of the pair, by chain position, where both sides' recordings lack the same messages (the stretch the archive
     * was down, and what the restarted recordings could not get from the publications' windows); each side's own
     * stream-sequence holes are listed too, as a side's.
     */
    @Test
    @Timeout(value = 10, unit = TimeUnit.MINUTES)
    void theArchiveDownIsOneHoleOfThePairPerPartition(@TempDir final Path dir) throws Exception
    {
        final long seed = 61002L;
        final long messages = 1_000_000;
        final String channelA = "aeron:udp?endpoint=224.0.1.217:61700|interface=127.0.0.1|mtu=8192";
        final String channelB = "aeron:udp?endpoint=224.0.1.219:61900|interface=127.0.0.1|mtu=8192";
        final String control = "aeron:udp?endpoint=localhost:61620";
        final Path archiveDir = dir.resolve("archive");
        final Path dirA = Files.createDirectories(dir.resolve("side-a"));
        final Path dirB = Files.createDirectories(dir.resolve("side-b"));
        try (ChainHarness sideA = new ChainHarness(dirA, "pairarchka", PARTITIONS, channelA, 7300);
            ChainHarness sideB = new ChainHarness(dirB, "pairarchkb", PARTITIONS, channelB, 7400))
        {
            final String[] feed = {"--group", "239.255.61.5", "--port", "61501", "--interface", "127.0.0.1",
                "--group-b", "239.255.61.7", "--port-b", "61503", "--gap-wait-ms", "5",
                "--retransmit-server", "127.0.0.1:61550"};
            sideA.feedHandler(feed);
            sideB.feedHandler(feed);
            sideA.fanout("--snapshot-interval-ms", "1000");
            sideB.fanout("--snapshot-interval-ms", "1000");
            final String[] pair = {"--pair-channel", channelB, "--pair-stream-id-base", sideB.streamIdBase()};
            final ChainProcess archive = ArchiveTest.archive(sideA, dirA, "archive", archiveDir, control, 0, pair);
            final ChainProcess simulator = sideA.simulator("--group", "239.255.61.5", "--port", "61501",
                "--interface", "127.0.0.1", "--group-b", "239.255.61.7", "--port-b", "61503",
                "--seed", Long.toString(seed), "--symbols", Integer.toString(SYMBOLS),
                "--messages", Long.toString(messages), "--rate", "40000", "--retransmit-port", "61550");

            ChainHarness.awaitSimulatorProgress(simulator, messages * 2 / 10);
            archive.kill9();
            assertFalse(archive.isAlive(), "the archive is dead");
            ChainHarness.awaitSimulatorProgress(simulator, messages * 4 / 10);
            final ChainProcess restarted = ArchiveTest.archive(sideA, dirA, "archive-restarted", archiveDir, control, 0,
                pair);
            assertEquals(0, simulator.waitFor(5, TimeUnit.MINUTES), "simulator exit code");
            Thread.sleep(3_000);
            assertEquals(0, restarted.stop(), "archive stopped on SIGTERM");

            // Each side's recordings lack what its side holes list (by its stream sequences: neither fanout restarted,
            // so stream sequence n is the partition's n-th message of the oracle); the holes of the pair, by chain
            // position, must name exactly the messages both sides lack: no more, no fewer.
            final ExpectedStreams expected = ExpectedStreams.generate(seed, SYMBOLS, messages, PARTITIONS);
            final List<String> catalog = Files.readAllLines(archiveDir.resolve("mdfanout-catalog.txt"));
            final List<String> holes = catalog.stream().filter(l -> l.startsWith("hole ")).toList();
            holes.forEach(System.out::println);
            int pairHoles = 0;
            for (int partition = 0; partition < PARTITIONS; partition++)
            {
                final java.util.BitSet both = new java.util.BitSet();
                both.set(1, expected.partitionMessages(partition) + 1);
                for (final String side : List.of("", " side=B"))
                {
                    final java.util.BitSet lacks = new java.util.BitSet();
                    final String sideHole = "side-hole session=2026-11-27" + side + " partition=" + partition + " ";
                    for (final String line : catalog)
                    {
                        if (line.startsWith(sideHole))
                        {
                            lacks.set((int)field(line, "first-missing"), (int)field(line, "last-missing") + 1);
                        }
                    }
                    assertFalse(lacks.isEmpty(), "partition " + partition + ": side '" + side + "' lacks the archive's " +
                        "absence: " + catalog);
                    both.and(lacks);
                }
                final java.util.BitSet reported = new java.util.BitSet();
                final String prefix = "hole session=2026-11-27 partition=" + partition + " sides=both ";
                for (final String line : holes)
                {
                    if (line.startsWith(prefix))
                    {
                        final long after = field(line, "after-chain");
                        final long through = field(line, "through-chain");
                        for (int n = 1; n <= expected.partitionMessages(partition); n++)
                        {
                            final long chain = expected.exchangeSequenceAtStreamSequence(partition, n);
                            if (chain > after && chain <= through)
                            {
                                reported.set(n);
                            }
                        }
                        pairHoles++;
                    }
                }
                assertFalse(both.isEmpty(), "partition " + partition + ": the fault happened (both sides lack messages)");
                assertEquals(both, reported, "partition " + partition + ": the holes of the pair name exactly the " +
                    "messages both sides' recordings lack: " + holes);
            }
            assertEquals(pairHoles, restarted.linesContaining("archive: HOLE").size(),
                restarted.linesContaining("archive: HOLE").toString());
            sideA.passed();
            sideB.passed();
        }
    }
}
