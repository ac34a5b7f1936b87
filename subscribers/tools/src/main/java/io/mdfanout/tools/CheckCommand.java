package io.mdfanout.tools;

import io.mdfanout.sbe.GapNoticeDecoder;
import io.mdfanout.sdk.FeedSubscriber;
import io.mdfanout.sdk.MessageContext;
import io.mdfanout.sdk.StaleReason;
import io.mdfanout.sdk.SubscriberCounters;
import io.mdfanout.sdk.book.OrderBook;
import io.mdfanout.sdk.book.OrderBooks;
import io.mdfanout.wire.ExitCodes;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.IdleStrategy;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;

/**
 * {@code check}: a subscriber that passes or fails. It joins the feed, waits until every partition is live
 * (recovered from a snapshot or joined at its start), then watches for {@code --duration-s}: it passes (exit 0)
 * when every partition stayed live, delivered at least {@code --min-messages} messages and had no gap, and the
 * books hold orders. Anything else fails (exit 4, data loss) with the reason on one line. The chart's {@code helm test}
 * runs it; operators run it to answer "is this feed alive, here, now?".
 */
@Command(name = "check", mixinStandardHelpOptions = true, showDefaultValues = true,
    description = "Subscribe, and pass (exit 0) only when every partition is live, delivers messages with no gap " +
        "for --duration-s and the books hold orders; otherwise fail (exit 4) saying why.")
public final class CheckCommand implements Callable<Integer>
{
    @Mixin
    SubscriberOptions subscriberOptions;

    @Option(names = "--duration-s", defaultValue = "10",
        description = "Seconds to watch once every partition is live.")
    long durationS;

    @Option(names = "--join-timeout-s", defaultValue = "60",
        description = "Seconds to wait for every partition to become live.")
    long joinTimeoutS;

    @Option(names = "--min-messages", defaultValue = "1",
        description = "Messages each partition must deliver while watched.")
    long minMessages;

    PrintStream stdout = System.out;
    PrintStream stderr = System.err;

    /** {@inheritDoc} */
    public Integer call()
    {
        final int[] partitions;
        try
        {
            partitions = subscriberOptions.resolvePartitions();
            if (durationS <= 0 || joinTimeoutS <= 0 || minMessages < 0)
            {
                throw new IllegalArgumentException(
                    "--duration-s and --join-timeout-s must be positive, --min-messages not negative");
            }
        }
        catch (final IllegalArgumentException ex)
        {
            stderr.println("check: " + ex.getMessage());
            return ExitCodes.CONFIG;
        }

        final OrderBooks books = new OrderBooks();
        final Watcher watcher = new Watcher(books, new RecoveryEvents(stderr), partitions);
        try (ToolSession session = ToolSession.open(
            "check", subscriberOptions, new ToolMetrics("check"), partitions, watcher, stderr))
        {
            final FeedSubscriber subscriber = session.subscriber();
            final StopSignal stopSignal = session.stopSignal();
            final IdleStrategy idle = session.idle();
            final long joinDeadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(joinTimeoutS);
            while (stopSignal.isRunning() && !allLive(subscriber, watcher, partitions))
            {
                if (System.nanoTime() - joinDeadline > 0)
                {
                    return fail(watcher, partitions, subscriber,
                        "not every partition became live within " + joinTimeoutS + " s");
                }
                idle.idle(subscriber.poll(FeedSubscriber.DEFAULT_FRAGMENT_LIMIT));
            }
            watcher.startWatching();
            // Said when it begins, so that whoever injects a fault during the check knows the fault is watched.
            stderr.println("check: every partition is live; watching for " + durationS + " s");
            final long watchEnd = System.nanoTime() + TimeUnit.SECONDS.toNanos(durationS);
            while (stopSignal.isRunning() && System.nanoTime() - watchEnd < 0)
            {
                idle.idle(subscriber.poll(FeedSubscriber.DEFAULT_FRAGMENT_LIMIT));
            }
            if (!stopSignal.isRunning())
            {
                return fail(watcher, partitions, subscriber, "stopped by a signal before the end of the check");
            }
            final String problem = watcher.problem(subscriber, minMessages);
            if (null != problem)
            {
                return fail(watcher, partitions, subscriber, problem);
            }
            stdout.println("check: ok: " + watcher.summary(partitions) + " in " + durationS + " s, no gap, books " +
                books.activeInstrumentIds().length + " instruments with " + books.orderCount() + " orders" +
                watcher.topOfBook() + sides(subscriber));
            return ExitCodes.OK;
        }
        catch (final RuntimeException ex)
        {
            stderr.println("check: " + ex.getMessage());
            return ExitCodes.DATA_LOSS;
        }
    }

    private int fail(
        final Watcher watcher, final int[] partitions, final FeedSubscriber subscriber, final String why)
    {
        stdout.println("check: FAILED: " + why + " (" + watcher.summary(partitions) + sides(subscriber) + ")");
        return ExitCodes.DATA_LOSS;
    }

    /**
     * A pair's sides since the check started: which delivered, and what each lacked or was refused. A check that
     * passed while one side was down or replaced shows it here (the other side delivered all).
     */
    static String sides(final FeedSubscriber subscriber)
    {
        if (subscriber.sideCount() < 2)
        {
            return "";
        }
        final SubscriberCounters counters = subscriber.counters();
        final StringBuilder b = new StringBuilder("; sides (delivered first/duplicates/refused/mismatched copies)");
        for (int side = 0; side < subscriber.sideCount(); side++)
        {
            b.append(' ').append((char)('A' + side)).append('=').append(counters.sideMessages(side))
                .append('/').append(counters.sideDuplicates(side))
                .append('/').append(counters.sideRefused(side))
                .append('/').append(counters.sideMismatches(side));
        }
        return b.toString();
    }

    private static boolean allLive(final FeedSubscriber subscriber, final Watcher watcher, final int[] partitions)
    {
        for (final int partition : partitions)
        {
            if (subscriber.isStale(partition) || !watcher.hasJoined(partition))
            {
                return false;
            }
        }
        return true;
    }

    /** Feeds the books, counts each partition's messages and remembers what went wrong while watched. */
    static final class Watcher extends BookCommand.ActivityListener
    {
        private final long[] messages;
        private final boolean[] joined;
        private final List<String> problems = new ArrayList<>();
        private boolean watching;

        Watcher(final OrderBooks books, final RecoveryEvents events, final int[] partitions)
        {
            super(books, events);
            int highest = 0;
            for (final int partition : partitions)
            {
                highest = Math.max(highest, partition);
            }
            messages = new long[highest + 1];
            joined = new boolean[highest + 1];
        }

        void startWatching()
        {
            Arrays.fill(messages, 0);
            watching = true;
        }

        boolean hasJoined(final int partition)
        {
            return joined[partition];
        }

        public void onStreamJoined(final int partition, final long streamSequence)
        {
            joined[partition] = true;
        }

        public void onRecovered(
            final int partition, final long snapshotId, final long lastStreamSequence, final long staleForNanos)
        {
            super.onRecovered(partition, snapshotId, lastStreamSequence, staleForNanos);
            joined[partition] = true;
        }

        public void onRawMessage(
            final MessageContext context, final DirectBuffer buffer, final int offset, final int length)
        {
            super.onRawMessage(context, buffer, offset, length);
            messages[context.partition()]++;
        }

        public void onStreamGap(final int partition, final long firstMissing, final long lastMissing)
        {
            if (watching)
            {
                problems.add("gap on partition " + partition + ": stream sequences " + firstMissing + ".." +
                    lastMissing + " missing");
            }
        }

        public void onStale(final int partition, final StaleReason reason, final long streamSequence)
        {
            super.onStale(partition, reason, streamSequence);
            if (watching)
            {
                problems.add("partition " + partition + " went stale (" + reason + ") at stream sequence " +
                    streamSequence);
            }
        }

        public void onGapNotice(final MessageContext context, final GapNoticeDecoder message)
        {
            if (watching)
            {
                problems.add("the feed declared a gap on partition " + context.partition() + " (exchange sequences " +
                    "up to " + message.lastMissingSequence() + " lost upstream)");
            }
        }

        String problem(final FeedSubscriber subscriber, final long minMessages)
        {
            if (!problems.isEmpty())
            {
                return String.join("; ", problems);
            }
            for (final int partition : subscriber.partitions())
            {
                if (subscriber.hasExchangeGap(partition))
                {
                    return "partition " + partition + " lost exchange messages for good (a GapNotice): its books " +
                        "and every snapshot of them lack them";
                }
                if (subscriber.isStale(partition))
                {
                    return "partition " + partition + " is stale at the end of the check";
                }
                if (messages[partition] < minMessages)
                {
                    return "partition " + partition + " delivered " + messages[partition] + " messages, fewer than " +
                        minMessages;
                }
            }
            if (0 == books.orderCount())
            {
                return "the books hold no orders";
            }
            return null;
        }

        String summary(final int[] partitions)
        {
            final StringBuilder b = new StringBuilder();
            for (final int partition : partitions)
            {
                b.append(b.length() == 0 ? "" : ", ").append("partition ").append(partition).append(' ')
                    .append(messages[partition]).append(" messages");
            }
            return b.toString();
        }

        String topOfBook()
        {
            final long[] active = mostActive(1);
            if (0 == active.length)
            {
                return "";
            }
            final OrderBook book = books.book(active[0]);
            final StringBuilder b = new StringBuilder("; most active ").append(books.directory().symbol(active[0]));
            if (book.bids().size() > 0)
            {
                TextFormat.appendPrice(b.append(" bid "), book.bids().price(0), 4);
            }
            if (book.asks().size() > 0)
            {
                TextFormat.appendPrice(b.append(" ask "), book.asks().price(0), 4);
            }
            return b.toString();
        }
    }

    /**
     * Run from the command line (ad-hoc; the mdfanout CLI registers this command).
     *
     * @param args command-line arguments.
     */
    public static void main(final String[] args)
    {
        System.exit(new CommandLine(new CheckCommand()).execute(args));
    }
}
