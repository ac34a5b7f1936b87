package io.mdfanout.feed.replay;

import io.mdfanout.feed.handler.FeedHandlerConfig;
import io.mdfanout.feed.handler.FeedStats;
import io.mdfanout.feed.handler.IdleStrategyChoice;
import io.mdfanout.feed.handler.InMemoryCounters;
import io.mdfanout.feed.normalize.ItchNormalizer;
import io.mdfanout.feed.normalize.NormalizerCounters;
import io.mdfanout.feed.normalize.PartitionRingSet;
import org.agrona.BitUtil;
import org.agrona.concurrent.ringbuffer.RingBuffer;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * {@code replay}: normalize a NASDAQ binary ITCH 5.0 file (plain or gzipped) into the partition
 * rings, as fast as possible or at the original pace, then print a summary. The exchange sequence
 * of each message is its 1-based record index. Ring files are created at start and left in place.
 */
@Command(
    name = "replay",
    mixinStandardHelpOptions = true,
    showDefaultValues = true,
    description = "Replay a NASDAQ binary ITCH 5.0 file (plain or gzip) into the partition ring buffers. " +
        "Ring files are created at start and left in place on exit.")
public final class ReplayCommand implements Callable<Integer>
{
    @Option(names = "--file", required = true, description = "ITCH 5.0 binary file (2-byte length + message; gzip detected).")
    Path file;

    @Option(names = "--ring-dir", defaultValue = FeedHandlerConfig.DEFAULT_RING_DIR,
        description = "Directory of the partition ring files (partition-<n>.ring).")
    Path ringDir;

    @Option(names = "--partitions", defaultValue = "" + FeedHandlerConfig.DEFAULT_PARTITIONS,
        description = "Number of partitions (one ring each).")
    int partitions;

    @Option(names = "--ring-capacity-bytes", defaultValue = "" + FeedHandlerConfig.DEFAULT_RING_CAPACITY,
        description = "Data capacity of each ring in bytes (power of two).")
    int ringCapacity;

    @Option(names = "--pace", defaultValue = "max",
        description = "max: as fast as the rings accept; original: at the pace of the ITCH timestamps.")
    String pace;

    @Option(names = "--wait-for-consumer", defaultValue = "false",
        description = "After the last message, wait until the consumer (fanout) has drained every ring.")
    boolean waitForConsumer;

    @Option(names = "--idle-strategy", defaultValue = "backoff",
        description = "How to wait while a ring is full: backoff, yield or busy-spin.")
    String idleStrategy;

    @Option(names = "--stats-interval-s", defaultValue = "5",
        description = "Seconds between progress lines on stderr; 0 = off.")
    int statsIntervalS;

    /**
     * Replay the file.
     *
     * @return 0 when the whole file was replayed, 1 when it could not be read or stopped early, 2 for a
     * wrong configuration.
     */
    public Integer call()
    {
        final ReplayPace replayPace;
        final IdleStrategyChoice idle;
        try
        {
            replayPace = ReplayPace.parse(pace);
            idle = IdleStrategyChoice.parse(idleStrategy);
            if (partitions < 1 || partitions > FeedHandlerConfig.MAX_PARTITIONS)
            {
                throw new IllegalArgumentException(
                    "--partitions must be 1 to " + FeedHandlerConfig.MAX_PARTITIONS + ": " + partitions);
            }
            if (!BitUtil.isPowerOfTwo(ringCapacity) || ringCapacity < FeedHandlerConfig.MIN_RING_CAPACITY)
            {
                throw new IllegalArgumentException("--ring-capacity-bytes must be a power of two of at least " +
                    FeedHandlerConfig.MIN_RING_CAPACITY + ": " + ringCapacity);
            }
            if (statsIntervalS < 0)
            {
                throw new IllegalArgumentException("--stats-interval-s must be 0 or more: " + statsIntervalS);
            }
            if (!file.toFile().isFile())
            {
                throw new IllegalArgumentException("file not found: " + file);
            }
        }
        catch (final IllegalArgumentException ex)
        {
            System.err.println("replay: error: " + ex.getMessage());
            return 2;
        }

        // On SIGINT/SIGTERM: interrupt the replay (it stops at the next record or ring wait) and
        // hold the JVM until the rings are unmapped.
        final Thread replayThread = Thread.currentThread();
        final CountDownLatch finished = new CountDownLatch(1);
        final Thread hook = new Thread(
            () ->
            {
                replayThread.interrupt();
                try
                {
                    finished.await(10, TimeUnit.SECONDS);
                }
                catch (final InterruptedException ignore)
                {
                    // exit anyway
                }
            },
            "replay-shutdown");
        Runtime.getRuntime().addShutdownHook(hook);

        Thread statsThread = null;
        try (PartitionRingSet rings = new PartitionRingSet(ringDir, partitions, ringCapacity))
        {
            final InMemoryCounters counters = new InMemoryCounters(128);
            final NormalizerCounters normalizerCounters =
                new NormalizerCounters(counters.countersManager(), "replay", partitions);
            final ReplayCounters replayCounters = new ReplayCounters(counters.countersManager());
            final ItchNormalizer normalizer =
                new ItchNormalizer(rings.rings(), idle.newIdleStrategy(), normalizerCounters);
            final ItchFileReplayer replayer = new ItchFileReplayer(normalizer, replayCounters, replayPace);
            if (statsIntervalS > 0)
            {
                statsThread = startStatsThread(replayCounters, normalizerCounters, statsIntervalS);
            }

            final long startNs = System.nanoTime();
            final ItchFileReplayer.Outcome outcome = replayer.replay(file);
            final long elapsedNs = Math.max(1, System.nanoTime() - startNs);
            final long records = replayCounters.recordsRead().get();
            System.err.printf(
                "replay: %s: %s, %d records in %.3f s (%.0f msg/s), truncated=%d unframeable=%d %s%n",
                file, outcome, records, elapsedNs / 1e9, records * 1e9 / elapsedNs,
                replayCounters.truncatedRecords().get(), replayCounters.unframeableRecords().get(),
                FeedStats.line(null, normalizerCounters));

            if (waitForConsumer && ItchFileReplayer.Outcome.INTERRUPTED != outcome)
            {
                System.err.println("replay: waiting for the consumer to drain " + partitions + " ring(s)");
                if (!awaitDrained(rings.rings()))
                {
                    System.err.println("replay: interrupted while waiting for the consumer");
                    return 1;
                }
            }
            return ItchFileReplayer.Outcome.COMPLETED == outcome ? 0 : 1;
        }
        catch (final NoSuchFileException ex)
        {
            System.err.println("replay: error: file not found: " + ex.getFile());
            return 1;
        }
        catch (final IOException | RuntimeException ex)
        {
            System.err.println("replay: error: " + file + ": " + ex.getMessage());
            return 1;
        }
        finally
        {
            if (null != statsThread)
            {
                statsThread.interrupt();
            }
            finished.countDown();
            try
            {
                Runtime.getRuntime().removeShutdownHook(hook);
            }
            catch (final IllegalStateException ignore)
            {
                // already shutting down: the hook is running
            }
            Thread.interrupted(); // clear our own interrupt before returning to the caller
        }
    }

    private static boolean awaitDrained(final RingBuffer[] rings)
    {
        for (final RingBuffer ring : rings)
        {
            while (ring.consumerPosition() < ring.producerPosition())
            {
                if (Thread.currentThread().isInterrupted())
                {
                    return false;
                }
                try
                {
                    Thread.sleep(1);
                }
                catch (final InterruptedException ex)
                {
                    return false;
                }
            }
        }
        return true;
    }

    private static Thread startStatsThread(
        final ReplayCounters replayCounters, final NormalizerCounters normalizerCounters, final int intervalS)
    {
        final Thread thread = new Thread(
            () ->
            {
                try
                {
                    while (!Thread.currentThread().isInterrupted())
                    {
                        TimeUnit.SECONDS.sleep(intervalS);
                        System.err.println("replay: records=" + replayCounters.recordsRead().get() + " " +
                            FeedStats.line(null, normalizerCounters));
                    }
                }
                catch (final InterruptedException ignore)
                {
                    // stop printing
                }
            },
            "replay-stats");
        thread.setDaemon(true);
        thread.start();
        return thread;
    }

    /**
     * Run the command on its own, outside the {@code mdfanout} entry point.
     *
     * @param args command-line arguments.
     */
    public static void main(final String[] args)
    {
        System.exit(new CommandLine(new ReplayCommand()).execute(args));
    }
}
