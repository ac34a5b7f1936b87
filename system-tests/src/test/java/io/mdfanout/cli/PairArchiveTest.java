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
 * The archive on a pair: both sides' partition streams recorded, side B under an alias of its own, a hole only where
 * no side recorded a span of the partition's chain, and a subscriber of the pair that replays both sides' recordings
 * through its arbitration, so what one side's recordings lack comes from the other's, then merges into the live pair.
 */
class PairArchiveTest
{
    private static final int PARTITIONS = 4;
    private static final int SYMBOLS = 200;

    /**
     * Side A lost early in the session and started again as a new pod (its feed handler and fanout killed with -9,
     * its /dev/shm emptied, joined by GLIMPSE), so side A's recordings lack a stretch of the chain that side B's hold:
     * the archive of the pair reports no hole. A subscriber of the pair that starts at 40% from the session's start
     * replays both sides' recordings through its arbitration and merges into the live pair: its recording is every
     * message exactly once, in order, byte for byte, with no gap and no stale period, one switch to live per
     * partition. After the session, a replay-only of the pair is exact too, while a replay of side A's recordings
     * alone ends in data loss (the fault happened).
     */
    @Test
    @Timeout(value = 10, unit = TimeUnit.MINUTES)
    void oneSideLostLeavesNoHoleAndASubscriberReplaysThePairIntoLiveTakingWhatOneSideLacksFromTheOther(
        @TempDir final Path dir) throws Exception
    {
        final long seed = 61004L;
        final long messages = 600_000;
        final String channelA = "aeron:udp?endpoint=224.0.1.225:62700|interface=127.0.0.1|mtu=8192";
        final String channelB = "aeron:udp?endpoint=224.0.1.227:62900|interface=127.0.0.1|mtu=8192";
        final String control = "aeron:udp?endpoint=localhost:61640";
        final Path archiveDir = dir.resolve("archive");
        final Path dirA = Files.createDirectories(dir.resolve("side-a"));
        final Path dirB = Files.createDirectories(dir.resolve("side-b"));
        try (ChainHarness sideA = new ChainHarness(dirA, "pairarchpa", PARTITIONS, channelA, 7700);
            ChainHarness sideB = new ChainHarness(dirB, "pairarchpb", PARTITIONS, channelB, 7800))
        {
            final ArchivedPair pair = ArchivedPair.start(sideA, sideB, archiveDir, control, "239.255.62.5",
                "239.255.62.7", 62500, seed, messages, "--glimpse-port", "62560", "--linger-ms", "10000");
            final ChainProcess feedHandlerA = pair.feedHandlerA();
            final ChainProcess fanoutA = pair.fanoutA();
            final ChainProcess archive = pair.archive();
            final ChainProcess simulator = pair.simulator();
            assertTrue(archive.lastLineContaining("archive: running").contains("pairChannel=" + channelB),
                archive.lastLineContaining("archive: running"));

            // Side A as a new pod at 10%: killed, its /dev/shm emptied, started again from the exchange's GLIMPSE
            // snapshot: its chain lacks what the exchange sent between its death and the snapshot. Once side A's first
            // pod is recorded: a fanout slow to start was once killed before it published anything, and the archive
            // then held no first recording of side A to lack anything after.
            for (int p = 0; p < PARTITIONS; p++)
            {
                archive.awaitLine("side A partition " + p + " recording");
            }
            ChainHarness.awaitSimulatorProgress(simulator, messages / 10);
            feedHandlerA.kill9();
            fanoutA.kill9();
            assertFalse(feedHandlerA.isAlive() || fanoutA.isAlive(), "side A's feed handler and fanout are dead");
            try (java.util.stream.Stream<Path> paths = Files.walk(sideA.ringDir()))
            {
                paths.sorted(java.util.Comparator.reverseOrder()).filter(path -> !path.equals(sideA.ringDir()))
                    .forEach(path -> path.toFile().delete());
            }
            Thread.sleep(1_000);
            sideA.start("feed-handler-glimpse", RestartTest.concat(new String[] {"feed-handler", "--ring-dir",
                sideA.ringDir().toString(), "--partitions", Integer.toString(PARTITIONS), "--stats-interval-s", "2",
                "--glimpse", "127.0.0.1:62560"}, pair.feed()));
            sideA.namedFanout("fanout-glimpse", "--snapshot-interval-ms", "1000");
            ChainHarness.awaitSimulatorProgress(simulator, messages * 4 / 10);
            final String[] subscriber = {"record", "--channel", channelA, "--stream-id-base", sideA.streamIdBase(),
                "--pair-channel", channelB, "--pair-stream-id-base", sideB.streamIdBase(),
                "--partitions", Integer.toString(PARTITIONS), "--from", "start", "--archive-control-channel", control};
            final Path lateRecording = dir.resolve("late.bin");
            final Path lateBooks = dir.resolve("late.books");
            final ChainProcess late = sideA.start("late", RestartTest.concat(subscriber, new String[] {
                "--out", lateRecording.toString(), "--books-out", lateBooks.toString(), "--until-end-of-messages",
                "--timeout-s", "600"}));

            assertEquals(0, simulator.waitFor(5, TimeUnit.MINUTES), "simulator exit code");
            assertEquals(0, late.waitFor(5, TimeUnit.MINUTES), "late subscriber exit code (0: no gap, no stale)");
            final ExpectedStreams expected = ExpectedStreams.generate(seed, SYMBOLS, messages, PARTITIONS);
            expected.verifyPairRecording(lateRecording, "late subscriber of the pair");
            assertEquals(expected.books(), Files.readString(lateBooks), "the late subscriber's books");
            assertEquals(PARTITIONS, late.linesContaining("REPLAY_LIVE").size(),
                "one switch to live per partition, logged: " + late.linesContaining("REPLAY_LIVE"));
            assertEquals(List.of(), late.linesContaining("STALE "), "never stale");
            final String summary = late.lastLineContaining("record: messages=");
            System.out.println("late subscriber of the pair: " + summary);
            assertTrue(summary.contains(" gaps=0 ") && summary.contains(" stale=0 ") &&
                summary.matches(".* replaySwitches=" + PARTITIONS + "\\b.*") &&
                summary.matches(".* replayed=[1-9]\\d*\\b.*"), summary);

            Thread.sleep(2_000); // the session's last packets recorded
            final Path pairReplayed = dir.resolve("pair-replayed.bin");
            final ChainProcess replayPair = sideA.start("replay-only-pair", RestartTest.concat(subscriber, new String[] {
                "--replay-only", "--out", pairReplayed.toString(), "--timeout-s", "120"}));
            assertEquals(0, replayPair.waitFor(3, TimeUnit.MINUTES), "the pair replayed alone: no gap (exit 0): " +
                replayPair.logTail());
            expected.verifyPairRecording(pairReplayed, "replay-only of the pair");

            final ChainProcess replayA = sideA.start("replay-only-side-a", "record", "--channel", channelA,
                "--stream-id-base", sideA.streamIdBase(), "--partitions", Integer.toString(PARTITIONS),
                "--from", "start", "--archive-control-channel", control, "--replay-only",
                "--out", dir.resolve("side-a-replayed.bin").toString(), "--timeout-s", "120");
            final int sideAExit = replayA.waitFor(3, TimeUnit.MINUTES);
            System.out.println("side A's recordings alone: exit " + sideAExit + ", " +
                replayA.lastLineContaining("record: messages="));
            assertEquals(4, sideAExit, "the fault happened: side A's recordings alone lack what its dead side never " +
                "sent (exit 4: data loss): " + replayA.logTail());
            assertEquals(PARTITIONS, replayA.linesContaining("starts the stream again").size(),
                "each partition's replay of side A says its new pod's recording starts a new stream: " +
                replayA.logTail());
            assertEquals(0, archive.stop(), "archive stopped on SIGTERM");

            final List<String> catalog = Files.readAllLines(archiveDir.resolve("mdfanout-catalog.txt"));
            final long sideARecordings = catalog.stream()
                .filter(l -> l.startsWith("recording ") && !l.contains(" side=")).count();
            final long sideBRecordings = catalog.stream()
                .filter(l -> l.startsWith("recording ") && l.contains(" side=B ")).count();
            assertTrue(sideARecordings >= 2L * PARTITIONS,
                "the fault happened: side A's new pod is a new recording per partition: " + catalog);
            assertEquals(PARTITIONS, sideBRecordings, "side B recorded throughout, one recording per partition: " +
                catalog);
            assertEquals(List.of(), catalog.stream().filter(l -> l.startsWith("hole ")).toList(),
                "no hole of the pair: side B recorded what side A lacks");
            assertEquals(List.of(), archive.linesContaining("archive: HOLE"), "no hole said");
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
            final ArchivedPair pair = ArchivedPair.start(sideA, sideB, archiveDir, control, "239.255.62.1",
                "239.255.62.3", 62100, seed, messages);
            final ChainProcess fanoutA = pair.fanoutA();
            final ChainProcess archive = pair.archive();
            final ChainProcess simulator = pair.simulator();

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

    /**
     * A pair archived and under way: each side's feed handler (lines A and B of the exchange, re-requests) and fanout,
     * one archive recording both sides, and the exchange sending the session.
     */
    private record ArchivedPair(
        String[] feed, String[] pairOptions, ChainProcess feedHandlerA, ChainProcess fanoutA, ChainProcess archive,
        ChainProcess simulator)
    {
        /**
         * @param lineA, lineB the exchange's multicast groups; {@code port} + 1 and + 3 their ports, + 50 the
         *                     re-request server's.
         */
        static ArchivedPair start(
            final ChainHarness sideA, final ChainHarness sideB, final Path archiveDir, final String control,
            final String lineA, final String lineB, final int port, final long seed, final long messages,
            final String... simulatorExtra) throws Exception
        {
            final String[] feed = {"--group", lineA, "--port", Integer.toString(port + 1), "--interface", "127.0.0.1",
                "--group-b", lineB, "--port-b", Integer.toString(port + 3), "--gap-wait-ms", "5",
                "--retransmit-server", "127.0.0.1:" + (port + 50)};
            final ChainProcess feedHandlerA = sideA.feedHandler(feed);
            sideB.feedHandler(feed);
            final ChainProcess fanoutA = sideA.fanout("--snapshot-interval-ms", "1000");
            sideB.fanout("--snapshot-interval-ms", "1000");
            final String[] pairOptions = {"--pair-channel", sideB.channel(), "--pair-stream-id-base",
                sideB.streamIdBase()};
            final ChainProcess archive = ArchiveTest.archive(sideA, sideA.dir(), "archive", archiveDir, control, 0,
                pairOptions);
            final ChainProcess simulator = sideA.simulator(RestartTest.concat(new String[] {"--group", lineA,
                "--port", Integer.toString(port + 1), "--interface", "127.0.0.1", "--group-b", lineB,
                "--port-b", Integer.toString(port + 3), "--seed", Long.toString(seed),
                "--symbols", Integer.toString(SYMBOLS), "--messages", Long.toString(messages), "--rate", "40000",
                "--retransmit-port", Integer.toString(port + 50)}, simulatorExtra));
            return new ArchivedPair(feed, pairOptions, feedHandlerA, fanoutA, archive, simulator);
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
        final long messages = 600_000;
        final String channelA = "aeron:udp?endpoint=224.0.1.217:61700|interface=127.0.0.1|mtu=8192";
        final String channelB = "aeron:udp?endpoint=224.0.1.219:61900|interface=127.0.0.1|mtu=8192";
        final String control = "aeron:udp?endpoint=localhost:61620";
        final Path archiveDir = dir.resolve("archive");
        final Path dirA = Files.createDirectories(dir.resolve("side-a"));
        final Path dirB = Files.createDirectories(dir.resolve("side-b"));
        try (ChainHarness sideA = new ChainHarness(dirA, "pairarchka", PARTITIONS, channelA, 7300);
            ChainHarness sideB = new ChainHarness(dirB, "pairarchkb", PARTITIONS, channelB, 7400))
        {
            final ArchivedPair pair = ArchivedPair.start(sideA, sideB, archiveDir, control, "239.255.61.5",
                "239.255.61.7", 61500, seed, messages);
            final ChainProcess archive = pair.archive();
            final ChainProcess simulator = pair.simulator();

            ChainHarness.awaitSimulatorProgress(simulator, messages * 2 / 10);
            archive.kill9();
            assertFalse(archive.isAlive(), "the archive is dead");
            ChainHarness.awaitSimulatorProgress(simulator, messages * 4 / 10);
            final ChainProcess restarted = ArchiveTest.archive(sideA, sideA.dir(), "archive-restarted", archiveDir,
                control, 0, pair.pairOptions());
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
