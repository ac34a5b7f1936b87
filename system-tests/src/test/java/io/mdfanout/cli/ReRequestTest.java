package io.mdfanout.cli;

import io.mdfanout.wire.ExitCodes;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Recovery that never quits on a live server (issue 36): a gap of over 300,000 messages, lost on both lines, is
 * recovered in full from a MoldUDP64 re-request server that answers as the specification says (one packet a
 * request), from one rate-limited to 50,000 messages a second, and from one that loses 30% of its answers. Each is
 * separate processes over real multicast and real UDP; each checks that the fault happened (the gap's size, the
 * server's behaviour in its own counters) and that every message arrived, exactly once and byte-exact, against the
 * oracle. A server that falls silent mid-gap spends the recovery silence budget and then the rest is declared, and
 * said so, and the subscriber reports every partition stale with the exchange's loss and exits with the data-loss
 * code.
 */
class ReRequestTest
{
    private static final int PARTITIONS = 4;
    private static final int SYMBOLS = 200;
    private static final long MESSAGES = 800_000;
    private static final String LINE_A = "239.255.56.1";
    private static final String LINE_B = "239.255.56.3";
    /**
     * Data packets lost on both lines: over 300,000 messages of this session, whose packets are full (coalesced for
     * up to a millisecond at 100,000 messages a second), so the count does not depend on the machine's timing.
     */
    private static final String DROP = "4001:9000";
    private static final Pattern FILLS_R = Pattern.compile("lineR\\[packets=(\\d+) first=(\\d+) dup=(\\d+) fills=(\\d+)");
    private static final Pattern DECLARED = Pattern.compile("gapsDeclared=(\\d+) declaredMissing=(\\d+)");
    private static final Pattern GAP = Pattern.compile("gapsDetected=(\\d+)");
    private static final Pattern SERVED = Pattern.compile(
        "retransmit\\(requests=(\\d+) rejected=(\\d+) partial=(\\d+) messages=(\\d+) packets=(\\d+) dropped=(\\d+) " +
        "ignored=(\\d+)\\)");

    @Test
    @Timeout(value = 10, unit = TimeUnit.MINUTES)
    void aGapOfThreeHundredThousandIsRecoveredFromAServerAnsweringOnePacketARequest(@TempDir final Path dir)
        throws Exception
    {
        final Recovered r = recover(dir, "onepacket", 56001L, 56000);
        assertEquals(r.served.get(0), r.served.get(4), "one packet a request: as many packets as requests");
        assertTrue(r.feedHandler.linesContaining("answers one packet a request").size() == 1,
            "the feed handler learned how the server answers");
    }

    @Test
    @Timeout(value = 10, unit = TimeUnit.MINUTES)
    void aGapOfThreeHundredThousandIsRecoveredFromAServerRateLimitedToFiftyThousandMessagesASecond(
        @TempDir final Path dir) throws Exception
    {
        final Recovered r = recover(dir, "ratelimited", 56002L, 56100, "--retransmit-rate", "50000");
        System.out.println("rate limited: recovery took at least " + r.fillsR / 50_000.0 + " s at the server's rate");
    }

    @Test
    @Timeout(value = 10, unit = TimeUnit.MINUTES)
    void aGapOfThreeHundredThousandIsRecoveredFromAServerThatLosesThirtyPercentOfItsAnswers(@TempDir final Path dir)
        throws Exception
    {
        final Recovered r = recover(dir, "lossy", 56003L, 56200, "--retransmit-drop-percent", "30");
        final long dropped = r.served.get(5);
        final long packets = r.served.get(4);
        assertTrue(dropped > 0.2 * (dropped + packets), "about 30% of the answers were lost: " + dropped + " of " +
            (dropped + packets));
        final String stats = r.feedHandler.lastLineContaining("feed-handler: final");
        assertTrue(Long.parseLong(field(stats, "timedOut")) > 0, "lost answers were asked for again: " + stats);
    }

    @Test
    @Timeout(value = 10, unit = TimeUnit.MINUTES)
    void aServerThatFallsSilentMidGapSpendsTheSilenceBudgetThenTheRestIsDeclared(@TempDir final Path dir)
        throws Exception
    {
        final long seed = 56004L;
        final String channel = "aeron:udp?endpoint=224.0.1.191:56300|interface=127.0.0.1|mtu=8192";
        try (ChainHarness chain = new ChainHarness(dir, "silent", PARTITIONS, channel, 6330))
        {
            final ChainProcess feedHandler = chain.feedHandler(lines(56301, 56303, "--retransmit-server",
                "127.0.0.1:56350", "--recovery-silence-budget-ms", "2000"));
            chain.fanout("--snapshot-interval-ms", "1000");
            final ChainProcess subscriber = chain.recorders(1).get(0);
            // A shorter session and gap than above: what is shown here is the end of recovery, not its size.
            final String[] args = simulatorArgs(seed, 56301, 56303, 56350,
                "--drop-a", "2001:3000", "--drop-b", "2001:3000", "--retransmit-silent-after", "30000");
            args[java.util.Arrays.asList(args).indexOf("--messages") + 1] = "400000";
            final ChainProcess simulator = chain.simulator(args);
            // Without GLIMPSE nothing can rebuild the books: every partition is stale with the loss, and record
            // ends with the data-loss code.
            assertEquals(ExitCodes.DATA_LOSS, subscriber.waitFor(5, TimeUnit.MINUTES), "record's exit code");
            ChainHarness.endLingeringSimulator(simulator);
            final List<Long> served = served(simulator);
            assertTrue(served.get(3) >= 30_000 && served.get(3) < 30_100,
                "the server served 30,000 messages (to the end of its last packet), then fell silent: " + served);
            assertTrue(served.get(6) > 0, "and ignored what it was asked after: " + served);

            for (int partition = 0; partition < PARTITIONS; partition++)
            {
                assertEquals(1, subscriber.linesContaining("STALE partition=" + partition + " reason=EXCHANGE_GAP")
                    .size(), "partition " + partition + " stale with the exchange's loss");
            }
            final String declaring = feedHandler.lastLineContaining("declaring ");
            assertTrue(declaring.contains("recovery silence budget 2000 ms"), declaring);

            // A subscriber that joins after the loss learns it from the snapshot that recovers it: the fanout's
            // state lacks the declared messages and its SnapshotBegin says so. (A late joiner's books lacked them
            // while it said nothing, and record exited 0.)
            final ChainProcess late = chain.start("late", "record", "--channel", channel, "--stream-id-base", "6330",
                "--partitions", Integer.toString(PARTITIONS), "--out", dir.resolve("late.bin").toString(),
                "--until-end-of-messages", "--timeout-s", "60");
            assertEquals(ExitCodes.DATA_LOSS, late.waitFor(2, TimeUnit.MINUTES), "the late joiner's exit code");
            for (int partition = 0; partition < PARTITIONS; partition++)
            {
                assertEquals(1, late.linesContaining("STALE partition=" + partition + " reason=EXCHANGE_GAP").size(),
                    "the late joiner's partition " + partition + " is stale with the exchange's loss");
            }
            final String lateSummary = late.lastLineContaining("record: messages=");
            assertTrue(lateSummary.contains(" snapshotsApplied=" + PARTITIONS + " ") &&
                lateSummary.contains(" exchangeGaps=" + PARTITIONS + " "), "each partition's snapshot applied, " +
                "its books the fanout's state, which lacks what the exchange lost: " + lateSummary);
            feedHandler.stop();
            final String stats = feedHandler.lastLineContaining("feed-handler: final");
            System.out.println(stats);
            final Matcher declared = DECLARED.matcher(stats);
            assertTrue(declared.find() && Long.parseLong(declared.group(1)) >= 1, stats);
            final Matcher lineR = FILLS_R.matcher(stats);
            assertTrue(lineR.find(), stats);
            final long fills = Long.parseLong(lineR.group(4));
            assertEquals(served.get(3), fills + Long.parseLong(lineR.group(3)),
                "every message the server sent arrived (filling the gap or, asked twice, a duplicate): " + stats);
            assertTrue(Long.parseLong(declared.group(2)) + fills >= 3_000,
                "the rest of the gap was declared: " + stats);
            chain.passed();
        }
    }

    @Test
    @Timeout(value = 10, unit = TimeUnit.MINUTES)
    void aServerThatFallsSilentWithGlimpseConfiguredIsDeclaredThenTheRingsAreRebuiltAndSubscribersEndExact(
        @TempDir final Path dir) throws Exception
    {
        final long seed = 56005L;
        final String channel = "aeron:udp?endpoint=224.0.1.191:56400|interface=127.0.0.1|mtu=8192";
        try (ChainHarness chain = new ChainHarness(dir, "rebuild", PARTITIONS, channel, 6340))
        {
            // As above, the server falls silent mid-gap; the session goes on long after the declaration, so that
            // the rebuild happens in it. The feed handler starts before the exchange: it tries the GLIMPSE service
            // until it answers (each second), then loads the snapshot (an empty one: the session starts 4 s after the
            // exchange's GLIMPSE service does).
            final ChainProcess feedHandler = chain.feedHandler(lines(56401, 56403, "--retransmit-server",
                "127.0.0.1:56450", "--recovery-silence-budget-ms", "2000", "--glimpse", "127.0.0.1:56460"));
            chain.fanout("--snapshot-interval-ms", "1000");
            final List<ChainProcess> subscribers = chain.recorders(2);
            feedHandler.awaitLine("GLIMPSE: try 1: ");
            final String[] args = simulatorArgs(seed, 56401, 56403, 56450, "--drop-a", "2001:3000", "--drop-b",
                "2001:3000", "--retransmit-silent-after", "30000", "--glimpse-port", "56460",
                "--start-delay-ms", "4000");
            final long messages = 900_000; // 15 s: the rebuilt generation delivers for several seconds
            args[java.util.Arrays.asList(args).indexOf("--messages") + 1] = Long.toString(messages);
            args[java.util.Arrays.asList(args).indexOf("--rate") + 1] = "60000";
            final ChainProcess simulator = chain.simulator(args);
            feedHandler.awaitLine("continuing at sequence");
            final String loaded = feedHandler.lastLineContaining("continuing at sequence");
            assertTrue(loaded.endsWith("continuing at sequence 1"),
                "the feed handler retried until the GLIMPSE service answered, before the session began: " + loaded);

            // Exit 0: every subscriber ends with books that lack nothing, although the exchange's loss was declared.
            RestartTest.awaitSuccess(simulator, subscribers);
            final String declaring = feedHandler.lastLineContaining("declaring ");
            assertTrue(declaring.contains("recovery silence budget 2000 ms"), declaring);
            final String rebuilt = feedHandler.lastLineContaining("GLIMPSE: rebuilt:");
            assertTrue(rebuilt.contains("continues at sequence"), "the rings were rebuilt: " + rebuilt);
            System.out.println(rebuilt);
            final long continuedAt = Long.parseLong(rebuilt.replaceAll("^.*continues at sequence (\\d+).*$", "$1"));

            final ExpectedStreams expected = ExpectedStreams.generate(seed, SYMBOLS, messages, PARTITIONS);
            for (int i = 1; i <= subscribers.size(); i++)
            {
                final ChainProcess subscriber = subscribers.get(i - 1);
                for (int partition = 0; partition < PARTITIONS; partition++)
                {
                    assertEquals(1, subscriber.linesContaining("STALE partition=" + partition +
                        " reason=EXCHANGE_GAP").size(), subscriber.name() + " partition " + partition +
                        " stale with the exchange's loss, then recovered by the rebuilt generation");
                    assertEquals(1, subscriber.linesContaining("STALE partition=" + partition +
                        " reason=NEW_PUBLICATION").size(), subscriber.name() + " partition " + partition);
                }
                assertEquals(expected.books(), Files.readString(chain.books(i)), subscriber.name() + " books");
                expected.verifyAcrossGlimpseGeneration(chain.recording(i), subscriber.name(), continuedAt);
            }
            chain.passed();
        }
    }

    /** What a recovery left: the simulator's retransmission counters and the feed handler. */
    private record Recovered(List<Long> served, ChainProcess feedHandler, long fillsR)
    {
    }

    private static Recovered recover(
        final Path dir, final String name, final long seed, final int portBase, final String... serverArgs)
        throws Exception
    {
        final String channel = "aeron:udp?endpoint=224.0.1.191:" + portBase + "|interface=127.0.0.1|mtu=8192";
        final int metricsPort = portBase + 60;
        try (ChainHarness chain = new ChainHarness(dir, name, PARTITIONS, channel, 6000 + (portBase - 56000) / 10);
            ReadyProbe ready = new ReadyProbe(metricsPort);
            ReadyProbe fanoutReady = new ReadyProbe(metricsPort + 1))
        {
            final ChainProcess feedHandler = chain.feedHandler(lines(portBase + 1, portBase + 3,
                "--retransmit-server", "127.0.0.1:" + (portBase + 50),
                "--metrics-port", Integer.toString(metricsPort), "--metrics-bind", "127.0.0.1"));
            chain.fanout("--snapshot-interval-ms", "1000", "--metrics-port", Integer.toString(metricsPort + 1),
                "--metrics-bind", "127.0.0.1");
            final List<ChainProcess> subscribers = chain.recorders(2);
            final ChainProcess simulator = chain.simulator(RestartTest.concat(
                simulatorArgs(seed, portBase + 1, portBase + 3, portBase + 50, "--drop-a", DROP, "--drop-b", DROP),
                serverArgs));

            RestartTest.awaitSuccess(simulator, subscribers);
            final ExpectedStreams expected = ExpectedStreams.generate(seed, SYMBOLS, MESSAGES, PARTITIONS);
            for (int i = 1; i <= subscribers.size(); i++)
            {
                // The filled gap's backlog (hundreds of thousands of messages held in order) goes out in one burst:
                // on a loaded machine a subscriber may fall behind it and recover from a snapshot, as any slow
                // subscriber does. Then its recording is checked from the recovery on; otherwise whole.
                final long[] recovered = RecoveryTest.lastRecovered(subscribers.get(i - 1));
                if (java.util.Arrays.stream(recovered).allMatch(sequence -> 0 == sequence))
                {
                    expected.verifyRecording(chain.recording(i), "subscriber-" + i);
                }
                else
                {
                    System.out.println("subscriber-" + i + " fell behind the backlog and recovered at " +
                        java.util.Arrays.toString(recovered));
                    expected.verifyDisturbedRecording(chain.recording(i), "subscriber-" + i);
                }
                assertEquals(expected.books(), java.nio.file.Files.readString(chain.books(i)), "subscriber-" + i);
                // The feed handler holds the live stream (in order) until the gap is filled: seconds with nothing to
                // publish, which the subscribers report as the source down; never as lost data.
                for (final String stale : subscribers.get(i - 1).linesContaining("STALE "))
                {
                    assertTrue(stale.contains("reason=SOURCE_DOWN"), "subscriber-" + i + ": " + stale);
                }
            }
            // Readiness (GET /ready, the chart's probe): not ready while the gap held the live stream, ready once filled.
            assertEquals("200 ready", ready.ask(), "caught up with the exchange");
            final List<String> answers = ready.answers();
            System.out.println("feed handler /ready: " + answers);
            assertTrue(answers.stream().anyMatch(answer -> answer.startsWith("503 not ready: recovering a gap: ")),
                "not ready while the gap was re-requested: " + answers);
            assertEquals("200 ready", fanoutReady.ask(), "the fanout: its source live, its rings read");
            System.out.println("fanout /ready: " + fanoutReady.answers());
            feedHandler.stop();
            final String stats = feedHandler.lastLineContaining("feed-handler: final");
            System.out.println(stats);
            final Matcher declared = DECLARED.matcher(stats);
            assertTrue(declared.find() && "0".equals(declared.group(1)), "nothing declared: " + stats);
            final long fills = fillsR(stats);
            assertTrue(fills >= 300_000, "a gap of over 300,000 messages, filled by the re-request server: " + stats);
            final List<Long> served = served(simulator);
            System.out.println(simulator.lastLineContaining("simulator: done"));
            chain.passed();
            return new Recovered(served, feedHandler, fills);
        }
    }

    private static long fillsR(final String stats)
    {
        final Matcher m = FILLS_R.matcher(stats);
        assertTrue(m.find(), stats);
        return Long.parseLong(m.group(4));
    }

    private static String field(final String line, final String name)
    {
        final Matcher m = Pattern.compile(" " + name + "=(\\d+)").matcher(line);
        assertTrue(m.find(), name + " in " + line);
        return m.group(1);
    }

    /** requests, rejected, partial, messages, packets, dropped, ignored of the simulator's retransmission server. */
    private static List<Long> served(final ChainProcess simulator) throws Exception
    {
        final String done = simulator.lastLineContaining("simulator: done");
        final Matcher m = SERVED.matcher(done);
        assertTrue(m.find(), done);
        final Long[] values = new Long[7];
        for (int i = 0; i < 7; i++)
        {
            values[i] = Long.parseLong(m.group(i + 1));
        }
        return List.of(values);
    }

    private static String[] lines(final int portA, final int portB, final String... more)
    {
        return RestartTest.concat(new String[] {"--group", LINE_A, "--port", Integer.toString(portA), "--interface",
            "127.0.0.1", "--group-b", LINE_B, "--port-b", Integer.toString(portB), "--gap-wait-ms", "5"}, more);
    }

    private static String[] simulatorArgs(
        final long seed, final int portA, final int portB, final int retransmitPort, final String... more)
    {
        return RestartTest.concat(new String[] {"--group", LINE_A, "--port", Integer.toString(portA), "--interface",
            "127.0.0.1", "--group-b", LINE_B, "--port-b", Integer.toString(portB),
            "--seed", Long.toString(seed), "--symbols", Integer.toString(SYMBOLS),
            "--messages", Long.toString(MESSAGES), "--rate", "100000", "--coalesce-us", "1000",
            "--retransmit-port", Integer.toString(retransmitPort), "--linger-ms", "8000"}, more);
    }
}
