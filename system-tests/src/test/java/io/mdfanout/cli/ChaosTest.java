package io.mdfanout.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.CleanupMode;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Issue 37's chaos run: a feed as a pair at 50,000 msg/s while, every few seconds, a random role (the feed handler or
 * the fanout) of a random side is killed with -9 and started again; never both sides at once (each fault waits until
 * the side hit before, and the side left serving, have caught up with the exchange's live edge). Both subscribers of
 * the pair must record the oracle's session exactly once, in order, byte for byte, end with the exchange's books, and
 * never be stale nor need a snapshot.
 * <p>
 * {@code make chaos} runs it for 5 minutes ({@value #SECONDS_PROPERTY}=300); {@code make test} for
 * {@value #DEFAULT_SECONDS} s, which is what its 30-minute budget leaves. The faults are drawn from a seed that is
 * printed ({@value #SEED_PROPERTY} replays a run's faults).
 */
class ChaosTest
{
    /** System property: seconds of session (messages = seconds x the rate). */
    static final String SECONDS_PROPERTY = "mdfanout.chaos.seconds";
    /** System property: the seed of the faults' draw (default: the time). */
    static final String SEED_PROPERTY = "mdfanout.chaos.seed";
    static final int DEFAULT_SECONDS = 60;
    private static final int RATE = 50_000;
    private static final int PARTITIONS = 4;
    private static final int SYMBOLS = 200;

    /** One side of the pair: its harness, its feed handler's arguments, and the roles running now. */
    private static final class Side
    {
        final String name;
        final ChainHarness chain;
        final String[] feedHandlerArgs;
        ChainProcess feedHandler;
        ChainProcess fanout;
        int restarts;

        Side(final String name, final ChainHarness chain, final String[] feedHandlerArgs)
        {
            this.name = name;
            this.chain = chain;
            this.feedHandlerArgs = feedHandlerArgs;
        }

        ChainProcess startFeedHandler(final String processName) throws Exception
        {
            feedHandler = chain.start(processName, RestartTest.concat(new String[] {"feed-handler",
                "--ring-dir", chain.ringDir().toString(), "--partitions", Integer.toString(PARTITIONS),
                "--stats-interval-s", "2"}, feedHandlerArgs));
            return feedHandler;
        }

        ChainProcess startFanout(final String processName) throws Exception
        {
            fanout = chain.namedFanout(processName, "--snapshot-interval-ms", "1000");
            return fanout;
        }
    }

    /** The draw, or the other choice when the last two were both the draw; remembered. */
    private static int notAThirdTime(final int drawn, final int[] lastTwo)
    {
        final int choice = lastTwo[0] == drawn && lastTwo[1] == drawn ? 1 - drawn : drawn;
        lastTwo[0] = lastTwo[1];
        lastTwo[1] = choice;
        return choice;
    }

    @Test
    @Timeout(value = 30, unit = TimeUnit.MINUTES)
    void aPairUnderKillNineOfRandomRolesOfEitherSideLosesNothingAndIsNeverStale(
        @TempDir(cleanup = CleanupMode.ON_SUCCESS) final Path dir) // a failed run's logs stay, whole, for its seed
        throws Exception
    {
        final int seconds = Integer.getInteger(SECONDS_PROPERTY, DEFAULT_SECONDS);
        final long messages = (long)RATE * seconds;
        final long chaosSeed = Long.getLong(SEED_PROPERTY, System.nanoTime());
        final Random random = new Random(chaosSeed);
        System.out.println("chaos: " + seconds + " s at " + RATE + " msg/s, faults drawn from -D" + SEED_PROPERTY + "=" +
            chaosSeed);
        final long sessionSeed = 61001L;
        final String channelA = "aeron:udp?endpoint=224.0.1.213:61200|interface=127.0.0.1|mtu=8192";
        final String channelB = "aeron:udp?endpoint=224.0.1.215:61400|interface=127.0.0.1|mtu=8192";
        final String[] lines = {"--group", "239.255.61.1", "--port", "61101", "--interface", "127.0.0.1",
            "--group-b", "239.255.61.3", "--port-b", "61103"};
        final String[] feed = RestartTest.concat(lines, "--gap-wait-ms", "5", "--retransmit-server", "127.0.0.1:61150");
        try (ChainHarness chainA = new ChainHarness(Files.createDirectories(dir.resolve("side-a")), "chaosa", PARTITIONS,
                channelA, 7100);
            ChainHarness chainB = new ChainHarness(Files.createDirectories(dir.resolve("side-b")), "chaosb", PARTITIONS,
                channelB, 7200))
        {
            chainA.fanoutStatsInterval(1);
            chainB.fanoutStatsInterval(1);
            final Side[] sides = {new Side("A", chainA, feed), new Side("B", chainB, feed)};
            for (final Side side : sides)
            {
                side.startFeedHandler("feed-handler");
                side.startFanout("fanout");
            }
            final List<ChainProcess> subscribers = chainA.recorders(1, 2, List.of(),
                "--pair-channel", channelB, "--pair-stream-id-base", chainB.streamIdBase());
            final ChainProcess simulator = chainA.simulator(RestartTest.concat(lines,
                "--seed", Long.toString(sessionSeed), "--symbols", Integer.toString(SYMBOLS),
                "--messages", Long.toString(messages), "--rate", Integer.toString(RATE),
                "--retransmit-port", "61150", "--linger-ms", "10000"));

            ChainHarness.awaitSimulatorProgress(simulator, RATE * 3L);
            final List<String> faults = new ArrayList<>();
            // Random, but never the same side nor the same role three times in a row: every run of 3 kills or more hits
            // both sides and both roles.
            final int[] lastSides = {-1, -1};
            final int[] lastRoles = {-1, -1};
            // The last 15% of the session is left for the last side hit to come back while the exchange still sends.
            while (ChainHarness.simulatorProgress(simulator) < messages * 85 / 100)
            {
                final int sideIndex = notAThirdTime(random.nextInt(2), lastSides);
                final Side side = sides[sideIndex];
                final boolean feedHandler = 0 == notAThirdTime(random.nextInt(2), lastRoles);
                final ChainProcess victim = feedHandler ? side.feedHandler : side.fanout;
                // The side left serving must be whole: caught up with the exchange, not still filling an outage.
                ChainHarness.awaitCaughtUp(sides[1 - sideIndex].fanout, simulator);
                final long at = ChainHarness.simulatorProgress(simulator);
                if (at >= messages * 85 / 100)
                {
                    break;
                }
                victim.kill9();
                assertFalse(victim.isAlive(), victim.name() + " of side " + side.name + " is dead");
                Thread.sleep(500 + random.nextInt(1500));
                side.restarts++;
                final String restarted = (feedHandler ? "feed-handler-" : "fanout-") + side.restarts;
                if (feedHandler)
                {
                    side.startFeedHandler(restarted); // on its rings: it re-requests its outage
                }
                else
                {
                    side.startFanout(restarted); // from its state: a new publication
                }
                ChainHarness.awaitCaughtUp(side.fanout, simulator);
                faults.add("side " + side.name + " " + (feedHandler ? "feed handler" : "fanout") + " at " + at);
                Thread.sleep(1_000 + random.nextInt(2_000));
            }

            RestartTest.awaitSuccess(simulator, subscribers);
            System.out.println("chaos: " + faults.size() + " kills: " + faults);
            // A kill, the role's restart (a JVM, its state) and the side's catch-up take 6 to 15 s on 2 cores.
            assertTrue(faults.size() >= Math.max(3, seconds / 20),
                "kills every few seconds: " + faults.size() + " in " + seconds + " s");
            assertTrue(faults.stream().anyMatch(f -> f.startsWith("side A")) &&
                faults.stream().anyMatch(f -> f.startsWith("side B")), "both sides were hit: " + faults);
            assertTrue(faults.stream().anyMatch(f -> f.contains("feed handler")) &&
                faults.stream().anyMatch(f -> f.contains("fanout")), "both roles were hit: " + faults);

            final ExpectedStreams expected = ExpectedStreams.generate(sessionSeed, SYMBOLS, messages, PARTITIONS);
            for (int i = 1; i <= subscribers.size(); i++)
            {
                final String who = "subscriber-" + i;
                final ChainProcess subscriber = subscribers.get(i - 1);
                expected.verifyPairRecording(chainA.recording(i), who);
                assertEquals(expected.books(), Files.readString(chainA.books(i)), who + " books");
                assertEquals(List.of(), subscriber.linesContaining("STALE "), who + " was never stale");
                final String summary = subscriber.lastLineContaining("record: messages=");
                System.out.println("chaos: " + who + ": " + summary);
                assertTrue(summary.contains(" stale=0 ") && summary.contains(" snapshotsApplied=0 ") &&
                    summary.contains(" gaps=0 "), who + " needed no snapshot and saw no gap: " + summary);
            }
            for (final Side side : sides)
            {
                assertTrue(side.feedHandler.isAlive() && side.fanout.isAlive(), "side " + side.name + " runs at the end");
            }
            chainA.passed();
            chainB.passed();
        }
    }
}
