package io.mdfanout.tools;

import io.mdfanout.sdk.FeedSubscriber;
import io.mdfanout.sdk.SubscriberCounters;
import io.mdfanout.wire.RoleErrorLog;
import org.agrona.concurrent.IdleStrategy;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.io.PrintStream;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;

/** {@code stats}: one line of receive rates and error counts per interval. */
@Command(name = "stats", mixinStandardHelpOptions = true, showDefaultValues = true,
    description = "Print receive rates and counters, one line per interval.")
public final class StatsCommand implements Callable<Integer>
{
    @Mixin
    SubscriberOptions subscriberOptions;

    @Option(names = "--interval-s", defaultValue = "1", description = "Seconds between lines.")
    long intervalS;

    PrintStream stdout = System.out;
    PrintStream stderr = System.err;

    /** {@inheritDoc} */
    public Integer call()
    {
        final int[] partitions;
        try
        {
            partitions = subscriberOptions.resolvePartitions();
            if (intervalS <= 0)
            {
                throw new IllegalArgumentException("--interval-s must be positive: " + intervalS);
            }
        }
        catch (final IllegalArgumentException ex)
        {
            stderr.println("stats: " + ex.getMessage());
            return 1;
        }

        final RoleErrorLog errorLog = subscriberOptions.errorLog("stats");
        try (StopSignal stopSignal = new StopSignal();
            ToolMedia media = ToolMedia.connect(subscriberOptions.aeronDir(), subscriberOptions.idle());
            ToolMetrics metrics = new ToolMetrics("stats"); // closed before the media: a scrape reads the driver's counters
            FeedSubscriber subscriber = new FeedSubscriber(metrics.feedSubscriberContext(subscriberOptions)
                .aeron(media.aeron()).partitions(partitions).errorHandler(errorLog)
                .listener(new EventPrinter(new RecoveryEvents(stderr)))))
        {
            metrics.start(subscriberOptions.metrics(), media, stderr, "stats");
            final IdleStrategy idle = media.pollIdle(subscriberOptions.idle().newIdleStrategy());
            final long intervalNs = TimeUnit.SECONDS.toNanos(intervalS);
            final StatsLine line = new StatsLine(subscriber.counters());
            long nextPrint = System.nanoTime() + intervalNs;
            while (stopSignal.isRunning())
            {
                idle.idle(subscriber.poll(FeedSubscriber.DEFAULT_FRAGMENT_LIMIT));
                final long now = System.nanoTime();
                if (now >= nextPrint)
                {
                    stdout.println(line.next(now));
                    nextPrint += intervalNs;
                }
            }
            return 0;
        }
        catch (final RuntimeException ex)
        {
            stderr.println("stats: " + ex.getMessage());
            return 1;
        }
    }

    /** Prints recovery and liveness events; ignores the messages. */
    static final class EventPrinter extends RecoveryReportingListener
    {

        EventPrinter(final RecoveryEvents events)
        {
            super(events);
        }

    }

    /** Rates since the previous line, totals since start. */
    static final class StatsLine
    {
        private final SubscriberCounters counters;
        private long lastNs = System.nanoTime();
        private long lastMessages;
        private long lastPackets;

        StatsLine(final SubscriberCounters counters)
        {
            this.counters = counters;
        }

        String next(final long nowNs)
        {
            final double seconds = Math.max(1e-9, (nowNs - lastNs) / 1e9);
            final long messages = counters.messages();
            final long packets = counters.packets();
            final long deltaMessages = messages - lastMessages;
            final long deltaPackets = packets - lastPackets;
            lastNs = nowNs;
            lastMessages = messages;
            lastPackets = packets;
            return String.format(Locale.ROOT,
                "messages/s=%.0f packets/s=%.0f messages/packet=%.2f heartbeats=%d gaps=%d missing=%d " +
                "duplicates=%d malformed=%d stale=%d recoveries=%d abandoned=%d bufferOverflows=%d " +
                "filtered=%d snapshotPackets=%d oldSession=%d silent=%d",
                deltaMessages / seconds, deltaPackets / seconds,
                0 == deltaPackets ? 0.0 : (double)deltaMessages / deltaPackets,
                counters.heartbeats(), counters.gaps(), counters.missingMessages(), counters.duplicatePackets(),
                counters.malformed(), counters.staleEvents(), counters.recoveries(),
                counters.recoveryAttemptsAbandoned(), counters.recoveryBufferOverflows(), counters.filteredMessages(),
                counters.snapshotPackets(), counters.oldSessionPackets(), counters.silentStreams());
        }
    }

    /**
     * Run from the command line (ad-hoc; the mdfanout CLI registers this command).
     *
     * @param args command-line arguments.
     */
    public static void main(final String[] args)
    {
        System.exit(new CommandLine(new StatsCommand()).execute(args));
    }
}
