package io.mdfanout.cli;

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
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A feed handler that starts mid-session with nothing (a new pod: its ring directory empty) joins from
 * the exchange's snapshot service (issue 26): it loads the simulator's GLIMPSE 5.0 snapshot into a new
 * generation of rings and continues from the MoldUDP64 stream at the snapshot's sequence. The fanout,
 * which ran on through it, follows the new generation; the subscribers say they were stale and
 * recovered, end with the reference books, and delivered the oracle's messages: the first generation whole, and
 * in the new one every instrument's messages after the snapshot that recovered it.
 */
class GlimpseStartTest
{
    private static final int PARTITIONS = 4;
    private static final int SYMBOLS = 200;
    // Half of it after the kill: the restarted feed handler (a JVM, the GLIMPSE load, new rings) took 5 s on a loaded
    // machine, and at 700,000 messages the session was over before its first snapshot: nothing left to deliver live.
    private static final long MESSAGES = 1_000_000;
    private static final Pattern STALE = Pattern.compile(
        "STALE partition=(\\d+) reason=(\\w+) streamSequence=(\\d+) epochMs=(\\d+)");
    private static final Pattern RECOVERED = Pattern.compile(
        "RECOVERED partition=(\\d+) snapshotId=([1-9]\\d*) lastStreamSequence=(\\d+) staleMs=(\\d+) epochMs=(\\d+)");

    @Test
    @Timeout(value = 10, unit = TimeUnit.MINUTES)
    void aFeedHandlerStartedAtHalfTimeWithEmptyRingsJoinsFromGlimpseAndTheBooksEndRight(@TempDir final Path dir)
        throws Exception
    {
        final long seed = 53001L;
        final String channel = "aeron:udp?endpoint=224.0.1.173:53000|interface=127.0.0.1|mtu=8192";
        try (ChainHarness chain = new ChainHarness(dir, "glimpse", PARTITIONS, channel, 5310))
        {
            final String[] feed = {"--group", "239.255.53.1", "--port", "53101", "--interface", "127.0.0.1",
                "--retransmit-server", "127.0.0.1:53150"};
            final ChainProcess first = chain.feedHandler(feed);
            chain.fanout("--snapshot-interval-ms", "1000", "--state-dir", dir.resolve("fanout-state").toString());
            final List<ChainProcess> subscribers = chain.recorders(2);
            final ChainProcess simulator = chain.simulator("--group", "239.255.53.1", "--port", "53101",
                "--interface", "127.0.0.1", "--seed", Long.toString(seed), "--symbols", Integer.toString(SYMBOLS),
                "--messages", Long.toString(MESSAGES), "--rate", "50000", "--retransmit-port", "53150",
                "--glimpse-port", "53160", "--linger-ms", "5000");

            ChainHarness.awaitSimulatorProgress(simulator, MESSAGES / 2);
            first.kill9();
            assertFalse(first.isAlive());
            // A new pod: nothing of the dead feed handler's is left (the fanout's state lives elsewhere here).
            try (var files = Files.list(chain.ringDir()))
            {
                for (final Path file : files.toList())
                {
                    Files.delete(file);
                }
            }
            final long restartedAtMs = System.currentTimeMillis();
            final ChainProcess second = chain.start("feed-handler-glimpse", RestartTest.concat(
                new String[] {"feed-handler", "--ring-dir", chain.ringDir().toString(),
                    "--partitions", Integer.toString(PARTITIONS), "--stats-interval-s", "2",
                    "--glimpse", "127.0.0.1:53160"}, feed));

            RestartTest.awaitSuccess(simulator, subscribers);
            final String loaded = second.lastLineContaining("GLIMPSE");
            assertTrue(loaded.contains("continuing at sequence"), "the snapshot was loaded: " + loaded);
            System.out.println(loaded);
            assertTrue(second.lastLineContaining("rings:").contains("new generation"), second.lastLineContaining("rings:"));

            final long continuedAt = Long.parseLong(loaded.replaceAll("^.*continuing at sequence (\\d+).*$", "$1"));
            final ExpectedStreams expected = ExpectedStreams.generate(seed, SYMBOLS, MESSAGES, PARTITIONS);
            for (int i = 1; i <= subscribers.size(); i++)
            {
                final ChainProcess subscriber = subscribers.get(i - 1);
                assertEquals(expected.books(), Files.readString(chain.books(i)), subscriber.name() + " books");
                // Equal books can hide lost trades: what was delivered, against the oracle, in both generations.
                expected.verifyAcrossGlimpseGeneration(chain.recording(i), subscriber.name(), continuedAt);
                for (int partition = 0; partition < PARTITIONS; partition++)
                {
                    final Matcher stale = last(subscriber, STALE, partition);
                    final Matcher recovered = last(subscriber, RECOVERED, partition);
                    assertTrue(null != stale && Long.parseLong(stale.group(4)) >= restartedAtMs,
                        subscriber.name() + " said partition " + partition + " was stale for the new generation");
                    assertTrue(null != recovered && Long.parseLong(recovered.group(5)) >= Long.parseLong(stale.group(4)),
                        subscriber.name() + " recovered partition " + partition);
                    System.out.println(subscriber.name() + ": " + stale.group() + " -> " + recovered.group());
                }
            }
            chain.passed();
        }
    }

    private static Matcher last(final ChainProcess process, final Pattern pattern, final int partition) throws Exception
    {
        Matcher found = null;
        for (final String line : process.linesContaining(pattern.pattern().substring(0, pattern.pattern().indexOf(' '))))
        {
            final Matcher matcher = pattern.matcher(line);
            if (matcher.find() && Integer.parseInt(matcher.group(1)) == partition)
            {
                found = matcher;
            }
        }
        return found;
    }
}
