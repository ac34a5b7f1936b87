package io.mdfanout.tools;

import io.mdfanout.sdk.FeedSubscriber;
import io.mdfanout.sdk.SubscriberCounters;
import io.mdfanout.wire.ExitCodes;
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

    @Option(names = "--stats-interval-s", defaultValue = "1",
        description = "Seconds between lines (the other roles' --stats-interval-s).")
    long intervalS;

    // Held apart and applied in call(): picocli applies --stats-interval-s's default after parsing when it was not
    // given, which would overwrite a value set here.
    private Long deprecatedIntervalS;

    /**
     * The name this option had before 0.1.0 ({@code --stats-interval-s} everywhere else): still read, with a warning.
     *
     * @param seconds seconds between lines.
     */
    @Option(names = "--interval-s", hidden = true, description = "Deprecated: --stats-interval-s.")
    void deprecatedInterval(final long seconds)
    {
        deprecatedIntervalS = seconds;
    }

    PrintStream stdout = System.out;
    PrintStream stderr = System.err;

    /** {@inheritDoc} */
    public Integer call()
    {
        if (null != deprecatedIntervalS)
        {
            stderr.println("stats: --interval-s is deprecated, use --stats-interval-s");
            intervalS = deprecatedIntervalS;
        }
        final int[] partitions;
        try
        {
            partitions = subscriberOptions.resolvePartitions();
            if (intervalS <= 0)
            {
                throw new IllegalArgumentException("--stats-interval-s must be positive: " + intervalS);
            }
        }
        catch (final IllegalArgumentException ex)
        {
            stderr.println("stats: " + ex.getMessage());
            return ExitCodes.CONFIG;
        }

        try (ToolSession session = ToolSession.open("stats", subscriberOptions, new ToolMetrics("stats"), partitions,
            new EventPrinter(new RecoveryEvents(stderr)), stderr))
        {
            final FeedSubscriber subscriber = session.subscriber();
            final long intervalNs = TimeUnit.SECONDS.toNanos(intervalS);
            final StatsLine line = new StatsLine(subscriber.counters());
            long nextPrint = System.nanoTime() + intervalNs;
            while (session.isRunning())
            {
                session.pollOnce();
                final long now = System.nanoTime();
                if (now >= nextPrint)
                {
                    stdout.println(line.next(now, session.partitionsWithoutPublisher()));
                    nextPrint += intervalNs;
                }
            }
            return ExitCodes.OK;
        }
        catch (final RuntimeException ex)
        {
            stderr.println("stats: " + ex.getMessage());
            return ExitCodes.of(ex);
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

        /**
         * @param nowNs              {@link System#nanoTime()}.
         * @param withoutPublisher   subscribed partitions with no connected publisher (then the rates are zero for a
         *                           reason: {@code noPublisher=} says so).
         * @return the line.
         */
        String next(final long nowNs, final int withoutPublisher)
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
                "filtered=%d snapshotPackets=%d oldSession=%d silent=%d noPublisher=%d",
                deltaMessages / seconds, deltaPackets / seconds,
                0 == deltaPackets ? 0.0 : (double)deltaMessages / deltaPackets,
                counters.heartbeats(), counters.gaps(), counters.missingMessages(), counters.duplicatePackets(),
                counters.malformed(), counters.staleEvents(), counters.recoveries(),
                counters.recoveryAttemptsAbandoned(), counters.recoveryBufferOverflows(), counters.filteredMessages(),
                counters.snapshotPackets(), counters.oldSessionPackets(), counters.silentStreams(), withoutPublisher);
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
