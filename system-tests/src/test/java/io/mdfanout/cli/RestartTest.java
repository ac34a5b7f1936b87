package io.mdfanout.cli;

import io.mdfanout.wire.ExitCodes;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Every role survives its own restart and its neighbour's (issue 26), each a separate process over
 * real multicast with lines A and B and a re-request server: a feed handler killed with -9 at 40%
 * of the session and started again 2 s later re-attaches to its rings and continues after the last
 * sequence it committed, so the subscribers' recordings are complete, exactly once, in order and
 * byte-exact against the oracle ({@link ExpectedStreams}), with no gap declared; the same with the
 * fanout killed at the same moment. A second feed handler on the same ring directory, a fanout with
 * other {@code --partitions} and a ring file of another layout are refused with a clear error while
 * the chain runs on undisturbed.
 */
class RestartTest
{
    private static final int PARTITIONS = 4;
    private static final int SYMBOLS = 200;
    private static final long MESSAGES = 700_000;
    private static final String LINE_A = "239.255.52.1";
    private static final String LINE_B = "239.255.52.3";
    private static final Pattern DECLARED = Pattern.compile("gapsDeclared=(\\d+) declaredMissing=(\\d+)");
    private static final Pattern REQUESTS = Pattern.compile("requests=(\\d+)");
    private static final Pattern SOURCE_DOWN = Pattern.compile("STALE partition=(\\d+) reason=SOURCE_DOWN .*epochMs=(\\d+)");
    private static final Pattern RECOVERED = Pattern.compile("RECOVERED partition=(\\d+) .*epochMs=(\\d+)");
    /** The subscribers' default silent timeout (FeedSubscriber.Context). */
    private static final long SILENT_TIMEOUT_MS = 2_000;

    @Test
    @Timeout(value = 10, unit = TimeUnit.MINUTES)
    void aFeedHandlerKilledAtFortyPercentAndRestartedLosesNothingAndDeclaresNothing(@TempDir final Path dir)
        throws Exception
    {
        final long seed = 52001L;
        final String channel = "aeron:udp?endpoint=224.0.1.151:52000|interface=127.0.0.1|mtu=8192";
        try (ChainHarness chain = new ChainHarness(dir, "fhrestart", PARTITIONS, channel, 5200))
        {
            final String[] feed = lines(52101, 52103, "--retransmit-server", "127.0.0.1:52150");
            final ChainProcess feedHandler = chain.feedHandler(feed);
            chain.fanout("--snapshot-interval-ms", "1000");
            final List<ChainProcess> subscribers = chain.recorders(2);
            final ChainProcess simulator = chain.simulator(simulatorArgs(seed, MESSAGES, 100_000, 52101, 52103, 52150));

            ChainHarness.awaitSimulatorProgress(simulator, MESSAGES * 4 / 10);
            feedHandler.kill9();
            assertFalse(feedHandler.isAlive(), "the feed handler is dead");
            Thread.sleep(2_000);
            final ChainProcess restarted = chain.start("feed-handler-restarted", feedHandlerArgs(chain, feed));

            awaitSuccess(simulator, subscribers);
            verifyExactlyOnce(chain, seed, subscribers);

            assertTrue(restarted.lastLineContaining("re-attached to generation").contains("processed through sequence"),
                "the restarted feed handler re-attached: " + restarted.lastLineContaining("rings:"));
            assertEquals(0, restarted.stop(), "restarted stopped on SIGTERM");
            final String stats = restarted.lastLineContaining("feed-handler: final");
            System.out.println(stats);
            final Matcher declared = DECLARED.matcher(stats);
            assertTrue(declared.find(), stats);
            assertEquals("0", declared.group(1), "no gap declared: " + stats);
            final Matcher requests = REQUESTS.matcher(stats);
            assertTrue(requests.find() && Long.parseLong(requests.group(1)) > 0,
                "the outage was requested from the re-request server: " + stats);
            chain.passed();
        }
    }

    @Test
    @Timeout(value = 10, unit = TimeUnit.MINUTES)
    void theFeedHandlerAndTheFanoutKilledTogetherAndRestartedLoseNothing(@TempDir final Path dir) throws Exception
    {
        final long seed = 52002L;
        final String channel = "aeron:udp?endpoint=224.0.1.153:52200|interface=127.0.0.1|mtu=8192";
        try (ChainHarness chain = new ChainHarness(dir, "bothrestart", PARTITIONS, channel, 5300))
        {
            final String[] feed = lines(52201, 52203, "--retransmit-server", "127.0.0.1:52250");
            final ChainProcess feedHandler = chain.feedHandler(feed);
            final ChainProcess fanout = chain.fanout("--snapshot-interval-ms", "1000");
            final List<ChainProcess> subscribers = chain.recorders(2);
            final ChainProcess simulator = chain.simulator(simulatorArgs(seed, MESSAGES, 100_000, 52201, 52203, 52250));

            ChainHarness.awaitSimulatorProgress(simulator, MESSAGES * 4 / 10);
            feedHandler.kill9();
            fanout.kill9();
            assertFalse(feedHandler.isAlive() || fanout.isAlive(), "both are dead");
            Thread.sleep(2_000);
            chain.start("feed-handler-restarted", feedHandlerArgs(chain, feed));
            chain.namedFanout("fanout-restarted", "--snapshot-interval-ms", "1000");

            awaitSuccess(simulator, subscribers);
            // The fanout resumes its stream from its persisted state in a new Aeron session: the subscribers
            // went stale (new publication) and recovered from its snapshots. The feed handler lost nothing.
            final ExpectedStreams expected = ExpectedStreams.generate(seed, SYMBOLS, MESSAGES, PARTITIONS);
            for (int i = 1; i <= subscribers.size(); i++)
            {
                assertEquals(expected.books(), Files.readString(chain.books(i)), "subscriber-" + i + " books");
                // Every message delivered is the oracle's, and from the recovery on none is skipped.
                expected.verifyDisturbedRecording(chain.recording(i), "subscriber-" + i);
            }
            chain.passed();
        }
    }

    @Test
    @Timeout(value = 10, unit = TimeUnit.MINUTES)
    void aFanoutDownLongerThanItsRingsHoldCostsAReRequestNotASilentStall(@TempDir final Path dir) throws Exception
    {
        final long seed = 52004L;
        final String channel = "aeron:udp?endpoint=224.0.1.161:52700|interface=127.0.0.1|mtu=8192";
        try (ChainHarness chain = new ChainHarness(dir, "longoutage", PARTITIONS, channel, 5700))
        {
            // 1 MiB rings hold about 80,000 messages, under a second of this feed.
            final String[] feed = lines(52701, 52703, "--retransmit-server", "127.0.0.1:52750",
                "--ring-capacity-bytes", "1048576", "--ring-full-wait-ms", "500");
            final ChainProcess feedHandler = chain.feedHandler(feed);
            final ChainProcess fanout = chain.fanout("--snapshot-interval-ms", "1000");
            final List<ChainProcess> subscribers = chain.recorders(2);
            final ChainProcess simulator = chain.simulator(simulatorArgs(seed, MESSAGES, 100_000, 52701, 52703, 52750));

            ChainHarness.awaitSimulatorProgress(simulator, MESSAGES * 3 / 10);
            fanout.kill9();
            Thread.sleep(4_000);
            assertTrue(feedHandler.isAlive(), "the feed handler reads on through the fanout outage");
            chain.namedFanout("fanout-restarted", "--snapshot-interval-ms", "1000");

            awaitSuccess(simulator, subscribers);
            final ExpectedStreams expected = ExpectedStreams.generate(seed, SYMBOLS, MESSAGES, PARTITIONS);
            for (int i = 1; i <= subscribers.size(); i++)
            {
                assertEquals(expected.books(), Files.readString(chain.books(i)), "subscriber-" + i + " books");
                // Not only the books: every message delivered is the oracle's, none skipped after the recovery.
                expected.verifyDisturbedRecording(chain.recording(i), "subscriber-" + i);
            }
            assertEquals(0, feedHandler.stop(), "feedHandler stopped on SIGTERM");
            final String stats = feedHandler.lastLineContaining("feed-handler: final");
            System.out.println(stats);
            final Matcher stalls = Pattern.compile("ringStalls=(\\d+) stallMessages=(\\d+)").matcher(stats);
            assertTrue(stalls.find() && Long.parseLong(stalls.group(1)) >= 1 && Long.parseLong(stalls.group(2)) > 0,
                "the rings filled and the feed handler stalled, reading on: " + stats);
            final Matcher declared = DECLARED.matcher(stats);
            assertTrue(declared.find() && "0".equals(declared.group(1)), "recovered by re-request, nothing declared: " + stats);
            assertTrue(feedHandler.linesContaining("stopped writing at sequence").size() >= 1, "the stall was logged");
            chain.passed();
        }
    }

    @Test
    @Timeout(value = 10, unit = TimeUnit.MINUTES)
    void aFeedHandlerStoppedIsReportedByEverySubscriberWithinTheSilentTimeoutAndRecoveredAfterItContinues(
        @TempDir final Path dir) throws Exception
    {
        final long seed = 52005L;
        final long messages = 600_000;
        final String channel = "aeron:udp?endpoint=224.0.1.163:52800|interface=127.0.0.1|mtu=8192";
        try (ChainHarness chain = new ChainHarness(dir, "sigstop", PARTITIONS, channel, 5800))
        {
            final ChainProcess feedHandler = chain.feedHandler(
                lines(52801, 52803, "--retransmit-server", "127.0.0.1:52850"));
            final ChainProcess fanout = chain.fanout("--snapshot-interval-ms", "1000");
            final List<ChainProcess> subscribers = chain.recorders(2);
            final ChainProcess simulator = chain.simulator(simulatorArgs(seed, messages, 50_000, 52801, 52803, 52850));

            ChainHarness.awaitSimulatorProgress(simulator, messages * 3 / 10);
            feedHandler.signal("STOP");
            final long stoppedAtMs = System.currentTimeMillis();
            Thread.sleep(3_000);
            final long continuedAtMs = System.currentTimeMillis();
            feedHandler.signal("CONT");

            awaitSuccess(simulator, subscribers);
            // Nothing was lost: the feed handler took its backlog from the socket buffers and the re-request server.
            verifyExactlyOnce(chain, seed, messages, subscribers);
            for (final ChainProcess subscriber : subscribers)
            {
                for (int partition = 0; partition < PARTITIONS; partition++)
                {
                    final Matcher stale = firstAfter(subscriber, SOURCE_DOWN, partition, stoppedAtMs);
                    assertTrue(null != stale, subscriber.name() + " reported partition " + partition + " source down");
                    final long reportedAfterMs = Long.parseLong(stale.group(2)) - stoppedAtMs;
                    assertTrue(reportedAfterMs <= SILENT_TIMEOUT_MS, subscriber.name() + " partition " + partition +
                        " knew within the silent timeout: " + reportedAfterMs + " ms after SIGSTOP");
                    final Matcher recovered = firstAfter(subscriber, RECOVERED, partition, continuedAtMs);
                    assertTrue(null != recovered, subscriber.name() + " recovered partition " + partition + " after SIGCONT");
                    System.out.println(subscriber.name() + ": " + stale.group() + " (" + reportedAfterMs +
                        " ms after SIGSTOP) -> " + recovered.group());
                }
            }
            // The fanout says why, each change once: the subscribers' SOURCE_DOWN and its cause side by side in the logs.
            final List<String> down = fanout.linesContaining("fanout: source feed_handler_down: the feed handler's " +
                "heartbeat is ");
            assertFalse(down.isEmpty(), "the fanout said its feed handler was down");
            assertTrue(down.get(0).endsWith("(subscribers hear the source is down)"), down.get(0));
            final String live = fanout.lastLineContaining("fanout: source live");
            assertFalse(live.isEmpty(), "the fanout said its source was live again");
            System.out.println(down.get(0) + " -> " + live);
            chain.passed();
        }
    }

    /** The first line matching {@code pattern} (partition as group 1, epoch ms as the last group) at or after a time. */
    private static Matcher firstAfter(
        final ChainProcess process, final Pattern pattern, final int partition, final long fromMs) throws IOException
    {
        for (final String line : process.linesContaining(pattern.pattern().substring(0, pattern.pattern().indexOf(' '))))
        {
            final Matcher matcher = pattern.matcher(line);
            if (matcher.find() && Integer.parseInt(matcher.group(1)) == partition &&
                Long.parseLong(matcher.group(matcher.groupCount())) >= fromMs)
            {
                return matcher;
            }
        }
        return null;
    }

    @Test
    @Timeout(value = 5, unit = TimeUnit.MINUTES)
    void aSecondFeedHandlerAFanoutWithOtherPartitionsAndARingOfAnotherLayoutAreRefused(@TempDir final Path dir)
        throws Exception
    {
        final long seed = 52003L;
        final long messages = 200_000;
        final String channel = "aeron:udp?endpoint=224.0.1.155:52400|interface=127.0.0.1|mtu=8192";
        try (ChainHarness chain = new ChainHarness(dir, "refusals", PARTITIONS, channel, 5400))
        {
            final String[] feed = lines(52401, 52403, "--retransmit-server", "127.0.0.1:52450");
            final ChainProcess feedHandler = chain.feedHandler(feed);
            chain.fanout("--snapshot-interval-ms", "1000");
            final List<ChainProcess> subscribers = chain.recorders(1);
            final ChainProcess simulator = chain.simulator(simulatorArgs(seed, messages, 20_000, 52401, 52403, 52450));
            ChainHarness.awaitSimulatorProgress(simulator, messages / 10);

            // The three refused processes start together: each is refused on its own, whatever the others do.
            final ChainProcess second = chain.start("feed-handler-second", feedHandlerArgs(chain, feed));
            final ChainProcess otherPartitions = chain.start("fanout-other-partitions", "fanout",
                "--ring-dir", chain.ringDir().toString(), "--partitions", "2", "--channel",
                "aeron:udp?endpoint=224.0.1.157:52500|interface=127.0.0.1|mtu=8192",
                "--state-dir", dir.resolve("other-state").toString(), "--stats-interval-s", "0");
            final Path oldLayout = dir.resolve("old-layout-rings");
            Files.createDirectories(oldLayout);
            // A ring of the layout before ring headers: data capacity plus Agrona's trailer only.
            Files.write(oldLayout.resolve("partition-0.ring"), new byte[(1 << 16) + 768]);
            final ChainProcess otherLayout = chain.start("fanout-other-layout", "fanout",
                "--ring-dir", oldLayout.toString(), "--partitions", "1", "--channel",
                "aeron:udp?endpoint=224.0.1.159:52600|interface=127.0.0.1|mtu=8192",
                "--state-dir", dir.resolve("layout-state").toString(), "--stats-interval-s", "0");

            assertEquals(ExitCodes.CONFIG, second.waitFor(60, TimeUnit.SECONDS),
                "a second feed handler on the ring directory is a configuration error (held by another process)");
            final String secondError = second.lastLineContaining("error");
            assertTrue(secondError.contains("is in use by feed-handler pid " + feedHandler.pid()),
                "the error names the holder: " + secondError);
            assertEquals(ExitCodes.CONFIG, otherPartitions.waitFor(60, TimeUnit.SECONDS),
                "a fanout with other --partitions is a configuration error");
            final String partitionsError = otherPartitions.lastLineContaining("--partitions 2");
            assertTrue(partitionsError.contains("they have 4 partitions"), partitionsError);
            assertEquals(ExitCodes.CONFIG, otherLayout.waitFor(60, TimeUnit.SECONDS),
                "a fanout on a ring of another layout is a configuration error");
            final String layoutError = otherLayout.lastLineContaining("another layout");
            assertTrue(layoutError.contains("partition-0.ring"), layoutError);

            // Nothing running was disturbed: the session is delivered whole.
            awaitSuccess(simulator, subscribers);
            final ExpectedStreams expected = ExpectedStreams.generate(seed, SYMBOLS, messages, PARTITIONS);
            expected.verifyRecording(chain.recording(1), "subscriber-1");
            assertTrue(feedHandler.isAlive(), "the first feed handler still runs");
            chain.passed();
        }
    }

    static void verifyExactlyOnce(final ChainHarness chain, final long seed, final List<ChainProcess> subscribers)
        throws IOException
    {
        verifyExactlyOnce(chain, seed, MESSAGES, subscribers);
    }

    static void verifyExactlyOnce(
        final ChainHarness chain, final long seed, final long messages, final List<ChainProcess> subscribers)
        throws IOException
    {
        final ExpectedStreams expected = ExpectedStreams.generate(seed, SYMBOLS, messages, PARTITIONS);
        for (int i = 1; i <= subscribers.size(); i++)
        {
            expected.verifyRecording(chain.recording(i), "subscriber-" + i);
            assertEquals(expected.books(), Files.readString(chain.books(i)), "subscriber-" + i + " books");
            // Stale only because the source was down (said while the feed handler was dead), never for lost data.
            for (final String stale : subscribers.get(i - 1).linesContaining("STALE "))
            {
                assertTrue(stale.contains("reason=SOURCE_DOWN"), "subscriber-" + i + ": " + stale);
            }
        }
    }

    static String[] feedHandlerArgs(final ChainHarness chain, final String[] feed)
    {
        return concat(new String[] {"feed-handler", "--ring-dir", chain.ringDir().toString(),
            "--partitions", Integer.toString(PARTITIONS), "--stats-interval-s", "2"}, feed);
    }

    static void awaitSuccess(final ChainProcess simulator, final List<ChainProcess> subscribers)
        throws IOException, InterruptedException
    {
        for (final ChainProcess subscriber : subscribers)
        {
            assertEquals(0, subscriber.waitFor(5, TimeUnit.MINUTES),
                subscriber.name() + " exit code (0 = END_OF_MESSAGES on every partition, no stream gap, nothing malformed)");
        }
        ChainHarness.endLingeringSimulator(simulator);
    }


    private static String[] lines(final int portA, final int portB, final String... more)
    {
        return concat(new String[] {"--group", LINE_A, "--port", Integer.toString(portA), "--interface", "127.0.0.1",
            "--group-b", LINE_B, "--port-b", Integer.toString(portB), "--gap-wait-ms", "5"}, more);
    }

    private static String[] simulatorArgs(
        final long seed, final long messages, final int rate, final int portA, final int portB, final int retransmitPort)
    {
        return new String[] {"--group", LINE_A, "--port", Integer.toString(portA), "--interface", "127.0.0.1",
            "--group-b", LINE_B, "--port-b", Integer.toString(portB),
            "--seed", Long.toString(seed), "--symbols", Integer.toString(SYMBOLS),
            "--messages", Long.toString(messages), "--rate", Integer.toString(rate),
            "--retransmit-port", Integer.toString(retransmitPort), "--linger-ms", "10000"};
    }

    static String[] concat(final String[] first, final String... second)
    {
        final String[] all = java.util.Arrays.copyOf(first, first.length + second.length);
        System.arraycopy(second, 0, all, first.length, second.length);
        return all;
    }
}
