package io.mdfanout.tools;

import io.mdfanout.sdk.FeedSubscriber;
import io.mdfanout.sdk.MessageContext;
import io.mdfanout.sdk.SubscriberCounters;
import io.mdfanout.sdk.book.OrderBooks;
import io.mdfanout.wire.RoleErrorLog;
import org.agrona.DirectBuffer;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.concurrent.Callable;

/**
 * {@code record}: writes every received normalized message to a binary file (see
 * {@link MessageRecorder}), optionally the canonical book dump at exit. Made for automated tests:
 * exit 0 when the books are good at the end, 2 otherwise, 3 on timeout, 1 on bad configuration. With
 * recovery on (the default) "good" means no partition is stale at exit: gaps and malformed packets
 * happened, maybe, but each was repaired from a snapshot. With {@code --no-recovery} any gap or
 * malformed packet is data loss.
 * Snapshot content is applied to the books but never recorded; incrementals replayed after a
 * recovery are recorded. Recovery events are printed to stdout, one line each (see {@link RecoveryEvents}).
 */
@Command(name = "record", mixinStandardHelpOptions = true, showDefaultValues = true,
    description = "Record every received message to a binary file (for automated tests).")
public final class RecordCommand implements Callable<Integer>
{
    /** Exit code when the books are good: nothing lost, or (with recovery) every loss recovered. */
    public static final int EXIT_CLEAN = SessionRun.EXIT_CLEAN;
    /** Exit code for a configuration or I/O error. */
    public static final int EXIT_ERROR = SessionRun.EXIT_ERROR;
    /** Exit code when a partition is still stale, or (without recovery) a gap or malformed packet was seen. */
    public static final int EXIT_DATA_LOSS = SessionRun.EXIT_DATA_LOSS;
    /** Exit code when --timeout-s expired first. */
    public static final int EXIT_TIMEOUT = SessionRun.EXIT_TIMEOUT;

    @Mixin
    SubscriberOptions subscriberOptions;

    @Option(names = "--out", description = "File the records are written to (replaced). Without it nothing is " +
        "written: every message is still received, checked for gaps, dispatched and counted (a verifying or load " +
        "subscriber, as the benchmarks' publisher runs use).")
    Path out;

    @Option(names = "--until-end-of-messages", defaultValue = "false",
        description = "Stop once a SystemEvent END_OF_MESSAGES has been received on every subscribed partition "
            + "and none is stale (with recovery on, a partition still recovering is waited for).")
    boolean untilEndOfMessages;

    @Option(names = "--timeout-s", defaultValue = "0",
        description = "Give up after this many seconds with exit code 3 (0 = no limit).")
    long timeoutS;

    @Option(names = "--books-out", description = "Write the canonical order-book dump to this file at exit.")
    Path booksOut;

    @Option(names = "--ready-file",
        description = "Create this file once every partition subscription has a connected publisher image.")
    Path readyFile;

    PrintStream stdout = System.out;
    PrintStream stderr = System.err;

    /** {@inheritDoc} */
    public Integer call()
    {
        final int[] partitions;
        try
        {
            partitions = subscriberOptions.resolvePartitions();
            if (timeoutS < 0)
            {
                throw new IllegalArgumentException("--timeout-s must not be negative: " + timeoutS);
            }
        }
        catch (final IllegalArgumentException ex)
        {
            stderr.println("record: " + ex.getMessage());
            return EXIT_ERROR;
        }

        final OrderBooks books = null != booksOut ? new OrderBooks() : null;
        final ToolMetrics metrics = new ToolMetrics("record");
        final SubscriberCounters counters = metrics.counters();
        try (StopSignal stopSignal = new StopSignal();
            MessageRecorder recorder = null == out ? null : new MessageRecorder(out);
            ToolMedia media = ToolMedia.connect(subscriberOptions.aeronDir(), subscriberOptions.idle());
            metrics) // closed before the media: a scrape reads the driver's counters
        {
            metrics.start(subscriberOptions.metrics(), media, stderr, "record");
            final EndOfMessagesTracker listener =
                new EndOfMessagesTracker(recorder, books, partitions, new RecoveryEvents(stdout));
            final int exitCode;
            final String stalePartitions;
            final RoleErrorLog errorLog = subscriberOptions.errorLog("record");
            try (FeedSubscriber subscriber = new FeedSubscriber(metrics.feedSubscriberContext(subscriberOptions)
                .aeron(media.aeron()).partitions(partitions).errorHandler(errorLog).listener(listener)))
            {
                exitCode = SessionRun.run(subscriber, listener, stopSignal, readyFile, untilEndOfMessages, timeoutS,
                    media.pollIdle(subscriberOptions.idle().newIdleStrategy()),
                    subscriberOptions.feedSubscriberContext().recoveryEnabled());
                stalePartitions = stalePartitions(subscriber);
            }
            if (null != recorder)
            {
                recorder.flush();
            }
            if (null != books)
            {
                books.dump(booksOut);
            }
            stdout.println("record: messages=" + counters.messages() + " gaps=" + counters.gaps() +
                " missing=" + counters.missingMessages() + " duplicates=" + counters.duplicatePackets() +
                " malformed=" + counters.malformed() + " records=" + (null == recorder ? 0 : recorder.records()) +
                " stale=" + counters.staleEvents() + " recoveries=" + counters.recoveries() +
                " abandoned=" + counters.recoveryAttemptsAbandoned() + " snapshotsApplied=" +
                counters.snapshotsApplied() + " bufferOverflows=" + counters.recoveryBufferOverflows() +
                " filtered=" + counters.filteredMessages() + " snapshotPackets=" + counters.snapshotPackets() +
                " snapshotsIgnored=" + counters.snapshotsIgnored() + " snapshotGaps=" + counters.snapshotGaps() +
                " malformedSnapshot=" + counters.malformedSnapshotPackets() + " stalePartitions=" +
                stalePartitions +
                " oldSession=" + counters.oldSessionPackets() + " silent=" + counters.silentStreams() +
                (EXIT_TIMEOUT == exitCode ? " (timed out)" : ""));
            stdout.println("record: " + media.driverSummary());
            return exitCode;
        }
        catch (final RuntimeException | IOException ex)
        {
            stderr.println("record: " + ex.getMessage());
            return EXIT_ERROR;
        }
    }

    /** The partitions still recovering, as {@code [2,3]}: what exit code 2 with recovery on is about. */
    private static String stalePartitions(final FeedSubscriber subscriber)
    {
        final StringBuilder stale = new StringBuilder("[");
        for (final int partition : subscriber.partitions())
        {
            if (subscriber.isRecovering(partition))
            {
                stale.append(stale.length() > 1 ? "," : "").append(partition);
            }
        }
        return stale.append(']').toString();
    }

    /** Records, feeds the books, and watches for END_OF_MESSAGES on each partition. */
    private static final class EndOfMessagesTracker extends EndOfMessagesListener
    {
        private final MessageRecorder recorder;
        private final OrderBooks books;

        EndOfMessagesTracker(
            final MessageRecorder recorder, final OrderBooks books, final int[] partitions, final RecoveryEvents events)
        {
            super(partitions, events);
            this.recorder = recorder;
            this.books = books;
        }

        public void onRawMessage(
            final MessageContext context, final DirectBuffer buffer, final int offset, final int length)
        {
            if (null != recorder && !context.isSnapshot())
            {
                recorder.onRawMessage(context, buffer, offset, length);
            }
        }

        public void onSnapshotBegin(final int partition, final long snapshotId, final long lastStreamSequence)
        {
            if (null != books)
            {
                books.onSnapshotBegin(partition, snapshotId, lastStreamSequence);
            }
        }

        public void onSnapshotInstrument(
            final MessageContext context, final io.mdfanout.sbe.SnapshotInstrumentDecoder message)
        {
            if (null != books)
            {
                books.onSnapshotInstrument(context, message);
            }
        }

        public void onSnapshotOrder(final MessageContext context, final io.mdfanout.sbe.SnapshotOrderDecoder message)
        {
            if (null != books)
            {
                books.onSnapshotOrder(context, message);
            }
        }


        public void onInstrumentDirectory(
            final MessageContext context, final io.mdfanout.sbe.InstrumentDirectoryDecoder message)
        {
            if (null != books)
            {
                books.onInstrumentDirectory(context, message);
            }
        }

        public void onAddOrder(final MessageContext context, final io.mdfanout.sbe.AddOrderDecoder message)
        {
            if (null != books)
            {
                books.onAddOrder(context, message);
            }
        }

        public void onAddOrderAttributed(
            final MessageContext context, final io.mdfanout.sbe.AddOrderAttributedDecoder message)
        {
            if (null != books)
            {
                books.onAddOrderAttributed(context, message);
            }
        }

        public void onOrderExecuted(final MessageContext context, final io.mdfanout.sbe.OrderExecutedDecoder message)
        {
            if (null != books)
            {
                books.onOrderExecuted(context, message);
            }
        }

        public void onOrderExecutedWithPrice(
            final MessageContext context, final io.mdfanout.sbe.OrderExecutedWithPriceDecoder message)
        {
            if (null != books)
            {
                books.onOrderExecutedWithPrice(context, message);
            }
        }

        public void onOrderCancel(final MessageContext context, final io.mdfanout.sbe.OrderCancelDecoder message)
        {
            if (null != books)
            {
                books.onOrderCancel(context, message);
            }
        }

        public void onOrderDelete(final MessageContext context, final io.mdfanout.sbe.OrderDeleteDecoder message)
        {
            if (null != books)
            {
                books.onOrderDelete(context, message);
            }
        }

        public void onOrderReplace(final MessageContext context, final io.mdfanout.sbe.OrderReplaceDecoder message)
        {
            if (null != books)
            {
                books.onOrderReplace(context, message);
            }
        }
    }

    /**
     * Run from the command line (ad-hoc; the mdfanout CLI registers this command).
     *
     * @param args command-line arguments.
     */
    public static void main(final String[] args)
    {
        System.exit(new CommandLine(new RecordCommand()).execute(args));
    }
}
